"""The android backend without a device: action translation, dumps recorded from the simulator, clear errors."""

from __future__ import annotations

import sys
from typing import Any

import pytest
from PIL import Image

from personal_envs.core.actions import ActionError
from personal_envs.knowu.android import (
    INSTALL_HINT,
    AndroidBackend,
    AndroidUnavailable,
    connect,
    device_context_commands,
    translate,
)
from personal_envs.knowu.env import KnowUEnv
from personal_envs.simulators.phone import Phone, PhoneSimulator
from personal_envs.simulators.phone.uixml import find_nodes, parse_ui_xml


def test_translation_scales_to_the_device_resolution() -> None:
    size = (720, 1600)
    assert translate("click", {"x": 540, "y": 1200}, size) == [("click", (360, 800), {})]
    assert translate("long_press", {"x": 0, "y": 0}, size) == [("long_click", (0, 0, 0.6), {})]
    assert translate("drag", {"start_x": 540, "start_y": 2000, "end_x": 540, "end_y": 400}, size) == [
        ("swipe", (360, 1333, 360, 267), {"duration": 0.3})]
    assert translate("scroll", {"direction": "down"}, (1080, 2400))[0][1] == (540, 1700, 540, 900)
    assert translate("input_text", {"text": "héllo"}, size) == [("send_keys", ("héllo",), {"clear": False})]
    assert translate("navigate_back", {}, size) == [("press", ("back",), {})]
    assert translate("keyboard_enter", {}, size) == [("press", ("enter",), {})]
    assert translate("open_app", {"app_name": "mattermost"}, size) == [("app_start", ("com.mattermost.rn",), {})]
    assert translate("open_app", {"app_name": "淘店"}, size) == [("app_start", ("com.taodian.shop",), {})]
    assert translate("wait", {}, size) == []
    with pytest.raises(ActionError, match="outside"):
        translate("click", {"x": -1, "y": 5}, size)
    with pytest.raises(ActionError, match="no app called"):
        translate("open_app", {"app_name": "Snapchat"}, size)
    with pytest.raises(ActionError, match="not a device action"):
        translate("answer", {"text": "x"}, size)


def test_context_commands_set_clock_and_location() -> None:
    from datetime import datetime

    commands = device_context_commands(datetime(2026, 2, 13, 21, 5), 30.27, 120.15)
    assert "su 0 date 021321052026.00" in commands
    assert any("30.27,120.15" in c for c in commands)


def test_missing_uiautomator2_gives_install_hint(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "uiautomator2", None)  # behaves as not installed
    with pytest.raises(AndroidUnavailable, match=r"pip install 'personal-envs\[android\]'"):
        connect(None)
    assert "pip install" in INSTALL_HINT
    env = KnowUEnv(backend="android", task="DailyFamilyCallGeneralTask")
    with pytest.raises(AndroidUnavailable, match="uiautomator2 is not installed"):
        env.reset()
    env.close()


class RecordedDevice:
    """Stands in for a uiautomator2 device (none can run here): replays a dump recorded from the simulator."""

    def __init__(self, dump: str, image: Image.Image) -> None:
        self.dump, self.image = dump, image
        self.calls: list[tuple[str, tuple[Any, ...]]] = []

    def window_size(self) -> tuple[int, int]:
        return 1080, 2400

    def dump_hierarchy(self) -> str:
        return self.dump

    def screenshot(self) -> Image.Image:
        return self.image

    def __getattr__(self, name: str) -> Any:
        def record(*args: Any, **kwargs: Any) -> Any:
            self.calls.append((name, args))
            return type("ShellResult", (), {"output": "2026-02-09 09:00\n"})()

        return record


@pytest.fixture(scope="module")
def recorded() -> tuple[str, Image.Image, str]:
    """(home dump, home screenshot, dump with a focused field) recorded from the simulator."""
    sim = PhoneSimulator()
    try:
        phone = Phone()
        sim.reset(phone)
        image, home = sim.observe(True)
        assert image is not None
        sim.execute("open_app", {"app_name": "Mattermost"})
        x, y = find_nodes(parse_ui_xml(sim.observe(False)[1]), text="Town Square")[0].center
        sim.execute("click", {"x": x, "y": y})
        x, y = find_nodes(parse_ui_xml(sim.observe(False)[1]), rid="post_input")[0].center
        sim.execute("click", {"x": x, "y": y})
        focused = sim.observe(False)[1]
    finally:
        sim.close()
    return home, Image.fromarray(image), focused


def test_backend_runs_actions_on_a_recorded_device(recorded: tuple[str, Image.Image, str]) -> None:
    home, image, focused = recorded
    device = RecordedDevice(home, image)
    backend = AndroidBackend(device=device)
    backend.reset(Phone())
    assert device.calls[0] == ("press", ("home",))
    icon = find_nodes(parse_ui_xml(home), desc="Mattermost")[0]
    backend.execute("click", {"x": icon.center[0], "y": icon.center[1]})
    assert device.calls[-1] == ("click", icon.center)
    with pytest.raises(ActionError, match="no text field is focused"):
        backend.execute("input_text", {"text": "hi"})
    device.dump = focused
    backend.execute("input_text", {"text": "hi"})
    assert device.calls[-1] == ("send_keys", ("hi",))
    shot, xml = backend.observe(True)
    assert shot is not None and shot.shape == (800, 360, 3) and xml == focused
    assert backend.context()["time"] == "2026-02-09 09:00"


def test_env_on_android_reports_unverifiable_scores(recorded: tuple[str, Image.Image, str]) -> None:
    home, image, _ = recorded
    env = KnowUEnv(backend="android", task="DailyFamilyCallGeneralTask")
    env.backend._device = RecordedDevice(home, image)  # type: ignore[attr-defined]
    obs, _ = env.reset()
    assert obs["ui_xml"] == home and obs["screenshot"].shape == (800, 360, 3)
    _, reward, terminated, _, info = env.step({"action_type": "finished"})
    assert terminated and reward == 0.0 and info["metrics"]["verification_unavailable"] is True
    assert "not available on backend='android'" in info["metrics"]["reason"]
    env.close()
