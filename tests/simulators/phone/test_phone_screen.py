"""The phone simulator in real headless Chromium: rendering, hierarchy dumps, touches, text input, overlays."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime

import numpy as np
import pytest

from personal_envs.core.actions import ActionError
from personal_envs.simulators.phone import Phone, PhoneSimulator
from personal_envs.simulators.phone.geometry import SCREEN_HEIGHT, SCREEN_WIDTH
from personal_envs.simulators.phone.uixml import UiNode, find_nodes, parse_ui_xml


@pytest.fixture(scope="module")
def sim() -> Iterator[PhoneSimulator]:
    simulator = PhoneSimulator()
    yield simulator
    simulator.close()
    assert not simulator.screen.host.running


def fresh(sim: PhoneSimulator) -> Phone:
    phone = Phone(now=datetime(2026, 2, 9, 9, 41))
    phone.contacts.add("Mom", "13900001111")
    phone.contacts.add("Dad", "13900002222")
    sim.reset(phone)
    return phone


def nodes(sim: PhoneSimulator) -> list[UiNode]:
    return parse_ui_xml(sim.observe(False)[1])


def tap(sim: PhoneSimulator, **criteria: str) -> None:
    found = find_nodes(nodes(sim), **criteria)
    assert found, f"nothing matches {criteria}"
    x, y = found[0].center
    sim.execute("click", {"x": x, "y": y})


def test_home_screen_dump_and_screenshot(sim: PhoneSimulator) -> None:
    phone = fresh(sim)
    image, xml = sim.observe(True)
    assert xml.startswith("<?xml") and "<hierarchy" in xml
    dump = parse_ui_xml(xml)
    labels = {n.content_desc for n in dump if n.clickable}
    assert set(phone.app_names()) <= labels
    assert find_nodes(dump, rid="clock")[0].text == "09:41"
    for node in dump:
        left, top, right, bottom = node.bounds
        assert 0 <= left <= right <= SCREEN_WIDTH and 0 <= top <= bottom <= SCREEN_HEIGHT
    assert image is not None and image.shape == (800, 360, 3) and image.dtype == np.uint8
    assert image.std() > 10  # a wallpaper and icons, not a blank page


def test_tap_icon_opens_app_and_back_home(sim: PhoneSimulator) -> None:
    phone = fresh(sim)
    tap(sim, desc="Contacts")
    assert phone.route is not None and phone.route.app == "contacts"
    assert find_nodes(nodes(sim), text="Mom")
    tap(sim, text="Mom")
    assert phone.route is not None and phone.route.screen == "detail"
    sim.execute("navigate_back", {})
    assert phone.route is not None and phone.route.screen == "main"
    sim.execute("navigate_home", {})
    assert phone.route is None
    assert find_nodes(nodes(sim), desc="Messages")


def test_typing_needs_a_focused_field_and_enter_submits(sim: PhoneSimulator) -> None:
    phone = fresh(sim)
    sim.execute("open_app", {"app_name": "mattermost"})
    with pytest.raises(ActionError, match="no text field is focused"):
        sim.execute("input_text", {"text": "hello"})
    tap(sim, text="Town Square")
    tap(sim, rid="post_input")
    focused = [n for n in nodes(sim) if n.focused]
    assert focused and focused[0].short_id == "post_input"
    sim.execute("input_text", {"text": "Grüße 你好"})
    assert find_nodes(nodes(sim), rid="post_input")[0].text == "Grüße 你好"
    sim.execute("keyboard_enter", {})
    assert phone.mattermost.my_posts("town-square") == ["Grüße 你好"]


def test_shade_opens_by_swipe_and_notification_opens_thread(sim: PhoneSimulator) -> None:
    phone = fresh(sim)
    phone.receive_sms("13900001111", "Dinner at 7?")
    sim.render()
    sim.execute("drag", {"start_x": 540, "start_y": 20, "end_x": 540, "end_y": 1400})
    assert phone.shade_open
    dump = nodes(sim)
    assert find_nodes(dump, contains="Dinner at 7?")
    assert not find_nodes(dump, desc="Messages")  # the home screen under the shade is hidden from the dump
    tap(sim, contains="Dinner at 7?")
    assert phone.route is not None and phone.route.screen == "thread"
    assert not phone.shade_open and not phone.device.notifications


def test_quick_settings_tile_toggles_device_state(sim: PhoneSimulator) -> None:
    phone = fresh(sim)
    before = sim.observe(True)[0]
    sim.execute("drag", {"start_x": 540, "start_y": 20, "end_x": 540, "end_y": 1400})
    tap(sim, rid="qs_dark")
    sim.execute("navigate_back", {})
    sim.execute("open_app", {"app_name": "Settings"})
    assert phone.device.dark_mode
    after = sim.observe(True)[0]
    assert before is not None and after is not None and after.mean() < before.mean() - 40


def test_scroll_reveals_rows_below_the_fold(sim: PhoneSimulator) -> None:
    phone = fresh(sim)
    for i in range(30):
        phone.contacts.add(f"Person {i:02d}", f"1300000{i:04d}")
    sim.render()
    sim.execute("open_app", {"app_name": "Contacts"})
    assert not find_nodes(nodes(sim), text="Person 25")
    for _ in range(4):
        sim.execute("scroll", {"direction": "down"})
    assert find_nodes(nodes(sim), text="Person 25")
    with pytest.raises(ActionError, match="scroll direction"):
        sim.execute("scroll", {"direction": "sideways"})


def test_long_press_selects_and_dialog_confirms(sim: PhoneSimulator) -> None:
    phone = fresh(sim)
    photo = phone.gallery.add("IMG_1.jpg", "Camera", datetime(2026, 2, 1), "A tree")
    phone.gallery.add("IMG_2.jpg", "Camera", datetime(2026, 2, 2), "A lake")
    sim.render()
    sim.execute("open_app", {"app_name": "Gallery"})
    x, y = find_nodes(nodes(sim), contains="IMG_1.jpg")[0].center
    sim.execute("long_press", {"x": x, "y": y})
    assert phone.route is not None and phone.route.params.get("chosen") == photo.pid
    tap(sim, rid="delete_selected")
    assert phone.dialog is not None
    tap(sim, rid="dialog_delete")
    assert [p.name for p in phone.gallery.photos] == ["IMG_2.jpg"]


def test_bad_input_is_an_action_error(sim: PhoneSimulator) -> None:
    fresh(sim)
    with pytest.raises(ActionError, match="outside the 1080x2400 screen"):
        sim.execute("click", {"x": 1080, "y": 10})
    with pytest.raises(ActionError, match="installed apps"):
        sim.execute("open_app", {"app_name": "Snapchat"})
    sim.execute("click", {"x": 540, "y": 2300})  # an empty spot: nothing happens, no error


def test_page_cannot_reach_the_network(sim: PhoneSimulator) -> None:
    fresh(sim)

    def probe(page: object) -> str:
        return str(page.evaluate(  # type: ignore[attr-defined]
            "() => fetch('http://127.0.0.1:9/').then(() => 'reached', () => 'blocked')"))

    assert sim.screen._run(probe) == "blocked"


def test_dead_page_is_reopened_with_state_intact(sim: PhoneSimulator) -> None:
    phone = fresh(sim)
    sim.execute("open_app", {"app_name": "Contacts"})
    sim.screen.host.call(lambda: sim.screen._page.close())
    sim.render()
    assert find_nodes(nodes(sim), text="Mom")
    assert phone.route is not None and phone.route.app == "contacts"


def test_a_notification_names_an_installed_app_by_key() -> None:
    """``notify`` takes an app's key; a label or an unknown name is refused when posted, not when the shade shows."""
    phone = Phone(now=datetime(2026, 2, 9, 9, 41))
    phone.notify("calendar", "Standup", "09:45")
    phone.shade_open = True
    assert "Standup" in phone.render()[0]
    with pytest.raises(KeyError, match="no installed app 'Calendar'"):
        phone.notify("Calendar", "Standup", "09:45")
    assert len(phone.device.notifications) == 1
