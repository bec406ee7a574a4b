"""Chrome: a browser over pages the tasks serve locally (no network), with a search engine and history."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING
from urllib.parse import quote_plus, unquote_plus

from personal_envs.simulators.phone import ui
from personal_envs.simulators.phone.apps.base import App, Route

if TYPE_CHECKING:
    from personal_envs.simulators.phone.phone import Phone

SEARCH_PREFIX = "https://www.google.com/search?q="


@dataclass
class WebPage:
    """A local page: title and blocks ``("h"|"p", text)`` or ``("a", text, url)``."""

    title: str
    blocks: list[tuple[str, ...]] = field(default_factory=list)
    #: The address the page was served at (``www.`` kept): what its links and shortcuts point to.
    address: str = ""

    def text(self) -> str:
        return " ".join([self.title, *(b[1] for b in self.blocks)])


def canonical_url(url: str) -> str:
    """Scheme, ``www.`` and trailing slash removed, lower-case host: the key pages are stored under."""
    url = url.strip()
    for prefix in ("https://", "http://"):
        if url.lower().startswith(prefix):
            url = url[len(prefix):]
    if url.lower().startswith("www."):
        url = url[4:]
    host, slash, rest = url.partition("/")
    return (host.lower() + slash + rest).rstrip("/")


def visit_address(url: str) -> str:
    """The address as Chrome's history stores it: ``https://`` unless another scheme is given, the host lower-case
    with ``www.`` kept, no trailing slash."""
    url = url.strip()
    scheme = "https://"
    for prefix in ("https://", "http://"):
        if url.lower().startswith(prefix):
            scheme, url = prefix, url[len(prefix):]
    host, slash, rest = url.partition("/")
    return (scheme + host.lower() + slash + rest).rstrip("/")


def looks_like_url(text: str) -> bool:
    text = text.strip()
    return " " not in text and ("." in text or text.startswith(("http://", "https://")))


class ChromeApp(App):
    """Browser; state: :attr:`pages` (served locally), :attr:`history` (canonical URLs visited), :attr:`visits` (the
    same visits as Chrome's history database keeps them, ``www.`` included), :attr:`searches`."""

    key = "chrome"
    label = "Chrome"
    package = "com.android.chrome"
    glyph = "\u25c9"
    color = "#fbbc04"
    aliases = ("Browser", "Google Chrome", "浏览器")

    def __init__(self, phone: Phone) -> None:
        super().__init__(phone)
        self.pages: dict[str, WebPage] = {}
        self.history: list[str] = []
        self.visits: list[str] = []
        self.searches: list[str] = []
        #: Whether the new-tab page lists the served pages as shortcuts.
        self.show_shortcuts = True

    def add_page(self, url: str, title: str, blocks: list[tuple[str, ...]]) -> None:
        """Serve a page at ``url``."""
        self.pages[canonical_url(url)] = WebPage(title, list(blocks), visit_address(url))

    def visit(self, target: str, route: Route) -> None:
        """Load a URL or search for text."""
        target = target.strip()
        if not target:
            return
        if looks_like_url(target) and not target.startswith(SEARCH_PREFIX):
            url, address = canonical_url(target), visit_address(target)
        else:
            query = unquote_plus(target[len(SEARCH_PREFIX):]) if target.startswith(SEARCH_PREFIX) else target
            self.searches.append(query)
            url, address = canonical_url(SEARCH_PREFIX + quote_plus(query)), SEARCH_PREFIX + quote_plus(query)
        self.history.append(url)
        self.visits.append(address)
        self.phone.log(f"chrome visit {url}")
        page = self.phone.push("main", url=url)
        page.fields["url"] = "https://" + url

    def _search_results(self, query: str) -> WebPage:
        words = [w for w in query.lower().split() if w]
        scored = []
        for url, page in self.pages.items():
            text = page.text().lower()
            hits = sum(1 for w in words if w in text)
            if hits:
                scored.append((hits, url, page))
        scored.sort(key=lambda item: (-item[0], item[1]))
        blocks: list[tuple[str, ...]] = [("a", page.title, page.address or "https://" + url)
                                         for _, url, page in scored[:8]]
        return WebPage(f"{query} - Search", blocks or [("p", f"No results for {query}")])

    def render(self, route: Route) -> str:
        url = route.params.get("url", "")
        urlbar = (
            '<div class="urlbar">'
            + ui.field("url", route.fields.get("url", ""), "Search or type web address", rid="url_bar")
            + ui.icon_button("\u2192", "Go", "go", rid="go_button")
            + "</div>"
        )
        if not url:
            shortcuts = "".join(ui.row(p.title, p.address or "https://" + u, act="nav", arg=p.address or "https://" + u,
                                       rid="shortcut")
                                for u, p in list(self.pages.items())[:6]) if self.show_shortcuts else ""
            content = ui.text("New tab", "big") + shortcuts
        else:
            if url.startswith(canonical_url(SEARCH_PREFIX)):
                page: WebPage | None = self._search_results(unquote_plus(url.split("q=", 1)[1]))
            else:
                page = self.pages.get(url)
            if page is None:
                content = ui.text("This site can't be reached", "big", rid="error_title") + ui.text(
                    f"{url} is not available offline.", "muted")
            else:
                parts = [f'<h1 {ui.attrs(rid="page_title", cls="android.widget.TextView")}>{ui.e(page.title)}</h1>']
                for block in page.blocks:
                    if block[0] == "a":
                        parts.append(f'<div class="link" {ui.attrs("nav", block[2], "link", "android.widget.TextView")}>'
                                     f"{ui.e(block[1])}</div>")
                    elif block[0] == "h":
                        parts.append(f'<h1 {ui.attrs(cls="android.widget.TextView")}>{ui.e(block[1])}</h1>')
                    else:
                        parts.append(f'<p {ui.attrs(cls="android.widget.TextView")}>{ui.e(block[1])}</p>')
                content = f'<div class="webpage">{"".join(parts)}</div>'
        return urlbar + ui.scroll(content)

    def handle(self, action: str, arg: str, route: Route) -> None:
        if action == "go":
            self.visit(route.fields.get("url", ""), route)
        elif action == "nav":
            self.visit(arg, route)

    def on_enter(self, field_name: str, route: Route) -> None:
        if field_name == "url":
            self.visit(route.fields.get("url", ""), route)
