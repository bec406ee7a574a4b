"""Connecting to a Docker engine, with one clear line when there is none."""

from __future__ import annotations

import importlib
import importlib.util
import os
from typing import Any

#: Label every object the layer creates carries: its value is the deployment's name.
LABEL = "personal-envs.backend"
#: Label of the containers whose first published port is an origin clients use; its value orders them.
ORIGIN_LABEL = "personal-envs.origin"
#: Label naming the process that created an object (``host/pid/start``, see :mod:`.claim`).
OWNER_LABEL = "personal-envs.owner"

SDK_MISSING = "the Docker SDK is missing: pip install 'personal-envs[docker]' (or: pip install docker)"


class BackendError(RuntimeError):
    """A real backend could not be started, reached or stopped; the message says what to do."""


class EngineUnavailable(BackendError):
    """No Docker engine (or no Docker SDK) is reachable."""


def engine_address() -> str:
    """Where the SDK looks for the engine: ``$DOCKER_HOST`` or the default socket."""
    return os.environ.get("DOCKER_HOST") or "unix:///var/run/docker.sock"


def docker_sdk() -> Any:
    """The Docker SDK module (``docker``).

    Raises:
        EngineUnavailable: the SDK is not installed.  Without it, ``import docker`` run from the repository root
            finds the repository's ``docker/`` folder (compose files) as a namespace package; that is reported as
            the missing SDK, not as a missing engine.
    """
    try:
        spec = importlib.util.find_spec("docker")
    except (ImportError, ValueError):
        spec = None
    if spec is None:
        raise EngineUnavailable(SDK_MISSING)
    if spec.origin is None:  # a namespace package: a folder named docker/ on sys.path, not the SDK
        folders = ", ".join(str(path) for path in spec.submodule_search_locations or ())
        raise EngineUnavailable(f"{SDK_MISSING}; `import docker` found only the folder {folders}, which is not the SDK")
    try:  # imported by name: the repository's docker/ folder (compose files) must not shadow the SDK for mypy
        return importlib.import_module("docker")
    except ImportError as exc:
        raise EngineUnavailable(f"{SDK_MISSING} ({exc})") from exc


def connect(timeout: float = 10.0) -> Any:
    """A ``docker.DockerClient`` that answered a ping.

    Raises:
        EngineUnavailable: the SDK is not installed or no engine answers, in one line saying how to get it.
    """
    docker = docker_sdk()
    try:
        client = docker.from_env(timeout=int(timeout))
        client.ping()
    except Exception as exc:  # noqa: BLE001 - every failure to reach the engine gets the same advice
        raise EngineUnavailable(
            f"no Docker engine reachable at {engine_address()}: install one (apt-get install docker.io) and start "
            f"it as root (dockerd &), or set DOCKER_HOST ({type(exc).__name__})"
        ) from None
    return client
