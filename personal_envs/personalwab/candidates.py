"""RL action candidates for PersonalWAB: the functions with arguments built by fixed rules from the instruction and
the visible history (search: content words of the instruction; recommend: the last 30 history ASINs; review: a
template with the product title and the user's last review), canned replies and ``stop``."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from personal_envs.core.text import query_from_text
from personal_envs.personalwab.memory import parse_logs
from personal_envs.personalwab.policies import task_text
from personal_envs.wrappers.candidates import Candidate

#: Replies the PersonalWAB provider offers for ``respond``.
PERSONALWAB_REPLIES: tuple[str, ...] = (
    "Could you tell me more about what you are looking for?",
    "Do you have a preferred brand or price range?",
    "Here are the products I found for you.",
)


class PersonalWABCandidates:
    """PersonalWAB functions with arguments built by fixed rules (see the module docstring).

    Args:
        replies: Canned ``respond`` messages.
        max_sequence: Longest recommendation input.
    """

    families: tuple[str, ...] = (
        "search_product_by_query", "get_recommendations_by_history", "add_product_review", "respond", "stop",
    )

    def __init__(self, replies: Sequence[str] = PERSONALWAB_REPLIES, max_sequence: int = 30) -> None:
        self.replies = tuple(replies)
        self.max_sequence = max_sequence

    def __call__(self, observation: dict[str, Any]) -> list[Candidate]:
        instruction = str(observation.get("instruction", ""))
        history = parse_logs(str(observation.get("logs", "")))
        words = query_from_text(task_text(instruction)).split()
        reply = str(observation.get("user_reply", ""))
        if reply:
            words += query_from_text(reply).split()[:20]
        query = " ".join(words) or "popular products"
        candidates = [Candidate("search_product_by_query", f"search '{query[:60]}'",
                                {"action_type": "search_product_by_query", "query": query})]
        sequence = [str(r["parent_asin"]) for r in history if r.get("parent_asin")][-self.max_sequence:]
        if sequence:
            candidates.append(Candidate("get_recommendations_by_history", f"recommend from {len(sequence)} items",
                                        {"action_type": "get_recommendations_by_history",
                                         "product_sequence": sequence}))
        candidates.append(Candidate("add_product_review", "review from template",
                                    {"action_type": "add_product_review", "review": self._review(instruction, history)}))
        for text in self.replies:
            candidates.append(Candidate("respond", f"say '{text}'", {"action_type": "respond", "content": text}))
        candidates.append(Candidate("stop", "stop", {"action_type": "stop"}))
        return candidates

    @staticmethod
    def _review(instruction: str, history: list[dict[str, Any]]) -> str:
        match = re.search(r"Here is the product information:\n(.+)", instruction)
        title = match.group(1).strip() if match else "this product"
        past = [str(r.get("review") or "") for r in history if r.get("review")]
        return f"I bought the {title}. {past[-1] if past else 'It works well and I like it.'}".strip()


def make_candidates(env: Any) -> PersonalWABCandidates:
    """Factory named in the registration entries."""
    return PersonalWABCandidates()
