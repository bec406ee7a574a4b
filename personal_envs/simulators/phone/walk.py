"""Seeded random device actions on the phone, and the differences between two hierarchy dumps.

The text mode's parity walk (``tests/knowu/test_text_mode.py``) and its throughput benchmark
(``benchmarks/text_mode.py``) drive the browser mode and the text mode with the same actions from
:func:`random_phone_action`, and :func:`compare_dumps` sorts what differs between the two ``ui_xml`` texts.
"""

from __future__ import annotations

import difflib
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from personal_envs.simulators.phone.geometry import SCREEN_HEIGHT, SCREEN_WIDTH
from personal_envs.simulators.phone.uixml import UiNode, parse_ui_xml

#: App labels :func:`random_phone_action` opens (the phone's 17 apps and one that does not exist).
APP_NAMES: tuple[str, ...] = (
    "Messages", "Contacts", "Calendar", "Clock", "Mail", "Gallery", "Files", "Settings", "Maps", "Chrome",
    "Mastodon", "Mattermost", "Taodian", "jingdian", "chilemei", "tuantuan", "Docreader", "Camera",
)
#: Texts :func:`random_phone_action` types.
TEXTS: tuple[str, ...] = (
    "Mom", "Dad", "hello", "See you at 7", "13800138000", "09:30", "2026-02-14", "coffee", "zero sugar cola",
    "https://example.com", "Zhang Wei", "Room 301, 478 Wensan Road", "ok", "  ", "明天见", "AVAVA Tokyo",
    "a very long message that will certainly wrap over more than one line of the text field on the screen",
)
#: Why the walk never double-taps a text field: Chromium selects the word under a double tap (typing then replaces
#: it); the text mode keeps no selection, only the caret (a deviation the README lists).
DOUBLE_TAP_NOTE = "double taps on text fields select a word in Chromium only"
_BOUNDS = re.compile(r' bounds="\[[-\d]+,[-\d]+\]\[[-\d]+,[-\d]+\]"')
_CLICKABLE = re.compile(r'<node [^>]*?class="(?P<cls>[^"]*)"[^>]*? clickable="true"[^>]*? bounds="\[(?P<bounds>-?\d+),'
                        r'(-?\d+)\]\[(-?\d+),(-?\d+)\]"')


def clickable_nodes(ui_xml: str) -> list[UiNode]:
    """The clickable nodes of a dump with a non-empty area (a fast scan of the lines the dump writes; every node
    when the text is not in that form)."""
    nodes = []
    for match in _CLICKABLE.finditer(ui_xml):
        left, top, right, bottom = (int(v) for v in match.groups()[1:5])
        nodes.append(UiNode(text="", resource_id="", class_name=match.group("cls"), package="", content_desc="",
                            clickable=True, focused=False, checked=False, bounds=(left, top, right, bottom)))
    if not nodes and "clickable=\"true\"" in ui_xml:
        try:
            nodes = [n for n in parse_ui_xml(ui_xml) if n.clickable]
        except ValueError:
            nodes = []
    return [n for n in nodes if _area(n) > 0]


def random_phone_action(ui_xml: str, rng: np.random.Generator) -> dict[str, Any]:
    """A seeded random device action for the screen ``ui_xml`` shows (biased to what moves an agent on)."""
    clickable = clickable_nodes(ui_xml)
    roll = float(rng.random())
    if roll < 0.04:
        return {"action_type": "navigate_back"}
    if roll < 0.06:
        return {"action_type": "navigate_home"}
    if roll < 0.11:
        return {"action_type": "open_app", "app_name": APP_NAMES[int(rng.integers(len(APP_NAMES)))]}
    if roll < 0.20:
        direction = ("down", "up", "down", "left", "right")[int(rng.integers(5))]
        return {"action_type": "scroll", "direction": direction}
    if roll < 0.23:
        if rng.random() < 0.5:  # pull the notification shade
            return {"action_type": "drag", "start_x": 540, "start_y": 30, "end_x": 540, "end_y": 1400}
        x0, y0, x1, y1 = (int(v) for v in rng.integers(0, [SCREEN_WIDTH, SCREEN_HEIGHT, SCREEN_WIDTH, SCREEN_HEIGHT]))
        return {"action_type": "drag", "start_x": x0, "start_y": y0, "end_x": x1, "end_y": y1}
    if roll < 0.35:
        return {"action_type": "input_text", "text": TEXTS[int(rng.integers(len(TEXTS)))]}
    if roll < 0.39:
        return {"action_type": "keyboard_enter"}
    if roll < 0.40:
        return {"action_type": "wait"}
    if roll < 0.44:
        x, y = int(rng.integers(SCREEN_WIDTH)), int(rng.integers(SCREEN_HEIGHT))
        return {"action_type": "click", "x": x, "y": y}
    if not clickable:
        return {"action_type": "navigate_back"}
    fields = [n for n in clickable if n.class_name == "android.widget.EditText"]
    if roll < 0.54 and fields:
        node = fields[int(rng.integers(len(fields)))]
    else:
        node = clickable[int(rng.integers(len(clickable)))]
    x, y = _point_in(node, rng)
    kind = "click"
    second = float(rng.random())
    if second < 0.06:
        kind = "long_press"
    elif second < 0.09 and node.class_name != "android.widget.EditText":  # see DOUBLE_TAP_NOTE
        kind = "double_tap"
    return {"action_type": kind, "x": x, "y": y}


def _area(node: UiNode) -> int:
    left, top, right, bottom = node.bounds
    return max(0, right - left) * max(0, bottom - top)


def _point_in(node: UiNode, rng: np.random.Generator) -> tuple[int, int]:
    """The centre of the node, or (one time in four) a random point inside its bounds."""
    left, top, right, bottom = node.bounds
    if rng.random() < 0.75 or right - left < 3 or bottom - top < 3:
        return node.center
    return int(rng.integers(left + 1, right - 1)), int(rng.integers(top + 1, bottom - 1))


@dataclass
class DumpComparison:
    """Line differences of two hierarchy dumps, by kind (``bounds``: the line differs only in its bounds)."""

    kinds: Counter[str] = field(default_factory=Counter)
    examples: dict[str, tuple[str, str]] = field(default_factory=dict)

    @property
    def identical(self) -> bool:
        """No line differs."""
        return not self.kinds


def compare_dumps(browser: str, text: str) -> DumpComparison:
    """Sort the line differences of two ``ui_xml`` texts into kinds (``bounds`` or ``other``)."""
    result = DumpComparison()
    if browser == text:
        return result
    left, right = browser.splitlines(), text.splitlines()
    matcher = difflib.SequenceMatcher(a=left, b=right, autojunk=False)
    for op, a0, a1, b0, b1 in matcher.get_opcodes():
        if op == "equal":
            continue
        old, new = left[a0:a1], right[b0:b1]
        if len(old) == len(new):
            for line_a, line_b in zip(old, new, strict=True):
                kind = "bounds" if _BOUNDS.sub("", line_a) == _BOUNDS.sub("", line_b) else "other"
                result.kinds[kind] += 1
                result.examples.setdefault(kind, (line_a, line_b))
            continue
        result.kinds["other"] += len(old) + len(new)
        result.examples.setdefault("other", ("\n".join(old[:3]), "\n".join(new[:3])))
    return result
