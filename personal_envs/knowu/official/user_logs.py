"""A persona's logs as the agent sees them: the official line format and memory (all entries, or RAG).

:func:`log_context` renders log entries as the official ``UserLogContextBuilder`` does: in its ``all`` mode every
entry, sorted by time, as ``- [YYYY-MM-DD HH:MM] (first / last location part) action``; with ``memory="rag"`` the
``top_k`` entries most similar to the query (the routine's instruction, the preference request), in time order,
with the official TF-IDF settings (word unigrams and bigrams, ``\\b\\w+\\b`` tokens, CJK characters split, all
entries when there are at most ``top_k``).  The label and category of an entry are never shown.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

MEMORY_MODES: tuple[str, ...] = ("all", "rag")


def _time(value: Any) -> datetime | None:
    try:
        return datetime.fromisoformat(str(value))
    except ValueError:
        return None


def _location(value: Any, limit: int = 80) -> str:
    parts = [p.strip() for p in str(value or "").split("|") if p.strip()]
    if not parts:
        return "Unknown location"
    short = f"{parts[0]} / {parts[-1]}" if len(parts) >= 2 else parts[0]
    return short if len(short) <= limit else short[: limit - 3] + "..."


def _line(entry: Mapping[str, Any]) -> str:
    when = _time(entry.get("time"))
    stamp = when.strftime("%Y-%m-%d %H:%M") if when else str(entry.get("time") or "Unknown time")
    return f"- [{stamp}] ({_location(entry.get('location'))}) {entry.get('action', '')}"


def _sorted(entries: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    times = [_time(e.get("time")) for e in entries]
    if all(t is not None for t in times):
        return [e for _, _, e in sorted(zip(times, range(len(entries)), entries, strict=True),
                                        key=lambda item: (item[0], item[1]))]
    return list(entries)


def log_context(logs: Sequence[Mapping[str, Any]] | None, memory: str = "all", top_k: int = 10,
                query: str = "") -> str:
    """The user-log block of the official goal (``all``: every entry; ``rag``: TF-IDF top-k for ``query``)."""
    entries = _sorted([e for e in logs or [] if isinstance(e, Mapping)])
    if not entries:
        return ""
    if memory == "rag" and query and len(entries) > top_k:
        import numpy as np
        from sklearn.feature_extraction.text import TfidfVectorizer
        from sklearn.metrics.pairwise import cosine_similarity

        def spaced(text: str) -> str:  # CJK characters become separate tokens, as officially
            return re.sub(r"([\u4e00-\u9fff])", r" \1 ", text)

        docs = [spaced(str(e.get("action", ""))) for e in entries]
        vectorizer = TfidfVectorizer(analyzer="word", token_pattern=r"(?u)\b\w+\b", ngram_range=(1, 2))
        matrix = vectorizer.fit_transform([*docs, spaced(query)])
        scores = cosine_similarity(matrix[:-1], matrix[-1]).flatten()
        entries = [entries[int(i)] for i in sorted(np.argsort(scores)[-top_k:])]
    return "\n".join(_line(e) for e in entries)
