"""What a hung page costs, and whom: four sessions share one process's Chromium; one opens a page stuck in
``while (true) {}`` while the other three keep observing and scrolling.  Also: one navigation to a loopback server
that sends its headers and then stalls.

    python -m benchmarks.hung_page [--navigation-timeout 10]

Prints the hung session's step time, the neighbours' slowest step while it hung, how many steps they completed
meanwhile, and whether Chromium had to be relaunched.
"""

from __future__ import annotations

import argparse
import threading
import time

from personal_envs.browser import BrowserHost, BrowserSession
from personal_envs.browser.testing import LocalSite, StallingServer

HUNG = "<html><body><p>before</p><script>while (true) {}</script><p>after</p></body></html>"
OK = "<html><body><h1>fine</h1><p>" + "text " * 200 + "</p></body></html>"


def hung_page(navigation_timeout_s: float) -> None:
    """Four sessions, one hung page: print who waited how long."""
    site = LocalSite({"/hung": HUNG, "/ok": OK})
    host = BrowserHost()
    sessions = [BrowserSession(host, navigation_timeout_s=navigation_timeout_s) for _ in range(4)]
    try:
        for session in sessions[1:]:
            session.goto(site.url("/ok"))
        launches = host.launch_count
        done = threading.Event()
        hung_result: dict[str, float | str] = {}
        steps: list[float] = []

        def run_hung() -> None:
            started = time.monotonic()
            hung_result["error"] = sessions[0].goto(site.url("/hung"))
            hung_result["seconds"] = time.monotonic() - started
            done.set()

        def run_neighbour(session: BrowserSession) -> None:
            while not done.is_set():
                started = time.monotonic()
                session.observe()
                session.execute({"action_type": "scroll", "delta_x": 0, "delta_y": 50})
                steps.append(time.monotonic() - started)

        threads = [threading.Thread(target=run_hung)] + [
            threading.Thread(target=run_neighbour, args=(s,)) for s in sessions[1:]]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        started = time.monotonic()
        after = sessions[0].observe()
        print(f"hung page, navigation timeout {navigation_timeout_s:g} s:")
        print(f"  hung session's goto step: {hung_result['seconds']:.1f} s ({hung_result['error']})")
        print(f"  its next observation: {time.monotonic() - started:.2f} s, page usable: {'after' in after.axtree}")
        print(f"  neighbours: {len(steps)} steps (observe + scroll) meanwhile, slowest {max(steps):.2f} s, "
              f"median {sorted(steps)[len(steps) // 2]:.2f} s, tabs kept: "
              f"{all(s.url == site.url('/ok') and s.restarts == 0 for s in sessions[1:])}")
        print(f"  Chromium relaunched: {host.launch_count != launches}")
    finally:
        for session in sessions:
            session.close()
        host.close()
        site.close()


def stalled_headers(navigation_timeout_s: float) -> None:
    """One navigation to a server that sends headers and a bit of body, then nothing."""
    host = BrowserHost()
    with StallingServer() as server:
        session = BrowserSession(host, navigation_timeout_s=navigation_timeout_s)
        try:
            started = time.monotonic()
            error = session.goto(server.url)
            print(f"server stalling after its headers, navigation timeout {navigation_timeout_s:g} s: step "
                  f"{time.monotonic() - started:.1f} s ({error})")
        finally:
            session.close()
            host.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--navigation-timeout", type=float, default=10.0, help="seconds (WebMall's default)")
    args = parser.parse_args()
    hung_page(args.navigation_timeout)
    stalled_headers(15.0)  # BrowserArena's navigation timeout


if __name__ == "__main__":
    main()
