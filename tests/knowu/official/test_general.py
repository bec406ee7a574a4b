"""The 42 official general tasks: built by official name from the release, solved by the oracle through the UI,
near misses scored as the official checks score them, no answer key before the end."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from personal_envs.knowu.env import KnowUEnv
from personal_envs.knowu.official.general.tasks import (
    JUDGED,
    OFFICIAL_CHECKS,
    OfficialGeneralTask,
)
from personal_envs.knowu.official.registry import build_family, variant_names
from personal_envs.knowu.official.release import OFFICIAL_LABEL, PROJECT_LABEL, OfficialRelease
from personal_envs.knowu.official.source import parse_release
from personal_envs.knowu.oracle import Fill, Step, Tap, answer, enter, finish, home, open_app
from personal_envs.knowu.personas import PersonaSet
from tests.knowu.helpers import oracle_infos
from tests.knowu.helpers import run_oracle as run


@pytest.fixture(scope="module")
def env(official_dir: Path) -> Iterator[KnowUEnv]:
    environment = KnowUEnv(split="general", data_dir=str(official_dir), screenshot=False)
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


def test_oracle_solves_all_42_through_the_ui(env: KnowUEnv) -> None:
    assert env.num_tasks == 42 and env.task_set_label == OFFICIAL_LABEL
    infos = oracle_infos(env)  # fails naming any task below 1.0, or any answer key seen before the end
    assert len(infos) == 42
    assert all(info["metrics"]["task_set"] == OFFICIAL_LABEL for info in infos)
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


#: (official class, a near-miss plan, the score the official check gives its end state).
NEAR_MISSES: list[tuple[str, list[Step], float]] = [
    ("MessagesAskMomMoneyGeneralTask", _sms("Dad", "2000 生活费"), 0.0),     # wrong person
    ("MessagesAskMomMoneyGeneralTask", _sms("Mom", "hello"), 0.6),           # sent, content off: 0.5 + 0.1
    ("SetAlarmGeneralTask", _alarm("08:45"), 0.8),                           # weekend alarm, hour right: 0.5 + 0.3
    ("SetAlarmGeneralTask", _alarm("09:30"), 0.5),                           # weekend alarm, wrong time
    ("MattermostLeaveNoticeGeneralTask", _chat("Off-Topic", "sick leave today"), 0.8),  # wrong channel: +0.1
    ("MattermostLeaveNoticeGeneralTask", _chat("Town Square", "hello all"), 0.7),       # no leave words
    ("ClockOutGeneralTask", _chat("Town Square", "hello"), 0.0),             # no clock-out keyword
    ("BirthdayWishGeneralTask", _sms("Mom", "hi"), 0.0),                     # no birthday keyword
    ("ScamSmsInterceptGeneralTask", [open_app("Messages"), Tap(text="1069012345678"),
                                     Fill("compose_message_text", "stop"), Tap(rid="send_message_button"),
                                     Tap(rid="block_button"), Tap(rid="dialog_block"), finish()], 0.0),  # replied
    ("HighlightImportantSmsSenderGeneralTask", [open_app("Contacts"), Tap(rid="create_contact_fab"),
                                                Fill("contact_name", "Project Office"),
                                                Fill("contact_phone", "13577776666"), Tap(rid="save_contact"),
                                                finish()], 0.5),             # saved, not starred
    ("DeepWorkGeneralTask", [finish()], 0.0),
    ("SortFilesGeneralTask", [open_app("Files"), Tap(text="Download"), Tap(rid="sort_button"),
                              Tap(rid="sort_modified_asc"), finish()], 0.5),   # oldest first
    ("SendWeeklyReportGeneralTask", [open_app("Mail"), Tap(rid="compose_button"), Fill("to", "dean@ftu.edu.cn"),
                                     Fill("subject", "Weekly Report"), Tap(rid="send"), finish()], 0.4),  # no file
    ("CommuteRoutingSunnyGeneralTask", [answer("Go now.")], 0.2),
    ("SearchWhiteSneakersCheckoutGeneralTask", _buy("经典白色帆布运动鞋", "size=41"), 0.8),  # size 41: -0.2
    ("NoteTheCourierGeneralTask", _buy("三人位布艺沙发 灰色"), 0.7),                     # no courier note: -0.3
    ("BuyColaGeneralTask", _buy("无糖可乐 罐装 330ml×24", "sku=半箱"), 0.0),            # half case: all or nothing
    ("DeleteItemsGeneralTask", [open_app("Taodian"), Tap(rid="cart_button"),  # one by one: the last callback
                                *[Tap(rid="delete_item", near=t) for t in ("Bluetooth earbuds", "USB-C charger 65W",
                                                                            "Silicone phone case")], finish()], 0.0),
    ("CartManagementGeneralTask", [open_app("Taodian"), Tap(rid="cart_button"),  # one sport item left in the cart
                                   Tap(rid="select_item", near="Men's running jacket"),
                                   Tap(rid="select_item", near="Basketball shorts"),
                                   Tap(rid="delete_selected_items"), finish()], 0.0),
    ("OrderLunchFirstTimeGeneralTask", _food("tuantuan", "Spicy Corner", "鱼香肉丝"), 0.0),  # the other app
    ("TakeoutRemarkGeneralTask", _food("chilemei", "Sichuan Kitchen", "宫保鸡丁盖饭", "不要花生"), 0.0),  # remark cut
    ("MastodonInterestBoostGeneralTask", _chat("Off-Topic", "AI news"), 0.6),  # no link, wrong channel: 0.5 + 0.1
    ("MastodonSharePhotosGeneralTask", [open_app("Mastodon"), Tap(rid="compose_fab"),
                                        Fill("compose_text", "Nice shot from today!"), Tap(rid="publish"),
                                        finish()], 0.0),  # caption without the photo
    ("GalleryCleanupGeneralTask", [open_app("Gallery"), Tap(rid="tab_Screenshots"), Tap(rid="select_mode"),
                                   *[Tap(contains=f"Screenshot_{i}.png") for i in (1, 2, 3)],
                                   Tap(rid="delete_selected"), Tap(rid="dialog_delete"), finish()], 0.0),  # all gone
    ("MorningWeatherCheckGeneralTask", [answer("Hangzhou weather: light rain, 25°C.")], 0.0),  # wrong temperature
    ("MastodonPrivacyDefaultGeneralTask", [open_app("Mastodon"), Tap(rid="compose_fab"),
                                           Fill("compose_text", "hello"), Tap(rid="visibility_private"),
                                           Tap(rid="publish"), finish()], 0.2),  # other text, not public           # a plan without route words
    ("CommuteLateWithNoticeGeneralTask", _chat("Town Square", "hello"), 0.3),  # notice off-topic, no plan
    ("WeekendSleeperGeneralTask", [open_app("Clock"), Tap(rid="alarm_switch", near="07:00"), finish()], 0.0),
    ("BatterySaverGeneralTask", [open_app("Settings"), Tap(rid="settings_battery"), Tap(rid="battery_saver"),
                                 Tap(rid="battery_saver"), finish()], 0.0),                 # on, then off again
    ("BluetoothCleanupGeneralTask", [open_app("Settings"), Tap(rid="settings_sound"),
                                     *[Tap(rid="media_volume_down")] * 9, finish()], 0.0),  # 1 of 10 left: audible
    ("NightSocialGeneralTask", [open_app("Settings"), Tap(rid="settings_notifications"), Tap(rid="do_not_disturb"),
                                finish()], 0.0),                                            # DND, not dark mode
    ("DailyFamilyCallGeneralTask", [open_app("Contacts"), Tap(text="Son (Qiang)"), finish()], 0.0),  # no call
    ("ContactSaverGeneralTask", [open_app("Contacts"), Tap(rid="create_contact_fab"), Fill("contact_name", "Bobby"),
                                 Fill("contact_phone", "5550199"), Tap(rid="save_contact"), finish()], 0.0),  # name
    ("CalendarScheduleGroupMeetingGeneralTask", [                     # title without a meeting keyword: post only
        open_app("Calendar"), Tap(rid="create_event_fab"), Fill("event_title_input", "项目"), Tap(rid="date_clear"),
        Fill("event_date_input", "2026-02-10"), Fill("event_start_input", "14:00"), Fill("event_end_input", "15:00"),
        Tap(rid="save_event"), *_chat("team-chat", "项目讨论会 2026-02-10 14:00-15:00")], 0.5),
    ("MattermostResponseGeneralTask", _chat("Off-Topic", "Acknowledged, checking now"), 0.0),  # other channel
    ("MattermostResponseGeneralTask", _chat("Town Square", "on it"), 0.0),                     # no ack keyword
    ("MorningPaperReadingGeneralTask", [open_app("Chrome"), Fill("url_bar", "https://www.alphaxiv.org"), enter(),
                                        finish()], 0.0),                                    # one of the two sites
    ("PreMeetingPrepGeneralTask", [open_app("Files"), Tap(text="Documents"),                # opened, then left
                                   Tap(text="Agent_Learning_via_Early_Experience.pdf"), Tap(rid="open"), home(),
                                   finish()], 0.0),
    ("SearchTopInfoGeneralTask", [open_app("Mail"), Tap(rid="compose_button"), Fill("to", "kevin@example.com"),
                                  Fill("subject", "News"), Fill("body", "Here is the recent news in the field: "
                                                                        "a driverless bus line opened."),
                                  Tap(rid="send"), finish()], 0.7),                         # no 'AI' in the subject
    ("SharePhotosGeneralTask", [open_app("Gallery"), Tap(rid="select_mode"), Tap(contains="image1.jpeg"),
                                Tap(rid="share_selected"), Tap(rid="share_mail"), Fill("to", "kevin_zhang@example.com"),
                                Fill("subject", "Flowers"), Tap(rid="send"), finish()], 0.8),  # no text
    ("BuyComputerGeneralTask", [open_app("Taodian"), Fill("search_input", "MacBook Pro"), Tap(rid="search_button"),
                                Tap(text="MacBook Pro 14-inch M3 8GB/512GB"), Tap(rid="buy_now"),
                                Fill("receiver_name", "张伟"), Fill("receiver_phone", "13800138001"),
                                Fill("receiver_address", "杭州市西湖区文三路 478 号浙大科技园"),
                                Tap(rid="submit_order"), finish()], 0.0),           # one digit of the phone wrong
    ("OrderLunchTradeoffGeneralTask", _food("chilemei", "Green Bowl", "Grilled chicken salad"), 0.0),  # 32 yuan
    ("DeleteItemOverBudgetGeneralTask", [open_app("Taodian"), Tap(rid="cart_button"),  # the shoes too
                                         *[Tap(rid="select_item", near=t) for t in ("Cashmere sweater", "Denim jacket",
                                                                                   "Leather sneakers")],
                                         Tap(rid="delete_selected_items"), finish()], 0.0),
]


def test_every_official_check_has_a_near_miss() -> None:
    """The invite task has its own near miss below; the two judged commutes are in the judge test."""
    covered = {task_id for task_id, _, _ in NEAR_MISSES} | {"CalendarInviteConflictResolutionGeneralTask"}
    assert covered == set(OFFICIAL_CHECKS)


@pytest.mark.parametrize(("task_id", "plan", "score"), NEAR_MISSES)
def test_near_misses_fail_as_the_official_check(env: KnowUEnv, task_id: str, plan: list[Step], score: float) -> None:
    info = run(env, task_id, plan)
    assert info["score"] == pytest.approx(score) and not info["metrics"]["success"], info["metrics"]["reason"]


def test_invite_reply_without_acceptance_gets_the_calendar_part_only(env: KnowUEnv) -> None:
    plan: list[Step] = [open_app("Messages"), Tap(text="+86 139-0000-1122"), Fill("compose_message_text", "hmm"),
                        Tap(rid="send_message_button"), open_app("Calendar"), Tap(rid="create_event_fab"),
                        Fill("event_title_input", "sync"), Tap(rid="date_clear"),
                        Fill("event_date_input", "2026-02-10"), Fill("event_start_input", "10:30"),
                        Fill("event_end_input", "11:00"), Tap(rid="save_event"), finish()]
    info = run(env, "CalendarInviteConflictResolutionGeneralTask", plan)
    assert info["score"] == pytest.approx(0.6)


def test_project_tasks_stay_available_by_their_names(official_dir: Path) -> None:
    project = KnowUEnv(split="general", task="battery_saver", data_dir=str(official_dir), screenshot=False)
    try:
        assert [t.task_id for t in project.tasks] == ["battery_saver"] and project.task_set_label == PROJECT_LABEL
    finally:
        project.close()


def _judged_score(release: OfficialRelease, name: str, plan_text: str, **options: object) -> tuple[float, str]:
    from personal_envs.core.task import EpisodeTrace
    from personal_envs.knowu.official.registry import build_variant
    from personal_envs.simulators.phone.phone import Phone

    task = build_variant(name, parse_release(release), **options)
    phone = Phone(now=task.start)
    task.prepare(phone)
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
