"""What a deployment is made of: containers, their health checks, volumes and the backups restored into them.

Plain data, so the same definitions drive the SDK layer and the documentation compose files
(:func:`personal_envs.backends.compose.compose_text`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True)
class HealthCheck:
    """When a container counts as up: an HTTP answer below 500 on a published port, or a command exiting 0."""

    http_path: str | None = None
    http_port: int | None = None  # the container port whose published host port is asked
    command: tuple[str, ...] = ()
    timeout_s: float = 120.0
    interval_s: float = 0.5


@dataclass(frozen=True)
class ContainerSpec:
    """One container: ``ports`` maps container ports to host ports on 127.0.0.1 (0 picks a free one);
    ``volumes`` maps named volumes to mount points; ``binds`` host paths to mount points (read-only)."""

    name: str
    image: str
    command: tuple[str, ...] | None = None
    environment: dict[str, str] = field(default_factory=dict)
    ports: dict[int, int] = field(default_factory=dict)
    volumes: dict[str, str] = field(default_factory=dict)
    binds: dict[str, str] = field(default_factory=dict)
    aliases: tuple[str, ...] = ()
    health: HealthCheck | None = None
    privileged: bool = False
    devices: tuple[str, ...] = ()
    #: Commands run in the container once it is healthy (the official deployment's URL rewrite, say).
    after_start: tuple[tuple[str, ...], ...] = ()
    #: Restart the container after ``after_start`` (and wait until it is healthy again).
    restart_after_commands: bool = False


@dataclass(frozen=True)
class VolumeRestore:
    """A backup tarball (``tar.gz`` or plain ``tar``) unpacked into a named volume before the containers start."""

    volume: str
    tarball: Path


@dataclass(frozen=True)
class BackendSpec:
    """A whole deployment: containers started in order, one network, volumes, restores.

    ``helper_image`` runs the restores (``tar`` must be in it); ``origins`` names the containers whose first
    published port is an origin a client uses (the four shops of WebMall, in shop order).
    """

    name: str
    containers: tuple[ContainerSpec, ...]
    volumes: tuple[str, ...] = ()
    restores: tuple[VolumeRestore, ...] = ()
    helper_image: str = "busybox"
    network: str | None = None
    origins: tuple[str, ...] = ()
    #: Files copied into volumes after the restores: (volume, path in the volume, local file).
    files: tuple[tuple[str, str, Path], ...] = ()

    def container(self, name: str) -> ContainerSpec:
        """The container called ``name``."""
        for spec in self.containers:
            if spec.name == name:
                return spec
        raise KeyError(name)
