"""What a message to a simulated KnowU user asks for: a proposal to decide on, or a question to answer.

The official user model is told to decide "accept" or "reject" when the assistant *suggests an action*
(``BaseRoutineTask._build_relevant_information``).  The deterministic users decide only then: a proposal (an offer
or a request to act: "Shall I turn off the alarm?", "Battery saver on?" with an acting verb) gets a decision, a
question that asks for information ("What time do you get up?") gets an answer and no decision, and anything else
(small talk, a request for private data) gets no decision either.  A reply without a decision is never scored as
consent or refusal in the default protocol (see :mod:`personal_envs.knowu.official.routine.decision`).
"""

from __future__ import annotations

import re

#: Offers and requests to act (an acting verb or an offer phrase anywhere in the message).
PROPOSAL = re.compile(
    r"\b(shall i|should i|do you want|would you like|want me to|can i|may i|could i|let me|i can |i could|i will|"
    r"i'll|is it ok|okay (if|to)|ok (if|to)|mind if|go ahead|proceed|confirm|would it help|how about|suggest|"
    r"recommend|turn (on|off)|switch|enable|disable|mute|send|post|reply|call|open|delete|block|save|remind)",
    re.IGNORECASE)
_OFFER = re.compile(r"(shall i|should i|want me to|would you like|do you want)", re.IGNORECASE)
_QUESTION = re.compile(r"^\s*(what|which|when|where|who|whom|how|why|do you usually|are you|is there|did you)\b",
                       re.IGNORECASE)


def is_clarifying_question(message: str) -> bool:
    """A question asking for information rather than proposing an action (the acting verbs of the last clause
    before the question mark, and offer phrases anywhere, make it a proposal)."""
    return bool(_QUESTION.search(message)) and not PROPOSAL.search(message.split("?")[0].split(",")[-1]) \
        and not _OFFER.search(message)


def is_proposal(message: str) -> bool:
    """A suggestion to act that the user can accept or reject (not a clarifying question)."""
    return bool(PROPOSAL.search(message)) and not is_clarifying_question(message)
