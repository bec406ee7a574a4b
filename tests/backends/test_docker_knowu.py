"""``personal-envs knowu serve`` in a container on the real engine, brought up by the Docker layer, driven by the
official client (``runtime/client.py`` of the release) and by ``backend="official"`` through whole official tasks
with the official score.  The image holds Debian's Python and Chromium plus the project's dependencies from PyPI;
the project and the official release are mounted read-only.

``PERSONAL_ENVS_DOCKER=1 python3 -m pytest -q -m docker`` (base image: ``scripts/docker_test_base.sh``).
"""

from __future__ import annotations

import textwrap
import uuid
from collections.abc import Iterator
from pathlib import Path

import gymnasium as gym
import pytest

from personal_envs.backends import BackendSpec, ContainerSpec, Deployment, HealthCheck
from personal_envs.knowu.official_api.protocol import to_official
from tests.backends.images import build_on_base
from tests.conftest import docker_client_or_skip
from tests.knowu.official.test_official_api import TASKS, official_client_class, oracle_actions

pytestmark = pytest.mark.docker

CLIENT = docker_client_or_skip()
IMAGE = "personal-envs-test/knowu-serve:2"
ROOT = Path(__file__).resolve().parents[2]
#: What the project imports to serve the phone (pyproject's core dependencies).
DEPENDENCIES = ('"gymnasium>=1.0" "pettingzoo>=1.24" "numpy>=1.26" "scipy>=1.11" "PyYAML>=6.0" "tqdm>=4.66" '
                '"bm25s>=0.2" "PyStemmer>=2.2" "playwright>=1.45" "pillow>=10.0"')


@pytest.fixture(scope="module")
def serve_image() -> str:
    dockerfile = textwrap.dedent(f"""\
        FROM {{BASE}}
        RUN apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \\
            python3 python3-pip chromium-headless-shell libatomic1 fonts-dejavu-core ca-certificates >/dev/null \\
            && rm -rf /var/lib/apt/lists/*
        COPY host-ca.crt /etc/ssl/certs/host-ca.crt
        RUN PIP_CERT=/etc/ssl/certs/host-ca.crt pip3 install -q --break-system-packages --no-cache-dir {DEPENDENCIES}
        ENV PYTHONPATH=/opt/personal-envs PERSONAL_ENVS_CHROMIUM=/usr/bin/chromium-headless-shell
    """)
    # the host's CA bundle: PyPI is reached through the same TLS chain as on the host
    return build_on_base(CLIENT, IMAGE, dockerfile,
                         {"host-ca.crt": Path("/etc/ssl/certs/ca-certificates.crt").read_bytes()})


@pytest.fixture(scope="module")
def server_url(serve_image: str, official_dir: Path) -> Iterator[str]:
    name = f"pe-test-knowu-{uuid.uuid4().hex[:6]}"
    container = ContainerSpec(
        f"{name}-serve", serve_image,
        command=("python3", "-m", "personal_envs", "knowu", "serve", "--data-dir", "/data/knowu", "--host", "0.0.0.0",
                 "--port", "6800"),
        ports={6800: 0}, binds={str(ROOT): "/opt/personal-envs", str(official_dir): "/data/knowu"},
        health=HealthCheck(http_path="/health", http_port=6800, timeout_s=180))
    with Deployment(BackendSpec(name, (container,), origins=(container.name,)), CLIENT) as deployment:
        [origin] = deployment.origins()
        yield origin


@pytest.mark.parametrize("split, name", TASKS)
def test_official_client_and_backend_official_drive_the_containerised_server(server_url: str, official_dir: Path,
                                                                              split: str, name: str) -> None:
    actions, sim_score = oracle_actions(official_dir, split, name)
    client_class, models = official_client_class(official_dir)
    client = client_class(url=server_url, step_wait_time=0.0)
    assert client.health()
    client.initialize_task(name)
    for action in actions:
        client.execute_action(models.JSONAction(**to_official(action)))
    score, reason = client.get_task_score(name, actions=[to_official(a) for a in actions])
    assert score == sim_score == 1.0, reason
    client.tear_down_task(name)
    env = gym.make(f"KnowU-{split.capitalize()}-v0", backend="official", server_url=server_url, task=name)
    try:
        obs, _ = env.reset(seed=0)
        reward = 0.0
        for action in actions:
            obs, reward, terminated, truncated, info = env.step(action)
        assert terminated and reward == 1.0 and info["metrics"]["score"] == 1.0
    finally:
        env.close()
