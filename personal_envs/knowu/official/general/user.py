"""The official user simulator of the general tasks: its system prompt, and a deterministic default.

Officially (``BaseTask.initialize_user_agent_hook``) a general task's user model is told the task's goal, the
``relevant_information`` (no general class sets one, so the base's default sentence), and today's date
(``BaseTask.__init__``: the device date when the task uses Chrome, Maps or MCP-arXiv, a fixed date otherwise), and
to refuse what it cannot answer from them.  :func:`user_system_prompt` renders that prompt from the release's
``tasks/base.py`` with :class:`~personal_envs.knowu.official.template.TextSource`; the project's pinned start time
stands in for the device clock.  :class:`~personal_envs.knowu.official.llm_user.OfficialLLMUser` sends it.

:class:`OfficialGeneralUser` (the default) knows the same two things: it answers date questions with that date,
refuses requests for identity or contact data, and otherwise points back to the request, because the official
user has no further task information.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import datetime
from pathlib import Path

from personal_envs.knowu.official.release import PACKAGE
from personal_envs.knowu.official.routine.user import REFUSAL, is_extraction
from personal_envs.knowu.official.template import Clock, Record, TextSource, text_source
from personal_envs.simulators.users.base import SimulatedUser, UserReply

#: The official base class of every task.
BASE_CLASS = "BaseTask"
_DATE_QUESTION = re.compile(r"\b(what('s| is)? (the )?(date|day)|today'?s date|which day|what day|date today|"
                            r"today is)\b", re.IGNORECASE)


def tasks_text_source(root: str | Path) -> TextSource:
    """The parsed ``tasks/`` package of a release (``base.py`` and its neighbours; cached)."""
    return text_source(str(Path(root).resolve() / PACKAGE / "tasks"))


def current_date(root: str | Path, app_names: Iterable[str], start: datetime) -> str:
    """``self.current_date`` as the official ``BaseTask.__init__`` sets it, with ``start`` as the device clock."""
    source = tasks_text_source(root)
    walked = source.run(BASE_CLASS, "__init__", {"app_names": sorted(app_names)}, [None],
                        globals_={"datetime": Clock(start)})
    value = walked.attributes.get("current_date")
    if not isinstance(value, str):
        raise ValueError(f"the release's {BASE_CLASS}.__init__ set no current_date")
    return value


def user_system_prompt(root: str | Path, goal: str, app_names: Iterable[str], start: datetime) -> str:
    """The general user model's system prompt, as the official ``initialize_user_agent_hook`` builds it."""
    source = tasks_text_source(root)
    controller = Record()
    source.run(BASE_CLASS, "initialize_user_agent_hook",
               {"goal": goal, "current_date": current_date(root, app_names, start)}, [controller])
    prompt = getattr(controller, "user_sys_prompt", None)
    if not isinstance(prompt, str):
        raise ValueError(f"the release's {BASE_CLASS}.initialize_user_agent_hook set no user_sys_prompt")
    return prompt


class OfficialGeneralUser(SimulatedUser):
    """Deterministic general-task user: knows the request and today's date, nothing more (as the official user).

    Args:
        goal: The task's request.
        today: Today's date as the official user is told it (``YYYY-MM-DD``).
    """

    kind = "official-general"

    def __init__(self, goal: str, today: str) -> None:
        super().__init__()
        self.goal = goal
        self.today = today

    def _answer(self, message: str) -> UserReply:
        if is_extraction(message):
            return UserReply(REFUSAL, None, "refused an extraction attempt")
        if _DATE_QUESTION.search(message):
            return UserReply(f"Today is {self.today}.", None, "date question")
        return UserReply(f"I can't tell you more than my request: {self.goal} Please go ahead with it.", None,
                         "no more task information")
