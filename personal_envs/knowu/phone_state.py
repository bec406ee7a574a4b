"""Adapters between a :class:`~personal_envs.knowu.taskspec.KnowUTask`'s app-state dicts and the simulated phone.

:func:`seed_phone` fills a :class:`~personal_envs.simulators.phone.phone.Phone` from ``task.initial_state()`` and
``task.context`` and returns a :class:`SeedRecord` that remembers which phone object came from which state dict.
:func:`export_state` reads the phone back into the shapes documented in :mod:`personal_envs.knowu.taskspec`, for
the apps the task seeded.  Objects the agent did not touch export as their original dicts, so a phone nobody
touched exports exactly ``task.initial_state()`` (the proactive "stay silent" check compares the two).

Value mappings (state <-> phone): Mastodon ``followers-only`` <-> ``private``; payment ``wechat_pay`` /
``bank_card`` / ``cash_on_delivery`` <-> ``wechat`` / ``card`` / ``cod``; Files ``date`` <-> ``modified``;
media volume 0-100 <-> 0-10 steps; contact ``highlighted`` <-> starred (favourite).
"""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import unquote_plus

from personal_envs.knowu.taskspec import KnowUTask, State
from personal_envs.simulators.phone.apps.calendar import Event
from personal_envs.simulators.phone.apps.chrome import canonical_url
from personal_envs.simulators.phone.apps.contacts import Call
from personal_envs.simulators.phone.apps.files import SORT_ORDERS
from personal_envs.simulators.phone.apps.food import Dish
from personal_envs.simulators.phone.apps.mattermost import ChatPost
from personal_envs.simulators.phone.apps.messages import Sms, normalize_number
from personal_envs.simulators.phone.apps.shop import CartItem, Order
from personal_envs.simulators.phone.phone import Phone

VISIBILITY_TO_PHONE: Mapping[str, str] = {"followers-only": "private", "followers": "private"}
VISIBILITY_FROM_PHONE: Mapping[str, str] = {"private": "followers-only"}
PAYMENT_TO_PHONE: Mapping[str, str] = {"wechat_pay": "wechat", "bank_card": "card", "cash_on_delivery": "cod"}
PAYMENT_FROM_PHONE: Mapping[str, str] = {v: k for k, v in PAYMENT_TO_PHONE.items()}
SORT_KEY_TO_PHONE: Mapping[str, str] = {"date": "modified"}
SORT_KEY_FROM_PHONE: Mapping[str, str] = {"modified": "date"}
#: Owner e-mail address of KnowU phones (neutral: nothing from the hidden profile).
MAIL_ADDRESS = "me@example.com"
#: Web pages every KnowU phone serves in Chrome (the task's own pages are added to them).
WEB_PAGES: tuple[tuple[str, str, str], ...] = (
    ("https://arxiv.org/list/cs.AI/new", "New submissions in Artificial Intelligence - arXiv",
     "Today's new preprints in cs.AI, with abstracts and PDF links."),
    ("https://www.biorxiv.org/collection/neuroscience", "bioRxiv - Neuroscience",
     "The latest neuroscience preprints posted to bioRxiv."),
    ("https://huggingface.co/papers", "Daily Papers - Hugging Face", "Papers picked by the community today."),
    ("https://weather.example.com/", "Weather today", "Cloudy with showers later; 9 to 14 C; take an umbrella."),
    ("https://news.example.com/", "City News", "Local headlines: metro line extension opens next month."),
    ("https://github.com/trending", "Trending repositories on GitHub", "See what the community is excited about today."),
)


@dataclass
class SeedRecord:
    """Which phone object came from which state dict (the objects are kept alive so their ids stay unique)."""

    initial: State
    numbers: dict[str, str] = field(default_factory=dict)
    seeded: list[Any] = field(default_factory=list)
    originals: dict[int, dict[str, Any]] = field(default_factory=dict)
    snapshots: dict[int, dict[str, Any]] = field(default_factory=dict)
    synthetic_contacts: set[str] = field(default_factory=set)
    extra_products: dict[str, set[str]] = field(default_factory=dict)
    device_snapshot: dict[str, Any] = field(default_factory=dict)
    files_snapshot: tuple[str, str] = ("", "")
    docs_opened: int = 0
    mastodon_default: str = "public"

    def link(self, obj: Any, original: Mapping[str, Any], snapshot: Mapping[str, Any] | None = None) -> None:
        """Remember that ``obj`` was seeded from ``original`` (and its phone-side values at seed time)."""
        self.seeded.append(obj)
        self.originals[id(obj)] = dict(original)
        if snapshot is not None:
            self.snapshots[id(obj)] = dict(snapshot)

    def original(self, obj: Any) -> dict[str, Any] | None:
        """A deep copy of the dict ``obj`` was seeded from, or ``None`` for objects the agent created."""
        found = self.originals.get(id(obj))
        return copy.deepcopy(found) if found is not None else None

    def merged(self, obj: Any, current: Mapping[str, Any]) -> dict[str, Any]:
        """The original dict with the fields whose phone value changed since seeding replaced by ``current``."""
        base = self.original(obj) or {}
        before = self.snapshots.get(id(obj), {})
        for key, value in current.items():
            if key not in before or before[key] != value:
                base[key] = value
        return base


# ============================================================================================== helpers
def parse_time(text: str, default: datetime) -> datetime:
    """``YYYY-MM-DD HH:MM``, ``YYYY-MM-DD`` or ``HH:MM`` (on ``default``'s day); ``default`` otherwise."""
    text = str(text or "").strip()
    for pattern in ("%Y-%m-%d %H:%M", "%Y-%m-%d"):
        try:
            return datetime.strptime(text, pattern)
        except ValueError:
            pass
    match = re.fullmatch(r"(\d{1,2}):(\d{2})", text)
    if match:
        return default.replace(hour=int(match.group(1)) % 24, minute=int(match.group(2)) % 60, second=0)
    return default


def context_start(task: KnowUTask) -> datetime:
    """The simulated date and time at the start of ``task``."""
    return parse_time(task.context.time, datetime(2026, 3, 11, 9, 0))


def _app_key(phone: Phone, name: str) -> str:
    app = phone.resolve_app(name)
    return app.key if app is not None else "messages"


def _state(initial: State, name: str) -> dict[str, Any]:
    value = initial.get(name)
    return value if isinstance(value, dict) else {}


def _list(holder: Mapping[str, Any], key: str) -> list[Any]:
    value = holder.get(key)
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


# ============================================================================================== seeding
def seed_phone(phone: Phone, task: KnowUTask) -> SeedRecord:
    """Fill ``phone`` with the task's device context and app state; returns the record :func:`export_state` needs."""
    initial = task.initial_state()
    record = SeedRecord(initial=initial)
    now = context_start(task)
    phone.device.now = now
    _seed_device(phone, task, initial, record)
    for name, seeder in _SEEDERS.items():
        if name in initial:
            seeder(phone, _state(initial, name), record, now)
    record.device_snapshot = _device_values(phone)
    record.files_snapshot = (phone.files.view_folder, phone.files.sort_order.get(phone.files.view_folder, "name_asc"))
    record.docs_opened = len(phone.docreader.opened)
    record.mastodon_default = phone.mastodon.default_visibility
    for app in ("taodian", "jingdian"):
        phone.shop(app).account_on_file = True
    for app in ("chilemei", "tuantuan"):
        phone.food(app).account_on_file = True
    phone.chrome.show_shortcuts = False
    for url, title, text in WEB_PAGES:
        phone.chrome.add_page(url, title, [("p", text)])
    phone.mail.address = MAIL_ADDRESS
    return record


def _seed_device(phone: Phone, task: KnowUTask, initial: State, record: SeedRecord) -> None:
    device, context = phone.device, task.context
    device.location = context.location or device.location
    device.battery_level = int(context.battery)
    device.bluetooth_devices = list(context.connected_devices)
    device.media_volume = 5
    for note in reversed(context.notifications):
        app_name = str(note.get("app", "system"))
        key = _app_key(phone, app_name)
        phone.notify(key, phone.apps[key].label, str(note.get("text", "")))
    settings = _state(initial, "settings")
    for key, attribute in (("battery_saver", "battery_saver"), ("dark_mode", "dark_mode"),
                           ("do_not_disturb", "do_not_disturb"), ("bluetooth", "bluetooth"), ("wifi", "wifi")):
        if key in settings:
            setattr(device, attribute, bool(settings[key]))
    if "media_volume" in settings:
        device.media_volume = max(0, min(10, round(int(settings["media_volume"]) / 10)))
    if "battery_level" in settings:
        device.battery_level = int(settings["battery_level"])


def _device_values(phone: Phone) -> dict[str, Any]:
    device = phone.device
    return {"battery_saver": device.battery_saver, "dark_mode": device.dark_mode,
            "do_not_disturb": device.do_not_disturb, "bluetooth": device.bluetooth, "wifi": device.wifi,
            "media_volume": device.media_volume * 10, "battery_level": device.battery_level}


def _contact_values(contact: Any) -> dict[str, Any]:
    return {"name": contact.name, "phone": contact.phone, "email": contact.email, "note": contact.note,
            "highlighted": contact.starred}


def _seed_contacts(phone: Phone, state: dict[str, Any], record: SeedRecord, now: datetime) -> None:
    app = phone.contacts
    for item in _list(state, "contacts"):
        contact = app.add(str(item.get("name", "")), str(item.get("phone", "")), str(item.get("email", "")),
                          bool(item.get("highlighted", False)))
        contact.note = str(item.get("note", "") or "")
        record.link(contact, item, _contact_values(contact))
        _remember_number(record, str(item.get("phone", "")))
    for item in _list(state, "calls"):
        call = Call(str(item.get("number", "")), now - timedelta(hours=3))
        app.calls.append(call)
        record.link(call, item)


def _remember_number(record: SeedRecord, number: str) -> None:
    normalized = normalize_number(number)
    if normalized:
        record.numbers.setdefault(normalized, number)


def _seed_messages(phone: Phone, state: dict[str, Any], record: SeedRecord, now: datetime) -> None:
    app = phone.messages
    for thread in _list(state, "threads"):
        number, name = str(thread.get("number", "")), str(thread.get("contact", "") or "")
        _remember_number(record, number)
        if name and number and phone.contacts.find(number) is None:
            contact = phone.contacts.add(name, number)
            record.synthetic_contacts.add(contact.cid)
        for message in _list(thread, "messages"):
            outgoing = message.get("direction") == "out"
            sms = Sms(number, str(message.get("text", "")), parse_time(str(message.get("time", "")), now), outgoing,
                      read=outgoing)
            app.sms.append(sms)
            record.link(sms, message)
    for number in state.get("blocked", []) or []:
        app.blocked.add(normalize_number(str(number)))
        _remember_number(record, str(number))


def _seed_calendar(phone: Phone, state: dict[str, Any], record: SeedRecord, now: datetime) -> None:
    for item in _list(state, "events"):
        start = parse_time(str(item.get("start", "")), now)
        end = parse_time(str(item.get("end", "")), start)
        event = phone.calendar.add(str(item.get("title", "")), start, end, str(item.get("location", "") or ""),
                                   str(item.get("notes", "") or ""))
        record.link(event, item, _event_values(event))


def _event_values(event: Event) -> dict[str, Any]:
    return {"title": event.title, "start": f"{event.start:%Y-%m-%d %H:%M}", "end": f"{event.end:%Y-%m-%d %H:%M}",
            "location": event.location, "notes": event.notes}


def _alarm_values(alarm: Any) -> dict[str, Any]:
    return {"time": alarm.time_text, "label": alarm.label, "enabled": alarm.enabled, "days": list(alarm.days),
            "ringtone": alarm.ringtone}


def _seed_clock(phone: Phone, state: dict[str, Any], record: SeedRecord, now: datetime) -> None:
    app = phone.clock
    ringtones = [str(r) for r in state.get("ringtones", []) or []]
    if ringtones:
        app.ringtones = list(dict.fromkeys(["Default", *ringtones]))
    for item in _list(state, "alarms"):
        hour, minute = parse_time(str(item.get("time", "")), now.replace(hour=7, minute=0)).timetuple()[3:5]
        ringtone = str(item.get("ringtone", "Default") or "Default")
        if ringtone not in app.ringtones:
            app.ringtones.append(ringtone)
        alarm = app.add_alarm(hour, minute, enabled=bool(item.get("enabled", True)),
                              days=[str(d)[:3].capitalize() for d in item.get("days", []) or []],
                              label=str(item.get("label", "") or ""), ringtone=ringtone)
        record.link(alarm, item, _alarm_values(alarm))


def _seed_mail(phone: Phone, state: dict[str, Any], record: SeedRecord, now: datetime) -> None:
    app = phone.mail
    for offset, item in enumerate(_list(state, "inbox")):
        email = app.add(str(item.get("from", "")), str(item.get("subject", "")), str(item.get("body", "")),
                        now - timedelta(hours=offset + 1), to=[MAIL_ADDRESS], read=False)
        record.link(email, item)
    for offset, item in enumerate(_list(state, "sent")):
        to = item.get("to", [])
        email = app.add(MAIL_ADDRESS, str(item.get("subject", "")), str(item.get("body", "")),
                        now - timedelta(days=1, hours=offset), to=[str(t) for t in (to if isinstance(to, list) else [to])],
                        folder="sent", read=True)
        record.link(email, item)


def _seed_gallery(phone: Phone, state: dict[str, Any], record: SeedRecord, now: datetime) -> None:
    for album in _list(state, "albums"):
        for item in _list(album, "photos"):
            subject = str(item.get("description", "") or ", ".join(str(t) for t in item.get("tags", []) or []))
            photo = phone.gallery.add(str(item.get("name", "")), str(album.get("name", "Camera")),
                                      parse_time(str(item.get("date", "")), now).replace(hour=12), subject)
            record.link(photo, item)


def _file_type(name: str) -> str:
    return name.rsplit(".", 1)[-1].lower() if "." in name else ""


def _seed_files(phone: Phone, state: dict[str, Any], record: SeedRecord, now: datetime) -> None:
    app = phone.files
    folders = state.get("folders")
    for folder, items in (folders.items() if isinstance(folders, dict) else []):
        if str(folder) not in app.folders:
            app.folders.append(str(folder))
        for item in items if isinstance(items, list) else []:
            if not isinstance(item, dict):
                continue
            name = str(item.get("name", ""))
            title = name.rsplit(".", 1)[0].replace("_", " ")
            content = f"{title}\n\nLast edited {item.get('modified', '')}." if _file_type(name) in (
                "pdf", "txt", "docx", "md") else ""
            file = app.add(f"/{folder}/{name}", int(item.get("size_kb", 1) or 1),
                           parse_time(str(item.get("modified", "")), now), content)
            record.link(file, item)
    view = state.get("view")
    if isinstance(view, dict):
        folder = str(view.get("folder", "Download"))
        key = SORT_KEY_TO_PHONE.get(str(view.get("sort_key", "name")), str(view.get("sort_key", "name")))
        order = f"{key}_{view.get('sort_order', 'asc')}"
        if order in SORT_ORDERS:
            app.sort_order[folder] = order
        app.view_folder = folder


def _seed_docreader(phone: Phone, state: dict[str, Any], record: SeedRecord, now: datetime) -> None:
    opened = state.get("open_document")
    if opened:
        phone.docreader.opened.append("/" + str(opened).lstrip("/"))


def _seed_chrome(phone: Phone, state: dict[str, Any], record: SeedRecord, now: datetime) -> None:
    for item in _list(state, "history") + _list(state, "tabs"):
        url = str(item.get("url", ""))
        if url:
            phone.chrome.add_page(url, str(item.get("title", url)), [("p", str(item.get("title", url)))])


def _seed_maps(phone: Phone, state: dict[str, Any], record: SeedRecord, now: datetime) -> None:
    return None


def _seed_mastodon(phone: Phone, state: dict[str, Any], record: SeedRecord, now: datetime) -> None:
    app = phone.mastodon
    app.account = str(state.get("me", "@me") or "@me")
    app.display_name = "Me"
    app.default_visibility = VISIBILITY_TO_PHONE.get(str(state.get("default_visibility", "public")),
                                                     str(state.get("default_visibility", "public")))
    for offset, item in enumerate(_list(state, "timeline")):
        handle = str(item.get("author", "@someone"))
        toot = app.add(handle.lstrip("@").replace("_", " ").title(), handle, str(item.get("text", "")),
                       now - timedelta(hours=offset + 1))
        record.link(toot, item)
    for offset, item in enumerate(_list(state, "posts")):
        visibility = str(item.get("visibility", "public"))
        toot = app.add(app.display_name, app.account, str(item.get("text", "")), now - timedelta(days=1, hours=offset),
                       VISIBILITY_TO_PHONE.get(visibility, visibility))
        record.link(toot, item)


def _seed_mattermost(phone: Phone, state: dict[str, Any], record: SeedRecord, now: datetime) -> None:
    app = phone.mattermost
    app.username = str(state.get("me", "me") or "me")
    teams = _list(state, "teams")
    app.team = str(teams[0].get("name", "Team")) if teams else app.team
    app.channels = {}
    for team in teams:
        for channel in _list(team, "channels"):
            name = str(channel.get("name", ""))
            app.channels[name] = name
            messages = _list(channel, "messages")
            for offset, message in enumerate(messages):
                post = ChatPost(name, str(message.get("user", "")), str(message.get("text", "")),
                                now - timedelta(minutes=10 * (len(messages) - offset)))
                app.posts.append(post)
                record.link(post, message)


def _product_args(item: Mapping[str, Any]) -> dict[str, Any]:
    sizes = [str(s) for s in item.get("sizes", []) or []]
    details = [str(item.get("brand", "")), str(item.get("color", "")), ", ".join(str(t) for t in item.get("tags", []) or [])]
    return {"pid": str(item.get("id", "")), "title": str(item.get("title", item.get("id", ""))),
            "price": float(item.get("price", 0) or 0), "category": str(item.get("category", "")),
            "style": str(item.get("color", "") or ""), "options": {"size": sizes} if sizes else {},
            "description": " · ".join(d for d in details if d)}


def _seed_shop(phone: Phone, key: str, state: dict[str, Any], record: SeedRecord, now: datetime) -> None:
    app = phone.shop(key)
    for item in _list(state, "catalog"):
        app.add_product(**_product_args(item))
    extra = record.extra_products.setdefault(key, set())
    for item in _list(state, "cart"):
        pid = str(item.get("id", ""))
        if app.product(pid) is None:
            app.add_product(**_product_args(item))
            extra.add(pid)
        size = item.get("size")
        cart_item = CartItem(pid, int(item.get("qty", 1) or 1), {"size": str(size)} if size else {})
        app.cart.append(cart_item)
        record.link(cart_item, item)
    for item in _list(state, "orders"):
        lines = [CartItem(str(i.get("id", "")), int(i.get("qty", 1) or 1), {"size": str(i["size"])} if i.get("size") else {})
                 for i in _list(item, "items")]
        order = Order(f"{key[:2].upper()}{9000 + len(app.orders)}", lines, str(item.get("recipient", "")), "",
                      str(item.get("address", "")), PAYMENT_TO_PHONE.get(str(item.get("payment", "")), "alipay"),
                      str(item.get("note", "")), 0.0, now - timedelta(days=7))
        app.orders.append(order)
        record.link(order, item)


def _seed_food(phone: Phone, key: str, state: dict[str, Any], record: SeedRecord, now: datetime) -> None:
    app = phone.food(key)
    for restaurant in _list(state, "restaurants"):
        dishes = []
        for dish in _list(restaurant, "dishes"):
            tags = [*map(str, dish.get("cuisine", []) or []), *map(str, dish.get("traits", []) or [])]
            tags += [f"contains {c}" for c in dish.get("contains", []) or []]
            dishes.append(Dish(str(dish.get("id", "")), str(dish.get("name", "")), float(dish.get("price", 0) or 0), tags))
        app.add_restaurant(str(restaurant.get("id", "")), str(restaurant.get("name", "")), 4.6, 0.0, dishes)


def _shop_seeder(key: str) -> Any:
    return lambda phone, state, record, now: _seed_shop(phone, key, state, record, now)


def _food_seeder(key: str) -> Any:
    return lambda phone, state, record, now: _seed_food(phone, key, state, record, now)


_SEEDERS: dict[str, Any] = {
    "contacts": _seed_contacts, "messages": _seed_messages, "calendar": _seed_calendar, "clock": _seed_clock,
    "mail": _seed_mail, "gallery": _seed_gallery, "files": _seed_files, "docreader": _seed_docreader,
    "chrome": _seed_chrome, "maps": _seed_maps, "mastodon": _seed_mastodon, "mattermost": _seed_mattermost,
    "taodian": _shop_seeder("taodian"), "jingdian": _shop_seeder("jingdian"),
    "chilemei": _food_seeder("chilemei"), "tuantuan": _food_seeder("tuantuan"),
}


def add_task_pages(phone: Phone, pages: list[tuple[str, str, str]]) -> None:
    """Serve extra pages ``(url, title, text)`` in Chrome."""
    for url, title, text in pages:
        if canonical_url(url) not in phone.chrome.pages:
            phone.chrome.add_page(url, title, [("p", text)])


# ============================================================================================== export
def export_state(phone: Phone, record: SeedRecord) -> State:
    """The phone's app state in taskspec's shapes, for every app the task seeded."""
    out: State = {}
    for name, value in record.initial.items():
        exporter = _EXPORTERS.get(name)
        out[name] = exporter(phone, copy.deepcopy(value), record) if exporter and isinstance(value, dict) else (
            copy.deepcopy(value))
    return out


def _export_settings(phone: Phone, state: dict[str, Any], record: SeedRecord) -> dict[str, Any]:
    now = _device_values(phone)
    for key, value in now.items():
        if record.device_snapshot.get(key) != value:
            state[key] = value
    return state


def _display_number(record: SeedRecord, number: str) -> str:
    return record.numbers.get(normalize_number(number), number)


def _export_messages(phone: Phone, state: dict[str, Any], record: SeedRecord) -> dict[str, Any]:
    app = phone.messages
    by_number: dict[str, list[Sms]] = {}
    for sms in app.sms:
        by_number.setdefault(normalize_number(sms.number), []).append(sms)
    threads: list[dict[str, Any]] = []
    for thread in _list(state, "threads"):
        key = normalize_number(str(thread.get("number", "")))
        had_messages = bool(_list(thread, "messages"))
        present = by_number.pop(key, []) if key else []
        if had_messages and not present:
            continue  # the conversation was deleted
        thread["messages"] = [_sms_dict(record, sms) for sms in present]
        threads.append(thread)
    for messages in by_number.values():
        number = _display_number(record, messages[0].number)
        threads.append({"contact": phone.contacts.name_for(number), "number": number,
                        "messages": [_sms_dict(record, sms) for sms in messages]})
    state["threads"] = threads
    blocked = [str(b) for b in state.get("blocked", []) or []]
    known = {normalize_number(b) for b in blocked}
    blocked += [_display_number(record, b) for b in sorted(app.blocked) if b not in known]
    state["blocked"] = blocked
    return state


def _sms_dict(record: SeedRecord, sms: Sms) -> dict[str, Any]:
    original = record.original(sms)
    if original is not None:
        return original
    return {"direction": "out" if sms.outgoing else "in", "text": sms.text, "time": f"{sms.time:%H:%M}"}


def _export_contacts(phone: Phone, state: dict[str, Any], record: SeedRecord) -> dict[str, Any]:
    app = phone.contacts
    state["contacts"] = [record.merged(c, _contact_values(c)) if record.original(c) is not None
                         else _contact_values(c)
                         for c in app.contacts if c.cid not in record.synthetic_contacts]
    state["calls"] = [record.original(call) or {"name": app.name_for(call.number),
                                                "number": _display_number(record, call.number)}
                      for call in app.calls]
    return state


def _export_calendar(phone: Phone, state: dict[str, Any], record: SeedRecord) -> dict[str, Any]:
    state["events"] = [record.merged(e, _event_values(e)) if record.original(e) is not None else _event_values(e)
                       for e in phone.calendar.events]
    return state


def _export_clock(phone: Phone, state: dict[str, Any], record: SeedRecord) -> dict[str, Any]:
    state["alarms"] = [record.merged(a, _alarm_values(a)) if record.original(a) is not None
                       else {"id": a.aid, **_alarm_values(a)} for a in phone.clock.alarms]
    return state


def _attachment_names(phone: Phone, refs: list[str]) -> list[str]:
    return [phone.mail.attachment_name(ref) for ref in refs]


def _export_mail(phone: Phone, state: dict[str, Any], record: SeedRecord) -> dict[str, Any]:
    inbox, sent = [], []
    for email in phone.mail.emails:
        original = record.original(email)
        if email.folder == "sent":
            sent.append(original or {"to": list(email.to), "subject": email.subject, "body": email.body,
                                     "attachments": _attachment_names(phone, email.attachments)})
        else:
            inbox.append(original or {"from": email.sender, "subject": email.subject, "body": email.body})
    state["inbox"], state["sent"] = inbox, sent
    return state


def _export_gallery(phone: Phone, state: dict[str, Any], record: SeedRecord) -> dict[str, Any]:
    present = {id(p) for p in phone.gallery.photos}
    by_original: dict[str, list[dict[str, Any]]] = {}
    for photo in phone.gallery.photos:
        original = record.original(photo)
        if original is not None and id(photo) in present:
            by_original.setdefault(photo.album, []).append(original)
    for album in _list(state, "albums"):
        album["photos"] = by_original.get(str(album.get("name", "")), [])
    return state


def _export_files(phone: Phone, state: dict[str, Any], record: SeedRecord) -> dict[str, Any]:
    app = phone.files
    folders = state.get("folders")
    if isinstance(folders, dict):
        for folder in list(folders):
            folders[folder] = [record.original(f) or {"name": f.name, "modified": f"{f.modified:%Y-%m-%d %H:%M}",
                                                      "size_kb": f.size_kb, "type": _file_type(f.name)}
                               for f in app.items if f.folder == folder]
    current = (app.view_folder, app.sort_order.get(app.view_folder, "name_asc"))
    if current != record.files_snapshot or not isinstance(state.get("view"), dict):
        key, _, order = current[1].partition("_")
        state["view"] = {"folder": current[0], "sort_key": SORT_KEY_FROM_PHONE.get(key, key), "sort_order": order}
    return state


def _export_docreader(phone: Phone, state: dict[str, Any], record: SeedRecord) -> dict[str, Any]:
    opened = phone.docreader.opened
    if len(opened) > record.docs_opened:
        state["open_document"] = opened[-1].lstrip("/")
        recent = [str(r) for r in state.get("recent", []) or []]
        state["recent"] = recent + [p.lstrip("/") for p in opened[record.docs_opened:]]
    return state


def _export_chrome(phone: Phone, state: dict[str, Any], record: SeedRecord) -> dict[str, Any]:
    history = _list(state, "history")
    for url in phone.chrome.history:
        page = phone.chrome.pages.get(url)
        history.append({"url": "https://" + unquote_plus(url), "title": page.title if page else url})
    state["history"] = history
    return state


def _export_maps(phone: Phone, state: dict[str, Any], record: SeedRecord) -> dict[str, Any]:
    state["searches"] = _list(state, "searches") + [{"from": q.origin, "to": q.destination, "mode": q.mode}
                                                    for q in phone.maps.queries]
    return state


def _visibility(value: str) -> str:
    return VISIBILITY_FROM_PHONE.get(value, value)


def _export_mastodon(phone: Phone, state: dict[str, Any], record: SeedRecord) -> dict[str, Any]:
    app = phone.mastodon
    timeline, posts = [], []
    for toot in app.toots:
        original = record.original(toot)
        if toot.handle == app.account:
            media = [p.name for p in (phone.gallery.get(pid) for pid in toot.media) if p is not None]
            posts.append(original or {"text": toot.text, "visibility": _visibility(toot.visibility), "media": media})
        elif original is not None:
            timeline.append(original)
    state["timeline"], state["posts"] = timeline, posts
    if app.default_visibility != record.mastodon_default:
        state["default_visibility"] = _visibility(app.default_visibility)
    return state


def _export_mattermost(phone: Phone, state: dict[str, Any], record: SeedRecord) -> dict[str, Any]:
    app = phone.mattermost
    by_channel: dict[str, list[dict[str, Any]]] = {}
    for post in app.posts:
        by_channel.setdefault(post.channel, []).append(record.original(post) or {"user": post.user, "text": post.text})
    for team in _list(state, "teams"):
        for channel in _list(team, "channels"):
            channel["messages"] = by_channel.get(str(channel.get("name", "")), [])
    return state


def _export_shop(phone: Phone, key: str, state: dict[str, Any], record: SeedRecord) -> dict[str, Any]:
    app = phone.shop(key)
    catalog = {str(i.get("id")): i for i in _list(state, "catalog")}
    cart: list[dict[str, Any]] = []
    for item in app.cart:
        original = record.original(item)
        if original is not None:
            cart.append(original)
            continue
        product = app.product(item.pid)
        base = copy.deepcopy(catalog.get(item.pid)) or {"id": item.pid, "title": product.title if product else item.pid,
                                                         "price": product.price if product else 0.0}
        base.pop("sizes", None)
        if item.options.get("size"):
            base["size"] = item.options["size"]
        cart.append(base)
    orders: list[dict[str, Any]] = []
    for order in app.orders:
        original = record.original(order)
        if original is not None:
            orders.append(original)
            continue
        lines = []
        for line in order.items:
            product = app.product(line.pid)
            entry: dict[str, Any] = {"id": line.pid, "title": product.title if product else line.pid, "qty": line.quantity}
            if line.options.get("size"):
                entry["size"] = line.options["size"]
            lines.append(entry)
        orders.append({"items": lines, "payment": PAYMENT_FROM_PHONE.get(order.payment, order.payment),
                       "address": order.address, "recipient": order.name, "phone": order.phone, "note": order.note})
    state["cart"], state["orders"] = cart, orders
    return state


def _export_food(phone: Phone, key: str, state: dict[str, Any], record: SeedRecord) -> dict[str, Any]:
    app = phone.food(key)
    orders = [o for o in _list(state, "orders")]
    for order in app.orders:
        items = []
        for line in order.items:
            dish = app.dish(line.sid, line.did)
            items.append({"id": line.did, "name": dish.name if dish else line.did, "qty": line.quantity})
        orders.append({"items": items, "note": order.note, "address": order.address, "restaurant": order.sid,
                       "recipient": order.name, "phone": order.phone,
                       "payment": PAYMENT_FROM_PHONE.get(order.payment, order.payment)})
    state["orders"] = orders
    return state


def _shop_exporter(key: str) -> Any:
    return lambda phone, state, record: _export_shop(phone, key, state, record)


def _food_exporter(key: str) -> Any:
    return lambda phone, state, record: _export_food(phone, key, state, record)


_EXPORTERS: dict[str, Any] = {
    "settings": _export_settings, "messages": _export_messages, "contacts": _export_contacts,
    "calendar": _export_calendar, "clock": _export_clock, "mail": _export_mail, "gallery": _export_gallery,
    "files": _export_files, "docreader": _export_docreader, "chrome": _export_chrome, "maps": _export_maps,
    "mastodon": _export_mastodon, "mattermost": _export_mattermost,
    "taodian": _shop_exporter("taodian"), "jingdian": _shop_exporter("jingdian"),
    "chilemei": _food_exporter("chilemei"), "tuantuan": _food_exporter("tuantuan"),
}
