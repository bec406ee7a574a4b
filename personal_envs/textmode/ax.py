"""The accessibility tree of a :class:`~personal_envs.textmode.dom.Document`, as the browser mode's DOM walk gives it.

:func:`ax_records` follows the rules of the browser mode's DOM walk (``personal_envs/browser/js/dom_axtree.js`` in
its BrowserGym mode: Chromium's implicit roles, accessible names, states, table and landmark rules) over the
text mode's own tree and styles, and returns the same records ``[depth, bid, role, name, value, props, bbox,
interactive]``; :func:`render_browsergym` turns them into BrowserGym's text with the browser mode's own formatter
(:func:`personal_envs.browser.bgym_format.render_dom`), so both modes print with one piece of code.  The layout
facts the browser takes from Chromium (element boxes for ``visible``) come from
:mod:`personal_envs.textmode.layout`; whether an element responds to clicks (``clickable``) follows Blink's rules
for the elements and the listeners the page's scripts add (:class:`PageFacts`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any
from urllib.parse import urljoin, urlsplit

from personal_envs.browser import bgym_format
from personal_envs.browser.observation import ElementInfo
from personal_envs.textmode.axmemo import NO_DEPS, AxMemo, Fragment, flatten, render_lines
from personal_envs.textmode.css import StyleResolver
from personal_envs.textmode.dom import Document, Element, Node, Text

Box = tuple[float, float, float, float]

SKIP = frozenset({"script", "style", "noscript", "template", "head", "meta", "link", "title", "base"})
TEXT_INPUT = {"": "textbox", "text": "textbox", "email": "textbox", "tel": "textbox", "url": "textbox",
              "password": "textbox", "search": "searchbox", "number": "spinbutton", "range": "slider",
              "checkbox": "checkbox", "radio": "radio", "button": "button", "submit": "button", "reset": "button",
              "image": "button", "file": "button", "color": "button", "date": "textbox",
              "datetime-local": "textbox", "month": "textbox", "time": "textbox", "week": "textbox"}
TAG_ROLES = {
    "button": "button", "textarea": "textbox", "option": "option", "optgroup": "group", "h1": "heading",
    "h2": "heading", "h3": "heading", "h4": "heading", "h5": "heading", "h6": "heading", "ul": "list", "ol": "list",
    "menu": "list", "dl": "DescriptionList", "dt": "term", "dd": "definition", "dfn": "term", "nav": "navigation",
    "main": "main", "aside": "complementary", "form": "form", "section": "region", "article": "article",
    "dialog": "dialog", "p": "paragraph", "blockquote": "blockquote", "label": "LabelText", "fieldset": "group",
    "legend": "Legend", "figure": "figure", "figcaption": "Figcaption", "details": "group", "progress": "progressbar",
    "meter": "meter", "hr": "separator", "iframe": "Iframe", "address": "group", "hgroup": "group",
    "search": "search", "output": "status", "strong": "strong", "em": "emphasis", "mark": "mark", "code": "code",
    "del": "deletion", "s": "deletion", "ins": "insertion", "sub": "subscript", "sup": "superscript",
    "time": "time", "abbr": "Abbr", "caption": "caption", "body": "none", "html": "none",
}
ROLE_ALIASES = {"img": "image", "directory": "list", "text": "generic"}
CONTENT_NAMED = frozenset({"button", "link", "heading", "option", "cell", "gridcell", "columnheader", "rowheader",
                           "menuitem", "menuitemcheckbox", "menuitemradio", "tab", "treeitem", "checkbox", "radio",
                           "switch", "tooltip", "DisclosureTriangle", "term"})
NO_TITLE_NAME = frozenset({"generic", "paragraph", "strong", "emphasis", "mark", "time", "code", "deletion",
                           "insertion", "subscript", "superscript", "caption", "definition"})
LAYOUT_ROLES = frozenset({"LayoutTable", "LayoutTableRow", "LayoutTableCell"})
SECTIONING_TAGS = frozenset({"article", "aside", "main", "nav", "section"})
SECTIONING_ROLES = frozenset({"article", "complementary", "main", "navigation"})
ORIENTATION = {"slider": "horizontal", "scrollbar": "vertical", "separator": "horizontal", "tablist": "horizontal",
               "toolbar": "horizontal", "menu": "vertical", "menubar": "horizontal", "listbox": "vertical",
               "tree": "vertical", "radiogroup": ""}
RANGE_DEFAULTS = {"slider": (0, 100), "scrollbar": (0, 100), "progressbar": (0, 100), "meter": (0, 100),
                  "separator": (0, 100), "spinbutton": (0, 0)}
SELECTABLE = frozenset({"tab", "option", "treeitem"})
NAME_BARRIERS = frozenset({"article", "main", "banner", "complementary", "search", "status", "dialog",
                           "alertdialog", "figure", "blockquote", "note", "toolbar", "tablist", "menu", "menubar",
                           "tree", "treegrid", "listbox", "table", "grid", "navigation", "region", "form",
                           "separator", "application", "log", "alert", "tabpanel", "radiogroup", "marquee", "timer",
                           "feed", "combobox", "document"})
BARRIER_TAGS = frozenset({"article", "main", "header", "aside", "search", "output", "dialog", "figure", "blockquote",
                          "table", "fieldset", "nav", "section", "form", "hr"})
VALUE_ROLES = frozenset({"slider", "spinbutton", "scrollbar", "progressbar", "meter"})
INTERACTIVE = frozenset({"button", "link", "textbox", "searchbox", "checkbox", "radio", "combobox", "listbox",
                         "option", "menuitem", "menuitemcheckbox", "menuitemradio", "slider", "spinbutton", "switch",
                         "tab", "treeitem", "DisclosureTriangle"})
LIVE_ROLES = {"alert": ("assertive", True), "status": ("polite", True), "log": ("polite", False),
              "timer": ("off", False), "marquee": ("off", False)}
MULTISELECT_ROLES = frozenset({"listbox", "tablist", "grid", "tree", "treegrid"})
REPLACED = frozenset({"input", "select", "textarea", "button", "img", "video", "canvas", "iframe", "br", "object",
                      "embed", "meter", "progress"})
BULLETS = {"disc": "•", "circle": "◦", "square": "■"}
_NO_TEXT_VALUE = frozenset({"checkbox", "radio", "button", "submit", "reset", "image", "file", "hidden"})
_WS = re.compile(r"[ \t\n\r\f]+")
_NON_WS = re.compile(r"[^ \t\n\r\f]")
_MAX_NODES = 20000


def clip(text: str | None) -> str:
    """A name as BrowserGym's text keeps it: runs of ASCII whitespace made one space, one space cut at each end."""
    text = text or ""
    if not text.isprintable() or "  " in text:  # else no tab, line break, form feed or run of spaces to collapse
        text = _WS.sub(" ", text)
    if text.startswith(" "):
        text = text[1:]
    if text.endswith(" "):
        text = text[:-1]
    return text


@dataclass
class PageFacts:
    """What the text mode knows of a page beyond its markup.

    Attributes:
        url: The document URL (for ``url=`` of the root and of links).
        focused: The focused element (None: the body).
        listeners: Elements a page script listens to for clicks (Chromium flags them ``clickable``).
        boxes: Layout boxes by element (viewport coordinates), for ``visible`` and element boxes.
        viewport: Viewport size in CSS pixels.
    """

    url: str
    focused: Element | None = None
    listeners: frozenset[int] = frozenset()
    boxes: Mapping[int, Box] = field(default_factory=dict)
    viewport: tuple[float, float] = (1280.0, 720.0)


class AxWalker:
    """One walk of a document (the JS walk's closures as methods).

    With an :class:`~personal_envs.textmode.axmemo.AxMemo`, the walk keeps each element's output as a fragment and
    reuses the last walk's fragments where nothing they depend on changed (see :mod:`.axmemo`).
    """

    def __init__(self, document: Document, styles: StyleResolver, facts: PageFacts, memo: AxMemo | None = None
                 ) -> None:
        self.doc = document
        self.styles = styles
        self.facts = facts
        self.memo = memo
        self.out: list[tuple[Any, ...]] = []
        self._items: list[Any] = self.out
        self._table_kinds: dict[int, str] = memo.table_kinds if memo is not None else {}
        self._labels: dict[int, list[Element]] | None = memo.labels if memo is not None else None
        self._deps: set[int] = set()
        self._lookups = False
        self.count = 0

    def _read(self, *elements: Element | None) -> None:
        """The current element's output depends on the document's structure and on ``elements``."""
        self._lookups = True
        for element in elements:
            if element is not None:
                self._deps.add(id(element))

    # ------------------------------------------------------------------------------------------ roles
    @staticmethod
    def explicit_role(el: Element) -> str:
        role = el.attrs.get("role", "").strip()
        return role.split()[0].lower() if role else ""

    def _is_data_table(self, table: Element) -> bool:
        kids = table.element_children
        if any(k.tag in ("caption", "thead", "tfoot", "colgroup", "col") for k in kids) or table.attrs.get("summary"):
            return True
        body = next((k for k in kids if k.tag == "tbody"), None)
        if body is None:
            return False
        rows = [r for r in body.element_children if r.tag == "tr"]
        cells = [[c for c in r.element_children if c.tag in ("td", "th")] for r in rows]
        if len(rows) == 1 and len(cells[0]) == 1 and int(cells[0][0].attrs.get("colspan", "1") or 1) <= 1:
            return False
        if len(rows) >= 20:
            return True
        for row in cells:
            for cell in row:
                if cell.tag == "th" or any(cell.attrs.get(a) for a in ("headers", "abbr", "axis", "scope")):
                    return True
        return False

    def table_kind(self, el: Element) -> str:
        self._lookups = True
        table = el if el.tag == "table" else el.closest(lambda e: e.tag == "table")
        if table is None:
            return "layout"
        kind = self._table_kinds.get(id(table))
        if kind is None:
            role = self.explicit_role(table)
            kind = ("grid" if role in ("grid", "treegrid") else "data" if role == "table" else "layout" if role
                    else "data" if self._is_data_table(table) else "layout")
            self._table_kinds[id(table)] = kind
        return kind

    def header_role(self, th: Element) -> str:
        self._lookups = True
        scope = th.attrs.get("scope", "").lower()
        if scope in ("row", "rowgroup"):
            return "rowheader"
        if scope in ("col", "colgroup"):
            return "columnheader"
        parent = th.parent
        for cell in parent.element_children if parent is not None else []:
            if cell.tag == "td" and cell.children:
                return "rowheader"
        return "columnheader"

    def in_grid(self, el: Element) -> bool:
        self._lookups = True
        table = el.closest(lambda e: e.tag == "table" or self.explicit_role(e) in ("table", "grid", "treegrid"))
        return table is not None and self.explicit_role(table) in ("grid", "treegrid")

    def in_role_changed_list(self, li: Element) -> bool:
        self._lookups = True
        parent = li.parent
        return (parent is not None and parent.tag in ("ul", "ol", "menu") and "role" in parent.attrs
                and self.role(parent) != "list")

    @staticmethod
    def presentation_overridden(el: Element) -> bool:
        if "tabindex" in el.attrs or el.tag in ("button", "input", "select", "textarea") or \
                (el.tag == "a" and "href" in el.attrs):
            return True
        return any(name.startswith("aria-") and name != "aria-hidden" for name in el.attrs)

    def role(self, el: Element) -> str:
        explicit = self.explicit_role(el)
        if explicit in ("none", "presentation") and not self.presentation_overridden(el):
            return "none"
        if explicit and explicit not in ("none", "presentation"):
            return ROLE_ALIASES.get(explicit, explicit)
        tag = el.tag
        if tag in ("a", "area"):
            return "link" if "href" in el.attrs else "generic"
        if tag == "input":
            kind = el.input_type
            if kind == "hidden":
                return "hidden"
            if "list" in el.attrs and TEXT_INPUT.get(kind, "textbox") == "textbox":
                return "combobox"
            return TEXT_INPUT.get(kind, "textbox")
        if tag == "select":
            size = el.attrs.get("size", "")
            return "listbox" if "multiple" in el.attrs or (size.isdigit() and int(size) > 1) else "combobox"
        if tag == "img":
            return "image"
        if tag == "li":
            return "none" if self.in_role_changed_list(el) else "listitem"
        if tag in ("header", "footer"):
            inside = el.parent.closest(lambda e: e.tag in SECTIONING_TAGS or self.explicit_role(e) in
                                       SECTIONING_ROLES) if isinstance(el.parent, Element) else None
            if tag == "header":
                return "sectionheader" if inside is not None else "banner"
            return "sectionfooter" if inside is not None else "contentinfo"
        if tag == "summary":
            details = el.parent
            first = next((c for c in details.element_children if c.tag == "summary"), None) if details else None
            return "DisclosureTriangle" if details is not None and details.tag == "details" and first is el \
                else "generic"
        if tag == "table":
            return "LayoutTable" if self.table_kind(el) == "layout" else "table"
        if tag == "tr":
            return "LayoutTableRow" if self.table_kind(el) == "layout" else "row"
        if tag == "td":
            kind = self.table_kind(el)
            return "LayoutTableCell" if kind == "layout" else "gridcell" if kind == "grid" else "cell"
        if tag == "th":
            return "LayoutTableCell" if self.table_kind(el) == "layout" else self.header_role(el)
        if tag in ("thead", "tfoot"):
            return "generic" if self.table_kind(el) == "layout" else "rowgroup"
        if tag == "tbody":
            return "rowgroup" if self.table_kind(el) != "layout" else "generic"
        return TAG_ROLES.get(tag, "generic")

    # ------------------------------------------------------------------------------------------ visibility
    def shown(self, el: Element) -> tuple[str, dict[str, str] | None]:
        """``("none" | "children" | "all", style)`` as the JS walk's ``shown``."""
        if el.attrs.get("aria-hidden") == "true":
            return "none", None
        option = el.tag in ("option", "optgroup")
        if option:
            return "all", self.styles.style(el)
        if not self.styles.rendered(el):
            return "none", None
        style = self.styles.style(el)
        return ("children" if style.get("visibility") in ("hidden", "collapse") else "all"), style

    def _visible_control(self, el: Element) -> bool:
        return self.styles.rendered(el) and self.styles.style(el).get("visibility") not in ("hidden", "collapse")

    # ------------------------------------------------------------------------------------------ names
    def control_text(self, el: Element) -> str:
        tag = el.tag
        aria = el.attrs.get("aria-label", "")
        if tag == "select":
            option = el.selected_option()
            return option.option_label() if option is not None else ""
        if tag == "textarea":
            return el.value or aria
        kind = el.input_type
        if kind == "hidden":
            return ""
        if kind in ("submit", "reset", "button", "image"):
            return aria or el.value or ("Submit" if kind in ("submit", "image") else "Reset" if kind == "reset"
                                        else "")
        if kind in ("checkbox", "radio", "file", "color", "date", "datetime-local", "month", "time", "week"):
            return aria
        return ("•" * min(len(el.value), 40) if kind == "password" else el.value) or aria

    def text_of(self, node: Node, depth: int) -> str:
        if depth > 30:
            return ""
        if isinstance(node, Text):
            return node.data
        if not isinstance(node, Element) or node.tag in SKIP:
            return ""
        el = node
        tag = el.tag
        if el.attrs.get("aria-hidden") == "true":
            return ""
        if tag in ("input", "textarea", "select", "progress", "meter"):
            if depth == 0:
                return " " + (el.value if tag != "select" else self.control_text(el)) + " "
            return " " + self.control_text(el) + " " if self._visible_control(el) else ""
        if el.attrs.get("aria-label"):
            return " " + el.attrs["aria-label"] + " "
        if tag in ("img", "area"):
            return " " + el.attrs.get("alt", "") + " "
        if depth > 0 and (tag in BARRIER_TAGS or "role" in el.attrs):
            role = self.role(el)
            if role in VALUE_ROLES:
                return " " + (el.attrs.get("aria-valuetext") or el.attrs.get("aria-valuenow") or "") + " "
            if role in NAME_BARRIERS or (role == "group" and (tag == "fieldset" or "role" in el.attrs)):
                name = self.name(el, role)
                if name or not (role == "region" or (role == "form" and tag != "form")):
                    return " " + name + " "
        if not self.styles.rendered(el) or self.styles.style(el).get("visibility") == "hidden":
            return ""
        display = self.styles.display(el)
        block = display not in ("inline", "contents")
        children: Sequence[Node] = el.children
        if tag == "details" and "open" not in el.attrs:
            children = [c for c in el.children if isinstance(c, Element) and c.tag == "summary"][:1]
        text = "".join(self.text_of(child, depth + 1) for child in children)
        return " " + text + " " if block else text

    def by_ids(self, ids: str) -> str:
        found = [self.doc.get_element_by_id(i) for i in ids.split()]
        self._read(*found)
        return " ".join(e.attrs.get("aria-label") or self.text_of(e, 0) for e in found if e is not None)

    def labels_of(self, el: Element) -> list[Element]:
        self._lookups = True
        if self._labels is None:
            self._labels = {}
            for label in self.doc.iter():
                if label.tag != "label":
                    continue
                target = None
                if "for" in label.attrs:
                    target = self.doc.get_element_by_id(label.attrs["for"])
                else:
                    target = next((e for e in label.iter() if e is not label and e.tag in
                                   ("input", "select", "textarea", "button", "meter", "output", "progress")), None)
                if target is not None and not (target.tag == "input" and target.input_type == "hidden"):
                    self._labels.setdefault(id(target), []).append(label)
            if self.memo is not None:
                self.memo.labels = self._labels
        found = self._labels.get(id(el), [])
        self._read(*found)
        return found

    def label_text(self, el: Element) -> str:
        parts = []
        for label in self.labels_of(el):
            if "role" in label.attrs:
                continue
            if label.attrs.get("aria-label"):
                parts.append(label.attrs["aria-label"])
                continue
            parts.append("".join(self.text_of(child, 1) for child in label.children
                                 if not (isinstance(child, Element) and child.contains(el)) and child is not el))
        return " ".join(parts)

    def name(self, el: Element, role: str) -> str:
        labelledby = el.attrs.get("aria-labelledby")
        if labelledby:
            text = clip(self.by_ids(labelledby))
            if text:
                return text
        aria = clip(el.attrs.get("aria-label"))
        if aria:
            return aria
        tag = el.tag
        if tag in ("input", "textarea", "select", "meter", "progress"):
            kind = el.input_type
            if tag == "input" and kind in ("button", "submit", "reset"):
                return clip(el.value or ("Submit" if kind == "submit" else "Reset" if kind == "reset" else ""))
            if tag == "input" and kind == "image":
                return clip(el.attrs.get("alt") or el.value or "Submit")
            label = clip(self.label_text(el))
            if label:
                return label
            return clip(el.attrs.get("title") or el.attrs.get("placeholder") or "")
        if tag in ("img", "area"):
            return clip(el.attrs.get("alt") or el.attrs.get("title") or "")
        if tag in ("button", "output"):
            label = clip(self.label_text(el))
            if label:
                return label
        if tag == "fieldset":
            legend = next((c for c in el.element_children if c.tag == "legend"), None)
            if legend is not None:
                return clip(self.text_of(legend, 0))
        if tag == "table":
            caption = next((c for c in el.element_children if c.tag == "caption"), None)
            text = clip(self.text_of(caption, 0)) if caption is not None else clip(el.attrs.get("summary"))
            if text:
                return text
        if tag == "option":
            return clip(el.option_label())
        if role in CONTENT_NAMED or (role == "row" and self.in_grid(el)):
            text = clip(self.text_of(el, 0))
            if text:
                return text
        return "" if role in NO_TITLE_NAME else clip(el.attrs.get("title") or "")

    @staticmethod
    def _num(text: str | None) -> float | int | None:
        if text is None or not str(text).strip():
            return None
        try:
            value = float(text)
        except ValueError:
            return None
        return int(value) if value.is_integer() else value

    def value(self, el: Element, role: str) -> Any:
        tag = el.tag
        if tag == "input":
            kind = el.input_type
            if kind in _NO_TEXT_VALUE:
                return ""
            if kind == "password":
                return "•" * len(el.value)
            if kind in ("range", "number"):
                number = self._num(el.value)
                return "" if el.value == "" or number is None else number
            return el.value
        if tag == "textarea":
            return el.value
        if tag == "select":
            option = el.selected_option()
            return clip(option.option_label() if option is not None else "")
        if role in VALUE_ROLES:
            now = el.attrs.get("aria-valuenow")
            return self._num(now) if now is not None and self._num(now) is not None else ""
        if role in ("textbox", "searchbox"):
            return clip(el.text_content)
        now = el.attrs.get("aria-valuetext") or el.attrs.get("aria-valuenow")
        return clip(now) if now else ""

    def range(self, el: Element, role: str, focusable: bool) -> tuple[Any, Any] | None:
        if el.tag == "input":
            low, high = self._num(el.attrs.get("min")), self._num(el.attrs.get("max"))
            if el.input_type == "range" and role == "slider":
                return (low if low is not None else 0, max(high if high is not None else 100, low or 0))
            if el.input_type == "number" and role == "spinbutton":
                return (low if low is not None else 0, high if high is not None else 0)
        defaults = RANGE_DEFAULTS.get(role)
        if defaults is None or (role == "separator" and not focusable):
            return None
        low, high = self._num(el.attrs.get("aria-valuemin")), self._num(el.attrs.get("aria-valuemax"))
        return (low if low is not None else defaults[0], high if high is not None else defaults[1])

    # ------------------------------------------------------------------------------------------ properties
    def href(self, el: Element) -> str:
        raw = el.attrs.get("href", "")
        try:
            return joined_url(self.facts.url, raw.strip())
        except ValueError:
            return raw

    def props(self, el: Element, role: str, style: dict[str, str] | None, focusable: bool) -> dict[str, Any]:
        props: dict[str, Any] = {}
        if el is self.facts.focused:
            props["focused"] = True
        if el.disabled or el.attrs.get("aria-disabled") == "true":
            props["disabled"] = True
        if ("required" in el.attrs and el.tag in ("input", "select", "textarea")) or \
                el.attrs.get("aria-required") == "true":
            props["required"] = True
        if ("readonly" in el.attrs and el.tag in ("input", "textarea")) or el.attrs.get("aria-readonly") == "true":
            props["readonly"] = True
        if el.tag == "select" and "multiple" in el.attrs:
            props["multiselectable"] = True
        if role in ("dialog", "alertdialog") and el.attrs.get("aria-modal") == "true":
            props["modal"] = True
        kind = el.input_type
        if el.tag == "input" and kind in ("checkbox", "radio"):
            props["checked"] = "true" if el.checked else "false"
        elif "aria-checked" in el.attrs:
            props["checked"] = el.attrs["aria-checked"]
        if "aria-pressed" in el.attrs:
            props["pressed"] = el.attrs["aria-pressed"]
        if el.tag == "option":
            chosen = el.parent.closest(lambda e: e.tag == "select") if el.parent is not None else None
            selected = chosen.selected_option() is el if chosen is not None else el.selected
            props["selected"] = "true" if selected else "false"
        elif "aria-selected" in el.attrs:
            props["selected"] = el.attrs["aria-selected"]
        elif role in SELECTABLE:
            props["selected"] = "false"
        if el.tag == "select" and role == "combobox":
            props["expanded"] = "false"
        elif "aria-expanded" in el.attrs:
            props["expanded"] = el.attrs["aria-expanded"]
        elif role == "DisclosureTriangle" and el.tag == "summary" and el.parent is not None:
            props["expanded"] = "true" if "open" in el.parent.attrs else "false"
        if el.attrs.get("aria-invalid", "false") != "false":
            props["invalid"] = el.attrs["aria-invalid"]
        bounds = self.range(el, role, focusable)
        if bounds is not None:
            props["valuemin"], props["valuemax"] = bounds
        if role in ORIENTATION:
            aria = el.attrs.get("aria-orientation", "").lower()
            orientation = aria if aria in ("horizontal", "vertical") else ORIENTATION[role]
            if el.tag == "input" and aria not in ("horizontal", "vertical"):
                orientation = "horizontal"
            if orientation:
                props["orientation"] = orientation
        if role == "link" and "href" in el.attrs:
            href = self.href(el)
            if href:
                props["url"] = clip(href)
        self._bg_props(el, role, props)
        if role == "image" and el.tag == "img" and el.attrs.get("src"):
            props["url"] = urljoin(self.facts.url, el.attrs["src"]) if not el.attrs["src"].startswith("data:") \
                else el.attrs["src"]
        return props

    def _bg_props(self, el: Element, role: str, props: dict[str, Any]) -> None:
        implicit = LIVE_ROLES.get(role)
        live = el.attrs.get("aria-live")
        if implicit or (live and live != "off"):
            props["live"] = live or (implicit[0] if implicit else "")
            props["atomic"] = (el.attrs["aria-atomic"] == "true") if "aria-atomic" in el.attrs \
                else bool(implicit and implicit[1])
            props["relevant"] = el.attrs.get("aria-relevant") or "additions text"
            if el.attrs.get("aria-busy") == "true":
                props["busy"] = 1
        if "aria-keyshortcuts" in el.attrs:
            props["keyshortcuts"] = el.attrs["aria-keyshortcuts"]
        popup = el.attrs.get("aria-haspopup", "").lower()
        if el.tag == "select" and role == "combobox":
            props["hasPopup"] = "menu"
        elif popup and popup != "false":
            props["hasPopup"] = "menu" if popup == "true" else popup
        if role in MULTISELECT_ROLES:
            props["multiselectable"] = (el.tag == "select" and "multiple" in el.attrs) or \
                el.attrs.get("aria-multiselectable") == "true"
        if role in ("slider", "spinbutton") and el.tag == "input" and el.value != "":
            props["valuetext"] = el.value

    def is_folded_label(self, label: Element) -> bool:
        control = self.label_control(label)
        if control is None or control.tag != "input" or any(
                a in label.attrs for a in ("role", "tabindex", "aria-label", "aria-labelledby")):
            return False
        if control.input_type not in ("checkbox", "radio") or "aria-label" in control.attrs or \
                "aria-labelledby" in control.attrs:
            return False
        if not self.styles.rendered(control):
            return False
        return all(not isinstance(child, Element) or child is control for child in label.children)

    def label_control(self, label: Element) -> Element | None:
        if "for" in label.attrs:
            target = self.doc.get_element_by_id(label.attrs["for"])
            self._read(target)
            return target if target is not None and target.tag in ("input", "select", "textarea", "button") else None
        return next((e for e in label.iter() if e is not label and e.tag in ("input", "select", "textarea",
                                                                             "button")), None)

    def _ignorable_neighbour(self, sibling: Node | None, forward: bool) -> bool:
        self._lookups = True
        while sibling is not None and isinstance(sibling, Element) and sibling.tag in SKIP:
            sibling = sibling.next_sibling if forward else sibling.previous_sibling
        if sibling is None:
            return True
        if isinstance(sibling, Text):
            return not _NON_WS.search(sibling.data)
        assert isinstance(sibling, Element)
        if sibling.tag in REPLACED:
            return True
        return self.styles.display(sibling) != "inline"

    def marker_text(self, li: Element, kind: str) -> str:
        if kind in BULLETS:
            return BULLETS[kind]
        if kind.startswith(("\"", "'")):
            return clip(kind[1:-1])
        return "0."  # BrowserGym writes each <li>'s value property (0 unless set) into its value attribute

    # ------------------------------------------------------------------------------------------ walk
    def visit(self, node: Node, depth: int, parent_texts: list[str], text_hidden: bool) -> None:
        memo = self.memo
        if memo is None or not isinstance(node, Element):
            self._visit(node, depth, parent_texts, text_hidden)
            return
        context = (depth, parent_texts[0], text_hidden)
        fragment = memo.reusable(node, context)
        if fragment is not None and self.count + fragment.count <= _MAX_NODES:
            self.count += fragment.count
            self._items.append(fragment)
            self._deps |= fragment.deps
            self._lookups = self._lookups or fragment.lookups
            return
        outer_items, outer_deps, outer_lookups, start = self._items, self._deps, self._lookups, self.count
        fragment = Fragment(node, context)
        items: list[Any] = []
        self._items, self._deps, self._lookups = items, set(), False
        try:
            self._visit(node, depth, parent_texts, text_hidden)
        finally:
            fragment.items = tuple(items)
            fragment.deps = frozenset(self._deps) if self._deps else NO_DEPS
            fragment.lookups = self._lookups
            fragment.count = self.count - start
            memo.entries[id(node)] = fragment
            outer_items.append(fragment)
            outer_deps |= fragment.deps
            self._items, self._deps, self._lookups = outer_items, outer_deps, outer_lookups or fragment.lookups

    def _visit(self, node: Node, depth: int, parent_texts: list[str], text_hidden: bool) -> None:
        self.count += 1
        if self.count > _MAX_NODES:
            return
        if isinstance(node, Text):
            if text_hidden:
                return
            text = clip(node.data)
            if not text and node.data:
                if self._ignorable_neighbour(node.previous_sibling, False) or \
                        self._ignorable_neighbour(node.next_sibling, True):
                    return
                text = " "
            if text and text not in parent_texts[0]:
                self._items.append((depth, "", "StaticText", text, "", None, None, False))
            return
        if not isinstance(node, Element) or node.tag in SKIP:
            return
        el = node
        visibility, style = self.shown(el)
        if visibility == "none":
            return
        role = self.role(el)
        if role == "hidden":
            return
        focusable = "tabindex" in el.attrs and _tabindex(el) >= 0
        clickable = "onclick" in el.attrs
        name = ""
        folded = False
        emit = visibility == "all" and role not in ("none", "generic")
        if visibility == "all" and role in LAYOUT_ROLES:
            name = clip(self.text_of(el, 0)) if role == "LayoutTableCell" else ""
        elif visibility == "all" and role == "generic":
            props = self.props(el, role, style, focusable)
            emit = any(value is not False for value in props.values())
            if emit:
                name = self.name(el, role) or (clip(self.text_of(el, 0)) if focusable or clickable else "")
        elif emit:
            name = self.name(el, role)
            if not name and (role == "region" or (role == "form" and el.tag != "form")):
                emit = False
            elif role == "LabelText" and self.is_folded_label(el):
                folded = True
        elif visibility == "all" and role == "generic" and ("aria-label" in el.attrs or
                                                            "aria-labelledby" in el.attrs):
            name = self.name(el, role)
            emit = name != ""
        child_depth = depth
        texts = parent_texts
        if emit:
            props = self.props(el, role, style, focusable)
            value = self.value(el, role)
            interactive = not props.get("disabled") and (role in INTERACTIVE or focusable or clickable)
            box = self.facts.boxes.get(id(el)) if el.bid and self.memo is None else None
            self._items.append((depth, el.bid, role, name, value, tuple(props.items()) if props else None,
                                list(box) if box else None, interactive))
            child_depth = depth + 1
            texts = [name]
            if el.tag == "select" and role == "combobox":
                self._items.append((child_depth, "", "MenuListPopup", "", "", None, None, False))
                child_depth += 1
        if emit and el.tag in ("textarea", "input"):
            kind = el.input_type
            if kind not in ("checkbox", "radio", "button", "submit", "reset", "image", "file", "hidden", "range",
                            "color"):
                shown_text = "•" * len(el.value) if kind == "password" else el.value
                for line in shown_text.split("\n"):
                    if line:
                        self._items.append((child_depth, "", "StaticText", line, "", None, None, False))
        if el.tag in ("textarea", "input"):
            return
        assert style is not None
        if el.tag == "li" and self.in_role_changed_list(el) and visibility == "all" and \
                style.get("display") == "list-item" and style.get("list-style-type") != "none":
            marker = self.marker_text(el, style.get("list-style-type", "disc"))
            if marker not in texts:
                self._items.append((child_depth, "", "StaticText", marker, "", None, None, False))
        elif emit and role == "listitem" and visibility == "all" and style.get("display") == "list-item" and \
                style.get("list-style-type") != "none":
            self._items.append((child_depth, "", "ListMarker", self.marker_text(el, style.get("list-style-type",
                                                                                             "disc")) + " ",
                             "", None, None, False))
        children: list[Node] = el.children
        if el.tag == "table":
            caption = [c for c in el.element_children if c.tag == "caption"][:1]
            head = caption + [c for c in el.element_children if c.tag == "thead"][:1]
            foot = [c for c in el.element_children if c.tag == "tfoot"][:1]
            if head or foot:
                children = [*head, *[c for c in children if c not in head and c not in foot], *foot]
        elif el.tag == "details":
            summary = next((c for c in el.element_children if c.tag == "summary"), None)
            if summary is None and emit:
                self._items.append((child_depth, "", "DisclosureTriangle", "Details", "", None, None, False))
            if "open" not in el.attrs:
                children = [summary] if summary is not None else []
        if not emit:
            texts = [name]
        for child in children:
            self.visit(child, child_depth, texts, visibility != "all" or folded)

    def walk(self) -> list[tuple[Any, ...]]:
        """The records of the whole document (with a memo, boxes are left out of the records: they come from the
        layout when the text is printed)."""
        root_props = (("focused", True), ("url", self.facts.url))
        self.out = [(0, "", "RootWebArea", self.doc.title, "", root_props, None, False)]
        body = self.doc.body
        memo = self.memo
        if memo is None:
            self._items = self.out
            if body is not None:
                self.visit(body, 1, [""], False)
            return self.out
        memo.begin(self.facts.url, self.facts.focused, self.styles.token, self.doc.generation)
        top: list[Any] = []
        self._items = top
        if body is not None:
            self.visit(body, 1, [""], False)
        memo.finish()
        flatten(top, self.out)
        return self.out


def joined_url(base: str, link: str) -> str:
    """``urljoin(base, link)``, kept: a site's pages repeat their links.  An absolute URL or path reads only the
    base's scheme and authority, so those links are kept by that part of the base (one entry for every page of a
    site), the others by the whole base."""
    if link.startswith(("/", "http://", "https://")):
        base = _authority(base)
    return _joined(base, link)


@lru_cache(maxsize=4096)
def _authority(base: str) -> str:
    parts = urlsplit(base)
    return f"{parts.scheme}://{parts.netloc}/" if parts.scheme and parts.netloc else base


@lru_cache(maxsize=65536)
def _joined(base: str, link: str) -> str:
    return urljoin(base, link)


def _tabindex(el: Element) -> int:
    try:
        return int(el.attrs.get("tabindex", "").strip())
    except ValueError:
        return -1


#: Tags whose elements respond to clicks in Blink without a listener (when enabled).
_NATIVE_CLICKABLE = frozenset({"input", "summary"})


def clickable(element: Element, styles_listeners: frozenset[int], labels: Callable[[Element], Element | None]
              ) -> bool:
    """Whether Chromium's DOM snapshot flags ``element`` as responding to clicks (``isClickable``)."""
    if id(element) in styles_listeners or "onclick" in element.attrs:
        return True
    tag = element.tag
    if tag == "a":
        return "href" in element.attrs
    if tag in _NATIVE_CLICKABLE:
        return not element.disabled
    if tag == "button":
        kind = element.attrs.get("type", "submit").lower()
        return not element.disabled and element.form is not None and kind in ("submit", "reset")
    if tag == "label":
        control = labels(element)
        return control is not None and clickable(control, styles_listeners, labels)
    return False


def snapshot_bids(document: Document, listeners: frozenset[int], walker: AxWalker
                  ) -> tuple[frozenset[str], frozenset[str]]:
    """``(marked, clickable)``: the bids BrowserGym marks (standard HTML tags) and those Chromium flags as
    responding to clicks."""
    standard, labels = bgym_format.STANDARD_HTML_TAGS, walker.label_control
    with_bids = [e for e in document.iter() if e.bid]
    marked = frozenset(e.bid for e in with_bids if e.tag in standard)
    clickable_bids = frozenset(e.bid for e in with_bids if clickable(e, listeners, labels))
    return marked, clickable_bids


def render_browsergym(document: Document, styles: StyleResolver, facts: PageFacts, memo: AxMemo | None = None,
                      boxes_by_bid: Mapping[str, Box] | None = None,
                      bids: tuple[frozenset[str], frozenset[str]] | None = None
                      ) -> tuple[str, Mapping[str, ElementInfo]]:
    """BrowserGym's AX-tree text of ``document`` and its elements by bid.

    With a ``memo`` (kept by the caller for the same document), the walk reuses what has not changed since the
    last call and the printing reuses unchanged lines; ``boxes_by_bid`` and ``bids`` (:func:`snapshot_bids`) may
    be given when the caller keeps them.
    """
    walker = AxWalker(document, styles, facts, memo)
    records = walker.walk()
    if bids is None:
        bids = snapshot_bids(document, facts.listeners, walker)
    marked, clickable_bids = bids
    if boxes_by_bid is None:
        boxes_by_bid = {e.bid: facts.boxes[id(e)] for e in document.iter() if e.bid and id(e) in facts.boxes}
    if memo is not None:
        return render_lines(records, memo, boxes_by_bid, clickable_bids, marked, facts.viewport)
    snapshot = bgym_format.SnapshotFacts({}, {}, {}, dict(boxes_by_bid), clickable_bids, marked)
    return bgym_format.render_dom(records, snapshot, facts.viewport)
