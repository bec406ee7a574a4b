"""One headless Chromium per process, driven from a dedicated thread.

Playwright's sync API refuses to run inside a running asyncio loop (Jupyter) and its objects must stay on the
thread that created them.  :class:`BrowserHost` therefore owns a worker thread that starts Playwright and Debian's
Chromium once and executes every browser call; other threads submit callables with :meth:`BrowserHost.call` and
block for the result.  All envs of a process share the host (:meth:`BrowserHost.shared`) and each episode gets a
fresh, isolated context from :meth:`BrowserHost.new_context`.

If Chromium dies, the next call notices (``browser.is_connected()`` is false) and relaunches it; contexts of the dead
browser are gone and their owners must open new ones (``BrowserDied`` tells them).
"""

from __future__ import annotations

import atexit
import os
import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any, TypeVar

T = TypeVar("T")

#: Chromium shipped by Debian's ``chromium`` package; override with ``PERSONAL_ENVS_CHROMIUM``.
DEFAULT_CHROMIUM = "/usr/bin/chromium"

#: Debian's ``chromium-headless-shell`` (same Chromium version, the "old" headless build Playwright itself uses for
#: headless runs).  Preferred when installed: without the full browser UI a navigation costs about half the CPU
#: (``benchmarks/browser_runtime.py``) and a fresh context opens about three times faster.
DEFAULT_HEADLESS_SHELL = "/usr/bin/chromium-headless-shell"


def default_executable(headless: bool = True) -> str:
    """The Chromium binary to launch: ``$PERSONAL_ENVS_CHROMIUM``, else the headless shell (headless runs only) when
    installed, else :data:`DEFAULT_CHROMIUM`."""
    configured = os.environ.get("PERSONAL_ENVS_CHROMIUM")
    if configured:
        return configured
    if headless and os.path.exists(DEFAULT_HEADLESS_SHELL):
        return DEFAULT_HEADLESS_SHELL
    return DEFAULT_CHROMIUM

#: Flags that keep Chromium quiet on a machine without internet and inside containers.
CHROMIUM_ARGS: tuple[str, ...] = (
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-default-apps",
    "--disable-extensions",
    "--no-first-run",
    "--disable-quic",
    "--metrics-recording-only",
    "--mute-audio",
)


class BrowserError(RuntimeError):
    """The browser could not be started or a call into it failed."""


class BrowserDied(BrowserError):
    """Chromium crashed or was killed; the host relaunches it, the caller must open a new context."""


class BrowserHost:
    """A Chromium process and the thread that drives it.

    Args:
        executable_path: Chromium binary; defaults to :func:`default_executable` (``$PERSONAL_ENVS_CHROMIUM``, else
            ``/usr/bin/chromium-headless-shell`` if installed, else ``/usr/bin/chromium``).
        headless: Run without a window (the default; there is no display here).
    """

    _shared: BrowserHost | None = None
    _shared_lock = threading.Lock()
    _shared_users = 0

    def __init__(self, executable_path: str | None = None, headless: bool = True) -> None:
        self.executable_path = executable_path or default_executable(headless)
        self.headless = headless
        self._tasks: queue.Queue[tuple[Callable[[], Any], Future[Any]] | None] = queue.Queue()
        self._thread: threading.Thread | None = None
        self._playwright: Any = None
        self._browser: Any = None
        self.launch_count = 0
        self._lock = threading.Lock()

    # -------------------------------------------------------------------------------------------- lifecycle
    @classmethod
    def shared(cls) -> BrowserHost:
        """The process-wide host, created on first use and closed at interpreter exit."""
        with cls._shared_lock:
            if cls._shared is None or not cls._shared.running:
                cls._shared = cls()
                atexit.register(cls._shared.close)
            return cls._shared

    @classmethod
    def acquire(cls) -> BrowserHost:
        """The process-wide host, counted as one more user; hand it back with :meth:`release`."""
        with cls._shared_lock:
            if cls._shared is None or not cls._shared.running:
                cls._shared = cls()
                atexit.register(cls._shared.close)
            cls._shared_users += 1
            return cls._shared

    @classmethod
    def release(cls, host: BrowserHost) -> None:
        """One user of ``host`` (from :meth:`acquire`) is done; the last one closes Chromium, the Playwright driver
        and the browser thread, so nothing of the browser remains in the process."""
        with cls._shared_lock:
            if host is not cls._shared or cls._shared_users <= 0:
                return
            cls._shared_users -= 1
            if cls._shared_users > 0:
                return
            cls._shared = None
        host.close()
        atexit.unregister(host.close)

    @classmethod
    def shared_users(cls) -> int:
        """How many acquired users the process-wide host has."""
        return cls._shared_users

    @property
    def running(self) -> bool:
        """True while the worker thread is alive."""
        return self._thread is not None and self._thread.is_alive()

    def _ensure_thread(self) -> None:
        with self._lock:
            if not self.running:
                self._thread = threading.Thread(target=self._worker, name="personal-envs-browser", daemon=True)
                self._thread.start()

    def _worker(self) -> None:
        while True:
            item = self._tasks.get()
            if item is None:
                break
            fn, future = item
            if not future.set_running_or_notify_cancel():
                continue
            try:
                future.set_result(fn())
            except BaseException as exc:  # delivered to the caller's thread
                future.set_exception(exc)
        self._shutdown_browser()

    def close(self) -> None:
        """Close Chromium, stop the Playwright driver and the worker thread (idempotent)."""
        if self.running:
            assert self._thread is not None
            if threading.current_thread() is self._thread:
                self._shutdown_browser()
                return
            self._tasks.put(None)
            self._thread.join(timeout=30)
        self._thread = None

    # ------------------------------------------------------------------------------------------- calls
    def call(self, fn: Callable[..., T], *args: Any, timeout: float = 60.0) -> T:
        """Run ``fn(*args)`` on the browser thread and return its result (its exception is re-raised here).

        Raises:
            BrowserError: if the call does not finish within ``timeout`` seconds.
        """
        if self.running and threading.current_thread() is self._thread:
            return fn(*args)
        self._ensure_thread()
        future: Future[T] = Future()
        self._tasks.put((lambda: fn(*args), future))
        try:
            return future.result(timeout=timeout)
        except FutureTimeout:
            raise BrowserError(f"browser call did not finish within {timeout:.0f} s") from None

    def browser(self) -> Any:
        """The Playwright ``Browser`` (launching or relaunching Chromium if needed).  Browser thread only."""
        if self._browser is not None and self._browser.is_connected():
            return self._browser
        if self._playwright is None:
            from playwright.sync_api import sync_playwright

            self._playwright = sync_playwright().start()
        if not os.path.exists(self.executable_path):
            raise BrowserError(
                f"Chromium not found at {self.executable_path}. Install it with 'apt-get install chromium "
                "chromium-headless-shell' "
                "or set PERSONAL_ENVS_CHROMIUM to a Chromium binary."
            )
        self._browser = self._playwright.chromium.launch(
            executable_path=self.executable_path, headless=self.headless, args=list(CHROMIUM_ARGS)
        )
        self.launch_count += 1
        return self._browser

    def is_current(self, browser: Any) -> bool:
        """True if ``browser`` is this host's Chromium and it is still connected (browser thread)."""
        return browser is not None and browser is self._browser and bool(browser.is_connected())

    def new_context(self, **context_options: Any) -> Any:
        """A fresh ``BrowserContext`` (cookies, storage and cache isolated).  Callable from any thread."""
        return self.call(lambda: self.browser().new_context(**context_options))

    def _shutdown_browser(self) -> None:
        try:
            if self._browser is not None and self._browser.is_connected():
                self._browser.close()
        except Exception:  # noqa: S110 - closing a dead browser may fail; nothing to recover
            pass
        try:
            if self._playwright is not None:
                self._playwright.stop()
        except Exception:  # noqa: S110
            pass
        self._browser = None
        self._playwright = None
