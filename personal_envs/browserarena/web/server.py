"""One local HTTP server that serves every site of the simulated web by host name.

:class:`LocalWeb` runs a :class:`~http.server.ThreadingHTTPServer` on ``127.0.0.1`` with an ephemeral port in a
daemon thread.  Browsers use it as their HTTP proxy (requests arrive with absolute URLs such as
``GET http://m.skyroute.test/flights?... HTTP/1.1``); plain clients can also send ``Host:`` headers to it directly.
Each request is dispatched to the :class:`Site` registered for its host.  Unknown hosts get a browser-style
"site can't be reached" page with status 502, and ``CONNECT`` (HTTPS) is refused: the local sites speak plain HTTP.

Sites can render a page for another site *internally* (:meth:`LocalWeb.fetch_internal`): caches, archives and
proxies use it to show a copy of a page as the site's own server would have returned it to a crawler.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, fields
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import parse_qs, urlsplit

from personal_envs.browserarena.web.html import page
from personal_envs.core.http import LoopbackServer, Response, read_request, send_response
from personal_envs.core.http import Request as HttpRequest
from personal_envs.core.http_guard import cross_origin_refusal


@dataclass
class Request(HttpRequest):
    """An HTTP request as the sites see it; ``internal`` marks a page rendered for a cache, archive or proxy."""

    internal: bool = False


class Site:
    """A site of the local web: override :meth:`handle`."""

    hosts: tuple[str, ...] = ()

    def handle(self, request: Request) -> Response:
        """Answer one request."""
        raise NotImplementedError


def not_found(request: Request) -> Response:
    """A 404 page for a path the site does not have."""
    return Response(page("Page not found", f"<h1>404</h1><p>No page at {request.path}.</p>"), 404)


RequestListener = Callable[[Request, Response], None]


class LocalWeb:
    """The simulated web: sites by host, served over real HTTP on ``127.0.0.1:<ephemeral port>``.

    Args:
        sites: Sites to serve; each claims the hosts listed in its ``hosts`` attribute.
    """

    def __init__(self, sites: list[Site] | None = None) -> None:
        self._sites: dict[str, Site] = {}
        self._listeners: list[RequestListener] = []
        self._server: LoopbackServer | None = None
        self._port = 0
        self.request_log: list[tuple[str, str, int]] = []  # (method, url, status), browser requests only
        self._log_lock = threading.Lock()
        for site in sites or []:
            self.add(site)

    # ------------------------------------------------------------------------------------------ sites
    def add(self, site: Site) -> None:
        """Serve ``site`` on its hosts."""
        for host in site.hosts:
            self._sites[host.lower()] = site

    def site_for(self, host: str) -> Site | None:
        """The site serving ``host`` (None if no site does)."""
        return self._sites.get(host.lower())

    @property
    def hosts(self) -> list[str]:
        """Every host name served."""
        return sorted(self._sites)

    def dispatch(self, request: Request) -> Response:
        """Answer ``request`` (used by the HTTP handler and by :meth:`fetch_internal`)."""
        site = self.site_for(request.host)
        if site is None:
            return unreachable(request.host)
        try:
            return site.handle(request)
        except Exception as exc:  # a site bug must not kill the server thread; show it like a 500 page
            return Response(page("Server error", f"<h1>500</h1><p>{type(exc).__name__}</p>"), 500)

    def handle(self, request: HttpRequest) -> Response:
        """Answer a request of the text mode's session (:class:`~personal_envs.textmode.session.TextSession`, which
        calls this in-process for every host): what the proxy answers the browser, recorded as its requests are."""
        if not isinstance(request, Request):
            request = Request(**{f.name: getattr(request, f.name) for f in fields(request)})
        response = self.dispatch(request)
        self._record(request, response)
        return response

    def fetch_internal(self, url: str) -> Response:
        """Render ``url`` as its site would for a crawler (no cookies, no browser), without HTTP."""
        parts = urlsplit(url if "://" in url else f"http://{url}")
        request = Request(
            method="GET",
            host=(parts.hostname or "").lower(),
            path=parts.path or "/",
            query=parse_qs(parts.query),
            internal=True,
        )
        return self.dispatch(request)

    # ------------------------------------------------------------------------------------------ server
    @property
    def port(self) -> int:
        """Port the server listens on (starts it if needed)."""
        self.start()
        assert self._server is not None
        return self._server.port

    @property
    def proxy_url(self) -> str:
        """``http://127.0.0.1:<port>``, the value for a browser's proxy setting."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def running(self) -> bool:
        """True while the server thread runs."""
        return self._server is not None and self._server.running

    def start(self) -> None:
        """Start serving (idempotent); after :meth:`close` (or a dead serving thread) it serves again on the same
        port, so browsers set to use it as their proxy keep working."""
        if self.running:
            return
        if self._server is not None:
            self._server.close(timeout=10)
        web = self

        class Handler(_Handler):
            local_web = web

        self._server = LoopbackServer(Handler, "browserarena-web", port=self._port)
        self._port = self._server.port

    def close(self) -> None:
        """Stop the server and join its thread (idempotent)."""
        if self._server is not None:
            self._server.close(timeout=10)
        self._server = None

    def add_listener(self, listener: RequestListener) -> None:
        """Call ``listener(request, response)`` after every browser request."""
        self._listeners.append(listener)

    def _record(self, request: Request, response: Response) -> None:
        with self._log_lock:
            self.request_log.append((request.method, request.url, response.status))
            del self.request_log[:-5000]
        for listener in list(self._listeners):
            listener(request, response)

    def __enter__(self) -> LocalWeb:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def unreachable(host: str) -> Response:
    """The page a browser shows for a host that does not resolve."""
    body = (
        "<h1>This site can’t be reached</h1>"
        f"<p>Check if there is a typo in {_esc(host)}.</p><p><code>DNS_PROBE_FINISHED_NXDOMAIN</code></p>"
    )
    return Response(page("Site can’t be reached", body), 502)


def _esc(text: str) -> str:
    import html

    return html.escape(text, quote=True)


class _Handler(BaseHTTPRequestHandler):
    local_web: LocalWeb
    protocol_version = "HTTP/1.1"

    def do_GET(self) -> None:  # noqa: N802 - http.server naming
        self._serve("GET")

    def do_POST(self) -> None:  # noqa: N802
        self._serve("POST")

    def do_HEAD(self) -> None:  # noqa: N802
        self._serve("HEAD")

    def do_CONNECT(self) -> None:  # noqa: N802
        body = b"HTTPS is not available on the local web; use http:// URLs."
        self.send_response(502)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(body)
        self.close_connection = True

    def _serve(self, method: str) -> None:
        parsed = read_request(self)
        if parsed is None:
            return
        request = Request(**{f.name: getattr(parsed, f.name) for f in fields(HttpRequest)})
        refusal = cross_origin_refusal(request.headers) if request.method == "POST" else ""
        response = (Response(page("Forbidden", f"<p>{_esc(refusal)}</p>"), 403) if refusal
                    else self.local_web.dispatch(request))
        send_response(self, response)
        self.local_web._record(request, response)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - silence the default stderr log
        return
