"""Test images built on the local engine from the Debian base image (images cannot be pulled here)."""

from __future__ import annotations

import io
import tarfile
from typing import Any

import pytest

BASE = "personal-envs-test/bookworm-minbase:latest"


def build_on_base(client: Any, tag: str, dockerfile: str, files: dict[str, bytes]) -> str:
    """Build ``tag`` from ``dockerfile`` (``{BASE}`` in it is the base image) with ``files`` in its context; the
    engine's build cache makes a rebuild instant.  Skips the calling test when the base image is missing."""
    try:
        client.images.get(BASE)
    except Exception:  # noqa: BLE001 - any lookup failure means no base image to build on
        pytest.skip(f"{BASE} is missing: run scripts/docker_test_base.sh as root")
    context = io.BytesIO()
    with tarfile.open(fileobj=context, mode="w") as tar:
        for name, data in {"Dockerfile": dockerfile.replace("{BASE}", BASE).encode(), **files}.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    context.seek(0)
    client.images.build(fileobj=context, custom_context=True, tag=tag, network_mode="host", rm=True)
    return tag
