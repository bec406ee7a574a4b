"""Where the preference tests find the official release (the anchors subset), and the mark that skips without it."""

from __future__ import annotations

import functools

import pytest

from personal_envs.knowu.official.release import OfficialRelease
from personal_envs.knowu.official.source import OfficialSource, parse_release
from tests.conftest import ANCHORS

RELEASE = ANCHORS / "knowu" / "official"
PROFILES = RELEASE / "src/knowu_bench/user_profile"
NEEDS_RELEASE = pytest.mark.skipif(not (RELEASE / "src/knowu_bench").is_dir(), reason="official release not present")


@functools.cache
def source() -> OfficialSource:
    """The parsed official release (the task source of the official variants)."""
    return parse_release(OfficialRelease(RELEASE))


def variants() -> list[tuple[str, str]]:
    """Every official preference variant as ``(class, role)``, sorted by class."""
    found = source()
    return [(cls.name, role) for cls in found.tasks("preference") for role in found.roles_of(cls.name)]
