"""The official texts of a routine variant, rendered from the release: the agent's goal and the user's context.

* :func:`goal` is ``BaseRoutineTask._build_goal`` with the class's own ``system_context`` (``__init__``): the user's
  activity logs, "System Status: Background Monitor Active.", the context, and the official instruction.
* :func:`relevant_information` is ``_build_relevant_information`` with the class's ``current_context``,
  ``routine_status`` and ``task_specific_detail`` (``initialize_task_hook``): what the official user simulator sees.
* :func:`user_system_prompt` wraps it as ``_set_user_sys_prompt`` does.
"""

from __future__ import annotations

from typing import Any

from personal_envs.knowu.official.routine.rules import RoutineSetup
from personal_envs.knowu.official.template import TextSource

NO_LOGS = "- (No logs available)"


def _values(setup: RoutineSetup, **extra: Any) -> dict[str, Any]:
    values = dict(setup.values)
    values.setdefault("expectation", {"should_act": setup.should_act, "actions": []})
    values.update(extra)
    return values


def goal(source: TextSource, setup: RoutineSetup, log_context: str, instruction: str | None = None) -> str:
    """The agent's goal text of ``setup`` with ``log_context`` (the rendered user logs)."""
    values = _values(setup, user_log_context=log_context or NO_LOGS)
    kwargs = source.call_arguments(setup.cls, "__init__", "_build_goal", values)
    if instruction is not None:
        kwargs["instruction"] = instruction
    return str(source.render_return(setup.cls, "_build_goal", values, kwargs))


def relevant_information(source: TextSource, setup: RoutineSetup, persona_text: str) -> str:
    """What the official user simulator is told (persona, current context, routine status, policy, format)."""
    values = _values(setup, persona_text=persona_text, user_profile=setup.values.get("user_profile", {}))
    kwargs = source.call_arguments(setup.cls, "initialize_task_hook", "_build_relevant_information", values)
    return str(source.render_return(setup.cls, "_build_relevant_information", values, kwargs))


def user_system_prompt(source: TextSource, setup: RoutineSetup, persona_text: str) -> str:
    """The user simulator's system prompt (``_set_user_sys_prompt``)."""
    info = relevant_information(source, setup, persona_text)
    return f"Context: {info}. Only answer based on this info."
