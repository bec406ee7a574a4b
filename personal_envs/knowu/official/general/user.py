"""The deterministic user of the general tasks.

Officially (``BaseTask.initialize_user_agent_hook``) a general task's user model is told the task's goal, the
``relevant_information`` (no general class sets one, so the base's default sentence), and today's date
(``BaseTask.__init__``: the device date when the task uses Chrome, Maps or MCP-arXiv, a fixed date otherwise), and
to refuse what it cannot answer from them.  The task source renders that prompt (slot ``general.user_prompt``) for
:class:`~personal_envs.knowu.official.llm_user.OfficialLLMUser`.

:class:`OfficialGeneralUser` (the default) knows the same two things: it answers date questions with that date,
refuses requests for identity or contact data, and otherwise points back to the request, because the official
user has no further task information.
"""

from __future__ import annotations

import re

from personal_envs.knowu.official.guard import REFUSAL, is_extraction
from personal_envs.simulators.users.base import SimulatedUser, UserReply

_DATE_QUESTION = re.compile(r"\b(what('s| is)? (the )?(date|day)|today'?s date|which day|what day|date today|"
                            r"today is)\b", re.IGNORECASE)


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
