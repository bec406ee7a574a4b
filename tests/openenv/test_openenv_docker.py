"""``docker/openenv/Dockerfile`` built on the real engine: the container serves an env id with
``personal-envs openenv serve`` and OpenEnv's own client plays a whole episode through the published port.

``PERSONAL_ENVS_DOCKER=1 python3 -m pytest -q -m docker tests/openenv`` (base image: ``scripts/docker_test_base.sh``).
"""

from __future__ import annotations

import io
import tarfile
import time
import urllib.request
from pathlib import Path

import pytest

from tests.backends.images import BASE
from tests.conftest import docker_client_or_skip
from tests.openenv.test_openenv_serve import EPISODES, free_port, play

pytestmark = pytest.mark.docker

CLIENT = docker_client_or_skip()
ROOT = Path(__file__).resolve().parents[2]
IMAGE = "personal-envs-test/openenv:1"
ENV = "PersonalWAB-MultiTurn-v0"


def repository_context() -> io.BytesIO:
    """The build context the Dockerfile expects: pyproject, README, the package (no caches), the CA folder."""
    context = io.BytesIO()
    with tarfile.open(fileobj=context, mode="w") as tar:
        tar.add(ROOT / "docker" / "openenv" / "Dockerfile", arcname="Dockerfile")
        for name in ("pyproject.toml", "README.md"):
            tar.add(ROOT / name, arcname=name)
        tar.add(ROOT / "personal_envs", arcname="personal_envs",
                filter=lambda info: None if "__pycache__" in info.name else info)
        # the host's CA bundle: PyPI is reached through the same TLS chain as on the host
        tar.add("/etc/ssl/certs/ca-certificates.crt", arcname="docker/openenv/extra-ca/host-ca.crt")
    context.seek(0)
    return context


def test_the_container_serves_whole_episodes_to_the_openenv_client():
    try:
        CLIENT.images.get(BASE)
    except Exception:  # noqa: BLE001 - no base image to build on
        pytest.skip(f"{BASE} is missing: run scripts/docker_test_base.sh as root")
    CLIENT.images.build(fileobj=repository_context(), custom_context=True, tag=IMAGE, network_mode="host",
                        rm=True, buildargs={"BASE": BASE})
    port = free_port()
    container = CLIENT.containers.run(IMAGE, detach=True, environment={"ENV_ID": ENV},
                                      ports={"8000/tcp": ("127.0.0.1", port)})
    try:
        base_url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 240
        while True:
            try:
                with urllib.request.urlopen(f"{base_url}/health", timeout=5) as response:
                    if response.status == 200:
                        break
            except OSError:
                pass
            container.reload()
            if container.status == "exited" or time.monotonic() > deadline:
                raise AssertionError(f"the container did not serve: {container.logs()[-2000:]!r}")
            time.sleep(1)
        replies = EPISODES[ENV][1]
        results = play(base_url, ENV, replies)
        assert results[-1].done and len(results) == len(replies) + 1
        assert results[-1].observation["info"]["action"]["action_type"] == "stop"
        assert container.attrs["Config"]["User"] == "envs"
    finally:
        container.remove(force=True)
