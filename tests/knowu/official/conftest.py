"""Fixtures of the official-release tests: the anchors subset of ZJU-REAL/KnowU-Bench at 0dd7989."""

from __future__ import annotations

from pathlib import Path

import pytest

from personal_envs.knowu.official.release import OfficialRelease, find_release


@pytest.fixture(scope="session")
def release(official_dir: Path) -> OfficialRelease:
    """The anchors release."""
    found = find_release(official_dir)
    assert found is not None
    return found
