"""The plot command on real runs: files written, the numbers behind the bars, several runs on one chart."""

from __future__ import annotations

import pytest

from personal_envs.cli import main
from personal_envs.core.recorder import JsonlLog
from personal_envs.runner import EvalConfig, evaluate
from personal_envs.trajectories.plots import grouped, mean_and_error, metric_value, paper_metrics
from personal_envs.trajectories.store import category_of, load_runs, split_of, success_of

pytest.importorskip("matplotlib")


def test_mean_and_standard_error():
    assert mean_and_error([1.0, 0.0, 1.0, 0.0]) == pytest.approx((0.5, (1 / 3) ** 0.5 / 2))
    assert mean_and_error([0.25]) == (0.25, 0.0)


def test_groups_metrics_and_success_come_from_the_records(tmp_path):
    out = tmp_path / "r.jsonl"
    log = JsonlLog(out)
    for episode, (category, f1) in enumerate([("cheap", 1.0), ("cheap", 0.0), ("cart", 0.5)]):
        log.append({"env_id": "WebMall-v0", "policy": "p", "episode": episode, "score": f1, "steps": 3,
                    "task_info": {"category": category, "split": "basic"},
                    "metrics": {"completed": f1 == 1.0, "f1": f1, "precision": f1, "recall": f1}})
    run = load_runs([out])[0]
    assert paper_metrics("WebMall-v0") == ("completed", "precision", "recall", "f1")
    names, table = grouped([run], "f1", category_of)
    assert names == ["cart", "cheap"]
    assert table[0][0] == (0.5, 0.0, 1) and table[0][1][0] == 0.5 and table[0][1][2] == 2
    assert [split_of(r) for r in run.records] == ["basic"] * 3
    assert [success_of(r) for r in run.records] == [True, False, False]
    assert metric_value(run.records[0], "completed") == 1.0


def test_plot_command_draws_several_runs_on_one_chart(tmp_path, capsys):
    kwargs = {"task_type": "search"}
    runs = []
    for policy in ("heuristic", "random"):
        out = tmp_path / f"{policy}.jsonl"
        evaluate(EvalConfig("PersonalWAB-MultiTurn-v0", policy, episodes=3, out=out, env_kwargs=kwargs,
                            progress=False, trajectories=False))
        runs.append(str(out))
    assert main(["plot", *runs, "--out", str(tmp_path / "plots")]) == 0
    files = capsys.readouterr().out.split()
    assert sorted(p.rsplit("/", 1)[1] for p in files) == [
        "PersonalWAB-MultiTurn-v0__by_category.png", "PersonalWAB-MultiTurn-v0__by_split.png",
        "PersonalWAB-MultiTurn-v0__success_vs_steps.png"]
    for file in files:
        with open(file, "rb") as handle:
            assert handle.read(8) == b"\x89PNG\r\n\x1a\n"
    assert main(["plot", *runs, "--out", str(tmp_path / "svg"), "--format", "svg"]) == 0
    svg = (tmp_path / "svg" / "PersonalWAB-MultiTurn-v0__by_category.svg").read_text()
    assert "<!-- heuristic -->" in svg and "<!-- random -->" in svg  # one legend entry per run
    assert main(["plot", str(tmp_path / "missing.jsonl"), "--out", str(tmp_path / "x")]) == 2


def test_learning_curve_from_train_ppo_log_dir(tmp_path, capsys):
    pytest.importorskip("stable_baselines3", reason="the rl extra (stable-baselines3) is not installed")
    import subprocess
    import sys
    from pathlib import Path

    script = Path(__file__).resolve().parents[2] / "examples" / "train_ppo.py"
    done = subprocess.run([sys.executable, str(script), "--problem", "personalwab", "--quick", "--review-similarity",
                           "lexical", "--log-dir", str(tmp_path / "ppo")], capture_output=True, text=True,
                          timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    curve = tmp_path / "ppo" / "PersonalWAB-SingleTurn-v0" / "curve.csv"
    rows = curve.read_text().splitlines()
    assert rows[0] == "timesteps,mean_reward,random_reward,seed" and len(rows) >= 3
    assert rows[1].startswith("0,")
    assert main(["plot", "--curves", str(curve), "--out", str(tmp_path / "plots")]) == 0
    assert (tmp_path / "plots" / "learning_curves.png").read_bytes()[:4] == b"\x89PNG"
