"""What one AX walk of a document leaves for the next, so a walk after a small change visits only what it reaches.

:class:`~personal_envs.textmode.ax.AxWalker` with an :class:`AxMemo` keeps each element's output as a
:class:`Fragment` (its records and its children's fragments).  The next walk reuses a fragment when nothing in the
element's subtree changed, when it is visited in the same context (depth, the name of the nearest printed ancestor,
whether its text is hidden) and when nothing it read from elsewhere changed (labels, ``aria-labelledby`` targets:
``deps``; table, list and sibling structure: ``lookups``, valid while the document's structure generation is the
same).  What changed comes from the document's own change notes (:meth:`~personal_envs.textmode.dom.Document.
take_changes`): a changed node makes itself, its ancestors and its siblings dirty; a restyled element its whole
subtree.  A new URL, a focus rule, or a full style reset starts the memo afresh.

:func:`render_lines` prints the records as :func:`personal_envs.browser.bgym_format.render_dom` does (the same
``format_line``), keeping each printed line and element for as long as its record lives.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

from personal_envs.browser import bgym_format
from personal_envs.browser.observation import ElementInfo
from personal_envs.textmode.dom import Element, Node

Box = tuple[float, float, float, float]
#: One record of the walk: ``(depth, bid, role, name, value, props, bbox, interactive)``, ``props`` the
#: ``(name, value)`` pairs of the element's properties (None when there are none).  Such a tuple of strings and
#: numbers is one the garbage collector stops tracking (a dict inside would keep it tracked): the memos of the cached
#: pages hold tens of thousands of records, and each full collection would otherwise walk them all.
Record = tuple[Any, ...]
#: The dependencies of a fragment that reads nothing from elsewhere (one object shared by all such fragments).
NO_DEPS: frozenset[int] = frozenset()
#: Printed lines and elements by record value, shared by all memos: the pages of a site repeat most records (the
#: header, the navigation, the footer, with the same bids), so a new page prints only what is new.  Records are
#: hashable tuples of strings and numbers.  Both start over past :data:`_MAX_SHARED` entries.
_SHARED_LINES: dict[tuple[Record, str, tuple[str, ...]], str] = {}
_SHARED_ELEMENTS: dict[tuple[Record, str, Box | None, bool], ElementInfo] = {}
_MAX_SHARED = 100_000


class Fragment:
    """One element's part of a walk: its records and its children's fragments, in order (a tuple, which the garbage
    collector stops tracking when it holds records only)."""

    __slots__ = ("element", "context", "items", "deps", "lookups", "count")

    def __init__(self, element: Element, context: tuple[int, str, bool]) -> None:
        self.element = element
        self.context = context
        self.items: Sequence[Record | Fragment] = ()
        self.deps: frozenset[int] = NO_DEPS
        self.lookups = False
        self.count = 1


#: How a record's line is shown (:meth:`AxMemo.line`): with its bid, and the extras BrowserGym adds after it.
SHOWS_BID, CLICKABLE, VISIBLE = 4, 2, 1
EXTRAS: tuple[tuple[str, ...], ...] = ((), ("visible",), ("clickable",), ("clickable", "visible"))


class AxMemo:
    """The fragments of the last walk of one document, and what changed since."""

    def __init__(self) -> None:
        self.entries: dict[int, Fragment] = {}
        self.dirty: set[int] = set()
        self.url: str | None = None
        self.focused: Element | None = None
        self.style_token = -1
        self.generation = -1
        #: The walker's caches that follow the document's structure (labels by control, table kinds).
        self.labels: dict[int, list[Element]] | None = None
        self.table_kinds: dict[int, str] = {}
        #: Printed lines and elements by ``id(record)`` (and how it is shown), valid because ``_records`` keeps each
        #: such record
        #: alive (no other object can take its id) until :meth:`prune` forgets all three.  Keys, lines and
        #: untracked records are objects the garbage collector does not track.
        self._records: dict[int, Record] = {}
        self._lines: dict[int, str] = {}
        self._elements: dict[tuple[int, str, Box | None, bool], ElementInfo] = {}

    def clear(self) -> None:
        """Forget every fragment (the next walk visits everything)."""
        self.entries.clear()
        self.dirty.clear()
        self.labels = None
        self.table_kinds = {}

    def note(self, changed: Iterable[Node], restyled: Iterable[Element]) -> None:
        """Mark what ``changed`` (and restyled subtrees) reach as dirty for the next walk."""
        dirty = self.dirty
        for node in changed:
            parent = node.parent
            if parent is not None:
                for sibling in parent.children:
                    if isinstance(sibling, Element):
                        dirty.add(id(sibling))
            current: Node | None = node
            while current is not None:
                key = id(current)
                if key in dirty and current is not node and current is not parent:
                    break
                dirty.add(key)
                current = current.parent
        for element in restyled:
            for descendant in element.iter():
                dirty.add(id(descendant))

    def begin(self, url: str, focused: Element | None, style_token: int, generation: int) -> None:
        """Prepare a walk: a new URL or style reset forgets everything; a focus move dirties both elements."""
        if url != self.url or style_token != self.style_token:
            self.clear()
        elif focused is not self.focused:
            self.note([node for node in (self.focused, focused) if node is not None], ())
        if generation != self.generation:
            self.labels = None
            self.table_kinds = {}
        self.url, self.focused, self.style_token = url, focused, style_token
        self._structure_changed = generation != self.generation
        self.generation = generation

    def reusable(self, element: Element, context: tuple[int, str, bool]) -> Fragment | None:
        """The fragment of ``element`` from the last walk when it still holds, else None."""
        fragment = self.entries.get(id(element))
        if fragment is None or fragment.element is not element or fragment.context != context:
            return None
        dirty = self.dirty
        if id(element) in dirty or (fragment.lookups and self._structure_changed):
            return None
        if fragment.deps and not fragment.deps.isdisjoint(dirty):
            return None
        return fragment

    def finish(self) -> None:
        """After a walk: nothing is dirty any more."""
        self.dirty.clear()
        self._structure_changed = False
        if len(self.entries) > 8192:
            live = {key: fragment for key, fragment in self.entries.items() if fragment.element.owner is not None}
            self.entries = live

    # ------------------------------------------------------------------------------------------ printing
    def line(self, record: Record, bid: str, shown: int) -> str:
        """The printed line of ``record`` (kept until :meth:`prune`): with ``bid`` when ``shown`` has
        :data:`SHOWS_BID` (the record's own bid), and the extras :data:`EXTRAS` names by its two low bits."""
        key = id(record) << 3 | shown
        line = self._lines.get(key)
        if line is not None:
            return line
        extras = EXTRAS[shown & 3]
        if not shown & SHOWS_BID:
            bid = ""
        shared_key = (record, bid, extras)
        line = _SHARED_LINES.get(shared_key)
        if line is None:
            depth, _raw_bid, role, name, raw_value, props = record[:6]
            value = None if raw_value is None or raw_value == "" else raw_value
            line = "\t" * int(depth) + bgym_format.format_line(bid, str(role), str(name), value,
                                                              bgym_format.dom_properties(props or ()), extras)
            if len(_SHARED_LINES) >= _MAX_SHARED:
                _SHARED_LINES.clear()
            _SHARED_LINES[shared_key] = line
        self._lines[key] = line
        self._records[id(record)] = record
        return line

    def element(self, record: Record, bid: str, box: Box | None, clickable: bool) -> ElementInfo:
        """The :class:`ElementInfo` of ``record`` as ``render_dom`` builds it (kept until :meth:`prune`)."""
        key = (id(record), bid, box, clickable)
        kept = self._elements.get(key)
        if kept is not None:
            return kept
        shared_key = (record, bid, box, clickable)
        info = _SHARED_ELEMENTS.get(shared_key)
        if info is None:
            _depth, _raw_bid, role, name, raw_value, props = record[:6]
            value = None if raw_value is None or raw_value == "" else raw_value
            props = dict(props or ())
            disabled = props.get("disabled") is True
            interactive = not disabled and (str(role) in bgym_format.INTERACTIVE_ROLES or
                                            props.get("focusable") is True or clickable)
            info = ElementInfo(bid=bid, role=str(role), name=str(name), value="" if value is None else str(value),
                               bbox=box, interactive=interactive)
            if len(_SHARED_ELEMENTS) >= _MAX_SHARED:
                _SHARED_ELEMENTS.clear()
            _SHARED_ELEMENTS[shared_key] = info
        self._elements[key] = info
        self._records[key[0]] = record
        return info

    def prune(self, live: int) -> None:
        """Drop the kept lines and elements (when there are many more than the ``live`` records)."""
        if len(self._lines) > 4 * live + 2048 or len(self._elements) > 4 * live + 2048:
            self._lines.clear()
            self._elements.clear()
            self._records.clear()


def flatten(items: Sequence[Record | Fragment], out: list[Record]) -> None:
    """The records of ``items`` in order (fragments opened)."""
    for item in items:
        if item.__class__ is Fragment:
            flatten(item.items, out)
        else:
            out.append(item)  # type: ignore[arg-type]


class LazyElements(Mapping[str, ElementInfo]):
    """The :class:`ElementInfo` of an observation's records by bid, as ``render_dom`` builds them, computed when
    first read: a step's caller seldom reads them (WebMall only for trajectory viewers), and each is an object the
    garbage collector tracks."""

    def __init__(self, records: Sequence[Record], memo: AxMemo, boxes: Mapping[str, Box],
                 clickable: frozenset[str]) -> None:
        self._source: tuple[Sequence[Record], AxMemo, Mapping[str, Box], frozenset[str]] | None = \
            (records, memo, boxes, clickable)
        self._elements: dict[str, ElementInfo] = {}

    def _built(self) -> dict[str, ElementInfo]:
        source = self._source
        if source is not None:
            records, memo, boxes, clickable = source
            elements = self._elements
            for record in records:
                raw_bid = record[1]
                if raw_bid:
                    raw_bid = str(raw_bid)
                    elements[raw_bid] = memo.element(record, raw_bid, boxes.get(raw_bid), raw_bid in clickable)
            self._source = None
        return self._elements

    def __getitem__(self, bid: str) -> ElementInfo:
        return self._built()[bid]

    def __iter__(self) -> Iterator[str]:
        return iter(self._built())

    def __len__(self) -> int:
        return len(self._built())

    def __repr__(self) -> str:
        return f"LazyElements({self._built()!r})"


def is_visible(box: Box | None, viewport: tuple[float, float]) -> bool:
    """``visibility_ratio(box, viewport) >= 0.5`` (BrowserGym's ``visible``), without its arithmetic for the boxes
    wholly below, or wholly inside, the viewport."""
    if box is None:
        return False
    x, y, width, height = box
    if y > viewport[1]:  # below the viewport: none of it inside
        return False
    right, bottom = x + width, y + height
    if x >= 0.0 and y >= 0.0 and width >= 0.0 and height >= 0.0 and right <= viewport[0] and \
            bottom <= viewport[1] and right - x == width and bottom - y == height:
        return True  # all of it inside, and the sizes exact: a ratio of exactly 1 (or an empty box: 1)
    return bgym_format.visibility_ratio(box, viewport) >= 0.5


def render_lines(records: Sequence[Record], memo: AxMemo, boxes: Mapping[str, Box], clickable: frozenset[str],
                 marked: frozenset[str], viewport: tuple[float, float]) -> tuple[str, Mapping[str, ElementInfo]]:
    """``records`` as :func:`~personal_envs.browser.bgym_format.render_dom` prints them (``boxes`` by bid), with
    their elements by bid (:class:`LazyElements`)."""
    lines: list[str] = []
    append, kept, line, get_box = lines.append, memo._lines.get, memo.line, boxes.get
    for record in records:
        raw_bid = record[1]
        if not raw_bid or str(raw_bid) not in marked:
            shown = 0
        elif record[2] == "StaticText":
            shown = SHOWS_BID
        else:
            raw_bid = str(raw_bid)
            shown = SHOWS_BID | CLICKABLE if raw_bid in clickable else SHOWS_BID
            if is_visible(get_box(raw_bid), viewport):
                shown |= VISIBLE
        printed = kept(id(record) << 3 | shown)  # AxMemo.line's key, looked up here first
        append(printed if printed is not None else line(record, str(raw_bid) if shown else "", shown))
    memo.prune(len(records))
    return "\n".join(lines), LazyElements(records, memo, boxes, clickable)
