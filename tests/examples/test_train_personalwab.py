"""examples/train_personalwab.py --quick end to end, then its saved policy through 'personal-envs eval --policy sb3:'."""

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
SCRIPT = ROOT / "examples" / "train_personalwab.py"


def _run(args: list[str], timeout: int = 900) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)}
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, timeout=timeout, env=env, cwd=ROOT)


def test_quick_training_writes_curves_tables_and_a_policy_that_eval_runs(tmp_path):
    logs, policy = tmp_path / "logs", tmp_path / "policy"
    done = _run([str(SCRIPT), "--quick", "--review-similarity", "lexical", "--log-dir", str(logs),
                 "--save", str(policy)])
    assert done.returncode == 0, done.stderr[-3000:]
    table = (logs / "table.md").read_text()
    for env_id in ("PersonalWAB-SingleTurn-v0", "PersonalWAB-MultiTurn-v0"):
        assert env_id in table
    rows = re.findall(r"^\| (MaskablePPO \(ours\)|heuristic|random candidate|memory: last) \| ([0-9.]+) \|", table,
                      flags=re.M)
    assert len(rows) == 8 and all(0.0 <= float(value) <= 1.0 for _, value in rows)
    results = json.loads((logs / "results.json").read_text())
    assert [r["mode"] for r in results] == ["single", "multi"]
    assert all(len(r["curve"]) >= 2 and r["timesteps"] > 0 for r in results)
    assert (logs / "curves.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert list((logs / "tb").rglob("events.out.tfevents.*"))  # TensorBoard logs of both runs
    for mode in ("single", "multi"):
        assert (tmp_path / f"policy_{mode}.zip").is_file() and (tmp_path / f"policy_{mode}.json").is_file()
    # the saved multi-turn policy runs where any policy runs, on another split than it was tested on
    out = tmp_path / "eval.jsonl"
    done = _run(["-m", "personal_envs", "eval", "--env", "PersonalWAB-MultiTurn-v0", "--policy",
                 f"sb3:{tmp_path / 'policy_multi'}", "--episodes", "3", "--no-trajectories", "--out", str(out),
                 "--env-kwargs", json.dumps({"split": "train", "train_generate": {"n_users": 24, "n_products": 600}})])
    assert done.returncode == 0, done.stderr[-3000:]
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(records) == 3 and not any(r["error"] for r in records)
    assert all(r["steps"] >= 1 and r["task_id"].startswith("train:") for r in records)
    # a policy for other observations is refused with a clear message
    (tmp_path / "policy_multi.json").write_text(json.dumps({
        **json.loads((tmp_path / "policy_multi.json").read_text()),
        "rl_env": {"max_actions": 13, "features": None, "slot_history": True}}))
    done = _run(["-m", "personal_envs", "eval", "--env", "PersonalWAB-MultiTurn-v0", "--policy",
                 f"sb3:{tmp_path / 'policy_multi'}", "--episodes", "1", "--no-trajectories", "--out",
                 str(tmp_path / "bad.jsonl")])
    assert done.returncode != 0 and "trained for another env or feature setting" in done.stderr
