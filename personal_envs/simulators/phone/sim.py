"""The embedded backend: device actions on a :class:`Phone` shown in a :class:`PhoneScreen`.

:class:`PhoneSimulator` turns the device actions of the action set (click, double_tap, long_press, drag, input_text,
scroll, navigate_home, navigate_back, keyboard_enter, open_app, wait) into touches on the page and updates of the
phone; agent-level actions (answer, status, ask_user, finished) belong to the env.
"""

from __future__ import annotations

from datetime import timedelta
from typing import TYPE_CHECKING, Any

import numpy as np

from personal_envs.core.actions import ActionError
from personal_envs.simulators.phone.geometry import SCREEN_HEIGHT, SCREEN_WIDTH, on_screen
from personal_envs.simulators.phone.phone import Phone, UnknownAppError
from personal_envs.simulators.phone.screen import PhoneScreen

if TYPE_CHECKING:
    from personal_envs.simulators.phone.textscreen import TextScreen

#: Device actions this backend executes.
DEVICE_ACTIONS: frozenset[str] = frozenset({
    "click", "double_tap", "long_press", "drag", "input_text", "scroll", "swipe", "navigate_home", "navigate_back",
    "keyboard_enter", "open_app", "wait",
})

#: Swipe used by ``scroll``: direction -> (start, end) in device pixels.  "down" reveals content further down.
SCROLL_SWIPES: dict[str, tuple[tuple[int, int], tuple[int, int]]] = {
    "down": ((540, 1700), (540, 900)),
    "up": ((540, 900), (540, 1700)),
    "left": ((900, 1200), (180, 1200)),
    "right": ((180, 1200), (900, 1200)),
}

#: The official ``swipe`` (``AndroidController.swipe``): from (x, y), by two fifths of the screen width vertically and
#: one fifth horizontally (``unit = int(width / 10) * 2``), in the finger's direction.
SWIPE_UNIT = int(SCREEN_WIDTH / 10) * 2
SWIPE_OFFSETS: dict[str, tuple[int, int]] = {"up": (0, -2 * SWIPE_UNIT), "down": (0, 2 * SWIPE_UNIT),
                                             "left": (-SWIPE_UNIT, 0), "right": (SWIPE_UNIT, 0)}


def swipe_path(args: dict[str, Any]) -> tuple[tuple[int, int], tuple[int, int]]:
    """Start and end of a ``swipe`` (``direction``, optional ``x``, ``y``: the screen centre by default), the end
    kept on the screen.

    Raises:
        ActionError: an unknown direction or a start off the screen.
    """
    direction = str(args.get("direction") or "").lower()
    if direction not in SWIPE_OFFSETS:
        raise ActionError(f"swipe direction must be one of {sorted(SWIPE_OFFSETS)}, got {direction!r}")
    x = SCREEN_WIDTH // 2 if args.get("x") is None else int(args["x"])
    y = SCREEN_HEIGHT // 2 if args.get("y") is None else int(args["y"])
    if not on_screen(x, y):
        raise ActionError(f"swipe start ({x}, {y}) is outside the {SCREEN_WIDTH}x{SCREEN_HEIGHT} screen")
    dx, dy = SWIPE_OFFSETS[direction]
    return (x, y), (min(max(x + dx, 0), SCREEN_WIDTH - 1), min(max(y + dy, 0), SCREEN_HEIGHT - 1))


#: Simulated seconds that pass per action (``wait`` lets more time pass).
SECONDS_PER_ACTION = 5
WAIT_SECONDS = 60


class PhoneSimulator:
    """A simulated phone driven by device actions.

    Args:
        screen: The page that shows the phone (a new :class:`PhoneScreen` by default), or a
            :class:`~personal_envs.simulators.phone.textscreen.TextScreen` (the same screen without a browser).
    """

    name = "sim"

    def __init__(self, screen: PhoneScreen | TextScreen | None = None) -> None:
        self.screen: PhoneScreen | TextScreen = screen or PhoneScreen()
        self.phone = Phone()

    @property
    def screenshot_shape(self) -> tuple[int, int, int]:
        return self.screen.shape

    @property
    def screenshot_scale(self) -> float:
        return self.screen.screenshot_scale

    def reset(self, phone: Phone) -> None:
        """Show a freshly seeded phone."""
        self.phone = phone
        self.screen.reset()
        self.render()

    def render(self) -> None:
        html, key = self.phone.render()
        self.screen.show(html, key)

    def execute(self, name: str, args: dict[str, Any]) -> None:
        """Apply one device action; raises :class:`ActionError` with a message for the agent."""
        phone = self.phone
        phone.device.now += timedelta(seconds=WAIT_SECONDS if name == "wait" else SECONDS_PER_ACTION)
        try:
            if name in ("click", "double_tap", "long_press"):
                x, y = self._point(args["x"], args["y"], name)
                if name == "long_press":
                    result = self.screen.long_press(x, y)
                else:
                    result = self.screen.tap(x, y, 2 if name == "double_tap" else 1)
                phone.handle_events(result["events"])
            elif name == "drag":
                x0, y0 = self._point(args["start_x"], args["start_y"], "drag start")
                x1, y1 = self._point(args["end_x"], args["end_y"], "drag end")
                phone.handle_events(self.screen.drag(x0, y0, x1, y1)["events"])
            elif name == "scroll":
                direction = str(args["direction"]).lower()
                if direction not in SCROLL_SWIPES:
                    raise ActionError(f"scroll direction must be one of {sorted(SCROLL_SWIPES)}, got {direction!r}")
                (x0, y0), (x1, y1) = SCROLL_SWIPES[direction]
                phone.handle_events(self.screen.drag(x0, y0, x1, y1)["events"])
            elif name == "swipe":
                (x0, y0), (x1, y1) = swipe_path(args)
                phone.handle_events(self.screen.drag(x0, y0, x1, y1)["events"])
            elif name == "input_text":
                typed = self.screen.type_text(str(args["text"]))
                if typed is None:
                    raise ActionError("no text field is focused; tap a text field first, then call input_text")
                phone.handle_events(typed["events"])
            elif name == "keyboard_enter":
                phone.handle_events(self.screen.press_enter()["events"])
            elif name == "navigate_home":
                phone.home()
            elif name == "navigate_back":
                phone.back()
            elif name == "open_app":
                try:
                    phone.open_app(str(args["app_name"]))
                except UnknownAppError as exc:
                    raise ActionError(str(exc)) from None
            elif name == "wait":
                pass
            else:
                raise ActionError(f"{name} is not a device action")
        finally:
            self.render()

    @staticmethod
    def _point(x: Any, y: Any, what: str) -> tuple[float, float]:
        fx, fy = float(x), float(y)
        if not on_screen(fx, fy):
            raise ActionError(
                f"{what} at ({fx:g}, {fy:g}) is outside the {SCREEN_WIDTH}x{SCREEN_HEIGHT} screen; "
                f"x must lie in [0, {SCREEN_WIDTH - 1}] and y in [0, {SCREEN_HEIGHT - 1}]"
            )
        return fx, fy

    def observe(self, screenshot: bool = True) -> tuple[np.ndarray | None, str]:
        """(screenshot or None, ui_xml) of the current screen."""
        return self.screen.capture(screenshot)

    def take_notice(self) -> str:
        """What happened to the screen's browser since the last call ("" if nothing)."""
        return self.screen.take_notice()

    def context(self) -> dict[str, Any]:
        """Device context for the observation (time, place, battery, radios)."""
        device = self.phone.device
        return {"text": device.context_text(), "time": f"{device.now:%Y-%m-%d %H:%M}", "location": device.location}

    def close(self) -> None:
        self.screen.close()
