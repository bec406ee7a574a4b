"""The judge line of KnowU tables: which judge scored S_llm (a model, the deterministic fallback, or after errors)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any

#: Judge kinds that mean no model scored the episode.
FALLBACK_KINDS = frozenset({"fallback", "fallback-after-error", "official-0.5-after-error"})


def judge_line(records: Iterable[Mapping[str, Any]]) -> str:
    """``"judge: fallback (deterministic, not a model) on 56 of 86 judged episodes; ..."``, or ``""`` when no
    episode was judged (pure-rule splits)."""
    kinds: Counter[str] = Counter()
    errors = 0
    for record in records:
        metrics = record.get("metrics") or {}
        kind = metrics.get("judge") if isinstance(metrics, Mapping) else None
        if not isinstance(kind, str) or kind.startswith("none"):
            continue
        kinds[kind] += 1
        errors += bool(metrics.get("judge_error"))
    total = sum(kinds.values())
    if not total:
        return ""
    parts = [f"{kind} on {count} of {total}" for kind, count in sorted(kinds.items())]
    warning = ""
    if any(kind in FALLBACK_KINDS for kind in kinds):
        warning = " (a fallback is not the paper's LLM judge: S_llm is deterministic there)"
    return f"judge: {'; '.join(parts)} judged episodes; {errors} judge error(s){warning}"
