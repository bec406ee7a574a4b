"""browser-use 0.1.40's own Agent (``--policy browser-use``) on a banner task and a captcha task.

The model is the project's scripted chat server answering browser-use's ``AgentOutput`` (JSON text in ``raw`` mode,
the policy's default as in the paper; a function call in the captcha test) from what browser-use itself put into the
prompt (its element list, its URL line); browser-use runs in its own virtualenv and
its own Chromium, through the env's local-web proxy.  The resulting traces go through the GIF writer, the arena's
store and vote page, and the rule judges.  Skipped, with the reason, when browser-use's venv is not installed
(``bash scripts/setup_browser_use.sh``).
"""

from __future__ import annotations

import json
import re
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import gymnasium as gym
import pytest
from PIL import Image

import personal_envs  # noqa: F401
from personal_envs.browserarena import policies as P
from personal_envs.browserarena.arena import ArenaStore, VotePage, run_battle
from personal_envs.browserarena.arena.gif import step_captions, write_gif
from personal_envs.browserarena.browser_use_policy import BrowserUsePolicy, browser_use_missing
from personal_envs.browserarena.env import BrowserArenaEnv
from personal_envs.browserarena.external import ExternalStep
from personal_envs.browserarena.tasks import captcha_tasks
from personal_envs.llm.testing import ScriptedChatServer
from tests.browserarena.scripted_browser_use import agent_reply as _reply
from tests.browserarena.scripted_browser_use import prompt_text as _prompt_text

MISSING = browser_use_missing()
needs_browser_use = pytest.mark.skipif(MISSING is not None, reason=f"browser-use extra not installed: {MISSING}")


def banner_model(request: dict[str, Any]) -> dict[str, Any]:
    """Closes the consent banner by the index browser-use gave its button, then reports."""
    text = _prompt_text(request)
    button = re.search(r"\[(\d+)\]<button[^>]*?Accept all", text)
    if button:
        return _reply(request, {"evaluation_previous_goal": "Unknown - first look at the page",
                                "memory": "A cookie consent banner covers the news page",
                                "next_goal": "Close the cookie banner with Accept all"},
                      [{"click_element_by_index": {"index": int(button.group(1))}}])
    return _reply(request, {"evaluation_previous_goal": "Success - the banner is gone",
                            "memory": "Banner closed; the front page is readable",
                            "next_goal": "Report the headline"},
                  [{"done": {"text": "I closed the cookie banner and read the front page.", "success": True}}])


def captcha_model(path: str) -> Any:
    """Opens the travel site's deep link, meets the captcha, switches to the mobile site, then gives up."""
    def respond(request: dict[str, Any]) -> dict[str, Any]:
        url = re.search(r"Current url: (\S+)", _prompt_text(request))
        current = url.group(1) if url else ""
        if "m.skyroute.test" in current:
            return _reply(request, {"evaluation_previous_goal": "Success - the mobile site shows no captcha",
                                    "memory": "Desktop site asked for a captcha; mobile site opened",
                                    "next_goal": "Report"},
                          [{"done": {"text": "The mobile site listed the offers.", "success": False}}])
        if "www.skyroute.test" in current:
            return _reply(request, {"evaluation_previous_goal": "Failed - a captcha blocks the results",
                                    "memory": "Captcha on the desktop results page",
                                    "next_goal": "Try the mobile site"},
                          [{"go_to_url": {"url": f"http://m.skyroute.test{path}"}}])
        return _reply(request, {"evaluation_previous_goal": "Unknown", "memory": "",
                                "next_goal": "Open the results page"},
                      [{"go_to_url": {"url": f"http://www.skyroute.test{path}"}}])
    return respond


@pytest.fixture()
def banner_server() -> Iterator[ScriptedChatServer]:
    with ScriptedChatServer(banner_model) as server:
        yield server


@needs_browser_use
def test_banner_battle_gives_trace_gif_vote_page_and_categories(banner_server: ScriptedChatServer,
                                                                tmp_path: Path) -> None:
    def make_env() -> gym.Env[Any, Any]:
        return gym.make("BrowserArena-PopupBanner-v0", max_wait_s=0.0)

    def browser_use(env: gym.Env[Any, Any]) -> BrowserUsePolicy:
        return BrowserUsePolicy(env, base_url=banner_server.base_url, model="scripted-model")

    store = ArenaStore(tmp_path / "arena.sqlite")
    battle = run_battle(make_env, {"browser-use": browser_use, "banner_ignorer": P.make_banner_ignorer}, 0,
                        store=store, out_dir=tmp_path / "battles", env_id="BrowserArena-PopupBanner-v0")
    side = battle.side_a
    assert side.error == ""
    trace = side.trace
    # browser-use's own prompt reached the model (its system prompt, its element list, its screenshot), in raw mode
    # (no function calling, as the paper ran it) with the paper's action names
    first = banner_server.requests[0]
    assert "tools" not in first and first["messages"][0]["role"] == "system"
    assert "click_element_by_index" in json.dumps(first["messages"]) and "drag_drop" in json.dumps(first["messages"])
    assert any(isinstance(m.get("content"), list) and any(p.get("type") == "image_url" for p in m["content"])
               for m in first["messages"])
    steps = trace["steps"]
    assert [a["name"] for s in steps for a in s["actions"]] == ["click_element_by_index", "done"]
    assert steps[0]["brain"]["memory"] == "A cookie consent banner covers the news page"
    assert steps[0]["agent"] == "browser-use" and steps[0]["actions"][0]["target"].startswith("<button")
    assert steps[0]["banner"] is False and trace["initial"]["banner"] is True
    # judge categories from the rules
    metrics = trace["metrics"]
    assert metrics["banner_detected"] is True and metrics["banner_closed"] is True
    assert metrics["success_claimed"] is True and metrics["finished"] is True
    assert battle.side_b.trace["metrics"]["banner_closed"] is False
    # GIF: the start page plus one frame per step, from browser-use's own browser
    with Image.open(battle.record.gif_a) as gif:
        assert gif.n_frames == 1 + len(steps)
    # vote page entry: the battle page lists browser-use's steps and its GIF
    with VotePage(store) as page, urllib.request.urlopen(f"{page.url}/battle/{battle.battle_id}") as reply:
        html = reply.read().decode("utf-8")
    assert f"/gif/{battle.battle_id}/a" in html
    assert "Close the cookie banner with Accept all" in html and "click_element_by_index" in html


@needs_browser_use
def test_captcha_task_with_browser_use(tmp_path: Path) -> None:
    task = captcha_tasks()[0]
    path = str(task.params["path"])
    with ScriptedChatServer(captcha_model(path)) as server:
        env = BrowserArenaEnv(tasks=[task], max_wait_s=0.0)
        policy = BrowserUsePolicy(env, base_url=server.base_url, model="scripted-model",
                                  tool_calling_method="function_calling")
        try:
            policy.attach(env)
            obs, info = env.reset(seed=0)
            policy.reset(obs, info)
            done = False
            while not done:
                action = policy.act(obs, info)
                assert isinstance(action, ExternalStep)
                obs, _, terminated, truncated, info = env.step(action)
                done = terminated or truncated
            trace = env.browser_trace
            frames = list(env.frames)
        finally:
            policy.close()
            env.close()
    assert "AgentOutput" in server.requests[0]["tools"][0]["function"]["name"]
    metrics = info["metrics"]
    assert metrics["captcha_encountered"] is True
    assert metrics["strategies"]["direct_link"] is True and metrics["strategies"]["mobile"] is True
    assert metrics["success_claimed"] is False
    steps = trace["steps"]
    assert [s["captcha"] for s in steps] == [True, False, False]
    assert steps[1]["actions"][0]["url_before"].startswith("http://www.skyroute.test/")
    assert steps[1]["brain"]["evaluation_previous_goal"].startswith("Failed - a captcha")
    assert obs["url"].startswith("http://m.skyroute.test/")
    gif = tmp_path / "captcha.gif"
    assert write_gif(frames, gif, captions=step_captions(trace)) == 1 + len(steps)


def test_external_steps_only_from_the_accepted_driver() -> None:
    env = BrowserArenaEnv(tasks=[captcha_tasks()[0]], max_wait_s=0.0, screenshot=False)
    try:
        env.reset(seed=0)
        forged = ExternalStep(object(), actions=[{"name": "go_to_url", "arguments": {"url": "http://m.skyroute.test/"},
                                                  "url_after": "http://m.skyroute.test/"}], answer="x")
        _, _, terminated, _, info = env.step(forged)
        assert not terminated and "accept_external_steps" in info["action_error"]
        assert env.browser_trace["steps"][0]["actions"] == []
    finally:
        env.close()
