"""Chromium killed mid-episode on BrowserArena: the step says so (once, truthfully), the navigation is carried
out on the fresh tab, and the episode keeps its score."""

from __future__ import annotations

from typing import Any

import gymnasium as gym

import personal_envs  # noqa: F401  (registers the ids)
from personal_envs.browser import browser_pid, kill_browser
from personal_envs.browserarena.policies import TriviaPolicy


def _episode(kill: bool) -> tuple[dict[str, Any], list[str]]:
    env = gym.make("BrowserArena-DirectNavigation-v0", max_wait_s=0.0)
    base: Any = env.unwrapped
    try:
        policy = TriviaPolicy(env, route="wiki")  # each step stands alone, so a restart cannot lose it
        obs, info = env.reset(options={"task_index": 0})
        policy.reset(obs, info)
        errors = []
        for _ in range(base.max_steps):
            action = policy.act(obs, info)
            if kill:
                browser_pid(base.session.host)
                assert kill_browser(base.session.host)
            obs, _reward, terminated, truncated, info = env.step(action)
            errors.append(obs["last_action_error"])
            if terminated or truncated:
                break
        return info, errors
    finally:
        env.close()


def test_killing_chromium_before_every_step_keeps_the_score() -> None:
    clean, clean_errors = _episode(kill=False)
    assert clean["score"] == 1.0 and not any(clean_errors)
    faulty, errors = _episode(kill=True)
    assert faulty["score"] == clean["score"] and faulty["metrics"]["answer"] == clean["metrics"]["answer"]
    for error in errors:
        assert error.count("the browser was restarted") <= 1, error  # said once, not repeated
        assert "no access to the open web" not in error
    assert all("the browser was restarted" in error for error in errors)  # every step says what happened


def test_a_restart_during_a_malformed_step_is_still_reported() -> None:
    env = gym.make("BrowserArena-DirectNavigation-v0", max_wait_s=0.0)
    base: Any = env.unwrapped
    try:
        env.reset(options={"task_index": 0})
        env.step({"action_type": "go_to_url", "url": "http://search.test/"})
        browser_pid(base.session.host)
        assert kill_browser(base.session.host)
        obs, *_ = env.step("[" * 5000)
        assert "nested too deeply" in obs["last_action_error"]
        assert "the browser was restarted" in obs["last_action_error"]
    finally:
        env.close()
