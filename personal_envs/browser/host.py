"""One headless Chromium per process, driven from a dedicated thread.

Playwright's sync API refuses to run inside a running asyncio loop (Jupyter) and its objects must stay on the
thread that created them.  :class:`BrowserHost` therefore owns a worker thread that starts Playwright and Debian's
Chromium once and executes every browser call; other threads submit callables with :meth:`BrowserHost.call` and
block for the result.  Each call runs in a greenlet of its own inside Playwright's event loop, so calls of
different sessions run concurrently: one waiting on a hung page or a slow navigation never holds up the others.
All envs of a process share the host (:meth:`BrowserHost.acquire` / :meth:`BrowserHost.release`: the last user
stops Chromium, the driver and the thread) and each episode gets a fresh, isolated context.

If Chromium dies, the next call notices (``browser.is_connected()`` is false) and relaunches it; contexts of the dead
browser are gone and their owners must open new ones (``BrowserDied`` tells them).
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import os
import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any, TypeVar

import greenlet

from personal_envs.browser.start_url import CHROMIUM_RESOLVER_RULES

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
    f"--host-resolver-rules={CHROMIUM_RESOLVER_RULES}",  # cloud metadata services: unreachable from every page
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
        self._closed = False
        self._stopping = False
        self._launching = False
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop_event: asyncio.Event | None = None

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
            if cls._shared is None or cls._shared.closed:
                cls._shared = cls()
                cls._shared_users = 0
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

    @property
    def closed(self) -> bool:
        """True after :meth:`close`."""
        return self._closed

    def _worker(self) -> None:
        """Browser thread: start Playwright, then run every submitted call in a greenlet of its own inside
        Playwright's event loop, so a call that waits (a hung page, a slow navigation) never holds up the calls of
        other sessions.  Without Playwright the calls run one after another (each reports the start error)."""
        try:
            self._start_playwright()
        except Exception:  # noqa: BLE001 - browser() raises it again for every call
            self._playwright = None
        if self._playwright is not None:
            self._loop = self._playwright._loop  # noqa: SLF001 - Playwright's event loop, run by its dispatcher
            self._loop.call_soon(self._start_pending)
            with contextlib.suppress(Exception):
                self._playwright._sync(self._until_stopped())  # noqa: SLF001 - wait inside Playwright's loop
            self._loop = None
        while (item := self._next_item(block=True)) is not None:
            self._run_item(item)
        self._shutdown_browser()

    async def _until_stopped(self) -> None:
        self._stop_event = asyncio.Event()
        if not self._stopping:
            await self._stop_event.wait()

    def _next_item(self, block: bool) -> tuple[Callable[[], Any], Future[Any]] | None:
        if self._stopping:
            return None
        try:
            item = self._tasks.get(block=block)
        except queue.Empty:
            return None
        if item is None:
            self._stopping = True
        return item

    def _start_pending(self) -> None:
        """Event-loop callback: start every queued call in its own greenlet (each runs until it waits)."""
        while (item := self._next_item(block=False)) is not None:
            greenlet.greenlet(self._run_item).switch(item)
        if self._stopping and self._stop_event is not None:
            self._stop_event.set()

    @staticmethod
    def _run_item(item: tuple[Callable[[], Any], Future[Any]]) -> None:
        fn, future = item
        if not future.set_running_or_notify_cancel():
            return
        try:
            future.set_result(fn())
        except BaseException as exc:  # delivered to the caller's thread
            future.set_exception(exc)

    def _wake(self) -> None:
        loop = self._loop
        if loop is not None:
            with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
                loop.call_soon_threadsafe(self._start_pending)

    def close(self) -> None:
        """Close Chromium, stop the Playwright driver and the worker thread (idempotent)."""
        self._closed = True
        if self.running:
            assert self._thread is not None
            if threading.current_thread() is self._thread:
                self._shutdown_browser()
                return
            self._tasks.put(None)
            self._wake()
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
        future = self.submit(fn, *args)
        try:
            return future.result(timeout=timeout)
        except FutureTimeout:
            raise BrowserError(f"browser call did not finish within {timeout:.0f} s") from None

    def submit(self, fn: Callable[..., T], *args: Any) -> Future[T]:
        """Start ``fn(*args)`` on the browser thread; its future (calls of different sessions run concurrently)."""
        if self._closed:
            raise BrowserError("the browser host is closed")
        self._ensure_thread()
        future: Future[T] = Future()
        self._tasks.put((lambda: fn(*args), future))
        self._wake()
        return future

    def _start_playwright(self) -> None:
        if self._playwright is None:
            from playwright.sync_api import sync_playwright

            self._playwright = sync_playwright().start()

    def browser(self) -> Any:
        """The Playwright ``Browser`` (launching or relaunching Chromium if needed).  Browser thread only."""
        while self._launching:  # another call is relaunching Chromium: use the browser it brings up
            self._playwright._sync(asyncio.sleep(0.05))  # noqa: SLF001
        if self._browser is not None and self._browser.is_connected():
            return self._browser
        self._launching = True
        try:
            return self._launch()
        finally:
            self._launching = False

    def _launch(self) -> Any:
        self._start_playwright()
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
