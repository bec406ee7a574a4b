"""The on-call routine names the official Mattermost team: the official class imports ``TEAM_NAME`` from the
release's Mattermost helper ("neuralforge"); its "AGI_Reasoning_Lab" is only the fallback of a failed import.  The
official class runs here with that helper loaded from the release, and the team of every role's goal must equal its
``team_name``."""

from __future__ import annotations

import sys
import types

import pytest

from personal_envs.knowu.official.routine.rules import setup_routine
from tests.knowu.official_routine.conftest import ANCHORS, ROLES, official_profile
from tests.knowu.official_runtime import official_runtime

pytestmark = pytest.mark.usefixtures("anchors")
HELPER = "knowu_bench.runtime.app_helpers.mattermost"


def test_every_role_names_the_official_team(monkeypatch: pytest.MonkeyPatch) -> None:
    # the helper's database driver (in the official image, not here) is not used for its constants
    driver = types.ModuleType("psycopg2")
    driver.Error = Exception  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "psycopg2", driver)
    with official_runtime(ANCHORS, real=(HELPER,)) as runtime:
        module = runtime.load("knowu_bench.tasks.definitions.routine.mattermost_response")
        assert module.TEAM_NAME == "neuralforge"  # the helper imported, not the fallback
        official = {role: module.MattermostOnCallTask(params={"profile_id": role, "profile_path": str(
            ANCHORS / "src/knowu_bench/user_profile" / f"{role}.yaml")}).team_name for role in ROLES}
    ours = {role: setup_routine("MattermostOnCallTask", official_profile(role)).values["team_name"] for role in ROLES}
    assert ours == official
    assert "neuralforge" in ours.values()
