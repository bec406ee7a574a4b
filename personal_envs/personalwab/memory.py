"""The paper's memory baselines as the official agents build them, as providers that pick from ``logs``.

Source: ``GPTFunctionCallingAgent.retrieve_memory``, ``retrieve_top_k_memories`` and ``build_taskspe_memory``
(HongruCai/PersonalWAB at 23ff65c, ``PersonalWAB/agents/gpt_function_calling_agent.py``, templates in
``agents/utils.py``).  Every kind sees only the history older than the task (the env's ``logs``, in the order of
the user's history file) and keeps ``k`` records (the official agents use 10):

* ``none``: no memory;
* ``random``: ``k`` records drawn at random (seeded) from the history sorted newest first, in the order drawn;
* ``last``: the ``k`` newest records, newest first;
* ``relevant``: the ``k`` records most similar to the task sentence, most relevant first.  The official agent
  embeds each record as ``pretty_history(record, i)``: the ``HISTORY_PROMPT`` template filled with the record and
  its index ``i`` in the history ("MEMORY i:"), MiniLM through ``transformers`` (512 tokens, batches of 32, mean
  pooling, L2 normalisation); the task sentence alone; cosine; ``argsort`` descending;
* ``recmind``: RecMind's memory, the ``k`` newest records in the short ``MINI_HISTORY_PROMPT`` form;
* ``task``: PUMA's task-specific memory: the ``k`` most relevant records reduced to the fields of the function the
  task needs (``TS_SEARCH_PROMPT``: title, main category, price, store, relevance order; ``TS_REC_PROMPT``: title,
  main category, ASIN, re-sorted oldest first; ``TS_REV_PROMPT``: rating and text, relevance order).  The official
  agent reads the function from PUMA's function-selection file; here it is given (``function=``) or guessed from the
  instruction's words (:func:`classify_instruction`).

The templates and memory headers are the release's, read at run time (:class:`Release`); without the release files
the records are embedded as ``key: value`` lines and shown as JSON lines (the selection then differs from the
official one).  Each provider implements ``context(observation, info) -> str`` (the ``MemoryProvider`` protocol of
the LLM policy; with the release, the exact text the official agent appends to its system prompt) and
``select(observation) -> list[dict]`` (the chosen history records).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from personal_envs.personalwab.intent import classify_instruction
from personal_envs.personalwab.official_texts import Release

MEMORY_KINDS = ("none", "random", "last", "relevant", "recmind", "task")

#: PUMA's per-function fields (the records of ``task`` memory keep these keys of the ``logs`` record).
TASK_FIELDS: dict[str, tuple[str, ...]] = {
    "search": ("title", "category", "price", "store"),
    "recommend": ("title", "category", "parent_asin"),
    "review": ("rating", "review"),
}
#: The tool of each task type (as the official agent names it in the task-specific memory header).
TASK_TOOLS: dict[str, str] = {"search": "search_product_by_query", "recommend": "get_recommendations_by_history",
                              "review": "add_product_review"}

# Fallback text of a record (no release): every field, one ``key: value`` line each, product first.
_RELEVANCE_FIELDS: tuple[str, ...] = (
    "title", "parent_asin", "category", "average_rating", "rating_number", "price", "store", "details",
    "description", "features", "rating", "review", "timestamp",
)
_HEADERS: dict[str, str] = {
    "random": "randomly chosen", "last": "most recent first", "relevant": "most relevant first",
    "recmind": "most recent first", "task": "task-specific",
}

# Placeholder -> how the official code prints the field of a ``logs`` record, and the order in which each official
# template function replaces its placeholders (``str.replace`` one after the other, so the order is kept).
_VALUES: dict[str, Callable[[dict[str, Any]], str]] = {
    "<TITLE>": lambda r: _text(r.get("title")),
    "<PARENT_ASIN>": lambda r: _text(r.get("parent_asin")),
    "<ASIN>": lambda r: str(r.get("parent_asin")),
    "<AVERAGE_RATING>": lambda r: str(r.get("average_rating")),
    "<RATING_NUMBER>": lambda r: str(r.get("rating_number")),
    "<PRICE>": lambda r: str(r.get("price")),
    "<STORE>": lambda r: str(r.get("store")),
    "<DETAILS>": lambda r: json.dumps(r.get("details")),
    "<DESCRIPTION>": lambda r: str(r.get("description")),
    "<FEATURES>": lambda r: str(r.get("features")),
    "<MAIN_CATEGORY>": lambda r: str(r.get("category")),
    "<RATING>": lambda r: str(r.get("rating")),
    "<TEXT>": lambda r: _text(r.get("review")),
    "<TIMESTAMP>": lambda r: str(r.get("timestamp")),
}
_ORDERS: dict[str, tuple[str, ...]] = {
    "HISTORY_PROMPT": ("<TITLE>", "<PARENT_ASIN>", "<AVERAGE_RATING>", "<RATING_NUMBER>", "<PRICE>", "<STORE>",
                       "<DETAILS>", "<DESCRIPTION>", "<FEATURES>", "<MAIN_CATEGORY>", "<RATING>", "<TEXT>",
                       "<TIMESTAMP>", "<NUM>"),
    "MINI_HISTORY_PROMPT": ("<TITLE>", "<PARENT_ASIN>", "<MAIN_CATEGORY>", "<RATING>", "<TEXT>", "<TIMESTAMP>",
                            "<NUM>"),
    "INTEREC_MEMORY_PROMPT": ("<TITLE>", "<PARENT_ASIN>", "<MAIN_CATEGORY>", "<RATING>", "<TEXT>"),
    "TS_SEARCH_PROMPT": ("<TITLE>", "<MAIN_CATEGORY>", "<PRICE>", "<STORE>"),
    "TS_REC_PROMPT": ("<TITLE>", "<MAIN_CATEGORY>", "<ASIN>"),
    "TS_REV_PROMPT": ("<RATING>", "<TEXT>"),
}
_TASK_TEMPLATES = {"search": "TS_SEARCH_PROMPT", "recommend": "TS_REC_PROMPT", "review": "TS_REV_PROMPT"}


def _text(value: Any) -> str:
    return value if isinstance(value, str) else str(value)


def fill_template(template: str, name: str, record: dict[str, Any], num: int | None = None) -> str:
    """An official template (``HISTORY_PROMPT``, ``MINI_HISTORY_PROMPT``, ...) filled with a ``logs`` record, its
    placeholders replaced in the official function's order."""
    text = template
    for placeholder in _ORDERS[name]:
        value = str(num) if placeholder == "<NUM>" else _VALUES[placeholder](record)
        text = text.replace(placeholder, value)
    return text


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
    """Fallback text of a record for relevance (no release): every field, one ``key: value`` line each."""
    lines = []
    for key in _RELEVANCE_FIELDS:
        value = record.get(key)
        if value is None or value == "" or value == [] or value == {}:
            continue
        lines.append(f"{key}: {json.dumps(value, ensure_ascii=False) if not isinstance(value, str) else value}")
    return "\n".join(lines)


#: What the env adds after the task sentence of a review task (the official user's observation).
PRODUCT_MARKER = "\nHere is the product information: "


def task_sentence(instruction: str) -> str:
    """The task sentence the official agents embed: the instruction without ``USER {id}: `` and product details."""
    text = instruction.split(PRODUCT_MARKER, 1)[0]
    if text.startswith("USER ") and ": " in text:
        return text.split(": ", 1)[1]
    return text


def _newest_first(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return sorted(records, key=lambda r: float(r.get("timestamp") or 0), reverse=True)


def official_embeddings(texts: Sequence[str], batch_size: int = 32) -> np.ndarray:
    """MiniLM embeddings as the official agents' ``encode_texts`` computes them (batches of 32 padded to their
    longest text, 512 tokens, mean pooling, L2 normalisation)."""
    from personal_envs.personalwab.similarity import embed_official

    return embed_official(list(texts), batch_size=batch_size)


class HistoryMemory:
    """A memory baseline over the history in ``logs``.

    Args:
        kind: One of :data:`MEMORY_KINDS`.
        k: Number of records to keep (official: 10).
        seed: Seed of ``random``.
        embed: Text embedder for ``relevant`` / ``task``: texts to L2-normalised rows (default
            :func:`official_embeddings`).
        release: Where the official templates are read (default: the data directory's ``official/``).
        function: For ``task``: the task type (``search`` / ``recommend`` / ``review``) instead of a guess.
    """

    def __init__(self, kind: str = "relevant", k: int = 10, seed: int = 0,
                 embed: Callable[[list[str]], np.ndarray] | None = None, release: Release | None = None,
                 function: str | None = None) -> None:
        if kind not in MEMORY_KINDS:
            raise ValueError(f"memory kind must be one of {MEMORY_KINDS}, got {kind!r}")
        self.kind = kind
        self.k = k
        self.function = function
        self.release = release if release is not None else Release()
        self._rng = np.random.default_rng(seed)
        self._embed = embed

    # ------------------------------------------------------------------------------------------ selection
    def select(self, observation: dict[str, Any]) -> list[dict[str, Any]]:
        """The history records this memory keeps for the current observation, in the order it presents them."""
        return self._choose(observation)[0]

    def _choose(self, observation: dict[str, Any]) -> tuple[list[dict[str, Any]], str]:
        records = parse_logs(str(observation.get("logs", "")))
        instruction = str(observation.get("instruction", ""))
        task_type = self.function or classify_instruction(instruction)
        if self.kind == "none" or not records:
            return [], task_type
        if self.kind in ("last", "recmind"):
            return _newest_first(records)[: self.k], task_type
        if self.kind == "random":
            pool = _newest_first(records)
            picks = self._rng.choice(len(pool), size=min(self.k, len(pool)), replace=False)
            return [pool[int(i)] for i in picks], task_type
        chosen = self.most_relevant(task_sentence(instruction), records)
        if self.kind == "task":
            if task_type == "recommend":
                chosen = sorted(chosen, key=lambda r: float(r.get("timestamp") or 0))
            chosen = [{key: r.get(key) for key in TASK_FIELDS[task_type]} for r in chosen]
        return chosen, task_type

    def most_relevant(self, request: str, records: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The ``k`` records most similar to ``request``, most similar first, as the official agent ranks them: each
        record embedded as the official ``HISTORY_PROMPT`` with its index in the history (without the release: as
        :func:`record_text`), the request alone."""
        template = self.release.agent_text("HISTORY_PROMPT")
        if template is not None:
            texts = [fill_template(template, "HISTORY_PROMPT", r, i) for i, r in enumerate(records)]
        else:
            texts = [record_text(r) for r in records]
        embed = self._embedder()
        query = embed([request])[0]
        vectors = embed(texts)
        scores = vectors @ query
        top = np.argsort(-scores, kind="stable")[: self.k]
        return [records[int(i)] for i in top]

    # ------------------------------------------------------------------------------------------ text
    def context(self, observation: dict[str, Any], info: dict[str, Any]) -> str:
        """The selected memory as text for a prompt: with the release, exactly what the official agent appends to
        its system prompt ('' for no memory); otherwise a header and one JSON line per record."""
        chosen, task_type = self._choose(observation)
        if self.kind == "none":
            return ""
        official = self.official_text(chosen, task_type)
        if official is not None:
            return official
        if not chosen:
            return ""
        lines = [json.dumps(r, ensure_ascii=False) for r in chosen]
        header = f"User history ({self.kind} memory, {len(lines)} records, {_HEADERS[self.kind]})"
        if self.kind == "task":
            header += f"; task type {task_type}"
        return header + ":\n" + "\n".join(lines)

    def official_text(self, chosen: list[dict[str, Any]], task_type: str) -> str | None:
        """The official agent's memory text for these records, ``None`` without the release files."""
        kind = "taskspe" if self.kind == "task" else self.kind
        pieces = self.release.memory_pieces(kind)
        if not pieces:
            return None
        if kind == "taskspe":
            if not chosen:
                return ""  # the official agent's 'none': no memory in the prompt
            template = self.release.agent_text(_TASK_TEMPLATES[task_type])
            if template is None or len(pieces) < 2:
                return None
            header = pieces[0].format(task_type=task_type, tool_name=TASK_TOOLS[task_type]) + pieces[1]
            return header + "|".join(fill_template(template, _TASK_TEMPLATES[task_type], r) for r in chosen)
        name = "MINI_HISTORY_PROMPT" if kind == "recmind" else "HISTORY_PROMPT"
        template = self.release.agent_text(name)
        if template is None:
            return None
        return pieces[0] + "\n".join(fill_template(template, name, r, i) for i, r in enumerate(chosen))

    def _embedder(self) -> Callable[[list[str]], np.ndarray]:
        if self._embed is None:
            self._embed = official_embeddings
        return self._embed
