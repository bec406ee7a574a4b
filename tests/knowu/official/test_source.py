"""Parsing the official task definitions without executing them; official profiles and logs."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from personal_envs.knowu.official.registry import persona_ids, variant_names
from personal_envs.knowu.official.release import DEFINITIONS, OfficialRelease
from personal_envs.knowu.official.source import parse_release
from personal_envs.knowu.personas import (
    MissingProfileField,
    PersonaSet,
    load_logs,
    load_profile,
    profile_field,
)


def test_official_counts(release: OfficialRelease, personas: PersonaSet) -> None:
    source = parse_release(release)
    assert [len(source.tasks(f)) for f in ("general", "preference", "routine")] == [42, 26, 16]
    assert [len(variant_names(source, personas, f)) for f in ("general", "preference", "routine")] == [42, 86, 64]
    assert personas.ids() == ["developer", "grandma", "student", "user"]
    assert "BasePrefrenceTask" in source.classes and not source.classes["BasePrefrenceTask"].is_task


def test_class_literals(release: OfficialRelease, official_dir: Path) -> None:
    source = parse_release(release)
    battery = source.get("BatterySaverGeneralTask")
    text = (official_dir / battery.path).read_text(encoding="utf-8")
    assert battery.goal and f'"{battery.goal}"' in text
    assert battery.attributes["TRIGGER_LEVEL"] == 15
    assert battery.app_names == ("Settings",) and battery.difficulty == "easy" and battery.family == "general"
    sleeper = source.get("WeekendSleeperTask")
    contexts = [c.kwargs.get("system_context") for c in sleeper.calls("_build_goal")]
    assert len(contexts) == 1 and isinstance(contexts[0], str) and contexts[0][:25] in (official_dir / sleeper.path).read_text(encoding="utf-8")
    assert sleeper.bases == ("BaseRoutineTask",)


def test_role_sets_follow_supported_profiles(release: OfficialRelease, personas: PersonaSet) -> None:
    source = parse_release(release)
    assert persona_ids(source, personas, "MessagesAskMomForMoneyTask") == ["student"]
    assert persona_ids(source, personas, "SetAlarmPreferenceAskUser2Task") == ["grandma"]
    assert persona_ids(source, personas, "WeekendSleeperTask") == ["developer", "grandma", "student", "user"]
    assert persona_ids(source, personas, "BatterySaverGeneralTask") == []
    assert "WeekendSleeperTask@grandma" in variant_names(source, personas, "routine")
    with pytest.raises(KeyError, match="did you mean BatterySaverGeneralTask"):
        source.get("BatterySaverGeneralTsk")


def test_parsing_never_executes(release: OfficialRelease, tmp_path: Path) -> None:
    """A definition that would exit or write a file when imported is only parsed."""
    folder = tmp_path / DEFINITIONS / "general"
    folder.mkdir(parents=True)
    marker = tmp_path / "executed"
    (folder / "trap.py").write_text(
        f"open({str(marker)!r}, 'w').write('x')\nraise SystemExit(3)\n\n"
        "class TrapGeneralTask(BaseTask):\n    goal = 'A' + 'B'\n    app_names = {'Clock'}\n", encoding="utf-8")
    shutil.copytree(release.profiles_dir, tmp_path / "src/knowu_bench/user_profile")
    source = parse_release(OfficialRelease(tmp_path))
    assert source.get("TrapGeneralTask").goal == "AB"
    assert not marker.exists()


def test_profiles_and_logs_load(personas: PersonaSet) -> None:
    profile = load_profile(personas.profile_path("developer"))
    assert profile_field(profile, "identity.full_name") == "Kenji Sato"
    with pytest.raises(MissingProfileField, match="identity.shoe_size.*WeekendSleeperTask@x"):
        profile_field(profile, "identity.shoe_size", task="WeekendSleeperTask@x")
    clean = load_logs(personas.logs_path("developer"))
    noisy = load_logs(personas.logs_path("developer", "noise"))
    assert len(noisy) > len(clean) > 0 and {"time", "location", "action"} <= set(clean[0])
    with pytest.raises(FileNotFoundError, match="personas: developer, grandma, student, user"):
        personas.profile_path("pirate")
