"""Layout to Chromium's pixel for pages with a fixed viewport (the phone's screens), without a browser.

Where :mod:`personal_envs.textmode.layout` estimates boxes (enough for BrowserGym's ``visible`` tag),
this engine follows Blink's rules closely enough that element boxes agree with ``getBoundingClientRect`` to the
layout unit (1/64 px) on the phone simulator's screens, whose hierarchy dump publishes every element's bounds:

* text measured as Chromium measures it (:mod:`personal_envs.textmode.fonts`: advances, kerning, fallback fonts,
  fragments rounded up to the layout unit), line boxes from rounded font metrics with half-leading (the floor
  above the baseline), ``line-height`` numbers floored to the layout unit, baseline alignment of inline-blocks
  (an inline-block's last line, a text field's inner line, a textarea's bottom edge);
* block flow with margin collapsing (siblings, first / last children without padding or border, empty blocks),
  floats placed with ``clear``, whitespace collapsing and greedy line breaking (``normal``, ``nowrap``,
  ``pre-wrap``; CJK characters break anywhere);
* flex rows and columns (base sizes from ``flex`` / ``flex-basis`` / content, ``min-width: auto``, growing and
  shrinking with frozen items, wrapping, ``gap``, ``justify-content``, ``align-items`` with stretch), grids of
  ``repeat(n, 1fr)`` columns, absolute positioning against the nearest positioned ancestor, ``box-sizing``;
* scroll containers (``overflow: auto | scroll``): their scrollable height, and offsets applied when boxes are
  placed;
* paint order (stacking contexts by ``z-index``, positioned boxes above the flow) for hit testing.

It covers the CSS the phone's stylesheet uses; what it does not model (vertical writing, tables, transforms,
``vertical-align`` other than ``baseline``, floats beside each other) is laid out as the closest supported case.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from personal_envs.textmode.css import StyleResolver
from personal_envs.textmode.dom import Document, Element, Node, Text
from personal_envs.textmode.fonts import Measurer, ceil_unit, family_kind, line_metrics, measurer

Rect = tuple[float, float, float, float]

_NUMBER = re.compile(r"^(-?[\d.]+)(px|em|rem|%)?$")
_SPACES = " \t\n\r\f"
_BLOCKISH = frozenset({"block", "flex", "grid", "list-item", "table", "flow-root"})
_ATOMIC = frozenset({"inline-block", "inline-flex", "inline-grid", "inline-table"})
_FIELDS = frozenset({"input", "textarea"})
_SKIP = frozenset({"head", "script", "style", "title", "meta", "link"})


def snap(value: float) -> float:
    """``value`` on the layout unit grid (1/64 px, nearest)."""
    return round(value * 64.0) / 64.0


def floor_unit(value: float) -> float:
    """``value`` floored to the layout unit."""
    return math.floor(value * 64.0 + 1e-6) / 64.0


def _is_cjk(char: str) -> bool:
    code = ord(char)
    return 0x2E80 <= code <= 0x9FFF or 0xAC00 <= code <= 0xD7AF or 0xF900 <= code <= 0xFAFF or \
        0xFF00 <= code <= 0xFFEF or 0x3000 <= code <= 0x303F


# ------------------------------------------------------------------------------------------------ styles
@dataclass(slots=True)
class Computed:
    """The properties the engine reads, parsed (lengths that depend on the containing block stay raw)."""

    display: str
    position: str
    floating: str
    clear: str
    border_box: bool
    width: str | None
    height: str | None
    min_width: str | None
    min_height: str | None
    max_width: str | None
    max_height: str | None
    margin: tuple[float | None, float | None, float | None, float | None]
    padding: tuple[float, float, float, float]
    border: tuple[float, float, float, float]
    font_size: float
    kind: str
    bold: bool
    line_height: float | None
    white_space: str
    text_align: str
    overflow_x: str
    overflow_y: str
    grow: float
    shrink: float
    basis: str
    direction: str
    wrap: bool
    justify: str
    align_items: str
    align_self: str
    row_gap: float
    column_gap: float
    grid_columns: str
    z_index: int | None
    inset: tuple[str | None, str | None, str | None, str | None]
    radius: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 0.0)

    @property
    def scroller(self) -> bool:
        """A scroll container (``overflow`` auto or scroll on some axis)."""
        return self.overflow_y in ("auto", "scroll") or self.overflow_x in ("auto", "scroll")

    @property
    def clips(self) -> bool:
        """The box clips its content (``overflow`` other than visible)."""
        return self.overflow_x != "visible" or self.overflow_y != "visible"

    @property
    def positioned(self) -> bool:
        return self.position != "static"

    @property
    def out_of_flow(self) -> bool:
        return self.position in ("absolute", "fixed")

    @property
    def font(self) -> Measurer:
        return measurer(self.kind, self.bold)


def _length(value: str | None, font_size: float, basis: float | None = None) -> float | None:
    """A length in px (``%`` of ``basis``); None for ``auto``, ``none`` or what cannot be read."""
    if value is None:
        return None
    value = value.strip()
    if value in ("0", "0px"):
        return 0.0
    match = _NUMBER.match(value)
    if match is None:
        return None
    number, unit = float(match.group(1)), match.group(2) or "px"
    if unit == "px":
        return number
    if unit == "em":
        return number * font_size
    if unit == "rem":
        return number * 16.0
    return None if basis is None else floor_unit(number * basis / 100.0)


def _sides(value: str | None, font_size: float, allow_auto: bool = False) -> list[float | None]:
    if not value:
        return [0.0, 0.0, 0.0, 0.0]
    parts: list[float | None] = []
    for part in value.split():
        if allow_auto and part == "auto":
            parts.append(None)
        else:
            parts.append(_length(part, font_size) or 0.0)
    if len(parts) == 1:
        return parts * 4
    if len(parts) == 2:
        return [parts[0], parts[1], parts[0], parts[1]]
    if len(parts) == 3:
        return [parts[0], parts[1], parts[2], parts[1]]
    return parts[:4]


def _border_width(value: str, font_size: float) -> float:
    words = value.split()
    if not words or words[0] in ("none", "hidden") or "none" in words:
        return 0.0
    for word in words:
        width = _length(word, font_size)
        if width is not None and _NUMBER.match(word):
            return width
        if word in ("thin", "medium", "thick"):
            return {"thin": 1.0, "medium": 3.0, "thick": 5.0}[word]
    return 3.0


_UA_FIELD_PADDING = {"input": [1.0, 2.0, 1.0, 2.0], "textarea": [2.0, 2.0, 2.0, 2.0]}


def compute(style: dict[str, str], element: Element, parent: Computed | None) -> Computed:
    """Parse the cascade's values of ``element`` (``parent``: its parent's parsed style)."""
    parent_size = parent.font_size if parent is not None else 16.0
    raw_size = style.get("font-size", "16px")
    if raw_size.endswith("%"):
        size = parent_size * float(raw_size[:-1]) / 100.0
    elif raw_size in ("smaller", "larger"):
        size = parent_size / 1.2 if raw_size == "smaller" else parent_size * 1.2
    else:
        size = _length(raw_size, parent_size) or parent_size
    weight = style.get("font-weight", "normal")
    bold = weight in ("bold", "bolder") or (weight.isdigit() and int(weight) >= 600)
    kind = family_kind(style.get("font-family", "serif"))
    line = style.get("line-height", "normal")
    line_height: float | None = None
    if line != "normal":
        if re.fullmatch(r"[\d.]+", line):
            line_height = floor_unit(float(line) * size)
        elif line.endswith("%"):
            line_height = float(math.floor(float(line[:-1]) * size / 100.0))
        else:
            line_height = _length(line, size)
    margin = _sides(style.get("margin"), size, allow_auto=True)
    padding = _sides(style.get("padding"), size)
    border = [0.0, 0.0, 0.0, 0.0]
    tag = element.tag
    if tag in _FIELDS:
        border = [2.0, 2.0, 2.0, 2.0] if tag == "input" else [1.0, 1.0, 1.0, 1.0]
        if "padding" not in style:
            padding = list(_UA_FIELD_PADDING[tag])
    for index, side in enumerate(("top", "right", "bottom", "left")):
        if f"margin-{side}" in style:
            margin[index] = None if style[f"margin-{side}"] == "auto" else _length(style[f"margin-{side}"], size) or 0.0
        if f"padding-{side}" in style:
            padding[index] = _length(style[f"padding-{side}"], size) or 0.0
    if "border" in style:
        border = [_border_width(style["border"], size)] * 4
    for index, side in enumerate(("top", "right", "bottom", "left")):
        if f"border-{side}" in style:
            border[index] = _border_width(style[f"border-{side}"], size)
        if f"border-{side}-width" in style:
            border[index] = _length(style[f"border-{side}-width"], size) or 0.0
    if tag in ("p", "h1", "h2", "h3", "h4", "h5", "h6") and "margin" not in style and \
            "margin-top" not in style and "margin-bottom" not in style:
        em = {"h1": 0.67, "h2": 0.83, "h3": 1.0, "h4": 1.33, "h5": 1.67, "h6": 2.33}.get(tag, 1.0)
        margin[0] = margin[2] = floor_unit(em * size)
    grow, shrink, basis = 0.0, 1.0, "auto"
    flex = style.get("flex")
    if flex:
        words = flex.split()
        if words == ["none"]:
            grow, shrink, basis = 0.0, 0.0, "auto"
        elif words == ["auto"]:
            grow, shrink, basis = 1.0, 1.0, "auto"
        elif words and _is_number(words[0]):
            grow = float(words[0])
            shrink = float(words[1]) if len(words) > 1 and _is_number(words[1]) else 1.0
            basis = words[-1] if len(words) > 1 and not _is_number(words[-1]) else "0%"
            if len(words) == 3:
                basis = words[2]
        else:
            basis = words[0]
    grow = float(style.get("flex-grow", grow))
    shrink = float(style.get("flex-shrink", shrink))
    basis = style.get("flex-basis", basis)
    gaps = style.get("gap", "normal").split()
    row_gap = _length(gaps[0], size) or 0.0 if gaps and gaps[0] != "normal" else 0.0
    column_gap = _length(gaps[-1], size) or 0.0 if gaps and gaps[-1] != "normal" else 0.0
    if "row-gap" in style:
        row_gap = _length(style["row-gap"], size) or 0.0
    if "column-gap" in style:
        column_gap = _length(style["column-gap"], size) or 0.0
    overflow = style.get("overflow", "visible").split()
    overflow_x = style.get("overflow-x", overflow[0] if overflow else "visible")
    overflow_y = style.get("overflow-y", overflow[-1] if overflow else "visible")
    if overflow_x == "visible" and overflow_y != "visible":
        overflow_x = "auto" if overflow_y in ("auto", "scroll") else overflow_y
    if overflow_y == "visible" and overflow_x != "visible":
        overflow_y = "auto" if overflow_x in ("auto", "scroll") else overflow_x
    inset = style.get("inset")
    z_index = style.get("z-index")
    display = style.get("display", "inline")
    position = style.get("position", "static")
    floated = style.get("float", "none")
    if tag in _FIELDS and display == "inline":
        display = "inline-block"
    return Computed(
        display=display, position=position, floating=floated, clear=style.get("clear", "none"),
        border_box=style.get("box-sizing") == "border-box",
        width=style.get("width"), height=style.get("height"), min_width=style.get("min-width"),
        min_height=style.get("min-height"), max_width=style.get("max-width"), max_height=style.get("max-height"),
        margin=(margin[0], margin[1], margin[2], margin[3]),
        padding=(float(padding[0] or 0.0), float(padding[1] or 0.0), float(padding[2] or 0.0),
                 float(padding[3] or 0.0)),
        border=(border[0], border[1], border[2], border[3]),
        font_size=size, kind=kind, bold=bold, line_height=line_height,
        white_space=style.get("white-space", "normal"), text_align=style.get("text-align", "start"),
        overflow_x=overflow_x, overflow_y=overflow_y, grow=grow, shrink=shrink, basis=basis,
        direction=style.get("flex-direction", "row"), wrap=style.get("flex-wrap", "nowrap") == "wrap",
        justify=style.get("justify-content", "normal"), align_items=style.get("align-items", "normal"),
        align_self=style.get("align-self", "auto"), row_gap=row_gap, column_gap=column_gap,
        grid_columns=style.get("grid-template-columns", "none"),
        z_index=int(z_index) if z_index and z_index.lstrip("-").isdigit() else None,
        inset=(style.get("top", inset), style.get("right", inset), style.get("bottom", inset),
               style.get("left", inset)),
        radius=_radii(style.get("border-radius"), size),
    )


def _radii(value: str | None, font_size: float) -> tuple[float, float, float, float]:
    """Corner radii (top-left, top-right, bottom-right, bottom-left) of ``border-radius`` (circular radii only)."""
    if not value:
        return (0.0, 0.0, 0.0, 0.0)
    parts = [_length(part, font_size) or 0.0 for part in value.split("/")[0].split()]
    if len(parts) == 1:
        return (parts[0],) * 4
    if len(parts) == 2:
        return (parts[0], parts[1], parts[0], parts[1])
    if len(parts) == 3:
        return (parts[0], parts[1], parts[2], parts[1])
    return (parts[0], parts[1], parts[2], parts[3])


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


# ------------------------------------------------------------------------------------------------ boxes
@dataclass(slots=True)
class Box:
    """A laid-out box: border-box offset from its parent box's border-box origin, and size.

    ``fragments`` are an inline element's line pieces (offsets in the same frame as the box);
    ``baseline`` is the first line's baseline from the top of the border box, ``last_baseline`` the last one;
    ``texts`` the line pieces of text the box's lines hold, with the element that owns each.  Boxes of a laid-out
    subtree name their elements by ``path`` once stored, so the same boxes serve every document with an equal
    subtree.
    """

    element: Element | None
    x: float = 0.0
    y: float = 0.0
    w: float = 0.0
    h: float = 0.0
    kids: list[Box] = field(default_factory=list)
    baseline: float | None = None
    last_baseline: float | None = None
    fragments: list[Rect] | None = None
    scroll_height: float = 0.0
    texts: list[tuple[Element | tuple[int, ...], Rect]] | None = None
    #: Where the box's element is, as child indices from the element of the nearest box above with one (set when
    #: the box is stored for reuse; ``element`` is then None).
    path: tuple[int, ...] | None = None


@dataclass(slots=True)
class _Strut:
    """Collapsing margins (the largest positive and the most negative)."""

    positive: float = 0.0
    negative: float = 0.0

    def add(self, margin: float) -> None:
        if margin >= 0:
            self.positive = max(self.positive, margin)
        else:
            self.negative = min(self.negative, margin)

    @property
    def sum(self) -> float:
        return self.positive + self.negative


@dataclass(slots=True)
class _Item:
    """One piece of inline content: ``text`` (a run of one element's collapsed text), ``open`` / ``close`` of an
    inline element, ``atomic`` (an inline-block or a field) or ``br``."""

    kind: str
    element: Element
    text: str = ""


class _TextRun:
    """A text item's string with its cumulative advances (kerning inside the item) and its break tokens."""

    __slots__ = ("text", "sums", "kerns", "tokens")
    _cache: dict[tuple[str, str, bool, float, str], _TextRun] = {}

    def __init__(self, text: str, style: Computed) -> None:
        self.text = text
        self.sums, self.kerns = style.font.prefix(text, style.font_size)
        self.tokens = _tokens(text, style.white_space)

    @classmethod
    def of(cls, text: str, style: Computed) -> _TextRun:
        key = (text, style.kind, style.bold, style.font_size, style.white_space)
        found = cls._cache.get(key)
        if found is None:
            if len(cls._cache) > 20_000:
                cls._cache.clear()
            found = cls._cache[key] = cls(text, style)
        return found

    def width(self, start: int, end: int) -> float:
        """Exact advance width of ``text[start:end]`` (without the kerning against the character before)."""
        if end <= start:
            return 0.0
        return self.sums[end] - self.sums[start] - self.kerns[start + 1]


@dataclass(slots=True)
class _Piece:
    """A piece of a line: text of one run (``start``..``end``, trailing spaces from ``space_from``), an atomic
    inline, an inline element's edge or a forced break; ``width`` is its advance on the line."""

    kind: str
    element: Element
    width: float
    run: _TextRun | None = None
    start: int = 0
    end: int = 0
    space_from: int | None = None

    def text(self) -> str:
        return self.run.text[self.start:self.end] if self.run is not None else ""

    def has_content(self) -> bool:
        """Text other than spaces."""
        return self.run is not None and bool(self.run.text[self.start:self.end].strip(_SPACES))


@dataclass(slots=True)
class _Unit:
    """A unit of line breaking: a word, a space or a CJK character of a text run, an atomic inline, an inline
    element's edge or a forced break; ``break_after``: a line may break after it."""

    kind: str
    element: Element
    run: _TextRun | None = None
    start: int = 0
    end: int = 0
    width: float = 0.0
    space: bool = False
    preserve: bool = False
    break_after: bool = False


@dataclass(slots=True)
class _FlexItem:
    """A flex item: its (flex) base size, hypothetical main size, min and max main sizes (border-box), margins
    (top, right, bottom, left), grow and shrink factors and the main axis' padding and borders (``edges``);
    ``style`` is None for an anonymous item (a text run)."""

    item: Element | Text
    style: Computed | None
    base: float
    hypothetical: float
    minimum: float
    maximum: float
    margins: tuple[float, float, float, float]
    grow: float
    shrink: float
    edges: float = 0.0

    @property
    def inner_base(self) -> float:
        """The inner flex base size: the base size without the main axis' padding and borders."""
        return self.base - self.edges


@dataclass
class PageLayout:
    """Boxes of a laid-out document, in page coordinates with the given scroll offsets applied."""

    rects: dict[int, Rect]
    fragments: dict[int, list[Rect]]
    clips: dict[int, Rect]
    scrollers: list[Element]
    scroll_heights: dict[int, float]
    client_heights: dict[int, float]
    paint_order: list[Element]
    texts: dict[int, list[Rect]] = field(default_factory=dict)


@dataclass
class _SharedStyles:
    """Computed styles shared by every document of one set of stylesheets."""

    attributes: tuple[str, ...]
    styles: dict[tuple[object, ...], tuple[int, Computed]] = field(default_factory=dict)
    #: Laid-out subtrees: (subtree signature, style key, focus, width, forced height, definite height) -> box.
    boxes: dict[tuple[object, ...], Box] = field(default_factory=dict)
    #: Intrinsic widths: (subtree signature, style key, focus) -> (min-content, max-content).
    intrinsic: dict[tuple[object, ...], tuple[float, float]] = field(default_factory=dict)


_SHARED: dict[tuple[str, ...], _SharedStyles] = {}


#: Subtree signatures: (tag, attributes, child signatures or texts) -> a small integer.
_SIGNATURES: dict[tuple[object, ...], int] = {}
#: Bound on the memo tables (they are cleared when one grows past it).
MEMO_LIMIT = 200_000


def _intern(key: tuple[object, ...]) -> int:
    found = _SIGNATURES.get(key)
    if found is None:
        if len(_SIGNATURES) > MEMO_LIMIT:
            _SIGNATURES.clear()
            for shared in _SHARED.values():
                shared.boxes.clear()
                shared.intrinsic.clear()
        found = _SIGNATURES[key] = len(_SIGNATURES) + 1
    return found


def _shared_styles(styles: StyleResolver) -> _SharedStyles:
    """The shared style table of ``styles``' stylesheets (the attributes its selectors read make the keys)."""
    sheets = tuple(styles.document.stylesheets())
    found = _SHARED.get(sheets)
    if found is None:
        names = {"class", "id", "style"}
        for rule in styles.rules:
            for part in rule.selector.parts:
                names.update(name for name, _ in part.attrs)
                for negation in part.negations:
                    names.update(name for name, _ in negation.attrs)
        if len(_SHARED) > 8:
            _SHARED.clear()
        found = _SHARED[sheets] = _SharedStyles(tuple(sorted(names)))
    return found


class PixelLayout:
    """Lays out a :class:`Document` in a fixed viewport with the cascade of :class:`StyleResolver`.

    Args:
        document: The parsed page.
        styles: Its style resolver (with the focused element set for ``:focus`` rules).
        viewport: (width, height) in CSS pixels.
    """

    def __init__(self, document: Document, styles: StyleResolver, viewport: tuple[int, int]) -> None:
        self.document = document
        self.styles = styles
        self.viewport = viewport
        self._computed: dict[int, tuple[int, Computed]] = {}
        self._kids: dict[int, list[Node]] = {}
        self._intrinsic: dict[int, tuple[float, float]] = {}
        self._boxes: dict[int, Box] = {}
        self.root: Box | None = None
        self._shared = _shared_styles(styles)
        self._signatures: dict[int, int] = {}
        self._indices: dict[int, int] = {}
        focused = styles.focused
        self._focus_holders: set[int] = set()
        node: Element | None = focused
        while node is not None:
            self._focus_holders.add(id(node))
            node = node.parent
        self._focus_name = focused.attrs.get("id", "") if focused is not None else ""

    # ------------------------------------------------------------------------------------------ styles
    def style(self, element: Element) -> Computed:
        """The parsed computed style of ``element``."""
        found = self._computed.get(id(element))
        if found is None:
            found = self._computed[id(element)] = self._resolve(element)
        return found[1]

    def _resolve(self, element: Element) -> tuple[int, Computed]:
        """(style key, style) of ``element``: elements with the same tag, selector-relevant attributes, focus
        and parent style share one computed style, across documents of the same stylesheets."""
        parent = element.parent
        parent_key = 0
        parent_style: Computed | None = None
        if parent is not None and not isinstance(parent, Document):
            parent_key, parent_style = self._computed.get(id(parent)) or self._resolve(parent)
            self._computed[id(parent)] = (parent_key, parent_style)
        attrs = element.attrs
        shared = self._shared
        key = (parent_key, element.tag, element is self.styles.focused,
               *(attrs.get(name) for name in shared.attributes))
        found = shared.styles.get(key)
        if found is None:
            style = compute(self.styles.style(element), element, parent_style)
            in_flex_or_grid = parent_style is not None and \
                parent_style.display in ("flex", "inline-flex", "grid", "inline-grid")
            if in_flex_or_grid or style.out_of_flow or style.floating != "none":
                style.display = _blockified(style.display)
            found = shared.styles[key] = (len(shared.styles) + 1, style)
        return found

    def signature(self, element: Element) -> int:
        """An integer naming ``element``'s subtree (tag, attributes and content): equal subtrees, equal numbers."""
        found = self._signatures.get(id(element))
        if found is None:
            parts = tuple(self.signature(c) if isinstance(c, Element) else c.data for c in element.children
                          if isinstance(c, (Element, Text)))
            found = self._signatures[id(element)] = _intern((element.tag, tuple(element.attrs.items()), parts))
        return found

    def _memo_key(self, element: Element) -> tuple[object, ...]:
        self.style(element)
        focus = self._focus_name if id(element) in self._focus_holders else None
        return (self.signature(element), self._computed[id(element)][0], focus)

    def _children(self, element: Element) -> list[Node]:
        found = self._kids.get(id(element))
        if found is not None:
            return found
        out: list[Node] = []
        for child in element.children:
            if isinstance(child, Element) and (child.tag in _SKIP or self.style(child).display == "none"):
                continue
            out.append(child)
        self._kids[id(element)] = out
        return out

    # ------------------------------------------------------------------------------------------ entry
    def run(self) -> Box:
        """Lay out the document from its ``<html>`` element; returns the root box."""
        html = self.document.html
        assert html is not None
        width, height = self.viewport
        box = self._layout(html, float(width), forced_height=float(height) if self.style(html).height else None)
        self.root = box
        return box

    def place(self, scroll_offsets: dict[int, float] | None = None) -> PageLayout:
        """Page rects of every element (scroll containers shifted by ``scroll_offsets``: id -> scrollTop)."""
        assert self.root is not None
        offsets = scroll_offsets or {}
        rects: dict[int, Rect] = {}
        fragments: dict[int, list[Rect]] = {}
        clips: dict[int, Rect] = {}
        scrollers: list[Element] = []
        heights: dict[int, float] = {}
        clients: dict[int, float] = {}
        texts: dict[int, list[Rect]] = {}

        def visit(box: Box, base: Element | None, ox: float, oy: float, clip: Rect | None) -> None:
            x, y = ox + box.x, oy + box.y
            element = box.element if box.path is None else _follow(base, box.path)
            inner = element if element is not None else base
            child_clip = clip
            shift = 0.0
            if box.texts:
                text_shift = offsets.get(id(element), 0.0) if element is not None and \
                    self.style(element).scroller else 0.0
                for owner, (tx, ty, tw, th) in box.texts:
                    holder = _follow(inner, owner) if isinstance(owner, tuple) else owner
                    texts.setdefault(id(holder), []).append((x + tx, y - text_shift + ty, tw, th))
            if element is not None:
                rects[id(element)] = (x, y, box.w, box.h)
                if box.fragments is not None:
                    fragments[id(element)] = [(ox + fx, oy + fy, fw, fh) for fx, fy, fw, fh in box.fragments]
                if clip is not None:
                    clips[id(element)] = clip
                style = self.style(element)
                if style.clips:
                    own = (x, y, box.w, box.h)
                    child_clip = own if clip is None else _intersect(own, clip)
                if style.scroller:
                    scrollers.append(element)
                    heights[id(element)] = box.scroll_height
                    clients[id(element)] = box.h - style.border[0] - style.border[2]
                    shift = offsets.get(id(element), 0.0)
            for kid in box.kids:
                visit(kid, inner, x, y - shift, child_clip)

        visit(self.root, None, 0.0, 0.0, None)
        return PageLayout(rects, fragments, clips, scrollers, heights, clients, self.paint_order(), texts)

    # ------------------------------------------------------------------------------------------ sizes
    def _edges(self, style: Computed) -> float:
        """Horizontal padding + border."""
        return style.padding[1] + style.padding[3] + style.border[1] + style.border[3]

    def _vedges(self, style: Computed) -> float:
        return style.padding[0] + style.padding[2] + style.border[0] + style.border[2]

    def _specified(self, value: str | None, style: Computed, basis: float | None, edges: float) -> float | None:
        """A specified width / height as a border-box size (None for auto)."""
        length = _length(value, style.font_size, basis)
        if length is None:
            return None
        return max(length, edges) if style.border_box else length + edges

    def _clamp_width(self, width: float, style: Computed, basis: float | None) -> float:
        edges = self._edges(style)
        maximum = self._specified(style.max_width, style, basis, edges)
        if maximum is not None:
            width = min(width, maximum)
        minimum = self._specified(style.min_width, style, basis, edges)
        if minimum is not None:
            width = max(width, minimum)
        return max(width, edges)

    def _clamp_height(self, height: float, style: Computed, basis: float | None) -> float:
        edges = self._vedges(style)
        maximum = self._specified(style.max_height, style, basis, edges)
        if maximum is not None:
            height = min(height, maximum)
        minimum = self._specified(style.min_height, style, basis, edges)
        if minimum is not None:
            height = max(height, minimum)
        return max(height, edges)

    def intrinsic(self, element: Element) -> tuple[float, float]:
        """(min-content, max-content) border-box widths."""
        found = self._intrinsic.get(id(element))
        if found is not None:
            return found
        key = self._memo_key(element)
        found = self._shared.intrinsic.get(key)
        if found is None:
            found = self._shared.intrinsic[key] = self._compute_intrinsic(element)
        self._intrinsic[id(element)] = found
        return found

    def _compute_intrinsic(self, element: Element) -> tuple[float, float]:
        style = self.style(element)
        edges = self._edges(style)
        fixed = self._specified(style.width, style, None, edges)
        if fixed is not None:
            found = (fixed, fixed)
        elif element.tag in _FIELDS:
            inner = 0.0
            found = (inner + edges, inner + edges)
        else:
            low, high = self._content_intrinsic(element, style)
            found = (low + edges, high + edges)
            found = (self._clamp_width(found[0], style, None), self._clamp_width(found[1], style, None))
        return found

    def _outer_intrinsic(self, element: Element) -> tuple[float, float]:
        style = self.style(element)
        low, high = self.intrinsic(element)
        margins = (style.margin[1] or 0.0) + (style.margin[3] or 0.0)
        return low + margins, high + margins

    def _content_intrinsic(self, element: Element, style: Computed) -> tuple[float, float]:
        children = [c for c in self._children(element)
                    if not (isinstance(c, Element) and self.style(c).out_of_flow)]
        display = style.display
        if display in ("flex", "inline-flex"):
            items = self._flex_items(element)
            sizes = [self._outer_intrinsic(i) if isinstance(i, Element) else self._text_intrinsic(element, i)
                     for i in items]
            gaps = style.column_gap * max(0, len(sizes) - 1)
            if style.direction.startswith("column"):
                return max((s[0] for s in sizes), default=0.0), max((s[1] for s in sizes), default=0.0)
            if style.wrap:
                return max((s[0] for s in sizes), default=0.0), sum(s[1] for s in sizes) + gaps
            return sum(s[0] for s in sizes) + gaps, sum(s[1] for s in sizes) + gaps
        if display in ("grid", "inline-grid"):
            columns = max(1, _grid_columns(style.grid_columns))
            grid_items = [c for c in children if isinstance(c, Element)]
            low = max((self._outer_intrinsic(i)[0] for i in grid_items), default=0.0)
            high = max((self._outer_intrinsic(i)[1] for i in grid_items), default=0.0)
            gaps = style.column_gap * (columns - 1)
            return low * columns + gaps, high * columns + gaps
        low = high = 0.0
        run: list[Node] = []
        for child in [*children, None]:
            if child is not None and (isinstance(child, Text) or self._inline_level(child)):
                run.append(child)
                continue
            if run:
                run_low, run_high = self._inline_intrinsic(element, run)
                low, high = max(low, run_low), max(high, run_high)
                run = []
            if isinstance(child, Element):
                child_low, child_high = self._outer_intrinsic(child)
                low, high = max(low, child_low), max(high, child_high)
        return low, high

    def _inline_level(self, node: Node) -> bool:
        if not isinstance(node, Element):
            return True
        style = self.style(node)
        return style.display in ("inline", *_ATOMIC) and style.floating == "none" and not style.out_of_flow

    # ------------------------------------------------------------------------------------------ layout
    def _layout(self, element: Element, width: float, forced_height: float | None = None,
                definite_height: float | None = None) -> Box:
        """Lay out ``element`` with border-box width ``width`` (and a forced border-box height); a subtree laid
        out before under the same conditions is reused."""
        key = (*self._memo_key(element), width, forced_height, definite_height)
        memo = self._shared.boxes
        stored = memo.get(key)
        if stored is None:
            stored = self._compute_layout(element, width, forced_height, definite_height)
            self._freeze(stored, element)
            memo[key] = stored
        box = _shell(stored)
        box.element = element
        self._boxes[id(element)] = box
        return box

    def _freeze(self, box: Box, base: Element) -> None:
        """Name the elements below ``box`` by paths from ``base`` (the boxes can then serve other documents)."""
        if box.texts:
            box.texts = [(self._path(base, owner) if isinstance(owner, Element) else owner, rect)
                         for owner, rect in box.texts]
        for kid in box.kids:
            if kid.element is not None:
                kid.path = self._path(base, kid.element)
                kid.element = None
            elif kid.path is None:  # an anonymous box: its content belongs to ``base``
                self._freeze(kid, base)

    def _path(self, base: Element, element: Element) -> tuple[int, ...]:
        steps: list[int] = []
        node = element
        while node is not base:
            parent = node.parent
            assert parent is not None
            index = self._indices.get(id(node))
            if index is None:
                for position, child in enumerate(parent.children):
                    self._indices[id(child)] = position
                index = self._indices[id(node)]
            steps.append(index)
            node = parent
        return tuple(reversed(steps))

    def _compute_layout(self, element: Element, width: float, forced_height: float | None,
                        definite_height: float | None) -> Box:
        style = self.style(element)
        box = Box(element, w=width)
        self._boxes[id(element)] = box
        inner_width = max(0.0, width - self._edges(style))
        height_basis = definite_height
        specified_height = self._specified(style.height, style, height_basis, self._vedges(style))
        if forced_height is not None:
            specified_height = forced_height
        inner_height = None if specified_height is None else max(0.0, specified_height - self._vedges(style))
        top = style.border[0] + style.padding[0]
        left = style.border[3] + style.padding[3]
        content_height = self._contents(element, style, box, left, top, inner_width, inner_height)
        if specified_height is not None:
            height = specified_height
        else:
            height = self._clamp_height(content_height + self._vedges(style), style, height_basis)
        box.h = height
        if style.scroller:
            box.scroll_height = max(height - style.border[0] - style.border[2],
                                    self._content_extent(box, style) + style.padding[2] - style.border[0])
        self._layout_absolutes(element, box)
        return box

    def _content_extent(self, box: Box, style: Computed) -> float:
        """Bottom of the in-flow content of a scroll container (from its padding-box top)."""
        bottom = style.padding[0]
        for kid in box.kids:
            if kid.element is not None and self.style(kid.element).out_of_flow:
                continue
            margin = 0.0
            if kid.element is not None:
                margin = self.style(kid.element).margin[2] or 0.0
            bottom = max(bottom, kid.y + kid.h + margin - style.border[0])
        return bottom

    def _contents(self, element: Element, style: Computed, box: Box, left: float, top: float, width: float,
                  height: float | None) -> float:
        if element.tag in _FIELDS:
            return self._field_contents(element, style, box, top, height)
        display = style.display
        if display in ("flex", "inline-flex"):
            return self._flex(element, style, box, left, top, width, height)
        if display in ("grid", "inline-grid"):
            return self._grid(element, style, box, left, top, width)
        return self._flow(element, style, box, left, top, width)

    def _field_contents(self, element: Element, style: Computed, box: Box, top: float,
                        height: float | None) -> float:
        metrics = line_metrics(style.kind, style.bold, style.font_size)
        line = style.line_height if style.line_height is not None else float(metrics.line_spacing)
        ascent = metrics.ascent + math.floor((line - metrics.ascent - metrics.descent) / 2)
        if element.tag == "textarea":
            box.baseline = box.last_baseline = None  # the bottom margin edge (set by the line)
            return line * 2 if height is None else height
        if height is not None:
            box.baseline = box.last_baseline = top + (height - line) / 2 + ascent
            return height
        box.baseline = box.last_baseline = top + ascent
        return line

    # ------------------------------------------------------------------------------------------ block flow
    def _flow(self, element: Element, style: Computed, box: Box, left: float, top: float, width: float) -> float:
        children = self._children(element)
        in_flow = [c for c in children if not (isinstance(c, Element) and self.style(c).out_of_flow)]
        if all(isinstance(c, Text) or self._inline_level(c) for c in in_flow):
            if not any(isinstance(c, Element) or (isinstance(c, Text) and _has_content(c.data, style))
                       for c in in_flow):
                return 0.0
            height, first, last = self._inline_layout(element, style, box, in_flow, left, top, width)
            box.baseline, box.last_baseline = first, last
            return height
        return self._block_children(element, style, box, in_flow, left, top, width)

    def _block_children(self, element: Element, style: Computed, box: Box, children: list[Node], left: float,
                        top: float, width: float) -> float:
        cursor = 0.0
        strut = _Strut()
        float_bottom = {"left": 0.0, "right": 0.0}
        content_bottom = 0.0
        run: list[Node] = []
        started = False
        for child in [*children, None]:
            if child is not None and (isinstance(child, Text) or self._inline_level(child)):
                run.append(child)
                continue
            if run:
                if any(isinstance(c, Element) or (isinstance(c, Text) and _has_content(c.data, self.style(element)))
                       for c in run):
                    anonymous = Box(None, x=left, y=top + cursor + strut.sum, w=width)
                    height, first, last = self._inline_layout(element, style, anonymous, run, 0.0, 0.0, width)
                    anonymous.h = height
                    anonymous.baseline, anonymous.last_baseline = first, last
                    box.kids.append(anonymous)
                    if box.baseline is None and first is not None:
                        box.baseline = anonymous.y + first
                    if last is not None:
                        box.last_baseline = anonymous.y + last
                    cursor += strut.sum + height
                    strut = _Strut()
                    content_bottom = cursor
                    started = True
                run = []
            if child is None:
                break
            assert isinstance(child, Element)
            child_style = self.style(child)
            if child_style.floating in ("left", "right"):
                cursor = self._place_float(child, child_style, box, left, top, width, cursor, strut, float_bottom)
                continue
            margin_top = child_style.margin[0] or 0.0
            margin_bottom = child_style.margin[2] or 0.0
            if child_style.clear in ("left", "right", "both"):
                sides = ("left", "right") if child_style.clear == "both" else (child_style.clear,)
                clear_to = max(float_bottom[s] for s in sides)
                position = cursor + _collapse(strut, margin_top)
                if clear_to > position:
                    strut = _Strut()
                    cursor = clear_to
                    margin_top = 0.0
            child_width, x_offset = self._block_width(child, child_style, width)
            strut.add(margin_top)
            child_box = self._layout(child, child_width)
            empty = child_box.h == 0 and not child_box.kids and self._vedges(child_style) == 0
            if empty:  # margins collapse through it; its box sits where the next block would start
                child_box.x = left + x_offset
                child_box.y = top + cursor + strut.sum
                box.kids.append(child_box)
                strut.add(margin_bottom)
                continue
            child_box.x = left + x_offset
            child_box.y = top + cursor + strut.sum
            box.kids.append(child_box)
            if box.baseline is None and child_box.baseline is not None:
                box.baseline = child_box.y + child_box.baseline
            if child_box.last_baseline is not None:
                box.last_baseline = child_box.y + child_box.last_baseline
            cursor += strut.sum + child_box.h
            content_bottom = cursor
            strut = _Strut()
            strut.add(margin_bottom)
            started = True
        del started
        end = content_bottom
        if self._contains_floats(style, element):
            end = max(end, float_bottom["left"], float_bottom["right"])
        if self._margin_ends_inside(style, element):
            end = max(end, cursor + strut.sum)
        return end

    def _contains_floats(self, style: Computed, element: Element) -> bool:
        return True

    def _margin_ends_inside(self, style: Computed, element: Element) -> bool:
        """A block formatting context root, or a box with bottom padding / border, keeps its last child's margin."""
        return style.clips or style.display not in ("block", "list-item") or style.padding[2] > 0 or \
            style.border[2] > 0 or element.tag in ("html", "body") or style.floating != "none" or style.out_of_flow

    def _place_float(self, child: Element, child_style: Computed, box: Box, left: float, top: float, width: float,
                     cursor: float, strut: _Strut, float_bottom: dict[str, float]) -> float:
        margins = child_style.margin
        available = width - (margins[1] or 0.0) - (margins[3] or 0.0)
        child_width = self._shrink_to_fit(child, child_style, available, width)
        position = cursor + strut.sum
        if child_style.clear in ("left", "right", "both"):
            sides = ("left", "right") if child_style.clear == "both" else (child_style.clear,)
            position = max(position, *(float_bottom[s] for s in sides))
        child_box = self._layout(child, child_width)
        side = child_style.floating
        if side == "left":
            child_box.x = left + (margins[3] or 0.0)
        else:
            child_box.x = left + width - (margins[1] or 0.0) - child_width
        child_box.y = top + position + (margins[0] or 0.0)
        box.kids.append(child_box)
        float_bottom[side] = max(float_bottom[side],
                                 position + (margins[0] or 0.0) + child_box.h + (margins[2] or 0.0))
        return cursor

    def _block_width(self, child: Element, style: Computed, available: float) -> tuple[float, float]:
        """(border-box width, left offset) of an in-flow block-level child in ``available`` width."""
        margin_left, margin_right = style.margin[3], style.margin[1]
        specified = self._specified(style.width, style, available, self._edges(style))
        if child.tag in _FIELDS and specified is None:
            specified = self.intrinsic(child)[1]
        if style.display in ("table",) and specified is None:
            specified = min(self.intrinsic(child)[1], available)
        if specified is None:
            width = self._clamp_width(available - (margin_left or 0.0) - (margin_right or 0.0), style, available)
            return width, margin_left or 0.0
        width = self._clamp_width(specified, style, available)
        if margin_left is None and margin_right is None:
            return width, floor_unit(max(0.0, (available - width) / 2))
        if margin_left is None:
            return width, available - width - (margin_right or 0.0)
        return width, margin_left

    def _shrink_to_fit(self, element: Element, style: Computed, available: float, basis: float) -> float:
        specified = self._specified(style.width, style, basis, self._edges(style))
        if specified is not None:
            return self._clamp_width(specified, style, basis)
        low, high = self.intrinsic(element)
        return self._clamp_width(min(max(low, available), high), style, basis)

    # ------------------------------------------------------------------------------------------ inline
    def _inline_items(self, parent: Element, run: list[Node]) -> list[_Item]:
        """The inline content of ``run``: text of each element (whitespace collapsed across items as browsers
        collapse it), inline element edges, atomic inlines and forced breaks."""
        items: list[_Item] = []
        state = [True]  # after a collapsible space (or at the start): a following space goes

        def walk(nodes: list[Node], owner: Element) -> None:
            for node in nodes:
                if isinstance(node, Text):
                    if node.data:
                        self._text_item(owner, node.data, items, state)
                    continue
                assert isinstance(node, Element)
                style = self.style(node)
                if style.out_of_flow:
                    continue
                if node.tag == "br":
                    items.append(_Item("br", node))
                    state[0] = True
                elif style.display in _ATOMIC or node.tag in _FIELDS or node.tag == "img":
                    items.append(_Item("atomic", node))
                    state[0] = False
                else:
                    items.append(_Item("open", node))
                    walk(self._children(node), node)
                    items.append(_Item("close", node))

        walk(run, parent)
        return items

    def _text_item(self, owner: Element, data: str, items: list[_Item], state: list[bool]) -> None:
        style = self.style(owner)
        mode = style.white_space
        if mode in ("pre", "pre-wrap", "break-spaces", "pre-line"):
            text = data.replace("\r\n", "\n").replace("\r", "\n")
            if mode == "pre-line":
                text = re.sub(r"[ \t]*\n[ \t]*", "\n", re.sub(r"[ \t]+", " ", text))
            state[0] = text.endswith(("\n",))
        else:
            text = re.sub(r"[ \t\n\r\f]+", " ", data)
            if state[0] and text.startswith(" "):
                text = text[1:]
            if not text:
                return
            state[0] = text.endswith(" ")
        if text:
            items.append(_Item("text", owner, text))

    def _lines(self, items: list[_Item], width: float, parent_style: Computed) -> list[list[_Piece]]:
        """Greedy line breaking of ``items`` in ``width`` (``math.inf``: max-content, 0: min-content): content
        between two break opportunities (spaces, after hyphens and dashes, around CJK characters and atomic
        inlines; none inside ``nowrap`` text) moves to the next line when it does not fit."""
        units = self._units(items, width, parent_style)
        lines: list[list[_Piece]] = [[]]
        position = 0.0
        index = 0
        count = len(units)
        while index < count:
            unit = units[index]
            if unit.kind == "br":
                lines[-1].append(_Piece("br", unit.element, 0.0))
                lines.append([])
                position = 0.0
                index += 1
                continue
            end = index
            while end < count and units[end].kind != "br" and not units[end].break_after:
                end += 1
            end = min(end + 1, count) if end < count and units[end].kind != "br" else end
            segment = units[index:end]
            line = lines[-1]
            if _has_content_pieces(line):
                fit = position + _segment_width(segment, line, hanging=True)
                if fit > width + 1e-6:
                    self._break_line(lines)
                    line = lines[-1]
                    position = sum(p.width for p in line)
            for part in segment:
                position += self._append_unit(line, part)
            index = end
        for line in lines:
            _finish_line(line)
        return lines

    def _units(self, items: list[_Item], width: float, parent_style: Computed) -> list[_Unit]:
        units: list[_Unit] = []
        parent_nowrap = parent_style.white_space in ("nowrap", "pre")
        for item in items:
            kind = item.kind
            if kind == "br":
                units.append(_Unit("br", item.element))
            elif kind in ("open", "close"):
                style = self.style(item.element)
                side = 3 if kind == "open" else 1
                edge = (style.margin[side] or 0.0) + style.padding[side] + style.border[side]
                units.append(_Unit(kind, item.element, width=edge))
            elif kind == "atomic":
                style = self.style(item.element)
                outer = self._outer_intrinsic(item.element)[1] if math.isinf(width) or width <= 0 else \
                    self._atomic_outer(item.element, style, width)
                if units and not parent_nowrap:
                    units[-1].break_after = True
                units.append(_Unit("atomic", item.element, width=outer, break_after=not parent_nowrap))
            else:
                style = self.style(item.element)
                run = _TextRun.of(item.text, style)
                nowrap = style.white_space in ("nowrap", "pre")
                preserve = style.white_space in ("pre", "pre-wrap", "break-spaces")
                for start, end, token, before in run.tokens:
                    if token == "\n":
                        units.append(_Unit("br", item.element))
                        continue
                    if before and units and not nowrap:
                        units[-1].break_after = True
                    units.append(_Unit("text", item.element, run=run, start=start, end=end,
                                       space=token == " ", preserve=preserve,
                                       break_after=not nowrap and token != "word"))
        return units

    @staticmethod
    def _append_unit(line: list[_Piece], unit: _Unit) -> float:
        """Put ``unit`` at the end of ``line``; returns how far the line's position advances."""
        if unit.kind != "text":
            line.append(_Piece(unit.kind, unit.element, unit.width))
            return unit.width
        run = unit.run
        assert run is not None
        if unit.space and not unit.preserve and not _has_content_pieces(line):
            return 0.0  # a collapsible space at the start of a line goes
        piece = _text_piece(line, unit.element, run, unit.start)
        advance = run.width(piece.start, unit.end) - run.width(piece.start, unit.start)
        piece.end = unit.end
        return advance

    def _atomic_outer(self, element: Element, style: Computed, width: float) -> float:
        margins = (style.margin[1] or 0.0) + (style.margin[3] or 0.0)
        if element.tag in _FIELDS and style.width is None:
            return self.intrinsic(element)[1] + margins
        return self._shrink_to_fit(element, style, width - margins, width) + margins

    def _break_line(self, lines: list[list[_Piece]]) -> None:
        """Start a new line; inline edges that opened at the end of the old line move to the new one."""
        moving: list[_Piece] = []
        current = lines[-1]
        while current and current[-1].kind == "open":
            moving.insert(0, current.pop())
        lines.append(moving)

    def _inline_intrinsic(self, parent: Element, run: list[Node]) -> tuple[float, float]:
        items = self._inline_items(parent, run)
        style = self.style(parent)
        high = max((_used_width(line) for line in self._lines(items, math.inf, style)), default=0.0)
        low = max((_used_width(line) for line in self._lines(items, 0.0, style)), default=0.0)
        return low, high

    def _text_intrinsic(self, parent: Element, text: Text) -> tuple[float, float]:
        return self._inline_intrinsic(parent, [text])

    def _inline_layout(self, parent: Element, style: Computed, box: Box, run: list[Node], left: float,
                       top: float, width: float) -> tuple[float, float | None, float | None]:
        """Line boxes of ``run`` inside ``box`` (content origin ``left``, ``top``); returns (height, first
        baseline, last baseline) relative to the box's border box."""
        items = self._inline_items(parent, run)
        lines = self._lines(items, width, style)
        strut = _line_extent(line_metrics(style.kind, style.bold, style.font_size), style.line_height)
        cursor = 0.0
        first: float | None = None
        last: float | None = None
        fragments: dict[int, list[Rect]] = {}
        for line in lines:
            if not any(p.kind in ("atomic", "open", "close") or (p.kind == "text" and p.has_content()) for p in line):
                if any(p.kind == "br" for p in line):
                    cursor += strut[0] + strut[1]
                continue
            used = _used_width(line)
            shift = 0.0
            if style.text_align == "center":
                shift = floor_unit(max(0.0, width - used) / 2)
            elif style.text_align in ("right", "end"):
                shift = max(0.0, width - used)
            above, below = strut
            atoms: list[tuple[_Piece, Box, float]] = []
            for piece in line:
                if piece.kind == "text":
                    if piece.end > piece.start:
                        extent = _text_extent(self.style(piece.element), piece.text())
                        above, below = max(above, extent[0]), max(below, extent[1])
                elif piece.kind == "atomic":
                    atom_style = self.style(piece.element)
                    margins = (atom_style.margin[1] or 0.0) + (atom_style.margin[3] or 0.0)
                    atom = self._layout(piece.element, piece.width - margins)
                    baseline = atom.last_baseline
                    if baseline is None or (atom_style.clips and piece.element.tag not in _FIELDS):
                        baseline = atom.h
                    baseline += atom_style.margin[0] or 0.0
                    atoms.append((piece, atom, baseline))
                    above = max(above, baseline)
                    below = max(below, atom.h + (atom_style.margin[0] or 0.0) + (atom_style.margin[2] or 0.0)
                                - baseline)
                elif piece.kind in ("open", "close"):
                    piece_style = self.style(piece.element)
                    extent = _line_extent(line_metrics(piece_style.kind, piece_style.bold, piece_style.font_size),
                                          piece_style.line_height)
                    above, below = max(above, extent[0]), max(below, extent[1])
            baseline_y = top + cursor + above
            if first is None:
                first = baseline_y
            last = baseline_y
            x = left + shift
            starts: dict[int, tuple[Element, float]] = {}
            atom_index = 0
            for piece in line:
                if piece.kind == "atomic":
                    _, atom, atom_baseline = atoms[atom_index]
                    atom_index += 1
                    atom_style = self.style(piece.element)
                    atom.x = x + (atom_style.margin[3] or 0.0)
                    atom.y = baseline_y - atom_baseline + (atom_style.margin[0] or 0.0)
                    box.kids.append(atom)
                elif piece.kind == "text" and piece.width > 0:
                    text_style = self.style(piece.element)
                    metrics = line_metrics(text_style.kind, text_style.bold, text_style.font_size)
                    if box.texts is None:
                        box.texts = []
                    box.texts.append((piece.element, (x, baseline_y - metrics.ascent, piece.width,
                                                      float(metrics.ascent + metrics.descent))))
                elif piece.kind == "open":
                    starts[id(piece.element)] = (piece.element, x + (self.style(piece.element).margin[3] or 0.0))
                elif piece.kind == "close":
                    end = x + piece.width - (self.style(piece.element).margin[1] or 0.0)
                    opened = starts.pop(id(piece.element), (piece.element, left + shift))
                    self._fragment(piece.element, opened[1], end, baseline_y, fragments, box)
                x += piece.width
            for element, start in starts.values():  # inline boxes continuing on the next line
                self._fragment(element, start, x, baseline_y, fragments, box)
            cursor += above + below
        for element_id, rects in fragments.items():
            inline_box = self._boxes[element_id]
            xs = [r[0] for r in rects] + [r[0] + r[2] for r in rects]
            ys = [r[1] for r in rects] + [r[1] + r[3] for r in rects]
            inline_box.x, inline_box.y = min(xs), min(ys)
            inline_box.w, inline_box.h = max(xs) - min(xs), max(ys) - min(ys)
            inline_box.fragments = rects
        return cursor, first, last

    def _fragment(self, element: Element, start: float, end: float, baseline: float,
                  fragments: dict[int, list[Rect]], box: Box) -> None:
        """One line's piece of an inline element's box (its font's ascent and descent around the baseline)."""
        style = self.style(element)
        metrics = line_metrics(style.kind, style.bold, style.font_size)
        top = baseline - metrics.ascent - style.padding[0] - style.border[0]
        height = metrics.ascent + metrics.descent + self._vedges(style)
        if id(element) not in fragments:
            fragments[id(element)] = []
            inline_box = Box(element)
            self._boxes[id(element)] = inline_box
            box.kids.append(inline_box)
        fragments[id(element)].append((start, top, end - start, height))

    # ------------------------------------------------------------------------------------------ flex
    def _flex_items(self, element: Element) -> list[Element | Text]:
        items: list[Element | Text] = []
        style = self.style(element)
        for child in self._children(element):
            if isinstance(child, Text):
                if _has_content(child.data, style):
                    items.append(child)
            elif isinstance(child, Element) and not self.style(child).out_of_flow:
                items.append(child)
        return items

    def _flex(self, element: Element, style: Computed, box: Box, left: float, top: float, width: float,
              height: float | None) -> float:
        items = self._flex_items(element)
        if style.direction.startswith("column"):
            return self._flex_column(element, style, box, items, left, top, width, height)
        return self._flex_row(element, style, box, items, left, top, width, height)

    def _anonymous(self, parent: Element, text: Text, width: float) -> Box:
        anonymous = Box(None, w=width)
        height, first, last = self._inline_layout(parent, self.style(parent), anonymous, [text], 0.0, 0.0, width)
        anonymous.h = height
        anonymous.baseline, anonymous.last_baseline = first, last
        return anonymous

    def _flex_row(self, element: Element, style: Computed, box: Box, items: list[Element | Text], left: float,
                  top: float, width: float, height: float | None) -> float:
        entries = [self._row_item(element, item, width) for item in items]
        gap = style.column_gap
        lines: list[list[_FlexItem]] = [[]]
        used = 0.0
        for entry in entries:
            outer = entry.hypothetical + entry.margins[1] + entry.margins[3]
            if style.wrap and lines[-1] and used + gap + outer > width + 1e-6:
                lines.append([])
                used = 0.0
            used += outer + (gap if lines[-1] else 0.0)
            lines[-1].append(entry)
        cursor = 0.0
        results: list[tuple[list[tuple[_FlexItem, float, Box]], float]] = []
        for line in lines:
            sizes = _resolve_flexible(line, width - gap * max(0, len(line) - 1))
            laid = []
            for entry, size in zip(line, sizes, strict=True):
                item = entry.item
                child_box = self._anonymous(element, item, size) if isinstance(item, Text) else \
                    self._layout(item, size)
                laid.append((entry, size, child_box))
            line_height = max((b.h + e.margins[0] + e.margins[2] for e, _, b in laid), default=0.0)
            if not style.wrap:  # a single line is as tall as the container's content box
                line_height = height if height is not None else \
                    self._clamp_height(line_height + self._vedges(style), style, None) - self._vedges(style)
            results.append((laid, line_height))
            cursor += line_height
        cursor += style.row_gap * max(0, len(lines) - 1)
        y = 0.0
        for index, (laid, line_height) in enumerate(results):
            total = sum(size + e.margins[1] + e.margins[3] for e, size, _ in laid) + gap * max(0, len(laid) - 1)
            x, spacing = _justify(style.justify, width - total, len(laid))
            baseline_above = 0.0
            for entry, _, child_box in laid:
                if _align(entry.style, style) == "baseline":
                    first = child_box.baseline if child_box.baseline is not None else child_box.h
                    baseline_above = max(baseline_above, entry.margins[0] + first)
            for entry, size, child_box in laid:
                item, item_style, margins = entry.item, entry.style, entry.margins
                align = _align(item_style, style)
                if align == "stretch" and isinstance(item, Element) and item_style is not None and \
                        item_style.height is None:
                    target = self._clamp_height(line_height - margins[0] - margins[2], item_style, None)
                    if abs(target - child_box.h) > 1e-9:
                        child_box = self._layout(item, size, forced_height=target)
                elif align == "stretch" and item_style is None:
                    child_box.h = line_height
                offset = 0.0
                if align == "center":
                    offset = floor_unit((line_height - child_box.h - margins[0] - margins[2]) / 2)
                elif align in ("flex-end", "end"):
                    offset = line_height - child_box.h - margins[0] - margins[2]
                elif align == "baseline":
                    first = child_box.baseline if child_box.baseline is not None else child_box.h
                    offset = baseline_above - margins[0] - first
                child_box.x = left + x + margins[3]
                child_box.y = top + y + margins[0] + offset
                box.kids.append(child_box)
                if box.baseline is None and child_box.baseline is not None and index == 0:
                    box.baseline = child_box.y + child_box.baseline
                x += size + margins[1] + margins[3] + gap + spacing
            y += line_height + style.row_gap
        if box.baseline is None and box.kids:
            first_kid = box.kids[0]
            box.baseline = first_kid.y + (first_kid.baseline if first_kid.baseline is not None else first_kid.h)
        box.last_baseline = box.baseline
        return cursor

    def _row_item(self, container: Element, item: Element | Text, width: float) -> _FlexItem:
        """A flex row item's base size, hypothetical size and limits (CSS Flexbox §9.2, §4.5)."""
        if isinstance(item, Text):
            low, high = self._text_intrinsic(container, item)
            return _FlexItem(item, None, high, high, low, math.inf, (0.0, 0.0, 0.0, 0.0), 0.0, 1.0)
        item_style = self.style(item)
        margins = _margins(item_style)
        edges = self._edges(item_style)
        basis = _length(item_style.basis, item_style.font_size, width) if item_style.basis != "auto" else None
        specified = self._specified(item_style.width, item_style, width, edges)
        if basis is not None:
            base = max(basis, edges) if item_style.border_box else basis + edges
        else:
            base = specified if specified is not None else self.intrinsic(item)[1]
        minimum = self._specified(item_style.min_width, item_style, width, edges)
        if minimum is None:
            if item_style.clips:
                minimum = edges
            else:
                content_min = self.intrinsic(item)[0]
                minimum = min(content_min, specified) if specified is not None else content_min
        maximum = self._specified(item_style.max_width, item_style, width, edges)
        maximum = math.inf if maximum is None else maximum
        minimum = max(minimum, edges)
        hypothetical = min(max(base, minimum), maximum)
        return _FlexItem(item, item_style, base, hypothetical, minimum, maximum, margins, item_style.grow,
                         item_style.shrink, edges)

    def _flex_column(self, element: Element, style: Computed, box: Box, items: list[Element | Text], left: float,
                     top: float, width: float, height: float | None) -> float:
        """A column: each item's cross size first, its natural height only when its base or minimum size needs
        it (an item with a definite basis and no content minimum is laid out once, at its final size)."""
        entries: list[_FlexItem] = []
        widths: list[float] = []
        natural: list[Box | None] = []
        for item in items:
            if isinstance(item, Text):
                low, high = self._text_intrinsic(element, item)
                item_width = width if style.align_items in ("normal", "stretch") else min(high, width)
                child_box = self._anonymous(element, item, item_width)
                entries.append(_FlexItem(item, None, child_box.h, child_box.h, child_box.h, math.inf,
                                         (0.0, 0.0, 0.0, 0.0), 0.0, 1.0))
                widths.append(item_width)
                natural.append(child_box)
                continue
            item_style = self.style(item)
            margins = _margins(item_style)
            available = width - margins[1] - margins[3]
            specified = self._specified(item_style.width, item_style, width, self._edges(item_style))
            if specified is not None:
                item_width = self._clamp_width(specified, item_style, width)
            elif _align(item_style, style) == "stretch":
                item_width = self._clamp_width(available, item_style, width)
            else:
                item_width = self._shrink_to_fit(item, item_style, available, width)
            vedges = self._vedges(item_style)
            basis = _length(item_style.basis, item_style.font_size, height) if item_style.basis != "auto" else None
            specified_height = self._specified(item_style.height, item_style, height, vedges)
            minimum = self._specified(item_style.min_height, item_style, height, vedges)
            measured: Box | None = None
            if basis is not None:
                base = max(basis, vedges) if item_style.border_box else basis + vedges
            elif specified_height is not None:
                base = specified_height
            else:
                measured = self._layout(item, item_width)
                base = measured.h
            if minimum is None:
                if item_style.clips:
                    minimum = vedges
                elif specified_height is not None and (item_style.shrink == 0 or height is None):
                    minimum = specified_height  # never shrinks: its content minimum cannot matter
                else:
                    if measured is None:
                        measured = self._layout(item, item_width)
                    minimum = measured.h if specified_height is None else min(measured.h, specified_height)
            minimum = max(minimum, vedges)
            entries.append(_FlexItem(item, item_style, base, max(base, minimum), minimum, math.inf, margins,
                                     item_style.grow, item_style.shrink, vedges))
            widths.append(item_width)
            natural.append(measured)
        gap = style.row_gap
        gaps = gap * max(0, len(entries) - 1)
        if height is None:
            sizes = [entry.hypothetical for entry in entries]
            container = sum(size + e.margins[0] + e.margins[2] for size, e in zip(sizes, entries, strict=True)) + gaps
        else:
            container = height
            sizes = _resolve_flexible(entries, height - gaps, vertical=True)
        total = sum(size + e.margins[0] + e.margins[2] for size, e in zip(sizes, entries, strict=True)) + gaps
        y, spacing = _justify(style.justify, container - total, len(entries))
        for entry, size, item_width, laid in zip(entries, sizes, widths, natural, strict=True):
            item, margins = entry.item, entry.margins
            if isinstance(item, Text):
                assert laid is not None
                child_box = laid
                child_box.h = size
            elif laid is not None and abs(size - laid.h) <= 1e-9:
                child_box = laid
            else:
                child_box = self._layout(item, item_width, forced_height=size)
            align = _align(entry.style, style)
            offset = margins[3]
            free = width - item_width - margins[1] - margins[3]
            if align == "center":
                offset += floor_unit(free / 2)
            elif align in ("flex-end", "end"):
                offset += free
            child_box.x = left + offset
            child_box.y = top + y + margins[0]
            box.kids.append(child_box)
            if box.baseline is None and child_box.baseline is not None:
                box.baseline = child_box.y + child_box.baseline
            y += size + margins[0] + margins[2] + gap + spacing
        box.last_baseline = box.baseline
        return container

    # ------------------------------------------------------------------------------------------ grid
    def _grid(self, element: Element, style: Computed, box: Box, left: float, top: float, width: float) -> float:
        columns = max(1, _grid_columns(style.grid_columns))
        items = [c for c in self._children(element) if isinstance(c, Element) and not self.style(c).out_of_flow]
        cell = floor_unit((width - style.column_gap * (columns - 1)) / columns)
        cursor = 0.0
        for start in range(0, len(items), columns):
            row = items[start:start + columns]
            boxes = []
            for column, item in enumerate(row):
                item_style = self.style(item)
                margins = tuple(m or 0.0 for m in item_style.margin)
                item_width = cell - margins[1] - margins[3]
                specified = self._specified(item_style.width, item_style, cell, self._edges(item_style))
                if specified is not None:
                    item_width = specified
                child_box = self._layout(item, item_width)
                boxes.append((item, item_style, child_box, margins, column, item_width))
            row_height = max((b.h + m[0] + m[2] for _, _, b, m, _, _ in boxes), default=0.0)
            for item, item_style, child_box, margins, column, item_width in boxes:
                if item_style.height is None and abs(child_box.h + margins[0] + margins[2] - row_height) > 1e-9:
                    child_box = self._layout(item, item_width, forced_height=row_height - margins[0] - margins[2])
                child_box.x = left + column * (cell + style.column_gap) + margins[3]
                child_box.y = top + cursor + margins[0]
                box.kids.append(child_box)
            cursor += row_height + style.row_gap
        return max(0.0, cursor - (style.row_gap if items else 0.0))

    # ------------------------------------------------------------------------------------------ absolute
    def _layout_absolutes(self, element: Element, box: Box) -> None:
        """Lay out the out-of-flow boxes whose containing block is ``element`` (positioned, or the root)."""
        style = self.style(element)
        if not style.positioned and element.tag != "html":
            return
        for child in self._absolute_descendants(element):
            child_style = self.style(child)
            anchor_w = box.w - style.border[1] - style.border[3]
            anchor_h = box.h - style.border[0] - style.border[2]
            if child_style.position == "fixed":
                anchor_w, anchor_h = float(self.viewport[0]), float(self.viewport[1])
            size = child_style.font_size
            top_, right_, bottom_, left_ = (_length(v, size, b) if v not in (None, "auto") else None
                                            for v, b in zip(child_style.inset, (anchor_h, anchor_w, anchor_h,
                                                                                anchor_w), strict=True))
            margins = tuple(m or 0.0 for m in child_style.margin)
            edges = self._edges(child_style)
            width = self._specified(child_style.width, child_style, anchor_w, edges)
            if width is None:
                if left_ is not None and right_ is not None:
                    width = anchor_w - left_ - right_ - margins[1] - margins[3]
                else:
                    available = anchor_w - (left_ or 0.0) - (right_ or 0.0) - margins[1] - margins[3]
                    width = self._shrink_to_fit(child, child_style, available, anchor_w)
            width = self._clamp_width(width, child_style, anchor_w)
            forced = None
            specified_height = self._specified(child_style.height, child_style, anchor_h, self._vedges(child_style))
            if specified_height is None and top_ is not None and bottom_ is not None:
                forced = self._clamp_height(anchor_h - top_ - bottom_ - margins[0] - margins[2], child_style,
                                            anchor_h)
            child_box = self._layout(child, width, forced_height=forced, definite_height=anchor_h)
            if left_ is not None:
                x = left_ + margins[3]
            elif right_ is not None:
                x = anchor_w - right_ - margins[1] - width
            else:
                x = self._static_x(child, box)
            if top_ is not None:
                y = top_ + margins[0]
            elif bottom_ is not None:
                y = anchor_h - bottom_ - margins[2] - child_box.h
            else:
                y = self._static_y(child, box)
            if child_style.position == "fixed":
                child_box.x, child_box.y = x, y
                assert self.root is not None or element.tag == "html"
            else:
                child_box.x, child_box.y = style.border[3] + x, style.border[0] + y
            box.kids.append(child_box)

    def _absolute_descendants(self, element: Element) -> list[Element]:
        out: list[Element] = []

        def walk(node: Element) -> None:
            for child in self._children(node):
                if not isinstance(child, Element):
                    continue
                child_style = self.style(child)
                if child_style.out_of_flow:
                    out.append(child)
                    continue
                if not child_style.positioned:
                    walk(child)

        walk(element)
        return out

    def _static_x(self, child: Element, box: Box) -> float:
        parent = child.parent
        if parent is not None and id(parent) in self._boxes and parent is not box.element:
            parent_style = self.style(parent)
            return self._offset_in(parent, box)[0] + parent_style.border[3] + parent_style.padding[3]
        own = self.style(box.element) if box.element is not None else None
        return own.padding[3] if own is not None else 0.0

    def _static_y(self, child: Element, box: Box) -> float:
        parent = child.parent
        if parent is not None and id(parent) in self._boxes and parent is not box.element:
            parent_style = self.style(parent)
            return self._offset_in(parent, box)[1] + parent_style.border[0] + parent_style.padding[0]
        own = self.style(box.element) if box.element is not None else None
        return own.padding[0] if own is not None else 0.0

    def _offset_in(self, element: Element, ancestor: Box) -> tuple[float, float]:
        """Offset of ``element``'s box from ``ancestor``'s border box (0, 0 when not below it)."""
        path: list[Box] = []

        def find(current: Box) -> bool:
            if current.element is element:
                return True
            for kid in current.kids:
                path.append(kid)
                if find(kid):
                    return True
                path.pop()
            return False

        if not find(ancestor):
            return 0.0, 0.0
        return sum(b.x for b in path), sum(b.y for b in path)

    # ------------------------------------------------------------------------------------------ paint order
    def paint_order(self) -> list[Element]:
        """Elements in the order Chromium paints them (the last one on top), by stacking contexts."""
        html = self.document.html
        out: list[Element] = []
        if html is None:
            return out

        def context(root: Element) -> None:
            out.append(root)
            positioned: list[Element] = []
            raised: list[tuple[int, int, Element]] = []

            def flow(node: Element) -> None:
                for child in self._children(node):
                    if not isinstance(child, Element):
                        continue
                    child_style = self.style(child)
                    if child_style.positioned or child_style.z_index is not None and self._z_context(child):
                        z = child_style.z_index if self._z_context(child) else None
                        if z is not None and z > 0:
                            raised.append((z, len(raised), child))
                        else:
                            positioned.append(child)
                        continue
                    out.append(child)
                    flow(child)

            flow(root)
            for child in positioned:
                context(child)
            for _, _, child in sorted(raised, key=lambda t: (t[0], t[1])):
                context(child)

        context(html)
        return out

    def _z_context(self, element: Element) -> bool:
        style = self.style(element)
        if style.z_index is None:
            return False
        parent = element.parent
        in_flex = parent is not None and not isinstance(parent, Document) and \
            self.style(parent).display in ("flex", "inline-flex", "grid", "inline-grid")
        return style.positioned or in_flex


# ------------------------------------------------------------------------------------------------ helpers
def _shell(stored: Box) -> Box:
    """A copy of a stored box to place (its descendants stay shared)."""
    return Box(None, stored.x, stored.y, stored.w, stored.h, stored.kids, stored.baseline, stored.last_baseline,
               stored.fragments, stored.scroll_height, stored.texts, None)


def _follow(base: Element | None, path: tuple[int, ...]) -> Element:
    node = base
    assert node is not None
    for index in path:
        child = node.children[index]
        assert isinstance(child, Element)
        node = child
    return node


def _blockified(display: str) -> str:
    if display in ("inline", "inline-block"):
        return "block"
    if display.startswith("inline-"):
        return display[len("inline-"):]
    return display


def _has_content(text: str, style: Computed) -> bool:
    if style.white_space in ("pre", "pre-wrap", "break-spaces", "pre-line"):
        return bool(text)
    return bool(text.strip(_SPACES))


#: Characters after which a line may break inside a word (ICU: hyphens, dashes, ellipsis, question mark).
_BREAK_AFTER = frozenset("-\u2010\u2013\u2014\u2026?\u00ad")
#: Characters before which a line may break inside a word (an em dash).
_BREAK_BEFORE = frozenset("\u2014")


def _tokens(text: str, mode: str) -> list[tuple[int, int, str, bool]]:
    """(start, end, kind, break before) of the break units of collapsed text: ``"word"`` (up to a character a line
    may break after), ``" "`` (a space), ``"\\n"`` (a preserved newline) and ``"cjk"`` (one CJK character: a break
    opportunity on each side)."""
    out: list[tuple[int, int, str, bool]] = []
    preserve = mode in ("pre", "pre-wrap", "break-spaces", "pre-line")
    start = -1
    length = len(text)
    for index, char in enumerate(text):
        if char == "\n" and preserve:
            kind = "\n"
        elif char in " \t\n":
            kind = " "
        elif _is_cjk(char):
            kind = "cjk"
        else:
            if char in _BREAK_BEFORE and start >= 0:
                out.append((start, index, "soft", False))
                start = -1
            if start < 0:
                start = index
            if char in _BREAK_AFTER and index + 1 < length and text[index + 1] not in " \t\n" and \
                    index > start - 1 and (char != "-" or (index > 0 and text[index - 1].isalnum())):
                out.append((start, index + 1, "soft", False))
                start = -1
            continue
        if start >= 0:
            out.append((start, index, "word", False))
            start = -1
        out.append((index, index + 1, kind, kind == "cjk"))
    if start >= 0:
        out.append((start, length, "word", False))
    return out


def _segment_width(segment: list[_Unit], line: list[_Piece], hanging: bool) -> float:
    """Advance of a segment placed after ``line`` (its trailing spaces left out when ``hanging``)."""
    total = 0.0
    last_run: _TextRun | None = None
    last_end = -1
    if line and line[-1].kind == "text":
        last_run, last_end = line[-1].run, line[-1].end
    trailing = 0.0
    for unit in segment:
        if unit.kind != "text" or unit.run is None:
            total += unit.width
            trailing = 0.0
            last_run = None
            continue
        run = unit.run
        advance = run.width(unit.start, unit.end)
        if last_run is run and last_end == unit.start:
            advance += run.kerns[unit.start + 1]
        total += advance
        trailing = trailing + advance if unit.space else 0.0
        last_run, last_end = run, unit.end
    return total - trailing if hanging else total


def _has_content_pieces(line: list[_Piece]) -> bool:
    """The line holds something a break can come after (text that is not only spaces, or an atomic inline)."""
    return any(p.kind == "atomic" or (p.kind == "text" and p.has_content()) for p in line)


def _text_piece(line: list[_Piece], element: Element, run: _TextRun, start: int) -> _Piece:
    """The line's text piece of ``run`` that ends at ``start``, or a new one starting there."""
    if line:
        last = line[-1]
        if last.kind == "text" and last.run is run and last.end == start:
            return last
    piece = _Piece("text", element, 0.0, run, start, start)
    line.append(piece)
    return piece


def _finish_line(line: list[_Piece]) -> None:
    """Give each piece its advance on the line: text fragments rounded up to the layout unit, the line's trailing
    spaces removed (they hang)."""
    trailing = True
    for piece in reversed(line):
        if piece.kind == "text" and piece.run is not None:
            end = piece.end
            if trailing:
                text = piece.run.text
                while end > piece.start and text[end - 1] in " \t":
                    end -= 1
                if end > piece.start:
                    trailing = False
            piece.width = ceil_unit(piece.run.width(piece.start, end))
        elif piece.kind == "atomic":
            trailing = False


def _used_width(line: list[_Piece]) -> float:
    return sum(p.width for p in line)


def _line_extent(metrics: object, line_height: float | None) -> tuple[float, float]:
    """(above, below) the baseline of an inline box with these font metrics and ``line-height``."""
    ascent, descent = metrics.ascent, metrics.descent  # type: ignore[attr-defined]
    spacing = metrics.line_spacing if line_height is None else line_height  # type: ignore[attr-defined]
    above = ascent + math.floor((spacing - (ascent + descent)) / 2)
    return float(above), float(spacing - above)


def _text_extent(style: Computed, text: str) -> tuple[float, float]:
    """(above, below) the baseline of a text piece: its font's metrics with the half-leading of its line height;
    with ``line-height: normal``, each fallback font the text uses contributes its own line spacing."""
    primary = line_metrics(style.kind, style.bold, style.font_size)
    above, below = _line_extent(primary, style.line_height)
    if style.line_height is None:
        for index in style.font.faces_used(text):
            if index > 0:
                other = _line_extent(line_metrics(style.kind, style.bold, style.font_size, index), None)
                above, below = max(above, other[0]), max(below, other[1])
    return above, below


def _collapse(strut: _Strut, margin: float) -> float:
    copy = _Strut(strut.positive, strut.negative)
    copy.add(margin)
    return copy.sum


def _grid_columns(template: str) -> int:
    match = re.search(r"repeat\(\s*(\d+)", template)
    if match:
        return int(match.group(1))
    if template in ("none", ""):
        return 1
    return len(template.split())


def _align(item_style: Computed | None, container: Computed) -> str:
    if item_style is not None and item_style.align_self not in ("auto", "normal"):
        return item_style.align_self
    align = container.align_items
    return "stretch" if align in ("normal", "stretch") else align


def _justify(justify: str, free: float, count: int) -> tuple[float, float]:
    """(start offset, extra spacing between items) of ``justify-content``."""
    if count == 0:
        return 0.0, 0.0
    if justify == "center":
        return floor_unit(free / 2), 0.0
    if justify in ("flex-end", "end", "right"):
        return free, 0.0
    if free <= 0:
        return 0.0, 0.0
    if justify == "space-between":
        return 0.0, (free / (count - 1) if count > 1 else 0.0)
    if justify == "space-around":
        return free / count / 2, free / count
    if justify == "space-evenly":
        return free / (count + 1), free / (count + 1)
    return 0.0, 0.0


def _resolve_flexible(entries: list[_FlexItem], available: float, vertical: bool = False) -> list[float]:
    """CSS Flexbox §9.7: the main sizes of a line's items (growing or shrinking, items frozen at their limits)."""
    outer = sum((e.margins[0] + e.margins[2]) if vertical else (e.margins[1] + e.margins[3]) for e in entries)
    growing = sum(e.hypothetical for e in entries) + outer < available
    sizes = [e.hypothetical for e in entries]
    frozen = [False] * len(entries)
    for index, entry in enumerate(entries):
        factor = entry.grow if growing else entry.shrink
        if factor == 0 or (growing and entry.base > entry.hypothetical) or \
                (not growing and entry.base < entry.hypothetical):
            frozen[index] = True
    for _ in range(len(entries) + 1):
        if all(frozen):
            break
        free = available - outer - sum(sizes[i] if frozen[i] else entries[i].base for i in range(len(entries)))
        active = [i for i in range(len(entries)) if not frozen[i]]
        if growing:
            total = sum(entries[i].grow for i in active)
            if total < 1:
                free = free * total if abs(free * total) < abs(free) else free
            for i in active:
                sizes[i] = entries[i].base + (free * entries[i].grow / total if total else 0.0)
        else:
            # the scaled shrink factor weighs the inner (content-box) base size, as Blink's FlexLine does
            scaled = sum(entries[i].shrink * entries[i].inner_base for i in active)
            for i in active:
                ratio = entries[i].shrink * entries[i].inner_base / scaled if scaled else 0.0
                sizes[i] = entries[i].base + free * ratio
        violation = 0.0
        clamped: dict[int, float] = {}
        for i in active:
            target = min(max(sizes[i], entries[i].minimum), entries[i].maximum)
            violation += target - sizes[i]
            clamped[i] = target
        if abs(violation) < 1e-9:
            break
        for i in active:
            if (violation > 0 and clamped[i] > sizes[i]) or (violation < 0 and clamped[i] < sizes[i]):
                frozen[i] = True
            sizes[i] = clamped[i]
    return [snap(size) for size in sizes]


def _margins(style: Computed) -> tuple[float, float, float, float]:
    """Margins with ``auto`` as 0."""
    top, right, bottom, left = style.margin
    return top or 0.0, right or 0.0, bottom or 0.0, left or 0.0


def _intersect(a: Rect, b: Rect) -> Rect:
    left, top = max(a[0], b[0]), max(a[1], b[1])
    right, bottom = min(a[0] + a[2], b[0] + b[2]), min(a[1] + a[3], b[1] + b[3])
    return left, top, max(0.0, right - left), max(0.0, bottom - top)
