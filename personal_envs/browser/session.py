"""One agent's browser: an isolated context with tabs, observed as an AX tree/screenshot, driven by bid actions.

Every public method blocks and may be called from any thread: the work runs on the :class:`BrowserHost` thread.
Nothing the agent does raises: actions and navigation return ``""`` or an error text, observations carry an
``error`` field.  A crashed page or a killed Chromium is detected, a fresh context (on a relaunched browser if
needed) replaces it, and the call reports that the browser was restarted.  A page stuck in its own script (it does
not run a trivial one) for longer than the action timeout is dealt with by a per-page watchdog: before a call on
the page, or while an action waits on it, the script is terminated over CDP (``Runtime.terminateExecution``, served
even while the renderer is busy); a page that starts its loop again is replaced by a new tab (crashed, if a call is
stuck on it).  A call that outlasts its whole budget (``hang_timeout_s``) while its page still answers meets the
same measures.  Other sessions of the process keep running meanwhile (their calls run concurrently on the browser
thread, see :class:`BrowserHost`), and only their own pages are ever probed.  Killing Chromium is the last resort.
"""

from __future__ import annotations

import base64
import contextlib
import json
import math
import re
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

from playwright.sync_api import BrowserContext, CDPSession, Dialog, Frame, Page, Request, Route
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from personal_envs.browser import bgym_format
from personal_envs.browser.actions import MAX_WAIT_MS, read_browser_action
from personal_envs.browser.axtree import MAX_TEXT_CHARS, index_dom_snapshot, render_axtree, render_dom_records
from personal_envs.browser.bgym_marks import draw_browsergym_marks
from personal_envs.browser.cdp import Command, send_concurrently
from personal_envs.browser.errors import describe_playwright_error, is_dead_target_error
from personal_envs.browser.host import BrowserDied, BrowserError, BrowserHost
from personal_envs.browser.marks import decode_image, draw_set_of_marks
from personal_envs.browser.observation import ElementInfo, PageObservation
from personal_envs.browser.origins import NAVIGABLE_SCHEMES, AllowedOrigins
from personal_envs.browser.page_scripts import (
    BID_ATTRIBUTE,
    COUNT_REQUESTS_JS,
    DOM_AXTREE_JS,
    INSPECT_ELEMENT_JS,
    NEXT_FRAMES_JS,
    SCRIPT_REQUESTS_STARTED_JS,
    SET_VALUE_JS,
    SOM_FLAGS_JS,
    STAMP_BIDS_JS,
)
from personal_envs.browser.process import browser_pid_on_thread, kill_browser
from personal_envs.browser.start_url import FORBIDDEN_URL_PATTERN
from personal_envs.core.actions import Action

T = TypeVar("T")

AxTreeBackend = Literal["auto", "cdp", "dom"]

#: The values :data:`AxTreeBackend` allows.
AXTREE_BACKENDS: tuple[AxTreeBackend, ...] = ("auto", "cdp", "dom")

AxTreeFormat = Literal["compact", "browsergym"]

#: The values :data:`AxTreeFormat` allows.
AXTREE_FORMATS: tuple[AxTreeFormat, ...] = ("compact", "browsergym")

_DOM_SNAPSHOT: Command = ("DOMSnapshot.captureSnapshot", {"computedStyles": []})
_BGYM_WALK_OPTIONS = {"bgym": True}

#: With ``axtree_backend="auto"``, pages with more text than this (characters, form values included) are
#: observed with the DOM walk.
AUTO_DOM_TEXT_CHARS = 100_000

_STAMP_AND_WALK_JS = f"(maxText) => ({{facts: ({STAMP_BIDS_JS})(), tree: ({DOM_AXTREE_JS})(maxText)}})"

#: How long to wait for the ``load`` event after a navigation has reached DOMContentLoaded (slow images etc.).
LOAD_GRACE_S = 2.0

#: How long a navigation whose response has arrived may take to commit before it is taken as "no new page".
NO_COMMIT_GRACE_S = 0.5

#: JPEG quality of screenshots (JPEG encodes and decodes faster than PNG).
SCREENSHOT_JPEG_QUALITY = 90

#: Values longer than this are set directly instead of typed in by Playwright's ``fill``.
DIRECT_FILL_CHARS = 20_000

SESSION_CLOSED = "the browser session is closed"

#: What a call may take beyond its action and navigation timeouts (probes, stopping a script) before the watchdog
#: treats it as hung.
HANG_MARGIN_S = 5.0

#: How long the watchdog waits for Chromium to accept an interruption, and then for the hung call to end.
INTERRUPT_TIMEOUT_S = 2.0
INTERRUPT_GRACE_S = 2.0

#: Shortest wait for a page state once a step's time is used up (lets an event already queued arrive).
MIN_WAIT_S = 0.1

#: Requests a page's scripts send, which :attr:`BrowserSession.settle_s` waits for.
_SCRIPT_REQUESTS = frozenset({"fetch", "xhr"})
#: How often the settling wait looks at the page's requests again (milliseconds).
SETTLE_POLL_MS = 10

#: How long a page may take to run a trivial script before it counts as busy (a script that does not return).
RESPONSIVE_PROBE_MS = 500
#: How long to wait before a second try when Chromium could not capture a screenshot (a tab that has not painted).
SCREENSHOT_RETRY_MS = 150
#: How often the watchdog of an action looks whether the page still answers, once the patience is over.
BUSY_WATCH_INTERVAL_S = 1.0
#: How often the caller's thread wakes up to see whether that time has come.
BUSY_WATCH_POLL_S = 0.25
#: How long a page whose script was stopped may take to answer before it counts as stuck again.
RESTARTED_PROBE_MS = 1000
#: The pause before the second probe after a script was stopped (a timer restarting the loop shows by then).
RESTART_CHECK_MS = 300
#: A page stuck again within this many seconds of a stopped script is replaced without waiting again.
RESTART_WINDOW_S = 30.0
_RESPONSIVE_PROBE: Command = ("Runtime.evaluate", {"expression": "1", "returnByValue": True})

#: Actions that are done again, once, when the browser had to be recovered before they could run (they mean the
#: same thing on the fresh blank tab); other actions report that they were not carried out.
_REDO_AFTER_RECOVERY = frozenset({"goto", "noop", "new_tab"})

_BID_PATTERN = re.compile(r"^\[?\s*([A-Za-z0-9_.-]{1,40})\s*\]?$")
_SCHEME_PATTERN = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*):")
_FORBIDDEN_SCHEMES = frozenset({"file", "chrome", "javascript", "view-source", "devtools", "chrome-extension",
                                "blob", "filesystem", "mailto", "tel", "ws", "wss", "ftp"})
_ERROR_PAGE_PREFIXES = ("chrome-error://", "chrome://")


@dataclass
class _RawObservation:
    """What the browser thread collects; decoding and rendering happen on the caller's thread."""

    url: str
    facts: dict[str, Any]
    ax_nodes: list[dict[str, Any]] | None
    snapshot: dict[str, Any] | None
    dom_records: list[list[Any]] | None
    screenshot_b64: str | None
    tabs: tuple[str, ...]
    active_tab: int
    som_bids: list[str] | None = None


class _Call:
    """Book-keeping for one submitted browser call (so a call still queued when its caller gave up never runs)."""

    def __init__(self) -> None:
        self.started = False
        self.cancelled = False
        self.lock = threading.Lock()
        #: When the call's own operation began (after the checks that precede it), or None before.
        self.op_started: float | None = None

    def begin(self) -> bool:
        with self.lock:
            if self.cancelled:
                return False
            self.started = True
            return True

    def give_up(self) -> bool:
        """Cancel if not started; returns True if the call was running (i.e. it is stuck)."""
        with self.lock:
            self.cancelled = True
            return self.started


class _Cancelled(Exception):
    pass


class BrowserSession:
    """A fresh isolated browser context (one per episode) with tabs.

    Args:
        host: Browser host; defaults to the process-wide one (:meth:`BrowserHost.acquire`), released by
            :meth:`close`: when the last session of the process closes, Chromium, its driver and thread stop.
        viewport: ``(width, height)`` in CSS pixels.
        allowed_origins: ``None`` for no restriction, else the ``scheme://host:port`` origins pages may load
            (``about:blank`` and ``data:`` are always allowed).  Other requests are aborted and an action whose
            navigation was blocked returns ``"blocked: <url> is outside the allowed sites (...)"``.
        action_timeout_s: Limit for one element action (click, fill, ...).
        navigation_timeout_s: Limit for a navigation to reach DOMContentLoaded.
        context_options: Extra keyword arguments for Playwright's ``Browser.new_context`` (locale, user_agent, ...).
        hang_timeout_s: A browser call still running after this long is considered hung: the page's scripts are
            terminated (or the page is crashed and replaced; Chromium is killed only if that fails too).
            Defaults to ``navigation_timeout_s + action_timeout_s + 5``.  A page that stops answering is dealt
            with sooner, after ``busy_patience_s`` (the action timeout): see the module docstring.
        axtree_backend: ``"cdp"`` renders Chromium's own accessibility tree (``Accessibility.getFullAXTree``);
            ``"dom"`` walks the DOM in one script (same line format, approximated ARIA roles and names, much
            faster); ``"auto"`` uses ``"cdp"`` unless the page holds more than :data:`AUTO_DOM_TEXT_CHARS`
            characters of text, where Chromium's tree (a node per text line) would take seconds or minutes.
        axtree_format: ``"compact"``: ``[bid] role 'name' key=value`` lines, names clipped to
            :data:`~personal_envs.browser.axtree.MAX_TEXT_CHARS`; ``"browsergym"``: the text BrowserGym's
            ``flatten_axtree_to_str`` writes with AgentLab's WebMall settings (``visible`` / ``clickable`` tags, nothing
            clipped; see :mod:`personal_envs.browser.bgym_format`).  Both backends give either format.
        settle_s: After each action, wait until the fetch/XHR requests the page sent are answered and handled, at
            most this long (0: no wait).  Shows what a script changes in place without a fixed delay.
        fixed_delay_s: After each action, wait this long instead (BrowserGym's ``pre_observation_delay``).

    Attributes:
        messages: Texts the agent sent with ``send_msg_to_user`` this episode.
        infeasible_reasons: Reasons the agent gave with ``report_infeasible`` this episode.
        dialogs: Texts of JavaScript dialogs (alert/confirm/prompt) the page opened; they are accepted.
        last_error: Error text of the latest ``goto``/``execute`` ("" if it succeeded).
        restarts: How many times the context had to be replaced after a crash.
    """

    def __init__(
        self,
        host: BrowserHost | None = None,
        *,
        viewport: tuple[int, int] = (1280, 720),
        allowed_origins: Sequence[str] | None = None,
        action_timeout_s: float = 5.0,
        navigation_timeout_s: float = 10.0,
        context_options: dict[str, Any] | None = None,
        hang_timeout_s: float | None = None,
        axtree_backend: AxTreeBackend = "auto",
        axtree_format: AxTreeFormat = "compact",
        settle_s: float = 0.0,
        fixed_delay_s: float = 0.0,
    ) -> None:
        #: True when the session took the process-wide host and hands it back on close().
        self._acquired = host is None
        self.host = host or BrowserHost.acquire()
        self.viewport = (int(viewport[0]), int(viewport[1]))
        self.allowed = AllowedOrigins(allowed_origins) if allowed_origins is not None else None
        self.action_timeout_s = float(action_timeout_s)
        self.navigation_timeout_s = float(navigation_timeout_s)
        self.hang_timeout_s = float(hang_timeout_s or self.navigation_timeout_s + self.action_timeout_s
                                    + HANG_MARGIN_S)
        #: How long a page may stay busy in its own script before a call on it stops the script.
        self.busy_patience_s = self.action_timeout_s
        if axtree_backend not in AXTREE_BACKENDS:
            raise ValueError(f"axtree_backend must be 'auto', 'cdp' or 'dom', got {axtree_backend!r}")
        self.axtree_backend: AxTreeBackend = axtree_backend
        if axtree_format not in AXTREE_FORMATS:
            raise ValueError(f"axtree_format must be 'compact' or 'browsergym', got {axtree_format!r}")
        self.axtree_format: AxTreeFormat = axtree_format
        #: After an action, wait (up to this long) until the page's fetch/XHR requests are answered and handled.
        self.settle_s = max(0.0, float(settle_s))
        #: After an action, wait this long whatever happens (BrowserGym's ``pre_observation_delay``).
        self.fixed_delay_s = max(0.0, float(fixed_delay_s))
        self._context_options: dict[str, Any] = {
            "viewport": {"width": self.viewport[0], "height": self.viewport[1]},
            "service_workers": "block",
            **(context_options or {}),
        }
        self.messages: list[str] = []
        self.infeasible_reasons: list[str] = []
        self.dialogs: list[str] = []
        self.last_error = ""
        self.restarts = 0
        self._lock = threading.RLock()
        self._closed = False
        self._pending_notice = ""
        # Browser-thread state.
        self._context: BrowserContext | None = None
        self._page: Page | None = None
        self._crashed: set[int] = set()
        #: id(page) -> when the session last stopped a script of that page (a page stuck again soon after is one
        #: whose timer restarts the loop: it is replaced, not waited for again).
        self._scripts_stopped: dict[int, float] = {}
        self._saved_cookies: list[Any] = []
        self._cdp: dict[int, tuple[Page, CDPSession]] = {}
        self._navigations = 0
        #: ``_navigations`` when a document was last waited for (a later commit is waited for before observing)
        self._waited_navigations = 0
        self._blocked: list[str] = []
        # id(page) -> (main-frame navigation request not yet committed, time it finished or 0)
        self._pending_navigation: dict[int, tuple[Request, float]] = {}
        # id(page) -> fetch/XHR requests sent and not answered yet; how many were announced in the document
        self._inflight: dict[int, set[Request]] = {}
        self._announced: dict[int, int] = {}
        self._answered = 0  # fetch/XHR requests answered so far (any page)
        try:
            self.host.call(self._open_context, timeout=self.hang_timeout_s + 30.0)
        except BaseException:
            self._release_host()
            raise

    # ------------------------------------------------------------------------------------------ public API
    def call(self, fn: Callable[[Page], T], timeout: float = 30.0) -> T:
        """Run ``fn(active_page)`` on the browser thread and return its result (its exceptions propagate).

        Raises:
            BrowserDied: if the page or browser died during the call (the session has already recovered; the
                next :meth:`execute` or :meth:`observe` reports it too, unless :meth:`take_notice` took it).
            BrowserError: if the session is closed or the call hung (Chromium was then restarted).
        """
        with self._lock:
            if self._closed:
                raise BrowserError(SESSION_CLOSED)
            outcome: list[T] = []

            def run() -> None:
                assert self._page is not None
                outcome.append(fn(self._page))

            notice = self._run(run, budget_s=timeout, propagate=True)
            if notice:  # reported by the next execute()/observe() even if the caller swallows the exception
                self._pending_notice = _join(self._pending_notice, notice)
            if not outcome:
                raise BrowserDied(notice or "the browser call did not complete")
            return outcome[0]

    def take_notice(self) -> str:
        """What the session had to recover from since the last report ("" if nothing), and forget it."""
        with self._lock:
            return self._take_notice()

    def goto(self, url: str) -> str:
        """Open ``url`` in the active tab; returns "" or an error text."""
        return self.execute(Action("goto", {"url": url}))

    def execute(self, action: Action | Mapping[str, Any] | str) -> str:
        """Apply one action of :data:`BROWSER_ACTION_SPECS` (an :class:`Action`, a dict or JSON text).

        Returns:
            "" on success, else a message for the agent (bad arguments, unknown bid, timeout, blocked site, ...).
        """
        with self._lock:
            error = self._execute_locked(action)
            self.last_error = error
            return error

    def observe(self, *, axtree: bool = True, screenshot: bool = False, set_of_marks: bool = False) -> PageObservation:
        """Observe the active tab.

        Args:
            axtree: Include the AX tree text and ``elements``.
            screenshot: Include the viewport screenshot.
            set_of_marks: Draw boxes and bid labels on interactive elements of the screenshot (implies
                ``screenshot``; ``elements`` is filled even if ``axtree`` is false).
        """
        with self._lock:
            if self._closed:
                return PageObservation.empty(SESSION_CLOSED)
            want_tree = axtree or set_of_marks
            want_shot = screenshot or set_of_marks
            holder: list[_RawObservation] = []
            notice = self._run(lambda: holder.append(self._observe_raw(want_tree, want_shot, set_of_marks)),
                               budget_s=self.hang_timeout_s)
            notice = _join(self._take_notice(), notice)
            error = _join(self.last_error, notice)
            if not holder:
                return PageObservation.empty(error, url=self._safe_url(), tabs=self._safe_tabs())
            return self._finish_observation(holder[0], axtree, want_shot, set_of_marks, error)

    def reset(self) -> None:
        """Close the context (tabs, cookies, storage) and open a fresh one for a new episode."""
        with self._lock:
            if self._closed:
                raise BrowserError(SESSION_CLOSED)
            self.messages.clear()
            self.infeasible_reasons.clear()
            self.dialogs.clear()
            self.last_error = ""
            self._pending_notice = ""
            self._run(self._reopen_quietly, budget_s=self.hang_timeout_s, check_alive=False)

    def close(self) -> None:
        """Close the context and every tab; the session cannot be used afterwards (idempotent)."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            if self.host.running:
                with contextlib.suppress(BrowserError):
                    self.host.call(self._close_context, timeout=30.0)
            self._release_host()

    def _release_host(self) -> None:
        """Hand the process-wide host back (the last session of the process closes Chromium and its driver)."""
        if self._acquired:
            self._acquired = False
            BrowserHost.release(self.host)

    def __enter__(self) -> BrowserSession:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    @property
    def url(self) -> str:
        """URL of the active tab ("" when closed or unreadable)."""
        return self._safe_url()

    @property
    def closed(self) -> bool:
        """True after :meth:`close`."""
        return self._closed

    @property
    def context(self) -> BrowserContext | None:
        """The current Playwright context (use it only through :meth:`call`, on the browser thread)."""
        return self._context

    # -------------------------------------------------------------------------------- guarded execution
    def _run(self, op: Callable[[], Any], *, budget_s: float, propagate: bool = False,
             check_alive: bool = True, unstick: bool = True, watch_busy: bool = False) -> str:
        """Run ``op`` on the browser thread, restoring a dead page/browser; returns a notice ("" if all was well).

        With ``check_alive`` and ``unstick``, a page stuck in a script is stopped first (:meth:`_unstick`).  With
        ``watch_busy`` (actions), the watchdog does not wait for ``budget_s`` when ``op`` has run for
        :attr:`busy_patience_s` and the page has stopped answering (a script the action started never ends).
        Playwright errors that do not mean a dead target propagate only with ``propagate``; otherwise they become
        the notice.
        """
        ticket = _Call()

        def task() -> str:
            if not ticket.begin():
                raise _Cancelled
            notice = self._ensure_alive() if check_alive else ""
            try:
                if check_alive:
                    notice = _join(notice, self._deliver_events())
                    if unstick:
                        notice = _join(notice, self._unstick())
                ticket.op_started = time.monotonic()
                op()
            except PlaywrightError as exc:
                if self._target_dead(exc):
                    return _join(notice, self._restore(describe_playwright_error(exc)))
                if propagate:
                    raise
                return _join(notice, describe_playwright_error(exc))
            return notice

        future = self.host.submit(task)
        deadline = time.monotonic() + budget_s
        poll_s = BUSY_WATCH_POLL_S if watch_busy else budget_s
        last_probe = -math.inf
        while True:
            try:
                return future.result(timeout=max(0.0, min(poll_s, deadline - time.monotonic())))
            except _Cancelled:
                return "the browser call was cancelled"
            except FutureTimeout:
                pass
            if time.monotonic() >= deadline:
                if not ticket.give_up():
                    return f"the browser is busy with other sessions; nothing was done in {budget_s:.0f} s, try again"
                return self._stop_hung_call(future, f"the page did not respond within {budget_s:g} s", budget_s)
            began = ticket.op_started
            if began is None or not watch_busy:
                continue
            page = self._page
            again = page is not None and self._recently_stopped(page)
            patience = BUSY_WATCH_INTERVAL_S if again else self.busy_patience_s
            now = time.monotonic()
            if now - began < patience or now - last_probe < BUSY_WATCH_INTERVAL_S:
                continue
            last_probe = now
            if self._page_stuck():
                ticket.give_up()
                said = ("the page's script, stopped before, kept it busy again" if again else
                        f"the page's script kept it busy for over {patience:g} s")
                return self._stop_hung_call(future, said, budget_s, first="crash" if again else "terminate")

    def _page_stuck(self) -> bool:
        """Caller thread, while a call on the page is running: True if the page does not answer a trivial script
        (probed from a concurrent call; never during a pending navigation, which defers DevTools commands)."""
        def probe() -> bool:
            page = self._page
            if page is None or page.is_closed() or id(page) in self._pending_navigation:
                return False
            try:
                self._cdp_send_all(page, [_RESPONSIVE_PROBE], timeout_ms=RESTARTED_PROBE_MS)
                return False
            except PlaywrightError:
                return not page.is_closed()

        try:
            return bool(self.host.call(probe, timeout=RESTARTED_PROBE_MS / 1000 + INTERRUPT_TIMEOUT_S))
        except BrowserError:
            return False

    def _stop_hung_call(self, future: Future[str], said: str, budget_s: float,
                        first: Literal["terminate", "crash"] = "terminate") -> str:
        """The watchdog of this session's page: a call on it hung (``said`` tells how).  Terminate the page's
        script from a second, concurrent call, then the hung call ends on its own; crash the page if that is not
        enough (or at once, with ``first="crash"``, for a page whose stopped script started again), and kill
        Chromium only as the last resort (its message names ``budget_s``)."""
        page, context = self._page, self._context
        outcomes = {"terminate": "its running script was stopped",
                    "crash": "the page was crashed and replaced by a new tab",
                    "dispose": "its tabs were closed and a new browser context was opened"}
        if first == "crash":
            del outcomes["terminate"]
        for how, what in outcomes.items():
            if page is not None:
                with contextlib.suppress(Exception):
                    self.host.call(self._interrupt, page, context, how, timeout=INTERRUPT_TIMEOUT_S + 1.0)
            try:
                notice = future.result(timeout=INTERRUPT_GRACE_S)
            except FutureTimeout:
                continue
            except Exception as exc:  # the hung call ended with the error the interruption caused
                notice = describe_playwright_error(exc)
            if how != "terminate":
                with contextlib.suppress(Exception):
                    notice = _join(notice, self.host.call(self._ensure_alive, timeout=30.0))
            elif page is not None:
                self._scripts_stopped[id(page)] = time.monotonic()
            return _join(f"{said}; {what}", notice)
        return self._recover_from_hang(budget_s)

    def _interrupt(self, page: Page, context: BrowserContext | None, how: str) -> None:
        """Browser thread, while another call on ``page`` is stuck: stop the script that keeps the renderer busy
        (``Runtime.terminateExecution``), crash the renderer (``Page.crash``) or close this session's whole
        context.  Chromium serves all three even while the page's main thread runs an endless loop; none touches
        another session."""
        if how == "dispose":
            if context is not None:
                self._crashed.add(id(page))
                with contextlib.suppress(PlaywrightError):
                    context.close()
            return
        if page.is_closed():
            return
        if how == "crash":
            self._crashed.add(id(page))
        method = "Runtime.terminateExecution" if how == "terminate" else "Page.crash"
        with contextlib.suppress(PlaywrightError):
            self._cdp_for(page).send(method, timeout=INTERRUPT_TIMEOUT_S * 1000)

    def _recover_from_hang(self, budget_s: float) -> str:
        killed = kill_browser(self.host)
        try:
            notice = self.host.call(self._ensure_alive, timeout=60.0)
        except BrowserError as exc:
            notice = f"recovery failed: {exc}"
        self.restarts += 0 if notice else 1
        what = "the browser was killed and restarted" if killed else "the browser could not be stopped"
        return _join(f"the browser did not respond within {budget_s:.0f} s; {what}", notice)

    def _target_dead(self, exc: PlaywrightError) -> bool:
        page = self._page
        if page is None or page.is_closed() or id(page) in self._crashed:
            return True
        context = self._context
        browser = context.browser if context is not None else None
        if browser is None or not browser.is_connected():
            return True
        return is_dead_target_error(exc)

    def _ensure_alive(self) -> str:
        """Browser thread: make sure a live context and active page exist; say what had to be replaced."""
        context = self._context
        if context is None:
            self._open_context()
            return ""
        browser = context.browser
        if browser is None or not browser.is_connected():
            return self._reopen("the browser had crashed")
        page = self._page
        if page is not None and not page.is_closed() and id(page) not in self._crashed:
            return ""
        try:
            for crashed in [p for p in context.pages if id(p) in self._crashed]:
                with contextlib.suppress(PlaywrightError):
                    crashed.close()
            alive = [p for p in context.pages if not p.is_closed() and id(p) not in self._crashed]
            if alive:
                self._page = alive[-1]
                return (f"the active tab was closed or crashed; switched to tab {context.pages.index(alive[-1])} "
                        f"({alive[-1].url})")
            self._page = context.new_page()
            return "the page was closed or crashed; a new blank tab was opened"
        except PlaywrightError as exc:
            return self._reopen(f"the browser context failed ({describe_playwright_error(exc)})")

    def _deliver_events(self) -> str:
        """Let Playwright deliver queued events (a renderer crash, a closed tab) before we talk to the page.

        Our own CDP sessions are not failed by Playwright when their renderer crashes, so a command sent to a
        crashed tab would wait forever; one cheap round trip to the driver makes the ``crash`` event arrive first.
        """
        page = self._page
        if page is None or page.is_closed():
            return self._ensure_alive()
        page.wait_for_timeout(0)
        return self._ensure_alive()

    def _restore(self, cause: str) -> str:
        """Browser thread: after an operation failed because its target died, bring the session back."""
        notice = self._ensure_alive()
        if notice:
            return notice
        # The page looked alive but the call failed as if it were gone: the browser is probably dying.
        return self._reopen(f"the browser stopped working ({cause})")

    def _reopen(self, reason: str) -> str:
        launches = self.host.launch_count
        lost_url = ""
        if self._page is not None:
            try:
                lost_url = self._page.url
            except PlaywrightError:
                lost_url = ""
        self._close_context()
        self._open_context()
        self.restarts += 1
        relaunched = self.host.launch_count != launches
        what = "the browser was restarted" if relaunched else "a new browser context was opened"
        where = f" (the page was at {lost_url})" if lost_url and lost_url != "about:blank" else ""
        kept = ""
        if self._saved_cookies and self._context is not None:
            with contextlib.suppress(PlaywrightError):
                self._context.add_cookies(self._saved_cookies)
                kept = "; cookies (logins, carts) were kept"
        return f"{reason}; {what}: all tabs were lost and a blank tab is open{where}{kept}"

    def _save_cookies(self) -> None:
        """Browser thread: remember the context's cookies, so a crash does not log the agent out or empty a cart
        (as a real browser keeps them on disk).  One browser-side call, no page involved."""
        if self._context is not None:
            with contextlib.suppress(PlaywrightError):
                self._saved_cookies = list(self._context.cookies())

    def _reopen_quietly(self) -> None:
        self._saved_cookies = []
        self._close_context()
        self._open_context()

    def _open_context(self) -> None:
        last_error: Exception | None = None
        for _attempt in range(3):
            try:
                browser = self.host.browser()
                context = browser.new_context(**self._context_options)
                break
            except PlaywrightError as exc:  # a browser that just died is noticed here; the next try relaunches
                last_error = exc
        else:
            raise BrowserError(f"could not open a browser context: {last_error}")
        context.set_default_timeout(self.action_timeout_s * 1000)
        context.set_default_navigation_timeout(self.navigation_timeout_s * 1000)
        if self.allowed is not None:
            context.route(self.allowed.outside_pattern(), self._route)
        if self.settle_s:
            context.add_init_script(COUNT_REQUESTS_JS)
        context.on("page", self._on_page)
        self._context = context
        self._cdp.clear()
        self._crashed.clear()
        self._scripts_stopped.clear()
        self._blocked.clear()
        self._pending_navigation.clear()
        self._inflight.clear()
        self._announced.clear()
        self._page = context.new_page()
        with contextlib.suppress(PlaywrightError):
            browser_pid_on_thread(self.host)

    def _close_context(self) -> None:
        context, self._context, self._page = self._context, None, None
        self._cdp.clear()
        if context is not None:
            with contextlib.suppress(PlaywrightError):
                context.close()

    # ------------------------------------------------------------------------------------ page events
    def _on_page(self, page: Page) -> None:
        page.on("framenavigated", lambda frame: self._on_navigated(page, frame))
        page.on("request", lambda request: self._on_request(page, request))
        page.on("requestfailed", lambda request: self._on_request_done(page, request, failed=True))
        page.on("requestfinished", lambda request: self._on_request_done(page, request, failed=False))
        page.on("crash", lambda crashed: self._crashed.add(id(crashed)))
        page.on("dialog", self._on_dialog)
        self._page = page
        with contextlib.suppress(PlaywrightError):  # attach while the tab is fresh: a busy tab may never attach
            self._cdp_for(page)

    def _on_request(self, page: Page, request: Request) -> None:
        with contextlib.suppress(PlaywrightError):
            if request.is_navigation_request() and request.frame.parent_frame is None:
                self._pending_navigation[id(page)] = (request, 0.0)
            elif request.resource_type in _SCRIPT_REQUESTS and request.frame.parent_frame is None:
                self._inflight.setdefault(id(page), set()).add(request)
                self._announced[id(page)] = self._announced.get(id(page), 0) + 1

    def _on_request_done(self, page: Page, request: Request, failed: bool) -> None:
        inflight = self._inflight.get(id(page), set())
        if request in inflight:
            inflight.discard(request)
            self._answered += 1
        pending = self._pending_navigation.get(id(page))
        if pending is not None and pending[0] is request:
            if failed:
                del self._pending_navigation[id(page)]
            else:  # answered; the commit (framenavigated) normally follows at once
                self._pending_navigation[id(page)] = (request, time.monotonic())

    def _on_navigated(self, page: Page, frame: Frame) -> None:
        if frame.parent_frame is None:
            self._pending_navigation.pop(id(page), None)
            self._scripts_stopped.pop(id(page), None)  # a new document: its scripts are new
            self._announced[id(page)] = 0  # a new document counts its requests from 0
            self._navigations += 1
            # Server redirects bypass route interception: catch a commit to another origin here.
            if self._outside(frame.url) and frame.url not in self._blocked:
                self._blocked.append(frame.url)

    def _outside(self, url: str) -> bool:
        """True if a page at ``url`` must not be shown (restricted session, foreign origin, not an error page)."""
        return self.allowed is not None and not url.startswith(_ERROR_PAGE_PREFIXES) and not self.allowed.allows(url)

    def _on_dialog(self, dialog: Dialog) -> None:
        self.dialogs.append(f"{dialog.type}: {dialog.message}"[:2000])
        with contextlib.suppress(PlaywrightError):
            dialog.accept()

    def _route(self, route: Route) -> None:
        request = route.request
        assert self.allowed is not None
        if self.allowed.allows(request.url):
            route.fallback()
            return
        try:
            if request.is_navigation_request() and request.frame.parent_frame is None:
                self._blocked.append(request.url)
        except PlaywrightError:
            pass
        route.abort("blockedbyclient")

    # ------------------------------------------------------------------------------------ observation
    def _cdp_for(self, page: Page) -> CDPSession:
        entry = self._cdp.get(id(page))
        if entry is not None and entry[0] is page:
            return entry[1]
        assert self._context is not None
        session = self._context.new_cdp_session(page)
        self._cdp[id(page)] = (page, session)
        return session

    def _cdp_send(self, page: Page, method: str, params: dict[str, Any] | None = None, *,
                  timeout_ms: float | None = None) -> Any:
        return self._cdp_send_all(page, [(method, params)], timeout_ms=timeout_ms)[0]

    def _cdp_send_all(self, page: Page, commands: Sequence[Command], *, timeout_ms: float | None = None) -> list[Any]:
        """Send DevTools commands to ``page`` all at once (see :mod:`personal_envs.browser.cdp`); their results."""
        try:
            return send_concurrently(self._cdp_for(page), commands, timeout_ms=timeout_ms)
        except PlaywrightError as exc:
            if page.is_closed() or not is_dead_target_error(exc):
                raise
            self._cdp.pop(id(page), None)  # the CDP session was detached; attach a new one once
            return send_concurrently(self._cdp_for(page), commands, timeout_ms=timeout_ms)

    def _busy(self, page: Page) -> bool:
        """Browser thread: True if ``page`` cannot run a trivial script within :data:`RESPONSIVE_PROBE_MS`."""
        try:
            self._cdp_send_all(page, [_RESPONSIVE_PROBE], timeout_ms=RESPONSIVE_PROBE_MS)
            return False
        except PlaywrightError:
            return not page.is_closed()

    def _unstick(self) -> str:
        """Browser thread, before a call on the active page: if the page is busy in a script (it does not run a
        trivial one), give it :attr:`busy_patience_s` to finish, then stop the script; a page stuck again right
        after (a timer that starts the loop again) is replaced by a new blank tab.  "" if the page was responsive,
        else what was done.  Costs one round trip to the renderer when the page is responsive."""
        page = self._page
        if page is None or page.is_closed() or id(page) in self._pending_navigation or not self._busy(page):
            return ""  # a pending navigation defers DevTools commands: its own timeout handles it
        if self._recently_stopped(page):
            said = "the page's script, stopped before, kept it busy again"
        else:
            patience = time.monotonic() + self.busy_patience_s
            while time.monotonic() < patience:  # a slow script, or a loaded machine, gets its time
                if page.is_closed() or not self._busy(page):
                    return ""
            said = f"the page's script kept it busy for over {self.busy_patience_s:g} s"
            if self._terminate_script(page):
                return f"{said} and was stopped"
            said += " and started again after it was stopped"
        url = page.url
        self._replace_tab(page)
        return f"{said}; the tab ({url[:200]}) was closed and replaced by a new blank tab"

    def _terminate_script(self, page: Page) -> bool:
        """Browser thread: stop the script running in ``page``; True if the page then answers (twice, a moment
        apart: a timer that restarts the loop at once shows in the second probe)."""
        with contextlib.suppress(PlaywrightError):
            self._cdp_send(page, "Runtime.terminateExecution", timeout_ms=INTERRUPT_TIMEOUT_S * 1000)
        try:  # the first probe also absorbs a termination that found no script running
            self._cdp_send_all(page, [_RESPONSIVE_PROBE], timeout_ms=RESTARTED_PROBE_MS)
            page.wait_for_timeout(RESTART_CHECK_MS)
            self._cdp_send_all(page, [_RESPONSIVE_PROBE], timeout_ms=RESPONSIVE_PROBE_MS)
        except PlaywrightError:
            return False
        self._scripts_stopped[id(page)] = time.monotonic()
        return True

    def _recently_stopped(self, page: Page) -> bool:
        stopped = self._scripts_stopped.get(id(page))
        return stopped is not None and time.monotonic() - stopped < RESTART_WINDOW_S

    def _stop_busy_script(self, page: Page) -> bool:
        """Browser thread: if ``page`` is :meth:`_busy`, terminate the script that keeps it busy.  True if one was
        stopped."""
        if not self._busy(page):
            return False
        with contextlib.suppress(PlaywrightError):
            self._cdp_send(page, "Runtime.terminateExecution", timeout_ms=INTERRUPT_TIMEOUT_S * 1000)
        with contextlib.suppress(PlaywrightError):  # absorbs a termination that found no script running
            self._cdp_send_all(page, [_RESPONSIVE_PROBE], timeout_ms=INTERRUPT_TIMEOUT_S * 1000)
        self._scripts_stopped[id(page)] = time.monotonic()
        return True

    def _evaluate(self, page: Page, function_js: str, *args: Any, await_promise: bool = False) -> Any:
        """Call a page script in the current document over CDP and return its JSON result.

        Unlike ``page.evaluate`` this does not wait while a navigation is pending: it reads the document that is
        on screen, so observing a tab whose next page is slow to answer never blocks.
        """
        return _evaluation_result(self._cdp_send(page, *_evaluate_command(function_js, args, await_promise)))

    def _stamp(self, page: Page) -> dict[str, Any]:
        facts = self._evaluate(page, STAMP_BIDS_JS)
        return facts if isinstance(facts, dict) else {}

    def _walk_options(self) -> Any:
        return _BGYM_WALK_OPTIONS if self.axtree_format == "browsergym" else MAX_TEXT_CHARS

    def _walk_dom(self, page: Page) -> tuple[dict[str, Any], list[list[Any]]]:
        return _walk_result(self._evaluate(page, _STAMP_AND_WALK_JS, self._walk_options()))

    def _observe_raw(self, want_tree: bool, want_shot: bool, marks: bool = False) -> _RawObservation:
        raw = self._observe_raw_retrying(want_tree, want_shot)
        if marks and self.axtree_format == "browsergym" and self._page is not None:
            flagged = self._evaluate(self._page, SOM_FLAGS_JS)
            raw.som_bids = [str(bid) for bid in flagged] if isinstance(flagged, list) else []
        return raw

    def _observe_raw_retrying(self, want_tree: bool, want_shot: bool) -> _RawObservation:
        try:
            return self._observe_raw_once(want_tree, want_shot)
        except PlaywrightError as exc:
            if not want_shot or "Unable to capture screenshot" not in str(exc) or self._page is None:
                raise
            self._page.wait_for_timeout(SCREENSHOT_RETRY_MS)  # a fresh tab has not painted its first frame yet
            return self._observe_raw_once(want_tree, want_shot)

    def _observe_raw_once(self, want_tree: bool, want_shot: bool) -> _RawObservation:
        page = self._page
        assert page is not None and self._context is not None
        late = self._await_navigation(page)  # a navigation started after the last action returned
        if not late and self._navigations != self._waited_navigations:
            # a document committed after the action's own wait (a form a script submitted late): observe it
            # parsed, not the empty document of its first moment
            late = self._wait_loaded(page)
        if late:
            self._pending_notice = _join(self._pending_notice, late)
        if self._outside(page.url):  # a late redirect to a foreign site
            self._pending_notice = _join(self._pending_notice, self._blocked_message(page.url))
            self._leave_blocked_page()
        ax_nodes = snapshot = records = None
        shot_command: list[Command] = [("Page.captureScreenshot", {
            "format": "jpeg", "quality": SCREENSHOT_JPEG_QUALITY, "optimizeForSpeed": True})] if want_shot else []
        # The screenshot is taken in the browser while the renderer builds the tree: both are sent at once.
        # BrowserGym's format needs the DOM snapshot with either backend (clickable flags, boxes, tag names).
        bgym = self.axtree_format == "browsergym"
        snapshot_command: list[Command] = [_DOM_SNAPSHOT] if bgym else []
        if want_tree and self.axtree_backend == "dom":
            walk, *rest = self._cdp_send_all(
                page, [_evaluate_command(_STAMP_AND_WALK_JS, (self._walk_options(),), False), *snapshot_command,
                       *shot_command])
            facts, records = _walk_result(_evaluation_result(walk))
            if bgym:
                snapshot, *rest = rest
        else:
            facts = self._stamp(page)
            if want_tree and self.axtree_backend == "auto" and int(facts.get("textChars") or 0) > AUTO_DOM_TEXT_CHARS:
                facts, records = self._walk_dom(page)
                rest = self._cdp_send_all(page, [*snapshot_command, *shot_command])
                if bgym:
                    snapshot, *rest = rest
            elif want_tree:
                tree, snapshot, *rest = self._cdp_send_all(page, [
                    ("Accessibility.getFullAXTree", None),
                    ("DOMSnapshot.captureSnapshot", {"computedStyles": []}),
                    *shot_command,
                ])
                if bgym and snapshot is not None and bgym_format.has_unstamped_elements(snapshot):
                    # A script added elements between stamping and the tree (an AJAX reply): once more, with bids.
                    facts = self._stamp(page)
                    tree, snapshot = self._cdp_send_all(page, [("Accessibility.getFullAXTree", None), _DOM_SNAPSHOT])
                ax_nodes = tree.get("nodes", [])
            else:
                rest = self._cdp_send_all(page, shot_command)
        shot = rest[0]["data"] if rest else None
        pages = self._context.pages
        return _RawObservation(url=page.url, facts=facts, ax_nodes=ax_nodes, snapshot=snapshot, dom_records=records,
                               screenshot_b64=shot, tabs=tuple(p.url for p in pages),
                               active_tab=pages.index(page) if page in pages else 0)

    def _finish_observation(self, raw: _RawObservation, axtree: bool, want_shot: bool, set_of_marks: bool,
                            error: str) -> PageObservation:
        text = ""
        elements: dict[str, ElementInfo] = {}
        viewport = (float(raw.facts.get("width") or self.viewport[0]),
                    float(raw.facts.get("height") or self.viewport[1]))
        facts = None
        if self.axtree_format == "browsergym" and raw.snapshot is not None:
            facts = bgym_format.index_snapshot(raw.snapshot)
            if raw.ax_nodes is not None:
                text, elements = bgym_format.render_cdp(raw.ax_nodes, facts, viewport)
            elif raw.dom_records is not None:
                text, elements = bgym_format.render_dom(raw.dom_records, facts, viewport)
        elif raw.ax_nodes is not None and raw.snapshot is not None:
            text, elements = render_axtree(raw.ax_nodes, index_dom_snapshot(raw.snapshot))
        elif raw.dom_records is not None:
            text, elements = render_dom_records(raw.dom_records)
        image = None
        if want_shot and raw.screenshot_b64:
            image = decode_image(base64.b64decode(raw.screenshot_b64))
            if set_of_marks and facts is not None and raw.som_bids is not None:
                image = draw_browsergym_marks(image, facts.boxes, raw.som_bids)
            elif set_of_marks:
                image = draw_set_of_marks(image, elements.values(), viewport)
        return PageObservation(
            url=raw.url, title=str(raw.facts.get("title") or ""), axtree=text if axtree else "", screenshot=image,
            tabs=raw.tabs, active_tab=raw.active_tab, focused_bid=str(raw.facts.get("focused") or ""),
            elements=elements, error=error,
        )

    def _safe_url(self) -> str:
        if self._closed or not self.host.running:
            return ""
        try:
            return self.host.call(lambda: self._page.url if self._page is not None else "", timeout=10.0)
        except Exception:
            return ""

    def _safe_tabs(self) -> tuple[str, ...]:
        if self._closed or not self.host.running:
            return ()
        try:
            return self.host.call(
                lambda: tuple(p.url for p in self._context.pages) if self._context is not None else (), timeout=10.0)
        except Exception:
            return ()

    def _take_notice(self) -> str:
        notice, self._pending_notice = self._pending_notice, ""
        return notice

    # ------------------------------------------------------------------------------------------ actions
    def _execute_locked(self, raw: Action | Mapping[str, Any] | str) -> str:
        if self._closed:
            return SESSION_CLOSED
        read = read_browser_action(raw)
        if isinstance(read, str):
            return read
        action, arguments = read
        if action.name == "send_msg_to_user":
            self.messages.append(arguments["text"])
            return self._take_notice()
        if action.name == "report_infeasible":
            self.infeasible_reasons.append(arguments["reason"])
            return self._take_notice()
        handler = getattr(self, f"_do_{action.name}")
        result: list[str] = []
        budget = self.hang_timeout_s + (arguments.get("wait_ms", 0) / 1000.0)
        unstick = action.name != "goto"  # goto leaves a busy page for a new tab at once
        restarts = self.restarts
        notice = self._run(lambda: result.append(self._act(handler, arguments)), budget_s=budget, unstick=unstick,
                           watch_busy=True)
        if not result and notice and action.name in _REDO_AFTER_RECOVERY:  # the page is fresh: do it on the new one
            again = self._run(lambda: result.append(self._act(handler, arguments)), budget_s=budget,
                              unstick=unstick, watch_busy=True)
            notice = _join(notice, again, f"{action.name} was then carried out on the new tab" if result else "")
        elif result and self.restarts != restarts:  # the dead page was found (and replaced) before the action ran
            notice = _join(notice, f"{action.name} was then carried out on the new tab")
        outcome = result[0] if result else f"{action.name} was not carried out" if notice else ""
        return _join(self._take_notice(), notice, outcome)

    def _act(self, handler: Callable[[Page, dict[str, Any]], str], arguments: dict[str, Any]) -> str:
        """Browser thread: run an action handler, then wait for a navigation it started and check blocked URLs."""
        page = self._page
        assert page is not None
        self._blocked.clear()
        navigations = self._navigations
        answered = self._answered
        started = time.monotonic()
        try:
            error = handler(page, arguments)
        except PlaywrightTimeout as exc:
            if "waiting for scheduled navigations" in str(exc):
                error = ""  # the action was done; the navigation it started is awaited below
            else:
                error = f"{_action_name(handler)} timed out: {describe_playwright_error(exc)}"
                if not page.is_closed() and self._stop_busy_script(page):
                    error += "; the page's script kept it busy and was stopped"
        except PlaywrightError as exc:
            if self._target_dead(exc):
                raise
            error = f"{_action_name(handler)} failed: {describe_playwright_error(exc)}"
        active = self._page
        # One navigation timeout for the whole step: a navigating action has spent part of it already.
        navigating = handler.__name__ in ("_do_goto", "_do_go_back", "_do_go_forward")
        deadline = (started if navigating else time.monotonic()) + self.navigation_timeout_s
        if active is not None and not active.is_closed():
            error = _join(error, self._await_navigation(active, deadline))
            if self._navigations != navigations or active is not page:
                error = _join(error, self._wait_loaded(active, deadline))
        if active is not None and not active.is_closed() and (self.settle_s or self.fixed_delay_s):
            self._settle(active, answered)
        if self._blocked or (active is not None and not active.is_closed() and self._outside(active.url)):
            url = self._blocked[0] if self._blocked else active.url if active is not None else ""
            error = _join(self._blocked_message(url), error if "ERR_BLOCKED" not in error else "")
            self._leave_blocked_page()
        self._save_cookies()
        return error

    def _settle(self, page: Page, answered: int) -> None:
        """Browser thread: after an action, wait :attr:`fixed_delay_s`, or until the fetch/XHR requests the page
        sent are answered and their handlers ran (at most :attr:`settle_s`), so that what a script changes in
        place (an AJAX "Add to cart") is on the page that is observed next."""
        with contextlib.suppress(PlaywrightError):
            if self.fixed_delay_s:
                page.wait_for_timeout(self.fixed_delay_s * 1000)
                return
            deadline = time.monotonic() + self.settle_s
            while True:
                # every request the document started has been announced (its event can trail the action) and
                # answered; then one frame, for the handlers of the answers to run
                started = self._evaluate(page, SCRIPT_REQUESTS_STARTED_JS)
                if (not isinstance(started, int) or started <= self._announced.get(id(page), 0)) \
                        and not self._inflight.get(id(page)):
                    if self._answered == answered:
                        return  # the action started no request and none was answered meanwhile
                    self._evaluate(page, NEXT_FRAMES_JS, await_promise=True)
                    if not self._inflight.get(id(page)):
                        return
                left = deadline - time.monotonic()
                if left <= 0:
                    return
                page.wait_for_timeout(min(SETTLE_POLL_MS, left * 1000))

    def _await_navigation(self, page: Page, deadline: float | None = None) -> str:
        """Wait (up to the navigation timeout) for a navigation the action started to commit; "" or why not."""
        deadline = min(deadline or math.inf, time.monotonic() + self.navigation_timeout_s)
        while (pending := self._pending_navigation.get(id(page))) is not None:
            now = time.monotonic()
            if pending[1] and now - pending[1] > NO_COMMIT_GRACE_S:  # answered without a new page (204, download)
                self._pending_navigation.pop(id(page), None)
                break
            if now >= deadline:
                # Chromium defers DevTools commands to a tab while its navigation is pending, so a page that never
                # answers would freeze every later observation: stop loading, as a user pressing Esc would.
                self._pending_navigation.pop(id(page), None)
                with contextlib.suppress(PlaywrightError):
                    self._cdp_send(page, "Page.stopLoading", timeout_ms=INTERRUPT_TIMEOUT_S * 1000)
                return (f"the next page did not load within {self.navigation_timeout_s:g} s; "
                        f"loading of {pending[0].url[:200]} was stopped")
            with contextlib.suppress(PlaywrightTimeout):
                page.wait_for_event("framenavigated", timeout=max(1.0, min(0.1, deadline - now) * 1000))
        return ""

    def _blocked_message(self, url: str) -> str:
        assert self.allowed is not None
        shown = url if len(url) <= 300 else url[:299] + "…"
        return f"blocked: {shown} is outside the allowed sites ({self.allowed.describe()})"

    def _leave_blocked_page(self) -> None:
        """Go back from a blocked navigation's error page or a foreign page reached by redirect."""
        page = self._page
        self._blocked.clear()
        if page is None or page.is_closed():
            return
        for leave in (page.go_back, lambda **kw: page.goto("about:blank", **kw)):
            url = page.url
            if not (url.startswith(_ERROR_PAGE_PREFIXES) or self._outside(url)):
                break
            with contextlib.suppress(PlaywrightError):
                leave(wait_until="domcontentloaded", timeout=self.navigation_timeout_s * 1000)
        self._blocked.clear()

    def _wait_loaded(self, page: Page, deadline: float | None = None) -> str:
        """Wait for DOMContentLoaded (until ``deadline``, at most the navigation timeout), then briefly for
        ``load``; "" or a timeout message."""
        self._waited_navigations = self._navigations
        left = self.navigation_timeout_s if deadline is None else deadline - time.monotonic()
        left = max(MIN_WAIT_S, min(left, self.navigation_timeout_s))
        try:
            page.wait_for_load_state("domcontentloaded", timeout=left * 1000)
        except PlaywrightTimeout:
            return f"the page did not finish loading within {self.navigation_timeout_s:g} s"
        with contextlib.suppress(PlaywrightTimeout):
            page.wait_for_load_state("load", timeout=min(LOAD_GRACE_S, left) * 1000)
        return ""

    def _inspect(self, page: Page, bid_text: str, verb: str) -> tuple[str, dict[str, Any] | None]:
        """Find the element of a bid; returns (bid, facts) or an error text in place of the bid."""
        match = _BID_PATTERN.match(bid_text.strip())
        if match is None:
            return f"'{bid_text[:60]}' is not a valid bid; use the number in brackets from the AX tree", None
        bid = match.group(1)
        facts = self._evaluate(page, INSPECT_ELEMENT_JS, bid)
        if not facts:
            return (f"no element with bid '{bid}' on the current page ({page.url[:200]}); "
                    "use a bid from the latest observation"), None
        if not facts["visible"] and facts["tag"] != "option":
            return f"element [{bid}] {_describe(facts)} is not visible, so it cannot be {verb}", None
        if facts["disabled"]:
            return f"element [{bid}] {_describe(facts)} is disabled, so it cannot be {verb}", None
        return bid, facts

    def _locator(self, page: Page, bid: str) -> Any:
        return page.locator(f'[{BID_ATTRIBUTE}="{bid}"]').first

    @property
    def _action_ms(self) -> float:
        return self.action_timeout_s * 1000

    def _do_click(self, page: Page, arguments: dict[str, Any]) -> str:
        bid, facts = self._inspect(page, arguments["bid"], "clicked")
        if facts is None:
            return bid
        if facts["tag"] == "option" and facts["selectBid"]:
            self._locator(page, facts["selectBid"]).select_option(value=facts["optionValue"], timeout=self._action_ms)
            return ""
        self._locator(page, bid).click(timeout=self._action_ms)
        return ""

    def _do_click_xy(self, page: Page, arguments: dict[str, Any]) -> str:
        x, y = float(arguments["x"]), float(arguments["y"])
        size = page.viewport_size
        width, height = (size["width"], size["height"]) if size else self.viewport
        if x >= width or y >= height:
            return f"({x:g}, {y:g}) is outside the {width}x{height} viewport"
        page.mouse.click(x, y)
        return ""

    def _do_fill(self, page: Page, arguments: dict[str, Any]) -> str:
        bid, facts = self._inspect(page, arguments["bid"], "filled")
        if facts is None:
            return bid
        if not facts["editable"]:
            return (f"element [{bid}] {_describe(facts)} is not a text field; fill works on text inputs, textareas "
                    "and editable elements")
        if facts["readonly"]:
            return f"element [{bid}] {_describe(facts)} is read-only"
        value = arguments["value"]
        locator = self._locator(page, bid)
        if len(value) > DIRECT_FILL_CHARS:
            locator.evaluate(SET_VALUE_JS, value, timeout=self._action_ms)
        else:
            locator.fill(value, timeout=self._action_ms)
        return ""

    def _do_select_option(self, page: Page, arguments: dict[str, Any]) -> str:
        bid, facts = self._inspect(page, arguments["bid"], "selected")
        if facts is None:
            return bid
        if facts["tag"] != "select":
            return f"element [{bid}] {_describe(facts)} is not a <select>; click it to choose among its items"
        wanted = [str(option) for option in arguments["options"]]
        available = {text for pair in facts["options"] for text in pair}
        missing = [option for option in wanted if option not in available]
        if not wanted or missing:
            labels = ", ".join(repr(label) for label, _value in facts["options"][:30])
            return f"no option of [{bid}] matches {missing or wanted}; its options are: {labels}"
        self._locator(page, bid).select_option(wanted, timeout=self._action_ms)
        return ""

    def _do_press(self, page: Page, arguments: dict[str, Any]) -> str:
        key = arguments["key_comb"].strip()
        if not key:
            return "press needs a key, e.g. 'Enter' or 'Control+a'"
        if arguments.get("bid") is None:
            page.keyboard.press(key)
            return ""
        bid, facts = self._inspect(page, arguments["bid"], "focused")
        if facts is None:
            return bid
        self._locator(page, bid).press(key, timeout=self._action_ms)
        return ""

    def _do_scroll(self, page: Page, arguments: dict[str, Any]) -> str:
        page.mouse.wheel(float(arguments["delta_x"]), float(arguments["delta_y"]))
        self._evaluate(page, NEXT_FRAMES_JS, await_promise=True)
        return ""

    def _do_hover(self, page: Page, arguments: dict[str, Any]) -> str:
        bid, facts = self._inspect(page, arguments["bid"], "hovered")
        if facts is None:
            return bid
        self._locator(page, bid).hover(timeout=self._action_ms)
        return ""

    def _do_goto(self, page: Page, arguments: dict[str, Any]) -> str:
        url = arguments["url"].strip()
        if not url:
            return "goto needs a URL"
        scheme_match = _SCHEME_PATTERN.match(url)
        scheme = scheme_match.group(1).lower() if scheme_match else ""
        if scheme not in NAVIGABLE_SCHEMES:
            if scheme in _FORBIDDEN_SCHEMES or (scheme and url[len(scheme) + 1:].startswith("//")):
                return f"cannot open '{url[:200]}': only http(s), about:blank and data: URLs can be opened"
            url = "http://" + url  # "example.com/x" or "localhost:8000/x"
        if FORBIDDEN_URL_PATTERN.match(url):
            return f"blocked: {url[:200]} is a link-local or cloud-metadata address, which no page may load"
        if self.allowed is not None and not self.allowed.allows(url):
            return self._blocked_message(url)
        notice = ""
        if self._busy(page):
            # A tab whose script is running cannot be navigated away from (its unload waits for the script), and a
            # page that starts the script again (a timer) would block every later navigation: leave it for a new tab.
            page, notice = self._replace_tab(page), "the page's script kept it busy; it was closed and replaced by a new tab"
        try:
            page.goto(url, wait_until="domcontentloaded", timeout=self.navigation_timeout_s * 1000)
        except PlaywrightTimeout:
            stopped = self._stop_busy_script(page)  # the parser then goes on: the page still loads
            if not stopped:
                with contextlib.suppress(PlaywrightError):  # like pressing Esc: stay on the page that is shown
                    self._cdp_send(page, "Page.stopLoading", timeout_ms=INTERRUPT_TIMEOUT_S * 1000)
            return _join(notice, f"navigation to {url[:300]} timed out after {self.navigation_timeout_s:g} s"
                         + ("; the page's script kept it busy and was stopped" if stopped else ""))
        except PlaywrightError as exc:
            if self._target_dead(exc):
                raise
            if "ERR_BLOCKED_BY_CLIENT" in str(exc) and self._blocked:
                return notice  # reported by _act as blocked
            return _join(notice, f"navigation to {url[:300]} failed: {describe_playwright_error(exc)}")
        return notice

    def _replace_tab(self, page: Page) -> Page:
        """Browser thread: close ``page`` (crashing its renderer first: a busy page may not close) and make a new
        blank tab the active one; the new tab."""
        context = self._context
        assert context is not None
        self._crashed.add(id(page))
        fresh = context.new_page()
        with contextlib.suppress(PlaywrightError):
            page.close(run_before_unload=False)
        self._cdp.pop(id(page), None)
        self._page = fresh
        return fresh

    def _do_go_back(self, page: Page, arguments: dict[str, Any]) -> str:
        before = page.url
        response = page.go_back(wait_until="domcontentloaded", timeout=self.navigation_timeout_s * 1000)
        if response is None and page.url == before:
            return "cannot go back: there is no earlier page in this tab's history"
        return ""

    def _do_go_forward(self, page: Page, arguments: dict[str, Any]) -> str:
        before = page.url
        response = page.go_forward(wait_until="domcontentloaded", timeout=self.navigation_timeout_s * 1000)
        if response is None and page.url == before:
            return "cannot go forward: there is no later page in this tab's history"
        return ""

    def _do_new_tab(self, page: Page, arguments: dict[str, Any]) -> str:
        assert self._context is not None
        self._page = self._context.new_page()
        return ""

    def _do_tab_focus(self, page: Page, arguments: dict[str, Any]) -> str:
        assert self._context is not None
        pages = self._context.pages
        index = int(arguments["index"])
        if not 0 <= index < len(pages):
            return f"there is no tab {index}; open tabs are 0..{len(pages) - 1}"
        self._page = pages[index]
        self._page.bring_to_front()
        return ""

    def _do_tab_close(self, page: Page, arguments: dict[str, Any]) -> str:
        assert self._context is not None
        pages = self._context.pages
        index = pages.index(page) if page in pages else 0
        page.close()
        remaining = self._context.pages
        if remaining:
            self._page = remaining[max(0, index - 1)]
            self._page.bring_to_front()
        else:
            self._page = self._context.new_page()
        return ""

    def _do_noop(self, page: Page, arguments: dict[str, Any]) -> str:
        wait_ms = min(int(arguments.get("wait_ms") or 0), MAX_WAIT_MS)
        if wait_ms > 0:
            page.wait_for_timeout(wait_ms)
        return ""


def _evaluate_command(function_js: str, args: Sequence[Any], await_promise: bool) -> Command:
    """The ``Runtime.evaluate`` command that calls ``function_js`` with JSON arguments and returns by value."""
    call = f"({function_js})({', '.join(json.dumps(arg) for arg in args)})"
    return "Runtime.evaluate", {"expression": call, "returnByValue": True, "awaitPromise": await_promise,
                                "userGesture": False}


def _evaluation_result(reply: Mapping[str, Any]) -> Any:
    """The value of a ``Runtime.evaluate`` reply; a script exception becomes a Playwright error."""
    details = reply.get("exceptionDetails")
    if details:
        exception = details.get("exception") or {}
        raise PlaywrightError(f"page script failed: {exception.get('description') or details.get('text')}")
    return (reply.get("result") or {}).get("value")


def _walk_result(result: Any) -> tuple[dict[str, Any], list[list[Any]]]:
    """``(page facts, AX records)`` from the value of the stamp-and-walk script."""
    result = result if isinstance(result, dict) else {}
    return dict(result.get("facts") or {}), list((result.get("tree") or {}).get("nodes") or [])


def _describe(facts: Mapping[str, Any]) -> str:
    label = str(facts.get("label") or "")
    kind = f"<{facts.get('tag', '?')}" + (f" type={facts['type']}" if facts.get("type") else "") + ">"
    return f"{kind} '{label}'" if label else kind


def _action_name(handler: Callable[..., Any]) -> str:
    return getattr(handler, "__name__", "action").removeprefix("_do_")


def _join(*parts: str) -> str:
    return "; ".join(part for part in parts if part)

