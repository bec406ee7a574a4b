"""``personal-envs eval`` on the three ids: registered policies and the one report (the official script's rules):
Table 2 with easy / hard columns, the role table, Act / Silent / Stop, and the metrics the records carry."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from personal_envs.core.registration import entry_for
from personal_envs.knowu.official.paper_metrics import episode_from_record, report_records
from personal_envs.knowu.official.routine.rules import setup_routine
from personal_envs.knowu.personas import default_personas, user_profile_of

POLICIES = {"oracle", "always_act", "always_silent", "always_ask"}
PREFERENCE_KEYS = {"split", "role", "difficulty", "template", "score", "success", "s_rule", "s_llm", "judge_weight",
                   "judge", "judge_error", "steps", "ask_user_count", "interaction_efficiency", "rejected", "silent",
                   "stopped_after_rejection", "rule_score", "task_set", "personas"}
REPORT = "personal_envs.knowu.official.paper_metrics:report_records"
DEFAULT = '{"render": "text"}'


@pytest.mark.parametrize("env_id", ["KnowU-General-v0", "KnowU-Personalized-v0", "KnowU-Proactive-v0"])
def test_ids_register_the_one_report_and_policies(env_id: str) -> None:
    entry = entry_for(env_id)
    assert entry.report == REPORT
    assert set(entry.policies) == (POLICIES if env_id != "KnowU-General-v0" else {"oracle"})


def _eval(env_id: str, policy: str, out: Path, episodes: int, env_kwargs: str = DEFAULT) -> str:
    command = [sys.executable, "-m", "personal_envs", "eval", "--env", env_id, "--policy", policy, "--episodes",
               str(episodes), "--out", str(out), "--no-progress", "--env-kwargs", env_kwargs]
    done = subprocess.run(command, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def _bucket_lines(text: str, policy: str) -> dict[str, list[str]]:
    section = text.split(f"== {policy} ==", 1)[1].split("\n== ", 1)[0]
    return {name: line.split()[1:] for line in section.splitlines() for name in ("Act", "Silent", "Stop")
            if line.startswith(name + " ")}


def test_the_default_eval_runs_the_embedded_release_by_the_official_rules(tmp_path: Path) -> None:
    """No release: the id runs the embedded cards on the default personas; always-silent succeeds exactly on the
    routines whose habit the persona's profile does not have."""
    out = tmp_path / "default.jsonl"
    text = _eval("KnowU-Proactive-v0", "always_silent", out, 64)
    assert "KnowU-Bench Table 2" in text and "task set: personal-envs KnowU tasks (embedded)" in text
    for persona in default_personas().ids():
        assert any(line.startswith(persona + " ") for line in text.splitlines()), persona
    records = [json.loads(line)["metrics"] for line in out.read_text().splitlines()]
    assert len({m["official_class"] for m in records}) == 16 and {m["personas"] for m in records} == {
        "default personas"}
    personas = default_personas()
    for m in records:
        profile = user_profile_of(personas.profile(m["role"]))
        assert m["success"] is not setup_routine(m["official_class"], profile).should_act, m["official_episode"]
    silent_sr = 100 * sum(m["success"] for m in records) / 64
    row = next(line for line in text.splitlines() if line.startswith("always_silent "))
    assert row.split()[1:3] == ["64", f"{silent_sr:.2f}"]  # Table 2: N, overall SR
    # the official buckets (the metric's habit-key map, which may differ from the setup's): never acting is Silent
    # on every routine without the habit; Act counts the need episodes that silence still passed
    need = [m["success"] for m in records if m["official_episode"]["habit_should_act"] is True]
    assert _bucket_lines(text, "always_silent") == {"Act": [str(len(need)), f"{100 * sum(need) / len(need):.2f}"],
                                                    "Silent": [str(64 - len(need)), "100.00"], "Stop": ["0", "n/a"]}


def test_personalized_eval_and_a_combined_report(tmp_path: Path) -> None:
    out = tmp_path / "ask.jsonl"
    text = _eval("KnowU-Personalized-v0", "always_ask", out, 6)
    assert "Perso Easy SR" in text and "Perso Hard SR" in text and "judge: " in text
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(records) == 6 and all(set(r["metrics"]) >= PREFERENCE_KEYS for r in records)
    assert all(r["metrics"]["ask_user_count"] == 1 for r in records)
    wait = {"action": {"action_type": "wait"}, "ask_user_response": None}
    silent = [{"policy": "always_silent", "metrics": {"official_episode": {
        "task_name": "WeekendSleeperTask@student", "split": "proactive", "score": 0.0, "traj": [wait],
        "habit_should_act": False, "difficulty": "easy"}}}]
    # a proactive record of the removed project task set (no official trajectory) is not counted
    project = {"policy": "project", "metrics": {"split": "proactive", "score": 0.0, "steps": 1, "ask_user_count": 0,
                                                "routine_applies": False, "silent": True, "rejected": False}}
    assert episode_from_record(project) is None
    combined = report_records(records + silent + [project])
    assert "== project ==" not in combined
    assert "== always_ask ==" in combined and "== always_silent ==" in combined
    assert _bucket_lines(combined, "always_silent")["Silent"] == ["1", "100.00"]
    assert report_records([]) == "KnowU-Bench: no episodes."


def test_knowu_table_prints_act_silent_stop_by_the_official_rules(tmp_path: Path) -> None:
    runs = {policy: tmp_path / f"{policy}.jsonl" for policy in ("always_ask", "always_act")}
    for policy, out in runs.items():
        _eval("KnowU-Proactive-v0", policy, out, 8)
    done = subprocess.run([sys.executable, "-m", "personal_envs", "knowu", "table", *map(str, runs.values())],
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0 and "no KnowU episodes" not in done.stdout, done.stdout + done.stderr
    assert "personal-envs KnowU tasks (embedded)" in done.stdout
    metrics = [json.loads(line)["metrics"] for line in runs["always_act"].read_text().splitlines()]
    without = sum(m["official_episode"]["habit_should_act"] is False for m in metrics)
    assert without and _bucket_lines(done.stdout, "always_act")["Silent"] == [str(without), "0.00"]
    stop = _bucket_lines(done.stdout, "always_ask")["Stop"]  # asked, was told no, stopped
    assert int(stop[0]) > 0 and stop[1] == "100.00"
