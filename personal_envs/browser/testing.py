"""Serve a few local pages over HTTP for tests, examples and benchmarks.

>>> with LocalSite({"/": "<h1>Hi</h1>", "/slow": Response("late", delay_s=30)}) as site:
...     session.goto(site.url("/"))

Pages are served by :class:`http.server.ThreadingHTTPServer` on 127.0.0.1 and an ephemeral port from a daemon
thread.  A value may be HTML text, bytes, a :class:`Response` (status, content type, headers, delay) or a callable
taking a :class:`Request` and returning one of those.  ``close()`` stops the server and wakes delayed responses.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Callable, Mapping
from http.server import BaseHTTPRequestHandler
from typing import Any

from personal_envs.core.http import LoopbackServer, Request, Response, read_request, send_response

PageSource = str | bytes | Response | Callable[[Request], "str | bytes | Response"]


class LocalSite:
    """HTTP server for a dict of ``path -> page`` (see the module docstring); usable as a context manager.

    Attributes:
        requests: ``"METHOD /path?query"`` of every request received, in order.
    """

    def __init__(self, pages: Mapping[str, PageSource], host: str = "127.0.0.1", port: int = 0) -> None:
        self.pages: dict[str, PageSource] = dict(pages)
        self.requests: list[str] = []
        self._closing = threading.Event()
        self._server = LoopbackServer(self._handler_class(), "personal-envs-local-site", host=host, port=port,
                                      poll_interval=0.1)

    @property
    def port(self) -> int:
        """The TCP port the server listens on."""
        return self._server.port

    @property
    def origin(self) -> str:
        """``http://127.0.0.1:PORT``."""
        return self._server.origin

    def url(self, path: str = "/") -> str:
        """Absolute URL of ``path`` on this site."""
        return self.origin + (path if path.startswith("/") else "/" + path)

    def close(self) -> None:
        """Stop serving, release delayed responses and free the port (idempotent)."""
        if self._closing.is_set():
            return
        self._closing.set()
        self._server.close(timeout=5)

    def __enter__(self) -> LocalSite:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        site = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            timeout = 10  # idle keep-alive connections end instead of holding a thread forever

            def do_GET(self) -> None:  # noqa: N802 - http.server's naming
                self._answer()

            def do_POST(self) -> None:  # noqa: N802
                self._answer()

            def do_HEAD(self) -> None:  # noqa: N802
                self._answer()

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - silence the default logging
                return

            def _answer(self) -> None:
                site.requests.append(f"{self.command} {self.path}")
                request = read_request(self)
                if request is None:
                    return
                source = site.pages.get(request.path)
                if source is None:
                    self._send(Response("<h1>404 Not Found</h1>", status=404))
                    return
                if callable(source):
                    source = source(request)
                self._send(source if isinstance(source, Response) else Response(source))

            def _send(self, response: Response) -> None:
                if response.delay_s > 0 and site._closing.wait(response.delay_s):
                    return
                send_response(self, response)

        return Handler


class StallingServer:
    """A server that answers every request with headers and the start of a body, then never sends the rest: the
    case a navigation timeout must cut short.  Usable as a context manager; :attr:`url` is its address."""

    HEAD = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 100000\r\n\r\n<html><body><p>partial"

    def __init__(self) -> None:
        self._listener = socket.create_server(("127.0.0.1", 0))
        self._listener.settimeout(0.2)
        self._stop = threading.Event()
        self._held: list[socket.socket] = []
        self._thread = threading.Thread(target=self._serve, name="personal-envs-stalling-server", daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        """``http://127.0.0.1:PORT/``."""
        return f"http://127.0.0.1:{self._listener.getsockname()[1]}/"

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                connection, _ = self._listener.accept()
            except TimeoutError:
                continue
            connection.recv(65536)
            connection.sendall(self.HEAD)
            self._held.append(connection)  # never answers the rest

    def close(self) -> None:
        """Stop accepting and drop every held connection (idempotent)."""
        self._stop.set()
        self._thread.join(timeout=5)
        for connection in self._held:
            connection.close()
        self._held.clear()
        self._listener.close()

    def __enter__(self) -> StallingServer:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
