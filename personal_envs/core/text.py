"""Small text helpers shared by baselines and RL candidate providers."""

from __future__ import annotations

import re

#: Words that carry no content in a shopping or task request.
FILLER_WORDS: frozenset[str] = frozenset({
    "i", "im", "i'm", "am", "me", "my", "want", "wanna", "need", "looking", "look", "for", "find", "a", "an", "the",
    "please", "can", "could", "you", "help", "some", "to", "buy", "get", "would", "like", "that", "is", "it", "with",
    "and", "of", "in", "on", "search", "searching", "show", "something", "any", "thanks", "hi", "hello",
})
_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9'\-]*")


def query_from_text(text: str) -> str:
    """Content words of an instruction or reply, as a search query."""
    return " ".join(w for w in _WORD.findall(text) if w.lower() not in FILLER_WORDS)


def content_words(text: str, limit: int = 8) -> str:
    """Up to ``limit`` content words of ``text`` (a rule-built search or fill text)."""
    return " ".join(query_from_text(text).split()[:limit])
