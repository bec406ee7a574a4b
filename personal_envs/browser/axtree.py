"""Turn Chromium's accessibility tree (CDP ``Accessibility.getFullAXTree``) into BrowserGym-style text.

Element ids come from the ``data-pe-bid`` attributes stamped into the page; a DOM snapshot (CDP
``DOMSnapshot.captureSnapshot``) links each AX node's ``backendDOMNodeId`` to its attribute and layout box.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from personal_envs.browser.observation import ElementInfo
from personal_envs.browser.page_scripts import BID_ATTRIBUTE

#: Longest name or value shown on one line; longer text is cut with an ellipsis.
MAX_TEXT_CHARS = 200

#: Roles that carry no meaning of their own: their children are shown one level up.
NOISE_ROLES = frozenset({"generic", "none", "presentation", "LineBreak", "LayoutTable", "LayoutTableRow",
                         "LayoutTableCell", "Unknown", "ignored"})

#: Roles whose subtree adds nothing (text boxes under StaticText, list bullets).
LEAF_SKIP_ROLES = frozenset({"InlineTextBox", "ListMarker"})

#: Roles an agent can act on.
INTERACTIVE_ROLES = frozenset({
    "button", "link", "textbox", "searchbox", "checkbox", "radio", "combobox", "listbox", "option", "menuitem",
    "menuitemcheckbox", "menuitemradio", "slider", "spinbutton", "switch", "tab", "treeitem", "gridcell",
    "columnheader", "rowheader", "textarea", "ComboBoxSelect", "ComboBoxMenuButton", "MenuListOption",
    "MenuListPopup", "DisclosureTriangle", "PopUpButton", "ToggleButton", "textField", "scrollbar",
})

#: Boolean AX properties shown as a bare word when true.
_FLAG_PROPS = ("focused", "disabled", "required", "readonly", "multiselectable", "modal", "busy", "editable")
#: AX properties shown as ``key=value``.
_VALUE_PROPS = ("checked", "pressed", "selected", "expanded", "level", "invalid", "valuemin", "valuemax",
                "autocomplete", "haspopup", "orientation")


@dataclass(frozen=True)
class DomIndex:
    """What the DOM snapshot tells about elements, keyed by backend node id."""

    bids: dict[int, str]
    boxes: dict[int, tuple[float, float, float, float]]


def index_dom_snapshot(snapshot: Mapping[str, Any]) -> DomIndex:
    """Map backend node ids of the main document to their bid and viewport-relative layout box."""
    documents = snapshot.get("documents") or []
    if not documents:
        return DomIndex({}, {})
    strings: Sequence[str] = snapshot.get("strings") or []
    document = documents[0]
    nodes = document.get("nodes") or {}
    backend_ids: Sequence[int] = nodes.get("backendNodeId") or []
    attributes: Sequence[Sequence[int]] = nodes.get("attributes") or []
    try:
        bid_index = strings.index(BID_ATTRIBUTE)
    except ValueError:
        bid_index = -1
    bids: dict[int, str] = {}
    if bid_index >= 0:
        for node_index, attrs in enumerate(attributes):
            for position in range(0, len(attrs) - 1, 2):
                if attrs[position] == bid_index:
                    bids[backend_ids[node_index]] = strings[attrs[position + 1]]
                    break
    scroll_x = float(document.get("scrollOffsetX") or 0.0)
    scroll_y = float(document.get("scrollOffsetY") or 0.0)
    layout = document.get("layout") or {}
    boxes: dict[int, tuple[float, float, float, float]] = {}
    for node_index, bounds in zip(layout.get("nodeIndex") or [], layout.get("bounds") or [], strict=False):
        if len(bounds) == 4 and node_index < len(backend_ids):
            backend_id = backend_ids[node_index]
            if backend_id in bids and backend_id not in boxes:
                x, y, width, height = bounds
                boxes[backend_id] = (x - scroll_x, y - scroll_y, width, height)
    return DomIndex(bids, boxes)


def clip_text(text: str, limit: int = MAX_TEXT_CHARS) -> str:
    """Single-line text of at most ``limit`` characters."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def quote(text: str) -> str:
    """``text`` in single quotes, with quotes and backslashes escaped."""
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def _ax_value(field: Any) -> Any:
    if isinstance(field, Mapping):
        return field.get("value")
    return None


def _properties(node: Mapping[str, Any]) -> dict[str, Any]:
    return {prop.get("name"): _ax_value(prop.get("value")) for prop in node.get("properties") or []}


def render_axtree(nodes: Sequence[Mapping[str, Any]], dom: DomIndex) -> tuple[str, dict[str, ElementInfo]]:
    """Render AX nodes as indented text and collect the elements that carry a bid.

    Ignored nodes and noise roles (``generic``, ``none``, ...) are dropped and their children move up a level;
    ``StaticText`` that only repeats its parent's name is dropped.
    """
    by_id = {str(node.get("nodeId")): node for node in nodes}
    roots = [node for node in nodes if not node.get("parentId")]
    lines: list[str] = []
    elements: dict[str, ElementInfo] = {}
    # Iterative depth-first walk: (node id, depth, name and value of the nearest shown ancestor).
    stack: list[tuple[str, int, tuple[str, ...]]] = [(str(root.get("nodeId")), 0, ()) for root in reversed(roots)]
    seen: set[str] = set()
    while stack:
        node_id, depth, parent_name = stack.pop()
        if node_id in seen or node_id not in by_id:
            continue
        seen.add(node_id)
        node = by_id[node_id]
        role = str(_ax_value(node.get("role")) or "")
        if role in LEAF_SKIP_ROLES:
            continue
        name = clip_text(str(_ax_value(node.get("name")) or ""))
        shown = not node.get("ignored") and role not in NOISE_ROLES
        if role in ("generic", "none") and name and not node.get("ignored"):
            shown = True
        if role == "StaticText" and (not name or name in parent_name):
            shown = False
        child_depth, child_parent_name = depth, parent_name
        if shown:
            line, element = _node_line(node, role, name, dom)
            lines.append("\t" * depth + line)
            if element is not None:
                elements[element.bid] = element
            value = clip_text(str(_ax_value(node.get("value")) or ""))
            child_depth, child_parent_name = depth + 1, (name, value)
        for child in reversed(node.get("childIds") or []):
            stack.append((str(child), child_depth, child_parent_name))
    return "\n".join(lines), elements


def _node_line(node: Mapping[str, Any], role: str, name: str, dom: DomIndex) -> tuple[str, ElementInfo | None]:
    backend_id = node.get("backendDOMNodeId")
    bid = dom.bids.get(backend_id, "") if isinstance(backend_id, int) else ""
    props = _properties(node)
    value = clip_text(str(_ax_value(node.get("value")) or ""))
    line = format_line(bid, role, name, value, props)
    element = None
    if bid:
        disabled = props.get("disabled") is True
        interactive = not disabled and (role in INTERACTIVE_ROLES or props.get("focusable") is True
                                        or props.get("editable") not in (None, "", False))
        box = dom.boxes.get(backend_id) if isinstance(backend_id, int) else None
        element = ElementInfo(bid=bid, role=role, name=name, value=value, bbox=box, interactive=interactive)
    return line, element


def format_line(bid: str, role: str, name: str, value: str, props: Mapping[str, Any]) -> str:
    """One AX tree line (without indentation): ``[bid] role 'name' value='...' flags key=value``."""
    parts = [f"[{bid}] {role}" if bid else role]
    if name:
        parts.append(quote(name))
    if value and value != name:
        parts.append(f"value={quote(value)}")
    for key in _FLAG_PROPS:
        if props.get(key) is True or props.get(key) == "true":
            parts.append(key)
    for key in _VALUE_PROPS:
        prop = props.get(key)
        if prop is None or prop == "" or (key in ("invalid", "haspopup") and prop in ("false", False)):
            continue
        if key == "autocomplete" and prop == "none":
            continue
        parts.append(f"{key}={str(prop).lower() if isinstance(prop, bool) else prop}")
    if role == "link" and props.get("url"):
        parts.append(f"url={quote(clip_text(str(props['url'])))}")
    return " ".join(parts)


_LINE = re.compile(r"^(?P<indent>\t*)\[(?P<bid>[^\]]+)\]\s+(?P<role>\S+)"
                   r"(?:\s+(?P<name>'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"))?(?P<rest>.*)$")


@dataclass(frozen=True)
class AxLine:
    """One parsed line of the text :func:`format_line` writes (only lines with a bid parse)."""

    depth: int
    bid: str
    role: str
    name: str
    rest: str

    @property
    def flags(self) -> frozenset[str]:
        """Bare words after the name and value (``focused``, ``disabled``, ...); in BrowserGym's format also
        ``visible`` / ``clickable`` and the properties written ``key=True``."""
        words = set()
        for word in re.split(r"[\s,]+", self.rest):
            if word.endswith("=True"):
                words.add(word[:-5])
            elif word and "=" not in word and "'" not in word:
                words.add(word)
        return frozenset(words)


def parse_line(line: str) -> AxLine | None:
    """Parse one AX tree line written by :func:`format_line`; ``None`` for lines without a bid."""
    match = _LINE.match(line)
    if match is None:
        return None
    name = _unquote(match.group("name") or "''")
    return AxLine(len(match.group("indent")), match.group("bid"), match.group("role"), name, match.group("rest"))


def _unquote(token: str) -> str:
    """The text of a quoted name: Python's ``repr`` (BrowserGym's format) or this module's own quoting."""
    if "\\" not in token:  # most names: the quotes of a literal without escapes (``_LINE`` admits no bare quote)
        return token[1:-1]
    try:
        value = ast.literal_eval(token)
    except (ValueError, SyntaxError):
        return re.sub(r"\\(.)", r"\1", token[1:-1])
    return value if isinstance(value, str) else token[1:-1]


def parse_axtree(text: str) -> list[AxLine]:
    """Every element line (with a bid) of an AX tree text, in document order."""
    return [parsed for line in text.splitlines() if (parsed := parse_line(line)) is not None]


def render_dom_records(records: Sequence[Sequence[Any]]) -> tuple[str, dict[str, ElementInfo]]:
    """Render the records of :data:`~personal_envs.browser.page_scripts.DOM_AXTREE_JS` like :func:`render_axtree`.

    Each record is ``[depth, bid, role, name, value, props, bbox, interactive]``; names and values arrive clipped.
    """
    lines: list[str] = []
    elements: dict[str, ElementInfo] = {}
    for depth, bid, role, name, value, props, bbox, interactive in records:
        lines.append("\t" * int(depth) + format_line(str(bid), str(role), str(name), str(value), props or {}))
        if bid:
            box = tuple(float(v) for v in bbox) if bbox else None
            elements[str(bid)] = ElementInfo(bid=str(bid), role=str(role), name=str(name), value=str(value),
                                             bbox=box, interactive=bool(interactive))  # type: ignore[arg-type]
    return "\n".join(lines), elements
