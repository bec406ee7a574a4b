"""The official LLM user simulator of KnowU-Bench, the same in the three families.

Officially (``AndroidController.ask_user`` + ``tasks/utils.user_agent_answer_question``) the user model gets the
task's system prompt (``controller.user_sys_prompt``: the general template of ``BaseTask``, or ``"Context: <relevant
information>. Only answer based on this info."`` for preference and routine tasks), then the whole dialogue so far
(the agent's questions as ``user``, its own raw replies as ``assistant``) and the new question, sampled at
temperature 0, top_p 1, no penalties, ``seed=42``.  Its raw reply is what the agent sees.  Routine tasks read a
``<decision>`` from it; in the other families there is none and the decision stays ``None``.
"""

from __future__ import annotations

from typing import Any

from personal_envs.knowu.official.routine.decision import DECISION_TAG
from personal_envs.simulators.users.base import Decision, SimulatedUser, UserReply

#: Sampling of the official user model.
OFFICIAL_SAMPLING: dict[str, Any] = {"temperature": 0.0, "top_p": 1.0, "frequency_penalty": 0.0,
                                     "presence_penalty": 0.0, "seed": 42}


class OfficialLLMUser(SimulatedUser):
    """The official LLM user: system prompt, whole dialogue, official sampling; the raw reply reaches the agent.

    Args:
        system_prompt: The task's user system prompt (the task source's ``user_system_prompt`` or
            ``general.user_prompt`` slot, see :mod:`personal_envs.knowu.official.texts`).
        client: A :class:`personal_envs.llm.client.ChatClient` (default: configured from the environment).
        fallback: The user answering when the endpoint fails (the failure is recorded in :attr:`errors`).
    """

    kind = "official-llm"

    def __init__(self, system_prompt: str, client: Any = None, fallback: SimulatedUser | None = None) -> None:
        super().__init__()
        if client is None:
            from personal_envs.llm.client import ChatClient

            client = ChatClient()
        self.client = client
        self.system_prompt = system_prompt
        self.fallback = fallback
        self.errors: list[str] = []

    def start(self, context: Any) -> None:
        super().start(context)
        if self.fallback is not None:
            self.fallback.start(context)
        self.errors = []

    def messages(self, message: str) -> list[dict[str, str]]:
        """System prompt, the dialogue so far (agent as ``user``, replies as ``assistant``), the new question."""
        chat = [{"role": "system", "content": self.system_prompt}]
        for turn in self.dialogue[:-1]:  # the base class already appended the current agent turn
            chat.append({"role": "user" if turn.speaker == "agent" else "assistant", "content": turn.text})
        chat.append({"role": "user", "content": message})
        return chat

    def _answer(self, message: str) -> UserReply:
        from personal_envs.llm.client import LLMError

        try:
            response = self.client.chat(self.messages(message), **OFFICIAL_SAMPLING)
            raw = str(response.content or "")
        except LLMError as exc:
            self.errors.append(str(exc))
            if self.fallback is None:
                raise
            reply = self.fallback._answer(message)
            return UserReply(reply.text, reply.decision, f"fallback after LLM error: {exc}")
        match = DECISION_TAG.search(raw)
        decision: Decision | None = None
        if match:
            decision = "accept" if match.group(1).lower() == "accept" else "reject"
        return UserReply(raw, decision, "llm")
