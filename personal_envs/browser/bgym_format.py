"""The AX-tree text BrowserGym's ``flatten_axtree_to_str`` writes, with the settings AgentLab used for WebMall.

The paper's agents (AgentLab's generic agent, ``extract_visible_tag=True``, ``extract_clickable_tag=True``, no
coordinates, no filtering) read lines such as::

    RootWebArea 'Home', focused, url='http://shop/'
    \t[12] link 'Cart', clickable, visible, url='http://shop/cart/'
    \t[20] textbox 'Email' value='ada@example.com', visible, focused, required

The rules, re-derived from BrowserGym 0.14's ``browsergym.utils.obs`` and ``browsergym.core.observation``:

- one line per AX node, tab-indented by depth; a node not printed leaves its children at its own depth;
- not printed: ``LineBreak`` nodes, nodes without a name (ignored nodes), ``generic`` nodes without a printed
  property, and ``StaticText`` whose name is a substring of its AX parent's name (the parent as Chromium has it,
  printed or not: the text under a ``<span>`` inside a link is printed);
- ``[bid] role 'name'`` (Python ``repr`` of the stripped name; a bare ``generic`` when it has no name), then
  `` value=<repr>`` when the node has a value, then ``, ``-separated ``clickable``, ``visible`` and the node's
  properties in Chromium's order: ``focused`` / ``required`` / ``atomic`` as bare words when true, others as
  ``key=<repr>``; ``editable``, ``readonly``, ``level``, ``settable``, ``multiline``, ``invalid`` and ``focusable``
  left out;
- ``visible``: at least half of the element's box is inside the viewport (BrowserGym's IntersectionObserver ratio,
  rounded to 2 decimals, >= 0.5); ``clickable``: Chromium's DOM snapshot flags the element as responding to clicks;
  both only for elements BrowserGym marks (standard HTML tags);
- nothing is clipped; the ``RootWebArea`` carries the page URL.

``InlineTextBox`` nodes, which newer Chromium releases add to ``Accessibility.getFullAXTree``, are left out: the
Chromium of the paper's runs (Playwright 1.44) did not report them, and the paper's prompts show none.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from personal_envs.browser.axtree import INTERACTIVE_ROLES
from personal_envs.browser.observation import ElementInfo
from personal_envs.browser.page_scripts import BID_ATTRIBUTE

#: The tags BrowserGym gives a bid ("standard_html"); other elements show no bid and no ``visible`` tag.
STANDARD_HTML_TAGS = frozenset(["a", "abbr", "acronym", "address", "applet", "area", "article", "aside", "audio", "b", "base", "basefont", "bdi", "bdo", "big", "blockquote", "body", "br", "button", "canvas", "caption", "center", "cite", "code", "col", "colgroup", "data", "datalist", "dd", "del", "details", "dfn", "dialog", "dir", "div", "dl", "dt", "em", "embed", "fieldset", "figcaption", "figure", "font", "footer", "form", "frame", "frameset", "h1", "h2", "h3", "h4", "h5", "h6", "head", "header", "hgroup", "hr", "html", "i", "iframe", "img", "input", "ins", "kbd", "label", "legend", "li", "link", "main", "map", "mark", "menu", "meta", "meter", "nav", "noframes", "noscript", "object", "ol", "optgroup", "option", "output", "p", "param", "picture", "pre", "progress", "q", "rp", "rt", "ruby", "s", "samp", "script", "search", "section", "select", "small", "source", "span", "strike", "strong", "style", "sub", "summary", "sup", "svg", "table", "tbody", "td", "template", "textarea", "tfoot", "th", "thead", "time", "title", "tr", "track", "tt", "u", "ul", "var", "video", "wbr"])

#: Roles never printed.
SKIPPED_ROLES = frozenset({"LineBreak", "InlineTextBox"})

#: Elements Chromium leaves out of its tree unless they carry ARIA attributes, as BrowserGym's marks give every
#: element: a data table's ``<tbody>``, a label folded into its checkbox, an empty paragraph; with their roles.
_UNIGNORED = {"TBODY": "rowgroup", "LABEL": "LabelText", "P": "paragraph", "ADDRESS": "group"}

#: Roles of the tables whose ``<tbody>`` shows as a row group.
_TABLE_ROLES = frozenset({"table", "grid", "treegrid"})

#: Properties BrowserGym leaves out.
IGNORED_PROPERTIES = frozenset({"editable", "readonly", "level", "settable", "multiline", "invalid", "focusable"})

#: Properties printed as a bare word when true (and not at all when false).
FLAG_PROPERTIES = frozenset({"required", "focused", "atomic"})

#: Chromium's order of the printed properties (``Accessibility.getFullAXTree``), for the DOM walk's records.
PROPERTY_ORDER = ("live", "atomic", "relevant", "busy", "keyshortcuts", "disabled", "focused", "modal", "hasPopup",
                  "multiselectable", "orientation", "required", "valuemin", "valuemax", "valuetext", "url", "checked",
                  "pressed", "expanded", "selected")

#: DOM-walk property values Chromium reports as booleans.
_BOOLEAN_PROPERTIES = frozenset({"selected", "expanded", "modal", "multiselectable", "disabled", "focused",
                                 "required", "atomic"})


@dataclass(frozen=True)
class SnapshotFacts:
    """What BrowserGym takes from the DOM snapshot, by bid: layout box, clickability, whether it is marked."""

    bids: dict[int, str]
    tags: dict[int, str]
    text_parents: dict[int, int]
    boxes: dict[str, tuple[float, float, float, float]]
    clickable: frozenset[str]
    marked: frozenset[str]


def index_snapshot(snapshot: Mapping[str, Any]) -> SnapshotFacts:
    """Facts of the main document's elements that carry a bid (boxes relative to the viewport)."""
    documents = snapshot.get("documents") or []
    if not documents:
        return SnapshotFacts({}, {}, {}, {}, frozenset(), frozenset())
    strings: Sequence[str] = snapshot.get("strings") or []
    document = documents[0]
    nodes = document.get("nodes") or {}
    backend_ids: Sequence[int] = nodes.get("backendNodeId") or []
    names: Sequence[int] = nodes.get("nodeName") or []
    attributes: Sequence[Sequence[int]] = nodes.get("attributes") or []
    try:
        bid_index = strings.index(BID_ATTRIBUTE)
    except ValueError:
        bid_index = -1
    by_index: dict[int, str] = {}
    if bid_index >= 0:
        for node_index, attrs in enumerate(attributes):
            for position in range(0, len(attrs) - 1, 2):
                if attrs[position] == bid_index:
                    by_index[node_index] = strings[attrs[position + 1]]
                    break
    marked = frozenset(bid for index, bid in by_index.items()
                       if index < len(names) and 0 <= names[index] < len(strings)
                       and strings[names[index]].lower() in STANDARD_HTML_TAGS)
    clickable_nodes = (nodes.get("isClickable") or {}).get("index") or []
    clickable = frozenset(by_index[index] for index in clickable_nodes if index in by_index)
    scroll_x = float(document.get("scrollOffsetX") or 0.0)
    scroll_y = float(document.get("scrollOffsetY") or 0.0)
    layout = document.get("layout") or {}
    boxes: dict[str, tuple[float, float, float, float]] = {}
    for node_index, bounds in zip(layout.get("nodeIndex") or [], layout.get("bounds") or [], strict=False):
        bid = by_index.get(node_index)
        if bid is not None and len(bounds) == 4 and bid not in boxes:
            x, y, width, height = bounds
            boxes[bid] = (x - scroll_x, y - scroll_y, width, height)
    bids = {backend_ids[index]: bid for index, bid in by_index.items() if index < len(backend_ids)}
    wanted = {index: tag for tag in _UNIGNORED if (index := _string_index(strings, tag)) >= 0}
    tags = {backend_ids[index]: wanted[name] for index, name in enumerate(names)
            if name in wanted and index < len(backend_ids)}
    node_types: Sequence[int] = nodes.get("nodeType") or []
    parents: Sequence[int] = nodes.get("parentIndex") or []
    text_parents = {backend_ids[index]: backend_ids[parent]
                    for index, (kind, parent) in enumerate(zip(node_types, parents, strict=False))
                    if kind == 3 and 0 <= parent < len(backend_ids) and index < len(backend_ids)}
    return SnapshotFacts(bids, tags, text_parents, boxes, clickable, marked)


def has_unstamped_elements(snapshot: Mapping[str, Any]) -> bool:
    """True if an element of the main document has no bid yet (a script added it after the bids were stamped)."""
    documents = snapshot.get("documents") or []
    if not documents:
        return False
    strings: Sequence[str] = snapshot.get("strings") or []
    bid_index = _string_index(strings, BID_ATTRIBUTE)
    nodes = documents[0].get("nodes") or {}
    for kind, attrs in zip(nodes.get("nodeType") or [], nodes.get("attributes") or [], strict=False):
        if kind == 1 and bid_index not in attrs[0::2]:
            return True
    return False


def _string_index(strings: Sequence[str], text: str) -> int:
    try:
        return strings.index(text)
    except ValueError:
        return -1


def visibility_ratio(box: tuple[float, float, float, float] | None, viewport: tuple[float, float]) -> float:
    """The share of ``box`` inside the viewport, rounded to 2 decimals, as an IntersectionObserver reports it."""
    if box is None:
        return 0.0
    x, y, width, height = box
    left, top = max(x, 0.0), max(y, 0.0)
    right, bottom = min(x + width, viewport[0]), min(y + height, viewport[1])
    if right < left or bottom < top:
        return 0.0
    area = width * height
    if area <= 0:
        return 1.0
    return round((right - left) * (bottom - top) / area * 100) / 100


def format_line(bid: str, role: str, name: str, value: Any, properties: Sequence[tuple[str, Any]],
                extras: Sequence[str]) -> str:
    """One line (without indentation) as ``flatten_axtree_to_str`` writes it; ``value`` None for no value."""
    text = role if role == "generic" and not name else f"{role} {name.strip()!r}"
    if bid:
        text = f"[{bid}] {text}"
    if value is not None:
        text += f" value={value!r}"
    return text + "".join(", " + attribute for attribute in [*extras, *property_attributes(properties)])


def property_attributes(properties: Sequence[tuple[str, Any]]) -> list[str]:
    """The printed form of a node's properties (``focused``, ``url='...'``), in their order."""
    attributes = []
    for key, prop in properties:
        if key in IGNORED_PROPERTIES:
            continue
        if key in FLAG_PROPERTIES:
            if prop:
                attributes.append(key)
        else:
            attributes.append(f"{key}={prop!r}")
    return attributes


def _extras(bid: str, facts: SnapshotFacts, viewport: tuple[float, float]) -> list[str]:
    if not bid:
        return []
    extras = []
    if bid in facts.clickable:
        extras.append("clickable")
    if visibility_ratio(facts.boxes.get(bid), viewport) >= 0.5:
        extras.append("visible")
    return extras


def _printed_properties(node: Mapping[str, Any]) -> list[tuple[str, Any]]:
    printed = []
    for prop in node.get("properties") or []:
        field = prop.get("value")
        if isinstance(field, Mapping) and "value" in field:
            printed.append((str(prop.get("name")), field["value"]))
    return printed


def _element(bid: str, role: str, name: str, value: Any, props: Mapping[str, Any], facts: SnapshotFacts,
             fallback_box: Any = None) -> ElementInfo:
    disabled = props.get("disabled") is True
    interactive = not disabled and (role in INTERACTIVE_ROLES or props.get("focusable") is True
                                    or bid in facts.clickable)
    box = facts.boxes.get(bid)
    if box is None and fallback_box:
        box = tuple(float(v) for v in fallback_box)  # type: ignore[assignment]
    return ElementInfo(bid=bid, role=role, name=name, value="" if value is None else str(value), bbox=box,
                       interactive=interactive)


def render_cdp(nodes: Sequence[Mapping[str, Any]], facts: SnapshotFacts,
               viewport: tuple[float, float]) -> tuple[str, dict[str, ElementInfo]]:
    """Chromium's AX nodes (``Accessibility.getFullAXTree``) as BrowserGym's text, and the elements with a bid."""
    if not nodes:
        return "", {}
    by_id = {str(node.get("nodeId")): node for node in nodes}
    lines: list[str] = []
    elements: dict[str, ElementInfo] = {}
    stack: list[tuple[str, int, str, str, Any]] = [(str(nodes[0].get("nodeId")), 0, "", "", None)]
    seen: set[str] = set()
    while stack:
        node_id, depth, parent_name, parent_role, parent_backend = stack.pop()
        if node_id in seen or node_id not in by_id:
            continue
        seen.add(node_id)
        node = by_id[node_id]
        role = str((node.get("role") or {}).get("value") or "")
        name = ""
        printed = False
        tag = facts.tags.get(node.get("backendDOMNodeId")) if node.get("ignored") else None  # type: ignore[arg-type]
        if tag is not None and (tag != "TBODY" or parent_role in _TABLE_ROLES):
            # BrowserGym's marks (ARIA attributes on every element) bring these elements into Chromium's tree.
            role = _UNIGNORED[tag]
            node = {**node, "role": {"value": role}, "name": {"value": ""}, "properties": []}
        if role not in SKIPPED_ROLES and "name" in node:
            name = str((node.get("name") or {}).get("value") or "")
            value_field = node.get("value")
            value = value_field.get("value") if isinstance(value_field, Mapping) and "value" in value_field else None
            properties = _printed_properties(node)
            printed = not (role == "generic" and not property_attributes(properties))
            backend_id = node.get("backendDOMNodeId")
            bid = facts.bids.get(backend_id, "") if isinstance(backend_id, int) else ""
            if bid not in facts.marked:
                bid = ""
            if role == "StaticText":
                dom_parent = facts.text_parents.get(backend_id) if isinstance(backend_id, int) else None
                if dom_parent is not None and dom_parent != parent_backend and facts.bids.get(dom_parent) in facts.marked:
                    # Chromium left the text's element (a plain <span>) out; BrowserGym's marks bring it in as
                    # an unnamed generic node, the text's parent.
                    parent_name = ""
                printed = printed and name not in parent_name
                bid = ""
            elif role == "ListMarker" and name.endswith(". ") and parent_role == "listitem":
                name = "0. "  # BrowserGym writes value="0" into every <li>: ordered lists count 0, 0, 0
            if printed:
                extras = [] if role == "StaticText" else _extras(bid, facts, viewport)
                lines.append("\t" * depth + format_line(bid, role, name, value, properties, extras))
                if bid:
                    elements[bid] = _element(bid, role, name, value, dict(properties), facts)
        child_depth = depth + 1 if printed else depth
        for child in reversed(node.get("childIds") or []):
            if str(child) != node_id:
                stack.append((str(child), child_depth, name, role, node.get("backendDOMNodeId")))
    return "\n".join(lines), elements


def dom_properties(props: Mapping[str, Any] | Iterable[tuple[str, Any]]) -> list[tuple[str, Any]]:
    """A DOM-walk record's properties (a mapping, or its ``(name, value)`` pairs) in Chromium's order
    (:data:`PROPERTY_ORDER`), booleans as booleans."""
    if not isinstance(props, Mapping):
        props = dict(props)
    ordered = []
    for key in PROPERTY_ORDER:
        if key not in props:
            continue
        prop = props[key]
        if key in _BOOLEAN_PROPERTIES and isinstance(prop, str):
            prop = prop == "true"
        ordered.append((key, prop))
    return ordered


def render_dom(records: Sequence[Sequence[Any]], facts: SnapshotFacts,
               viewport: tuple[float, float]) -> tuple[str, dict[str, ElementInfo]]:
    """The DOM walk's records (``{bgym: true}`` mode of ``dom_axtree.js``) as BrowserGym's text."""
    lines: list[str] = []
    elements: dict[str, ElementInfo] = {}
    for depth, raw_bid, role, name, raw_value, props, bbox, _interactive in records:
        role, name = str(role), str(name)
        bid = str(raw_bid) if raw_bid and str(raw_bid) in facts.marked else ""
        value = None if raw_value is None or raw_value == "" else raw_value
        properties = dom_properties(props or {})
        extras = [] if role == "StaticText" else _extras(bid, facts, viewport)
        lines.append("\t" * int(depth) + format_line(bid, role, name, value, properties, extras))
        if bid:
            elements[bid] = _element(bid, role, name, value, dict(props or {}), facts, bbox)
        elif raw_bid:
            elements[str(raw_bid)] = _element(str(raw_bid), role, name, value, dict(props or {}), facts, bbox)
    return "\n".join(lines), elements
