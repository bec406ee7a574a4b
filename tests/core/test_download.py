import hashlib
import threading
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

import pytest

from personal_envs.core.download import DownloadError, RemoteFile, fetch_files


@pytest.fixture()
def file_server(tmp_path):
    root = tmp_path / "www"
    root.mkdir()
    (root / "a.json").write_text('{"x": 1}')
    handler = partial(SimpleHTTPRequestHandler, directory=str(root))
    handler.log_message = lambda *a, **k: None  # type: ignore[method-assign]
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_fetch_verifies_checksums_and_skips_present_files(file_server, tmp_path):
    digest = hashlib.sha256(b'{"x": 1}').hexdigest()
    files = [RemoteFile(f"{file_server}/a.json", "sub/a.json", digest)]
    messages: list[str] = []
    [path] = fetch_files(files, tmp_path / "cache", progress=messages.append)
    assert path.read_text() == '{"x": 1}' and messages[-1].startswith("fetched")
    fetch_files(files, tmp_path / "cache", progress=messages.append)
    assert messages[-1].startswith("ok")


def test_checksum_mismatch_and_missing_files_raise_clear_errors(file_server, tmp_path):
    with pytest.raises(DownloadError, match="checksum mismatch"):
        fetch_files([RemoteFile(f"{file_server}/a.json", "a.json", "0" * 64)], tmp_path / "c1", progress=print)
    assert not (tmp_path / "c1" / "a.json").exists()
    with pytest.raises(DownloadError, match="place it at"):
        fetch_files([RemoteFile(f"{file_server}/missing.json", "m.json")], tmp_path / "c2", progress=print)
    assert list((tmp_path / "c2").iterdir()) == []


def test_git_blob_id_is_what_git_computes(tmp_path):
    import subprocess

    from personal_envs.core.download import git_blob_sha1_of

    for name, content in (("empty", b""), ("text", b'{"x": 1}\n'), ("binary", bytes(range(256)) * 5000)):
        path = tmp_path / name
        path.write_bytes(content)
        expected = subprocess.run(["git", "hash-object", str(path)], capture_output=True, text=True, check=True)
        assert git_blob_sha1_of(path) == expected.stdout.strip()


def test_fetch_verifies_the_git_blob_id(file_server, tmp_path):
    blob = hashlib.sha1(b'blob 8\0{"x": 1}').hexdigest()
    [path] = fetch_files([RemoteFile(f"{file_server}/a.json", "a.json", git_blob=blob)], tmp_path / "ok",
                         progress=print)
    assert path.read_text() == '{"x": 1}'
    with pytest.raises(DownloadError, match="Git blob id"):
        fetch_files([RemoteFile(f"{file_server}/a.json", "a.json", git_blob="0" * 40)], tmp_path / "bad",
                    progress=print)
    assert not (tmp_path / "bad" / "a.json").exists()
    # a present file that fails its blob id is fetched again, not trusted
    stale = tmp_path / "ok" / "a.json"
    stale.write_text("corrupt")
    messages: list[str] = []
    fetch_files([RemoteFile(f"{file_server}/a.json", "a.json", git_blob=blob)], tmp_path / "ok",
                progress=messages.append)
    assert messages[-1].startswith("fetched") and stale.read_text() == '{"x": 1}'
