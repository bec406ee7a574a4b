"""Logs: the official anchor logs, the shipped seeded logs, rendering without labels."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from personal_envs.knowu.logs import (
    SHIPPED_LOG_DIR,
    LogError,
    generate_logs,
    load_logs,
    parse_logs,
    render_entry,
    render_logs,
)
from personal_envs.knowu.profiles import SHIPPED_ROLES, load_profile


def test_every_anchor_log_loads(anchors_dir: Path) -> None:
    files = sorted((anchors_dir / "knowu" / "user_logs").glob("*.json"))
    assert len(files) == 6
    for file in files:
        raw = json.loads(file.read_text(encoding="utf-8"))
        entries = load_logs(file)
        assert len(entries) == len(raw)
        labels = {e.label for e in entries}
        noise = sum(e.label == "noise" for e in entries) / len(entries)
        if "noise" in file.stem:
            assert labels == {"signal", "noise"} and 0.2 <= noise <= 0.3
        else:
            assert labels == {"signal"}


def test_role_lookup_in_data_dir(anchors_dir: Path) -> None:
    clean = load_logs("student", data_dir=anchors_dir / "knowu")
    noisy = load_logs("student", source="noise", data_dir=anchors_dir / "knowu")
    assert len(noisy) > len(clean) and "翠柏" in clean[0].location


def test_agent_view_hides_label_and_category(anchors_dir: Path) -> None:
    entries = load_logs(anchors_dir / "knowu" / "user_logs" / "user_noise_25pct.json")
    lines = render_logs(entries).splitlines()
    assert len(lines) == len(entries)
    for entry, line in zip(entries, lines, strict=True):
        assert line == f"[{entry.time}] ({entry.location}) {entry.action}" == render_entry(entry)
        if "_" in entry.category:
            assert entry.category not in line
        assert "'label'" not in line and '"category"' not in line


@pytest.mark.parametrize("role", SHIPPED_ROLES)
def test_shipped_logs_are_seeded_and_25pct_noise(role: str) -> None:
    clean = load_logs(role)
    noisy = load_logs(role, source="noise")
    assert (SHIPPED_LOG_DIR / f"{role}.json").is_file()
    assert len(clean) >= 60
    assert all(e.label == "signal" for e in clean)
    noise_count = sum(e.label == "noise" for e in noisy)
    assert abs(noise_count - 0.25 * len(noisy)) <= 1
    assert [e for e in noisy if e.label == "signal"] == clean
    regenerated_clean, regenerated_noisy = generate_logs(load_profile(role), seed=0)
    assert regenerated_clean == clean and regenerated_noisy == noisy
    other_seed, _ = generate_logs(load_profile(role), seed=1)
    assert other_seed != clean
    habit_categories = {e.category for e in clean}
    assert set(load_profile(role).habits) <= habit_categories


def test_generated_logs_reveal_preferences() -> None:
    text = render_logs(load_logs("developer"))
    assert "Tuantuan" in text and "Taodian" in text and "unlisted" in text


def test_tolerant_parsing_and_errors(tmp_path: Path) -> None:
    entries = parse_logs([{"action": "did a thing"}, {"time": "t"}, {"action": "x", "extra": 1}])
    assert [e.action for e in entries] == ["did a thing", "x"]
    with pytest.raises(LogError, match=r"field \[2\]: expected an object \(mapping\), got 'junk'"):
        parse_logs([{"action": "a"}, {"action": "b"}, "junk"])  # an entry that is not an object is never skipped
    with pytest.raises(LogError, match=r"field \[0\]\.time: expected a string \(text\), got 5"):
        parse_logs([{"action": "a", "time": 5}])
    assert entries[0].label == "signal" and entries[0].location == ""
    assert parse_logs({"logs": [{"action": "wrapped"}]})[0].action == "wrapped"
    with pytest.raises(LogError):
        parse_logs({"nothing": 1})
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    with pytest.raises(LogError, match="not valid JSON"):
        load_logs(bad)
    with pytest.raises(LogError, match="no noise log"):
        load_logs("nobody", source="noise")
    with pytest.raises(LogError, match="'clean' or 'noise'"):
        load_logs("student", source="dirty")  # type: ignore[arg-type]
