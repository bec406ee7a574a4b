"""The machine's shared MiniLM: one process holds the model; vector-env and eval workers ask it over a Unix socket.

Why: every async vector-env worker used to import torch and load MiniLM itself (seconds of start-up and a few
hundred MB each) and ran its own forward passes, competing for the same cores.  With the service the model is
loaded once per machine (per user), requests of all workers are batched together, and results are memoised for
every worker (the same instruction, history record or review comes back every episode).

* :func:`shared_client` connects to the service, starting it when none runs (a file lock makes one process start
  it; the others wait for its socket).  The socket lives in a folder only this user can open
  (``$PERSONAL_ENVS_EMBEDDING_SOCKET`` overrides the path).
* The server (``python -m personal_envs.core.embedding_service --socket PATH``) stops by itself once no client has
  been connected for ``--idle`` seconds (default 20), and removes its socket.
* Protocol: each message is a 4-byte big-endian length and a JSON object; a reply to ``embed`` is followed by one
  such length and the float32 rows.  Requests: ``{"op": "embed", "texts": [...], "max_tokens": null | int}``,
  ``{"op": "ping"}``.  No pickling: a request can only be texts.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import os
import queue
import socket
import socketserver
import struct
import subprocess
import sys
import tempfile
import threading
import time
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

logger = logging.getLogger(__name__)

PROTOCOL = "personal-envs-embeddings-1"
DIM = 384
#: Largest message accepted (bytes).
MAX_MESSAGE = 256 * 1024 * 1024
#: Texts memoised by the server, per truncation.
SERVER_CACHE_SIZE = 200_000
#: Texts encoded in one forward pass.
BATCH = 64
START_TIMEOUT_S = 300.0


class ServiceError(RuntimeError):
    """The embedding service could not be reached, started, or answered with an error."""


def socket_path() -> Path:
    """Where the service listens: ``$PERSONAL_ENVS_EMBEDDING_SOCKET``, else a private folder under the temp dir."""
    override = os.environ.get("PERSONAL_ENVS_EMBEDDING_SOCKET")
    if override:
        return Path(override)
    folder = Path(tempfile.gettempdir()) / f"personal-envs-{os.getuid()}"
    folder.mkdir(mode=0o700, exist_ok=True)
    if folder.stat().st_uid != os.getuid() or folder.stat().st_mode & 0o077:
        raise ServiceError(f"{folder} must belong to this user and be private (chmod 700) to hold the service's socket")
    return folder / "embeddings-v1.sock"


# ---------------------------------------------------------------------------------------------- framing
def _send(sock: socket.socket, header: dict[str, Any], payload: bytes | None = None) -> None:
    body = json.dumps(header).encode("utf-8")
    parts = [struct.pack(">I", len(body)), body]
    if payload is not None:
        parts += [struct.pack(">I", len(payload)), payload]
    sock.sendall(b"".join(parts))


def _receive_exactly(sock: socket.socket, count: int) -> bytes:
    chunks, left = [], count
    while left:
        chunk = sock.recv(min(left, 1 << 20))
        if not chunk:
            raise ConnectionError("the peer closed the connection")
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def _receive_frame(sock: socket.socket) -> bytes:
    (length,) = struct.unpack(">I", _receive_exactly(sock, 4))
    if length > MAX_MESSAGE:
        raise ConnectionError(f"message of {length} bytes is over the {MAX_MESSAGE}-byte limit")
    return _receive_exactly(sock, length)


# ---------------------------------------------------------------------------------------------- server
class _Batcher:
    """One model thread: takes every pending request of the same truncation, encodes their new texts together."""

    def __init__(self) -> None:
        self.requests: queue.Queue[tuple[list[str], int | None, dict[str, Any]]] = queue.Queue()
        self.cache: dict[int | None, OrderedDict[str, np.ndarray]] = {}
        self.encoded = 0
        self.served = 0
        threading.Thread(target=self._run, name="embedding-model", daemon=True).start()

    def embed(self, texts: list[str], max_tokens: int | None) -> np.ndarray:
        box: dict[str, Any] = {"done": threading.Event()}
        self.requests.put((texts, max_tokens, box))
        box["done"].wait()
        if "error" in box:
            raise ServiceError(box["error"])
        rows: np.ndarray = box["rows"]
        return rows

    def _run(self) -> None:
        from personal_envs.core.embedding import encode_local

        while True:
            first = self.requests.get()
            batch = [first]
            while True:  # everything queued now with the same truncation joins this pass
                try:
                    batch.append(self.requests.get_nowait())
                except queue.Empty:
                    break
            groups: dict[int | None, list[tuple[list[str], dict[str, Any]]]] = {}
            for texts, max_tokens, box in batch:
                groups.setdefault(max_tokens, []).append((texts, box))
            for max_tokens, members in groups.items():
                cache = self.cache.setdefault(max_tokens, OrderedDict())
                wanted = list(dict.fromkeys(t for texts, _ in members for t in texts if t not in cache))
                try:
                    if wanted:
                        for text, row in zip(wanted, encode_local(wanted, max_tokens=max_tokens, batch_size=BATCH),
                                             strict=True):
                            cache[text] = row
                        self.encoded += len(wanted)
                        while len(cache) > SERVER_CACHE_SIZE:
                            cache.popitem(last=False)
                    for texts, box in members:
                        box["rows"] = np.stack([cache[t] for t in texts]).astype(np.float32) if texts else \
                            np.zeros((0, DIM), np.float32)
                        self.served += len(texts)
                except Exception as exc:  # noqa: BLE001 - reported to the clients, the service goes on
                    for _, box in members:
                        box["error"] = f"{type(exc).__name__}: {exc}"
                for _, box in members:
                    box["done"].set()


class _Server(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True

    def __init__(self, path: str, batcher: _Batcher) -> None:
        self.batcher = batcher
        self.clients = 0
        self.last_change = time.monotonic()
        self.lock = threading.Lock()
        super().__init__(path, _Handler)


class _Handler(socketserver.BaseRequestHandler):
    server: _Server

    def handle(self) -> None:
        with self.server.lock:
            self.server.clients += 1
        try:
            while True:
                try:
                    request = json.loads(_receive_frame(self.request))
                except (ConnectionError, OSError, ValueError):
                    return
                op = request.get("op") if isinstance(request, dict) else None
                if op == "ping":
                    _send(self.request, {"ok": True, "protocol": PROTOCOL, "pid": os.getpid(),
                                         "encoded": self.server.batcher.encoded,
                                         "served": self.server.batcher.served})
                    continue
                texts = request.get("texts") if op == "embed" else None
                max_tokens = request.get("max_tokens")
                if not isinstance(texts, list) or not all(isinstance(t, str) for t in texts) or not (
                        max_tokens is None or (isinstance(max_tokens, int) and 1 <= max_tokens <= 512)):
                    _send(self.request, {"ok": False, "error": "expected {op: embed, texts: [str], max_tokens}"})
                    continue
                try:
                    rows = self.server.batcher.embed(texts, max_tokens)
                except ServiceError as exc:
                    _send(self.request, {"ok": False, "error": str(exc)})
                    continue
                _send(self.request, {"ok": True, "rows": len(texts)}, rows.astype("<f4").tobytes())
        finally:
            with self.server.lock:
                self.server.clients -= 1
                self.server.last_change = time.monotonic()


def serve(path: Path, idle_s: float = 20.0) -> None:
    """Load the model, listen on ``path`` and serve until no client has been connected for ``idle_s`` seconds."""
    from personal_envs.core.embedding import minilm

    minilm()  # load before listening: a client that connects gets answers at once
    batcher = _Batcher()
    path.unlink(missing_ok=True)
    old_mask = os.umask(0o077)
    try:
        server = _Server(str(path), batcher)
    finally:
        os.umask(old_mask)
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.2}, daemon=True).start()
    try:
        while True:
            time.sleep(0.5)
            with server.lock:
                idle = server.clients == 0 and time.monotonic() - server.last_change > idle_s
            if idle:
                break
    finally:
        server.shutdown()
        server.server_close()
        with contextlib.suppress(OSError):
            if path.exists():
                path.unlink()


# ---------------------------------------------------------------------------------------------- client
class EmbeddingClient:
    """A connection to the service (thread-safe: one request at a time)."""

    def __init__(self, path: Path | None = None, start: bool = True, timeout_s: float = START_TIMEOUT_S) -> None:
        self.path = path or socket_path()
        self._lock = threading.Lock()
        self._sock: socket.socket | None = None
        self._start = start
        self._timeout_s = timeout_s

    def embed(self, texts: Sequence[str], max_tokens: int | None = None) -> np.ndarray:
        """L2-normalised rows for ``texts``, computed (or remembered) by the service."""
        if not texts:
            return np.zeros((0, DIM), np.float32)
        header, payload = self._request({"op": "embed", "texts": list(texts), "max_tokens": max_tokens},
                                        with_payload=True)
        rows = np.frombuffer(payload or b"", dtype="<f4").reshape(int(header["rows"]), DIM)
        return rows.astype(np.float32)

    def ping(self) -> dict[str, Any]:
        """The service's pid and counters."""
        header, _ = self._request({"op": "ping"}, with_payload=False)
        return header

    def close(self) -> None:
        with self._lock:
            if self._sock is not None:
                with contextlib.suppress(OSError):
                    self._sock.close()
                self._sock = None

    def _request(self, request: dict[str, Any], with_payload: bool) -> tuple[dict[str, Any], bytes | None]:
        with self._lock:
            for attempt in range(2):  # a service that stopped while idle is started again once
                sock = self._connected()
                try:
                    _send(sock, request)
                    header = json.loads(_receive_frame(sock))
                    payload = _receive_frame(sock) if with_payload and header.get("ok") else None
                except (ConnectionError, OSError) as exc:
                    with contextlib.suppress(OSError):
                        sock.close()
                    self._sock = None
                    if attempt:
                        raise ServiceError(f"the embedding service at {self.path} failed: {exc}") from exc
                    continue
                if not header.get("ok"):
                    raise ServiceError(f"the embedding service refused the request: {header.get('error')}")
                return header, payload
        raise ServiceError("unreachable")  # pragma: no cover

    def _connected(self) -> socket.socket:
        if self._sock is None:
            self._sock = self._connect() or (self._launch() if self._start else None)
            if self._sock is None:
                raise ServiceError(f"no embedding service listens on {self.path}")
        return self._sock

    def _connect(self) -> socket.socket | None:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            sock.connect(str(self.path))
        except OSError:
            sock.close()
            return None
        return sock

    def _launch(self) -> socket.socket:
        """Start the service (one process does; the others wait for its socket) and connect."""
        import fcntl

        lock_path = self.path.with_suffix(".lock")
        with open(lock_path, "a+b") as handle:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
            try:
                sock = self._connect()
                if sock is not None:
                    return sock
                process = start_service(self.path)
                deadline = time.monotonic() + self._timeout_s
                while time.monotonic() < deadline:
                    sock = self._connect()
                    if sock is not None:
                        return sock
                    if process.poll() is not None:
                        raise ServiceError(f"the embedding service exited with status {process.returncode}; see "
                                           f"{self.path.with_suffix('.log')}")
                    time.sleep(0.1)
                raise ServiceError(f"the embedding service did not start within {self._timeout_s:.0f} s")
            finally:
                fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def start_service(path: Path, idle_s: float = 20.0) -> subprocess.Popen[bytes]:
    """Start a detached service process on ``path`` (its output goes to ``<path>.log``)."""
    import personal_envs

    package_root = str(Path(personal_envs.__file__).resolve().parents[1])
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (package_root, env.get("PYTHONPATH", "")) if p)
    env["PERSONAL_ENVS_EMBEDDINGS"] = "local"
    with open(path.with_suffix(".log"), "ab") as log:
        return subprocess.Popen(
            [sys.executable, "-m", "personal_envs.core.embedding_service", "--socket", str(path), "--idle", str(idle_s)],
            stdin=subprocess.DEVNULL, stdout=log, stderr=log, env=env, start_new_session=True, close_fds=True,
        )


_CLIENT: EmbeddingClient | None = None
_CLIENT_LOCK = threading.Lock()


def shared_client() -> EmbeddingClient:
    """This process's connection to the machine's service (connects, or starts the service, on first use)."""
    global _CLIENT
    with _CLIENT_LOCK:
        if _CLIENT is None:
            _CLIENT = EmbeddingClient()
        return _CLIENT


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="personal-envs shared MiniLM embedding service")
    parser.add_argument("--socket", default=None, help="Unix socket path (default: the per-user one)")
    parser.add_argument("--idle", type=float, default=20.0, help="stop after this many seconds without clients")
    args = parser.parse_args(argv)
    path = Path(args.socket) if args.socket else socket_path()
    serve(path, idle_s=args.idle)
    return 0


if __name__ == "__main__":
    sys.exit(main())
