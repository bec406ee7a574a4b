"""examples/train_knowu.py --quick end to end on the official release, then its saved policy through
'personal-envs eval --policy sb3:' on personas it never saw."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("sb3_contrib", reason="the rl extra (sb3-contrib) is not installed")
pytest.importorskip("matplotlib", reason="the plot extra (matplotlib) is not installed")

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "examples" / "train_knowu.py"


def _run(args: list[str], timeout: int = 900) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)}
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, timeout=timeout, env=env, cwd=ROOT)


def test_quick_training_writes_curve_tables_and_a_policy_that_eval_runs(tmp_path: Path, official_dir: Path) -> None:
    logs, policy = tmp_path / "logs", tmp_path / "policy"
    done = _run([str(SCRIPT), "--quick", "--data-dir", str(official_dir), "--log-dir", str(logs),
                 "--save", str(policy)])
    assert done.returncode == 0, done.stderr[-3000:]
    table = (logs / "table.md").read_text()
    assert "official (64 variants)" in table and "novel persona (32 variants)" in table
    rows = re.findall(r"^\| (MaskablePPO \(ours\)|always_silent|always_act|always_ask|random) \| ([0-9.]+) \| "
                      r"[0-9.]+ \| ([0-9.]+) \|", table, flags=re.M)
    assert len(rows) == 10 and all(0.0 <= float(sr) <= 1.0 for _, sr, _ in rows)
    results = json.loads((logs / "results.json").read_text())
    official = results["tables"]["official"]
    # the baselines' figures on the 64 official variants (docs/knowu.md): 41 without the habit, 23 with it
    assert official["always_silent"]["sr"] == pytest.approx(41 / 64)
    assert official["always_act"]["sr"] == pytest.approx(23 / 64)
    assert official["always_ask"]["sr"] == 1.0 and official["always_ask"]["queries"] == 1.0
    assert len(results["curve"]) >= 2 and results["timesteps"] > 0 and results["train_variants"] == 64
    train_ids = set((logs / "personas_train_101" / "src" / "knowu_bench" / "user_profile").iterdir())
    assert {p.name for p in train_ids}.isdisjoint(
        p.name for p in (logs / "personas_novel_977" / "src" / "knowu_bench" / "user_profile").iterdir())
    assert (logs / "curve.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert list((logs / "tb").rglob("events.out.tfevents.*"))
    assert policy.with_suffix(".zip").is_file() and policy.with_suffix(".json").is_file()
    # the saved policy runs where any policy runs, here on the held-out personas
    out = tmp_path / "eval.jsonl"
    done = _run(["-m", "personal_envs", "eval", "--env", "KnowU-Proactive-v0", "--policy", f"sb3:{policy}",
                 "--episodes", "3", "--no-trajectories", "--out", str(out), "--env-kwargs",
                 json.dumps({"render": "text", "data_dir": str(official_dir),
                             "personas": str(logs / "personas_novel_977")})])
    assert done.returncode == 0, done.stderr[-3000:]
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(records) == 3 and not any(r["error"] for r in records)
    assert all("@g977-" in r["task_id"] and r["steps"] >= 1 for r in records)
