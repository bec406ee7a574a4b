"""``backend="android"``: the KnowU env over uiautomator2 against a real device or an emulator.

Observations have the same formats as the simulator: a screenshot scaled to ``screenshot_scale`` of 1080x2400 and the
uiautomator hierarchy dump.  Actions arrive in 1080x2400 coordinates and are scaled to the device's resolution.
Device context (clock, location) is set through ``adb shell`` (root on an emulator image).

Limits: app state on the device is whatever the emulator snapshot holds (see ``docker/knowu/README.md``); the
rule verifiers read the simulator's app stores, so on this backend episodes report that rule verification is
unavailable instead of a score.
"""

from __future__ import annotations

import base64
import subprocess
import time
import warnings
from collections.abc import Mapping
from datetime import datetime
from typing import Any

import numpy as np
from PIL import Image

from personal_envs.core.actions import ActionError
from personal_envs.simulators.phone.apps import app_classes
from personal_envs.simulators.phone.geometry import SCREEN_HEIGHT, SCREEN_WIDTH, on_screen, screenshot_size
from personal_envs.simulators.phone.phone import Phone
from personal_envs.simulators.phone.sim import SCROLL_SWIPES, swipe_path
from personal_envs.simulators.phone.uixml import parse_ui_xml

INSTALL_HINT = "uiautomator2 is not installed; install the Android extra with: pip install 'personal-envs[android]'"

#: App label -> Android package on the reference emulator image (the simulator uses the same package names).
PACKAGES: dict[str, str] = {cls.label.lower(): cls.package for cls in app_classes()}
for _cls in app_classes():
    for _alias in (_cls.key, *_cls.aliases):
        PACKAGES.setdefault(_alias.lower(), _cls.package)

Call = tuple[str, tuple[Any, ...], dict[str, Any]]


class AndroidUnavailable(RuntimeError):
    """uiautomator2 is missing or no device answered; the message says what to do."""


def connect(serial: str | None) -> Any:
    """Connect to a device with uiautomator2 (imported lazily)."""
    try:
        import uiautomator2
    except ImportError:
        raise AndroidUnavailable(INSTALL_HINT) from None
    try:
        device = uiautomator2.connect(serial) if serial else uiautomator2.connect()
        device.info  # noqa: B018 - forces the connection
    except Exception as exc:
        target = serial or "the default adb device"
        raise AndroidUnavailable(
            f"could not reach {target} through uiautomator2 ({type(exc).__name__}: {exc}). Start an emulator "
            "(docker/knowu/README.md), check that `adb devices` lists it, and pass device_serial='emulator-5554' "
            "(or your serial) to the env."
        ) from None
    return device


def translate(name: str, args: dict[str, Any], device_size: tuple[int, int],
              packages: Mapping[str, str] | None = None, adb_keyboard: bool = False) -> list[Call]:
    """The uiautomator2 calls (method, args, kwargs) that perform a device action on a device of ``device_size``.

    Raises:
        ActionError: for coordinates off the screen, unknown apps or non-device actions.
    """
    width, height = device_size
    sx, sy = width / SCREEN_WIDTH, height / SCREEN_HEIGHT

    def point(x: Any, y: Any) -> tuple[int, int]:
        fx, fy = float(x), float(y)
        if not on_screen(fx, fy):
            raise ActionError(f"({fx:g}, {fy:g}) is outside the {SCREEN_WIDTH}x{SCREEN_HEIGHT} screen")
        return round(fx * sx), round(fy * sy)

    if name == "click":
        return [("click", point(args["x"], args["y"]), {})]
    if name == "double_tap":
        return [("double_click", point(args["x"], args["y"]), {})]
    if name == "long_press":
        return [("long_click", (*point(args["x"], args["y"]), 0.6), {})]
    if name == "drag":
        start, end = point(args["start_x"], args["start_y"]), point(args["end_x"], args["end_y"])
        return [("swipe", (*start, *end), {"duration": 0.3})]
    if name == "scroll":
        direction = str(args["direction"]).lower()
        if direction not in SCROLL_SWIPES:
            raise ActionError(f"scroll direction must be one of {sorted(SCROLL_SWIPES)}, got {direction!r}")
        (x0, y0), (x1, y1) = SCROLL_SWIPES[direction]
        return [("swipe", (*point(x0, y0), *point(x1, y1)), {"duration": 0.3})]
    if name == "swipe":  # the official swipe: 400 ms
        (x0, y0), (x1, y1) = swipe_path(args)
        return [("swipe", (*point(x0, y0), *point(x1, y1)), {"duration": 0.4})]
    if name == "input_text":
        if adb_keyboard:  # the official route: ADB keyboard broadcast, no focused field needed
            encoded = base64.b64encode(str(args["text"]).encode("utf-8")).decode("ascii")
            return [("shell", (f"am broadcast -a ADB_INPUT_B64 --es msg {encoded}",), {})]
        return [("send_keys", (str(args["text"]),), {"clear": False})]
    if name == "keyboard_enter":
        return [("press", ("enter",), {})]
    if name == "navigate_home":
        return [("press", ("home",), {})]
    if name == "navigate_back":
        return [("press", ("back",), {})]
    if name == "open_app":
        app = str(args["app_name"]).strip()
        if packages is not None:  # an official task set: only the official image's packages
            package = packages.get(app.lower())
            if package is None:
                raise ActionError(f"no app called {app!r} on the official image; apps: {', '.join(sorted(packages))}")
            return [("app_start", (package,), {})]
        package = PACKAGES.get(app.lower())
        if package is None:
            raise ActionError(f"no app called {app!r} is known; apps: {', '.join(c.label for c in app_classes())}")
        return [("app_start", (package,), {})]
    if name == "wait":
        return []
    raise ActionError(f"{name} is not a device action")


def device_context_commands(now: datetime, latitude: float, longitude: float, location: bool = True) -> list[str]:
    """Shell commands that set the device clock and (``location``) a mock location (emulator image with root)."""
    commands = ["settings put global auto_time 0", f"su 0 date {now:%m%d%H%M%Y.%S}"]
    if location:
        commands.append(f"su 0 cmd location providers set-test-provider-location gps --location {latitude},{longitude}")
    return commands


class AndroidBackend:
    """A real device or emulator as the phone of :class:`~personal_envs.knowu.env.KnowUEnv`.

    Args:
        serial: adb serial (``None``: the only device).
        screenshot_scale: Screenshot size relative to 1080x2400.
        device: An already connected uiautomator2 device (otherwise one is connected on first use).
        wait_seconds: How long ``wait`` sleeps.
    """

    name = "android"
    verifiable = False

    def __init__(self, serial: str | None = None, screenshot_scale: float = 1 / 3, device: Any = None,
                 wait_seconds: float = 1.0, packages: Mapping[str, str] | None = None,
                 adb_keyboard: bool = False) -> None:
        #: Official app packages (lower-case name -> package) when an official task set runs, else ``None``.
        self.packages = dict(packages) if packages is not None else None
        #: Type through the ADB keyboard broadcast (the official route) instead of the focused field.
        self.adb_keyboard = adb_keyboard
        #: The official release when an official task set runs: the location is then set as its controller does.
        self.official_root: str | None = None
        #: The host command of the last official location fix, and whether it succeeded.
        self.last_geo_fix: tuple[list[str], bool] | None = None
        self.serial = serial
        self.scale = screenshot_scale
        self._device = device
        self.wait_seconds = wait_seconds
        self.phone = Phone()

    @property
    def screenshot_shape(self) -> tuple[int, int, int]:
        width, height = screenshot_size(self.scale)
        return height, width, 3

    @property
    def screenshot_scale(self) -> float:
        return self.scale

    @property
    def device(self) -> Any:
        if self._device is None:
            self._device = connect(self.serial)
        return self._device

    def device_size(self) -> tuple[int, int]:
        width, height = self.device.window_size()
        return int(width), int(height)

    def reset(self, phone: Phone) -> None:
        """Go home and set the device clock and, for the project's tasks, the mock location of the task (official
        tasks set their location with :meth:`set_official_location`, or not at all, as officially)."""
        self.phone = phone
        self.last_geo_fix = None
        device = self.device
        device.press("home")
        for command in device_context_commands(phone.device.now, phone.device.latitude, phone.device.longitude,
                                                location=self.official_root is None):
            device.shell(command)

    def set_official_location(self, latitude: float, longitude: float) -> bool:
        """Place the emulator as the official controller's ``set_geo_location`` does: ``adb emu geo fix`` on the
        host (the emulator console).  A failure is warned about and returned, as the official code logs it."""
        if self.official_root is None:
            raise RuntimeError("set_official_location needs an official task set (official_root)")
        from personal_envs.knowu.official.android_apps import geo_fix_command

        connected = getattr(self.device, "serial", None)  # uiautomator2's device knows its serial
        serial = self.serial or (connected if isinstance(connected, str) and connected else "emulator-5554")
        command = geo_fix_command(self.official_root, serial, latitude, longitude)
        try:
            done = subprocess.run(command, capture_output=True, text=True, timeout=30, check=False)
            ok, detail = done.returncode == 0, (done.stderr or done.stdout).strip()
        except (OSError, subprocess.TimeoutExpired) as exc:
            ok, detail = False, f"{type(exc).__name__}: {exc}"
        if not ok:
            warnings.warn(f"the official location fix failed ({' '.join(command)}): {detail}", stacklevel=2)
        self.last_geo_fix = (command, ok)
        return ok

    def execute(self, name: str, args: dict[str, Any]) -> None:
        """Translate and run one device action."""
        if name == "input_text" and not self.adb_keyboard and not self._has_focused_field():
            raise ActionError("no text field is focused; tap a text field first, then call input_text")
        calls = translate(name, args, self.device_size(), self.packages, self.adb_keyboard)
        if name == "wait":
            time.sleep(self.wait_seconds)
        for method, call_args, kwargs in calls:
            getattr(self.device, method)(*call_args, **kwargs)

    def _has_focused_field(self) -> bool:
        try:
            nodes = parse_ui_xml(self.device.dump_hierarchy())
        except ValueError:
            return True  # cannot tell; let the device decide
        return any(n.focused and n.class_name.endswith("EditText") for n in nodes)

    def observe(self, screenshot: bool = True) -> tuple[np.ndarray | None, str]:
        xml = str(self.device.dump_hierarchy())
        if not screenshot:
            return None, xml
        image = self.device.screenshot()
        if not isinstance(image, Image.Image):
            image = Image.fromarray(np.asarray(image))
        height, width, _ = self.screenshot_shape
        array = np.asarray(image.convert("RGB").resize((width, height)), dtype=np.uint8)
        return array, xml

    def context(self) -> dict[str, Any]:
        try:
            clock = str(self.device.shell("date '+%Y-%m-%d %H:%M'").output).strip()
        except Exception:
            clock = f"{self.phone.device.now:%Y-%m-%d %H:%M}"
        return {"text": f"time: {clock}; location: {self.phone.device.location}", "time": clock,
                "location": self.phone.device.location}

    def close(self) -> None:
        self._device = None
