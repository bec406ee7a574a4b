"""The persona generator: deterministic releases in the official layout whose profiles every reader reads, whose
habits the routine setups find exactly as written, whose logs hold the evidence the manifest states, and whose word
pools share nothing distinctive with the official roles."""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from personal_envs.cli import main as cli
from personal_envs.knowu.generate import POOLS_FILE, generate_release, read_manifest
from personal_envs.knowu.generate.logs import EVIDENCE, STRENGTHS
from personal_envs.knowu.generate.persona import HABITS
from personal_envs.knowu.official.routine.rules import ROUTINES, setup_routine
from personal_envs.knowu.personas import PACKAGE, PersonaSet, load_logs, load_profile, user_slug

#: The official noise vocabulary the generator draws its noise categories from.
OFFICIAL_NOISE = {"push_popup", "spam_sms", "spam_call", "accidental_tap", "system_update_later",
                  "wifi_reconnect_prompt", "notification_spam", "app_popup_spam", "weather_alert", "calendar_spam",
                  "email_spam", "entertainment_idle", "utility_usage", "low_battery_plugged"}
#: Pool keys that are the world's or the apps' vocabulary (cities with weather pages, app and channel names,
#: couriers, colours, cuisines, visibility levels...): shared with any persona by design.
VOCABULARY = {"cities.name", "weather_cities", "routine_channels", "shops", "food_apps", "payments", "couriers",
              "shoe_colors", "clothes.color_preference", "cuisines.likes", "visibilities", "relatives",
              "colleague_roles", "on_call.keywords", "on_call.reply"}


@pytest.fixture(scope="module")
def twenty(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    yield generate_release(20, 0, tmp_path_factory.mktemp("gen") / "s0")


def _files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_the_same_arguments_give_the_same_bytes(tmp_path: Path) -> None:
    first = _files(generate_release(4, 3, tmp_path / "a"))
    assert first == _files(generate_release(4, 3, tmp_path / "b"))
    assert len([f for f in first if f.endswith(".png")]) == 8 and "GENERATED.yaml" in first


def test_the_layout_is_official_and_every_file_passes_its_schema(twenty: Path) -> None:
    personas = PersonaSet.from_dir(twenty)
    assert personas.home == twenty / PACKAGE and len(personas.ids()) == 20
    for pid in personas.ids():
        profile = load_profile(personas.profile_path(pid))
        clean, noisy = load_logs(personas.logs_path(pid)), load_logs(personas.logs_path(pid, "noise"))
        assert 90 <= len(clean) <= 170
        noise = [e for e in noisy if e["label"] == "noise"]
        assert len(noise) == round(len(clean) / 3) and len(noisy) == len(clean) + len(noise)  # 25 % of the file
        assert {e["category"] for e in noise} <= OFFICIAL_NOISE
        assert [e["time"] for e in noisy] == sorted(e["time"] for e in noisy)
        assert all(re.fullmatch(r"2026-01-\d\dT\d\d:\d\d:\d\d\+08:00", e["time"]) for e in noisy)
        places = {p["address"] for p in profile["user_profile"]["locations"].values()}
        assert {e["location"] for e in noisy} <= places
        for share in ("email_share", "mastodon_share"):
            photos = list((personas.media_dir / user_slug(profile) / share).glob("*.png"))
            assert len(photos) == 1 and photos[0].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_each_habit_applies_to_its_share_and_the_setups_read_it_as_written(twenty: Path) -> None:
    personas = PersonaSet.from_dir(twenty)
    manifest = read_manifest(twenty)
    applying = Counter(h for v in manifest["variants"].values() for h in v["habits"])
    assert applying == {h: 8 for h in HABITS}  # round(0.4 * 20) each: seen applying and absent
    own_key = {r.habit_keys[0]: r.cls for r in ROUTINES.values()}
    assert set(own_key) == set(HABITS)
    for pid in personas.ids():
        profile = personas.profile(pid)["user_profile"]
        habits = set(manifest["variants"][pid]["habits"])
        for key, cls in own_key.items():
            setup = setup_routine(cls, profile)
            assert setup.should_act is (key in habits), (pid, cls)
            if not setup.should_act:
                continue
            habit = profile["habits"][key]
            action = habit.get("action", {})
            checks: dict[str, tuple[str, str, tuple[str, ...]]] = {
                "DailyFamilyCallTask": ("target_phone", "action", ("target_phone",)),
                "ClockOutRoutineTask": ("target_channel", "action", ("channel",)),
                "BirthdayWishTask": ("contact_phone", "action", ("recipient", "phone")),
                "MattermostOnCallTask": ("channel_name", "trigger", ("channel",)),
                "ScamSmsInterceptRoutineTask": ("sender_phone", "action", ("block_number",)),
                "PreMeetingPrepTask": ("doc_name", "action", ("file_name",)),
            }
            if cls in checks:
                name, part, path = checks[cls]
                written: Any = habit[part]
                for step in path:
                    written = written[step]
                assert setup.values[name] == written, (pid, cls)
            if cls == "WeeklyReportRoutineTask":
                assert setup.values["expectation"]["target_recipient"] == action["recipient"]
            if cls == "GalleryCleanupTask":
                assert setup.values["cleanup_policy"] == {
                    "mode": "delete_older_than", "older_than_days": action["cleanup_policy"]["older_than_days"]}
            if cls == "MorningWeatherCheckTask":
                city = re.search(r"in (\w+)", profile["habits"][key]["description"]).group(1)  # type: ignore[union-attr]
                assert (setup.values["city"], setup.values["search_query"]) == (city, f"{city} Weather Today")


def test_the_logs_hold_the_stated_evidence_at_the_stated_strength(twenty: Path) -> None:
    personas = PersonaSet.from_dir(twenty)
    manifest = read_manifest(twenty)
    seen = set()
    for pid, entry in manifest["variants"].items():
        clean = personas.logs(pid)
        counts = Counter(e["category"] for e in clean)
        for habit, stated in entry["habits"].items():
            low, high = STRENGTHS[stated["strength"]]
            weekdays = EVIDENCE[habit][0]
            assert counts[habit] == stated["evidence"], (pid, habit)
            if not weekdays or len(weekdays) >= 5:
                assert low <= stated["evidence"] <= high, (pid, habit, stated)
            else:  # a weekly habit: a month has four or five trigger days
                assert 2 <= stated["evidence"] <= 5
            seen.add(stated["strength"])
        for habit in set(HABITS) - set(entry["habits"]):
            assert counts[habit] == 0, (pid, habit)  # no evidence of an absent habit (decoys are daily life)
        assert {c for c in counts if c.startswith("preference_")} == {
            "preference_diet", "preference_shopping", "preference_travel", "preference_social", "preference_apps"}
    assert seen == set(STRENGTHS)
    assert any(v["decoys"] for v in manifest["variants"].values())


def test_two_seeds_give_disjoint_personas(twenty: Path, tmp_path: Path) -> None:
    def distinct(folder: Path) -> set[str]:
        found: set[str] = set()
        for pid in (personas := PersonaSet.from_dir(folder)).ids():
            user = personas.profile(pid)["user_profile"]
            identity = user["identity"]
            found |= {identity["contact_info"]["phone"], identity["contact_info"]["email_work"],
                      identity["auth_documents"]["id_card"], identity["auth_documents"]["passport"]}
            found |= {p["address"] for p in user["locations"].values()}
        return found

    other = generate_release(20, 1, tmp_path / "s1")
    assert not distinct(twenty) & distinct(other)
    assert read_manifest(other)["seed"] == 1


def test_the_pools_share_nothing_distinctive_with_the_official_roles(official_dir: Path) -> None:
    home = official_dir / PACKAGE
    official = " ".join(p.read_text(encoding="utf-8").lower() for p in
                        [*(home / "user_profile").glob("*.yaml"), *(home / "user_logs").glob("*.json")])

    def leaves(value: Any, path: str = "") -> Iterator[tuple[str, str]]:
        if isinstance(value, dict):
            for key, item in value.items():
                yield from leaves(item, f"{path}.{key}" if path else str(key))
        elif isinstance(value, list):
            for item in value:
                yield from leaves(item, path)
        else:
            yield path, str(value)

    pools = yaml.safe_load(POOLS_FILE.read_text(encoding="utf-8"))
    shared = [(path, v) for path, v in leaves(pools) if path not in VOCABULARY and len(v) >= 5
              and re.search(rf"\b{re.escape(v.lower())}\b", official)]
    assert not shared, shared


def test_the_command_writes_a_release_and_refuses_bad_arguments(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "cli"
    assert cli(["knowu", "generate", "--personas", "3", "--seed", "7", "--out", str(out)]) == 0
    assert "wrote 3 personas" in capsys.readouterr().out
    assert PersonaSet.from_dir(out).ids() == ["g7-0", "g7-1", "g7-2"]
    assert json.loads((out / PACKAGE / "user_logs" / "g7-0.json").read_text(encoding="utf-8"))
    with pytest.raises(ValueError, match="strengths must be among"):
        generate_release(2, 0, tmp_path / "bad", strengths=("huge",))
    assert not (tmp_path / "bad").exists()
