"""The official ``swipe`` action: the path the official controller sends to the device, on the simulated phone in
both render modes (real Chromium and the text screen), through the env and through ``knowu serve``."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from personal_envs.core.actions import ActionError
from personal_envs.knowu.actions import official_to_pixels
from personal_envs.knowu.official_api.protocol import from_official
from personal_envs.simulators.phone import Phone, PhoneSimulator
from personal_envs.simulators.phone.sim import swipe_path
from personal_envs.simulators.phone.textscreen import TextScreen
from personal_envs.simulators.phone.uixml import find_nodes, parse_ui_xml
from tests.knowu.official_runtime import official_runtime

DIRECTIONS = ("up", "down", "left", "right")


def official_swipe_command(official_dir: Path, x: int | None, y: int | None, direction: str) -> str:
    """The ``adb ... input swipe`` command the official ``AndroidController.swipe`` sends on a 1080x2400 device."""
    sent: list[str] = []

    class Result:
        success, output, error = True, "Physical size: 1080x2400", ""

    def execute_adb(command: str, *args: Any, **kwargs: Any) -> Result:
        sent.append(command)
        return Result()

    with official_runtime(official_dir, real=("knowu_bench.runtime.controller",)) as runtime:
        module = runtime.load("knowu_bench.runtime.controller")
        module.execute_adb = execute_adb
        module.AndroidController().swipe(x, y, direction)
    return sent[-1]


@pytest.mark.parametrize("start", [(None, None), (540, 2300), (100, 300)])
def test_the_swipe_path_is_the_official_controllers(official_dir: Path, start: tuple[int | None, int | None]) -> None:
    for direction in DIRECTIONS:
        command = official_swipe_command(official_dir, *start, direction).split()
        x0, y0, x1, y1, duration = (int(v) for v in command[-5:])
        args = {"direction": direction, **({"x": start[0], "y": start[1]} if start[0] is not None else {})}
        ours = swipe_path(args)
        assert ours[0] == (x0, y0) and duration == 400
        # the same end, kept on the screen (the official command may point below the bottom edge)
        assert ours[1] == (min(max(x1, 0), 1079), min(max(y1, 0), 2399)), (direction, start)


def test_bad_swipes_are_refused_with_a_message() -> None:
    with pytest.raises(ActionError, match="swipe direction"):
        swipe_path({"direction": "sideways"})
    with pytest.raises(ActionError, match="outside"):
        swipe_path({"direction": "up", "x": 5000, "y": 10})
    assert official_to_pixels("swipe", {"direction": "up"}) == {"direction": "up"}  # the centre, as officially
    assert official_to_pixels("swipe", {"direction": "up", "coordinate": [500, 500]}) == {
        "direction": "up", "x": 540, "y": 1200}
    assert from_official({"action_type": "swipe", "direction": None, "x": None, "y": None}) == {
        "action_type": "swipe", "direction": "up"}  # the official server's default direction


@pytest.fixture(scope="module", params=["browser", "text"])
def sim(request: pytest.FixtureRequest) -> Iterator[PhoneSimulator]:
    simulator = PhoneSimulator() if request.param == "browser" else PhoneSimulator(TextScreen())
    yield simulator
    simulator.close()


def test_a_swipe_up_shows_the_rows_below_and_down_brings_them_back(sim: PhoneSimulator) -> None:
    phone = Phone(now=datetime(2026, 2, 9, 9, 41))
    for i in range(30):
        phone.contacts.add(f"Person {i:02d}", f"1300000{i:04d}")
    sim.reset(phone)
    sim.execute("open_app", {"app_name": "Contacts"})
    first = find_nodes(parse_ui_xml(sim.observe(False)[1]), text="Person 00")
    assert first and not find_nodes(parse_ui_xml(sim.observe(False)[1]), text="Person 25")
    top = first[0].bounds[1]
    sim.execute("swipe", {"direction": "up"})
    moved = find_nodes(parse_ui_xml(sim.observe(False)[1]), text="Person 00")
    assert not moved or moved[0].bounds[1] < top  # the content went up with the finger
    for _ in range(6):
        sim.execute("swipe", {"direction": "up", "x": 540, "y": 2000})
    assert find_nodes(parse_ui_xml(sim.observe(False)[1]), text="Person 25")
    for _ in range(12):
        sim.execute("swipe", {"direction": "down"})
    back = find_nodes(parse_ui_xml(sim.observe(False)[1]), text="Person 00")
    assert back and back[0].bounds[1] == top


def test_both_render_modes_show_the_same_screen_after_swipes() -> None:
    browser, text = PhoneSimulator(), PhoneSimulator(TextScreen())
    try:
        dumps = []
        for simulator in (browser, text):
            phone = Phone(now=datetime(2026, 2, 9, 9, 41))
            for i in range(30):
                phone.contacts.add(f"Person {i:02d}", f"1300000{i:04d}")
            simulator.reset(phone)
            simulator.execute("open_app", {"app_name": "Contacts"})
            for args in ({"direction": "up"}, {"direction": "up", "x": 300, "y": 1900}, {"direction": "down"},
                         {"direction": "left"}):
                simulator.execute("swipe", args)
            dumps.append(simulator.observe(False)[1])
        assert dumps[0] == dumps[1]
    finally:
        browser.close()
        text.close()
