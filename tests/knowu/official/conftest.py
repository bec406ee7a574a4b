"""Fixtures of the official-release tests: the anchors subset of ZJU-REAL/KnowU-Bench at 0dd7989."""

from __future__ import annotations

from pathlib import Path

import pytest

from personal_envs.knowu.official.release import OfficialRelease, find_release
from personal_envs.knowu.official.source import OfficialSource, parse_release
from personal_envs.knowu.personas import PersonaSet, official_personas


@pytest.fixture(scope="session")
def release(official_dir: Path) -> OfficialRelease:
    """The anchors release."""
    found = find_release(official_dir)
    assert found is not None
    return found


@pytest.fixture(scope="session")
def source(release: OfficialRelease) -> OfficialSource:
    """The release's task source."""
    return parse_release(release)


@pytest.fixture(scope="session")
def personas(release: OfficialRelease) -> PersonaSet:
    """The release's official roles."""
    return official_personas(release.root)
