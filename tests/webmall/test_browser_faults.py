"""Chromium killed again and again mid-episode: every WebMall step returns, says what happened, and the oracle's
episode keeps its score (server-side progress survives, cookies such as the cart are restored)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from personal_envs.browser import browser_pid, kill_browser
from personal_envs.webmall.env import WebMallEnv
from personal_envs.webmall.oracle import WebMallOracle


@pytest.fixture(scope="module")
def env() -> Iterator[WebMallEnv]:
    environment = WebMallEnv(data_dir="shipped", task_set="basic")
    yield environment
    environment.close()


@pytest.mark.parametrize("category", ["Specific_Product", "Add_To_Cart", "Checkout"])
def test_killing_chromium_before_every_navigation_keeps_the_score(env: WebMallEnv, category: str) -> None:
    task_index = next(i for i, task in enumerate(env.tasks) if task.category == category)
    policy = WebMallOracle(env)
    obs, info = env.reset(options={"task_index": task_index})
    policy.reset(obs, info)
    kills = notices = 0
    for _ in range(80):
        action = policy.act(obs, info)
        if action["action_type"] == "goto":
            assert env.session is not None
            browser_pid(env.session.host)
            kills += kill_browser(env.session.host)
        obs, _reward, terminated, truncated, info = env.step(action)
        if "the browser was restarted" in obs["last_action_error"]:
            notices += 1
            assert "goto was then carried out on the new tab" in obs["last_action_error"]
        if terminated or truncated:
            break
    assert kills >= 2 and notices == kills
    assert not policy.failures, policy.failures
    assert info["score"] == 1.0 and info["metrics"]["completed"] == 1.0
