"""Plumbing shared by the package's local HTTP servers (test sites, the simulated web, the shops, the vote page).

:class:`LoopbackServer` runs a :class:`~http.server.ThreadingHTTPServer` on an ephemeral port from a daemon thread;
:class:`Request` and :class:`Response` are what a site's code sees and returns; :func:`read_request` parses one
from a request handler and :func:`send_response` (built on :func:`send_body`) writes a complete, uncached response.
"""

from __future__ import annotations

import contextlib
import json
import socket
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from http.cookies import SimpleCookie
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

#: Longest request body the servers read (form posts are tiny).
MAX_BODY_BYTES = 1 << 20


class _NoDelayHTTPServer(ThreadingHTTPServer):
    """A threading HTTP server whose connections send small writes at once (``TCP_NODELAY``).

    With Nagle's algorithm on, a response written in two parts (headers, then body) waits for the client's delayed
    ACK of the first part: about 25 ms added to every page a browser loads over loopback (measured with
    ``benchmarks/chromium_floor.py``: 52 ms to DOMContentLoaded with it, 28 ms without).
    """

    daemon_threads = True

    def get_request(self) -> tuple[socket.socket, Any]:
        connection, address = super().get_request()
        connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return connection, address


class LoopbackServer:
    """A threading HTTP server for ``handler`` on ``host`` and a free port, serving from a daemon thread at once.

    Args:
        handler: Request handler class.
        name: Name of the serving thread; ``{port}`` in it is replaced by the bound port.
        host: Interface to bind (loopback by default).
        port: Port to bind; 0 picks a free one.
        poll_interval: How often ``serve_forever`` checks for shutdown (seconds).
    """

    def __init__(self, handler: type[BaseHTTPRequestHandler], name: str, *, host: str = "127.0.0.1", port: int = 0,
                 poll_interval: float = 0.5) -> None:
        self.httpd: ThreadingHTTPServer = _NoDelayHTTPServer((host, port), handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": poll_interval},
                                       name=name.format(port=self.port), daemon=True)
        self.thread.start()

    @property
    def host(self) -> str:
        """The bound interface."""
        return str(self.httpd.server_address[0])

    @property
    def port(self) -> int:
        """The bound TCP port."""
        return int(self.httpd.server_address[1])

    @property
    def origin(self) -> str:
        """``http://HOST:PORT``."""
        return f"http://{self.host}:{self.port}"

    @property
    def running(self) -> bool:
        """True while the serving thread runs."""
        return self.thread.is_alive()

    def close(self, timeout: float = 5.0) -> None:
        """Stop serving, free the port and wait up to ``timeout`` seconds for the thread."""
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(timeout=timeout)


def send_body(handler: BaseHTTPRequestHandler, status: int, body: bytes, content_type: str,
              headers: Mapping[str, str] | None = None, *, head: bool = False) -> None:
    """Answer with ``status``, ``Content-Type``, ``Content-Length``, ``Cache-Control: no-store`` and ``headers``,
    then ``body`` unless ``head`` (a HEAD request gets the headers only), in a single write."""
    handler.send_response(status)
    handler.send_header("Content-Type", content_type)
    handler.send_header("Content-Length", str(len(body)))
    handler.send_header("Cache-Control", "no-store")
    for key, value in (headers or {}).items():
        handler.send_header(key, value)
    buffered = getattr(handler, "_headers_buffer", None)
    if head or not isinstance(buffered, list):
        handler.end_headers()
        if not head:
            handler.wfile.write(body)
        return
    # Headers and body leave in one write (one packet for small pages) instead of end_headers() then write().
    handler._headers_buffer = []  # type: ignore[attr-defined]
    handler.wfile.write(b"".join(buffered) + b"\r\n" + body)


@dataclass
class Request:
    """An HTTP request as a site's code sees it.

    Attributes:
        method: ``GET`` (also for ``HEAD``) or ``POST``.
        path: The URL path (``/`` when empty).
        query: Parsed query string (blank values kept).
        host: Host name (from an absolute request line, as a proxy receives it, or the ``Host`` header).
        headers: Request headers.
        cookies: Parsed ``Cookie`` header (a malformed one counts as none).
        body: The request body (at most :data:`MAX_BODY_BYTES`).
    """

    method: str
    path: str
    query: dict[str, list[str]] = field(default_factory=dict)
    host: str = ""
    headers: dict[str, str] = field(default_factory=dict)
    cookies: dict[str, str] = field(default_factory=dict)
    body: bytes = b""

    @property
    def form(self) -> dict[str, list[str]]:
        """The urlencoded form in the body."""
        return parse_qs(self.body.decode("utf-8", errors="replace"), keep_blank_values=True) if self.body else {}

    @property
    def url(self) -> str:
        """The absolute URL (``http://host/path?query``)."""
        qs = urlencode([(k, v) for k, values in self.query.items() for v in values])
        return f"http://{self.host}{self.path}" + (f"?{qs}" if qs else "")

    def arg(self, name: str, default: str = "") -> str:
        """First value of query parameter ``name``, else of form field ``name``."""
        values = self.query.get(name) or self.form.get(name)
        return values[0] if values else default

    def field(self, name: str, default: str = "") -> str:
        """First value of form field ``name``."""
        values = self.form.get(name)
        return values[0] if values else default


@dataclass
class Response:
    """What a site returns.

    Attributes:
        body: Text (sent as UTF-8) or bytes.
        status: HTTP status code.
        content_type: ``Content-Type`` header.
        headers: Extra headers.
        delay_s: Seconds to wait before answering (test sites simulating slow servers).
    """

    body: str | bytes = ""
    status: int = 200
    content_type: str = "text/html; charset=utf-8"
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0

    @classmethod
    def json(cls, obj: Any, status: int = 200) -> Response:
        """A JSON response."""
        return cls(json.dumps(obj, ensure_ascii=False), status, "application/json; charset=utf-8")

    @classmethod
    def redirect(cls, location: str, status: int = 302, headers: Mapping[str, str] | None = None) -> Response:
        """A redirect to ``location``."""
        return cls("", status, headers={**(headers or {}), "Location": location})

    @property
    def payload(self) -> bytes:
        """The body as bytes."""
        return self.body.encode("utf-8") if isinstance(self.body, str) else self.body

    @property
    def text(self) -> str:
        """The body as text."""
        return self.body.decode("utf-8", errors="replace") if isinstance(self.body, bytes) else self.body


def read_request(handler: BaseHTTPRequestHandler, max_body: int = MAX_BODY_BYTES) -> Request | None:
    """Parse the handler's request; ``None`` (after answering 413) when the body is larger than ``max_body``."""
    raw = handler.path
    parts = urlsplit(raw)
    if raw.startswith(("http://", "https://")):
        host = (parts.hostname or "").lower()
    else:
        host = (handler.headers.get("Host") or "").split(":")[0].lower()
    try:
        length = max(0, int(handler.headers.get("Content-Length") or 0))
    except ValueError:
        length = 0
    if length > max_body:
        send_response(handler, Response("request body too large", 413, "text/plain; charset=utf-8"))
        return None
    body = handler.rfile.read(length) if length else b""
    cookies: dict[str, str] = {}
    with contextlib.suppress(Exception):  # a malformed Cookie header counts as no cookie
        cookies = {key: morsel.value for key, morsel in SimpleCookie(handler.headers.get("Cookie") or "").items()}
    method = "GET" if handler.command == "HEAD" else handler.command
    return Request(method, parts.path or "/", parse_qs(parts.query, keep_blank_values=True), host,
                   dict(handler.headers), cookies, body)


def send_response(handler: BaseHTTPRequestHandler, response: Response) -> None:
    """Write ``response`` (headers only for ``HEAD``); a client that went away is not an error."""
    with contextlib.suppress(BrokenPipeError, ConnectionResetError):
        send_body(handler, response.status, response.payload, response.content_type, response.headers,
                  head=handler.command == "HEAD")
