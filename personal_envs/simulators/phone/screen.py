"""The phone's screen: one Chromium page at phone size that shows what :class:`Phone` renders.

Touches arrive in 1080x2400 device pixels and are dispatched as real touch / mouse events at the matching CSS
position; the page queues what they hit and :meth:`PhoneScreen.drain` hands those events to Python.  The hierarchy
dump (``ui_xml``) comes from one JavaScript walk of the rendered DOM.
"""

from __future__ import annotations

import base64
import contextlib
import io
import time
from typing import Any

import numpy as np
from PIL import Image

from personal_envs.browser.host import BrowserHost
from personal_envs.simulators.phone.assets import static_text
from personal_envs.simulators.phone.geometry import (
    PIXELS_PER_CSS,
    VIEWPORT_HEIGHT,
    VIEWPORT_WIDTH,
    screenshot_size,
)

LONG_PRESS_MS = 550
#: Chromium counts a touch tap that starts within about 0.35 s and 25 CSS px of the previous one as its second tap
#: (a double tap selects a word in a text field).  Separate ``click`` actions are separate taps, as on a device
#: where an agent's steps are seconds apart: a tap this soon and this near after the last one waits first.
TAP_SEPARATION_S = 0.5
TAP_SEPARATION_CSS = 40.0


def shell_html() -> str:
    """The page the screen loads once: the shell with the stylesheet and runtime inlined."""
    page = static_text("shell.html")
    return page.replace("/*CSS*/", static_text("phone.css")).replace("/*JS*/", static_text("phone.js"))


class ScreenError(RuntimeError):
    """The page could not be driven (browser gone); the screen reopens itself on the next call."""


class PhoneScreen:
    """A headless Chromium page showing the phone.

    Args:
        host: Browser host; by default the screen starts its own Chromium and :meth:`close` stops it.  Pass
            ``BrowserHost.acquire()`` with ``release_host=True`` to share one Chromium between envs of a process
            (close then releases it; the last user stops it).
        screenshot_scale: Screenshot size as a fraction of 1080x2400 (1/3 gives 360x800, 0.5 gives 540x1200).
        image_format: ``"jpeg"`` (faster) or ``"png"`` (lossless).
    """

    def __init__(self, host: BrowserHost | None = None, screenshot_scale: float = 1 / 3, image_format: str = "jpeg",
                 *, release_host: bool = False) -> None:
        if not 0.1 <= screenshot_scale <= 1.0:
            raise ValueError("screenshot_scale must lie in [0.1, 1.0]")
        if image_format not in ("jpeg", "png"):
            raise ValueError("image_format must be 'jpeg' or 'png'")
        self._owns_host = host is None
        self._release_host = release_host
        self.host = host or BrowserHost()
        self.screenshot_scale = screenshot_scale
        self.image_format = image_format
        self._context: Any = None
        self._page: Any = None
        self._crashed = False
        self._cdp: Any = None
        self._html = ""
        self._key = ""
        self._last_html = ""
        self.reopen_count = 0
        self._last_tap: tuple[float, float, float] | None = None  # (monotonic time, CSS x, CSS y)
        #: Why the page had to be reopened since :meth:`take_notice` was last called ("" if it was not).
        self.notice = ""

    # ----------------------------------------------------------------------------------------- lifecycle
    @property
    def shape(self) -> tuple[int, int, int]:
        """(height, width, 3) of screenshots."""
        width, height = screenshot_size(self.screenshot_scale)
        return height, width, 3

    def _open(self) -> None:
        """Browser thread: a new context and page with the shell loaded."""
        self._close_page()
        browser = self.host.browser()
        self._context = browser.new_context(
            viewport={"width": VIEWPORT_WIDTH, "height": VIEWPORT_HEIGHT},
            device_scale_factor=1,
            has_touch=True,
            is_mobile=True,
            locale="en-US",
            service_workers="block",
        )
        self._context.route("**/*", lambda route: route.abort())  # nothing leaves the page
        self._page = self._context.new_page()
        self._crashed = False
        self._page.on("crash", lambda _page: setattr(self, "_crashed", True))
        self._cdp = self._context.new_cdp_session(self._page)
        self._page.set_content(shell_html())
        self._html = ""
        if self._key:
            self._page.evaluate("([h, k]) => window.__phone.show(h, k)", [self._last_html, self._key])
            self._html = self._last_html

    def _alive(self) -> bool:
        """Browser thread: the page is open, not crashed, and belongs to the host's live Chromium."""
        try:
            return (self._page is not None and not self._page.is_closed() and not self._crashed
                    and self.host.is_current(self._context.browser))
        except Exception:
            return False

    def take_notice(self) -> str:
        """What happened to the screen's browser since the last call ("" if nothing), and forget it."""
        notice, self.notice = self.notice, ""
        return notice

    def _reopen(self, why: str) -> None:
        self.reopen_count += 1
        self._open()
        self.notice = (f"the phone's browser {why} and was restarted; the screen was restored and the action "
                       "was carried out on it")

    def _run(self, fn: Any) -> Any:
        """Run ``fn(page)`` on the browser thread.  If the browser or page died (before or during the call), the
        page is reopened with the last screen shown and ``fn`` runs once more (touch events that never reached
        Python are lost with the dead page, so nothing is applied twice); :attr:`notice` says so."""

        def call() -> Any:
            if not self._alive():
                if self._page is not None:
                    self._reopen("had crashed")
                else:
                    self._open()
            try:
                return fn(self._page)
            except Exception as exc:
                if self._alive():
                    raise
                self._reopen(f"crashed ({type(exc).__name__})")
            try:
                return fn(self._page)
            except Exception as exc:
                raise ScreenError(f"the phone screen failed again after a restart ({type(exc).__name__}: "
                                  f"{str(exc)[:200]})") from exc

        return self.host.call(call)

    def start(self) -> None:
        """Open the page now (otherwise the first action does)."""
        self._run(lambda page: None)

    def reset(self) -> None:
        """Forget scroll positions and queued events (between episodes; the page is reused)."""
        self._html = ""
        self._key = ""
        self._run(lambda page: page.evaluate("() => window.__phone.reset()"))

    def close(self) -> None:
        """Close the page and its context, and Chromium with its thread when the screen started them."""
        if self._context is not None and self.host.running:
            with contextlib.suppress(Exception):  # the browser may already be gone
                self.host.call(self._close_page, timeout=10)
        self._context = None
        self._page = None
        if self._owns_host:
            self.host.close()
        elif self._release_host:
            self._release_host = False
            BrowserHost.release(self.host)

    def _close_page(self) -> None:
        try:
            if self._context is not None:
                self._context.close()
        except Exception:  # noqa: S110
            pass
        self._context = None
        self._page = None
        self._cdp = None

    # ----------------------------------------------------------------------------------------- input
    @staticmethod
    def _css(x: float, y: float) -> tuple[float, float]:
        return x / PIXELS_PER_CSS, y / PIXELS_PER_CSS

    def tap(self, x: float, y: float, count: int = 1) -> dict[str, Any]:
        """Tap (``count`` times) at device pixel (x, y); returns the drained page events."""
        cx, cy = self._css(x, y)
        self._separate_from_last_tap(cx, cy)

        def run(page: Any) -> Any:
            for _ in range(count):
                page.touchscreen.tap(cx, cy)
            return page.evaluate("() => window.__phone.drain()")

        try:
            return dict(self._run(run))
        finally:
            self._last_tap = (time.monotonic(), cx, cy)

    def _separate_from_last_tap(self, cx: float, cy: float) -> None:
        """Wait until a tap at (cx, cy) cannot join the previous tap into a double tap (see
        :data:`TAP_SEPARATION_S`)."""
        if self._last_tap is None:
            return
        when, last_x, last_y = self._last_tap
        if abs(cx - last_x) + abs(cy - last_y) > TAP_SEPARATION_CSS:
            return
        remaining = TAP_SEPARATION_S - (time.monotonic() - when)
        if remaining > 0:
            time.sleep(remaining)

    def long_press(self, x: float, y: float) -> dict[str, Any]:
        """Press and hold at device pixel (x, y)."""
        cx, cy = self._css(x, y)

        def run(page: Any) -> Any:
            page.mouse.move(cx, cy)
            page.mouse.down()
            page.wait_for_timeout(LONG_PRESS_MS)
            page.mouse.up()
            return page.evaluate("() => window.__phone.drain()")

        return dict(self._run(run))

    def drag(self, x0: float, y0: float, x1: float, y1: float) -> dict[str, Any]:
        """Swipe from one device pixel to another (pointer down, moves, up)."""
        (sx, sy), (ex, ey) = self._css(x0, y0), self._css(x1, y1)

        def run(page: Any) -> Any:
            page.mouse.move(sx, sy)
            page.mouse.down()
            page.mouse.move(ex, ey, steps=6)
            page.mouse.up()
            return page.evaluate("() => window.__phone.drain()")

        return dict(self._run(run))

    def type_text(self, text: str) -> dict[str, Any] | None:
        """Type into the focused field; ``None`` when no field has focus."""

        def run(page: Any) -> Any:
            if not page.evaluate("() => window.__phone.focusedField()"):
                return None
            page.keyboard.insert_text(text)
            return page.evaluate("() => window.__phone.drain()")

        result = self._run(run)
        return None if result is None else dict(result)

    def press_enter(self) -> dict[str, Any]:
        """Press the keyboard's Enter key."""

        def run(page: Any) -> Any:
            page.keyboard.press("Enter")
            return page.evaluate("() => window.__phone.drain()")

        return dict(self._run(run))

    def focused_field(self) -> str:
        """Name of the focused text field ('' when none)."""
        return str(self._run(lambda page: page.evaluate("() => window.__phone.focusedField()")))

    # ----------------------------------------------------------------------------------------- output
    def show(self, html: str, key: str) -> None:
        """Display rendered HTML (skipped when nothing changed)."""
        if html == self._html and key == self._key:
            return
        self._last_html = html

        def run(page: Any) -> None:
            page.evaluate("([h, k]) => window.__phone.show(h, k)", [html, key])

        self._run(run)
        self._html, self._key = html, key

    def capture(self, screenshot: bool) -> tuple[np.ndarray | None, str]:
        """The hierarchy dump and (optionally) a screenshot as an (H, W, 3) uint8 array."""

        def run(page: Any) -> tuple[bytes | None, str]:
            xml = page.evaluate("() => window.__phone.dump()")
            image = None
            if screenshot:
                # A raw DevTools capture is several times faster than page.screenshot(), which also waits for fonts
                # and re-lays out the page; the page is static between actions, so nothing is lost.
                clip = {"x": 0, "y": 0, "width": VIEWPORT_WIDTH, "height": VIEWPORT_HEIGHT,
                        "scale": self.screenshot_scale * PIXELS_PER_CSS}
                params: dict[str, Any] = {"format": self.image_format, "optimizeForSpeed": True, "clip": clip}
                if self.image_format == "jpeg":
                    params["quality"] = 80
                image = base64.b64decode(self._cdp.send("Page.captureScreenshot", params)["data"])
            return image, xml

        raw, xml = self._run(run)
        if raw is None:
            return None, str(xml)
        with Image.open(io.BytesIO(raw)) as picture:
            array = np.asarray(picture.convert("RGB"), dtype=np.uint8)
        height, width, _ = self.shape
        if array.shape[:2] != (height, width):
            array = np.asarray(Image.fromarray(array).resize((width, height)), dtype=np.uint8)
        return array, str(xml)
