"""Finding (and, as a last resort, killing) the Chromium process behind a :class:`BrowserHost`."""

from __future__ import annotations

import os
import signal
from typing import Any

from personal_envs.browser.host import BrowserHost

# The pid is cached on the host as (launch count, pid), so it is known even while the browser thread is stuck.
_PID_ATTRIBUTE = "_browser_pid_cache"


def browser_pid(host: BrowserHost) -> int | None:
    """Process id of the host's Chromium browser process (launching it if needed); callable from any thread.

    Chromium reports it over CDP (``SystemInfo.getProcessInfo``); the result is cached per launch.
    """
    return host.call(lambda: browser_pid_on_thread(host))


def cached_browser_pid(host: BrowserHost) -> int | None:
    """The pid found by the latest :func:`browser_pid` for the current launch, without calling into the browser."""
    entry: tuple[int, int] | None = getattr(host, _PID_ATTRIBUTE, None)
    if entry is None or entry[0] != host.launch_count:
        return None
    return entry[1]


def browser_pid_on_thread(host: BrowserHost) -> int | None:
    browser: Any = host.browser()
    cached = cached_browser_pid(host)
    if cached is not None:
        return cached
    session = browser.new_browser_cdp_session()
    try:
        info = session.send("SystemInfo.getProcessInfo")
    finally:
        session.detach()
    for process in info.get("processInfo", []):
        if process.get("type") == "browser":
            pid = int(process["id"])
            setattr(host, _PID_ATTRIBUTE, (host.launch_count, pid))
            return pid
    return None


def process_alive(pid: int) -> bool:
    """True if ``pid`` names a running (not zombie) process, read from /proc."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as stat:
            fields = stat.read().rsplit(")", 1)[-1].split()
    except OSError:
        return False
    return bool(fields) and fields[0] not in ("Z", "X")


def kill_browser(host: BrowserHost) -> bool:
    """SIGKILL the host's Chromium browser process if its pid is known; True if a signal was sent.

    Playwright then fails every pending call with "browser has been closed", which frees a stuck browser thread;
    :meth:`BrowserHost.browser` relaunches Chromium on the next call.
    """
    pid = cached_browser_pid(host)
    if pid is None or not process_alive(pid):
        return False
    try:
        os.kill(pid, signal.SIGKILL)
    except OSError:
        return False
    return True
