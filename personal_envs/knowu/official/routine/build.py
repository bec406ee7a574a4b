"""Build routine variants from plain inputs: a task source, a class, a persona's profile and logs.

:func:`build_routine` is what the registry's builders call (one per class): the setup by the official rules, the
goal with the persona's logs (:func:`~personal_envs.knowu.official.user_logs.log_context`) and the user's prompt
rendered by the task source, scored by rules.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from personal_envs.knowu.official.routine.rules import ROUTINES, setup_routine
from personal_envs.knowu.official.routine.task import OfficialRoutineTask
from personal_envs.knowu.official.texts import (
    PERSONA,
    ROUTINE_CONTEXT,
    ROUTINE_GOAL,
    ROUTINE_INSTRUCTION,
    USER_SYSTEM_PROMPT,
    TaskSource,
)
from personal_envs.knowu.official.user_logs import log_context
from personal_envs.knowu.personas import hidden_values, user_profile_of


class MissingRoutineField(KeyError):
    """A profile cannot build a routine variant (names the missing field)."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "missing profile field"


def build_routine(source: TaskSource, cls: str, role: str, profile_document: Mapping[str, Any],
                  logs: Sequence[Mapping[str, Any]] | None, *, memory: str = "all", top_k: int = 10,
                  user: str = "profile", log_source: str = "clean") -> OfficialRoutineTask:
    """The variant ``cls@role`` of ``source``: setup by the official rules, goal and user prompt rendered by the
    source, scored by rules."""
    if cls not in ROUTINES:
        raise KeyError(f"{cls!r} is not an official routine class; known: {', '.join(sorted(ROUTINES))}")
    profile = user_profile_of(profile_document)
    if not isinstance(profile.get("habits", {}), Mapping):
        raise MissingRoutineField(f"{cls}@{role}: the profile's 'user_profile.habits' must be a mapping")
    setup = setup_routine(cls, profile)
    setup.values.setdefault("user_profile", profile)
    values = {**setup.values, "should_act": setup.should_act}
    instruction = str(source.text(cls, ROUTINE_INSTRUCTION, {}))
    text = str(source.text(cls, ROUTINE_GOAL, {**values, "user_log_context": log_context(logs, memory, top_k,
                                                                                           instruction)}))
    persona = str(source.text(cls, PERSONA, {"profile": profile}))
    info = source.text(cls, ROUTINE_CONTEXT, {**values, "persona_text": persona, "user_profile": profile})
    prompt = str(source.text(cls, USER_SYSTEM_PROMPT, {"family": "routine", "relevant_information": info}))
    official = source.get(cls)
    task = OfficialRoutineTask(f"{cls}@{role}", setup, text, profile, prompt, official.difficulty,
                               official.app_names, source.label, user, hidden_values(profile))
    task.settings = {"memory": memory, "log_source": log_source, "top_k": top_k if memory == "rag" else None}
    return task
