"""The official routine user simulator: the LLM user as the official code runs it, and a deterministic default.

Official protocol (``BaseRoutineTask`` + ``tasks/utils.user_agent_answer_question``): the user model gets the system
prompt ``"Context: <relevant information>. Only answer based on this info."`` (persona, current context, ROUTINE
STATUS "You HAVE / do NOT have this routine", the ~90 % consistency policy and the ``<think>`` / ``<decision>`` output
format), then the whole dialogue so far (agent questions as ``user``, its own raw replies as ``assistant``) and the
new question; it is sampled at temperature 0, top_p 1, no penalties, ``seed=42``.  Its raw reply is what the agent
sees, and the task reads the decision from it.

:class:`OfficialRoutineLLMUser` (:class:`~personal_envs.knowu.official.llm_user.OfficialLLMUser`) sends exactly that.
:class:`OfficialRoutineUser` (default) decides as the official user model is told to: when the assistant *suggests
an action* it accepts exactly when the habit applies (the official policy's rule, whatever words the proposal uses)
and says so in the official format (``<think>`` then ``<decision>``).  A message that is not a proposal is not a
decision (:mod:`personal_envs.knowu.user_messages`): a clarifying question gets an answer from the official profile
schema, a request for identity or contact data the shared refusal (:mod:`~personal_envs.knowu.official.guard`),
anything else a request to say what the assistant suggests, all without a ``<decision>`` tag.  (Before, the refusal carried no tag while the official parser reads an
untagged first reply as a rejection: "ask for the phone number, then finish" scored 1.0 on 64/64 variants.)
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from personal_envs.knowu.official.guard import REFUSAL, is_extraction
from personal_envs.knowu.official.llm_user import OFFICIAL_SAMPLING, OfficialLLMUser
from personal_envs.knowu.personas import value_at
from personal_envs.knowu.user_messages import is_clarifying_question, is_proposal
from personal_envs.simulators.users.base import Decision, SimulatedUser, UserReply

__all__ = ["OFFICIAL_SAMPLING", "OfficialRoutineLLMUser", "OfficialRoutineUser"]

#: The official LLM user of the routine family (the protocol is the same in every family).
OfficialRoutineLLMUser = OfficialLLMUser
#: The reply to a message that neither asks a question nor suggests an action (no decision).
NOT_A_PROPOSAL = "I'm not sure what you are suggesting. What would you like to do?"

#: Topic -> (keywords, dotted paths under ``user_profile`` in the official schema).
TOPICS: tuple[tuple[str, tuple[str, ...], tuple[str, ...]], ...] = (
    ("time", ("what time", "when", "which time", "schedule"), ("preferences.social.meeting_preference",)),
    ("diet", ("eat", "food", "diet", "cuisine", "allerg"), ("preferences.diet",)),
    ("shopping", ("buy", "shop", "brand", "budget", "price"), ("preferences.shopping",)),
    ("transport", ("commute", "transport", "route", "travel", "drive", "metro", "bus"), ("preferences.travel",)),
    ("social", ("style", "tone", "emoji", "post", "share"), ("preferences.social",)),
    ("apps", ("app", "setting", "ringtone", "theme"), ("preferences.apps", "digital_context.preferred_apps")),
    ("work", ("work", "job", "office", "team", "channel"), ("identity.occupation", "identity.employer")),
)


def _brief(value: Any, limit: int = 240) -> str:
    text = json.dumps(value, ensure_ascii=False) if not isinstance(value, str) else value
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"


def topic_answer(profile: Mapping[str, Any], message: str) -> str:
    """A short answer to a topic question from the official profile schema ('' when no topic matches)."""
    lowered = message.lower()
    for _name, keywords, paths in TOPICS:
        if any(k in lowered for k in keywords):
            values = [v for v in (value_at(profile, p) for p in paths) if v not in (None, "", [], {})]
            if values:
                return _brief(values[0])
    return ""


def decision_text(decision: Decision) -> str:
    """A decision in the official output format (``<think>`` then ``<decision>``)."""
    thought = ("This matches my routine, so I follow it." if decision == "accept"
               else "This is not part of my routine, so I decline.")
    return f"<think>\n{thought}\n</think>\n<decision>{decision}</decision>"


class OfficialRoutineUser(SimulatedUser):
    """Deterministic routine user: decides proposals only, accepting exactly when the habit applies (the official
    policy's rule); questions and other messages get no decision.

    Args:
        should_act: Whether the routine's habit applies to this user (hidden).
        profile: The ``user_profile`` mapping (hidden; topic answers only).
    """

    kind = "official-routine"

    def __init__(self, should_act: bool, profile: Mapping[str, Any] | None = None) -> None:
        super().__init__()
        self.should_act = should_act
        self.profile = dict(profile or {})

    def _answer(self, message: str) -> UserReply:
        if is_extraction(message):
            return UserReply(REFUSAL, None, "refused an extraction attempt (not a decision)")
        if is_clarifying_question(message):
            answer = topic_answer(self.profile, message) or "I don't have anything specific to add."
            return UserReply(answer, None, "clarifying question (not a decision)")
        if not is_proposal(message):
            return UserReply(NOT_A_PROPOSAL, None, "not a proposal (not a decision)")
        decision: Decision = "accept" if self.should_act else "reject"
        return UserReply(decision_text(decision), decision, "proposal: habit applies" if self.should_act
                         else "proposal: no such habit")
