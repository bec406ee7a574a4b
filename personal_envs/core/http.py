"""Plumbing shared by the package's local HTTP servers (test sites, the simulated web, the shops, the vote page).

:class:`LoopbackServer` runs a :class:`~http.server.ThreadingHTTPServer` on an ephemeral port from a daemon thread;
:func:`send_body` writes a complete, uncached response from a request handler.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


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
