"""A browser session without a browser: the project's own sites served in-process, observed as BrowserGym text.

:class:`TextSession` offers what the web envs use of :class:`~personal_envs.browser.session.BrowserSession`
(``goto``, ``execute`` with the same action set and the same error texts, ``observe``, tabs and history,
``messages``) over :class:`~personal_envs.core.http.Request` handlers called directly: a navigation, a form
submission or a script's request becomes one call of the site's ``handle`` (no socket, no thread), so carts, orders
and checkouts land in the same server-side state the browser mode reaches over HTTP.  What the pages' scripts do in
a browser is done by :class:`PageScript` objects the env registers (WebMall's in-place "Add to cart", its ordering
drop-down, the solution page's in-place submission).  Pages are parsed by :mod:`.dom`, styled by :mod:`.css`, laid
out by :mod:`.layout` and read by :mod:`.ax`.  No screenshot exists in this mode.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from http.cookies import SimpleCookie
from typing import Any, Protocol
from urllib.parse import parse_qs, urlencode, urljoin, urlsplit

from personal_envs.browser.actions import read_browser_action
from personal_envs.browser.observation import ElementInfo, PageObservation
from personal_envs.browser.origins import NAVIGABLE_SCHEMES, AllowedOrigins, origin_of
from personal_envs.core.actions import Action
from personal_envs.core.http import Request, Response
from personal_envs.textmode.ax import AxWalker, PageFacts, render_browsergym, snapshot_bids
from personal_envs.textmode.axmemo import AxMemo
from personal_envs.textmode.css import StyleResolver
from personal_envs.textmode.dom import (
    Document,
    Element,
    markup_text_changes,
    parse_html,
    serialize,
    stamp_bids,
    text_changes,
)
from personal_envs.textmode.layout import Box, Layout, ShiftedBoxes, layout_document, same_text_widths
from personal_envs.textmode.page_cache import PageCache
from personal_envs.textmode.page_script import PageScript

SESSION_CLOSED = "the browser session is closed"
_BID_PATTERN = re.compile(r"^\[?\s*([A-Za-z0-9_.-]{1,40})\s*\]?$")
_SCHEME_PATTERN = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*):")
_FORBIDDEN_SCHEMES = frozenset({"file", "chrome", "javascript", "view-source", "devtools", "chrome-extension",
                                "chrome-untrusted", "edge", "about"})
_BLANK = "<!DOCTYPE html><html><head></head><body></body></html>"
_NON_TEXT_INPUTS = frozenset({"button", "checkbox", "radio", "submit", "reset", "file", "image", "hidden", "range",
                              "color"})
_MAX_REDIRECTS = 20
#: Pages whose parsed tree, layout and first observation a session keeps for when the same page loads again.
PAGE_CACHE_SIZE = 256


class Site(Protocol):
    """What serves one origin: the same handler the HTTP server calls."""

    def handle(self, request: Request) -> Response: ...


def _join(*parts: str) -> str:
    return "; ".join(part for part in parts if part)


@dataclass
class _Rendered:
    """A document as it was loaded, with what was computed for it (reused when the same page loads again)."""

    document: Document
    styles: StyleResolver
    fields: list[tuple[Element, str, bool, bool]]
    layout: Layout | None = None
    next_bid: int = 1
    pristine: tuple[str, Mapping[str, ElementInfo]] | None = None
    holder: TextPage | None = None
    #: A script changed the tree: it is no longer the page as loaded and is not reused.
    stale: bool = False
    #: What the last AX walk of the document leaves for the next one.
    memo: AxMemo = field(default_factory=AxMemo)
    #: The document as HTML while it is as loaded (``page.content()``).
    html: str | None = None

    def restore(self) -> bool:
        """Put the document back as it was loaded (scripts' changes undone, the form as loaded), its styles and AX
        memo following; False when a change cannot be undone."""
        document = self.document
        if document.modified and not document.revert():
            return False
        for element, value, checked, selected in self.fields:
            element.value, element.checked, element.selected = value, checked, selected
        self.settle()
        return True

    def settle(self) -> None:
        """Let the styles and the AX memo follow the changes the document noted (not a change of the page: the
        layout of the page as loaded is :attr:`layout`)."""
        changed, restyled, _, everything = self.document.take_changes()
        if everything:
            self.styles.invalidate()
            self.memo.clear()
            return
        for element in restyled:
            self.styles.invalidate_subtree(element)
        self.memo.note(changed, restyled)


@dataclass
class TextPage:
    """One document shown in a tab.

    ``version`` counts the changes of the page's state (values, focus, script changes); an observation is computed
    again only after one.  A page loaded with the same HTML as an earlier one reuses that one's parsed tree, styles,
    layout and first observation (:class:`TextSession` keeps them), with the form state put back as loaded.
    """

    url: str
    document: Document
    status: int = 200
    focused: Element | None = None
    scroll_y: float = 0.0
    next_bid: int = 1
    scripts: list[PageScript] = field(default_factory=list)
    version: int = 0
    rendered: _Rendered | None = None
    observed: tuple[int, float, str, Mapping[str, ElementInfo]] | None = None
    _styles: StyleResolver | None = None
    _layout: Layout | None = None
    _memo: AxMemo | None = None
    #: The boxes by bid of a layout, with the layout they are for (the layout itself, not its ``id``: a new
    #: layout may be made where a freed one was).
    _boxes: tuple[Layout, dict[str, Box]] | None = None
    _bids: tuple[tuple[int, int, frozenset[int]], tuple[frozenset[str], frozenset[str]]] | None = None
    _html: str | None = None
    _classes_and_links: tuple[int, frozenset[str], frozenset[str]] | None = None

    @property
    def memo(self) -> AxMemo:
        """What the last AX walk of the document leaves for the next one."""
        if self._memo is None:
            self._memo = self.rendered.memo if self.rendered is not None else AxMemo()
        return self._memo

    def sync(self) -> None:
        """Take the changes the document noted since the last call: styles, layout and the AX memo follow them
        (values and focus keep the layout; text, attributes and children lay the page out again)."""
        document = self.document
        if not (document.changed_nodes or document.layout_stale or document.everything_changed):
            return
        changed, restyled, relayout, everything = document.take_changes()
        self.version += 1
        if relayout or everything:  # text, attributes, children: the markup differs (form state is not in it)
            self._html = None
        if everything:
            if self._styles is not None:
                self._styles.invalidate()
            self.memo.clear()
        else:
            if self._styles is not None:
                for element in restyled:
                    self._styles.invalidate_subtree(element)
            self.memo.note(changed, restyled)
        if relayout or everything:
            self._layout = None
        if not document.revertible:
            self._detach()

    def _detach(self) -> None:
        """The tree can no longer be put back as loaded: it is not reused for a later load."""
        if self.rendered is not None:
            self._memo = self.memo
            self.rendered.stale = True
            self.rendered.holder = None
            self.rendered = None

    @property
    def styles(self) -> StyleResolver:
        """The page's computed styles (kept until the document changes)."""
        self.sync()
        if self._styles is None:
            self._styles = StyleResolver(self.document)
        if self._styles.focused is not self.focused and self._styles.has_focus_rules:
            self._styles.invalidate()
            self._layout = None
        self._styles.focused = self.focused
        return self._styles

    def layout(self, viewport: tuple[int, int]) -> Layout:
        """The page's layout (kept until a change can move boxes)."""
        styles = self.styles
        if self._layout is None:
            self._layout = layout_document(self.document, styles, viewport)
            if self.rendered is not None and self.version == 0:
                self.rendered.layout = self._layout
        return self._layout

    def boxes_by_bid(self, viewport: tuple[int, int]) -> Mapping[str, Box]:
        """Viewport boxes of the elements with a bid at the current scroll position (the page's boxes by bid are
        kept with their layout; a scrolled view moves each box when it is read)."""
        layout = self.layout(viewport)
        kept = self._boxes
        if kept is None or kept[0] is not layout:
            boxes = layout.boxes
            kept = self._boxes = (layout, {e.bid: boxes[id(e)] for e in self.document.iter()
                                           if e.bid and id(e) in boxes})
        return ShiftedBoxes(kept[1], self.scroll_y) if self.scroll_y else kept[1]

    def snapshot_bids(self, listeners: frozenset[int], walker: AxWalker) -> tuple[frozenset[str], frozenset[str]]:
        """``(marked, clickable)`` bids (:func:`~personal_envs.textmode.ax.snapshot_bids`), kept while the
        document's structure and the scripts' listeners are the same."""
        key = (self.document.generation, self.next_bid, listeners)
        kept = self._bids
        if kept is not None and kept[0] == key:
            return kept[1]
        bids = snapshot_bids(self.document, listeners, walker)
        self._bids = (key, bids)
        return bids

    def changed(self) -> None:
        """The state of the page changed (a value, the focus): the next observation is computed again."""
        self.version += 1

    def modified(self) -> None:
        """A script changed the document through the node API (:class:`~personal_envs.textmode.dom.Element`'s
        methods): what changed is computed again (the changes are undone before the tree is reused for a later
        load of the same page)."""
        self.sync()
        self.version += 1

    def mutated(self) -> None:
        """A script changed the document itself in a way the document could not follow: styles, layout and the
        observation are computed again from scratch, and the page's tree is not reused."""
        self.document.changed_everything()
        self.sync()

    def class_names_and_links(self) -> tuple[frozenset[str], frozenset[str]]:
        """The class names the document's elements have and the ``href`` values of its ``a`` elements (kept while
        its structure and attributes are the same)."""
        document = self.document
        if self._classes_and_links is None or self._classes_and_links[0] != document.generation:
            elements = list(document.iter())
            names = frozenset().union(*{element.classes for element in elements})
            hrefs = frozenset(href for element in elements if element.tag == "a"
                              and (href := element.attrs.get("href")) is not None)
            self._classes_and_links = (document.generation, names, hrefs)
        return self._classes_and_links[1], self._classes_and_links[2]

    def html(self) -> str:
        """The current document as HTML (the browser's ``page.content()``)."""
        self.sync()
        if self._html is None:
            rendered = self.rendered
            pristine = rendered is not None and not self.document.modified
            if pristine and rendered is not None and rendered.html is not None:
                self._html = rendered.html
            else:
                self._html = serialize(self.document)
                if pristine and rendered is not None:
                    rendered.html = self._html
        return self._html


@dataclass
class _Tab:
    history: list[str] = field(default_factory=list)
    index: int = -1
    page: TextPage | None = None


class TextSession:
    """An isolated "browser context" whose sites run in this process.

    Args:
        sites: The site serving each origin (``scheme://host:port`` or ``scheme://host``).
        viewport: ``(width, height)`` in CSS pixels, for the layout (``visible`` tags, scrolling).
        allowed_origins: As :class:`~personal_envs.browser.session.BrowserSession`'s (``None``: the sites' origins).
        scripts: What the pages' scripts do (see :class:`PageScript`).
        fallback: The site answering every origin no entry of ``sites`` serves (a proxy's error page for unknown
            hosts); with it and no ``allowed_origins``, every http(s) URL may be loaded.
    """

    axtree_format = "browsergym"

    def __init__(self, sites: Mapping[str, Site], *, viewport: tuple[int, int] = (1280, 720),
                 allowed_origins: Sequence[str] | None = None, scripts: Sequence[PageScript] = (),
                 fallback: Site | None = None) -> None:
        self.sites: dict[tuple[str, str, int], Site] = {}
        for origin, site in sites.items():
            key = origin_of(origin)
            if key is None:
                raise ValueError(f"not an http(s) origin: {origin!r}")
            self.sites[key] = site
        self.viewport = (int(viewport[0]), int(viewport[1]))
        self.allowed = AllowedOrigins(allowed_origins if allowed_origins is not None else list(sites))
        self.fallback = fallback
        #: Every http(s) URL may be loaded (a fallback site and no list of allowed origins).
        self.allow_all = fallback is not None and allowed_origins is None
        self.scripts = list(scripts)
        self.messages: list[str] = []
        self.infeasible_reasons: list[str] = []
        self.dialogs: list[str] = []
        self.last_error = ""
        self.restarts = 0
        self.requests = 0
        self._cookies: dict[tuple[str, str, int], dict[str, str]] = {}
        self._rendered: PageCache[_Rendered] = PageCache(PAGE_CACHE_SIZE)
        #: How many pages were loaded, and how many of them reused an earlier page's tree.
        self.pages_loaded = 0
        self.pages_reused = 0
        #: Pages loaded into an earlier page's tree because only their text differed.
        self.pages_loaded_changed = 0
        self._tabs: list[_Tab] = [_Tab()]
        self._active = 0
        self._closed = False
        self._open_blank(self._tabs[0])

    # ------------------------------------------------------------------------------------------ public API
    @property
    def closed(self) -> bool:
        """True after :meth:`close`."""
        return self._closed

    @property
    def url(self) -> str:
        """URL of the active tab."""
        page = self.page
        return page.url if page is not None else ""

    @property
    def page(self) -> TextPage | None:
        """The active tab's page."""
        return self._tabs[self._active].page if self._tabs else None

    def reset(self) -> None:
        """A fresh context: one blank tab, no cookies, no messages."""
        self.messages.clear()
        self.infeasible_reasons.clear()
        self.dialogs.clear()
        self.last_error = ""
        self._cookies = {}
        self._tabs = [_Tab()]
        self._active = 0
        self._open_blank(self._tabs[0])

    def close(self) -> None:
        """Forget every tab (idempotent)."""
        self._closed = True
        self._tabs = []

    def take_notice(self) -> str:
        """Nothing happens to this session behind the agent's back: always ""."""
        return ""

    def goto(self, url: str) -> str:
        """Open ``url`` in the active tab; returns "" or an error text."""
        return self.execute(Action("goto", {"url": url}))

    def execute(self, action: Action | Mapping[str, Any] | str) -> str:
        """Apply one browser action (the browser mode's action set and error texts)."""
        error = self._execute(action)
        self.last_error = error
        return error

    def observe(self, *, axtree: bool = True, screenshot: bool = False, set_of_marks: bool = False
                ) -> PageObservation:
        """The active tab as BrowserGym's AX-tree text (no screenshot exists in this mode)."""
        if self._closed:
            return PageObservation.empty(SESSION_CLOSED)
        page = self.page
        assert page is not None
        text: str = ""
        elements: Mapping[str, ElementInfo] = {}
        if axtree or set_of_marks:
            text, elements = self._ax_text(page)
        return PageObservation(url=page.url, title=page.document.title, axtree=text if axtree else "",
                               screenshot=None, tabs=tuple(t.page.url if t.page else "" for t in self._tabs),
                               active_tab=self._active, focused_bid=page.focused.bid if page.focused else "",
                               elements=elements, error=self.last_error)

    def _ax_text(self, page: TextPage) -> tuple[str, Mapping[str, ElementInfo]]:
        observed = page.observed
        if observed is not None and observed[0] == page.version and observed[1] == page.scroll_y:
            return observed[2], observed[3]
        page.sync()
        rendered = page.rendered
        pristine = page.version == 0 and page.scroll_y == 0 and rendered is not None
        if pristine and rendered is not None and rendered.pristine is not None:
            text, elements = rendered.pristine
        else:
            page.next_bid = stamp_bids(page.document, page.next_bid)
            layout = page.layout(self.viewport)
            listeners = frozenset(id(e) for script in page.scripts for e in script.listeners(page))
            facts = PageFacts(page.url, page.focused, listeners, layout.viewport_view(page.scroll_y),
                              (float(self.viewport[0]), float(self.viewport[1])))
            walker = AxWalker(page.document, page.styles, facts)
            text, elements = render_browsergym(page.document, page.styles, facts, page.memo,
                                               page.boxes_by_bid(self.viewport),
                                               page.snapshot_bids(listeners, walker))
            if pristine and rendered is not None:
                rendered.pristine = (text, elements)
                rendered.next_bid = page.next_bid
        page.observed = (page.version, page.scroll_y, text, elements)
        return text, elements

    def _load(self, url: str, markup: str, status: int, replacing: TextPage | None = None) -> TextPage:
        """A page for ``markup``: the tree of an earlier load of the same page when one is free (not shown in a tab;
        ``replacing``, the page this load replaces, counts as free), else parsed."""
        self.pages_loaded += 1
        key = (url, status, markup)
        rendered = self._rendered.get(key)
        if rendered is not None and rendered.stale:
            self._rendered.remove(key)
            rendered = None
        if rendered is not None and self._free(rendered, replacing) and rendered.restore():
            self._rendered.touch(key)
            self.pages_reused += 1
            page = TextPage(url, rendered.document, status=status, next_bid=rendered.next_bid, rendered=rendered,
                            _styles=rendered.styles, _layout=rendered.layout)
            rendered.holder = page
            page.scripts = [script for script in self.scripts if script.applies(page)]
            return page
        parsed: list[Document] = []

        def parse() -> Document:  # once, and only if no earlier page takes the new text without it
            if not parsed:
                parsed.append(parse_html(markup))
            return parsed[0]

        transplanted = self._transplant(url, status, markup, parse, replacing)
        if transplanted is not None:
            return transplanted
        document = parse()
        stamp_bids(document)
        styles = StyleResolver(document)
        fields = [(e, e.value, e.checked, e.selected) for e in document.iter()
                  if e.tag in ("input", "textarea", "option")]
        page = TextPage(url, document, status=status, next_bid=1, _styles=styles)
        page.next_bid = stamp_bids(document, 1)
        rendered = _Rendered(document, styles, fields, next_bid=page.next_bid, holder=page)
        page.rendered = rendered
        self._rendered.put(key, rendered)
        page.scripts = [script for script in self.scripts if script.applies(page)]
        return page

    def _transplant(self, url: str, status: int, markup: str, parse: Callable[[], Document],
                    replacing: TextPage | None) -> TextPage | None:
        """A free earlier page of the same URL whose document differs from ``markup``'s in text only (a cart count,
        a total): its tree takes the new text and keeps its styles, its AX memo and, when no box moves, its
        layout.  None when there is no such page.  The markups are compared first (:func:`markup_text_changes`);
        ``parse`` gives the new document when the trees must be compared."""
        for key, rendered in self._rendered.newest_first(url):
            if key[1] != status or rendered.stale or not self._free(rendered, replacing):
                continue
            if not rendered.restore():
                continue
            old = rendered.document
            changes = markup_text_changes(old, key[2], markup)
            if changes is None:
                changes = text_changes(old, parse())
                if changes is None:
                    continue
                old.text_spans = old.text_pieces = None  # the markups may cut into pieces differently
            keep_layout = rendered.layout is not None and same_text_widths(old, rendered.styles, self.viewport,
                                                                           changes)
            for run, text in changes:
                run.data = text
            old.undo_log.clear()  # the new text is the page as loaded now
            rendered.settle()
            if not keep_layout:
                rendered.layout = None
            rendered.pristine = None
            rendered.html = None
            self._rendered.remove(key)
            self._rendered.put((url, status, markup), rendered)
            self.pages_loaded_changed += 1
            page = TextPage(url, old, status=status, next_bid=rendered.next_bid, rendered=rendered,
                            _styles=rendered.styles, _layout=rendered.layout)
            rendered.holder = page
            page.scripts = [script for script in self.scripts if script.applies(page)]
            return page
        return None

    def _free(self, rendered: _Rendered, replacing: TextPage | None) -> bool:
        """The cached document is not shown in a tab (other than by the page being replaced)."""
        holder = rendered.holder
        return holder is None or holder is replacing or not any(tab.page is holder for tab in self._tabs)

    # ------------------------------------------------------------------------------------------ requests
    def fetch(self, method: str, url: str, body: bytes = b"", *, follow: bool = True) -> tuple[str, Response]:
        """Send a request to the site of ``url`` with the context's cookies (redirects followed); returns the final
        URL and the response.  Raises :class:`ConnectionError` for a URL no site serves."""
        for _ in range(_MAX_REDIRECTS):
            key = origin_of(url)
            site = self.sites.get(key, self.fallback) if key is not None else None
            if key is None or site is None:
                raise ConnectionError(f"net::ERR_CONNECTION_REFUSED at {url}")
            parts = urlsplit(url)
            headers = {"Host": parts.netloc}
            if body:
                headers["Content-Type"] = "application/x-www-form-urlencoded"
                headers["Content-Length"] = str(len(body))
            request = Request(method, parts.path or "/", parse_qs(parts.query, keep_blank_values=True),
                              (parts.hostname or "").lower(), headers, dict(self._cookies.get(key, {})), body)
            self.requests += 1
            try:
                response = site.handle(request)
            except Exception as exc:  # noqa: BLE001 - a page bug answers 500, as the HTTP server does
                response = Response(f"<h1>Internal error</h1><p>{type(exc).__name__}</p>", 500)
            self._store_cookies(key, response.headers)
            location = response.headers.get("Location")
            if follow and location and response.status in (301, 302, 303, 307, 308):
                url = urljoin(url, location)
                if response.status in (301, 302, 303):
                    method, body = "GET", b""
                continue
            return url, response
        raise ConnectionError(f"net::ERR_TOO_MANY_REDIRECTS at {url}")

    def set_cookie(self, url: str, name: str, value: str) -> None:
        """Store a cookie for the origin of ``url`` (a page script's ``document.cookie = ...``)."""
        key = origin_of(url)
        if key is not None:
            self._cookies.setdefault(key, {})[name] = value

    def _store_cookies(self, key: tuple[str, str, int], headers: Mapping[str, str]) -> None:
        raw = headers.get("Set-Cookie")
        if not raw:
            return
        cookie: SimpleCookie = SimpleCookie()
        try:
            cookie.load(raw)
        except Exception:  # noqa: BLE001 - a malformed cookie is ignored, as a browser ignores it
            return
        jar = self._cookies.setdefault(key, {})
        for name, morsel in cookie.items():
            jar[name] = morsel.value

    def navigate(self, url: str, method: str = "GET", body: bytes = b"", *, replace: bool = False) -> str:
        """Load ``url`` in the active tab (a link, a form, ``goto``); "" or an error text."""
        tab = self._tabs[self._active]
        if url.startswith("about:"):
            self._show(tab, self._load("about:blank", _BLANK, 200, tab.page), replace)
            return ""
        if not self._allows(url):
            return self._blocked_message(url)
        try:
            final, response = self.fetch(method, url, body)
        except ConnectionError as exc:
            return f"navigation to {url[:300]} failed: {exc}"
        if response.status == 204:  # a redirect without a Location is shown as it is, as Chromium shows it
            return ""
        if not self._allows(final):
            return self._blocked_message(final)
        self._show(tab, self._load(final, _markup(response), response.status, tab.page), replace)
        return ""

    def _show(self, tab: _Tab, page: TextPage, replace: bool) -> None:
        tab.page = page
        if replace and tab.index >= 0:
            tab.history[tab.index] = page.url
        else:
            del tab.history[tab.index + 1:]
            tab.history.append(page.url)
            tab.index = len(tab.history) - 1

    def _open_blank(self, tab: _Tab) -> None:
        tab.history, tab.index = [], -1
        self._show(tab, self._load("about:blank", _BLANK, 200), False)

    def _allows(self, url: str) -> bool:
        return self.allowed.allows(url) or (self.allow_all and origin_of(url) is not None)

    def _blocked_message(self, url: str) -> str:
        shown = url if len(url) <= 300 else url[:299] + "…"
        return f"blocked: {shown} is outside the allowed sites ({self.allowed.describe()})"

    def submit(self, form: Element, submitter: Element | None = None) -> str:
        """Submit ``form`` (as its submit button or ``form.submit()`` would); "" or an error text."""
        page = self.page
        assert page is not None
        fields: list[tuple[str, str]] = []
        for element in form.iter():
            name = element.attrs.get("name")
            if not name or element.disabled or element.form is not form:
                continue
            if element.tag == "input":
                kind = element.input_type
                if kind in ("submit", "image", "button", "reset", "file"):
                    if element is submitter and kind in ("submit", "image"):
                        fields.append((name, element.value))
                    continue
                if kind in ("checkbox", "radio") and not element.checked:
                    continue
                fields.append((name, element.value if kind not in ("checkbox", "radio") or "value" in element.attrs
                               else "on"))
            elif element.tag == "button":
                if element is submitter:
                    fields.append((name, element.attrs.get("value", "")))
            elif element.tag == "select":
                option = element.selected_option()
                if option is not None:
                    fields.append((name, option.option_value()))
            elif element.tag == "textarea":
                fields.append((name, element.value.replace("\r\n", "\n").replace("\n", "\r\n")))
        action = form.attrs.get("action", "")
        target = urljoin(page.url, action) if action else page.url
        method = form.attrs.get("method", "get").lower()
        encoded = urlencode(fields)
        if method == "post":
            return self.navigate(target, "POST", encoded.encode("utf-8"))
        return self.navigate(target.split("?", 1)[0].split("#", 1)[0] + "?" + encoded)

    # ------------------------------------------------------------------------------------------ actions
    def _execute(self, raw: Action | Mapping[str, Any] | str) -> str:
        if self._closed:
            return SESSION_CLOSED
        read = read_browser_action(raw)
        if isinstance(read, str):
            return read
        action, arguments = read
        if action.name == "send_msg_to_user":
            self.messages.append(arguments["text"])
            return ""
        if action.name == "report_infeasible":
            self.infeasible_reasons.append(arguments["reason"])
            return ""
        handler: Callable[[dict[str, Any]], str] = getattr(self, f"_do_{action.name}")
        return handler(arguments)

    def _inspect(self, bid_text: str, verb: str) -> tuple[str, Element | None]:
        page = self.page
        assert page is not None
        match = _BID_PATTERN.match(bid_text.strip())
        if match is None:
            return f"'{bid_text[:60]}' is not a valid bid; use the number in brackets from the AX tree", None
        bid = match.group(1)
        element = page.document.by_bid(bid)
        if element is None:
            return (f"no element with bid '{bid}' on the current page ({page.url[:200]}); "
                    "use a bid from the latest observation"), None
        if element.tag != "option" and not self._has_box(page, element):
            return f"element [{bid}] {self._describe(element)} is not visible, so it cannot be {verb}", None
        if element.disabled or element.attrs.get("aria-disabled") == "true":
            return f"element [{bid}] {self._describe(element)} is disabled, so it cannot be {verb}", None
        return bid, element

    def _has_box(self, page: TextPage, element: Element) -> bool:
        styles = page.styles
        if not styles.rendered(element) or styles.style(element).get("visibility") in ("hidden", "collapse"):
            return False
        box = page.layout(self.viewport).boxes.get(id(element))
        return box is not None and box[2] > 0 and box[3] > 0

    def _describe(self, element: Element) -> str:
        page = self.page
        assert page is not None
        label = element.attrs.get("aria-label") or _inner_text(element, page.styles) or element.value or ""
        label = label.strip()[:60]
        kind = f"<{element.tag}" + (f" type={element.input_type}" if element.input_type else "") + ">"
        return f"{kind} '{label}'" if label else kind

    def _focus(self, page: TextPage, element: Element | None) -> None:
        if page.focused is not element:
            page.focused = element
            page.changed()

    @staticmethod
    def _focusable(element: Element) -> bool:
        if element.disabled:
            return False
        if element.tag in ("input", "select", "textarea", "button"):
            return element.input_type != "hidden"
        if element.tag == "a" and "href" in element.attrs:
            return True
        return "tabindex" in element.attrs

    def _do_click(self, arguments: dict[str, Any]) -> str:
        bid, element = self._inspect(arguments["bid"], "clicked")
        if element is None:
            return bid
        page = self.page
        assert page is not None
        if element.tag == "option":
            select = element.closest(lambda e: e.tag == "select")
            if select is not None:
                return self._choose(page, select, [element])
        return self.click_element(page, element)

    def click_element(self, page: TextPage, element: Element) -> str:
        """A mouse click on ``element``: focus (links are not focused by a click), the page's scripts, then the
        default action."""
        self._scroll_into_view(page, element)
        self._focus(page, element.closest(self._focusable))
        for script in list(page.scripts):
            if script.on_click(self, page, element):
                page.changed()
                return ""
        return self._activate(page, element)

    def _activate(self, page: TextPage, element: Element) -> str:
        link = element.closest(lambda e: e.tag in ("a", "area") and "href" in e.attrs)
        if link is not None:
            target = urljoin(page.url, link.attrs["href"].strip())
            if target.split("#", 1)[0] == page.url.split("#", 1)[0] and "#" in target:
                return self._fragment(page, target)
            return self.navigate(target)
        label = element.closest(lambda e: e.tag == "label")
        if label is not None and element.tag not in ("input", "select", "textarea", "button"):
            control = AxWalker(page.document, page.styles, PageFacts(page.url)).label_control(label)
            if control is not None and not control.disabled:
                self._focus(page, control)
                if control.tag in ("input", "button"):
                    return self._activate(page, control)
            return ""
        control = element.closest(lambda e: e.tag in ("button", "input"))
        if control is None:
            summary = element.closest(lambda e: e.tag == "summary")
            if summary is not None and summary.parent is not None and summary.parent.tag == "details":
                details = summary.parent
                if "open" in details.attrs:
                    details.remove_attr("open")
                else:
                    details.set_attr("open", "")
                page.modified()
            return ""
        if control.disabled:
            return ""
        kind = control.input_type if control.tag == "input" else control.attrs.get("type", "submit").lower()
        if control.tag == "input" and kind in ("checkbox", "radio"):
            if kind == "radio":
                name = control.attrs.get("name")
                for other in page.document.iter():
                    if other is not control and other.tag == "input" and other.input_type == "radio" and \
                            name and other.attrs.get("name") == name and other.form is control.form:
                        other.checked = False
                control.checked = True
            else:
                control.checked = not control.checked
            page.changed()
            self._changed(page, control)
            return ""
        form = control.form
        if form is not None and kind in ("submit", "image"):
            return self.submit(form, control)
        if form is not None and kind == "reset":
            for field_element in form.iter():
                if field_element.tag == "input":
                    field_element.value = field_element.attrs.get("value", "")
                    field_element.checked = "checked" in field_element.attrs
                elif field_element.tag == "textarea":
                    field_element.value = field_element.text_content
            page.changed()
        return ""

    def scroll_into_view(self, page: TextPage, element: Element) -> None:
        """Scroll so that ``element`` is in view, centred, as Playwright does before it clicks (if it is not)."""
        self._scroll_into_view(page, element)

    def _scroll_into_view(self, page: TextPage, element: Element) -> None:
        """Scroll so that ``element`` is in view, centred, as Playwright does before it clicks (if it is not)."""
        box = page.layout(self.viewport).boxes.get(id(element))
        styles = page.styles
        if box is None or element.closest(lambda e: not isinstance(e, Document)
                                            and styles.style(e).get("position") == "fixed") is not None:
            return  # a fixed element does not move when the page scrolls
        top, height = box[1] - page.scroll_y, box[3]
        if top >= 0 and top + height <= self.viewport[1]:
            return
        limit = max(0.0, page.layout(self.viewport).height - self.viewport[1])
        page.scroll_y = max(0.0, min(box[1] + height / 2 - self.viewport[1] / 2, limit))

    def _fragment(self, page: TextPage, url: str) -> str:
        """A link to a place in the same document: the URL changes (a history entry), the focus leaves the link and
        the place scrolls into view."""
        self._focus(page, None)
        tab = self._tabs[self._active]
        if url != page.url:
            page.url = url
            del tab.history[tab.index + 1:]
            tab.history.append(url)
            tab.index = len(tab.history) - 1
            page.changed()
        name = url.split("#", 1)[1]
        target = page.document.get_element_by_id(name) if name else None
        if target is not None:
            box = page.layout(self.viewport).boxes.get(id(target))
            if box is not None:
                height = page.layout(self.viewport).height
                page.scroll_y = max(0.0, min(box[1], height - self.viewport[1]))
        return ""

    def _changed(self, page: TextPage, element: Element) -> None:
        for script in list(page.scripts):
            script.on_change(self, page, element)

    def _do_click_xy(self, arguments: dict[str, Any]) -> str:
        x, y = float(arguments["x"]), float(arguments["y"])
        width, height = self.viewport
        if x >= width or y >= height:
            return f"({x:g}, {y:g}) is outside the {width}x{height} viewport"
        page = self.page
        assert page is not None
        target = page.layout(self.viewport).hit(x, y + page.scroll_y)
        if target is None:
            self._focus(page, None)
            return ""
        return self.click_element(page, target)

    def _do_fill(self, arguments: dict[str, Any]) -> str:
        bid, element = self._inspect(arguments["bid"], "filled")
        if element is None:
            return bid
        page = self.page
        assert page is not None
        editable = (element.tag == "input" and element.input_type not in _NON_TEXT_INPUTS) or element.tag == "textarea"
        if not editable:
            return (f"element [{bid}] {self._describe(element)} is not a text field; fill works on text inputs, "
                    "textareas and editable elements")
        if "readonly" in element.attrs or element.attrs.get("aria-readonly") == "true":
            return f"element [{bid}] {self._describe(element)} is read-only"
        value = str(arguments["value"])
        if element.tag == "input":
            if element.input_type == "number" and value.strip() and not _is_number(value):
                return "fill failed: Error: Cannot type text into input[type=number]"
            value = value.replace("\r", "").replace("\n", "")
        self._focus(page, element)
        element.value = value
        page.changed()
        self._changed(page, element)
        return ""

    def _choose(self, page: TextPage, select: Element, chosen: list[Element]) -> str:
        multiple = "multiple" in select.attrs
        for option in select.options:
            option.selected = option in (chosen if multiple else chosen[-1:])
        page.changed()
        self._changed(page, select)
        return ""

    def _do_select_option(self, arguments: dict[str, Any]) -> str:
        bid, element = self._inspect(arguments["bid"], "selected")
        if element is None:
            return bid
        page = self.page
        assert page is not None
        if element.tag != "select":
            return f"element [{bid}] {self._describe(element)} is not a <select>; click it to choose among its items"
        wanted = [str(option) for option in arguments["options"]]
        pairs = [(option.option_label(), option.option_value(), option) for option in element.options]
        available = {text for label, value, _ in pairs for text in (label, value)}
        missing = [option for option in wanted if option not in available]
        if not wanted or missing:
            labels = ", ".join(repr(label) for label, _value, _ in pairs[:30])
            return f"no option of [{bid}] matches {missing or wanted}; its options are: {labels}"
        chosen = [option for label, value, option in pairs if value in wanted or label in wanted]
        return self._choose(page, element, chosen)

    def _do_press(self, arguments: dict[str, Any]) -> str:
        key = arguments["key_comb"].strip()
        if not key:
            return "press needs a key, e.g. 'Enter' or 'Control+a'"
        page = self.page
        assert page is not None
        if arguments.get("bid") is not None:
            bid, element = self._inspect(arguments["bid"], "focused")
            if element is None:
                return bid
            self._focus(page, element)
        target = page.focused
        if key == "Enter":
            if target is None:
                return ""
            if target.tag == "input" and target.input_type not in _NON_TEXT_INPUTS:
                form = target.form
                if form is None:
                    return ""
                submitter = next((e for e in form.iter() if e.form is form and (
                    (e.tag == "button" and e.attrs.get("type", "submit").lower() == "submit")
                    or (e.tag == "input" and e.input_type in ("submit", "image")))), None)
                if submitter is not None and submitter.disabled:
                    return ""
                fields = [e for e in form.iter() if e.tag == "input" and e.input_type not in _NON_TEXT_INPUTS]
                if submitter is None and len(fields) > 1:
                    return ""
                return self.submit(form, submitter)
            if target.tag == "textarea":
                target.value += "\n"
                page.changed()
                return ""
            if target.tag in ("a", "button") or (target.tag == "input" and target.input_type in
                                                 ("submit", "button", "reset", "image")):
                return self.click_element(page, target)
            return ""
        if target is not None and (target.tag == "textarea" or (target.tag == "input" and target.input_type not in
                                                                 _NON_TEXT_INPUTS)):
            if key == "Backspace":
                target.value = target.value[:-1]
            elif len(key) == 1:
                target.value += key
            elif key == "Space":
                target.value += " "
            else:
                return ""
            page.changed()
            self._changed(page, target)
        return ""

    def _do_scroll(self, arguments: dict[str, Any]) -> str:
        page = self.page
        assert page is not None
        height = page.layout(self.viewport).height
        page.scroll_y = max(0.0, min(page.scroll_y + float(arguments["delta_y"]), height - self.viewport[1]))
        return ""

    def _do_hover(self, arguments: dict[str, Any]) -> str:
        bid, element = self._inspect(arguments["bid"], "hovered")
        return "" if element is not None else bid

    def _do_goto(self, arguments: dict[str, Any]) -> str:
        url = arguments["url"].strip()
        if not url:
            return "goto needs a URL"
        scheme_match = _SCHEME_PATTERN.match(url)
        scheme = scheme_match.group(1).lower() if scheme_match else ""
        if scheme not in NAVIGABLE_SCHEMES:
            if scheme in _FORBIDDEN_SCHEMES or (scheme and url[len(scheme) + 1:].startswith("//")):
                return f"cannot open '{url[:200]}': only http(s), about:blank and data: URLs can be opened"
            url = "http://" + url
        if not self._allows(url):
            return self._blocked_message(url)
        if scheme == "data":
            return f"navigation to {url[:300]} failed: data: URLs are not shown in text mode"
        return self.navigate(url)

    def _history_step(self, step: int) -> str | None:
        tab = self._tabs[self._active]
        index = tab.index + step
        if not 0 <= index < len(tab.history):
            return None
        url = tab.history[index]
        if url == "about:blank":
            tab.index = index
            tab.page = self._load("about:blank", _BLANK, 200, tab.page)
            return ""
        try:
            final, response = self.fetch("GET", url)
        except ConnectionError as exc:
            tab.index = index
            return f"navigation to {url[:300]} failed: {exc}"
        page = self._load(final, _markup(response), response.status, tab.page)
        tab.index = index
        tab.history[index] = final
        tab.page = page
        return ""

    def _do_go_back(self, arguments: dict[str, Any]) -> str:
        result = self._history_step(-1)
        return "cannot go back: there is no earlier page in this tab's history" if result is None else result

    def _do_go_forward(self, arguments: dict[str, Any]) -> str:
        result = self._history_step(1)
        return "cannot go forward: there is no later page in this tab's history" if result is None else result

    def _do_new_tab(self, arguments: dict[str, Any]) -> str:
        tab = _Tab()
        self._open_blank(tab)
        self._tabs.append(tab)
        self._active = len(self._tabs) - 1
        return ""

    def _do_tab_focus(self, arguments: dict[str, Any]) -> str:
        index = int(arguments["index"])
        if not 0 <= index < len(self._tabs):
            return f"there is no tab {index}; open tabs are 0..{len(self._tabs) - 1}"
        self._active = index
        return ""

    def _do_tab_close(self, arguments: dict[str, Any]) -> str:
        index = self._active
        del self._tabs[index]
        if self._tabs:
            self._active = max(0, index - 1)
        else:
            tab = _Tab()
            self._open_blank(tab)
            self._tabs = [tab]
            self._active = 0
        return ""

    def _do_noop(self, arguments: dict[str, Any]) -> str:
        return ""


def _markup(response: Response) -> str:
    """The HTML a response shows (anything else is shown as preformatted text, as a browser shows it)."""
    if response.content_type.split(";")[0].strip().lower() == "text/html":
        return response.text
    return f"<html><head></head><body><pre>{_escape(response.text)}</pre></body></html>"


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _inner_text(element: Element, styles: StyleResolver) -> str:
    return " ".join(element.text_content.split())


def json_body(response: Response) -> Any:
    """The JSON a script's request got back (None when it is not JSON)."""
    try:
        return json.loads(response.text)
    except ValueError:
        return None
