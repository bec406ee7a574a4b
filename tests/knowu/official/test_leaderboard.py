"""``personal-envs knowu table --leaderboard``: a run beside the published leaderboard (the official
``site/leaderboard.json``, here the anchors' copy), and a clear skip when the data holds none."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from personal_envs.cli import main
from tests.conftest import ANCHORS

LEADERBOARD = ANCHORS / "knowu" / "leaderboard.json"
pytestmark = pytest.mark.skipif(not LEADERBOARD.is_file(), reason="the published leaderboard is not present")


def _records(path: Path) -> Path:
    rows = []
    for i, (split, task, score) in enumerate([("general", "BatterySaverGeneralTask", 1.0),
                                              ("general", "AlarmGeneralTask", 0.0),
                                              ("personalized", "BuyColaPreferenceTask@developer", 1.0)]):
        rows.append({"policy": "my-agent", "episode": i, "task_id": task, "steps": 3, "metrics": {
            "split": split, "score": score, "difficulty": "easy", "ask_user_count": 0,
            "task_set": "KnowU-Bench 0dd7989"}})
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_the_run_is_printed_beside_the_published_models(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    results = _records(tmp_path / "run.jsonl")
    assert main(["knowu", "table", str(results), "--leaderboard", str(LEADERBOARD)]) == 0
    out = capsys.readouterr().out
    published = json.loads(LEADERBOARD.read_text(encoding="utf-8"))["results"]
    first = published[0]
    row = next(line for line in out.splitlines() if line.startswith(first["model"]))
    assert row.split()[-6:] == [f"{first[c]:.1f}" for c in ("overall", "general", "personalized", "proactive")] + [
        "published", first["date"]]
    ours = next(line for line in out.splitlines() if line.startswith("my-agent") and "this run" in line)
    assert ours.split()[1:5] == ["66.7", "50.0", "100.0", "n/a"] and "(2/1/0 episodes)" in ours
    assert sum(1 for line in out.splitlines() if line.endswith(tuple(r["date"] for r in published))) >= len(published)


def test_without_a_leaderboard_the_table_says_so_and_still_prints(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    results = _records(tmp_path / "run.jsonl")
    monkeypatch.setenv("PERSONAL_ENVS_DATA", str(tmp_path / "empty"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("HOME", str(tmp_path))
    assert main(["knowu", "table", str(results), "--leaderboard"]) == 0
    out = capsys.readouterr().out
    assert "KnowU-Bench Table 2" in out and "leaderboard skipped:" in out and "--leaderboard PATH" in out
    assert main(["knowu", "table", str(results), "--leaderboard", str(tmp_path / "nope.json")]) == 0
    assert "leaderboard skipped: no leaderboard file" in capsys.readouterr().out
