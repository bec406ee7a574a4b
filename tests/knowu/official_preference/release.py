"""Where the preference tests find the official release (the anchors subset), and the mark that skips without it."""

from __future__ import annotations

import pytest

from tests.conftest import ANCHORS

RELEASE = ANCHORS / "knowu" / "official"
PROFILES = RELEASE / "src/knowu_bench/user_profile"
NEEDS_RELEASE = pytest.mark.skipif(not (RELEASE / "src/knowu_bench").is_dir(), reason="official release not present")
