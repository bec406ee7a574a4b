"""Does a simulated shopper's reply give away the hidden target product?  Checks for its identifying details.

The LLM shopper is told not to name the product it wants, but models do.  :func:`find_leaks` looks in a reply for
the target's ASIN (``parent_asin``), its store (the brand, whole words), and its title (the whole title when it is
short, otherwise any run of 4 consecutive title words); :func:`redact_leaks` replaces what it found.
"""

from __future__ import annotations

import re
from typing import Any

#: Consecutive title words that count as naming the product.
TITLE_RUN = 4
_WORD = re.compile(r"[A-Za-z0-9]+(?:['’][A-Za-z]+)?")


def _title_runs(title: str) -> list[list[str]]:
    words = _WORD.findall(title)
    if len(words) < 2:
        return []
    if len(words) <= TITLE_RUN:
        return [words]
    return [words[i:i + TITLE_RUN] for i in range(len(words) - TITLE_RUN + 1)]


def _run_pattern(words: list[str]) -> re.Pattern[str]:
    return re.compile(r"(?<![A-Za-z0-9])" + r"[^A-Za-z0-9]+".join(re.escape(w) for w in words) + r"(?![A-Za-z0-9])",
                      re.IGNORECASE)


def _store_pattern(store: str) -> re.Pattern[str] | None:
    words = _WORD.findall(store)
    if not words or len("".join(words)) < 3:
        return None
    return _run_pattern(words)


def find_leaks(text: str, product: dict[str, Any]) -> list[str]:
    """Which identifying details of ``product`` appear in ``text``: any of ``"asin"``, ``"title"``, ``"store"``."""
    found: list[str] = []
    asin = str(product.get("parent_asin") or "").strip()
    if asin and asin.lower() in text.lower():
        found.append("asin")
    if any(_run_pattern(run).search(text) for run in _title_runs(str(product.get("title") or ""))):
        found.append("title")
    store = _store_pattern(str(product.get("store") or ""))
    if store is not None and store.search(text):
        found.append("store")
    return found


def redact_leaks(text: str, product: dict[str, Any]) -> str:
    """``text`` with the target's ASIN, title runs and store replaced by neutral words."""
    asin = str(product.get("parent_asin") or "").strip()
    if asin:
        text = re.sub(re.escape(asin), "that product", text, flags=re.IGNORECASE)
    for run in _title_runs(str(product.get("title") or "")):
        text = _run_pattern(run).sub("that product", text)
    store = _store_pattern(str(product.get("store") or ""))
    if store is not None:
        text = store.sub("that brand", text)
    return re.sub(r"that product(?:[^A-Za-z0-9]+that product)+", "that product", text)
