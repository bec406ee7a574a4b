"""A benchmark added from outside the package tree gets the eval CLI, the RL wrappers, the shaping wrapper and the
user-as-agent wrappers without any edit to ``personal_envs``; and the core and wrappers name no benchmark."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import gymnasium as gym
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test
from stable_baselines3.common.env_checker import check_env as sb3_check_env

from personal_envs.core.registration import entry_for, register_module
from personal_envs.wrappers import SignalShaping, UserAgentAEC, make_rl_env

REPO = Path(__file__).resolve().parents[2]
BENCHMARKS = ("personalwab", "webmall", "knowu", "browserarena")


@pytest.fixture(scope="module")
def toy_id() -> str:
    assert register_module("tests.toybench.registration") == ["ToyShelf-v0"]
    return "ToyShelf-v0"


def test_core_and_wrappers_import_no_benchmark() -> None:
    pattern = re.compile(rf"^\s*(from|import)\s+personal_envs\.({'|'.join(BENCHMARKS)})\b", re.M)
    offenders = [str(path.relative_to(REPO)) for folder in ("core", "wrappers")
                 for path in (REPO / "personal_envs" / folder).rglob("*.py") if pattern.search(path.read_text())]
    assert offenders == []


def test_plugin_passes_the_checkers_and_records_its_trace(toy_id: str) -> None:
    env = gym.make(toy_id)
    check_env(env.unwrapped)
    obs, info = env.reset(seed=1, options={"task_index": 0})
    assert info["task_id"] == "shelf-0" and "banana" in obs["shelf"]
    obs, *_ = env.step({"action_type": "ask", "text": "hint please"})
    assert obs["user_reply"] == "It starts with b."  # the base env routed the user turn
    _, reward, terminated, _, info = env.step({"action_type": "answer", "word": "banana"})
    assert terminated and reward == 1.0 and info["metrics"] == {"success": True, "hints": 1, "user_kind": "simulated"}
    assert info["evaluation"]["checks"] == [{"name": "answer", "passed": True, "detail": "answered 'banana'"}]
    trace = env.unwrapped.trace
    assert [s.name for s in trace.steps] == ["ask", "answer"] and trace.dialogue[0].message == "hint please"
    env.close()


def test_plugin_gets_rl_and_shaping_wrappers(toy_id: str) -> None:
    rl_env = make_rl_env(toy_id)  # candidates come from the entry's factory
    sb3_check_env(rl_env)
    rl_env.close()
    env = SignalShaping(gym.make(toy_id))
    assert env.weights == entry_for(toy_id).signal_weights
    env.reset(seed=0, options={"task_index": 1})
    _, reward, *_ = env.step({"action_type": "ask", "text": "hint?"})
    assert reward == pytest.approx(0.5 - 0.1)  # one useful hint, one step
    _, reward, *_ = env.step({"action_type": "answer", "word": "not-there"})
    assert reward == pytest.approx(-0.1)
    env.close()


def test_plugin_gets_the_user_as_agent_wrapper(toy_id: str) -> None:
    api_test(UserAgentAEC(gym.make(toy_id)), num_cycles=5)


def test_plugin_installed_by_entry_point_runs_in_the_eval_cli(tmp_path: Path) -> None:
    dist = tmp_path / "site" / "toybench_plugin-0.1.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: toybench-plugin\nVersion: 0.1\n")
    (dist / "entry_points.txt").write_text("[personal_envs.benchmarks]\ntoy = tests.toybench.registration\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path / "site"), str(REPO)])}
    out = tmp_path / "toy.jsonl"
    done = subprocess.run(
        [sys.executable, "-m", "personal_envs", "eval", "--env", "ToyShelf-v0", "--policy", "hint_follower",
         "--episodes", "3", "--out", str(out)],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["score"] for r in records] == [1.0, 1.0, 1.0]
    assert "Toy shelf: 3/3 right" in done.stdout
