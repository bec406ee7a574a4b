"""``personal-envs eval`` on the personalized and proactive ids: registered policies and report, the Table 2 layout
with easy / hard columns, the role breakdown, and every metric under stable names in the records."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from personal_envs.core.registration import entry_for
from personal_envs.knowu.metrics import report
from personal_envs.knowu.official.routine.rules import setup_routine
from personal_envs.knowu.personas import default_personas, user_profile_of

POLICIES = {"oracle", "always_act", "always_silent", "always_ask"}
METRIC_KEYS = {"split", "role", "difficulty", "template", "score", "success", "s_rule", "s_llm", "lambda", "judge",
               "judge_error", "steps", "ask_user_count", "interaction_efficiency", "rejected", "silent",
               "stopped_after_rejection", "rule_score"}


@pytest.mark.parametrize("env_id", ["KnowU-Personalized-v0", "KnowU-Proactive-v0"])
def test_ids_register_report_and_policies(env_id: str) -> None:
    entry = entry_for(env_id)
    assert set(entry.policies) == POLICIES
    assert entry.report == "personal_envs.knowu.metrics:report"


PROJECT = '{"screenshot": false, "task_set": "project"}'


def _eval(env_id: str, policy: str, out: Path, episodes: int, env_kwargs: str = PROJECT) -> str:
    command = [sys.executable, "-m", "personal_envs", "eval", "--env", env_id, "--policy", policy, "--episodes",
               str(episodes), "--out", str(out), "--no-progress", "--env-kwargs", env_kwargs]
    done = subprocess.run(command, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def test_eval_prints_table2_and_the_role_breakdown(tmp_path: Path) -> None:
    out = tmp_path / "silent.jsonl"
    text = _eval("KnowU-Proactive-v0", "always_silent", out, 64)
    assert "Table 2 layout" in text and "Proactive Easy" in text and "Proactive Hard" in text
    assert "KnowU-Bench by role" in text and "grandma" in text
    row = next(line for line in text.splitlines() if line.startswith("always_silent  proactive"))
    assert row.split()[-3:] == ["0.0", "100.0", "-"]  # Act, Silent, Stop
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(records) == 64 and all(METRIC_KEYS | {"routine_applies"} <= set(r["metrics"]) for r in records)
    assert all(r["reward"] == r["score"] == r["metrics"]["score"] for r in records)


def test_the_default_eval_runs_the_embedded_release_by_the_official_rules(tmp_path: Path) -> None:
    """No release: the id runs the embedded cards on the default personas; always-silent succeeds exactly on the
    routines whose habit the persona's profile does not have."""
    out = tmp_path / "default.jsonl"
    text = _eval("KnowU-Proactive-v0", "always_silent", out, 64, '{"render": "text"}')
    assert "Table 2 layout" in text and "task set: personal-envs KnowU tasks (embedded)" in text
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
    assert row.split()[-1] == f"{silent_sr:.1f}"


def test_personalized_eval_and_a_combined_report(tmp_path: Path) -> None:
    out = tmp_path / "act.jsonl"
    text = _eval("KnowU-Personalized-v0", "always_ask", out, 6)
    assert "Personalized Easy" in text and "Personalized Hard" in text
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(records) == 6 and all(set(r["metrics"]) >= METRIC_KEYS for r in records)
    assert all(r["metrics"]["ask_user_count"] == 1 for r in records)
    silent = [{"policy": "always_silent", "metrics": {"split": "proactive", "role": "student", "difficulty": "easy",
                                                      "score": 0.0, "success": False, "steps": 1, "ask_user_count": 0,
                                                      "routine_applies": False, "silent": True, "rejected": False}}]
    combined = report(records + silent)
    assert "always_ask" in combined and "always_silent" in combined and "Overall" in combined


def _bucket_lines(text: str, policy: str) -> dict[str, list[str]]:
    section = text.split(f"== {policy} ==", 1)[1].split("\n== ", 1)[0]
    return {name: line.split()[1:] for line in section.splitlines() for name in ("Act", "Silent", "Stop")
            if line.startswith(name + " ")}


def test_knowu_table_prints_the_tables_for_the_projects_own_task_set(tmp_path: Path) -> None:
    runs = {policy: tmp_path / f"{policy}.jsonl" for policy in ("always_ask", "always_act")}
    for policy, out in runs.items():
        _eval("KnowU-Proactive-v0", policy, out, 8)
    done = subprocess.run([sys.executable, "-m", "personal_envs", "knowu", "table", *map(str, runs.values())],
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0 and "no KnowU episodes" not in done.stdout, done.stdout + done.stderr
    assert "task set: personal-envs tasks: not comparable with the paper" in done.stdout
    for policy, out in runs.items():
        metrics = [json.loads(line)["metrics"] for line in out.read_text().splitlines()]
        # the official buckets, disjoint: a rejection puts the episode in Stop, else the routine decides
        stop = [m["stopped_after_rejection"] for m in metrics if m["rejected"]]
        act = [m["success"] for m in metrics if not m["rejected"] and m["routine_applies"]]
        silent = [m["silent"] for m in metrics if not m["rejected"] and not m["routine_applies"]]
        expected = {name: [str(len(values)), f"{100 * sum(values) / len(values):.2f}" if values else "n/a"]
                    for name, values in (("Act", act), ("Silent", silent), ("Stop", stop))}
        assert _bucket_lines(done.stdout, policy) == expected
    assert _bucket_lines(done.stdout, "always_act")["Silent"] == ["4", "0.00"]  # acting without a habit
    assert _bucket_lines(done.stdout, "always_ask")["Stop"] == ["4", "100.00"]  # asked, was told no, stopped
