"""UI plans that realize a KnowU task's rule checks on the simulated phone.

:func:`plan_for_checks` turns the checks of a :class:`~personal_envs.knowu.taskspec.KnowUTask` (orders, messages,
posts, settings, alarms ...) into oracle steps (:mod:`personal_envs.knowu.oracle`): taps located in ``ui_xml`` by
resource-id or text, text fields filled, and raw actions.  The plans only use what an agent sees on the screen; the
oracle is privileged only in knowing which checks the task has.  An :class:`AnswerCheck` becomes the final
``answer`` (which ends the episode); otherwise the plan ends with ``finished``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import parse_qs, urlparse

from personal_envs.knowu.oracle import Do, Fill, Step, Tap, answer, finish, open_app
from personal_envs.knowu.phone_state import PAYMENT_TO_PHONE, SORT_KEY_TO_PHONE, VISIBILITY_TO_PHONE
from personal_envs.knowu.taskspec import (
    AlarmCheck,
    AnswerCheck,
    BlockSenderCheck,
    CalendarEventCheck,
    CallCheck,
    ChannelPostCheck,
    Check,
    ChromeVisitCheck,
    ConsentFirstCheck,
    ContactCheck,
    DocOpenCheck,
    FilesSortCheck,
    ListPruneCheck,
    MailCheck,
    MastodonPostCheck,
    OrderCheck,
    SettingCheck,
    SmsCheck,
    State,
    app,
    listed,
)

#: App labels on the phone for the state's app keys.
APP_LABELS: Mapping[str, str] = {"taodian": "Taodian", "jingdian": "jingdian", "chilemei": "chilemei",
                                 "tuantuan": "tuantuan"}
#: Settings key -> (Settings screen row, toggle resource-id).
SETTING_TOGGLES: Mapping[str, tuple[str, str]] = {
    "battery_saver": ("settings_battery", "battery_saver"), "do_not_disturb": ("settings_notifications", "do_not_disturb"),
    "dark_mode": ("settings_display", "dark_theme"), "bluetooth": ("settings_bluetooth", "bluetooth"),
    "wifi": ("settings_network", "wifi"),
}


def consent_question(check: ConsentFirstCheck) -> Do:
    """The ``ask_user`` step that asks for consent."""
    return Do({"action_type": "ask_user", "text": check.question})


def plan_for_checks(checks: Sequence[Check], state: State, *, ask_first: str | None = None) -> list[Step]:
    """Steps that make every check hold, starting from ``state``; ``ask_first`` asks the user that question first."""
    steps: list[Step] = []
    if ask_first:
        steps.append(Do({"action_type": "ask_user", "text": ask_first}))
    closing: list[Step] = [finish()]
    for check in checks:
        if isinstance(check, ConsentFirstCheck):
            if not ask_first:
                steps.insert(0, consent_question(check))
        elif isinstance(check, AnswerCheck):
            closing = [answer(check.text)]
        else:
            steps.extend(_plan(check, state))
    return steps + closing


def _plan(check: Check, state: State) -> list[Step]:
    planner = _PLANNERS.get(type(check))
    return planner(check, state) if planner is not None else []


def _setting(check: Any, state: State) -> list[Step]:
    current = app(state, "settings").get(check.key)
    if check.key == "media_volume":
        steps = int(round((int(current or 0) - int(check.value)) / 10))
        arrow = "media_volume_down" if steps > 0 else "media_volume_up"
        return [open_app("Settings"), Tap(rid="settings_sound"), *[Tap(rid=arrow)] * abs(steps)]
    if current == check.value or check.key not in SETTING_TOGGLES:
        return []
    row, toggle = SETTING_TOGGLES[check.key]
    return [open_app("Settings"), Tap(rid=row), Tap(rid=toggle)]


def _alarm(check: Any, state: State) -> list[Step]:
    existing = [a for a in listed(state, "clock", "alarms") if isinstance(a, dict) and a.get("time") == check.time]
    if existing:
        alarm = existing[0]
        needs_edit = (check.ringtone is not None and alarm.get("ringtone") != check.ringtone) or (
            check.days and not set(check.days) <= {str(d)[:3].capitalize() for d in alarm.get("days", [])})
        if not needs_edit:
            return [open_app("Clock"), Tap(rid="alarm_switch", near=check.time)] if bool(
                alarm.get("enabled")) != check.enabled else []
        have = {str(d)[:3].capitalize() for d in alarm.get("days", [])}
        steps: list[Step] = [open_app("Clock"), Tap(text=check.time)]
        steps += [Tap(rid=f"day_{d.lower()}") for d in check.days if d not in have]
    else:
        steps = [open_app("Clock"), Tap(rid="add_alarm_fab"), Fill("alarm_time", check.time)]
        if check.label:
            steps.append(Fill("alarm_label", check.label))
        steps += [Tap(rid=f"day_{d.lower()}") for d in check.days]
    if check.ringtone is not None:
        steps += [Tap(rid="alarm_sound"), Tap(text=check.ringtone)]
    steps.append(Tap(rid="save_alarm"))
    if not check.enabled:
        steps.append(Tap(rid="alarm_switch", near=check.time))
    return steps


def _sms(check: Any, state: State) -> list[Step]:
    return [open_app("Messages"), Tap(rid="start_chat_fab"), Fill("recipient", check.number or check.contact),
            Fill("compose_message_text", check.text), Tap(rid="send_message_button")]


def _channel(check: Any, state: State) -> list[Step]:
    return [open_app("Mattermost"), Tap(text=check.channel), Fill("post_input", check.text), Tap(rid="send_button")]


def _mail(check: Any, state: State) -> list[Step]:
    steps: list[Step] = [open_app("Mail"), Tap(rid="compose_button"), Fill("to", check.to), Fill("subject", check.subject),
                         Fill("body", check.body)]
    if check.attachments:
        steps += [Tap(rid="add_attachment"), Tap(text=check.attachments[0])]
    return [*steps, Tap(rid="send")]


def _mastodon(check: Any, state: State) -> list[Step]:
    visibility = VISIBILITY_TO_PHONE.get(check.visibility, check.visibility)
    steps: list[Step] = [open_app("Mastodon"), Tap(rid="compose_fab"), Fill("compose_text", check.text),
                         Tap(rid=f"visibility_{visibility}")]
    if check.media:
        steps += [Tap(rid="add_media"), Tap(text=check.media[0])]
    return [*steps, Tap(rid="publish")]


def _calendar(check: Any, state: State) -> list[Step]:
    if not check.present:
        return []
    hour, minute = (int(x) for x in check.earliest.split(":"))
    end_total = hour * 60 + minute + check.duration_minutes
    end = f"{end_total // 60 % 24:02d}:{end_total % 60:02d}"
    return [open_app("Calendar"), Tap(rid="create_event_fab"), Fill("event_title_input", check.title),
            Tap(rid="date_clear"), Fill("event_date_input", check.date), Fill("event_start_input", check.earliest),
            Fill("event_end_input", end), Tap(rid="save_event")]


def _contact(check: Any, state: State) -> list[Step]:
    steps: list[Step] = [open_app("Contacts"), Tap(rid="create_contact_fab"), Fill("contact_name", check.name),
                         Fill("contact_phone", check.phone)]
    if check.note:
        steps.append(Fill("contact_note", check.note))
    steps.append(Tap(rid="save_contact"))
    if check.highlighted:
        steps.append(Tap(rid="favorite_button"))
    return steps


def _files_sort(check: Any, state: State) -> list[Step]:
    key = SORT_KEY_TO_PHONE.get(check.key, check.key)
    return [open_app("Files"), Tap(text=check.folder), Tap(rid="sort_button"), Tap(rid=f"sort_{key}_{check.order}")]


def _doc_open(check: Any, state: State) -> list[Step]:
    return [open_app("Docreader"), Tap(text=check.file_name)]


def _chrome(check: Any, state: State) -> list[Step]:
    query = parse_qs(urlparse(check.url).query).get("q")
    target = query[0] if query else check.url
    return [open_app("Chrome"), Fill("url_bar", target), Tap(rid="go_button")]


def _call(check: Any, state: State) -> list[Step]:
    return [open_app("Contacts"), Tap(text=check.name), Tap(rid="call_button")]


def _block(check: Any, state: State) -> list[Step]:
    return [open_app("Messages"), Tap(text=check.number), Tap(rid="block_button"), Tap(rid="dialog_block"),
            Tap(rid="delete_thread_button"), Tap(rid="dialog_delete")]


def _prune(check: Any, state: State) -> list[Step]:
    if check.app_name == "gallery":
        names = {str(p.get("id")): str(p.get("name")) for album in listed(state, "gallery", "albums")
                 if isinstance(album, dict) for p in album.get("photos", []) if isinstance(p, dict)}
        steps: list[Step] = [open_app("Gallery")]
        if check.album:
            steps.append(Tap(rid=f"tab_{check.album}"))
        steps.append(Tap(rid="select_mode"))
        steps += [Tap(contains=names.get(pid, pid)) for pid in check.remove]
        return [*steps, Tap(rid="delete_selected"), Tap(rid="dialog_delete")]
    titles = {str(i.get("id")): str(i.get("title")) for i in listed(state, check.app_name, check.key)
              if isinstance(i, dict)}
    return [open_app(APP_LABELS.get(check.app_name, check.app_name)), Tap(rid="cart_button"),
            *[Tap(rid="delete_item", near=titles.get(pid, pid)) for pid in check.remove]]


def _order(check: Any, state: State) -> list[Step]:
    label = APP_LABELS.get(check.app_name, check.app_name)
    address = check.address or check.address_contains or "Home"
    item_id = check.acceptable[0]
    holder = app(state, check.app_name)
    tail: list[Step] = [Fill("receiver_address", address)]
    if check.note_text or check.note_keywords:
        tail.append(Fill("order_note", check.note_text or " ".join(check.note_keywords)))
    if "restaurants" in holder:
        for restaurant in holder.get("restaurants", []):
            for dish in restaurant.get("dishes", []):
                if dish.get("id") == item_id:
                    pay = [Tap(rid=f"pay_{PAYMENT_TO_PHONE.get(check.payment, check.payment)}")] \
                        if check.payment is not None else []
                    return [open_app(label), Tap(text=str(restaurant["name"])),
                            Tap(rid="add_dish", near=str(dish["name"])), Tap(rid="add_to_basket"),
                            Tap(rid="basket_button"), *tail, *pay, Tap(rid="place_order")]
        return []
    title = next((str(i.get("title")) for i in holder.get("catalog", []) if i.get("id") == item_id), item_id)
    steps: list[Step] = [open_app(label), Fill("search_input", title), Tap(rid="search_button"), Tap(text=title)]
    if check.size is not None:
        steps.append(Tap(rid=f"option_size={check.size}"))
    steps.append(Tap(rid="buy_now"))
    steps += tail
    if check.payment is not None:
        steps.append(Tap(rid=f"pay_{PAYMENT_TO_PHONE.get(check.payment, check.payment)}"))
    return [*steps, Tap(rid="submit_order")]


_PLANNERS: dict[type, Any] = {
    SettingCheck: _setting, AlarmCheck: _alarm, SmsCheck: _sms, ChannelPostCheck: _channel, MailCheck: _mail,
    MastodonPostCheck: _mastodon, CalendarEventCheck: _calendar, ContactCheck: _contact, FilesSortCheck: _files_sort,
    DocOpenCheck: _doc_open, ChromeVisitCheck: _chrome, CallCheck: _call, BlockSenderCheck: _block,
    ListPruneCheck: _prune, OrderCheck: _order,
}
