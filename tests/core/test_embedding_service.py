"""The machine's shared MiniLM: started on first use, shared by processes, same vectors as the local model, gone
when idle; vector-env workers use it without being told."""

from __future__ import annotations

import multiprocessing
import os
import socket
import struct
import time
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sentence_transformers", reason="the MiniLM model is not installed")

from personal_envs.core.embedding import embedding_mode, encode_local  # noqa: E402
from personal_envs.core.embedding_service import EmbeddingClient, ServiceError  # noqa: E402

TEXTS = ["wireless noise cancelling earbuds", "a pair of red running shoes", "I bought this blender " * 90]


def _pid_and_rows(path: str, queue: multiprocessing.Queue) -> None:  # runs in a spawned process
    client = EmbeddingClient(Path(path))
    rows = client.embed(TEXTS)
    queue.put((client.ping()["pid"], rows.tolist(), embedding_mode()))
    client.close()


def test_processes_share_one_service_with_the_local_models_vectors(tmp_path, monkeypatch):
    path = tmp_path / "emb.sock"
    monkeypatch.setenv("PERSONAL_ENVS_EMBEDDING_SOCKET", str(path))
    context = multiprocessing.get_context("spawn")
    queue = context.Queue()
    workers = [context.Process(target=_pid_and_rows, args=(str(path), queue)) for _ in range(2)]
    for worker in workers:
        worker.start()
    results = [queue.get(timeout=600) for _ in workers]
    for worker in workers:
        worker.join(60)
    pids = {pid for pid, _, _ in results}
    assert len(pids) == 1 and os.getpid() not in pids  # one service for both processes, not either of them
    assert {mode for _, _, mode in results} == {"service"}  # a multiprocessing child uses the service
    local = encode_local(TEXTS)
    for _, rows, _ in results:
        assert np.allclose(np.asarray(rows, np.float32), local, atol=1e-5)
    client = EmbeddingClient(path, start=False)
    long_local = encode_local([TEXTS[2]], max_tokens=512)
    assert np.allclose(client.embed([TEXTS[2]], max_tokens=512), long_local, atol=1e-5)
    assert not np.allclose(long_local, local[2:3], atol=1e-3)  # 512 tokens is not the model's own 256
    stats = client.ping()
    assert stats["encoded"] == 4 and stats["served"] == 7  # the second process's texts came from the cache
    # a request that is not texts is refused, the connection stays usable
    raw = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    raw.connect(str(path))
    body = b'{"op": "embed", "texts": [1, 2]}'
    raw.sendall(struct.pack(">I", len(body)) + body)
    (length,) = struct.unpack(">I", raw.recv(4))
    assert b"expected" in raw.recv(length)
    raw.close()
    client.close()
    deadline = time.monotonic() + 60  # idle for 20 s without clients: the service stops and removes its socket
    while path.exists() and time.monotonic() < deadline:
        time.sleep(0.5)
    assert not path.exists()
    with pytest.raises(ServiceError, match="no embedding service"):
        EmbeddingClient(path, start=False).embed(["x"])
