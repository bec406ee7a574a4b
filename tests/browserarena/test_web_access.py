"""BrowserArena-Open-v0 without web access: the step says so, and the report never counts a success claim made on
a blank or unreachable page (real Chromium; ``.invalid`` hosts never resolve)."""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import pytest

import personal_envs  # noqa: F401  (registers the ids)
from personal_envs.browser.testing import LocalSite
from personal_envs.browserarena.reports import open_report
from personal_envs.browserarena.web_access import page_state, web_access_metrics


def episode(env: gym.Env[Any, Any], actions: list[dict[str, Any]], policy: str,
            **options: Any) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    env.reset(options=options)
    observations = []
    for action in actions:
        obs, _, terminated, truncated, info = env.step(action)
        observations.append(obs)
        if terminated or truncated:
            break
    return {"policy": policy, "steps": len(observations), "metrics": info["metrics"]}, observations


@pytest.fixture()
def open_env() -> Any:
    env = gym.make("BrowserArena-Open-v0", max_wait_s=0.0, screenshot=False, navigation_timeout_s=5.0)
    try:
        yield env
    finally:
        env.close()


DONE = {"action_type": "done", "text": "Here is the answer.", "success": True}


def test_no_web_access_is_said_in_the_step_and_the_report(open_env: gym.Env[Any, Any]) -> None:
    record, observations = episode(open_env, [{"action_type": "go_to_url", "url": "http://no-such-host.invalid/"},
                                              DONE], "claimer", task="Look something up")
    assert observations[0]["last_action_error"].startswith("No web access: http://no-such-host.invalid/")
    steps = open_env.unwrapped.browser_trace["steps"]
    assert steps[0]["page"] == "unreachable"
    metrics = record["metrics"]
    assert metrics["success_claimed"] is True  # what the agent said ...
    assert metrics["web_access"] == "unreachable" and metrics["claim_page"] == "unreachable"
    assert metrics["success_claimed_valid"] is False  # ... is not counted
    blank, _ = episode(open_env, [DONE], "blank_claimer", task="Look something up")
    assert blank["metrics"]["web_access"] == "not tried" and blank["metrics"]["claim_page"] == "blank"
    report = open_report([record, blank])
    rows = {line.split()[0]: line.split() for line in report.splitlines() if line.split()[:1] in (["claimer"],
                                                                                                ["blank_claimer"])}
    # columns: model, tasks, finished %, success claimed %, claims on blank / unreachable pages %, ...
    assert rows["claimer"][1:5] == ["1", "100.0", "0.0", "100.0"]
    assert rows["blank_claimer"][1:5] == ["1", "100.0", "0.0", "100.0"]
    assert "No web access: no episode loaded a web page and 1 of 2 found the web unreachable." in report


def test_a_claim_on_a_loaded_page_counts() -> None:
    with LocalSite({"/": "<title>Local shop</title><p>We sell tea.</p>"}) as site:
        env = gym.make("BrowserArena-Open-v0", max_wait_s=0.0, screenshot=False, allowed_origins=[site.origin])
        try:
            record, _ = episode(env, [DONE], "reader", task="What does the shop sell?", start_url=site.url("/"))
        finally:
            env.close()
    assert record["metrics"]["web_access"] == "reached" and record["metrics"]["success_claimed_valid"] is True
    report = open_report([record])
    assert "No web access" not in report
    row = next(line.split() for line in report.splitlines() if line.startswith("reader"))
    assert row[1:5] == ["1", "100.0", "100.0", "0.0"]


def test_page_states_and_claims_inside_a_step() -> None:
    assert page_state("chrome-error://chromewebdata/") == "unreachable"
    assert page_state("about:blank") == "blank" and page_state("http://a.test/") == "loaded"
    assert page_state("about:blank", ["", "net::ERR_NAME_NOT_RESOLVED at http://x.invalid/"]) == "unreachable"
    log = {"initial": {"page": "blank"}, "final": {"success_claimed": True},
           "steps": [{"page": "loaded", "url": "http://a.test/", "actions": [
               {"name": "go_to_url", "error": "", "url_before": "about:blank", "url_after": "http://a.test/"},
               {"name": "done", "error": "", "url_before": "http://a.test/"}]}]}
    assert web_access_metrics(log)["success_claimed_valid"] is True
    log["steps"][0]["actions"][0]["error"] = "net::ERR_INTERNET_DISCONNECTED"
    log["steps"][0]["actions"][1]["url_before"] = "about:blank"
    log["steps"][0]["page"] = "unreachable"
    assert web_access_metrics(log)["claim_page"] == "unreachable"
    assert web_access_metrics(log)["success_claimed_valid"] is False
