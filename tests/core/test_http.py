"""The loopback HTTP plumbing: whole responses in one write, no Nagle delay, HEAD without a body."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from typing import Any

import pytest

from personal_envs.core.http import LoopbackServer, send_body

BODY = "<p>héllo</p>".encode() * 50


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    writes: list[int] = []
    nodelay: list[int] = []

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        return

    def do_GET(self) -> None:
        self._answer(head=False)

    def do_HEAD(self) -> None:
        self._answer(head=True)

    def _answer(self, head: bool) -> None:
        _Handler.nodelay.append(self.connection.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
        original = self.wfile.write

        def counting_write(data: bytes) -> int:
            _Handler.writes.append(len(data))
            return original(data)

        self.wfile.write = counting_write  # type: ignore[method-assign]
        send_body(self, 200, BODY, "text/html; charset=utf-8", {"X-Test": "1"}, head=head)


@pytest.fixture
def server() -> Iterator[LoopbackServer]:
    _Handler.writes, _Handler.nodelay = [], []
    running = LoopbackServer(_Handler, "test-http-{port}")
    yield running
    running.close()


def _exchange(server: LoopbackServer, method: str) -> bytes:
    with socket.create_connection((server.host, server.port), timeout=5) as client:
        client.sendall(f"{method} / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode())
        chunks = []
        while chunk := client.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks)


def test_response_leaves_in_one_write_on_a_nodelay_socket(server: LoopbackServer) -> None:
    reply = _exchange(server, "GET")
    head, _, body = reply.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200") and b"X-Test: 1" in head and b"Cache-Control: no-store" in head
    assert f"Content-Length: {len(BODY)}".encode() in head and body == BODY
    assert _Handler.writes == [len(reply)], "status line, headers and body in a single write"
    assert _Handler.nodelay and all(_Handler.nodelay), "server sockets have TCP_NODELAY"


def test_head_gets_headers_only(server: LoopbackServer) -> None:
    reply = _exchange(server, "HEAD")
    assert reply.startswith(b"HTTP/1.1 200") and reply.endswith(b"\r\n\r\n")
    assert f"Content-Length: {len(BODY)}".encode() in reply
