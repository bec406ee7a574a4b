"""Side-by-side walks of the browser mode and the text mode, and what differs between their observations.

:func:`compare_texts` lines up two AX-tree texts (after mapping the text mode's origins onto the browser's) and
sorts what differs into kinds: ``visible`` (the line differs only by BrowserGym's layout-dependent ``visible``
tag), ``clickable``, ``whitespace`` (a ``StaticText ''`` between inline boxes present in one mode only) and
``other``.  :func:`random_web_action` draws the seeded random actions the parity walk applies to both modes.
The walk itself is in ``tests/textmode`` and ``benchmarks/text_mode.py``.
"""

from __future__ import annotations

import difflib
import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from personal_envs.browser.axtree import parse_axtree

_TAG = re.compile(r", (visible|clickable)(?=,|$)")


def normalise(text: str, origins: Mapping[str, str]) -> str:
    """``text`` with every origin of ``origins`` replaced by its placeholder (``URL_1``...)."""
    for origin, name in sorted(origins.items(), key=lambda item: -len(item[0])):
        text = text.replace(origin, name)
    return text


def _strip(line: str, tag: str) -> str:
    return re.sub(rf", {tag}(?=,|$)", "", line)


@dataclass
class Comparison:
    """Line differences of one observation pair, by kind."""

    kinds: Counter[str] = field(default_factory=Counter)
    examples: dict[str, tuple[str, str]] = field(default_factory=dict)

    @property
    def identical(self) -> bool:
        """No line differs."""
        return not self.kinds


def compare_texts(browser: str, text: str) -> Comparison:
    """Sort the line differences of two AX-tree texts (already normalised) into kinds."""
    result = Comparison()
    if browser == text:
        return result
    if browser.startswith("RootWebArea '',") and not text.startswith("RootWebArea '',"):
        # the browser observed a page still loading (its <title> not parsed yet): not comparable line by line
        result.kinds["browser page still loading"] += 1
        result.examples["browser page still loading"] = (browser.split("\n", 1)[0], text.split("\n", 1)[0])
        return result
    left, right = browser.splitlines(), text.splitlines()
    matcher = difflib.SequenceMatcher(a=left, b=right, autojunk=False)
    for op, a0, a1, b0, b1 in matcher.get_opcodes():
        if op == "equal":
            continue
        old, new = left[a0:a1], right[b0:b1]
        if len(old) == len(new):
            for line_a, line_b in zip(old, new, strict=True):
                kind = _kind(line_a, line_b)
                result.kinds[kind] += 1
                result.examples.setdefault(kind, (line_a, line_b))
            continue
        for line in old + new:
            kind = "whitespace" if line.strip() == "StaticText ''" else "other"
            result.kinds[kind] += 1
            result.examples.setdefault(kind, ("\n".join(old[:3]), "\n".join(new[:3])))
    return result


def _kind(line_a: str, line_b: str) -> str:
    if line_a.startswith("RootWebArea '',") and line_b.startswith("RootWebArea '") and \
            line_a.split(", ", 1)[1:] == line_b.split(", ", 1)[1:]:
        return "title while loading"  # the browser observed a page whose <title> was not parsed yet
    if _strip(line_a, "visible") == _strip(line_b, "visible"):
        return "visible"
    if _strip(line_a, "clickable") == _strip(line_b, "clickable"):
        return "clickable"
    if _strip(_strip(line_a, "visible"), "clickable") == _strip(_strip(line_b, "visible"), "clickable"):
        return "visible+clickable"
    return "other"


_WORDS = ("laptop", "ssd", "monitor", "usb", "cable", "phone", "case", "xyzzy", "keyboard", "gaming")


def random_web_action(axtree: str, origins: list[str], rng: np.random.Generator) -> dict[str, Any]:
    """A seeded random BrowserGym action for the page ``axtree`` shows (biased to what moves an agent on)."""
    lines = parse_axtree(axtree)
    by_role: dict[str, list[str]] = {}
    for line in lines:
        by_role.setdefault(line.role, []).append(line.bid)
    roll = rng.random()
    if roll < 0.05:
        return {"name": "go_back", "arguments": {}}
    if roll < 0.10:
        origin = origins[int(rng.integers(len(origins)))]
        word = _WORDS[int(rng.integers(len(_WORDS)))]
        paths = ["/", f"/?s={word}", "/shop/", "/cart/", "/checkout/", "/categories/", "/nope/"]
        return {"name": "goto", "arguments": {"url": origin + paths[int(rng.integers(len(paths)))]}}
    if roll < 0.14:
        return {"name": "scroll", "arguments": {"delta_x": 0, "delta_y": float(rng.choice([300, 700, -400]))}}
    fields = by_role.get("textbox", []) + by_role.get("searchbox", []) + by_role.get("spinbutton", [])
    if roll < 0.30 and fields:
        bid = fields[int(rng.integers(len(fields)))]
        values = [*_WORDS, "Ada", "Main Street 1", "12345", "ada@example.com", "4242424242424242", "12/30", "123",
                  "  ", "2"]
        return {"name": "fill", "arguments": {"bid": bid, "value": values[int(rng.integers(len(values)))]}}
    if roll < 0.36 and fields:
        return {"name": "press", "arguments": {"bid": fields[int(rng.integers(len(fields)))], "key_comb": "Enter"}}
    combos = by_role.get("combobox", [])
    if roll < 0.42 and combos:
        bid = combos[int(rng.integers(len(combos)))]
        options = [line.name for line in lines if line.role == "option"]
        chosen = options[int(rng.integers(len(options)))] if options else "x"
        return {"name": "select_option", "arguments": {"bid": bid, "options": [chosen]}}
    clickable = by_role.get("link", []) + by_role.get("button", []) * 2
    if clickable:
        return {"name": "click", "arguments": {"bid": clickable[int(rng.integers(len(clickable)))]}}
    return {"name": "noop", "arguments": {}}
