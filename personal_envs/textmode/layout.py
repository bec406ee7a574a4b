"""An approximate CSS layout of the project's own pages, for what the text mode needs to know of geometry.

The browser mode reads three layout facts from Chromium: whether half of an element's box lies in the viewport
(BrowserGym's ``visible`` tag), how far a page scrolls, and which element a point hits (``click_xy``, the phone's
taps and its ``bounds``).  This module computes boxes with the subset of CSS the project's templates use: block
flow, inline flow with word wrapping measured with the fonts' own advance widths (the fonts Chromium uses here:
Liberation and DejaVu), ``inline-block``, flex rows and columns (``flex: 1``, ``gap``, ``flex-wrap``,
``justify-content`` / ``align-items`` for centring), ``grid-template-columns: repeat(n, 1fr)``, tables with
equal columns, floats as left/right-aligned blocks, absolute positioning against the nearest positioned ancestor,
and ``overflow`` clipping for scroll containers.  It is an approximation: differences to Chromium's boxes are what
the parity walk counts (README, "Text mode").
"""

from __future__ import annotations

import re
from array import array
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import chain
from pathlib import Path
from typing import Any, TypeVar

from personal_envs.textmode.css import FONT_SIZE_DECLARED, StyleResolver
from personal_envs.textmode.dom import Document, Element, Node, Text
from personal_envs.textmode.layout_memo import BlockKey, LaidOutBlock, SubtreeMemo, subtree_memo

Box = tuple[float, float, float, float]

_FONT_DIR = Path("/usr/share/fonts/truetype")
_FONTS = {
    ("sans", False): "liberation/LiberationSans-Regular.ttf", ("sans", True): "liberation/LiberationSans-Bold.ttf",
    ("serif", False): "liberation/LiberationSerif-Regular.ttf", ("serif", True): "liberation/LiberationSerif-Bold.ttf",
    ("mono", False): "liberation/LiberationMono-Regular.ttf", ("mono", True): "liberation/LiberationMono-Bold.ttf",
    ("dejavu", False): "dejavu/DejaVuSans.ttf", ("dejavu", True): "dejavu/DejaVuSans-Bold.ttf",
}
_LENGTH = re.compile(r"^(-?[\d.]+)(px|em|rem|%|vh|vw)?$")
_INLINE_DISPLAYS = frozenset({"inline", "inline-block", "inline-flex", "inline-grid", "inline-table"})
_ATOMIC_INLINE = frozenset({"inline-block", "inline-flex", "inline-grid", "inline-table"})
#: One piece of inline content: width, height, the inline elements it lies in, whether it is a breakable space, and
#: the atomic inline element it is (None for text).
_Atom = tuple[float, float, list[Element], bool, Element | None]
#: Text widths a font keeps before it starts over.
_MAX_MEASURED = 100_000
_REPLACED = frozenset({"img", "input", "select", "textarea", "button", "svg", "canvas", "video", "iframe", "meter",
                       "progress"})


@dataclass(frozen=True)
class FontMetrics:
    """Advance widths (in em) and the normal line height (in em) of one font."""

    widths: dict[int, float]
    default: float
    line_height: float
    #: Widths measured before, by (text, size): the words of a site's pages come back again and again.
    measured: dict[tuple[str, float], float] = field(default_factory=dict, compare=False, repr=False)

    def measure(self, text: str, size: float) -> float:
        """Width of ``text`` at ``size`` pixels."""
        key = (text, size)
        found = self.measured.get(key)
        if found is None:
            if len(self.measured) > _MAX_MEASURED:
                self.measured.clear()
            widths, default = self.widths, self.default
            found = self.measured[key] = sum(widths.get(ord(ch), default) for ch in text) * size
        return found


@lru_cache(maxsize=16)
def font_metrics(family: str, bold: bool) -> FontMetrics:
    """Metrics of the font Chromium uses for a family on this machine (a fixed estimate without the file)."""
    path = _FONT_DIR / _FONTS[(family, bold)]
    try:
        from fontTools.ttLib import TTFont

        font = TTFont(str(path), lazy=True)
        upm = float(font["head"].unitsPerEm)
        hmtx = font["hmtx"].metrics
        cmap = font.getBestCmap()
        widths = {code: hmtx[name][0] / upm for code, name in cmap.items() if name in hmtx}
        hhea = font["hhea"]
        line = (hhea.ascent - hhea.descent + hhea.lineGap) / upm
        font.close()
        return FontMetrics(widths, widths.get(ord("n"), 0.55), line)
    except Exception:  # noqa: BLE001 - no font file: an average advance
        return FontMetrics({32: 0.28}, 0.55, 1.15)


def _family(value: str) -> str:
    lowered = value.lower()
    if "mono" in lowered or "courier" in lowered:
        return "mono"
    if "verdana" in lowered or "dejavu sans" in lowered:
        return "dejavu"
    if any(name in lowered for name in ("sans", "helvetica", "arial", "system-ui")):
        return "sans"
    return "serif"


def length(value: str | None, font_size: float, basis: float | None = None) -> float | None:
    """A CSS length in pixels (``%`` of ``basis``); None for ``auto`` or what cannot be read."""
    if value is None:
        return None
    value = value.strip()
    if value in ("0", "0px"):
        return 0.0
    match = _LENGTH.match(value)
    if match is None:
        return None
    number, unit = float(match.group(1)), match.group(2) or "px"
    if unit == "px":
        return number
    if unit in ("em", "rem"):
        return number * (font_size if unit == "em" else 16.0)
    if unit == "%":
        return None if basis is None else number * basis / 100.0
    return number * (8.0 if unit == "vh" else 12.8)


def _four(value: str | None, font_size: float, basis: float) -> tuple[float, float, float, float]:
    """``top right bottom left`` of a margin / padding shorthand."""
    if not value:
        return (0.0, 0.0, 0.0, 0.0)
    parts = [length(p, font_size, basis) or 0.0 for p in value.split()]
    if len(parts) == 1:
        return (parts[0], parts[0], parts[0], parts[0])
    if len(parts) == 2:
        return (parts[0], parts[1], parts[0], parts[1])
    if len(parts) == 3:
        return (parts[0], parts[1], parts[2], parts[1])
    return (parts[0], parts[1], parts[2], parts[3])


@dataclass
class Layout:
    """Boxes of a laid-out document (page coordinates: x, y, width, height)."""

    boxes: dict[int, Box] = field(default_factory=dict)
    order: list[Element] = field(default_factory=list)
    height: float = 0.0
    #: Elements that clip their content (``overflow`` not visible), with their box.
    clips: dict[int, Box] = field(default_factory=dict)

    def viewport_view(self, scroll_y: float) -> Mapping[int, Box]:
        """Boxes relative to the viewport after scrolling the page by ``scroll_y`` (a view: each box is moved when
        it is read)."""
        return ShiftedBoxes(self.boxes, scroll_y) if scroll_y else self.boxes

    def hit(self, x: float, y: float) -> Element | None:
        """The topmost element whose box holds the page point (later in document order wins)."""
        found = None
        for element in self.order:
            box = self.boxes.get(id(element))
            if box is not None and box[0] <= x < box[0] + box[2] and box[1] <= y < box[1] + box[3]:
                found = element
        return found


_Key = TypeVar("_Key")


class ShiftedBoxes(Mapping[_Key, Box]):
    """Boxes seen from a viewport scrolled down by ``scroll_y``: each is moved up when it is read."""

    __slots__ = ("_boxes", "_scroll_y")

    def __init__(self, boxes: Mapping[_Key, Box], scroll_y: float) -> None:
        self._boxes = boxes
        self._scroll_y = scroll_y

    def __getitem__(self, key: _Key) -> Box:
        x, y, w, h = self._boxes[key]
        return (x, y - self._scroll_y, w, h)

    def get(self, key: _Key, default: Any = None) -> Any:
        box = self._boxes.get(key)
        return default if box is None else (box[0], box[1] - self._scroll_y, box[2], box[3])

    def __contains__(self, key: object) -> bool:
        return key in self._boxes

    def __iter__(self) -> Iterator[_Key]:
        return iter(self._boxes)

    def __len__(self) -> int:
        return len(self._boxes)


class _Engine:
    def __init__(self, document: Document, styles: StyleResolver, viewport: tuple[int, int]) -> None:
        self.doc = document
        self.styles = styles
        self.viewport = viewport
        self.layout = Layout()
        self._max_content: dict[int, float] = {}
        self._font_sizes: dict[int, float] = {}
        self._fonts: dict[int, tuple[FontMetrics, float, float]] = {}
        self._edge_cache: dict[tuple[int, float], tuple[tuple[float, ...], tuple[float, ...], tuple[float, ...]]] = {}
        #: Blocks whose top margin collapsed into their parent's (or an earlier sibling's) and is already counted.
        self._collapsed: set[int] = set()
        #: The same blocks in the order they were added (what a laid-out block added, for the memo).
        self._collapse_log: list[int] = []
        self._through: dict[tuple[int, float], float] = {}
        self._flow_children: dict[int, list[Node]] = {}
        #: Elements given a clip, in order (what a laid-out block clipped, for the memo).
        self._clip_log: list[int] = []
        #: Reuse of blocks laid out before (:meth:`reuse`): the memo and the numbering of the document.
        self._memo: SubtreeMemo | None = None
        self._elements: list[Element] = []
        self._position: dict[int, int] = {}
        self._end: dict[int, int] = {}
        self._signature: dict[int, int] = {}
        self._style_ids: dict[int, int] = {}
        self._in_list: set[int] = set()
        self._first_seen: set[int] = set()

    def reuse(self, root: Element, memo: SubtreeMemo) -> None:
        """Reuse the boxes of blocks of ``root``'s subtree that ``memo`` saw laid out before, and keep the new
        ones there."""
        memo.trim()
        self._memo = memo
        numbering = memo.number(root, self.styles)
        self._elements, self._position, self._end = numbering.elements, numbering.position, numbering.end
        self._signature, self._style_ids, self._in_list = numbering.signature, numbering.style, numbering.in_list
        self._first_seen = numbering.first_seen

    # ------------------------------------------------------------------------------------------ style reads
    def font(self, el: Element) -> tuple[FontMetrics, float, float]:
        cached = self._fonts.get(id(el))
        if cached is None:
            cached = self._fonts[id(el)] = self._font(el)
        return cached

    def _font(self, el: Element) -> tuple[FontMetrics, float, float]:
        style = self.styles.style(el)
        size = self.font_size(el)
        weight = style.get("font-weight", "normal")
        bold = weight in ("bold", "bolder") or (weight.isdigit() and int(weight) >= 600)
        metrics = font_metrics(_family(style.get("font-family", "serif")), bold)
        line = style.get("line-height", "normal")
        height = metrics.line_height * size
        if line != "normal":
            height = float(line) * size if re.fullmatch(r"[\d.]+", line) else length(line, size) or height
        return metrics, size, height

    def font_size(self, el: Element) -> float:
        cached = self._font_sizes.get(id(el))
        if cached is None:
            cached = self._font_sizes[id(el)] = self._font_size(el)
        return cached

    def _font_size(self, el: Element) -> float:
        style = self.styles.style(el)
        value = style.get("font-size", "16px")
        parent = el.parent
        parent_size = self.font_size(parent) if isinstance(parent, Element) and not isinstance(parent, Document) \
            else 16.0
        if FONT_SIZE_DECLARED not in style:  # inherited: the parent's computed size, not its relative value again
            return parent_size
        if value == "smaller":
            return parent_size / 1.2
        if value == "larger":
            return parent_size * 1.2
        if value.endswith("em") and not value.endswith("rem"):
            return (length(value, parent_size) or parent_size)
        return length(value, parent_size, parent_size) or parent_size

    def display(self, el: Element) -> str:
        return self.styles.display(el)

    def _edges(self, el: Element, width: float) -> tuple[tuple[float, ...], tuple[float, ...], tuple[float, ...]]:
        key = (id(el), width)
        cached = self._edge_cache.get(key)
        if cached is None:
            style_id = self._style_ids.get(id(el))
            if style_id is None or self._memo is None:
                cached = self._edge_cache[key] = self._compute_edges(el, width)
                return cached
            shared = (style_id, el.tag, self.font_size(el), width, id(el) in self._in_list)
            memo_edges = self._memo.edges
            cached = memo_edges.get(shared)
            if cached is None:
                cached = memo_edges[shared] = self._compute_edges(el, width)
            self._edge_cache[key] = cached
        return cached

    def _compute_edges(self, el: Element, width: float
                       ) -> tuple[tuple[float, ...], tuple[float, ...], tuple[float, ...]]:
        style = self.styles.style(el)
        size = self.font_size(el)
        margin = list(_four(style.get("margin"), size, width))
        padding = list(_four(style.get("padding"), size, width))
        for index, side in enumerate(("top", "right", "bottom", "left")):
            if f"margin-{side}" in style:
                margin[index] = length(style[f"margin-{side}"], size, width) or 0.0
            if f"padding-{side}" in style:
                padding[index] = length(style[f"padding-{side}"], size, width) or 0.0
        border = [0.0, 0.0, 0.0, 0.0]
        for key in ("border", "border-top", "border-right", "border-bottom", "border-left"):
            value = style.get(key)
            if value is None:
                continue
            if value.strip() in ("none", "0"):
                widths = 0.0
            else:
                widths = next((length(part, size) or 0.0 for part in value.split() if _LENGTH.match(part)), 3.0)
            sides = range(4) if key == "border" else [("top", "right", "bottom", "left").index(key[7:])]
            for side_index in sides:
                border[side_index] = widths
        tag = el.tag
        if tag in ("input", "select", "textarea", "button") and "border" not in style:
            border = [2.0, 2.0, 2.0, 2.0] if tag != "select" else [1.0, 1.0, 1.0, 1.0]
        if tag in ("input", "textarea") and "padding" not in style:
            padding = [1.0, 2.0, 1.0, 2.0]
        if tag == "button" and "padding" not in style:
            padding = [1.0, 6.0, 1.0, 6.0]
        if tag in ("ul", "ol", "menu") and "padding" not in style and "padding-left" not in style:
            padding[3] = 40.0
        if tag in ("p", "ul", "ol", "dl", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote", "figure", "fieldset",
                   "form") and "margin" not in style and not any(f"margin-{s}" in style for s in ("top", "bottom")):
            em = {"h1": 0.67, "h2": 0.83, "h3": 1.0, "h4": 1.33}.get(tag, 1.0)
            if tag == "form":
                em = 0.0
            if tag in ("ul", "ol") and el.closest(lambda e: e is not el and e.tag in ("ul", "ol")) is not None:
                em = 0.0
            margin[0] = margin[2] = em * size
            if tag == "fieldset":
                margin = [0.0, 2.0, 0.0, 2.0]
                padding = [5.6, 12.0, 10.0, 12.0] if "padding" not in style else padding
                border = [2.0] * 4 if "border" not in style else border
        if tag == "body" and "margin" not in style:
            margin = [8.0] * 4
        if tag == "dd" and "margin" not in style:
            margin[3] = 40.0
        return tuple(margin), tuple(padding), tuple(border)

    # ------------------------------------------------------------------------------------------ sizes
    def _text_width(self, text: str, el: Element) -> float:
        metrics, size, _ = self.font(el)
        return metrics.measure(" ".join(text.split()), size)

    def max_content(self, el: Element) -> float:
        """The element's width without wrapping (border box)."""
        cached = self._max_content.get(id(el))
        if cached is not None:
            return cached
        shared = self._width_key(el) if self._memo is not None else None
        if shared is not None:
            found = self._memo.max_content.get(shared)  # type: ignore[union-attr]
            if found is not None:
                self._max_content[id(el)] = found
                return found
        style = self.styles.style(el)
        size = self.font_size(el)
        margin, padding, border = self._edges(el, self.viewport[0])
        fixed = length(style.get("width"), size)
        if fixed is not None:
            width = fixed if style.get("box-sizing") == "border-box" or el.tag in ("input", "select", "textarea",
                                                                                     "button") \
                else fixed + padding[1] + padding[3] + border[1] + border[3]
        else:
            inner = self._intrinsic_inner(el)
            width = inner + padding[1] + padding[3] + border[1] + border[3]
        self._max_content[id(el)] = width
        if shared is not None:
            self._memo.max_content[shared] = width  # type: ignore[union-attr]
        return width

    def _width_key(self, el: Element) -> tuple[int, float, bool, int] | None:
        """What the max-content width of ``el`` depends on (None for an element the numbering does not know)."""
        signature = self._signature.get(id(el))
        if signature is None:
            return None
        parent = el.parent
        inside = isinstance(parent, Element) and not isinstance(parent, Document)
        return (signature, self.font_size(parent) if inside else 16.0,  # type: ignore[arg-type]
                id(el) in self._in_list, self.viewport[0])

    def _intrinsic_inner(self, el: Element) -> float:
        tag = el.tag
        if tag == "img":
            return float(_number(el.attrs.get("width")) or 0.0)
        if tag == "input":
            return 0.0 if el.input_type in ("checkbox", "radio") else 149.0
        if tag == "textarea":
            return 181.0
        if tag == "select":
            option = el.selected_option()
            longest = max((self._text_width(o.option_label(), el) for o in el.options), default=0.0)
            return longest + 24.0 if option is not None else 24.0
        display = self.display(el)
        line = 0.0
        best = 0.0
        flex_row = display in ("flex", "inline-flex") and self.styles.style(el).get("flex-direction", "row") \
            .startswith("row")
        total = 0.0
        for child in el.children:
            if isinstance(child, Text):
                line += self._text_width(child.data, el) if child.data.strip() else 0.0
                continue
            if not isinstance(child, Element) or self.display(child) == "none":
                continue
            if self.styles.style(child).get("position") == "absolute":
                continue
            child_display = self.display(child)
            margin, _, _ = self._edges(child, self.viewport[0])
            width = self.max_content(child) + margin[1] + margin[3]
            if flex_row:
                total += width
            elif child_display in _INLINE_DISPLAYS:
                line += width
            else:
                best = max(best, line, width)
                line = 0.0
        if flex_row:
            gap = length(self.styles.style(el).get("gap", "0").split()[-1], self.font_size(el)) or 0.0
            count = sum(1 for c in el.children if isinstance(c, Element) and self.display(c) != "none")
            return total + gap * max(0, count - 1)
        return max(best, line)

    # ------------------------------------------------------------------------------------------ layout
    def place(self, el: Element, box: Box) -> None:
        self.layout.boxes[id(el)] = box
        self.layout.order.append(el)

    def block(self, el: Element, x: float, y: float, width: float, shrink: bool = False,
              container: Box | None = None) -> float:
        """Lay out ``el`` as a block at (x, y) in ``width`` (its margin box); returns its margin-box height.

        A block laid out before with the same subtree, at the same place and in the same context comes from the
        memo (:meth:`reuse`); a new one is kept there once its subtree was seen in an earlier document (the
        subtrees only one page has, such as the page's body, are the largest to keep and never found again).
        (The memo's work is done in helpers that return before the layout recurses, so that a deep document nests
        no deeper than without it.)"""
        key = self._memo_key(el, x, y, width, shrink) if self._memo is not None else None
        if key is not None:
            found = self._memo.blocks.get(key)  # type: ignore[union-attr]
            if found is not None:
                return self._replay(el, found)
            if id(el) in self._first_seen:
                key = None
            else:
                marks = (len(self.layout.order), len(self._collapse_log), len(self._clip_log))
        style = self.styles.style(el)
        size = self.font_size(el)
        margin, padding, border = self._edges(el, width)
        own_width = length(style.get("width"), size, width)
        if shrink and own_width is None:
            own_width = min(self.max_content(el), width - margin[1] - margin[3])
        elif own_width is not None and style.get("box-sizing") != "border-box" and el.tag not in (
                "input", "select", "textarea", "button"):
            own_width += padding[1] + padding[3] + border[1] + border[3]
        if own_width is None:
            own_width = width - margin[1] - margin[3]
        max_width = length(style.get("max-width"), size, width)
        if max_width is not None:
            if style.get("box-sizing") != "border-box":
                max_width += padding[1] + padding[3] + border[1] + border[3]
            own_width = min(own_width, max_width)
        left = x + margin[3]
        if style.get("margin-left") == "auto" or (style.get("margin", "").split()[1:2] == ["auto"]):
            left = x + max(0.0, (width - own_width) / 2)
        through = self._top_through(el, width)
        top_margin = 0.0 if id(el) in self._collapsed else max(margin[0], through)
        if through > 0:
            first = self._first_block_child(el)
            if first is not None:
                self._collapsed.add(id(first))
                self._collapse_log.append(id(first))
        inner_x = left + border[3] + padding[3]
        inner_y = y + top_margin + border[0] + padding[0]
        inner_width = max(0.0, own_width - border[1] - border[3] - padding[1] - padding[3])
        box_top = y + top_margin
        content = self.contents(el, inner_x, inner_y, inner_width)
        height = length(style.get("height"), size, None)
        min_height = length(style.get("min-height"), size, None)
        if height is None:
            height = content + padding[0] + padding[2] + border[0] + border[2]
            if el.tag in ("input", "select", "button") and not el.children:
                height = max(height, self.font(el)[2] + padding[0] + padding[2] + border[0] + border[2])
        elif style.get("box-sizing") != "border-box" and el.tag not in ("input", "select", "textarea", "button"):
            height += padding[0] + padding[2] + border[0] + border[2]
        if min_height is not None:
            height = max(height, min_height)
        self.place(el, (left, box_top, own_width, height))
        if style.get("overflow", style.get("overflow-y", "visible")) in ("hidden", "auto", "scroll") or \
                style.get("overflow-y") in ("hidden", "auto", "scroll"):
            self.layout.clips[id(el)] = (left, box_top, own_width, height)
            self._clip_log.append(id(el))
        self._absolutes(el, (left, box_top, own_width, height))
        height = height + top_margin + margin[2]  # in this order: the same float as before
        if key is not None:
            self._keep(el, key, marks, height)
        return height

    def _memo_key(self, el: Element, x: float, y: float, width: float, shrink: bool) -> BlockKey | None:
        """What the layout of block ``el`` depends on (None for an element the numbering does not know)."""
        signature = self._signature.get(id(el))
        if signature is None:
            return None
        parent = el.parent
        inside = isinstance(parent, Element) and not isinstance(parent, Document)
        return (signature, x, y, width, shrink, id(el) in self._collapsed,
                self.font_size(parent) if inside else 16.0,  # type: ignore[arg-type]
                self.display(parent) if inside else "", id(el) in self._in_list, self.viewport)  # type: ignore[arg-type]

    def _replay(self, el: Element, found: LaidOutBlock) -> float:
        """Place the boxes of a block taken from the memo; returns its margin-box height."""
        assert self._memo is not None
        self._memo.hits += 1
        base = self._position[id(el)]
        elements = self._elements
        found_height, found_offsets, found_coordinates, found_clips, found_collapsed = found
        again = [elements[base + offset] for offset in found_offsets]
        self.layout.order.extend(again)
        numbers = iter(found_coordinates)
        self.layout.boxes.update(zip(map(id, again), zip(numbers, numbers, numbers, numbers, strict=True),
                                     strict=True))
        for offset, box in found_clips:
            self.layout.clips[id(elements[base + offset])] = box
            self._clip_log.append(id(elements[base + offset]))
        for offset in found_collapsed:
            self._collapsed.add(id(elements[base + offset]))
            self._collapse_log.append(id(elements[base + offset]))
        return found_height

    def _keep(self, el: Element, key: BlockKey, marks: tuple[int, int, int], height: float) -> None:
        """Keep what laying out block ``el`` placed (since ``marks``: lengths of the order, the collapse log and
        the clip log before it) in the memo, unless it placed something outside its subtree."""
        assert self._memo is not None
        start, logged, clipped_from = marks
        base, stop = self._position[id(el)], self._end[id(el)]
        position_of = self._position.get
        placed = [id(element) for element in self.layout.order[start:]]
        positions = [position_of(key_id, -1) for key_id in placed]
        collapsed = [position_of(key_id, -1) for key_id in self._collapse_log[logged:]]
        if (positions and (min(positions) < base or max(positions) >= stop)) or \
                (collapsed and (min(collapsed) < base or max(collapsed) >= stop)):
            return
        clips = self.layout.clips
        clipped = tuple((position_of(key_id, -1) - base, clips[key_id]) for key_id in self._clip_log[clipped_from:]
                        if key_id in clips)
        self._memo.keep(key, (height, array("l", [position - base for position in positions]),
                              array("d", chain.from_iterable(map(self.layout.boxes.__getitem__, placed))), clipped,
                              tuple(position - base for position in collapsed)))


    def _first_block_child(self, el: Element) -> Element | None:
        """The first in-flow child when it is a block (no text or inline content before it)."""
        for child in self._in_flow(el):
            if isinstance(child, Text):
                if child.data.strip():
                    return None
                continue
            if not isinstance(child, Element) or self.display(child) in _INLINE_DISPLAYS or \
                    self.styles.style(child).get("float") is not None:
                return None
            return child
        return None

    def _top_through(self, el: Element, width: float) -> float:
        """The top margin of ``el``'s first block child that collapses through ``el``'s top edge (0 if none)."""
        key = (id(el), width)
        found = self._through.get(key)
        if found is None:
            child = self._collapsing_child(el, width)
            found = self._through[key] = self._collapsed_top(child, width) if child is not None else 0.0
        return found

    def _collapsing_child(self, el: Element, width: float) -> Element | None:
        """``el``'s first block child when its top margin can collapse through ``el``'s top edge."""
        if self.display(el) not in ("block", "list-item") or el.tag in ("input", "select", "textarea", "button",
                                                                        "img", "fieldset", "html"):
            return None
        style = self.styles.style(el)
        if style.get("overflow", "visible") != "visible" or style.get("overflow-y", "visible") != "visible" or \
                style.get("float") is not None or style.get("position") in ("absolute", "fixed"):
            return None  # a new block formatting context keeps its children's margins inside
        parent = el.parent
        if isinstance(parent, Element) and not isinstance(parent, Document) and self.display(parent) in (
                "flex", "inline-flex", "grid", "inline-grid"):
            return None  # so does a flex or grid item
        _, padding, border = self._edges(el, width)
        if padding[0] or border[0]:
            return None
        return self._first_block_child(el)

    def _collapsed_top(self, el: Element, width: float) -> float:
        """The top margin of ``el`` after collapsing with its first block child's."""
        return max(self._edges(el, width)[0][0], self._top_through(el, width))

    def contents(self, el: Element, x: float, y: float, width: float) -> float:
        """Lay out the children of ``el`` in its content box; returns the content height."""
        tag = el.tag
        if tag in ("input", "select", "img", "svg", "canvas", "video", "iframe", "meter", "progress"):
            if tag == "img":
                return float(_number(el.attrs.get("height")) or 0.0)
            if tag == "input" and el.input_type in ("checkbox", "radio"):
                return 13.0
            return self.font(el)[2] if tag != "select" else self.font(el)[2] + 2
        if tag == "textarea":
            return self.font(el)[2] * 2
        display = self.display(el)
        if display in ("flex", "inline-flex"):
            return self.flex(el, x, y, width)
        if display in ("grid", "inline-grid"):
            return self.grid(el, x, y, width)
        if display in ("table", "inline-table"):
            return self.table(el, x, y, width)
        return self.flow(el, x, y, width)

    def _in_flow(self, el: Element) -> list[Node]:
        """The children of ``el`` in its flow (no head content, nothing undisplayed or out of flow)."""
        found = self._flow_children.get(id(el))
        if found is None:
            found = self._flow_children[id(el)] = self._compute_in_flow(el)
        return found

    def _compute_in_flow(self, el: Element) -> list[Node]:
        out: list[Node] = []
        for child in el.children:
            if isinstance(child, Element):
                if child.tag in ("script", "style", "head", "title", "meta"):
                    continue
                if self.display(child) == "none":
                    continue
                if self.styles.style(child).get("position") in ("absolute", "fixed"):
                    continue
            out.append(child)
        return out

    def flow(self, el: Element, x: float, y: float, width: float) -> float:
        cursor = y
        run: list[Node] = []
        previous_bottom = 0.0  # the bottom margin of the block just above (adjoining margins collapse)
        for child in self._in_flow(el):
            if isinstance(child, Text) or (isinstance(child, Element) and (
                    self.display(child) in _INLINE_DISPLAYS) and self.styles.style(child).get("float") is None):
                run.append(child)
                continue
            if run:
                line_height = self.inline(el, run, x, cursor, width)
                cursor += line_height
                if line_height:
                    previous_bottom = 0.0
                run = []
            assert isinstance(child, Element)
            floated = self.styles.style(child).get("float")
            if floated in ("left", "right"):
                child_width = min(self.max_content(child), width)
                max_width = length(self.styles.style(child).get("max-width"), self.font_size(child), width)
                if max_width is not None:
                    child_width = min(child_width, max_width)
                left = x if floated == "left" else x + width - child_width
                cursor += self.block(child, left, cursor, child_width, shrink=True)
                continue
            top = self._collapsed_top(child, width) if id(child) not in self._collapsed else 0.0
            if previous_bottom > 0 and top > 0:
                cursor -= min(previous_bottom, top)
            cursor += self.block(child, x, cursor, width)
            previous_bottom = self._edges(child, width)[0][2]
        if run:
            cursor += self.inline(el, run, x, cursor, width)
        return cursor - y

    def inline(self, parent: Element, run: list[Node], x: float, y: float, width: float) -> float:
        """Flow inline content; returns the height of its lines (0 for whitespace only)."""
        atoms: list[_Atom] = []  # (width, height, owners, breakable space, atomic inline element)
        self._atoms(parent, run, [], atoms)
        if not any(a[0] > 0 or a[1] > 0 for a in atoms if not a[3]):
            return 0.0
        nowrap = self.styles.style(parent).get("white-space") in ("nowrap", "pre")
        _, _, line_height = self.font(parent)
        text_align = self.styles.style(parent).get("text-align", "start")
        cursor_x, line_top, line_h = 0.0, y, line_height
        extents: dict[int, list[float]] = {}
        owners_by_id: dict[int, Element] = {}
        line_items: list[tuple[float, float, list[Element], Element | None]] = []

        def finish_line() -> None:
            shift = 0.0
            if text_align == "center":
                shift = max(0.0, (width - cursor_x) / 2)
            elif text_align == "right":
                shift = max(0.0, width - cursor_x)
            for start, atom_width, owners, atomic in line_items:
                if atomic is not None:
                    self.block(atomic, x + shift + start, line_top, atom_width, shrink=True)
                for owner in owners:
                    ext = extents.setdefault(id(owner), [1e12, 1e12, -1e12, -1e12])
                    owners_by_id[id(owner)] = owner
                    ext[0] = min(ext[0], x + shift + start)
                    ext[1] = min(ext[1], line_top)
                    ext[2] = max(ext[2], x + shift + start + atom_width)
                    ext[3] = max(ext[3], line_top + line_h)
            line_items.clear()

        for atom_width, atom_height, owners, space, atomic in atoms:
            if space:
                if cursor_x > 0:
                    cursor_x += atom_width
                continue
            if not nowrap and cursor_x > 0 and cursor_x + atom_width > width + 0.01:
                finish_line()
                line_top += line_h
                cursor_x, line_h = 0.0, line_height
            line_items.append((cursor_x, atom_width, owners, atomic))
            cursor_x += atom_width
            line_h = max(line_h, atom_height)
        finish_line()
        total = line_top + line_h - y
        for key, ext in extents.items():
            owner = owners_by_id[key]
            if key not in self.layout.boxes:
                self.place(owner, (ext[0], ext[1], max(0.0, ext[2] - ext[0]), max(0.0, ext[3] - ext[1])))
        return total

    def _atoms(self, parent: Element, run: list[Node], owners: list[Element], atoms: list[_Atom]) -> None:
        for node in run:
            if isinstance(node, Text):
                metrics, size, line_height = self.font(parent)
                data = node.data
                if not data:
                    continue
                words = data.split()
                if data[:1].isspace():
                    atoms.append((metrics.measure(" ", size), 0.0, owners, True, None))
                for index, word in enumerate(words):
                    atoms.append((metrics.measure(word, size), line_height, owners, False, None))
                    if index < len(words) - 1 or data[-1:].isspace():
                        atoms.append((metrics.measure(" ", size), 0.0, owners, True, None))
                continue
            assert isinstance(node, Element)
            display = self.display(node)
            if node.tag == "br":
                atoms.append((1e9, 0.0, owners, False, None))
                continue
            if display in _ATOMIC_INLINE or node.tag in _REPLACED:
                margin, _, _ = self._edges(node, self.viewport[0])
                atom_width = self.max_content(node)
                # measured at the origin, then laid out again where its line puts it
                start = len(self.layout.order)
                height = self.block(node, 0.0, 0.0, atom_width + margin[1] + margin[3], shrink=True)
                for element in self.layout.order[start:]:
                    del self.layout.boxes[id(element)]
                    self.layout.clips.pop(id(element), None)
                del self.layout.order[start:]
                atoms.append((atom_width + margin[1] + margin[3], height, owners, False, node))
                continue
            self._atoms(node, self._in_flow(node), [*owners, node], atoms)

    def flex(self, el: Element, x: float, y: float, width: float) -> float:
        style = self.styles.style(el)
        size = self.font_size(el)
        children = [c for c in self._in_flow(el) if isinstance(c, Element) or (isinstance(c, Text) and c.data.strip())]
        gaps = style.get("gap", "0").split()
        row_gap = length(gaps[0], size) or 0.0
        column_gap = length(gaps[-1], size) or 0.0
        direction = style.get("flex-direction", "row")
        if direction.startswith("column"):
            cursor = y
            for child in children:
                if isinstance(child, Element):
                    cursor += self.block(child, x, cursor, width,
                                         shrink=style.get("align-items") in ("center", "flex-start", "start"))
                    cursor += row_gap
            return max(0.0, cursor - y - (row_gap if children else 0.0))
        wrap = style.get("flex-wrap") == "wrap"
        items: list[tuple[Element, float, float]] = []  # element, basis, grow
        for child in children:
            if not isinstance(child, Element):
                continue
            child_style = self.styles.style(child)
            grow = 0.0
            flex = child_style.get("flex", "")
            if flex and flex.split()[0] not in ("none", "auto"):
                grow = _number(flex.split()[0]) or 0.0
            elif flex == "auto":
                grow = 1.0
            margin, _, _ = self._edges(child, width)
            basis = self.max_content(child) + margin[1] + margin[3]
            if grow and flex and len(flex.split()) < 3:
                basis = margin[1] + margin[3]
            items.append((child, basis, grow))
        lines: list[list[tuple[Element, float, float]]] = [[]]
        used = 0.0
        for item in items:
            if wrap and lines[-1] and used + column_gap + item[1] > width:
                lines.append([])
                used = 0.0
            used += item[1] + (column_gap if lines[-1] else 0.0)
            lines[-1].append(item)
        cursor_y = y
        justify = style.get("justify-content", "")
        align = style.get("align-items", "")
        for line in lines:
            total = sum(b for _, b, _ in line) + column_gap * max(0, len(line) - 1)
            free = width - total
            grow_sum = sum(g for _, _, g in line)
            cursor_x = x
            spacing = column_gap
            if grow_sum <= 0 and free > 0:
                if justify == "center":
                    cursor_x += free / 2
                elif justify in ("flex-end", "end"):
                    cursor_x += free
                elif justify == "space-between" and len(line) > 1:
                    spacing += free / (len(line) - 1)
                elif justify == "space-around" and line:
                    cursor_x += free / len(line) / 2
                    spacing += free / len(line)
            heights = []
            starts = []
            for child, basis, grow in line:
                item_width = basis + (free * grow / grow_sum if grow_sum > 0 and free > 0 else 0.0)
                if grow_sum <= 0 and free < 0 and len(line) > 0:
                    item_width = max(0.0, basis + free * basis / max(1.0, total))
                start = len(self.layout.order)
                heights.append(self.block(child, cursor_x, cursor_y, item_width, shrink=grow == 0))
                starts.append(start)
                cursor_x += item_width + spacing
            line_height = max(heights, default=0.0)
            own = length(style.get("height"), size, None)
            if own is not None and len(lines) == 1:
                line_height = max(line_height, own)
            min_height = length(style.get("min-height"), size, None)
            if min_height is not None and len(lines) == 1:
                margin, padding, border = self._edges(el, width)
                line_height = max(line_height, min_height - padding[0] - padding[2] - border[0] - border[2])
            for height, start in zip(heights, starts, strict=True):
                offset = 0.0
                if align == "center":
                    offset = (line_height - height) / 2
                elif align in ("flex-end", "end"):
                    offset = line_height - height
                if offset:
                    self._shift(start, 0.0, offset)
            cursor_y += line_height + row_gap
        return max(0.0, cursor_y - y - row_gap)

    def grid(self, el: Element, x: float, y: float, width: float) -> float:
        style = self.styles.style(el)
        size = self.font_size(el)
        template = style.get("grid-template-columns", "")
        match = re.search(r"repeat\(\s*(\d+)", template)
        columns = int(match.group(1)) if match else max(1, len(template.split()) or 1)
        gaps = style.get("gap", "0").split()
        row_gap = length(gaps[0], size) or 0.0
        column_gap = length(gaps[-1], size) or 0.0
        cell = (width - column_gap * (columns - 1)) / columns
        children = [c for c in self._in_flow(el) if isinstance(c, Element)]
        cursor_y = y
        for row_start in range(0, len(children), columns):
            heights = []
            for column, child in enumerate(children[row_start:row_start + columns]):
                heights.append(self.block(child, x + column * (cell + column_gap), cursor_y, cell))
            cursor_y += max(heights, default=0.0) + row_gap
        return max(0.0, cursor_y - y - (row_gap if children else 0.0))

    def table(self, el: Element, x: float, y: float, width: float) -> float:
        rows = [r for r in el.iter() if r.tag == "tr" and r.closest(lambda e: e.tag == "table") is el]
        cursor_y = y
        columns = max((len([c for c in r.element_children if c.tag in ("td", "th")]) for r in rows), default=1)
        own = length(self.styles.style(el).get("width"), self.font_size(el), width)
        table_width = own if own is not None else min(width, sum(
            max((self.max_content(c[i]) if i < len(c) else 0.0) for c in
                [[d for d in r.element_children if d.tag in ("td", "th")] for r in rows]) for i in range(columns)))
        cell_width = table_width / max(1, columns)
        for row in rows:
            cells = [c for c in row.element_children if c.tag in ("td", "th")]
            heights = [self.block(cell, x + i * cell_width, cursor_y, cell_width) for i, cell in enumerate(cells)]
            height = max(heights, default=0.0)
            self.place(row, (x, cursor_y, table_width, height))
            cursor_y += height
        for group in el.element_children:
            if group.tag in ("thead", "tbody", "tfoot"):
                group_rows = [self.layout.boxes[id(r)] for r in group.element_children if id(r) in
                              self.layout.boxes]
                if group_rows:
                    top = group_rows[0][1]
                    self.place(group, (x, top, table_width, group_rows[-1][1] + group_rows[-1][3] - top))
        return cursor_y - y

    def _absolutes(self, el: Element, box: Box) -> None:
        """Children of ``el`` positioned absolutely against it (or its nearest positioned ancestor)."""
        for child in el.element_children:
            style = self.styles.style(child)
            if style.get("position") not in ("absolute", "fixed") or self.display(child) == "none":
                continue
            anchor = box
            if style.get("position") == "fixed":
                anchor = (0.0, 0.0, float(self.viewport[0]), float(self.viewport[1]))
            size = self.font_size(child)
            inset = style.get("inset")
            top = length(style.get("top", inset), size, anchor[3])
            bottom = length(style.get("bottom", inset), size, anchor[3])
            left = length(style.get("left", inset), size, anchor[2])
            right = length(style.get("right", inset), size, anchor[2])
            own_width = length(style.get("width"), size, anchor[2])
            if own_width is None:
                own_width = anchor[2] - (left or 0.0) - (right or 0.0) if left is not None and right is not None \
                    else min(self.max_content(child), anchor[2])
            start_x = anchor[0] + left if left is not None else \
                anchor[0] + anchor[2] - (right or 0.0) - own_width if right is not None else anchor[0]
            own_height = length(style.get("height"), size, anchor[3])
            start = len(self.layout.order)
            height = self.block(child, start_x, 0.0, own_width, shrink=False)
            if top is not None and bottom is not None and own_height is None:
                target = anchor[3] - top - bottom
                self._stretch(child, target)
                height = target
            elif own_height is not None:
                height = own_height
            start_y = anchor[1] + top if top is not None else \
                anchor[1] + anchor[3] - (bottom or 0.0) - height if bottom is not None else anchor[1]
            self._shift(start, 0.0, start_y)

    def _stretch(self, el: Element, height: float) -> None:
        x, y, w, _ = self.layout.boxes[id(el)]
        self.layout.boxes[id(el)] = (x, y, w, height)
        if id(el) in self.layout.clips:
            self.layout.clips[id(el)] = (x, y, w, height)
        style = self.styles.style(el)
        if self.display(el) == "flex" and not style.get("flex-direction", "row").startswith("column") and \
                style.get("align-items") == "center":  # a stretched overlay centres its content vertically
            for child in el.element_children:
                if id(child) not in self.layout.boxes:
                    continue
                child_y, child_height = self.layout.boxes[id(child)][1], self.layout.boxes[id(child)][3]
                offset = y + (height - child_height) / 2 - child_y
                if offset:
                    self._shift(0, 0.0, offset, only_descendants_of=child)
        # a flex column with a growing child (an app's scroll area) gives it the height left over
        if self.display(el) == "flex" and style.get("flex-direction", "row").startswith("column"):
            kids = [c for c in el.element_children if id(c) in self.layout.boxes]
            grow = [c for c in kids if (self.styles.style(c).get("flex", "").split() or ["0"])[0] not in
                    ("0", "none")]
            used = sum(self.layout.boxes[id(c)][3] for c in kids)
            free = height - used
            if grow and free > 0:
                shift = 0.0
                for child in kids:
                    if shift:
                        index = self.layout.order.index(child)
                        self._shift(index, 0.0, shift, only_descendants_of=child)
                    if child is grow[0]:
                        cx, cy, cw, ch = self.layout.boxes[id(child)]
                        self.layout.boxes[id(child)] = (cx, cy, cw, ch + free)
                        if id(child) in self.layout.clips:
                            self.layout.clips[id(child)] = (cx, cy, cw, ch + free)
                        shift = free

    def _shift(self, start: int, dx: float, dy: float, only_descendants_of: Element | None = None) -> None:
        for element in self.layout.order[start:]:
            if only_descendants_of is not None and not only_descendants_of.contains(element):
                continue
            x, y, w, h = self.layout.boxes[id(element)]
            self.layout.boxes[id(element)] = (x + dx, y + dy, w, h)
            if id(element) in self.layout.clips:
                cx, cy, cw, ch = self.layout.clips[id(element)]
                self.layout.clips[id(element)] = (cx + dx, cy + dy, cw, ch)


def _number(text: str | None) -> float | None:
    try:
        return float(str(text).strip().rstrip("px"))
    except (TypeError, ValueError):
        return None


def same_text_widths(document: Document, styles: StyleResolver, viewport: tuple[int, int],
                     changes: list[tuple[Text, str]]) -> bool:
    """True when replacing each run's text by the new one leaves every box where it is: the same words, each as
    wide as before in its element's font, the same spaces at both ends, and no run inside a ``<select>`` (whose
    width is its longest option)."""
    engine = _Engine(document, styles, viewport)
    for run, text in changes:
        parent = run.parent
        if parent is None or parent.closest(lambda e: e.tag in ("select", "option", "optgroup")) is not None:
            return False
        old, new = run.data, text
        if old[:1].isspace() != new[:1].isspace() or old[-1:].isspace() != new[-1:].isspace():
            return False
        old_words, new_words = old.split(), new.split()
        if len(old_words) != len(new_words):
            return False
        metrics, size, _ = engine.font(parent)
        for before, after in zip(old_words, new_words, strict=True):
            if before != after and metrics.measure(before, size) != metrics.measure(after, size):
                return False
    return True


def layout_document(document: Document, styles: StyleResolver, viewport: tuple[int, int],
                    root: Element | None = None, *, memo: SubtreeMemo | None = None, reuse: bool = True) -> Layout:
    """Boxes of every rendered element of ``document`` (or of ``root`` as the initial containing block).

    With ``reuse`` (the default), blocks laid out before at the same place, with the same content and context, are
    taken from ``memo`` (this thread's :func:`~personal_envs.textmode.layout_memo.subtree_memo` when None) with
    the same boxes, and the new ones are kept there."""
    engine = _Engine(document, styles, viewport)
    html = root or document.html
    if html is None:
        return engine.layout
    if reuse:
        engine.reuse(html, memo if memo is not None else subtree_memo())
    height = engine.block(html, 0.0, 0.0, float(viewport[0]))
    engine.layout.height = max(height, float(viewport[1]))
    return engine.layout
