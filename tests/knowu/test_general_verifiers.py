"""Verifiers of the general tasks reject near misses (state changed directly, no browser needed)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from personal_envs.core.task import EpisodeTrace
from personal_envs.knowu.general_tasks import TASKS, GeneralTask
from personal_envs.knowu.world import WORK_ADDRESS, at, number_of
from personal_envs.simulators.phone.apps.clock import Alarm
from personal_envs.simulators.phone.apps.contacts import Call
from personal_envs.simulators.phone.apps.shop import CartItem, Order
from personal_envs.simulators.phone.phone import Phone


def setup(task_id: str) -> tuple[GeneralTask, Phone]:
    task = next(t for t in TASKS if t.task_id == task_id)
    phone = Phone(now=task.start)
    task.seed(phone)
    return task, phone


def score(task: GeneralTask, phone: Phone, answer: str | None = None) -> float:
    return task.verify(phone, EpisodeTrace(answer=answer, finished=True)).score


def test_task_set_matches_the_paper_split() -> None:
    assert len(TASKS) == 42
    assert len({t.task_id for t in TASKS}) == 42
    assert sum(t.difficulty == "easy" for t in TASKS) == 18
    assert sum(t.difficulty == "hard" for t in TASKS) == 24
    assert all(t.instruction and t.apps and t.split == "general" for t in TASKS)


def test_doing_nothing_fails_every_task() -> None:
    for task in TASKS:
        _, phone = setup(task.task_id)
        assert score(task, phone) < 1.0, task.task_id


def _order(phone: Phone, pid: str, *, name: str = "Zhang Wei", number: str = "13800138000",
           address: str = WORK_ADDRESS, note: str = "", options: dict[str, str] | None = None) -> None:
    shop = phone.shop("taodian")
    shop.orders.append(Order(f"O{len(shop.orders)}", [CartItem(pid, 1, options or {})], name, number, address, "alipay",
                             note, 0.0, phone.device.now))


Mutation = Callable[[Phone], object]

RIGHT_AND_WRONG: dict[str, tuple[Mutation, Mutation]] = {
    "ask_mom_rent": (lambda p: p.messages.send(number_of("Mom"), "Please send 500 for rent"),
                     lambda p: p.messages.send(number_of("Dad"), "Please send 500 for rent")),
    "call_mom": (lambda p: p.contacts.calls.append(_call(p, "Mom")), lambda p: p.contacts.calls.append(_call(p, "Dad"))),
    "buy_zero_cola": (lambda p: _order(p, "cola_zero_24"), lambda p: _order(p, "cola_classic_24")),
    "buy_macbook_budget": (lambda p: _order(p, "mbp14_m3"), lambda p: _order(p, "mbp14_m3pro")),
    "buy_white_sneakers": (lambda p: _order(p, "sneakers_white", options={"size": "42"}),
                           lambda p: _order(p, "sneakers_white", options={"size": "43"})),
    "buy_sofa_with_note": (lambda p: _order(p, "sofa_fabric_3", note="Please ship with SF Express"),
                           lambda p: _order(p, "sofa_fabric_3", note="")),
    "resolve_invite_conflict": (lambda p: _review(p, 16), lambda p: _review(p, 15)),
    "weekend_alarm": (lambda p: p.clock.add_alarm(8, 30, days=["Sat", "Sun"], ringtone="Bright Morning"),
                      lambda p: p.clock.add_alarm(8, 30, days=["Fri", "Sat", "Sun"], ringtone="Bright Morning")),
    "weekend_sleep_in": (lambda p: setattr(_alarm(p, "07:30"), "enabled", False),
                         lambda p: p.clock.alarms.remove(_alarm(p, "07:30"))),
    "cart_remove_over_140": (
        lambda p: _keep(p, {"tshirt_cotton", "chinos", "sneakers_leather", "case_silicone"}),
        lambda p: _keep(p, {"tshirt_cotton", "sneakers_leather", "case_silicone"})),
    "clean_old_screenshots": (
        lambda p: p.gallery.delete([x.pid for x in p.gallery.photos if x.name[11:19] < "20260202"
                                    and x.album == "Screenshots"]),
        lambda p: p.gallery.delete([x.pid for x in p.gallery.photos if x.album == "Screenshots"])),
    "send_weekly_report": (
        lambda p: p.mail.add(p.mail.address, "Report", "", p.device.now, to=["chenjie@example.com"], folder="sent",
                             attachments=["file:/Documents/Weekly_Report_W6.docx"]),
        lambda p: p.mail.add(p.mail.address, "Report", "", p.device.now, to=["chenjie@example.com"], folder="sent",
                             attachments=["file:/Documents/Weekly_Report_W5.docx"])),
    "star_demo_sender": (lambda p: setattr(p.contacts.find("Zhao Lei"), "starred", True),
                         lambda p: setattr(p.contacts.find("Sun Yu"), "starred", True)),
    "clock_out_message": (
        lambda p: p.mattermost.post("town-square", "zhangwei", "Wrapping up for today, thanks everyone! See you tomorrow."),
        lambda p: p.mattermost.post("off-topic", "zhangwei", "Wrapping up for today, thanks everyone! See you tomorrow.")),
    "mute_media_volume": (lambda p: setattr(p.device, "media_volume", 0), lambda p: setattr(p.device, "media_volume", 1)),
}


def _review(phone: Phone, hour: int) -> None:
    phone.messages.send(number_of("Li Na"), "How about 16:00?")
    phone.calendar.add("Design review", at(phone, 1, hour), at(phone, 1, hour + 1))


def _call(phone: Phone, name: str) -> Call:
    return Call(number_of(name), phone.device.now)


def _alarm(phone: Phone, text: str) -> Alarm:
    return next(a for a in phone.clock.alarms if a.time_text == text)


def _keep(phone: Phone, pids: set[str]) -> None:
    cart = phone.shop("taodian").cart
    cart[:] = [item for item in cart if item.pid in pids]


@pytest.mark.parametrize("task_id", sorted(RIGHT_AND_WRONG))
def test_verifier_accepts_the_right_state_and_rejects_the_near_miss(task_id: str) -> None:
    right, wrong = RIGHT_AND_WRONG[task_id]
    task, phone = setup(task_id)
    right(phone)
    assert score(task, phone) == 1.0, task.verify(phone, EpisodeTrace()).reason
    task, phone = setup(task_id)
    wrong(phone)
    verdict = task.verify(phone, EpisodeTrace())
    assert verdict.score < 1.0 and verdict.reason.startswith("failed")


def test_an_extra_order_is_rejected() -> None:
    task, phone = setup("buy_zero_cola")
    _order(phone, "cola_zero_24")
    _order(phone, "cola_zero_24")
    assert score(task, phone) < 1.0


def test_answers_are_checked_for_content() -> None:
    task, phone = setup("weather_report")
    phone.chrome.history.append("weather.example.com/hangzhou")
    assert score(task, phone, "Light rain, 8°C to 13°C") == 1.0
    assert score(task, phone, "It is raining") < 1.0
    assert score(task, phone, None) < 1.0
    task, phone = setup("late_night_taxi")
    from personal_envs.simulators.phone.apps.maps import RouteQuery

    phone.maps.queries.append(RouteQuery("Zheda Science Park", "Zijingang Campus", "drive", 20, phone.device.now))
    assert score(task, phone, "Drive, 20 min") < 1.0


@pytest.mark.parametrize("task_id", [t.task_id for t in TASKS])
def test_doing_nothing_scores_zero(task_id: str) -> None:
    """Guards ("ring volume untouched", "not deleted") hold on the untouched phone: they earn nothing alone
    (issue 28: finishing at once scored 0.28 on average, above 0 on 26 of the 42)."""
    task, phone = setup(task_id)
    verdict = task.verify(phone, EpisodeTrace())
    assert verdict.score == 0.0 and verdict.reason.startswith("failed"), verdict.reason


def test_a_near_miss_keeps_its_partial_credit_with_the_guards() -> None:
    task, phone = setup("schedule_team_meeting")
    guards = task.guard_checks()
    assert "event Project sync 2026-02-10 14:00-15:00" not in guards
    phone.calendar.add("Project sync", at(phone, 1, 14), at(phone, 1, 15))  # the event, but no post
    verdict = task.verify(phone, EpisodeTrace())
    assert 0.0 < verdict.score < 1.0, verdict.reason
