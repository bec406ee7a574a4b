"""Baselines for PersonalWAB: the heuristic policy (single- and multi-turn) and policy factories."""

from __future__ import annotations

import ast
import re
from typing import Any

import gymnasium as gym

from personal_envs.core.text import query_from_text
from personal_envs.personalwab import functions as fn
from personal_envs.personalwab.intent import classify_instruction
from personal_envs.personalwab.memory import parse_logs
from personal_envs.policies.base import Policy


def task_text(instruction: str) -> str:
    """The task sentence of an instruction, without the ``USER {user_id}:`` prefix and product details."""
    first = instruction.split("\n", 1)[0]
    return first.split(":", 1)[1].strip() if first.startswith("USER ") and ":" in first else first


class HeuristicPolicy(Policy):
    """Chooses the function from the instruction's words and builds arguments from the instruction and memory.

    Single-turn: one task-function call.  Multi-turn, search tasks: searches with the instruction, presents the
    results, asks the user one clarifying question, searches again with the instruction plus the answer, presents
    the results, then stops (the episode keeps the better search).
    """

    name = "heuristic"

    def __init__(self, env: gym.Env[Any, Any] | None = None, seed: int = 0) -> None:
        self.multi = bool(env is not None and getattr(env.unwrapped, "mode", "single") == "multi")
        self._plan: list[str] = []
        self._clues: list[str] = []

    def reset(self, observation: dict[str, Any], info: dict[str, Any]) -> None:
        self._clues = []
        kind = classify_instruction(str(observation.get("instruction", "")))
        if not self.multi:
            self._plan = [kind]
        elif kind == "search":
            self._plan = ["search", "present", "ask", "search", "present", "stop"]
        else:
            self._plan = [kind, "present", "stop"]

    def act(self, observation: dict[str, Any], info: dict[str, Any]) -> dict[str, Any]:
        reply = str(observation.get("user_reply", ""))
        if reply and reply not in self._clues:
            self._clues.append(reply)
            if re.search(r"\b(exactly|that's the one|thank you)\b", reply, re.I):
                self._plan = ["stop"]
        step = self._plan.pop(0) if self._plan else "stop"
        if step == "ask":
            return {"action_type": fn.RESPOND,
                    "content": "Could you tell me a bit more about what you're looking for, e.g. the kind of product "
                               "or a feature you need?"}
        if step == "present":
            return {"action_type": fn.RESPOND, "content": "Here are the results I found:\n" +
                    _titles(str(observation.get("result", "")))}
        if step == "search":
            return {"action_type": fn.SEARCH, "query": self._query(observation)}
        if step == "recommend":
            history = parse_logs(str(observation.get("logs", "")))
            sequence = [str(r["parent_asin"]) for r in history if r.get("parent_asin")][-fn.MAX_SEQUENCE:]
            if not sequence:
                return {"action_type": fn.SEARCH, "query": self._query(observation)}
            return {"action_type": fn.RECOMMEND, "product_sequence": sequence}
        if step == "review":
            return {"action_type": fn.REVIEW, "review": self._review(observation)}
        return {"action_type": fn.STOP}

    def _query(self, observation: dict[str, Any]) -> str:
        parts = [query_from_text(task_text(str(observation.get("instruction", ""))))]
        parts += [query_from_text(clue) for clue in self._clues[-2:]]
        return " ".join(p for p in parts if p) or "popular products"

    @staticmethod
    def _review(observation: dict[str, Any]) -> str:
        instruction = str(observation.get("instruction", ""))
        title_match = re.search(r"Here is the product information:.*?- title: ([^\n]+)", instruction, re.S | re.I)
        title = title_match.group(1).strip() if title_match else "this product"
        history = parse_logs(str(observation.get("logs", "")))
        past = [str(r.get("review") or "") for r in history if r.get("review")]
        style = past[-1] if past else ""
        return f"I bought the {title}. {style}".strip()


def _titles(result: str) -> str:
    """Numbered titles of a result list (the official ``str`` of a Python list of product texts)."""
    try:
        entries = ast.literal_eval(result) if result.startswith("[") else []
    except (ValueError, SyntaxError):
        entries = []
    lines = []
    for i, entry in enumerate(entries if isinstance(entries, list) else []):
        match = re.search(r"- title: ([^\n]+)", str(entry), re.I)
        if match:
            lines.append(f"Product {i}: {match.group(1)}")
    return "\n".join(lines)[:2000]


def make_heuristic(env: gym.Env[Any, Any], seed: int = 0, **_: Any) -> HeuristicPolicy:
    """Factory for ``--policy heuristic``."""
    return HeuristicPolicy(env, seed=seed)
