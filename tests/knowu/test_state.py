"""The one reader of phone state: every field of the end state read from a real phone after real UI actions."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import closing
from datetime import datetime
from typing import Any

import pytest

from personal_envs.core.task import EpisodeTrace, Evaluation
from personal_envs.knowu.env import KnowUEnv
from personal_envs.knowu.oracle import Fill, Step, Tap, answer, open_app
from personal_envs.knowu.state import EndState, read_state
from personal_envs.knowu.task import PhoneTask
from personal_envs.knowu.world import seed_world
from personal_envs.simulators.phone.apps.shop import CartItem
from personal_envs.simulators.phone.phone import Phone
from tests.knowu.helpers import run_oracle


class WorldTask(PhoneTask):
    """The default world, a cart with two items, nothing to check (the test reads the end state itself)."""

    task_id = "state_probe"
    start = datetime(2026, 5, 22, 9, 0)

    def seed(self, phone: Phone) -> None:
        seed_world(phone)
        phone.shop("taodian").cart += [CartItem("tshirt_cotton"), CartItem("chinos")]

    def verify(self, phone: Phone, trace: EpisodeTrace) -> Evaluation:
        return Evaluation(0.0, {}, [], "probe")


PLAN: list[Step] = [
    open_app("Messages"), Tap(rid="start_chat_fab"), Fill("recipient", "Mom"),
    Fill("compose_message_text", "hello mom"), Tap(rid="send_message_button"),
    open_app("Contacts"), Tap(rid="create_contact_fab"), Fill("contact_name", "Bob"), Fill("contact_phone", "5550199"),
    Tap(rid="save_contact"), Tap(rid="favorite_button"),
    open_app("Contacts"), Tap(text="Dad"), Tap(rid="call_button"),
    open_app("Messages"), Tap(text="10086"), Tap(rid="block_button"), Tap(rid="dialog_block"),
    open_app("Clock"), Tap(rid="add_alarm_fab"), Fill("alarm_time", "08:30"), Tap(rid="day_sat"), Tap(rid="day_sun"),
    Tap(rid="save_alarm"),
    open_app("Mattermost"), Tap(text="Town Square"), Fill("post_input", "morning all"), Tap(rid="send_button"),
    open_app("Mastodon"), Tap(rid="compose_fab"), Fill("compose_text", "quiet day"), Tap(rid="visibility_private"),
    Tap(rid="publish"),
    open_app("Mail"), Tap(rid="compose_button"), Fill("to", "x@example.com"), Fill("subject", "Hi"),
    Fill("body", "Hello there"), Tap(rid="send"),
    open_app("Calendar"), Tap(rid="create_event_fab"), Fill("event_title_input", "Sync"), Tap(rid="date_clear"),
    Fill("event_date_input", "2026-05-23"), Fill("event_start_input", "10:00"), Fill("event_end_input", "10:30"),
    Tap(rid="save_event"),
    open_app("Taodian"), Tap(rid="cart_button"), Tap(rid="select_item", near="Cotton T-shirt"),
    Tap(rid="delete_selected_items"),
    open_app("Taodian"), Fill("search_input", "Classic Cola"), Tap(rid="search_button"),
    Tap(text="Classic Cola 330ml × 24 cans"), Tap(rid="buy_now"), Fill("receiver_name", "Zhang Wei"),
    Fill("receiver_phone", "13800138000"), Fill("receiver_address", "478 Wensan Road"), Fill("order_note", "ring twice"),
    Tap(rid="submit_order"),
    open_app("Files"), Tap(text="Download"), Tap(rid="sort_button"), Tap(rid="sort_modified_desc"),
    open_app("Chrome"), Fill("url_bar", "news.example.com"), Tap(rid="go_button"),
    answer("all done"),
]


@pytest.fixture(scope="module")
def end() -> Iterator[EndState]:
    with closing(KnowUEnv(family="general", tasks=[WorldTask()], screenshot=False, max_steps=400)) as env:
        run_oracle(env, "state_probe", PLAN)
        env.trace.dialogue.clear()
        yield read_state(env.phone, env.trace)


def _one(items: list[dict[str, Any]]) -> dict[str, Any]:
    assert len(items) == 1, items
    return items[0]


def test_messages_contacts_and_calls(end: EndState) -> None:
    sent = _one(end.sent_sms(new_only=True))
    assert sent["text"] == "hello mom" and sent["contact"] == "Mom"
    assert end.sent_sms() and any(not m["new"] for m in end.sent_sms())  # the world's own sent message is old
    assert end.blocked_new == ["10086"] and "10086" in end.blocked
    bob = _one(end.new(end.contacts))
    assert (bob["name"], bob["phone"], bob["starred"], bob["was_starred"]) == ("Bob", "5550199", True, False)
    mom = next(c for c in end.contacts if c["name"] == "Mom")
    assert mom["starred"] and mom["was_starred"] and not mom["new"]
    assert _one(end.new(end.calls))["outgoing"]


def test_alarms_posts_toots_mail_and_events(end: EndState) -> None:
    alarm = _one(end.new(end.alarms))
    assert alarm["time"] == "08:30" and alarm["enabled"] and {"Sat", "Sun"} <= set(alarm["days"])
    assert len(end.alarms) == 3  # the world's two alarms are kept, not new
    post = _one(end.my_posts())
    assert (post["channel"], post["display"], post["text"]) == ("town-square", "Town Square", "morning all")
    assert len(end.posts) > 1 and not any(p["mine"] for p in end.posts if not p["new"])
    toot = _one(end.new(end.toots))
    assert (toot["text"], toot["visibility"]) == ("quiet day", "private")
    mail = _one(end.new(end.mails))
    assert (mail["to"], mail["subject"], mail["body"], mail["attachments"]) == (["x@example.com"], "Hi",
                                                                                 "Hello there", [])
    event = _one(end.new(end.events))
    assert (event["title"], event["start"], event["end"]) == ("Sync", "2026-05-23 10:00", "2026-05-23 10:30")


def test_orders_carts_files_browser_and_answer(end: EndState) -> None:
    app, order = end.last_order(("taodian", "jingdian"))
    assert app == "taodian" and order is not None
    assert (order["name"], order["address"], order["note"]) == ("Zhang Wei", "478 Wensan Road", "ring twice")
    assert [i["title"] for i in order["items"]] == ["Classic Cola 330ml × 24 cans"]
    assert end.last_order(("chilemei", "tuantuan")) == ("", None)
    assert [i["id"] for i in end.cart_removed["taodian"]] == ["tshirt_cotton"] and not end.cart_removed["jingdian"]
    assert end.deletions["taodian"] == [(["tshirt_cotton"], ["tshirt_cotton", "chinos"])]
    download = end.files["Download"]
    assert download["sort"] == "modified_desc" and end.files_view == "Download"
    stamps = [f["modified"] for f in download["items"]]
    assert stamps == sorted(stamps, reverse=True) and len(stamps) == 4
    assert end.history[-1].startswith("news.example.com") and any("weather" in url for url in end.pages)
    assert end.answer == "all done" and end.start == WorldTask.start and end.now >= end.start
    assert end.device["battery_saver"] is False and 0 <= end.device["media_volume"] <= 10
    assert {p["album"] for p in end.photos} == {"Camera"}


def test_a_phone_never_marked_counts_everything_as_new() -> None:
    phone = Phone(now=WorldTask.start)
    seed_world(phone)
    unmarked = read_state(phone)
    WorldTask().prepare(phone)
    marked = read_state(phone)
    assert unmarked.sent_sms(new_only=True) and not marked.sent_sms(new_only=True)
    assert unmarked.new(unmarked.alarms) and not marked.new(marked.alarms)
