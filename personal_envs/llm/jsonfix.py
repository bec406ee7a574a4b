"""Lenient JSON for what small models write: code fences, raw control characters, trailing commas, prose around.

:func:`loads_object` returns the first JSON object it can recover from a model's text together with the list of
repairs it needed, so callers can keep the raw text and say what was fixed instead of rejecting the reply.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

_FENCE = re.compile(r"```[ \t]*(?:json|JSON|javascript)?[ \t]*\n?(.*?)```", re.DOTALL)
_TRAILING_COMMA = re.compile(r",(\s*[}\]])")
_PY_LITERALS = {"True": "true", "False": "false", "None": "null"}
_PY_LITERAL = re.compile(r"(?<![\"\w])(True|False|None)(?![\"\w])")


def _attempts(text: str) -> list[tuple[str, str]]:
    """Candidate texts, each with the repair that produced it ('' for none)."""
    stripped = text.strip()
    candidates = [(stripped, "")]
    fenced = _FENCE.findall(text)
    candidates += [(block.strip(), "code fence removed") for block in fenced]
    start = stripped.find("{")
    end = stripped.rfind("}")
    if -1 < start < end and (start, end) != (0, len(stripped) - 1):
        candidates.append((stripped[start:end + 1], "text around the object removed"))
    return candidates


def loads_object(text: str) -> tuple[dict[str, Any] | None, list[str]]:
    """The first JSON object recoverable from ``text`` and the repairs applied; ``(None, [])`` when there is none.

    Repairs, tried in this order on the whole text, on each fenced block, then on the outermost ``{...}``:
    none; raw control characters (newlines, tabs) inside strings accepted; trailing commas before ``}``/``]``
    removed; Python literals ``True``/``False``/``None`` turned into JSON's.
    """
    for candidate, first_repair in _attempts(text):
        if not candidate:
            continue
        repairs = [first_repair] if first_repair else []
        variants: list[tuple[str, list[str], bool]] = [(candidate, [], True), (candidate, ["control characters"], False)]
        no_commas = _TRAILING_COMMA.sub(r"\1", candidate)
        if no_commas != candidate:
            variants.append((no_commas, ["trailing commas removed"], False))
        literals = _PY_LITERAL.sub(lambda m: _PY_LITERALS[m.group(1)], no_commas)
        if literals != no_commas:
            variants.append((literals, ["trailing commas removed"] if no_commas != candidate else [], False))
            variants[-1][1].append("Python literals replaced")
        for variant, extra, strict in variants:
            try:
                value = json.loads(variant, strict=strict)
            except json.JSONDecodeError:
                continue
            if isinstance(value, dict):
                return value, [*repairs, *extra]
            break  # valid JSON that is not an object: try the next candidate text
    for value in inline_objects(text):
        return value, ["inline object extracted"]
    return None, []


def inline_objects(text: str) -> Iterator[dict[str, Any]]:
    """Every JSON object embedded in ``text`` (control characters allowed in strings), in order of its ``{``."""
    decoder = json.JSONDecoder(strict=False)
    position = text.find("{")
    while position != -1:
        try:
            value, _ = decoder.raw_decode(text, position)
        except (json.JSONDecodeError, RecursionError):
            value = None
        if isinstance(value, dict):
            yield value
        position = text.find("{", position + 1)
