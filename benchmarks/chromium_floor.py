"""What Chromium itself costs here, without Playwright: the floor under every browser env's step latency.

    python benchmarks/chromium_floor.py [--repeats 30]

Launches the Chromium the envs use (``default_executable()``) with ``--remote-debugging-pipe`` and speaks the
DevTools protocol over that pipe with the standard library only (no Playwright driver, no Python event loop), then
times: a page load (``Page.navigate`` to ``DOMContentLoaded``) of a small loopback page, Chromium's accessibility
tree and a 1280x720 JPEG screenshot of a WebMall category page.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _measure import cpu_reference_s, machine, percentiles  # noqa: E402

from personal_envs.browser.host import CHROMIUM_ARGS, default_executable  # noqa: E402
from personal_envs.browser.testing import LocalSite  # noqa: E402
from personal_envs.webmall.catalog import load_catalog  # noqa: E402
from personal_envs.webmall.server import ShopCluster  # noqa: E402

SMALL_PAGE = "<title>floor</title>" + "<p>hello world</p>" * 100 + "<a href='/next'>next</a>"


class PipeClient:
    """A DevTools client over Chromium's ``--remote-debugging-pipe`` (fd 3 in, fd 4 out, NUL-separated JSON)."""

    def __init__(self, executable: str) -> None:
        to_chrome_read, self._to_chrome = os.pipe()
        self._from_chrome, from_chrome_write = os.pipe()
        self._profile = tempfile.TemporaryDirectory(ignore_cleanup_errors=True)
        # bash puts the pipe ends on the fds 3 and 4 Chromium expects, without touching this process's fds.
        self.process = subprocess.Popen(
            ["bash", "-c", f'exec "$@" 3<&{to_chrome_read} 4>&{from_chrome_write}', "bash", executable, "--headless",
             "--remote-debugging-pipe", f"--user-data-dir={self._profile.name}", "--no-startup-window",
             *CHROMIUM_ARGS],
            pass_fds=(to_chrome_read, from_chrome_write), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            start_new_session=True)
        os.close(to_chrome_read)
        os.close(from_chrome_write)
        self._buffer = b""
        self._next_id = 0
        self.session_id: str | None = None

    def send(self, method: str, params: dict[str, Any] | None = None, *, session: bool = True) -> dict[str, Any]:
        """Send one command and return its result (events that arrive meanwhile are dropped)."""
        self._next_id += 1
        message: dict[str, Any] = {"id": self._next_id, "method": method, "params": params or {}}
        if session and self.session_id:
            message["sessionId"] = self.session_id
        os.write(self._to_chrome, json.dumps(message).encode() + b"\0")
        while True:
            reply = self._read()
            if reply.get("id") == self._next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return dict(reply.get("result") or {})

    def wait_event(self, method: str) -> dict[str, Any]:
        while True:
            message = self._read()
            if message.get("method") == method:
                return message

    def _read(self) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            chunk = os.read(self._from_chrome, 1 << 20)
            if not chunk:
                raise RuntimeError("Chromium closed the DevTools pipe")
            self._buffer += chunk
        raw, self._buffer = self._buffer.split(b"\0", 1)
        return dict(json.loads(raw))

    def open_page(self) -> None:
        target = self.send("Target.createTarget", {"url": "about:blank"}, session=False)["targetId"]
        attached = self.send("Target.attachToTarget", {"targetId": target, "flatten": True}, session=False)
        self.session_id = attached["sessionId"]
        self.send("Page.enable")
        self.send("Emulation.setDeviceMetricsOverride",
                  {"width": 1280, "height": 720, "deviceScaleFactor": 1, "mobile": False})

    def close(self) -> None:
        """Kill Chromium (its whole process group: Debian's launcher is a shell script) and remove its profile."""
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=10)
        os.close(self._to_chrome)
        os.close(self._from_chrome)
        shutil.rmtree(self._profile.name, ignore_errors=True)


def timed(fn: Any, repeats: int) -> tuple[float, float]:
    samples = []
    for index in range(repeats):
        start = time.perf_counter()
        fn(index)
        samples.append(time.perf_counter() - start)
    return percentiles(samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=30)
    args = parser.parse_args()
    executable = default_executable()
    print(f"machine: {machine()}; load average {os.getloadavg()[0]:.1f}")
    print(f"chromium: {executable}; CPU reference (Python loop of 1e7 additions): {cpu_reference_s():.2f} s")
    site = LocalSite({"/": SMALL_PAGE, "/next": SMALL_PAGE})
    cluster = ShopCluster(load_catalog(None))
    client = PipeClient(executable)
    try:
        client.open_page()

        def load(index: int) -> None:
            client.send("Page.navigate", {"url": site.url(f"/?visit={index}")})
            client.wait_event("Page.domContentEventFired")

        load(-1)
        p50, p99 = timed(load, args.repeats)
        print(f"page load, Page.navigate to DOMContentLoaded ({len(SMALL_PAGE)} B page): p50 {p50:6.1f} ms  p99 {p99:6.1f} ms")
        shop = cluster.catalog.shops[0]
        category = next(iter(shop.root.children.values()))
        client.send("Page.navigate", {"url": cluster.shop_origins[0] + category.url_path})
        client.wait_event("Page.loadEventFired")
        nodes = len(client.send("Accessibility.getFullAXTree").get("nodes", []))
        p50, p99 = timed(lambda _: client.send("Accessibility.getFullAXTree"), args.repeats)
        print(f"Accessibility.getFullAXTree, WebMall category page ({nodes} nodes): p50 {p50:6.1f} ms  p99 {p99:6.1f} ms")
        p50, p99 = timed(lambda _: client.send("Page.captureScreenshot", {
            "format": "jpeg", "quality": 90, "optimizeForSpeed": True}), args.repeats)
        print(f"Page.captureScreenshot, 1280x720 JPEG: p50 {p50:6.1f} ms  p99 {p99:6.1f} ms")
        p50, p99 = timed(lambda _: client.send("Runtime.evaluate", {"expression": "1"}), args.repeats)
        print(f"round trip (Runtime.evaluate '1'): p50 {p50:6.2f} ms  p99 {p99:6.2f} ms")
    finally:
        client.close()
        cluster.close()
        site.close()


if __name__ == "__main__":
    main()
