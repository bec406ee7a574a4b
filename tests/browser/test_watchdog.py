"""A hung page costs only its own session: a per-page watchdog stops the script (or the page), neighbours sharing
the process's Chromium go on with their tabs, and Chromium is not killed."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import pytest

from personal_envs.browser import BrowserHost, BrowserSession
from personal_envs.browser.testing import StallingServer

HUNG = "<html><body><p>before</p><script>while (true) {}</script><p>after</p></body></html>"
OK = "<html><body><h1>fine</h1><button>press</button></body></html>"
SPIN = "<html><body><button onclick='while (true) {}'>spin</button></body></html>"
REHANG = "<html><body><p>again</p><script>setInterval(() => { while (true) {} }, 50)</script></body></html>"


@pytest.fixture
def host() -> Iterator[BrowserHost]:
    own = BrowserHost()
    yield own
    own.close()


def _bid(session: BrowserSession, label: str) -> str:
    obs = session.observe()
    return next(bid for bid, element in obs.elements.items() if label in element.name)


def test_a_hung_page_delays_only_its_own_session(host: BrowserHost, serve) -> None:
    site = serve({"/hung": HUNG, "/ok": OK})
    hung = BrowserSession(host, action_timeout_s=2.0, navigation_timeout_s=4.0)
    neighbours = [BrowserSession(host, action_timeout_s=2.0, navigation_timeout_s=4.0) for _ in range(3)]
    for session in neighbours:
        assert session.goto(site.url("/ok")) == ""
    launches = host.launch_count
    results: dict[str, str] = {}
    progress: list[int] = []
    hung_done = threading.Event()

    def run_hung() -> None:
        results["goto"] = hung.goto(site.url("/hung"))
        hung_done.set()

    def run_neighbour(session: BrowserSession) -> None:
        while not hung_done.is_set():  # keep stepping for as long as the hung page is being dealt with
            obs = session.observe()
            assert obs.error == "" and "fine" in obs.axtree, obs.error
            assert session.execute({"action_type": "scroll", "delta_x": 0, "delta_y": 10}) == ""
            progress.append(1)

    threads = [threading.Thread(target=run_hung)] + [threading.Thread(target=run_neighbour, args=(s,))
                                                      for s in neighbours]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert "script kept it busy" in results["goto"] and "stopped" in results["goto"]
    assert "did not respond" not in results["goto"]  # stopped as a busy page, not after the hang budget
    assert len(progress) >= 6  # neighbours completed steps while the hung navigation waited for its timeout
    assert host.launch_count == launches and hung.restarts == 0
    for session in neighbours:
        assert session.restarts == 0 and session.url == site.url("/ok")
    obs = hung.observe()  # the stopped page is usable again: the parser went on after the script
    assert "after" in obs.axtree and hung.url == site.url("/hung")
    for session in [hung, *neighbours]:
        session.close()


def test_a_click_that_starts_an_endless_script_is_stopped_by_the_watchdog(host: BrowserHost, serve) -> None:
    site = serve({"/spin": SPIN})
    session = BrowserSession(host, action_timeout_s=2.0, navigation_timeout_s=3.0)
    assert session.goto(site.url("/spin")) == ""
    launches = host.launch_count
    error = session.execute({"action_type": "click", "bid": _bid(session, "spin")})
    assert "the page's script kept it busy and was stopped" in error
    obs = session.observe()
    assert "spin" in obs.axtree and "did not respond" not in obs.error
    assert host.launch_count == launches and session.restarts == 0
    session.close()


def test_a_page_that_hangs_again_and_again_is_replaced(host: BrowserHost, serve) -> None:
    site = serve({"/rehang": REHANG, "/ok": OK})
    session = BrowserSession(host, action_timeout_s=2.0, navigation_timeout_s=3.0)
    launches = host.launch_count
    session.goto(site.url("/rehang"))
    time.sleep(0.3)  # the timer has started its endless loop: every stopped run is followed by another
    error = session.goto(site.url("/ok"))
    assert "replaced by a new tab" in error and "timed out" not in error
    assert session.url == site.url("/ok") and len(session.observe().tabs) == 1
    assert "fine" in session.observe().axtree
    assert session.execute({"action_type": "click", "bid": _bid(session, "press")}) == ""
    assert host.launch_count == launches and session.restarts == 0  # never the whole browser
    session.close()


def test_a_server_that_stalls_after_its_headers_costs_one_navigation_timeout(host: BrowserHost) -> None:
    with StallingServer() as server:
        session = BrowserSession(host, action_timeout_s=2.0, navigation_timeout_s=3.0)
        try:
            error = session.goto(server.url)
            assert "timed out after 3 s" in error
            assert "did not respond" not in error  # the step stayed within its own timeout: no watchdog needed
            assert session.restarts == 0
            assert session.observe().error == error or "partial" in session.observe().axtree
        finally:
            session.close()


LATE = "<html><body><p>loaded</p><script>setTimeout(() => { while (true) {} }, 100)</script></body></html>"
SPIN_XY = ("<html><body style='margin:0'><button style='width:300px;height:200px' onclick='while (true) {}'>spin"
           "</button></body></html>")
SLOW_XY = ("<html><body style='margin:0'><button style='width:300px;height:200px' onclick='const t = Date.now(); "
           "while (Date.now() - t < 1000) {} this.textContent = \"done\"'>slow</button></body></html>")


def test_a_page_stuck_after_loading_is_stopped_at_the_next_step(host: BrowserHost, serve) -> None:
    site = serve({"/late": LATE})
    session = BrowserSession(host, action_timeout_s=2.0, navigation_timeout_s=4.0)
    assert session.goto(site.url("/late")) == ""
    time.sleep(0.5)  # the timer has started its endless loop
    error = session.execute({"action_type": "scroll", "delta_x": 0, "delta_y": 10})
    assert "kept it busy for over 2 s and was stopped" in error, error
    assert "did not respond" not in error  # stopped before the action, not by the watchdog's budget
    obs = session.observe()
    assert obs.error == error and "loaded" in obs.axtree and session.url == site.url("/late")
    assert session.restarts == 0 and len(obs.tabs) == 1
    session.close()


def test_a_page_that_restarts_its_loop_is_replaced_by_a_blank_tab_at_the_next_step(host: BrowserHost, serve) -> None:
    site = serve({"/rehang": REHANG, "/ok": OK})
    session = BrowserSession(host, action_timeout_s=2.0, navigation_timeout_s=4.0)
    launches = host.launch_count
    session.goto(site.url("/rehang"))
    time.sleep(0.3)
    error = session.execute({"action_type": "scroll", "delta_x": 0, "delta_y": 10})
    assert "started again after it was stopped" in error and "replaced by a new blank tab" in error, error
    assert "did not respond" not in error
    obs = session.observe()
    assert obs.url == "about:blank" and len(obs.tabs) == 1
    assert session.goto(site.url("/ok")) == "" and "fine" in session.observe().axtree
    assert host.launch_count == launches and session.restarts == 0
    session.close()


def test_an_input_event_whose_handler_never_ends_is_stopped_after_the_patience(host: BrowserHost, serve) -> None:
    site = serve({"/spin": SPIN_XY})
    session = BrowserSession(host, action_timeout_s=2.0, navigation_timeout_s=4.0)
    assert session.goto(site.url("/spin")) == ""
    error = session.execute({"action_type": "click_xy", "x": 100, "y": 100})  # a mouse event has no timeout
    assert "kept it busy for over 2 s; its running script was stopped" in error, error
    assert "did not respond" not in error
    obs = session.observe()
    assert "spin" in obs.axtree and session.restarts == 0
    session.close()


def test_a_page_busy_for_less_than_the_patience_is_left_alone(host: BrowserHost, serve) -> None:
    site = serve({"/slow": SLOW_XY})
    session = BrowserSession(host, action_timeout_s=3.0, navigation_timeout_s=4.0)
    assert session.goto(site.url("/slow")) == ""
    assert session.execute({"action_type": "click_xy", "x": 100, "y": 100}) == ""  # its handler runs for 1 s
    assert session.execute({"action_type": "scroll", "delta_x": 0, "delta_y": 10}) == ""
    obs = session.observe()
    assert obs.error == "" and "done" in obs.axtree  # the handler ran to its end: nothing was stopped
    session.close()
