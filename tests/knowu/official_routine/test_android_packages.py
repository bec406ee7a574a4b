"""The Android backend with an official task set: the official image's packages and the ADB keyboard route."""

from __future__ import annotations

import ast
import base64

import pytest

from personal_envs.core.actions import ActionError
from personal_envs.knowu.android import AndroidBackend, translate
from personal_envs.knowu.official.android_apps import official_packages
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
