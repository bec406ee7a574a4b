"""Baselines of the toy benchmark: ask once, then answer the first shelf word with the hinted letter."""

from __future__ import annotations

from typing import Any

from personal_envs.policies.base import Policy
from personal_envs.wrappers.candidates import Candidate


class HintFollower(Policy):
    """Asks for a hint, then answers the first word that starts with the hinted letter."""

    def act(self, observation: dict[str, Any], info: dict[str, Any]) -> Any:
        reply = str(observation["user_reply"])
        if not reply:
            return {"action_type": "ask", "text": "Which word do you want?"}
        letter = reply.rstrip(".")[-1]
        words = str(observation["shelf"]).split()
        return {"action_type": "answer", "word": next((w for w in words if w.startswith(letter)), words[0])}


def make_hint_follower(env: Any, seed: int = 0, **kwargs: Any) -> HintFollower:
    return HintFollower()


class ShelfCandidates:
    """RL candidates: ask, or answer any word on the shelf."""

    families: tuple[str, ...] = ("ask", "answer")

    def __call__(self, observation: dict[str, Any]) -> list[Candidate]:
        words = str(observation.get("shelf", "")).split()
        return [Candidate("ask", "ask", {"action_type": "ask", "text": "Hint?"})] + [
            Candidate("answer", f"answer {w}", {"action_type": "answer", "word": w}) for w in words
        ]


def make_candidates(env: Any) -> ShelfCandidates:
    return ShelfCandidates()


def report(records: list[dict[str, Any]]) -> str:
    wins = sum(1 for r in records if r.get("metrics", {}).get("success"))
    return f"Toy shelf: {wins}/{len(records)} right"
