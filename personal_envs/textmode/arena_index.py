"""BrowserArena's element index computed from a text-mode page (the rules of ``browserarena/js/index_elements.js``).

:func:`index_page` returns what the browser mode's indexing script returns (the same dictionary), so
:func:`personal_envs.browserarena.dom.parse_index` prints it as the browser mode does.  The rules carry over: visible
interactive elements within the viewport plus ``expansion`` pixels, not covered by another element at their centre
(hit-tested on the text mode's layout), numbered in document order; the visible text between them; the captcha and
banner heuristics.  ``innerText`` is approximated from the cascade (hidden subtrees left out, a line break around
each block): the list collapses whitespace, so only where words are joined or split matters.

It also returns the numbered elements, so that actions can address them without stamping an attribute into the
page (the browser mode's ``data-arena-index`` attribute is not added: the page's HTML stays as served).
"""

from __future__ import annotations

import re
from typing import Any

from personal_envs.textmode.css import StyleResolver
from personal_envs.textmode.dom import Document, Element, Node, Text
from personal_envs.textmode.layout import Layout

_ROLES = frozenset({"button", "link", "checkbox", "radio", "tab", "menuitem", "switch", "combobox", "textbox",
                    "option", "slider", "searchbox", "menuitemcheckbox", "menuitemradio", "treeitem",
                    "spinbutton"})
_SKIP = frozenset({"script", "style", "noscript", "template", "head", "meta", "link", "svg"})
_ATTRS = ("type", "name", "placeholder", "href", "aria-label", "role", "title", "alt")
_SPACE = re.compile(r"\s+")
_CAPTCHA_TEXT = re.compile(r"are you a (human|robot)|bot or not|verify you are human|not a robot|captcha")
_CAPTCHA_FRAMES = ("recaptcha", "hcaptcha", "turnstile")
_BANNER_WORDS = ("cookie", "consent", "gdpr")
_LEADING_INT = re.compile(r"^\s*([+-]?\d+)")

Box = tuple[float, float, float, float]


def clean(text: str | None, limit: int) -> str:
    """Whitespace collapsed and trimmed, cut at ``limit`` characters (the script's ``clean``)."""
    return _SPACE.sub(" ", text or "").strip()[:limit]


class _Indexer:
    def __init__(self, document: Document, styles: StyleResolver, layout: Layout, scroll_y: float,
                 viewport: tuple[int, int], expansion: int, max_items: int) -> None:
        self.doc = document
        self.styles = styles
        self.layout = layout
        self.scroll_y = scroll_y
        self.vw, self.vh = float(viewport[0]), float(viewport[1])
        self.expansion = expansion
        self.max_items = max_items
        self.items: list[dict[str, Any]] = []
        self.numbered: dict[int, Element] = {}
        self._paint: list[tuple[tuple[int, int, int], Element, Box]] | None = None
        self._fixed: set[int] | None = None

    # ------------------------------------------------------------------------------------------ geometry
    def rect(self, el: Element) -> Box:
        """``getBoundingClientRect()``: viewport coordinates (a ``position: fixed`` subtree does not scroll)."""
        box = self.layout.boxes.get(id(el))
        if box is None:
            return (0.0, 0.0, 0.0, 0.0)
        if self.scroll_y and id(el) in self.fixed():
            return box
        return (box[0], box[1] - self.scroll_y, box[2], box[3])

    def fixed(self) -> set[int]:
        """Ids of the elements in ``position: fixed`` subtrees (laid out against the viewport at scroll 0)."""
        if self._fixed is None:
            fixed: set[int] = set()
            for element in self.doc.iter():
                if isinstance(element, Document):
                    continue
                parent = element.parent
                if (parent is not None and id(parent) in fixed) or self.styles.style(element).get("position") == "fixed":
                    fixed.add(id(element))
            self._fixed = fixed
        return self._fixed

    def in_range(self, r: Box) -> bool:
        left, top, width, height = r
        return top + height >= -self.expansion and top <= self.vh + self.expansion and left + width >= 0 \
            and left <= self.vw

    def on_top(self, el: Element, r: Box) -> bool:
        cx = r[0] + min(r[2], self.vw) / 2
        cy = r[1] + min(r[3], self.vh) / 2
        if cx < 0 or cy < 0 or cx >= self.vw or cy >= self.vh:
            return True
        hit = self.hit(cx, cy + self.scroll_y)
        if hit is None:
            return False
        if hit is el or _contains(el, hit) or _contains(hit, el):
            return True
        label = hit if hit.tag == "label" else hit.closest(lambda e: e.tag == "label")
        return label is not None and _contains(label, el)

    def hit(self, x: float, y: float) -> Element | None:
        """``elementFromPoint`` at a page point: positioned layers (``fixed`` / ``absolute`` subtrees, by
        ``z-index``) above the flow, later and deeper elements above earlier ones."""
        if self._paint is None:
            self._paint = self._paint_order()
        found: tuple[tuple[int, int, int], Element] | None = None
        for key, element, box in self._paint:
            if box[0] <= x < box[0] + box[2] and box[1] <= y < box[1] + box[3] and (found is None or key > found[0]):
                found = (key, element)
        return found[1] if found is not None else None

    def _paint_order(self) -> list[tuple[tuple[int, int, int], Element, Box]]:
        order: list[tuple[tuple[int, int, int], Element, Box]] = []
        layers: dict[int, tuple[int, int]] = {}
        for position, element in enumerate(self.doc.iter()):
            parent = element.parent
            layer = layers.get(id(parent), (0, 0)) if parent is not None else (0, 0)
            style = self.styles.style(element) if not isinstance(element, Document) else {}
            if style.get("position") in ("fixed", "absolute"):
                match = _LEADING_INT.match(style.get("z-index", ""))
                layer = (1, int(match.group(1)) if match else 0)
            layers[id(element)] = layer
            box = self.layout.boxes.get(id(element))
            if box is None or isinstance(element, Document) or style.get("visibility") == "hidden" \
                    or style.get("pointer-events") == "none":
                continue
            if self.scroll_y and id(element) in self.fixed():
                box = (box[0], box[1] + self.scroll_y, box[2], box[3])
            order.append(((layer[0], layer[1], position), element, box))
        return order

    # ------------------------------------------------------------------------------------------ element rules
    def style_ok(self, el: Element) -> bool:
        style = self.styles.style(el)
        return style["display"] != "none" and style.get("visibility") != "hidden" and _opacity(style) > 0

    @staticmethod
    def interactive(el: Element) -> bool:
        tag = el.tag
        if el.disabled:
            return False
        if tag == "a":
            return "href" in el.attrs or "onclick" in el.attrs
        if tag == "input":
            return el.input_type != "hidden"
        if tag in ("button", "select", "textarea", "summary"):
            return True
        if el.attrs.get("role", "").lower() in _ROLES:
            return True
        if "onclick" in el.attrs:
            return True
        if _editable(el) and not (isinstance(el.parent, Element) and _editable(el.parent)):
            return True
        tabindex = el.attrs.get("tabindex")
        if tabindex is None:
            return False
        match = _LEADING_INT.match(tabindex)
        return match is not None and int(match.group(1)) >= 0

    def label(self, el: Element) -> str:
        tag = el.tag
        if tag in ("input", "textarea"):
            return clean(el.attrs.get("aria-label") or el.attrs.get("placeholder") or el.attrs.get("title")
                         or el.attrs.get("name") or "", 120)
        if tag == "select":
            chosen = _selected_option(el)
            return clean(chosen.text_content if chosen is not None else "", 120)
        return clean(self.inner_text(el) or el.attrs.get("aria-label") or el.attrs.get("title")
                     or el.attrs.get("alt") or "", 120)

    @staticmethod
    def attributes(el: Element) -> dict[str, str]:
        out: dict[str, str] = {}
        for name in _ATTRS:
            value = el.attrs.get(name)
            if value:
                out[name] = clean(value, 160 if name == "href" else 80)
        value = el.value
        if el.tag == "input" and not value and "value" not in el.attrs and el.input_type in ("checkbox", "radio"):
            value = "on"  # the default value of a checkbox or radio button
        if el.tag in ("input", "textarea") and value:
            out["value"] = clean(value, 80)
        if el.tag == "input" and el.input_type in ("checkbox", "radio"):
            out["checked"] = "true" if el.checked else "false"
        return out

    def inner_text(self, el: Element) -> str:
        """``innerText`` as far as the list needs it (see the module docstring)."""
        return inner_text(el, self.styles)

    # ------------------------------------------------------------------------------------------ walk
    def walk(self, node: Node, inside_indexed: bool) -> None:
        if len(self.items) >= self.max_items:
            return
        if isinstance(node, Text):
            if inside_indexed:
                return
            text = clean(node.data, 300)
            parent = node.parent
            if not text or parent is None or isinstance(parent, Document):
                return
            r = self.rect(parent)
            if r[2] > 0 and r[3] > 0 and self.in_range(r):
                self.items.append({"kind": "text", "text": text})
            return
        if not isinstance(node, Element) or node.tag in _SKIP:
            return
        el = node
        ok = self.style_ok(el)
        if not ok and self.styles.style(el)["display"] == "none":
            return
        indexed = False
        if ok and self.interactive(el):
            r = self.rect(el)
            if r[2] > 0 and r[3] > 0 and self.in_range(r) and self.on_top(el, r):
                number = len(self.numbered)
                self.numbered[number] = el
                self.items.append({"kind": "element", "index": number, "tag": el.tag, "text": self.label(el),
                                   "attrs": self.attributes(el), "bbox": list(r),
                                   "inViewport": r[1] + r[3] > 0 and r[1] < self.vh})
                indexed = True
        for child in el.children:
            self.walk(child, inside_indexed or indexed)

    # ------------------------------------------------------------------------------------------ page flags
    def captcha(self, body_text: str) -> bool:
        if self.doc.find(lambda e: "data-captcha" in e.attrs) is not None:
            return True
        if self.doc.find(lambda e: e.tag == "iframe" and any(w in e.attrs.get("src", "") for w in _CAPTCHA_FRAMES)):
            return True
        return _CAPTCHA_TEXT.search(body_text.lower()) is not None

    def banner(self) -> bool:
        if self.doc.find(lambda e: "data-banner-visible" in e.attrs) is not None:
            return True

        def matches(e: Element) -> bool:
            key = (e.attrs.get("id", "").lower(), e.attrs.get("class", "").lower())
            if any(word in part for word in _BANNER_WORDS for part in key):
                return True
            role = e.attrs.get("role")
            return (role == "dialog" and e.attrs.get("aria-modal") == "true") or role == "alertdialog"

        for element in self.doc.find_all(matches):
            r = self.rect(element)
            if r[2] > 0 and r[3] > 0 and self.style_ok(element):
                return True
        return False


def index_page(document: Document, styles: StyleResolver, layout: Layout, *, url: str, scroll_y: float,
               viewport: tuple[int, int], expansion: int = 500, max_items: int = 400
               ) -> tuple[dict[str, Any], dict[int, Element]]:
    """The indexing script's result for the page (``items``, ``url``, ``title``, ``scrollY``, ``pageHeight``,
    ``viewport``, ``captcha``, ``banner``, ``truncated``) and the numbered elements by index."""
    indexer = _Indexer(document, styles, layout, scroll_y, viewport, expansion, max_items)
    body = document.body
    if body is not None:
        indexer.walk(body, False)
    body_text = indexer.inner_text(body) if body is not None else ""
    raw = {"items": indexer.items, "url": url, "title": document.title, "scrollY": scroll_y,
           "pageHeight": max(layout.height, float(viewport[1])), "viewport": [viewport[0], viewport[1]],
           "captcha": indexer.captcha(body_text), "banner": indexer.banner(),
           "truncated": len(indexer.items) >= max_items}
    return raw, indexer.numbered


def inner_text(element: Element, styles: StyleResolver) -> str:
    """``element.innerText`` as this module approximates it (hidden subtrees left out, a line break around each
    block, a tab after each table cell); also what ``extract_content`` reads in the text mode."""
    parts: list[str] = []
    _inner(element, styles, parts)
    return "".join(parts)


def _inner(node: Node, styles: StyleResolver, parts: list[str]) -> None:
    if isinstance(node, Text):
        parent = node.parent
        if parent is not None and styles.style(parent).get("visibility") != "hidden":
            parts.append(node.data)
        return
    assert isinstance(node, Element)
    if node.tag in ("script", "style", "noscript", "template", "head", "title"):
        return
    display = styles.style(node)["display"]
    if display == "none":
        return
    if node.tag == "br":
        parts.append("\n")
        return
    if node.tag in ("input", "textarea", "select"):
        return
    block = not display.startswith("inline") and display != "contents"
    if block:
        parts.append("\n")
    for child in node.children:
        _inner(child, styles, parts)
    if display == "table-cell":
        parts.append("\t")
    if block:
        parts.append("\n")


def receives_click(document: Document, styles: StyleResolver, layout: Layout, element: Element, *, scroll_y: float,
                   viewport: tuple[int, int]) -> bool:
    """True when a click at the centre of ``element`` reaches it: ``elementFromPoint`` there (the hit test of
    :func:`index_page`) is the element, an element inside it, or a label of it.  Also True when the centre lies
    outside the viewport (nothing to test)."""
    indexer = _Indexer(document, styles, layout, scroll_y, viewport, 0, 0)
    r = indexer.rect(element)
    cx, cy = r[0] + r[2] / 2, r[1] + r[3] / 2
    if cx < 0 or cy < 0 or cx >= indexer.vw or cy >= indexer.vh:
        return True
    hit = indexer.hit(cx, cy + scroll_y)
    if hit is None:
        return False
    if _contains(element, hit):
        return True
    label = hit if hit.tag == "label" else hit.closest(lambda e: e.tag == "label")
    return label is not None and _contains(label, element)


def _contains(outer: Element, inner: Element) -> bool:
    node: Element | None = inner
    while node is not None:
        if node is outer:
            return True
        node = node.parent
    return False


def _editable(el: Element) -> bool:
    value = el.attrs.get("contenteditable")
    if value is None:
        return isinstance(el.parent, Element) and not isinstance(el.parent, Document) and _editable(el.parent)
    return value.lower() in ("", "true", "plaintext-only")


def _opacity(style: dict[str, str]) -> float:
    try:
        return float(style.get("opacity", "1") or "1")
    except ValueError:
        return 1.0


def _selected_option(select: Element) -> Element | None:
    options = select.options
    chosen = next((option for option in options if option.selected), None)
    if chosen is None and options and "multiple" not in select.attrs:
        chosen = options[0]
    return chosen
