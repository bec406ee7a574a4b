"""The real-backend layer without an engine: definitions, the documentation compose file, resumable downloads and
the one-line errors when there is no engine (the Docker-engine tests are in test_docker_webmall.py)."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from personal_envs.backends import BackendError, webmall
from personal_envs.backends.compose import webmall_compose_text
from personal_envs.backends.fetch import MANIFEST, download_resumable

ROOT = Path(__file__).resolve().parents[2]


def test_the_documentation_compose_file_is_generated_from_the_definitions() -> None:
    assert (ROOT / "docker" / "webmall" / "docker-compose.yml").read_text() == webmall_compose_text()


def test_webmall_definition_holds_the_official_deployment() -> None:
    spec = webmall.spec(Path("/srv/webmall"))
    shops = [spec.container(f"WebMall_wordpress_shop{n}") for n in (1, 2, 3, 4)]
    assert [list(s.ports.values()) for s in shops] == [[8081], [8082], [8083], [8084]]
    assert spec.origins == tuple(s.name for s in shops)
    assert [s.environment["WORDPRESS_CONFIG_EXTRA"].count(f"shop{n}_") for n, s in enumerate(shops, 1)] == [1] * 4
    assert sorted(r.tarball.name for r in spec.restores) == sorted(webmall.backup_names()) and len(spec.restores) == 8
    # each backup lands in the volume the shop's container mounts
    mounted = {volume for c in spec.containers for volume in c.volumes}
    assert {r.volume for r in spec.restores} <= mounted and set(spec.volumes) == mounted
    # the URL rewrite targets the port the shop is published on, then the shop restarts
    for n, shop in enumerate(shops, 1):
        assert shop.after_start[0][:4] == ("wp", "search-replace", f"https://webmall-{n}.informatik.uni-mannheim.de/",
                                           f"http://localhost:{8080 + n}") and shop.restart_after_commands
    assert all(f.git_blob and webmall.COMMIT in f.url for f in webmall.CONFIG_FILES)


class RangeHandler(BaseHTTPRequestHandler):
    """Serves ``payload`` with HTTP Range support (what a resumable download needs)."""

    payload = b""
    ranges: list[str] = []

    def log_message(self, *args: object) -> None:
        pass

    def do_GET(self) -> None:  # noqa: N802
        wanted = self.headers.get("Range")
        RangeHandler.ranges.append(wanted or "")
        body, status = self.payload, 200
        if wanted:
            start = int(wanted.removeprefix("bytes=").split("-")[0])
            body, status = self.payload[start:], 206
        self.send_response(status)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture()
def range_server() -> Iterator[str]:
    RangeHandler.payload = os.urandom(300_000)
    RangeHandler.ranges = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), RangeHandler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/backup.tar.gz"
    server.shutdown()
    server.server_close()


def test_download_resumes_a_partial_file_and_records_its_checksum(range_server: str, tmp_path: Path) -> None:
    destination = tmp_path / "backup" / "backup.tar.gz"
    destination.parent.mkdir()
    (destination.parent / "backup.tar.gz.part").write_bytes(RangeHandler.payload[:120_000])  # an interrupted download
    download_resumable(range_server, destination, progress=lambda _: None)
    assert RangeHandler.ranges == ["bytes=120000-"]
    assert destination.read_bytes() == RangeHandler.payload
    manifest = json.loads((destination.parent / MANIFEST).read_text())
    assert manifest["backup.tar.gz"] == hashlib.sha256(RangeHandler.payload).hexdigest()
    # trust on first use: a later copy that differs from the recorded checksum is fetched again and refused
    destination.write_bytes(b"corrupt")
    RangeHandler.payload = b"the publisher changed the file"
    with pytest.raises(BackendError, match="checksum mismatch"):
        download_resumable(range_server, destination, progress=lambda _: None)
    assert not destination.exists() and not destination.with_name("backup.tar.gz.part").exists()


def test_download_failure_keeps_the_partial_file_and_says_how_to_resume(tmp_path: Path) -> None:
    destination = tmp_path / "b.tar.gz"
    destination.with_name("b.tar.gz.part").write_bytes(b"half")
    with pytest.raises(BackendError, match="run the command again to resume"):
        download_resumable("http://127.0.0.1:9/b.tar.gz", destination, timeout=2, progress=lambda _: None)
    assert destination.with_name("b.tar.gz.part").read_bytes() == b"half"


@pytest.mark.parametrize("action", ["up", "down", "status"])
def test_without_an_engine_each_command_says_what_is_missing_in_one_line(action: str, tmp_path: Path) -> None:
    env = {**os.environ, "DOCKER_HOST": f"unix://{tmp_path}/no-engine.sock", "PERSONAL_ENVS_DATA": str(tmp_path)}
    done = subprocess.run([sys.executable, "-m", "personal_envs", "backend", action, "webmall"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 1 and done.stdout == ""
    [line] = done.stderr.strip().splitlines()
    assert "no Docker engine reachable" in line and "apt-get install docker.io" in line and "dockerd" in line
    assert not (tmp_path / "webmall-docker").exists()  # nothing downloaded when there is no engine


HIDE_SDK = """
import importlib.machinery, os, sys
sdk = importlib.machinery.PathFinder.find_spec("docker")
sdk_dir = os.path.dirname(os.path.dirname(sdk.origin)) if sdk and sdk.origin else None
class WithoutSdk:  # this interpreter as it is without the Docker SDK installed: the path entry holding it is skipped
    def find_spec(self, name, path=None, target=None):
        if name != "docker":
            return None
        entries = [entry for entry in sys.path if os.path.abspath(entry or ".") != sdk_dir]
        spec = importlib.machinery.PathFinder.find_spec(name, entries)
        if spec is None:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return spec
sys.meta_path.insert(0, WithoutSdk())
"""


@pytest.mark.parametrize("action", ["up", "status"])
def test_without_the_sdk_the_repository_docker_folder_is_not_taken_for_it(action: str, tmp_path: Path) -> None:
    script = HIDE_SDK + "from personal_envs.cli import main; sys.exit(main(['backend', sys.argv[1], 'webmall']))"
    env = {**os.environ, "PERSONAL_ENVS_DATA": str(tmp_path), "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", script, action], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=120)  # from the repository root, where docker/ is on sys.path
    assert done.returncode == 1 and done.stdout == ""
    [line] = done.stderr.strip().splitlines()
    assert line.startswith("error: the Docker SDK is missing: pip install 'personal-envs[docker]'"), line
    assert f"found only the folder {ROOT / 'docker'}" in line and "no Docker engine" not in line
    installed = importlib.util.find_spec("docker")
    if installed is None or installed.origin is None:
        return
    # with the SDK installed, the same import from the same place is the SDK, not the folder
    sdk = subprocess.run([sys.executable, "-c", "import docker; print(docker.__file__)"], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=60)
    assert sdk.returncode == 0 and "site-packages" in sdk.stdout


def test_shop_urls_must_be_origins_or_docker() -> None:
    from personal_envs.webmall.env import WebMallEnv

    with pytest.raises(ValueError, match="docker"):
        WebMallEnv(data_dir="shipped", tasks="generated", shop_urls="kubernetes")


def test_the_knowu_compose_file_is_generated_and_the_image_is_started_as_the_official_launcher_does() -> None:
    from personal_envs.backends import knowu
    from personal_envs.backends.compose import knowu_compose_text

    assert (ROOT / "docker" / "knowu" / "docker-compose.yml").read_text() == knowu_compose_text()
    [container] = knowu.spec().containers
    assert container.privileged and container.image == "ghcr.io/yaosqz/knowu-bench:latest"
    assert container.ports == {6800: 6800, 7860: 7860, 5800: 5800, 5556: 5556}
    assert container.health is not None and container.health.http_path == "/health"


def test_without_kvm_the_knowu_backend_says_so_in_one_line(tmp_path: Path) -> None:
    from personal_envs.backends import knowu

    with pytest.raises(BackendError) as error:
        knowu.require_kvm(str(tmp_path / "kvm"))
    assert "KVM is missing" in str(error.value) and "knowu serve" in str(error.value)
    assert "\n" not in str(error.value)
