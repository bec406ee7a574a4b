"""The compose file that documents what a :class:`~personal_envs.backends.spec.BackendSpec` starts.

``docker/webmall/docker-compose.yml`` is this text for the official WebMall deployment (a test keeps them equal).
It is documentation: the SDK layer starts the deployment, restores the backups and rewrites the URLs, which a
compose file cannot do by itself.
"""

from __future__ import annotations

from pathlib import Path

import yaml

from personal_envs.backends.spec import BackendSpec

HEADER = ("# Generated from personal_envs/backends ({name}); documentation of what\n"
          "# `personal-envs backend up {name}` starts with the Docker SDK (ports are published on 127.0.0.1 only).\n"
          "# It also restores the backups into the volumes and runs the commands listed under x-after-start.\n")


def compose_text(spec: BackendSpec) -> str:
    """The compose YAML of ``spec``: services in start order, named volumes, the network."""
    services: dict[str, dict[str, object]] = {}
    previous: str | None = None
    for container in spec.containers:
        service: dict[str, object] = {"image": container.image, "container_name": container.name}
        if container.command:
            service["command"] = list(container.command)
        if container.environment:
            service["environment"] = dict(container.environment)
        if container.ports:
            service["ports"] = [f"127.0.0.1:{host}:{port}" if host else f"127.0.0.1::{port}"
                                for port, host in container.ports.items()]
        mounts = [f"{name}:{mount}" for name, mount in container.volumes.items()]
        mounts += [f"{path}:{mount}:ro" for path, mount in container.binds.items()]
        if mounts:
            service["volumes"] = mounts
        if spec.network:
            service["networks"] = {spec.network: {"aliases": list(container.aliases)}} if container.aliases else [
                spec.network]
        if container.privileged:
            service["privileged"] = True
        if container.devices:
            service["devices"] = list(container.devices)
        if previous:
            service["depends_on"] = [previous]
        if container.health and container.health.command:
            service["healthcheck"] = {"test": ["CMD", *container.health.command]}
        if container.after_start:
            service["x-after-start"] = [" ".join(command) for command in container.after_start]
        services[container.name] = service
        previous = container.name
    document: dict[str, object] = {"services": services}
    if spec.volumes:
        document["volumes"] = {name: {"name": name} for name in spec.volumes}
    if spec.network:
        document["networks"] = {spec.network: {"name": spec.network}}
    if spec.restores:
        document["x-restores"] = [f"{restore.tarball} -> {restore.volume}" for restore in spec.restores]
    return HEADER.format(name=spec.name) + yaml.safe_dump(document, sort_keys=False, width=120)


def webmall_compose_text() -> str:
    """The documentation compose file of the official WebMall deployment (downloads under ``$WEBMALL_DOCKER``)."""
    from personal_envs.backends import webmall

    return compose_text(webmall.spec(Path("$WEBMALL_DOCKER")))


def knowu_compose_text() -> str:
    """The documentation compose file of the official KnowU server image (``personal-envs backend up knowu``)."""
    from personal_envs.backends import knowu

    return compose_text(knowu.spec())
