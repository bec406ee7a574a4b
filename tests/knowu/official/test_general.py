"""The 42 official general tasks: built by official name from the release, solved by the oracle through the UI,
near misses scored as the official checks score them, no answer key before the end."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from personal_envs.knowu.env import KnowUEnv
from personal_envs.knowu.official.embedded import EMBEDDED_LABEL
from personal_envs.knowu.official.general.tasks import (
    ANSWER_GROUNDING,
    CAMPUS,
    JUDGED,
    OFFICIAL_CHECKS,
    PARK,
    OfficialGeneralTask,
    maps_plan,
)
from personal_envs.knowu.official.registry import variant_names
from personal_envs.knowu.official.release import OFFICIAL_LABEL, OfficialRelease
from personal_envs.knowu.official.source import OfficialClass, parse_release
from personal_envs.knowu.oracle import Fill, Step, Tap, answer, enter, finish, home, open_app
from personal_envs.knowu.personas import PersonaSet
from personal_envs.simulators.phone.uixml import parse_ui_xml
from tests.knowu.helpers import build_family, oracle_infos
from tests.knowu.helpers import run_oracle as run


@pytest.fixture(scope="module")
def env(official_dir: Path) -> Iterator[KnowUEnv]:
    environment = KnowUEnv(family="general", data_dir=str(official_dir), screenshot=False)
    yield environment
    environment.close()


@pytest.fixture(scope="module", params=["embedded", "official"])
def any_env(request: pytest.FixtureRequest) -> Iterator[KnowUEnv]:
    """The general tasks of the embedded cards, then of the release (skipped without one)."""
    data_dir = None
    if request.param == "official":
        data_dir = str(request.getfixturevalue("official_dir"))
    environment = KnowUEnv(family="general", task_set=request.param, data_dir=data_dir, screenshot=False)
    yield environment
    environment.close()


def test_the_42_build_with_official_names_and_goals(release: OfficialRelease, personas: PersonaSet) -> None:
    source = parse_release(release)
    tasks = build_family("general", source, personas)
    assert [t.task_id for t in tasks] == variant_names(source, personas, "general") and len(tasks) == 42
    for task in tasks:
        assert isinstance(task, OfficialGeneralTask) and task.task_set == OFFICIAL_LABEL
        cls = source.get(task.task_id)
        assert task.instruction == cls.goal and task.instruction  # read from the release
        assert task.difficulty == cls.difficulty and task.apps == cls.app_names
    assert set(OFFICIAL_CHECKS) | set(JUDGED) == set(variant_names(source, personas, "general"))
    assert len(OFFICIAL_CHECKS) == 40 and len(JUDGED) == 2


def test_oracle_solves_all_42_through_the_ui(any_env: KnowUEnv) -> None:
    label = any_env.task_set_label
    assert any_env.num_tasks == 42 and label in (OFFICIAL_LABEL, EMBEDDED_LABEL)
    infos = oracle_infos(any_env)  # fails naming any task below 1.0, or any answer key seen before the end
    assert len(infos) == 42
    assert all(info["metrics"]["task_set"] == label for info in infos)
    official = [info for info in infos if info["metrics"]["official_check"]]
    assert len(official) == len(OFFICIAL_CHECKS)


def _sms(recipient: str, text: str) -> list[Step]:
    return [open_app("Messages"), Tap(rid="start_chat_fab"), Fill("recipient", recipient),
            Fill("compose_message_text", text), Tap(rid="send_message_button"), finish()]


def _alarm(time_text: str) -> list[Step]:
    return [open_app("Clock"), Tap(rid="add_alarm_fab"), Fill("alarm_time", time_text), Tap(rid="day_sat"),
            Tap(rid="day_sun"), Tap(rid="save_alarm"), finish()]


def _buy(title: str, option: str = "") -> list[Step]:
    return [open_app("Taodian"), Fill("search_input", title[:2]), Tap(rid="search_button"), Tap(text=title),
            *([Tap(rid=f"option_{option}")] if option else []), Tap(rid="buy_now"), Fill("receiver_name", "张伟"),
            Fill("receiver_phone", "13800138000"), Fill("receiver_address", "杭州市西湖区文三路 478 号浙大科技园"),
            Tap(rid="submit_order"), finish()]


def _food(app: str, shop: str, dish: str, note: str = "") -> list[Step]:
    return [open_app(app), Tap(text=shop), Tap(rid="add_dish", near=dish), Tap(rid="add_to_basket"),
            Tap(rid="basket_button"), Fill("receiver_name", "张伟"), Fill("receiver_phone", "13800138000"),
            Fill("receiver_address", "杭州市西湖区文三路 478 号浙大科技园"),
            *([Fill("order_note", note)] if note else []), Tap(rid="place_order"), finish()]


def _chat(channel: str, text: str) -> list[Step]:
    return [open_app("Mattermost"), Tap(text=channel), Fill("post_input", text), Tap(rid="send_button"), finish()]


def _const(cls: OfficialClass, name: str) -> Any:
    """A constant of the class: an attribute, a module constant or a literal of ``is_successful`` /
    ``initialize_task_hook``."""
    for table in (cls.attributes, cls.module_constants):
        if name in table:
            return table[name]
    for method in ("is_successful", "initialize_task_hook"):
        found = cls.methods.get(method)
        if found is not None and found.value(name) is not None:
            return found.value(name)
    raise KeyError(f"{cls.name} has no constant {name}")


Plan = Callable[[OfficialClass], list[Step]]


def _steps(steps: list[Step]) -> Plan:
    return lambda cls: steps


#: (class, its near-miss plan from the class's constants, the score the official check gives its end state); the
#: same plans run on the release's classes and on the embedded cards.
NEAR_MISSES: list[tuple[str, Plan, float]] = [
    ("MessagesAskMomMoneyGeneralTask", lambda c: _sms("Dad", f"{_const(c, 'money_keywords')[0]} please"), 0.0),
    ("MessagesAskMomMoneyGeneralTask", lambda c: _sms(_const(c, "MOM_NAME"), "hello"), 0.6),  # content off
    ("SetAlarmGeneralTask", _steps(_alarm("08:45")), 0.8),                   # weekend alarm, hour right: 0.5 + 0.3
    ("SetAlarmGeneralTask", _steps(_alarm("09:30")), 0.5),                   # weekend alarm, wrong time
    ("MattermostLeaveNoticeGeneralTask", _steps(_chat("Off-Topic", "sick leave today")), 0.8),  # wrong channel
    ("MattermostLeaveNoticeGeneralTask", _steps(_chat("Town Square", "hello all")), 0.7),       # no leave words
    ("ClockOutGeneralTask", _steps(_chat("Town Square", "hello")), 0.0),     # no clock-out keyword
    ("BirthdayWishGeneralTask", lambda c: _sms(_const(c, "CONTACT_NAME"), "hi"), 0.0),  # no birthday keyword
    ("ScamSmsInterceptGeneralTask", lambda c: [open_app("Messages"), Tap(text=_const(c, "SENDER_PHONE")),  # replied
                                               Fill("compose_message_text", "stop"), Tap(rid="send_message_button"),
                                               Tap(rid="block_button"), Tap(rid="dialog_block"), finish()], 0.0),
    ("HighlightImportantSmsSenderGeneralTask", lambda c: [  # saved, not starred
        open_app("Contacts"), Tap(rid="create_contact_fab"), Fill("contact_name", _const(c, "SENDER_NAME")),
        Fill("contact_phone", _const(c, "SENDER_PHONE")), Tap(rid="save_contact"), finish()], 0.5),
    ("DeepWorkGeneralTask", _steps([finish()]), 0.0),
    ("SortFilesGeneralTask", _steps([open_app("Files"), Tap(text="Download"), Tap(rid="sort_button"),
                                     Tap(rid="sort_modified_asc"), finish()]), 0.5),   # oldest first
    ("SendWeeklyReportGeneralTask", lambda c: [open_app("Mail"), Tap(rid="compose_button"),  # no attachment
                                               Fill("to", _const(c, "TARGET_RECIPIENT")),
                                               Fill("subject", "Weekly Report"), Tap(rid="send"), finish()], 0.4),
    ("CommuteRoutingSunnyGeneralTask", _steps([*maps_plan(CAMPUS, PARK, "bike"), answer("Go now.")]), 0.2),
    ("SearchWhiteSneakersCheckoutGeneralTask", _steps(_buy("经典白色帆布运动鞋", "size=41")), 0.8),  # size 41: -0.2
    ("NoteTheCourierGeneralTask", _steps(_buy("三人位布艺沙发 灰色")), 0.7),                     # no courier note
    ("BuyColaGeneralTask", _steps(_buy("无糖可乐 罐装 330ml×24", "sku=半箱")), 0.0),            # half case
    ("DeleteItemsGeneralTask", _steps([open_app("Taodian"), Tap(rid="cart_button"),  # one by one: the last callback
                                       *[Tap(rid="delete_item", near=t) for t in (
                                           "Bluetooth earbuds", "USB-C charger 65W", "Silicone phone case")],
                                       finish()]), 0.0),
    ("CartManagementGeneralTask", _steps([open_app("Taodian"), Tap(rid="cart_button"),  # one sport item left
                                          Tap(rid="select_item", near="Men's running jacket"),
                                          Tap(rid="select_item", near="Basketball shorts"),
                                          Tap(rid="delete_selected_items"), finish()]), 0.0),
    ("OrderLunchFirstTimeGeneralTask", _steps(_food("tuantuan", "Spicy Corner", "鱼香肉丝")), 0.0),  # the other app
    ("TakeoutRemarkGeneralTask", lambda c: _food(  # the remark cut short
        "chilemei", "Sichuan Kitchen", "宫保鸡丁盖饭", _const(c, "EXPECTED_REMARK").replace("，", ",").split(",")[0]),
     0.0),
    ("MastodonInterestBoostGeneralTask", _steps(_chat("Off-Topic", "AI news")), 0.6),  # no link, wrong channel
    ("MastodonSharePhotosGeneralTask", _steps([open_app("Mastodon"), Tap(rid="compose_fab"),  # caption, no photo
                                               Fill("compose_text", "Nice shot from today!"), Tap(rid="publish"),
                                               finish()]), 0.0),
    ("GalleryCleanupGeneralTask", lambda c: [open_app("Gallery"), Tap(rid="tab_Screenshots"), Tap(rid="select_mode"),
                                             *[Tap(contains=f"Screenshot_{i + 1}.png")
                                               for i in range(int(_const(c, "NUM_FILES")))],
                                             Tap(rid="delete_selected"), Tap(rid="dialog_delete"), finish()], 0.0),
    ("MorningWeatherCheckGeneralTask", _steps([answer("Hangzhou weather: light rain, 25°C.")]), 0.0),  # wrong temp
    ("MastodonPrivacyDefaultGeneralTask", _steps([open_app("Mastodon"), Tap(rid="compose_fab"),  # other text, private
                                                  Fill("compose_text", "hello"), Tap(rid="visibility_private"),
                                                  Tap(rid="publish"), finish()]), 0.2),
    ("CommuteLateWithNoticeGeneralTask", _steps(_chat("Town Square", "hello")), 0.3),  # notice off-topic, no plan
    ("WeekendSleeperGeneralTask", _steps([open_app("Clock"), Tap(rid="alarm_switch", near="07:00"), finish()]), 0.0),
    ("BatterySaverGeneralTask", _steps([open_app("Settings"), Tap(rid="settings_battery"),  # on, then off again
                                        Tap(rid="battery_saver"), Tap(rid="battery_saver"), finish()]), 0.0),
    ("BluetoothCleanupGeneralTask", lambda c: [open_app("Settings"), Tap(rid="settings_sound"),  # one step left
                                               *[Tap(rid="media_volume_down")] * (int(_const(c, "INITIAL_VOLUME")) - 1),
                                               finish()], 0.0),
    ("NightSocialGeneralTask", _steps([open_app("Settings"), Tap(rid="settings_notifications"),  # DND, not dark
                                       Tap(rid="do_not_disturb"), finish()]), 0.0),
    ("DailyFamilyCallGeneralTask", lambda c: [open_app("Contacts"), Tap(text=_const(c, "TARGET_NAME")), finish()],
     0.0),                                                                                       # no call
    ("ContactSaverGeneralTask", lambda c: [open_app("Contacts"), Tap(rid="create_contact_fab"),  # another name
                                           Fill("contact_name", f"{_const(c, 'SENDER_NAME')}by"),
                                           Fill("contact_phone", _const(c, "SENDER_PHONE")), Tap(rid="save_contact"),
                                           finish()], 0.0),
    ("CalendarScheduleGroupMeetingGeneralTask", _steps([  # title without a meeting keyword: post only
        open_app("Calendar"), Tap(rid="create_event_fab"), Fill("event_title_input", "项目"), Tap(rid="date_clear"),
        Fill("event_date_input", "2026-02-10"), Fill("event_start_input", "14:00"), Fill("event_end_input", "15:00"),
        Tap(rid="save_event"), *_chat("team-chat", "项目讨论会 2026-02-10 14:00-15:00")]), 0.5),
    ("MattermostResponseGeneralTask", _steps(_chat("Off-Topic", "Acknowledged, checking now")), 0.0),  # other channel
    ("MattermostResponseGeneralTask", _steps(_chat("Town Square", "on it")), 0.0),                     # no ack word
    ("MorningPaperReadingGeneralTask", lambda c: [open_app("Chrome"), Fill("url_bar", _const(c, "TARGET_URLS")[0]),
                                                  enter(), finish()], 0.0),                     # one of the two sites
    ("PreMeetingPrepGeneralTask", lambda c: [open_app("Files"), Tap(text="Documents"),          # opened, then left
                                             Tap(text=_const(c, "DOC_NAME")), Tap(rid="open"), home(), finish()], 0.0),
    ("SearchTopInfoGeneralTask", lambda c: [open_app("Mail"), Tap(rid="compose_button"),       # no 'AI' in the subject
                                            Fill("to", _const(c, "KEVIN_EMAIL")), Fill("subject", "News"),
                                            Fill("body", "Here is the recent news in the field: a driverless bus "
                                                         "line opened."), Tap(rid="send"), finish()], 0.7),
    ("SharePhotosGeneralTask", lambda c: [open_app("Gallery"), Tap(rid="select_mode"), Tap(contains="image1.jpeg"),
                                          Tap(rid="share_selected"), Tap(rid="share_mail"),
                                          Fill("to", _const(c, "EMAIL_ADDRESS")), Fill("subject", "Flowers"),
                                          Tap(rid="send"), finish()], 0.8),                     # no text
    ("BuyComputerGeneralTask", _steps([open_app("Taodian"), Fill("search_input", "MacBook Pro"),
                                       Tap(rid="search_button"), Tap(text="MacBook Pro 14-inch M3 8GB/512GB"),
                                       Tap(rid="buy_now"), Fill("receiver_name", "张伟"),
                                       Fill("receiver_phone", "13800138001"),  # one digit of the phone wrong
                                       Fill("receiver_address", "杭州市西湖区文三路 478 号浙大科技园"),
                                       Tap(rid="submit_order"), finish()]), 0.0),
    ("OrderLunchTradeoffGeneralTask", _steps(_food("chilemei", "Green Bowl", "Grilled chicken salad")), 0.0),  # 32
    ("DeleteItemOverBudgetGeneralTask", _steps([open_app("Taodian"), Tap(rid="cart_button"),  # the shoes too
                                                *[Tap(rid="select_item", near=t) for t in (
                                                    "Cashmere sweater", "Denim jacket", "Leather sneakers")],
                                                Tap(rid="delete_selected_items"), finish()]), 0.0),
]


def test_every_official_check_has_a_near_miss() -> None:
    """The invite task has its own near miss below; the two judged commutes are in the judge test."""
    covered = {task_id for task_id, _, _ in NEAR_MISSES} | {"CalendarInviteConflictResolutionGeneralTask"}
    assert covered == set(OFFICIAL_CHECKS)


def _class_of(env: KnowUEnv, task_id: str) -> OfficialClass:
    task = next(t for t in env.tasks if t.task_id == task_id)
    assert isinstance(task, OfficialGeneralTask)
    return task.official


@pytest.mark.parametrize(("task_id", "plan", "score"), NEAR_MISSES)
def test_near_misses_fail_as_the_official_check(any_env: KnowUEnv, task_id: str, plan: Plan, score: float) -> None:
    info = run(any_env, task_id, plan(_class_of(any_env, task_id)))
    assert info["score"] == pytest.approx(score) and not info["metrics"]["success"], info["metrics"]["reason"]


def test_invite_reply_without_acceptance_gets_the_calendar_part_only(any_env: KnowUEnv) -> None:
    cls = _class_of(any_env, "CalendarInviteConflictResolutionGeneralTask")
    start, end = (f"{h:02d}:{m:02d}" for h, m in (_const(cls, "INVITE_START_HM"), _const(cls, "INVITE_END_HM")))
    plan: list[Step] = [open_app("Messages"), Tap(text=_const(cls, "INVITER_PHONE")),
                        Fill("compose_message_text", "hmm"), Tap(rid="send_message_button"), open_app("Calendar"),
                        Tap(rid="create_event_fab"), Fill("event_title_input", "meeting"), Tap(rid="date_clear"),
                        Fill("event_date_input", "2026-02-10"), Fill("event_start_input", start),
                        Fill("event_end_input", end), Tap(rid="save_event"), finish()]
    info = run(any_env, "CalendarInviteConflictResolutionGeneralTask", plan)
    assert info["score"] == pytest.approx(0.6)


def _judged_score(release: OfficialRelease, name: str, plan_text: str, **options: object) -> tuple[float, str]:
    from personal_envs.core.task import EpisodeTrace
    from personal_envs.knowu.official.registry import build_variant
    from personal_envs.simulators.phone.apps.maps import RouteQuery
    from personal_envs.simulators.phone.phone import Phone

    task = build_variant(name, parse_release(release), **options)
    phone = Phone(now=task.start)
    task.prepare(phone)
    phone.maps.queries.append(RouteQuery(CAMPUS, PARK, "taxi", 25, task.start))  # the plan follows a lookup
    trace = EpisodeTrace()
    trace.answer = plan_text
    verdict = task.verify(phone, trace)
    return verdict.score, verdict.reason


def test_judged_commutes_use_the_official_prompt_and_parsing(release: OfficialRelease,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    from personal_envs.llm.testing import ScriptedChatServer

    source = parse_release(release)
    system = source.get("CommuteLateNightGeneralTask").method("_query_late_night_judge").messages[0]["content"]
    replies = iter(["<think>taxi</think><score>\n0.9\n</score>", {"status": 500, "message": "down"}])
    with ScriptedChatServer(lambda request: next(replies)) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        score, reason = _judged_score(release, "CommuteLateNightGeneralTask", "打车回去，约 25 分钟", judge="llm")
        assert score == pytest.approx(0.9) and "(llm)" in reason
        sent = server.requests[0]["messages"]
        assert sent[0] == {"role": "system", "content": system} and "打车回去，约 25 分钟" in sent[1]["content"]
        failed, why = _judged_score(release, "CommuteLateNightGeneralTask", "打车", judge="llm")
        assert failed == 0.0 and "judge error" in why  # visible, not the official silent 0.5
    assert _judged_score(release, "CommuteLateNightGeneralTask", "Take the metro line 2.")[0] == 0.0
    assert _judged_score(release, "CommuteRoutingBadWeatherGeneralTask", "Cycle there, 27 min.")[0] == 0.0
    assert "deterministic fallback" in _judged_score(release, "CommuteRoutingBadWeatherGeneralTask", "Take a taxi")[1]


@pytest.mark.parametrize("task_id", sorted(ANSWER_GROUNDING))
def test_by_default_an_answer_counts_only_behind_its_lookup(official_dir: Path, task_id: str) -> None:
    """Issue 28: the official checks of these classes read only the answer text, and the audit's "answer with the
    observation's text" (no lookup) earned 1.0, 0.5 or 0.4 on four of them; by default it earns what no answer
    earns, under ``protocol="paper"`` what the official check gives it.  The oracle looks up first: 1.0."""
    scores = {}
    for protocol in (None, "paper"):
        env = KnowUEnv(family="general", task=task_id, data_dir=str(official_dir), screenshot=False,
                       protocol=protocol, ui_hierarchy=True)
        try:
            obs, _ = env.reset()
            _, empty, *_ = env.step({"action_type": "finished"})
            obs, _ = env.reset()
            seen = f"{obs['context']} {obs['instruction']}"[:2000]
            _, dumped, *_, info = env.step({"action_type": "answer", "text": seen})
            scores[protocol] = (float(empty), float(dumped))
            assert run(env, task_id, env.task.oracle_plan())["score"] == 1.0
        finally:
            env.close()
    assert scores[None][1] == scores[None][0] == 0.0
    assert scores["paper"][1] >= scores[None][1]


@pytest.mark.parametrize("render", ["text", "browser"])
def test_seeded_notifications_show_in_the_shade_and_open_their_app(official_dir: Path, render: str) -> None:
    """Tasks that seed a notification (the birthday and pre-meeting reminders): pulling the shade shows it with its
    app's label, and tapping it opens that app (a notification seeded under an app's label once broke every step
    after the shade was pulled)."""
    environment = KnowUEnv(family="general", data_dir=str(official_dir), screenshot=False, render=render)
    try:
        seeded = 0
        for index in range(environment.num_tasks):
            environment.reset(seed=0, options={"task_index": index})
            notes = list(environment.backend.phone.device.notifications)
            if not notes:
                continue
            seeded += 1
            obs, _, _, _, info = environment.step(
                {"action_type": "drag", "start_x": 540, "start_y": 30, "end_x": 540, "end_y": 1400})
            assert not info.get("error"), info.get("error")
            label = environment.backend.phone.apps[notes[0].app].label
            assert f"{label} · {notes[0].title}" in obs["ui_xml"]
            left, top, right, bottom = next(n.bounds for n in parse_ui_xml(obs["ui_xml"])
                                            if n.resource_id.endswith(":id/notification"))
            obs, _, _, _, info = environment.step(
                {"action_type": "click", "x": (left + right) // 2, "y": (top + bottom) // 2})
            assert not info.get("error"), info.get("error")
            route = environment.backend.phone.route
            assert route is not None and route.app == notes[0].app
        assert seeded >= 2
    finally:
        environment.close()
