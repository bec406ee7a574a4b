"""The phone's screen without a browser: the same ``ui_xml`` and the same touch events, computed in Python.

:class:`TextScreen` has :class:`~personal_envs.simulators.phone.screen.PhoneScreen`'s interface, so
:class:`~personal_envs.simulators.phone.sim.PhoneSimulator` drives it unchanged and every device action lands on the
same :class:`~personal_envs.simulators.phone.phone.Phone`.  It parses the HTML :meth:`Phone.render` returns with the
text mode's parser (:mod:`personal_envs.textmode.dom`), applies the phone's stylesheet
(:mod:`personal_envs.textmode.css`) and lays the screen out to Chromium's pixel
(:mod:`personal_envs.textmode.pixel_layout`), then does what the page runtime (``static/phone.js``) does in the
browser: taps hit-test the laid-out boxes in paint order and report the ``data-act`` of what they hit, a tap on a
text field focuses it (elsewhere it blurs it) and places the caret, typing inserts at the caret (line breaks typed
into a single-line field become spaces, as in Blink), Enter reports the focused field (a textarea gets a newline),
swipes scroll the ``.scroll`` container under the finger or open and close the notification shade, scroll positions
are remembered per screen and focus survives a re-render by element id.  The hierarchy dump is the page runtime's
walk: the same nodes, attributes, clipping and bounds.

No screenshot exists in this mode (:meth:`capture` returns ``None`` for it).
"""

from __future__ import annotations

import math
import re
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from personal_envs.simulators.phone.assets import static_text
from personal_envs.simulators.phone.geometry import (
    PIXELS_PER_CSS,
    VIEWPORT_HEIGHT,
    VIEWPORT_WIDTH,
    screenshot_size,
)
from personal_envs.textmode.css import StyleResolver
from personal_envs.textmode.dom import Document, Element, Text, parse_html
from personal_envs.textmode.fastparse import parse_fragment
from personal_envs.textmode.pixel_layout import PageLayout, PixelLayout

#: Moves shorter than this (CSS px, |dx| + |dy|) are taps for the page runtime.
MOVE_SLOP = 8
#: Height of the status bar (CSS px): a swipe starting above it pulls the shade.
STATUS_BAR = 28
#: A pull longer than this (CSS px) opens or closes the shade.
SHADE_PULL = 60
#: Whitespace as JavaScript's ``\s`` matches it.
_JS_SPACE = re.compile(r"[\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]+")
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f]")
_XML_ESCAPES = {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&apos;"}
_XML_SPECIAL = re.compile(r"[&<>\"']")
#: Half the side of the touch area Chromium adjusts taps in (its minimum adjustment size is 20 CSS px).
TOUCH_RADIUS = 10.0
#: Screens kept laid out (HTML and focus -> page), most recent last.
PAGE_CACHE_SIZE = 64


def _js_trim(text: str) -> str:
    return _JS_SPACE.sub(" ", text).strip(" ")


def _escape(text: str) -> str:
    return _CONTROL.sub("", _XML_SPECIAL.sub(lambda m: _XML_ESCAPES[m.group(0)], text))


def _round(value: float) -> int:
    """JavaScript's ``Math.round`` (halves go up)."""
    return math.floor(value + 0.5)


@dataclass
class _Page:
    """One screen's HTML parsed, styled and laid out (for one focused element)."""

    document: Document
    root: Element
    layout: PixelLayout
    focused: Element | None
    scrollers: list[Element]
    fields: dict[str, Element]
    placed: dict[tuple[float, ...], PageLayout] = field(default_factory=dict)
    dumps: dict[tuple[float, ...], str] = field(default_factory=dict)


def document_html(html: str) -> str:
    """The page the browser shows for ``html``: the shell with the stylesheet, ``html`` inside ``#root``."""
    css = static_text("phone.css")
    return (f'<!doctype html><html><head><meta charset="utf-8"><style>{css}</style></head>'
            f'<body><div id="root">{html}</div></body></html>')


def phone_document(html: str) -> Document:
    """The document of :func:`document_html` (the fast parser for the screen's own markup, the full one if it
    is not well formed)."""
    document = Document()
    page = Element("html")
    document.append(page)
    head = Element("head")
    page.append(head)
    style = Element("style")
    head.append(style)
    style.append(Text(static_text("phone.css")))
    body = Element("body")
    page.append(body)
    root = Element("div", {"id": "root"})
    body.append(root)
    if parse_fragment(html, root):
        return document
    return parse_html(document_html(html))


class TextScreen:
    """The phone's screen computed without Chromium (see the module docstring).

    Args:
        screenshot_scale: Kept for the observation's context line; no screenshot is ever taken.
    """

    def __init__(self, screenshot_scale: float = 1 / 3) -> None:
        self.screenshot_scale = screenshot_scale
        self.image_format = "none"
        self._pages: OrderedDict[tuple[str, str], _Page] = OrderedDict()
        self._html = ""
        self._key = ""
        self._page: _Page | None = None
        self._scroll_memory: dict[str, tuple[float, float]] = {}
        self._scroll: list[float] = []
        self._focus_id = ""
        self._caret = 0
        self.reopen_count = 0
        self.notice = ""
        self._resolver: StyleResolver | None = None

    # ----------------------------------------------------------------------------------------- lifecycle
    @property
    def shape(self) -> tuple[int, int, int]:
        """(height, width, 3) screenshots would have (none are taken)."""
        width, height = screenshot_size(self.screenshot_scale)
        return height, width, 3

    def start(self) -> None:
        """Nothing to start."""

    def take_notice(self) -> str:
        """Always "" (no browser can fail)."""
        notice, self.notice = self.notice, ""
        return notice

    def reset(self) -> None:
        """Forget scroll positions, focus and the screen shown (between episodes)."""
        self._html = ""
        self._key = ""
        self._page = None
        self._scroll_memory.clear()
        self._scroll = []
        self._focus_id = ""
        self._caret = 0

    def close(self) -> None:
        """Drop the cached pages."""
        self._pages.clear()
        self._page = None

    # ----------------------------------------------------------------------------------------- pages
    def _load(self, html: str, focus_id: str) -> _Page:
        key = (html, focus_id)
        page = self._pages.get(key)
        if page is not None:
            self._pages.move_to_end(key)
            return page
        base = self._pages.get((html, ""))
        document = base.document if base is not None else phone_document(html)
        root = base.root if base is not None else document.get_element_by_id("root")
        assert root is not None
        fields = base.fields if base is not None else {
            el.attrs["id"]: el for el in root.iter() if el.tag in ("input", "textarea") and el.attrs.get("id")}
        focused = fields.get(focus_id) if focus_id else None
        styles = self._styles(document)
        styles.focused = focused
        layout = PixelLayout(document, styles, (VIEWPORT_WIDTH, VIEWPORT_HEIGHT))
        layout.run()
        scrollers = [el for el in root.iter() if "scroll" in el.classes]
        page = _Page(document, root, layout, focused, scrollers, fields)
        self._pages[key] = page
        if len(self._pages) > PAGE_CACHE_SIZE:
            self._pages.popitem(last=False)
        return page

    def _styles(self, document: Document) -> StyleResolver:
        """The phone stylesheet's resolver, pointed at ``document`` (its rules are parsed and sorted once)."""
        if self._resolver is None:
            self._resolver = StyleResolver(document)
        return StyleResolver(document, self._resolver.index)

    def _current(self) -> _Page:
        if self._page is None:
            self._page = self._load(self._html or '<div class="phone"></div>', self._focus_id)
        return self._page

    def _placed(self) -> PageLayout:
        page = self._current()
        offsets = tuple(self._scroll)
        placed = page.placed.get(offsets)
        if placed is None:
            mapping = {id(el): top for el, top in zip(page.scrollers, self._scroll, strict=False)}
            placed = page.layout.place(mapping)
            if len(page.placed) > 16:
                page.placed.clear()
            page.placed[offsets] = placed
        return placed

    def _max_scroll(self, page: _Page, index: int) -> float:
        element = page.scrollers[index]
        placed = page.layout.place({}) if not page.placed else next(iter(page.placed.values()))
        height = placed.scroll_heights.get(id(element), 0.0)
        client = placed.client_heights.get(id(element), 0.0)
        return float(max(0, _round(height) - _round(client)))  # the browser scrolls a pixel-snapped size

    def _set_focus(self, element: Element | None, caret: int | None = None) -> None:
        focus_id = element.attrs.get("id", "") if element is not None else ""
        if element is not None and not focus_id:
            focus_id = ""
        if focus_id != self._focus_id:
            self._focus_id = focus_id
            self._page = None
        if element is not None:
            value = self._value(element)
            self._caret = len(value) if caret is None else max(0, min(caret, len(value)))

    @staticmethod
    def _value(element: Element) -> str:
        if element.tag == "textarea":
            return element.value
        return element.attrs.get("value", "").replace("\r", "").replace("\n", "")

    # ----------------------------------------------------------------------------------------- output
    def show(self, html: str, key: str) -> None:
        """Display rendered HTML (skipped when nothing changed), as the page runtime's ``show`` does."""
        if html == self._html and key == self._key:
            return
        if self._key:
            for index, top in enumerate(self._scroll):
                self._scroll_memory[f"{self._key}#{index}"] = (top, 0.0)
        focus_id = self._focus_id
        self._html, self._key = html, key
        self._focus_id = ""
        self._page = None
        page = self._load(html, "")
        self._page = page
        self._scroll = []
        for index in range(len(page.scrollers)):
            saved = self._scroll_memory.get(f"{key}#{index}")
            self._scroll.append(min(saved[0], self._max_scroll(page, index)) if saved else 0.0)
        if focus_id and focus_id in page.fields and page.fields[focus_id].attrs.get("data-field"):
            self._set_focus(page.fields[focus_id])
            self._reveal_focused()

    def _reveal_focused(self) -> None:
        """``focus()`` scrolls a field that lies outside its scroll container's view to its centre."""
        page = self._current()
        if page.focused is None:
            return
        placed = self._placed()
        for index, scroller in enumerate(page.scrollers):
            if not scroller.contains(page.focused):
                continue
            sx, sy, sw, sh = placed.rects[id(scroller)]
            fx, fy, fw, fh = placed.rects[id(page.focused)]
            if fy >= sy and fy + fh <= sy + sh:
                return
            target = self._scroll[index] + (fy + fh / 2) - (sy + sh / 2)
            self._scroll[index] = max(0.0, min(_round(target), self._max_scroll(page, index)))

    def capture(self, screenshot: bool) -> tuple[np.ndarray | None, str]:
        """(None, the hierarchy dump): there is no screenshot in text mode."""
        return None, self.dump()

    def dump(self) -> str:
        """The hierarchy dump of the current screen (the page runtime's ``dump``)."""
        page = self._current()
        offsets = tuple(self._scroll)
        found = page.dumps.get(offsets)
        if found is None:
            found = _dump(page, self._placed())
            if len(page.dumps) > 16:
                page.dumps.clear()
            page.dumps[offsets] = found
        return found

    # ----------------------------------------------------------------------------------------- input
    def _hit(self, x: float, y: float) -> Element:
        """The element a pointer at CSS point (x, y) lands on, as Blink's point hit test finds it: the front-most
        box or text fragment holding the floored point (a rounded corner counts when the point's 1x1 px square
        touches it), inside its clips."""
        placed = self._placed()
        layout = self._current().layout
        px, py = float(math.floor(x)), float(math.floor(y))
        for element in reversed(placed.paint_order):
            if element.tag in ("html", "head", "body") or _untouchable(layout, element):
                continue
            key = id(element)
            clip = placed.clips.get(key)
            if clip is not None and not _inside(clip, px, py):
                continue
            pieces = placed.fragments.get(key)
            if pieces is not None:
                if any(_inside(piece, px, py) for piece in pieces):
                    return element
                continue
            rect = placed.rects.get(key)
            if rect is not None and _inside(rect, px, py) and _touches_rounded(rect, layout.style(element).radius,
                                                                               px, py):
                return element
            if any(_inside(piece, px, py) for piece in placed.texts.get(key, ())):
                return element
        body = self._current().document.body
        assert body is not None
        return body

    def _tap_target(self, x: float, y: float) -> tuple[Element, float]:
        """The element a touch tap at CSS point (x, y) reaches, and the x the press happens at.

        Chromium adjusts a tap to a nearby text field: when a field lies within the 20x20 px touch area (boxes are
        collected front to back until one covers the whole area), the field with the best hybrid score (overlap and
        distance) moves the tap to the touch point or to the centre of its overlap with the area, and what is hit
        there takes it (the field, or what covers it there; a toast has ``pointer-events: none`` and covers
        nothing).  Other elements
        do not respond to taps themselves (the page listens on the document), so elsewhere the plain hit test
        decides."""
        placed = self._placed()
        layout = self._current().layout
        area = (x - TOUCH_RADIUS, y - TOUCH_RADIUS, 2 * TOUCH_RADIUS, 2 * TOUCH_RADIUS)
        fields: list[Element] = []
        for element in reversed(placed.paint_order):
            if element.tag in ("html", "head", "body") or _untouchable(layout, element):
                continue
            key = id(element)
            shapes = placed.fragments.get(key) or [placed.rects[key]] if key in placed.rects else []
            shapes = [*shapes, *placed.texts.get(key, ())]
            clip = placed.clips.get(key)
            if clip is not None:
                shapes = [_clip_rect(shape, clip) for shape in shapes]
            hits = [shape for shape in shapes if _overlaps(shape, area)]
            if not hits:
                continue
            if element.tag in ("input", "textarea"):
                fields.append(element)
            if any(_covers(shape, area) for shape in hits):
                break
        if fields:
            hotspot = (_round_away(x), _round_away(y))
            touch = (math.floor(area[0]), math.floor(area[1]), math.ceil(area[0] + area[2]) - math.floor(area[0]),
                     math.ceil(area[1] + area[3]) - math.floor(area[1]))
            best: tuple[float, float, float] | None = None
            for element in fields:
                bounds = _enclosing(placed.rects[id(element)])
                snapped = _snap(bounds, hotspot, touch)
                if snapped is None:
                    continue
                score = _hybrid_score(hotspot, touch, bounds)
                if best is None or score < best[0]:
                    best = (score, float(snapped[0]), float(snapped[1]))
            if best is not None:  # the gesture goes to what is hit at the adjusted point
                return self._hit(best[1], best[2]), best[1]
        return self._hit(x, y), x

    def _press(self, target: Element, x: float) -> None:
        """What a press does to focus: a text field takes it (caret at the touch), anything else drops it."""
        control = target if target.tag in ("input", "textarea") else None
        if control is None:
            self._set_focus(None)
            self._page = None
            return
        self._set_focus(control, self._caret_at(control, x))

    def _caret_at(self, control: Element, x: float) -> int:
        """The caret a touch at CSS x puts into a single-line field (the nearest character boundary)."""
        value = self._value(control)
        if control.tag == "textarea" or not value:
            return len(value)
        page = self._current()
        placed = self._placed()
        style = page.layout.style(control)
        left = placed.rects[id(control)][0] + style.border[3] + style.padding[3]
        font, size = style.font, style.font_size
        best, best_distance = 0, abs(x - left)
        for index in range(1, len(value) + 1):
            distance = abs(x - (left + font.width(value[:index], size)))
            if distance < best_distance:
                best, best_distance = index, distance
        return best

    @staticmethod
    def _css(x: float, y: float) -> tuple[float, float]:
        return x / PIXELS_PER_CSS, y / PIXELS_PER_CSS

    def tap(self, x: float, y: float, count: int = 1) -> dict[str, Any]:
        """Tap (``count`` times) at device pixel (x, y); returns the page events."""
        cx, cy = self._css(x, y)
        events: list[dict[str, Any]] = []
        for _ in range(count):
            target, press_x = self._tap_target(cx, cy)
            self._press(target, press_x)
            events.extend(self._click(target))
        return {"events": events, "focused": self.focused_field()}

    @staticmethod
    def _click(target: Element) -> list[dict[str, Any]]:
        node: Element | None = target
        while node is not None and not isinstance(node, Document):
            if "data-act" in node.attrs:
                return [{"t": "tap", "act": node.attrs["data-act"], "arg": node.attrs.get("data-arg", "")}]
            node = node.parent
        return []

    def long_press(self, x: float, y: float) -> dict[str, Any]:
        """Press and hold at device pixel (x, y): a ``data-long`` element reports its long action, else a tap."""
        cx, cy = self._css(x, y)
        target = self._hit(cx, cy)
        self._press(target, cx)
        node: Element | None = target
        while node is not None and not isinstance(node, Document):
            if "data-long" in node.attrs:
                events = [{"t": "long", "act": node.attrs["data-long"], "arg": node.attrs.get("data-arg", "")}]
                return {"events": events, "focused": self.focused_field()}
            node = node.parent
        return {"events": self._click(target), "focused": self.focused_field()}

    def drag(self, x0: float, y0: float, x1: float, y1: float) -> dict[str, Any]:
        """Swipe from one device pixel to another: scroll the container under the finger, pull the shade."""
        (sx, sy), (ex, ey) = self._css(x0, y0), self._css(x1, y1)
        start = self._hit(sx, sy)
        self._press(start, sx)
        dx, dy = ex - sx, ey - sy
        events: list[dict[str, Any]] = []
        if abs(dx) + abs(dy) <= MOVE_SLOP:
            end = self._hit(ex, ey)
            events = self._click(_common_ancestor(start, end))
            return {"events": events, "focused": self.focused_field()}
        page = self._current()
        scroller = start.closest(lambda el: "scroll" in el.classes)
        if scroller is not None and sy >= STATUS_BAR and scroller in page.scrollers:
            index = page.scrollers.index(scroller)
            self._scroll[index] = _scroll_offset(self._scroll[index] - dy, self._max_scroll(page, index))
        shade_open = any(el.attrs.get("id") == "shade" for el in page.root.iter())
        if sy < STATUS_BAR and dy > SHADE_PULL:
            events.append({"t": "shade", "open": True})
        elif shade_open and dy < -SHADE_PULL:
            events.append({"t": "shade", "open": False})
        else:
            events.append({"t": "swipe", "dx": _round(dx * PIXELS_PER_CSS), "dy": _round(dy * PIXELS_PER_CSS)})
        return {"events": events, "focused": self.focused_field()}

    def type_text(self, text: str) -> dict[str, Any] | None:
        """Type into the focused field at the caret; ``None`` when no field has focus."""
        page = self._current()
        control = page.focused
        if control is None or not control.attrs.get("data-field"):
            return None
        value = self._value(control)
        if control.tag == "input":
            text = single_line_insertion(text)
        else:
            text = text.replace("\r\n", "\n").replace("\r", "\n")
        if not text:
            return {"events": [], "focused": self.focused_field()}
        value = value[:self._caret] + text + value[self._caret:]
        self._caret += len(text)
        event = {"t": "input", "field": control.attrs["data-field"], "value": value}
        return {"events": [event], "focused": self.focused_field()}

    def press_enter(self) -> dict[str, Any]:
        """Press Enter: the page reports it with the focused field; a textarea also gets a newline."""
        name = self.focused_field()
        events: list[dict[str, Any]] = [{"t": "enter", "field": name}]
        control = self._current().focused
        if control is not None and control.tag == "textarea" and name:
            value = self._value(control)
            value = value[:self._caret] + "\n" + value[self._caret:]
            self._caret += 1
            events.append({"t": "input", "field": name, "value": value})
        return {"events": events, "focused": name}

    def focused_field(self) -> str:
        """Name of the focused text field ('' when none)."""
        control = self._current().focused
        return control.attrs.get("data-field", "") if control is not None else ""


def single_line_insertion(text: str) -> str:
    """What typing ``text`` inserts into a single-line field, as Blink's ``TextFieldInputType`` rewrites it before
    insertion: trailing line breaks dropped, every other CRLF, CR or LF a space (a value set by the page loses its
    line breaks instead: :meth:`TextScreen._value`)."""
    return text.rstrip("\r\n").replace("\r\n", " ").replace("\r", " ").replace("\n", " ")


def _scroll_offset(value: float, maximum: float) -> float:
    """A scroll offset as the browser keeps it: clamped to the scroll range, on whole pixels."""
    return float(max(0, min(_round(value), math.floor(maximum))))


def _common_ancestor(a: Element, b: Element) -> Element:
    ancestors = set()
    node: Element | None = a
    while node is not None:
        ancestors.add(id(node))
        node = node.parent
    node = b
    while node is not None and id(node) not in ancestors:
        node = node.parent
    return node if node is not None else a


def _inside(rect: tuple[float, float, float, float], x: float, y: float) -> bool:
    return rect[0] <= x < rect[0] + rect[2] and rect[1] <= y < rect[1] + rect[3]


def _untouchable(layout: Any, element: Element) -> bool:
    """``pointer-events: none`` on the element or an ancestor (a toast): hit tests pass through it, as in Blink."""
    node: Element | None = element
    while node is not None and not isinstance(node, Document):
        if layout.styles.style(node).get("pointer-events") == "none":
            return True
        node = node.parent
    return False


def _touches_rounded(rect: tuple[float, float, float, float], radii: tuple[float, float, float, float], px: float,
                     py: float) -> bool:
    """The 1x1 px square at (px, py) (inside ``rect``) meets the box with its rounded corners."""
    if not any(radii):
        return True
    left, top, width, height = rect
    scale = min(1.0, *(width / pair for pair in (radii[0] + radii[1], radii[2] + radii[3]) if pair > 0),
                *(height / pair for pair in (radii[0] + radii[3], radii[1] + radii[2]) if pair > 0))
    tl, tr, br, bl = (r * scale for r in radii)
    x0, y0 = max(px, left), max(py, top)
    x1, y1 = min(px + 1, left + width), min(py + 1, top + height)
    corners = ((tl, left + tl, top + tl, x1 <= left + tl and y1 <= top + tl),
               (tr, left + width - tr, top + tr, x0 >= left + width - tr and y1 <= top + tr),
               (br, left + width - br, top + height - br, x0 >= left + width - br and y0 >= top + height - br),
               (bl, left + bl, top + height - bl, x1 <= left + bl and y0 >= top + height - bl))
    for radius, cx, cy, in_square in corners:
        if radius > 0 and in_square:
            nearest_x, nearest_y = min(max(cx, x0), x1), min(max(cy, y0), y1)
            return (nearest_x - cx) ** 2 + (nearest_y - cy) ** 2 <= radius ** 2
    return True


def _overlaps(a: tuple[float, float, float, float], b: tuple[float, float, float, float]) -> bool:
    return a[2] > 0 and a[3] > 0 and a[0] < b[0] + b[2] and b[0] < a[0] + a[2] and a[1] < b[1] + b[3] and \
        b[1] < a[1] + a[3]


def _covers(a: tuple[float, float, float, float], b: tuple[float, float, float, float]) -> bool:
    """``a`` holds all of ``b``."""
    return a[0] <= b[0] and a[1] <= b[1] and a[0] + a[2] >= b[0] + b[2] and a[1] + a[3] >= b[1] + b[3]


def _clip_rect(rect: tuple[float, float, float, float], clip: tuple[float, float, float, float]
               ) -> tuple[float, float, float, float]:
    left, top = max(rect[0], clip[0]), max(rect[1], clip[1])
    right, bottom = min(rect[0] + rect[2], clip[0] + clip[2]), min(rect[1] + rect[3], clip[1] + clip[3])
    return left, top, max(0.0, right - left), max(0.0, bottom - top)


def _round_away(value: float) -> int:
    """``std::round``: halves away from zero."""
    return int(math.floor(abs(value) + 0.5)) * (1 if value >= 0 else -1)


def _enclosing(rect: tuple[float, float, float, float]) -> tuple[int, int, int, int]:
    """The smallest integer rect (x, y, w, h) holding ``rect``."""
    left, top = math.floor(rect[0]), math.floor(rect[1])
    return left, top, math.ceil(rect[0] + rect[2]) - left, math.ceil(rect[1] + rect[3]) - top


def _snap(bounds: tuple[int, int, int, int], hotspot: tuple[int, int], touch: tuple[int, int, int, int]
          ) -> tuple[int, int] | None:
    """Where an adjusted tap lands on ``bounds``: the hotspot when inside, else the centre of the overlap with the
    touch area; ``None`` when they do not meet."""
    x, y, w, h = bounds
    if x <= hotspot[0] < x + w and y <= hotspot[1] < y + h:
        return hotspot
    left, top = max(x, touch[0]), max(y, touch[1])
    right, bottom = min(x + w, touch[0] + touch[2]), min(y + h, touch[1] + touch[3])
    if right <= left or bottom <= top:
        return None
    return left + (right - left) // 2, top + (bottom - top) // 2


def _hybrid_score(hotspot: tuple[int, int], touch: tuple[int, int, int, int], bounds: tuple[int, int, int, int]
                  ) -> float:
    """Chromium's touch adjustment score: squared distance from the hotspot (relative to the touch area's
    half-diagonal) plus the share of the possible overlap that is missing (lower is better)."""
    x, y, w, h = bounds
    radius_squared = 0.25 * (touch[2] ** 2 + touch[3] ** 2)
    closest_x = min(max(hotspot[0], x), x + w)
    closest_y = min(max(hotspot[1], y), y + h)
    distance = ((closest_x - hotspot[0]) ** 2 + (closest_y - hotspot[1]) ** 2) / radius_squared
    max_overlap = max(min(touch[2], w) * min(touch[3], h), 1)
    overlap_w = max(0, min(x + w, touch[0] + touch[2]) - max(x, touch[0]))
    overlap_h = max(0, min(y + h, touch[1] + touch[3]) - max(y, touch[1]))
    return 1 - overlap_w * overlap_h / max_overlap + distance


def _dump(page: _Page, placed: PageLayout) -> str:
    """The page runtime's ``dump()``: visible elements with a class, an action, a field or text, in uiautomator
    format with bounds in device pixels."""
    lines = ["<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>", '<hierarchy rotation="0">']
    layout = page.layout
    focused = page.focused
    scale = PIXELS_PER_CSS

    def visit(el: Element, clip: tuple[float, float, float, float], depth: int, counter: list[int]) -> None:
        style = layout.style(el)
        if style.display == "none" or el.attrs.get("aria-hidden") == "true":
            return
        rect = placed.rects.get(id(el))
        if rect is None:
            rect = (0.0, 0.0, 0.0, 0.0)
        left, top = max(rect[0], clip[0]), max(rect[1], clip[1])
        right, bottom = min(rect[0] + rect[2], clip[2]), min(rect[1] + rect[3], clip[3])
        visible = right - left >= 1 and bottom - top >= 1
        child_clip = (left, top, right, bottom) if style.clips else clip
        is_field = el.tag in ("input", "textarea")
        children = [c for c in el.children if isinstance(c, Element)]
        if is_field:
            text = TextScreen._value(el)
        elif children:
            text = _js_trim("".join(c.data for c in el.children if isinstance(c, Text)))
        else:
            text = _js_trim(el.text_content)
        attrs = el.attrs
        emits = visible and bool(attrs.get("data-cls") or attrs.get("data-act") or attrs.get("data-long") or
                                 is_field or text)
        if emits:
            indent = "  " * (depth + 1)
            package_el = el.closest(lambda e: "data-pkg" in e.attrs)
            package = package_el.attrs["data-pkg"] if package_el is not None else "com.android.systemui"
            rid = package + ":id/" + attrs["data-rid"] if attrs.get("data-rid") else ""
            cls = attrs.get("data-cls") or ("android.widget.EditText" if is_field else
                                            "android.view.View" if attrs.get("data-act") else
                                            "android.widget.TextView")
            checkable = "data-checked" in attrs
            bounds = (f"[{_round(left * scale)},{_round(top * scale)}]"
                      f"[{_round(right * scale)},{_round(bottom * scale)}]")
            parts = [
                f'index="{counter[0]}"', f'text="{_escape(text)}"', f'resource-id="{_escape(rid)}"',
                f'class="{cls}"', f'package="{_escape(package)}"',
                f'content-desc="{_escape(attrs.get("aria-label", ""))}"',
                f'checkable="{_js_bool(checkable)}"', f'checked="{_js_bool(attrs.get("data-checked") == "true")}"',
                f'clickable="{_js_bool(bool(attrs.get("data-act")) or is_field)}"', 'enabled="true"',
                f'focusable="{_js_bool(is_field)}"', f'focused="{_js_bool(el is focused)}"',
                f'scrollable="{_js_bool("scroll" in el.classes)}"',
                f'long-clickable="{_js_bool(bool(attrs.get("data-long")))}"', 'password="false"',
                f'selected="{_js_bool("selected" in el.classes)}"', f'bounds="{bounds}"',
            ]
            if is_field:
                parts.insert(2, f'hint="{_escape(attrs.get("placeholder", ""))}"')
            counter[0] += 1
            start = len(lines)
            lines.append(indent + "<node " + " ".join(parts) + ">")
            inner = [0]
            for child in children:
                visit(child, child_clip, depth + 1, inner)
            if len(lines) == start + 1:
                lines[start] = lines[start][:-1] + " />"
            else:
                lines.append(indent + "</node>")
        else:
            for child in children:
                visit(child, child_clip, depth, counter)

    visit(page.root, (0.0, 0.0, float(VIEWPORT_WIDTH), float(VIEWPORT_HEIGHT)), 0, [0])
    lines.append("</hierarchy>")
    return "\n".join(lines)


def _js_bool(value: bool) -> str:
    return "true" if value else "false"
