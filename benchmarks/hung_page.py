"""What a hung page costs, and whom: four sessions share one process's Chromium; one meets a page stuck in a
script while the other three keep observing and scrolling; also one navigation to a loopback server that sends its
headers and then stalls.

    python -m benchmarks.hung_page [--navigation-timeout 10] [--load 6] [--repeat 1]

Each hung case is one env-like step of the stuck session (the action, then the observation, as a WebMall step
runs them), timed from the action to the observation:

* ``inline``: ``goto`` to a page whose inline script never ends (it blocks parsing, so the load times out);
* ``late``: a page that loads, then runs ``while (true) {}`` from a timer; the step is a scroll;
* ``again``: a page that starts the endless loop again every 100 ms, whatever is stopped; the step is a scroll;
* ``click``: a click on a button whose handler never ends;
* ``tap``: the same with a click at coordinates (a mouse event, which has no timeout of its own).

Printed per case: the stuck session's step time and message, its next step's time, and the neighbours' steps
meanwhile (count, median, slowest) and how many of them reported an error (any error is a false one: their pages
are fine).  ``--load N`` runs N busy processes during the measurement (a loaded machine).
"""

from __future__ import annotations

import argparse
import multiprocessing
import statistics
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from personal_envs.browser import BrowserHost, BrowserSession
from personal_envs.browser.testing import LocalSite, StallingServer

OK = "<html><body><h1>fine</h1><p>" + "text " * 200 + "</p></body></html>"
PAGES = {
    "/ok": OK,
    "/inline": "<html><body><p>before</p><script>while (true) {}</script><p>after</p></body></html>",
    "/late": "<html><body><p>loaded</p><script>setTimeout(() => { while (true) {} }, 300)</script></body></html>",
    "/again": "<html><body><p>loaded</p><script>setInterval(() => { while (true) {} }, 100)</script></body></html>",
    "/click": "<html><body><button onclick='while (true) {}'>spin</button></body></html>",
    "/tap": ("<html><body style='margin:0'><button style='width:300px;height:200px' onclick='while (true) {}'>"
             "spin</button></body></html>"),
}
CASES = ("inline", "late", "again", "click", "tap")
SCROLL = {"action_type": "scroll", "delta_x": 0, "delta_y": 50}


@dataclass
class Neighbours:
    """What the three neighbour sessions did while the stuck step ran."""

    steps: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


@dataclass
class CaseResult:
    case: str
    step_s: float
    message: str
    next_step_s: float
    neighbours: Neighbours
    relaunched: bool


def env_step(session: BrowserSession, action: dict[str, Any]) -> tuple[float, str]:
    """One env-like step (action, then observation): its time and what it reported."""
    started = time.monotonic()
    error = session.execute(action)
    observation = session.observe()
    return time.monotonic() - started, error or observation.error


def _bid_of(session: BrowserSession, name: str) -> str:
    for line in session.observe().axtree.splitlines():
        if name in line:
            return line.split("]")[0].strip("[ ")
    raise RuntimeError(f"no element named {name!r}")


def _prepare(case: str, session: BrowserSession, site: LocalSite) -> dict[str, Any]:
    """Bring the stuck session to the case's page (if the step does not go there itself); the step's action."""
    if case == "inline":
        return {"action_type": "goto", "url": site.url("/inline")}
    session.goto(site.url(f"/{case}"))
    if case == "click":
        return {"action_type": "click", "bid": _bid_of(session, "spin")}
    if case == "tap":
        return {"action_type": "click_xy", "x": 100, "y": 100}
    time.sleep(0.5)  # the timer fires: the page is stuck before the step begins
    return SCROLL


def run_case(case: str, host: BrowserHost, site: LocalSite, navigation_timeout_s: float) -> CaseResult:
    sessions = [BrowserSession(host, navigation_timeout_s=navigation_timeout_s) for _ in range(4)]
    try:
        for session in sessions[1:]:
            session.goto(site.url("/ok"))
        action = _prepare(case, sessions[0], site)
        launches = host.launch_count
        done = threading.Event()
        neighbours = Neighbours()
        stuck: dict[str, Any] = {}

        def run_stuck() -> None:
            stuck["seconds"], stuck["message"] = env_step(sessions[0], action)
            done.set()

        def run_neighbour(session: BrowserSession) -> None:
            while not done.is_set():
                seconds, error = env_step(session, SCROLL)
                neighbours.steps.append(seconds)
                if error:
                    neighbours.errors.append(error)

        threads = [threading.Thread(target=run_stuck)] + [
            threading.Thread(target=run_neighbour, args=(s,)) for s in sessions[1:]]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        next_step_s, _ = env_step(sessions[0], SCROLL)
        return CaseResult(case, stuck["seconds"], stuck["message"], next_step_s, neighbours,
                          host.launch_count != launches)
    finally:
        for session in sessions:
            session.close()


def stalled_headers(host: BrowserHost, navigation_timeout_s: float) -> tuple[float, str]:
    """One navigation step to a server that sends headers and a bit of body, then nothing."""
    with StallingServer() as server:
        session = BrowserSession(host, navigation_timeout_s=navigation_timeout_s)
        try:
            return env_step(session, {"action_type": "goto", "url": server.url})
        finally:
            session.close()


def _burn(seconds: float) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        pass


@contextmanager
def cpu_load(processes: int, seconds: float = 3600.0) -> Iterator[None]:
    """``processes`` busy processes for the duration of the block."""
    workers = [multiprocessing.Process(target=_burn, args=(seconds,), daemon=True) for _ in range(processes)]
    for worker in workers:
        worker.start()
    try:
        yield
    finally:
        for worker in workers:
            worker.terminate()
        for worker in workers:
            worker.join()


def _print_case(result: CaseResult) -> None:
    steps = result.neighbours.steps
    median = statistics.median(steps) if steps else 0.0
    slowest = max(steps) if steps else 0.0
    errors = result.neighbours.errors
    print(f"  {result.case:7s} stuck step {result.step_s:5.1f} s, next step {result.next_step_s:4.2f} s; "
          f"neighbours {len(steps):4d} steps, median {median:.2f} s, slowest {slowest:.2f} s, errors {len(errors)}; "
          f"Chromium relaunched: {result.relaunched}")
    print(f"           stuck step said: {result.message[:220]}")
    for error in errors[:3]:
        print(f"           neighbour error: {error[:200]}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--navigation-timeout", type=float, default=10.0, help="seconds (WebMall's default)")
    parser.add_argument("--load", type=int, default=0, help="busy processes running meanwhile")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--cases", nargs="*", default=list(CASES), choices=CASES)
    args = parser.parse_args(argv)
    site = LocalSite(PAGES)
    host = BrowserHost()
    try:
        with cpu_load(args.load):
            for round_ in range(1, args.repeat + 1):
                print(f"round {round_}, navigation timeout {args.navigation_timeout:g} s, {args.load} busy processes:",
                      flush=True)
                for case in args.cases:
                    _print_case(run_case(case, host, site, args.navigation_timeout))
                seconds, message = stalled_headers(host, 15.0)  # BrowserArena's navigation timeout
                print(f"  stalled server, navigation timeout 15 s: step {seconds:.1f} s ({message[:160]})", flush=True)
    finally:
        host.close()
        site.close()


if __name__ == "__main__":
    main()
