"""The official KnowU-Bench phone server image, as the official launcher starts it (``core/api/env.py`` of
ZJU-REAL/KnowU-Bench at 0dd7989): ``ghcr.io/yaosqz/knowu-bench:latest``, privileged (the Android emulator inside
needs KVM), the server on 6800, the viewer on 7860, VNC on 5800 and ADB on 5556, ready when ``/health`` answers.
"""

from __future__ import annotations

import os

from personal_envs.backends.engine import BackendError
from personal_envs.backends.spec import BackendSpec, ContainerSpec, HealthCheck
from personal_envs.knowu.official_api.protocol import OFFICIAL_IMAGE, OFFICIAL_PORTS

NAME = "knowu"
CONTAINER = "knowu_bench_env_0"


def require_kvm(path: str = "/dev/kvm") -> None:
    """Raise the one-line error the official image's emulator would otherwise hit after minutes.

    Raises:
        BackendError: ``/dev/kvm`` is missing or not usable.
    """
    if not os.path.exists(path):
        raise BackendError(f"KVM is missing ({path}): the official KnowU image runs an Android emulator that needs "
                           "hardware virtualisation (a host with KVM); without it, use `personal-envs knowu serve` "
                           "(the simulated phone behind the same API)")
    if not os.access(path, os.R_OK | os.W_OK):
        raise BackendError(f"{path} is not readable and writable by this user: add the user to the kvm group")


def spec(image: str = OFFICIAL_IMAGE) -> BackendSpec:
    """The official server container (ports published on 127.0.0.1 only)."""
    container = ContainerSpec(CONTAINER, image, ports=dict(OFFICIAL_PORTS), privileged=True, devices=("/dev/kvm",),
                              health=HealthCheck(http_path="/health", http_port=6800, timeout_s=900, interval_s=2))
    return BackendSpec(NAME, (container,), origins=(CONTAINER,))
