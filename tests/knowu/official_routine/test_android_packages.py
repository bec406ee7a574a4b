"""The Android backend with an official task set: the official image's packages and the ADB keyboard route."""

from __future__ import annotations

import ast
import base64
import os
import shlex
from pathlib import Path
from types import SimpleNamespace

import pytest

from personal_envs.core.actions import ActionError
from personal_envs.knowu.android import AndroidBackend, translate
from personal_envs.knowu.env import KnowUEnv
from personal_envs.knowu.official.android_apps import geo_fix_command, official_packages
from tests.knowu.official_routine.conftest import ANCHORS, PACKAGE

pytestmark = pytest.mark.usefixtures("anchors")


def test_packages_are_the_official_controllers_lookup() -> None:
    packages = official_packages(str(ANCHORS))
    tree = ast.parse((PACKAGE / "runtime" / "utils" / "models.py").read_text(encoding="utf-8"))
    app_dict = next(ast.literal_eval(n.value) for n in tree.body if isinstance(n, ast.Assign)
                    and getattr(n.targets[0], "id", "") == "APP_DICT")
    mapper = next(ast.literal_eval(n.value) for n in tree.body if isinstance(n, ast.Assign)
                  and getattr(n.targets[0], "id", "") == "COMMON_APP_MAPPER")
    expected = {k.lower(): v for k, v in app_dict.items()} | {v.lower(): k for k, v in mapper.items()}
    assert packages == expected
    assert packages["mail"] == "com.gmailclone" and packages["mattermost"] == "com.mattermost.rnbeta"
    size = (1080, 2400)
    assert translate("open_app", {"app_name": "Clock"}, size, packages) == [("app_start", (expected["clock"],), {})]
    with pytest.raises(ActionError, match="official image"):
        translate("open_app", {"app_name": "Docreader"}, size, packages)  # not a package of the official image
    call = translate("input_text", {"text": "Happy birthday 妈妈"}, size, packages, adb_keyboard=True)
    encoded = base64.b64encode("Happy birthday 妈妈".encode()).decode()
    assert call == [("shell", (f"am broadcast -a ADB_INPUT_B64 --es msg {encoded}",), {})]


class _Device:
    def __init__(self) -> None:
        self.calls: list[tuple[str, tuple]] = []

    def window_size(self) -> tuple[int, int]:
        return 1080, 2400

    def dump_hierarchy(self) -> str:
        return "<hierarchy></hierarchy>"  # nothing focused

    def __getattr__(self, name: str):  # type: ignore[no-untyped-def]
        return lambda *args, **kwargs: self.calls.append((name, args))


def test_typing_needs_no_focused_field_on_the_official_route() -> None:
    device = _Device()
    backend = AndroidBackend(device=device, packages=official_packages(str(ANCHORS)), adb_keyboard=True)
    backend.execute("input_text", {"text": "ack"})
    assert device.calls[-1][0] == "shell"
    plain = AndroidBackend(device=_Device())
    with pytest.raises(ActionError, match="focused"):
        plain.execute("input_text", {"text": "ack"})


def _official_geo_fix(serial: str, latitude: float, longitude: float) -> str:
    """Run the release's own ``AndroidController.set_geo_location`` (the function alone, its adb call recorded)."""
    tree = ast.parse((PACKAGE / "runtime" / "controller.py").read_text(encoding="utf-8"))
    controller = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "AndroidController")
    func = next(n for n in controller.body if isinstance(n, ast.FunctionDef) and n.name == "set_geo_location")
    recorded: list[str] = []
    namespace: dict[str, object] = {"execute_adb": lambda command: recorded.append(command) or SimpleNamespace(),
                                    "logger": SimpleNamespace(info=lambda *a, **k: None), "AdbResponse": object}
    exec(compile(ast.Module(body=[func], type_ignores=[]), "controller.py", "exec"), namespace)  # noqa: S102
    namespace["set_geo_location"](SimpleNamespace(device=serial), latitude, longitude)  # type: ignore[operator]
    return recorded[0]


def test_the_location_command_is_the_official_controllers() -> None:
    ours = geo_fix_command(str(ANCHORS), "emulator-5556", 40.059, 116.268)
    assert ours == shlex.split(_official_geo_fix("emulator-5556", 40.059, 116.268))
    assert ours[-4:] == ["fix", "116.268", "40.059", "0.0"]  # longitude first, through the emulator console


@pytest.fixture()
def fake_adb(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An ``adb`` on PATH that records its arguments (the real one talks to an emulator, which this machine lacks)."""
    log = tmp_path / "adb.log"
    script = tmp_path / "bin" / "adb"
    script.parent.mkdir()
    script.write_text(f'#!/bin/sh\necho "$@" >> {log}\n', encoding="utf-8")
    script.chmod(0o755)
    monkeypatch.setenv("PATH", f"{script.parent}{os.pathsep}{os.environ['PATH']}")
    return log


def _android_env(task: str, **kwargs: object) -> tuple[KnowUEnv, _Device]:
    env = KnowUEnv(backend="android", task=task, screenshot=False, **kwargs)  # type: ignore[arg-type]
    device = _Device()
    env.backend._device = device  # type: ignore[attr-defined]
    return env, device


def test_an_official_commute_places_the_emulator_as_the_official_code_does(fake_adb: Path) -> None:
    env, device = _android_env("CommuteRoutingSunnyTask@developer", family="personalized", data_dir=str(ANCHORS))
    try:
        env.reset()
        task = env.task
        home = task.user_doc["locations"]["home"]  # type: ignore[attr-defined]
        expected = _official_geo_fix("emulator-5554", home["latitude"], home["longitude"])
        assert fake_adb.read_text(encoding="utf-8").split() == shlex.split(expected)[1:]
        assert env.backend.last_geo_fix == (shlex.split(expected), True)  # type: ignore[attr-defined]
        shell = [args[0] for name, args in device.calls if name == "shell"]
        assert any(c.startswith("su 0 date") for c in shell)
        assert not any("set-test-provider-location" in c for c in shell)  # no location the official code lacks
        fake_adb.unlink()
        env.reset(options={"task_index": 0})
        assert fake_adb.exists()  # every reset places it again
    finally:
        env.close()


def test_official_tasks_without_a_location_set_none(fake_adb: Path) -> None:
    env, device = _android_env("BuyColaPreferenceTask@developer", family="personalized", data_dir=str(ANCHORS))
    try:
        env.reset()
        assert not fake_adb.exists() and env.backend.last_geo_fix is None  # type: ignore[attr-defined]
        assert not any("set-test-provider-location" in str(args) for _, args in device.calls)
    finally:
        env.close()
    embedded, device = _android_env("DailyFamilyCallGeneralTask", task_set="embedded")
    try:
        embedded.reset()  # no official image: the task's location goes through the mock-location provider
        assert any("set-test-provider-location" in str(args) for _, args in device.calls)
        assert not fake_adb.exists()
    finally:
        embedded.close()


def test_a_failed_location_fix_warns_and_the_episode_goes_on(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", "/nonexistent")  # no adb at all
    env, _ = _android_env("LateNightCommuteTask@student", family="personalized", data_dir=str(ANCHORS))
    try:
        with pytest.warns(UserWarning, match="official location fix failed"):
            env.reset()
        command, ok = env.backend.last_geo_fix  # type: ignore[attr-defined]
        assert not ok and command[:2] == ["adb", "-s"]
    finally:
        env.close()
