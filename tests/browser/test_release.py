"""The shared browser is reference-counted: the last env of the process to close stops Chromium, the Playwright
driver and the browser thread; reset() brings back a server the env owns that was stopped."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import gymnasium as gym

import personal_envs  # noqa: F401  (registers the ids)
from personal_envs.browser import BrowserHost, browser_pid
from personal_envs.browser.process import process_alive


def _descendants(root: int) -> set[int]:
    """Pids of every live process below ``root``, read from /proc."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if fields[0] not in ("Z", "X"):
            children.setdefault(int(fields[1]), []).append(int(entry.name))
    found: set[int] = set()
    stack = [root]
    while stack:
        for child in children.get(stack.pop(), []):
            if child not in found:
                found.add(child)
                stack.append(child)
    return found


def _browser_threads() -> list[threading.Thread]:
    return [thread for thread in threading.enumerate() if thread.name == "personal-envs-browser"]


def _wait_gone(pids: set[int], seconds: float = 10.0) -> set[int]:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        alive = {pid for pid in pids if process_alive(pid)}
        if not alive:
            return alive
        time.sleep(0.1)
    return {pid for pid in pids if process_alive(pid)}


def test_last_close_releases_chromium_driver_and_thread() -> None:
    before = _descendants(os.getpid())
    threads_before = len(_browser_threads())
    webmall = gym.make("WebMall-v0")
    arena = gym.make("BrowserArena-Captcha-v0", max_wait_s=0.0)
    webmall.reset(seed=0)
    arena.reset(seed=0)
    host = webmall.unwrapped.session.host
    assert arena.unwrapped.session.host is host and BrowserHost.shared_users() == 2
    chromium = browser_pid(host)
    started = _descendants(os.getpid()) - before
    assert chromium in started and len(started) >= 3  # driver, browser, renderer(s)
    webmall.close()
    assert host.running and process_alive(chromium)  # the other env still uses it
    arena.step({"action_type": "scroll_down"})
    arena.close()
    assert BrowserHost.shared_users() == 0 and not host.running
    assert _wait_gone(started) == set()
    assert len(_browser_threads()) == threads_before


def test_a_new_env_after_the_last_close_starts_a_fresh_browser() -> None:
    env = gym.make("BrowserArena-DirectNavigation-v0", max_wait_s=0.0)
    env.reset(seed=1)
    first = env.unwrapped.session.host
    env.close()
    env = gym.make("BrowserArena-DirectNavigation-v0", max_wait_s=0.0)
    try:
        env.reset(seed=1)
        obs, *_ = env.step({"action_type": "go_to_url", "url": "http://search.test/"})
        assert env.unwrapped.session.host is not first and obs["url"].startswith("http://search.test")
    finally:
        env.close()


def test_reset_restarts_a_stopped_webmall_shop_and_solution_server() -> None:
    env = gym.make("WebMall-v0")
    try:
        env.reset(seed=0)
        cluster = env.unwrapped.cluster
        cluster.close()
        obs, info = env.reset(seed=0)
        assert obs["last_action_error"] == "" and obs["url"].startswith(info["solution_url"])
        obs, *_ = env.step({"action_type": "goto", "url": info["shop_urls"][0] + "/"})
        assert obs["last_action_error"] == "" and obs["url"].startswith(info["shop_urls"][0])
    finally:
        env.close()


def test_reset_restarts_a_stopped_browserarena_site_server() -> None:
    env = gym.make("BrowserArena-DirectNavigation-v0", max_wait_s=0.0)
    try:
        env.reset(seed=0)
        port = env.unwrapped.web.port
        env.unwrapped.web.close()
        env.reset(seed=0)
        assert env.unwrapped.web.running and env.unwrapped.web.port == port
        obs, *_ = env.step({"action_type": "go_to_url", "url": "http://search.test/"})
        assert obs["last_action_error"] == "" and obs["url"].startswith("http://search.test")
    finally:
        env.close()


def test_make_reset_step_close_cycles_leave_nothing_behind() -> None:
    before = _descendants(os.getpid())
    threads_before = {thread.name for thread in threading.enumerate()}
    for env_id in ("WebMall-v0", "BrowserArena-Captcha-v0", "KnowU-General-v0"):
        for cycle in range(3):
            kwargs = {"max_wait_s": 0.0} if env_id.startswith("BrowserArena") else {}
            env = gym.make(env_id, **kwargs)
            env.reset(seed=cycle)
            env.step(env.action_space.sample())
            env.close()
    assert _wait_gone(_descendants(os.getpid()) - before) == set()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and {t.name for t in threading.enumerate()} - threads_before:
        time.sleep(0.1)
    assert not {t.name for t in threading.enumerate() if t.name.startswith("personal-envs")} - threads_before
