"""Crashes and hangs: a killed Chromium, a tab closed from outside, a page stuck in a script or a late navigation."""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Iterator

import pytest

from personal_envs.browser import BrowserHost, BrowserSession, browser_pid
from personal_envs.browser.process import process_alive
from personal_envs.browser.testing import Response

from .test_observation import bid_of

PAGE = "<title>Shop</title><h1>Shop</h1><input aria-label='Query'><button>Find</button>"


@pytest.fixture
def private_host() -> Iterator[BrowserHost]:
    """Crash tests kill Chromium, so they get a host of their own."""
    host = BrowserHost()
    yield host
    host.close()


def wait_dead(pid: int) -> None:
    deadline = time.monotonic() + 10
    while process_alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not process_alive(pid)


def test_killed_chromium_is_relaunched_and_reported(private_host: BrowserHost, serve) -> None:
    site = serve({"/": PAGE})
    session = BrowserSession(private_host, action_timeout_s=2, navigation_timeout_s=4)
    assert session.goto(site.url("/")) == ""
    query = bid_of(session.observe(), "Query")
    pid = browser_pid(private_host)
    assert pid is not None and process_alive(pid)
    with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
        assert b"chromium" in cmdline.read()
    launches = private_host.launch_count
    os.kill(pid, signal.SIGKILL)
    wait_dead(pid)
    error = session.execute({"action_type": "fill", "bid": query, "value": "shoes"})
    assert "browser was restarted" in error and site.url("/") in error
    assert private_host.launch_count == launches + 1 and session.restarts == 1
    new_pid = browser_pid(private_host)
    assert new_pid is not None and new_pid != pid and process_alive(new_pid)
    assert session.url == "about:blank"
    assert session.goto(site.url("/")) == ""
    assert "heading 'Shop'" in session.observe().axtree
    session.close()


def test_kill_during_observation_is_reported_there(private_host: BrowserHost, serve) -> None:
    site = serve({"/": PAGE})
    with BrowserSession(private_host) as session:
        session.goto(site.url("/"))
        pid = browser_pid(private_host)
        assert pid is not None
        os.kill(pid, signal.SIGKILL)
        wait_dead(pid)
        obs = session.observe(screenshot=True)
        assert "restarted" in obs.error
        assert obs.url == "about:blank" or obs.url == ""
        healthy = session.observe(screenshot=True)
        assert healthy.error == "" or "restarted" not in healthy.error
        assert healthy.screenshot is not None and healthy.screenshot.shape == (720, 1280, 3)


def test_tab_closed_from_outside_is_replaced(session: BrowserSession, serve) -> None:
    site = serve({"/": PAGE})
    session.goto(site.url("/"))
    session.call(lambda page: page.close())
    error = session.execute({"action_type": "click", "bid": "1"})
    assert "closed or crashed" in error and "new blank tab" in error
    assert session.observe().tabs == ("about:blank",)
    assert session.goto(site.url("/")) == ""
    assert session.execute({"action_type": "new_tab"}) == ""
    session.call(lambda page: page.close())
    obs = session.observe()
    assert "switched to tab 0" in obs.error and obs.url == site.url("/")


def renderer_pids(host: BrowserHost) -> list[int]:
    def query() -> list[int]:
        cdp = host.browser().new_browser_cdp_session()
        try:
            info = cdp.send("SystemInfo.getProcessInfo")
        finally:
            cdp.detach()
        return [int(p["id"]) for p in info["processInfo"] if p["type"] == "renderer"]

    return host.call(query)


def test_crashed_renderer_is_detected(private_host: BrowserHost, serve) -> None:
    site = serve({"/": PAGE})
    with BrowserSession(private_host, hang_timeout_s=20) as session:
        session.goto(site.url("/"))
        for pid in renderer_pids(private_host):
            os.kill(pid, signal.SIGKILL)
        time.sleep(0.5)  # let Chromium notice the dead renderer
        obs = session.observe()
        assert "closed or crashed" in obs.error and "new blank tab" in obs.error
        assert obs.tabs == ("about:blank",) and private_host.launch_count == 1
        assert session.goto(site.url("/")) == "" and "heading 'Shop'" in session.observe().axtree


def test_endless_script_is_stopped_without_killing_chromium(private_host: BrowserHost, serve) -> None:
    site = serve({"/": "<button onclick='while (true) {}'>Freeze</button>"})
    with BrowserSession(private_host, action_timeout_s=1, navigation_timeout_s=2, hang_timeout_s=6) as session:
        session.goto(site.url("/"))
        freeze = bid_of(session.observe(), "Freeze")
        error = session.execute({"action_type": "click", "bid": freeze})
        obs = session.observe()
        assert "script kept it busy and was stopped" in error or "script was stopped" in obs.error
        assert private_host.launch_count == 1 and session.restarts == 0  # Chromium and the tab were kept
        assert "button 'Freeze'" in obs.axtree
        assert session.goto(site.url("/")) == "" and "button 'Freeze'" in session.observe().axtree


def test_late_navigation_to_a_page_that_never_answers_does_not_freeze(session: BrowserSession, serve) -> None:
    site = serve({"/": "<h1>Soon gone</h1><script>setTimeout(() => location.href = '/slow', 300)</script>",
                  "/slow": Response("late", delay_s=60)})
    session.goto(site.url("/"))
    session.execute({"action_type": "noop", "wait_ms": 800})
    obs = session.observe()
    assert "loading of" in obs.error and "/slow was stopped" in obs.error
    assert "heading 'Soon gone'" in obs.axtree


def test_two_sessions_in_two_threads(browser_host: BrowserHost, serve) -> None:
    site = serve({"/": PAGE, "/other": "<title>Other</title><h1>Other</h1><input aria-label='Query'>"})
    failures: list[str] = []

    def drive(path: str, text: str) -> None:
        with BrowserSession(browser_host) as session:
            for round_index in range(5):
                if session.goto(site.url(path)):
                    failures.append(f"goto {path}")
                obs = session.observe(screenshot=round_index % 2 == 0)
                error = session.execute({"action_type": "fill", "bid": bid_of(obs, "Query"), "value": text})
                value = session.call(lambda page: page.input_value("input"))
                if error or value != text or session.url != site.url(path):
                    failures.append(f"{path}: {error!r} {value!r} {session.url}")

    threads = [threading.Thread(target=drive, args=("/", "left")), threading.Thread(target=drive, args=("/other", "right"))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not any(thread.is_alive() for thread in threads)
    assert failures == []


def test_close_leaves_no_context_open(browser_host: BrowserHost, serve) -> None:
    site = serve({"/": PAGE})
    before = browser_host.call(lambda: len(browser_host.browser().contexts))
    session = BrowserSession(browser_host)
    session.goto(site.url("/"))
    session.execute({"action_type": "new_tab"})
    assert browser_host.call(lambda: len(browser_host.browser().contexts)) == before + 1
    session.reset()
    assert browser_host.call(lambda: len(browser_host.browser().contexts)) == before + 1, "reset replaces the context"
    session.close()
    session.close()
    assert browser_host.call(lambda: len(browser_host.browser().contexts)) == before
    assert session.closed and session.url == ""
    assert session.execute({"action_type": "noop"}) == "the browser session is closed"
    assert session.observe().error == "the browser session is closed"
    with pytest.raises(Exception, match="closed"):
        session.call(lambda page: page.url)
