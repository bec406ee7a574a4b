"""Laid-out subtrees kept across pages, so that a new page reuses the boxes of the parts it shares with pages laid
out before (the shops' header, navigation, sidebar, footer, product cards).

A subtree is named by a *signature*: a small integer interned from everything of the subtree that
:mod:`.layout` reads (tags, the attributes it reads, text, the computed style of every element, an option's
selected state), built bottom-up so that equal subtrees of different documents get the same number.  A block's
boxes are kept under its signature together with everything outside the subtree that the layout of the block
reads: the position and width it is laid out at, shrink-to-fit, whether its top margin already collapsed, its
parent's font size and display, whether a list encloses it, and the viewport.  Boxes are only ever reused at the
very position they were computed at (never translated: float sums are not associative, and reuse must give the same
floats), so a hit reproduces exactly what laying the subtree out again would give.
"""

from __future__ import annotations

import itertools
import threading
from array import array

from personal_envs.textmode.css import StyleResolver
from personal_envs.textmode.dom import Element, Text

Box = tuple[float, float, float, float]
#: What a block's layout reads outside its subtree, with the subtree's signature first.
Edges = tuple[tuple[float, ...], tuple[float, ...], tuple[float, ...]]
BlockKey = tuple[int, float, float, float, bool, bool, float, str, bool, tuple[int, int]]

#: Attributes the layout reads, by tag (an image's size, an input's type, an option's label and disabled state;
#: an option's selected state goes in too).
_READ_ATTRS = {"img": ("width", "height"), "input": ("type",), "option": ("label", "disabled")}
_LISTS = ("ul", "ol")
#: Elements never laid out when not displayed (nothing reaches their content, except a select's option labels):
#: named by tag alone, their descendants not numbered.
_SKIPPED = frozenset({"head", "script", "style", "template", "noscript"})
#: Interned signatures kept before the memo starts over (each holds one small tuple).
_MAX_SIGNATURES = 200_000
#: Boxes of laid-out blocks kept before the memo starts over (about 40 bytes each).
_MAX_BOXES = 400_000


#: The outcome of laying out one block: its margin-box height, the elements it placed (by preorder offset within
#: the subtree, in the order placed), their boxes (four numbers each, flat), the clips (offset, box), and the blocks
#: whose top margin collapsed (offsets).  Arrays and tuples of numbers only: compact, and not tracked by the garbage
#: collector.
LaidOutBlock = tuple[float, "array[int]", "array[float]", tuple[tuple[int, Box], ...], tuple[int, ...]]


class Numbering:
    """A document's elements in preorder, each element's position there and the end of its subtree (by ``id``),
    its signature, the number of its computed style, the elements that lie inside a list (``ul`` / ``ol``) and
    those whose subtree no document had before."""

    #: mypyc: the numbering lets go of the memo and the styles once done.
    __deletable__ = ["_memo", "_styles"]

    def __init__(self, memo: SubtreeMemo, styles: StyleResolver, root: Element) -> None:
        self.elements: list[Element] = []
        self.position: dict[int, int] = {}
        self.end: dict[int, int] = {}
        self.signature: dict[int, int] = {}
        self.style: dict[int, int] = {}
        self.in_list: set[int] = set()
        #: Elements whose signature no document numbered before (a block first seen is not kept: see
        #: :meth:`_Engine.block`).
        self.first_seen: set[int] = set()
        self._memo = memo
        self._styles = styles
        self._visit(root, False, False)
        del self._memo, self._styles

    def _visit(self, element: Element, listed: bool, optional: bool) -> int:
        """Number ``element`` and its subtree; returns its signature."""
        key_id = id(element)
        elements = self.elements
        self.position[key_id] = len(elements)
        elements.append(element)
        tag = element.tag
        if listed:
            self.in_list.add(key_id)
        styles = self._styles
        if tag in _SKIPPED and not optional and styles.display(element) == "none":
            self.end[key_id] = len(elements)
            key: tuple[object, ...] = (tag, "none")
        else:
            inner = listed or tag in _LISTS
            within = optional or tag == "select"  # an option's label is all of its text
            parts: list[object] = []  # texts as they are, elements by signature
            for child in element.children:
                if child.__class__ is Text:
                    parts.append(child.data)
                elif isinstance(child, Element):
                    parts.append(self._visit(child, inner, within))
            self.end[key_id] = len(elements)
            computed = element.style_cache if element.style_token == styles.token else styles.style(element)
            memo = self._memo
            known = memo.style_of.get(id(computed))
            if known is not None and known[0] is computed:  # a computed style shared by many elements
                style = known[1]
            else:
                items = tuple(computed.items())  # type: ignore[union-attr]
                number = memo.styles.get(items)
                if number is None:
                    number = memo.styles[items] = next(memo.counter)
                memo.style_of[id(computed)] = (computed, number)  # type: ignore[assignment]
                style = number
            self.style[key_id] = style
            if tag in _READ_ATTRS:
                attrs = element.attrs
                key = (tag, style, tuple(parts), tuple(attrs.get(name) for name in _READ_ATTRS[tag]),
                       element.selected)
            else:
                key = (tag, style, tuple(parts))
        signatures = self._memo.signatures
        found = signatures.get(key)
        if found is None:
            found = signatures[key] = next(self._memo.counter)
            self.first_seen.add(key_id)
        self.signature[key_id] = found
        return found


class SubtreeMemo:
    """Signatures of subtrees and the laid-out blocks found under them (one per thread)."""

    def __init__(self) -> None:
        #: Numbers of computed styles and of subtrees (one counter for both).
        self.styles: dict[tuple[tuple[str, str], ...], int] = {}
        #: The same numbers by computed style object (kept with it: its id stays its own), for the styles that
        #: elements share (:meth:`~personal_envs.textmode.css.StyleResolver.style`).
        self.style_of: dict[int, tuple[dict[str, str], int]] = {}
        self.signatures: dict[tuple[object, ...], int] = {}
        self.counter = itertools.count(1)
        self.blocks: dict[BlockKey, LaidOutBlock] = {}
        #: Blocks taken from the memo so far.
        self.hits = 0
        self._boxes_kept = 0
        #: Margins, paddings and borders by (style number, tag, font size, containing width, inside a list).
        self.edges: dict[tuple[int, str, float, float, bool], Edges] = {}
        #: Max-content widths by (signature, parent's font size, inside a list, viewport width).
        self.max_content: dict[tuple[int, float, bool, int], float] = {}

    def trim(self) -> None:
        """Start over when the tables grew past their bounds (only between two layouts: a signature handed out
        must keep its meaning while a document is laid out)."""
        if len(self.signatures) > _MAX_SIGNATURES or self._boxes_kept > _MAX_BOXES or \
                len(self.edges) + len(self.max_content) + len(self.style_of) > _MAX_SIGNATURES:
            self._boxes_kept = 0
            self.styles.clear()
            self.style_of.clear()
            self.signatures.clear()
            self.blocks.clear()
            self.edges.clear()
            self.max_content.clear()

    def keep(self, key: BlockKey, block: LaidOutBlock) -> None:
        """Keep a laid-out block under its key."""
        self.blocks[key] = block
        self._boxes_kept += len(block[1])

    def number(self, root: Element, styles: StyleResolver) -> Numbering:
        """Number ``root``'s subtree (see :class:`Numbering`)."""
        return Numbering(self, styles, root)


_LOCAL = threading.local()


def subtree_memo() -> SubtreeMemo:
    """This thread's memo (layouts of different threads never share one)."""
    memo: SubtreeMemo | None = getattr(_LOCAL, "memo", None)
    if memo is None:
        memo = _LOCAL.memo = SubtreeMemo()
    return memo
