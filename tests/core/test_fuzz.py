"""Fuzz on every CI run: hostile actions of every category at every registered id never raise out of ``step()``
or ``action_space.contains()``, the two agree, and observations stay in their space.  A bounded slice of
``benchmarks/fuzz.py`` (which runs 13,440 actions); set ``PERSONAL_ENVS_FUZZ_SEED`` to try another slice."""

from __future__ import annotations

import math
import os
from typing import Any

import gymnasium as gym
import pytest

import personal_envs
from personal_envs.core.actions import ActionError, parse_action
from personal_envs.core.fuzz import CATEGORIES, malformed_actions

SEED = int(os.environ.get("PERSONAL_ENVS_FUZZ_SEED", "0"))
ACTIONS_PER_ID = 8 * len(CATEGORIES)  # 96


def _make(env_id: str) -> gym.Env[Any, Any]:
    kwargs: dict[str, Any] = {"max_wait_s": 0.0} if env_id.startswith("BrowserArena") else {}
    return gym.make(env_id, disable_env_checker=True, **kwargs)


@pytest.mark.parametrize("env_id", personal_envs.all_env_ids())
def test_hostile_actions_never_raise_and_contains_agrees_with_step(env_id: str) -> None:
    env = _make(env_id)
    base: Any = env.unwrapped
    try:
        env.reset(seed=SEED)
        seen = set()
        for category, action in malformed_actions(base.action_specs, ACTIONS_PER_ID, seed=SEED):
            seen.add(category)
            accepted = base.action_space.contains(action)
            obs, reward, terminated, truncated, info = env.step(action)
            assert base.observation_space.contains(obs), (category, env_id)
            assert isinstance(reward, float) and math.isfinite(reward)
            if not accepted:
                assert info.get("action_error"), (category, str(action)[:200])
            if terminated or truncated:
                env.reset()
        assert seen == set(CATEGORIES)
    finally:
        env.close()


@pytest.mark.parametrize("raw", [
    "[" * 1000 + "]" * 1000,
    {"action_type": "noop", "wait_ms": "1e400"},
    '{"action_type": "respond", "content": ' + "9" * 5000 + "}",
    {"action": [{"search_api": {"query": "\ud800"}}]},
    {"action_type": "click", "x": math.nan, "y": 1},
    " " * (1 << 20) + "{}",
])
def test_the_issue_examples_are_errors_not_exceptions(raw: Any) -> None:
    from personal_envs.browser.actions import BROWSER_ACTIONS
    from personal_envs.browserarena.actions import BROWSERUSE_ACTION_SPECS, SEARCH_API_SPEC, decode_step

    specs = {spec.name: spec for spec in (*BROWSERUSE_ACTION_SPECS, SEARCH_API_SPEC)}
    with pytest.raises(ActionError):
        decode_step(raw, specs)
    with pytest.raises(ActionError):
        parse_action(raw, BROWSER_ACTIONS)


def test_deep_python_objects_and_hostile_reprs_are_errors() -> None:
    from personal_envs.core.fuzz import _deep_list, _HostileRepr

    specs = {spec.name: spec for spec in _make("PersonalWAB-MultiTurn-v0").unwrapped.action_specs}
    for raw in ({"action_type": "respond", "content": _deep_list(5000)}, _HostileRepr(),
                {"action_type": "respond", "content": _HostileRepr()}, {_HostileRepr(): 1}):
        with pytest.raises(ActionError):
            parse_action(raw, specs)


def test_a_vector_env_survives_a_bad_action_in_one_sub_env() -> None:
    envs = gym.vector.SyncVectorEnv([lambda: gym.make("PersonalWAB-MultiTurn-v0") for _ in range(2)])
    try:
        envs.reset(seed=0)
        good = {"action_type": "search_product_by_query", "query": "tea"}
        for bad in ("[" * 5000 + "]" * 5000, {"action_type": "respond", "content": "\ud800"}, None):
            _obs, _rewards, _terms, _truncs, infos = envs.step((bad, good))
            assert infos["action_error"][0] and not infos["action_error"][1]
    finally:
        envs.close()


def test_the_fuzz_script_loads_minilm_before_it_times_any_step() -> None:
    """``python -m benchmarks.fuzz`` in a fresh process: the one-time MiniLM load happens before the first step (it
    used to fall inside a review step and count as a hang, exit status 1)."""
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    done = subprocess.run([sys.executable, "-m", "benchmarks.fuzz", "--ids", "PersonalWAB-MultiTurn-v0",
                           "--per-id", "24"], cwd=root, capture_output=True, text=True, timeout=600, check=False)
    lines = done.stdout.splitlines()
    assert lines[0].startswith("MiniLM loaded once in "), done.stdout + done.stderr[-2000:]
    assert lines[1].startswith("PersonalWAB-MultiTurn-v0") and "hangs  0" in lines[1]
    assert done.returncode == 0, done.stdout
