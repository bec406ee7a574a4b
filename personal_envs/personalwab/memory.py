"""The paper's memory baselines as the official agents build them, as providers that pick from ``logs``.

Source: ``GPTFunctionCallingAgent.retrieve_memory`` and ``build_taskspe_memory`` (HongruCai/PersonalWAB at 23ff65c,
``PersonalWAB/agents/gpt_function_calling_agent.py``).  Every kind sees only the history older than the task (the
env's ``logs``) and keeps ``k`` records (the official default is 10):

* ``none``: no memory;
* ``random``: ``k`` records drawn at random (seeded), in the order drawn;
* ``last``: the ``k`` newest records, newest first;
* ``relevant``: the ``k`` records most similar to the task sentence (MiniLM cosine at 512 tokens, over the whole
  record: product fields and review), most relevant first;
* ``task``: PUMA's task-specific memory: the ``k`` most relevant records, reduced to the fields of the function the
  task needs: search keeps title, main category, price and store (relevance order); recommendation keeps title,
  main category and parent_asin, re-sorted oldest first (time order, as the recommender takes it); review keeps the
  rating and the review text (relevance order).  The official agent reads the function from PUMA's function
  selection file; here it is guessed from the instruction's words (:func:`classify_instruction`).

Each provider implements ``context(observation, info) -> str`` (the ``MemoryProvider`` protocol of the LLM policy)
and ``select(observation) -> list[dict]`` (the chosen history records).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import numpy as np

from personal_envs.personalwab.intent import classify_instruction

MEMORY_KINDS = ("none", "random", "last", "relevant", "task")

#: PUMA's per-function fields (``TS_SEARCH_PROMPT``, ``TS_REC_PROMPT``, ``TS_REV_PROMPT`` of the official agents).
TASK_FIELDS: dict[str, tuple[str, ...]] = {
    "search": ("title", "category", "price", "store"),
    "recommend": ("title", "category", "parent_asin"),
    "review": ("rating", "review"),
}

# The order of the fields in the official history rendering used for relevance (product first, then the review).
_RELEVANCE_FIELDS: tuple[str, ...] = (
    "title", "parent_asin", "category", "average_rating", "rating_number", "price", "store", "details",
    "description", "features", "rating", "review", "timestamp",
)

_HEADERS: dict[str, str] = {
    "random": "randomly chosen",
    "last": "most recent first",
    "relevant": "most relevant first",
    "task": "task-specific",
}


def parse_logs(logs: str) -> list[dict[str, Any]]:
    """History records from the ``logs`` text (one JSON object per line; bad lines skipped)."""
    records = []
    for line in logs.splitlines():
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(record, dict):
            records.append(record)
    return records


def record_text(record: dict[str, Any]) -> str:
    """Text of a record used for relevance: every product and review field, one ``key: value`` line each."""
    lines = []
    for key in _RELEVANCE_FIELDS:
        value = record.get(key)
        if value is None or value == "" or value == [] or value == {}:
            continue
        lines.append(f"{key}: {json.dumps(value, ensure_ascii=False) if not isinstance(value, str) else value}")
    return "\n".join(lines)


def task_sentence(instruction: str) -> str:
    """The task sentence the official agents embed (the instruction without ``USER {id}:`` and product details)."""
    first = instruction.split("\n", 1)[0]
    return first.split(":", 1)[1].strip() if first.startswith("USER ") and ":" in first else first


def _newest_first(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return sorted(records, key=lambda r: float(r.get("timestamp") or 0), reverse=True)


class HistoryMemory:
    """A memory baseline over the history in ``logs``.

    Args:
        kind: One of :data:`MEMORY_KINDS`.
        k: Number of records to keep (official: 10).
        seed: Seed of ``random``.
        embed: Text embedder for ``relevant`` / ``task`` (default MiniLM at 512 tokens); returns L2-normalised rows.
    """

    def __init__(self, kind: str = "relevant", k: int = 10, seed: int = 0,
                 embed: Callable[[list[str]], np.ndarray] | None = None) -> None:
        if kind not in MEMORY_KINDS:
            raise ValueError(f"memory kind must be one of {MEMORY_KINDS}, got {kind!r}")
        self.kind = kind
        self.k = k
        self._rng = np.random.default_rng(seed)
        self._embed = embed

    def select(self, observation: dict[str, Any]) -> list[dict[str, Any]]:
        """The history records this memory keeps for the current observation, in the order it presents them."""
        records = parse_logs(str(observation.get("logs", "")))
        if self.kind == "none" or not records:
            return []
        if self.kind == "last":
            return _newest_first(records)[: self.k]
        if self.kind == "random":
            pool = _newest_first(records)
            picks = self._rng.choice(len(pool), size=min(self.k, len(pool)), replace=False)
            return [pool[int(i)] for i in picks]
        instruction = str(observation.get("instruction", ""))
        chosen = self.most_relevant(task_sentence(instruction), records)
        if self.kind == "task":
            task_type = classify_instruction(instruction)
            if task_type == "recommend":
                chosen = sorted(chosen, key=lambda r: float(r.get("timestamp") or 0))
            chosen = [{key: r.get(key) for key in TASK_FIELDS[task_type]} for r in chosen]
        return chosen

    def most_relevant(self, request: str, records: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The ``k`` records most similar to ``request``, most similar first (ties: the earlier record)."""
        vectors = self._embedder()([request, *(record_text(r) for r in records)])
        scores = vectors[1:] @ vectors[0]
        top = np.argsort(-scores, kind="stable")[: self.k]
        return [records[int(i)] for i in top]

    def context(self, observation: dict[str, Any], info: dict[str, Any]) -> str:
        """The selected memory as text for a prompt."""
        chosen = self.select(observation)
        if not chosen:
            return ""
        lines = [json.dumps(r, ensure_ascii=False) for r in chosen]
        header = f"User history ({self.kind} memory, {len(lines)} records, {_HEADERS[self.kind]})"
        if self.kind == "task":
            task_type = classify_instruction(str(observation.get("instruction", "")))
            header += f"; task type {task_type}"
        return header + ":\n" + "\n".join(lines)

    def _embedder(self) -> Callable[[list[str]], np.ndarray]:
        if self._embed is None:
            from personal_envs.personalwab.similarity import embed_official

            self._embed = lambda texts: embed_official(texts)
        return self._embed
