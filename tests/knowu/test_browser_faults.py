"""Killing the phone's Chromium mid-episode: every step still returns, says so truthfully, and the score is kept."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from personal_envs.browser.process import browser_pid, kill_browser, process_alive
from personal_envs.knowu.env import KnowUEnv
from personal_envs.knowu.oracle import OraclePolicy
from tests.knowu.helpers import task_index


@pytest.fixture(scope="module")
def env() -> Iterator[KnowUEnv]:
    environment = KnowUEnv(screenshot=True, task="SetAlarmGeneralTask")
    yield environment
    environment.close()


def _kill(env: KnowUEnv) -> int:
    host: Any = env.backend.screen  # type: ignore[attr-defined]
    pid = browser_pid(host.host)
    assert pid is not None and kill_browser(host.host)
    return pid


def test_oracle_episode_survives_a_killed_browser_and_keeps_its_score(env: KnowUEnv) -> None:
    policy = OraclePolicy(env)
    obs, info = env.reset(options={"task_index": task_index(env, "SetAlarmGeneralTask")})
    policy.reset(obs, info)
    notices: list[str] = []
    killed_pid = 0
    for step in range(env.max_steps):
        if step in (2, 5):
            killed_pid = _kill(env)
        obs, _, terminated, truncated, info = env.step(policy.act(obs, info))
        if "restarted" in obs["last_action_error"]:
            notices.append(obs["last_action_error"])
            assert "failed" not in obs["last_action_error"] and "try again" not in obs["last_action_error"]
        if terminated or truncated:
            break
    assert not policy.failures, policy.failures
    assert not process_alive(killed_pid)
    assert len(notices) == 2, notices
    assert info["score"] == 1.0 and info["metrics"]["success"] is True


@pytest.mark.parametrize("action", [
    {"action_type": "finished"},
    {"action_type": "answer", "text": "done"},
    {"action_type": "ask_user", "text": "Which time?"},
    {"action_type": "navigate_home"},
    {"action_type": "open_app", "app_name": "Clock"},
])
def test_each_action_after_a_crash_is_a_step_result(env: KnowUEnv, action: dict[str, Any]) -> None:
    env.reset(options={"task_index": 0})
    _kill(env)
    obs, _reward, terminated, _truncated, info = env.step(action)
    assert "was restarted" in obs["last_action_error"]
    assert "failed" not in obs["last_action_error"]
    assert obs["ui_xml"] and obs["screenshot"].any()
    if action["action_type"] in ("finished", "answer"):
        assert terminated and "score" in info
    if action["action_type"] == "open_app":
        assert env.phone.launched[-1] == "clock" and "clock" in obs["ui_xml"].lower()
