"""The task-variant model of KnowU personalized and proactive tasks, and the rule checks their verifiers use.

A :class:`KnowUTask` is pure data plus verifier logic, with no UI: the device context, the seeded state of every app
as a plain dict, the checks that define the expected outcome, the rubric for the LLM judge and the rule weight
``lam`` (lambda).  Envs seed their apps from :meth:`KnowUTask.initial_state`, record an action trace, and at the
end call :meth:`KnowUTask.verify` with the final app state.

App state (one plain dict per app; the seeds and the verifiers use these shapes)::

    messages    {"threads": [{"contact", "number", "messages": [{"direction": "in"|"out", "text", "time"}]}],
                 "blocked": [number, ...]}
    contacts    {"contacts": [{"name", "phone", "email", "note", "highlighted": bool}], "calls": [{"name", "number"}]}
    calendar    {"events": [{"title", "start": "YYYY-MM-DD HH:MM", "end", "location", "notes"}]}
    clock       {"alarms": [{"id", "time": "HH:MM", "label", "enabled": bool, "days": [...], "ringtone"}],
                 "ringtones": [...]}
    settings    {"battery_saver", "dark_mode", "do_not_disturb", "bluetooth", "wifi": bool, "media_volume": 0-100,
                 "battery_level": 0-100}
    mail        {"account", "inbox": [{"from", "subject", "body"}], "sent": [{"to": [..], "subject", "body",
                 "attachments": [..]}]}
    gallery     {"albums": [{"name", "photos": [{"id", "name", "date", "tags", "description"}]}]}
    files       {"folders": {"Download": [{"name", "modified", "size_kb", "type"}], ...},
                 "view": {"folder", "sort_key": "name"|"date"|"size"|"type", "sort_order": "asc"|"desc"}}
    docreader   {"open_document": path | None, "recent": [...]}
    chrome      {"tabs": [{"url", "title"}], "history": [{"url", "title"}]}
    maps        {"searches": [{"from", "to", "mode"}]}
    mastodon    {"me", "timeline": [{"id", "author", "text", "tags"}], "posts": [{"text", "visibility", "media"}],
                 "default_visibility"}
    mattermost  {"me", "teams": [{"name", "channels": [{"name", "messages": [{"user", "text"}]}]}]}
    taodian / jingdian   {"catalog": [{"id", "title", "category", "brand", "price", "color", "tags", "sizes"}],
                 "cart": [{"id", "title", "price", "category", "brand", "color", "tags"}],
                 "orders": [{"items": [{"id", "title", "qty", "size"}], "payment", "address", "recipient",
                 "note"}], "payment_methods": [...], "addresses": [{"label", "address"}]}
    chilemei / tuantuan  {"restaurants": [{"id", "name", "dishes": [{"id", "name", "price", "cuisine",
                 "contains", "traits"}]}], "orders": [{"items": [{"id", "name", "qty"}], "note", "address"}]}

The action trace is a list of dicts ``{"action_type": name, **arguments}``; ``ask_user`` steps also carry
``"user_reply"`` and ``"user_decision"`` (``"accept"``, ``"reject"`` or ``None``).
"""

from __future__ import annotations

import copy
import json
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from personal_envs.knowu.actions import PASSIVE_ACTIONS

State = dict[str, dict[str, Any]]
Trace = list[dict[str, Any]]
Mutation = Callable[[State, Trace], None]

#: UI actions that can change app state (consent must come before the first of them in interactive routines).
MUTATING_ACTIONS: frozenset[str] = frozenset(
    {"click", "double_tap", "long_press", "drag", "input_text", "keyboard_enter"}
)
APPS: tuple[str, ...] = (
    "messages", "contacts", "calendar", "clock", "settings", "mail", "gallery", "files", "maps", "chrome",
    "mastodon", "mattermost", "taodian", "jingdian", "chilemei", "tuantuan", "docreader",
)
SHOP_APPS: tuple[str, ...] = ("taodian", "jingdian")
FOOD_APPS: tuple[str, ...] = ("chilemei", "tuantuan")


def has_any(text: str, keywords: Sequence[str]) -> bool:
    """True when ``text`` contains any keyword (case-insensitive); an empty keyword list is satisfied."""
    lowered = text.lower()
    return not keywords or any(k.lower() in lowered for k in keywords)


def phone_digits(value: Any) -> str:
    """The last eight digits of a phone number (how the checks compare numbers written differently)."""
    return "".join(ch for ch in str(value) if ch.isdigit())[-8:]


def new_items(before: Sequence[Any], after: Sequence[Any]) -> list[Any]:
    """Items of ``after`` that were not in ``before`` (lists of dicts compared by value)."""
    pool = list(before)
    fresh = []
    for item in after:
        if item in pool:
            pool.remove(item)
        else:
            fresh.append(item)
    return fresh


def app(state: Mapping[str, Any], name: str) -> dict[str, Any]:
    """The state dict of app ``name`` (``{}`` when missing or malformed)."""
    value = state.get(name)
    return value if isinstance(value, dict) else {}


def listed(state: Mapping[str, Any], app_name: str, key: str) -> list[Any]:
    """``state[app][key]`` as a list (``[]`` when missing or malformed)."""
    value = app(state, app_name).get(key)
    return value if isinstance(value, list) else []


def mutating_steps(trace: Sequence[Mapping[str, Any]]) -> list[int]:
    """Indices of steps whose action is not passive."""
    return [i for i, step in enumerate(trace) if str(step.get("action_type", "")) not in PASSIVE_ACTIONS]


def first_rejection(trace: Sequence[Mapping[str, Any]]) -> int | None:
    """Index of the first ``ask_user`` the user rejected, or ``None``."""
    for i, step in enumerate(trace):
        if step.get("action_type") == "ask_user" and step.get("user_decision") == "reject":
            return i
    return None


# ================================================================================================ checks
class Check(ABC):
    """One rule of a task's expected outcome.

    ``verify`` judges a final state and trace; ``realize`` edits a state and trace so the rule holds (the oracle
    outcome); ``near_misses`` returns named edits that, applied to the realized outcome, break only this rule.
    A ``gate`` check zeroes the whole rule score when it fails (e.g. acting without the habit).
    """

    description: str = ""
    gate: bool = False

    @abstractmethod
    def verify(self, initial: State, final: State, trace: Trace) -> tuple[bool, str]:
        """(passed, reason)."""

    def realize(self, state: State, trace: Trace) -> None:  # noqa: B027 - optional for pure trace checks
        """Edit ``state``/``trace`` in place so the rule holds."""

    def near_misses(self) -> list[tuple[str, Mutation]]:
        """Edits that break this rule on a realized outcome."""
        return []


def _ensure(state: State, app_name: str) -> dict[str, Any]:
    value = state.get(app_name)
    if not isinstance(value, dict):
        value = {}
        state[app_name] = value
    return value


def _ensure_list(state: State, app_name: str, key: str) -> list[Any]:
    holder = _ensure(state, app_name)
    value = holder.get(key)
    if not isinstance(value, list):
        value = []
        holder[key] = value
    return value


def _item_title(state: State, app_name: str, item_id: str) -> str:
    holder = app(state, app_name)
    for item in holder.get("catalog", []) or []:
        if isinstance(item, dict) and item.get("id") == item_id:
            return str(item.get("title", item_id))
    for restaurant in holder.get("restaurants", []) or []:
        for dish in restaurant.get("dishes", []) if isinstance(restaurant, dict) else []:
            if isinstance(dish, dict) and dish.get("id") == item_id:
                return str(dish.get("name", item_id))
    return item_id


@dataclass
class OrderCheck(Check):
    """A new order on ``app_name`` holding an acceptable item, with the expected payment / address / note / size.

    ``forbidden_apps``: an order there fails the check (the user prefers ``app_name``).
    """

    app_name: str
    acceptable: tuple[str, ...]
    wrong_item: str
    payment: str | None = None
    wrong_payment: str = "cash_on_delivery"
    address_contains: str | None = None
    address: str = ""
    note_keywords: tuple[str, ...] = ()
    note_text: str = ""
    size: str | None = None
    forbidden_apps: tuple[str, ...] = ()
    description: str = "order the right item on the preferred app"

    def _orders(self, initial: State, final: State, name: str) -> list[dict[str, Any]]:
        return [o for o in new_items(listed(initial, name, "orders"), listed(final, name, "orders"))
                if isinstance(o, dict)]

    def verify(self, initial: State, final: State, trace: Trace) -> tuple[bool, str]:
        for other in self.forbidden_apps:
            if self._orders(initial, final, other):
                return False, f"ordered on {other}, but the user prefers {self.app_name}"
        orders = self._orders(initial, final, self.app_name)
        if not orders:
            return False, f"no new order on {self.app_name}"
        problems: list[str] = []
        for order in orders:
            items = [i for i in order.get("items", []) if isinstance(i, dict)]
            good = [i for i in items if i.get("id") in self.acceptable]
            issues = []
            if not good:
                issues.append(f"items {[i.get('id') for i in items]} do not fit the user's preferences")
            if self.size is not None and not any(str(i.get("size", "")) == self.size for i in good):
                issues.append(f"size is not {self.size}")
            if self.payment is not None and str(order.get("payment", "")) != self.payment:
                issues.append(f"payment {order.get('payment')!r} is not the usual {self.payment!r}")
            if self.address_contains and self.address_contains.lower() not in str(order.get("address", "")).lower():
                issues.append("wrong delivery address")
            note = str(order.get("note", ""))
            missing = [k for k in self.note_keywords if k.lower() not in note.lower()]
            if missing:
                issues.append(f"order note lacks {missing}")
            if not issues:
                return True, f"order on {self.app_name} fits"
            problems.append("; ".join(issues))
        return False, f"order on {self.app_name}: {problems[0]}"

    def realize(self, state: State, trace: Trace) -> None:
        item: dict[str, Any] = {"id": self.acceptable[0], "title": _item_title(state, self.app_name,
                                                                               self.acceptable[0]), "qty": 1}
        if self.size is not None:
            item["size"] = self.size
        order: dict[str, Any] = {"items": [item], "address": self.address or (self.address_contains or ""),
                                 "note": self.note_text or " ".join(self.note_keywords)}
        if self.payment is not None:
            order["payment"] = self.payment
        _ensure_list(state, self.app_name, "orders").append(order)

    def _last(self, state: State) -> dict[str, Any]:
        return dict(_ensure_list(state, self.app_name, "orders")[-1])

    def near_misses(self) -> list[tuple[str, Mutation]]:
        misses: list[tuple[str, Mutation]] = []

        def edit(change: Callable[[dict[str, Any]], None]) -> Mutation:
            def mutate(state: State, trace: Trace) -> None:
                orders = _ensure_list(state, self.app_name, "orders")
                order = copy.deepcopy(orders[-1])
                change(order)
                orders[-1] = order
            return mutate

        def wrong_item(order: dict[str, Any]) -> None:
            order["items"][0]["id"] = self.wrong_item

        misses.append(("wrong item", edit(wrong_item)))
        if self.payment is not None:
            other_payment = self.wrong_payment if self.wrong_payment != self.payment else "alipay"
            misses.append(("wrong payment", edit(lambda o: o.__setitem__("payment", other_payment))))
        if self.address_contains:
            misses.append(("wrong address", edit(lambda o: o.__setitem__("address", "somewhere else entirely"))))
        if self.note_keywords:
            misses.append(("no note", edit(lambda o: o.__setitem__("note", ""))))
        if self.size is not None:
            misses.append(("wrong size", edit(lambda o: o["items"][0].__setitem__("size", str(int(self.size or 0) + 2)))))
        if self.forbidden_apps:
            def move(state: State, trace: Trace) -> None:
                order = _ensure_list(state, self.app_name, "orders").pop()
                _ensure_list(state, self.forbidden_apps[0], "orders").append(order)
            misses.append(("other platform", move))
        return misses


@dataclass
class ListPruneCheck(Check):
    """Items ``remove`` are gone from a list (cart, album) and items ``keep`` are still there (matched by id)."""

    app_name: str
    key: str
    remove: tuple[str, ...]
    keep: tuple[str, ...]
    album: str | None = None
    description: str = "remove exactly the unwanted items"

    def _ids(self, state: State) -> list[str]:
        if self.album is None:
            return [str(i.get("id")) for i in listed(state, self.app_name, self.key) if isinstance(i, dict)]
        for album in listed(state, self.app_name, "albums"):
            if isinstance(album, dict) and album.get("name") == self.album:
                return [str(p.get("id")) for p in album.get(self.key, []) if isinstance(p, dict)]
        return []

    def _container(self, state: State) -> list[Any]:
        if self.album is None:
            return _ensure_list(state, self.app_name, self.key)
        for album in _ensure_list(state, self.app_name, "albums"):
            if isinstance(album, dict) and album.get("name") == self.album:
                value = album.setdefault(self.key, [])
                return value if isinstance(value, list) else []
        return []

    def verify(self, initial: State, final: State, trace: Trace) -> tuple[bool, str]:
        ids = set(self._ids(final))
        still = [i for i in self.remove if i in ids]
        lost = [i for i in self.keep if i not in ids]
        if still or lost:
            return False, f"should remove {still} and keep {lost}" if still and lost else (
                f"unwanted items still there: {still}" if still else f"wanted items removed: {lost}")
        return True, "removed exactly the unwanted items"

    def realize(self, state: State, trace: Trace) -> None:
        container = self._container(state)
        container[:] = [i for i in container if not (isinstance(i, dict) and i.get("id") in self.remove)]

    def near_misses(self) -> list[tuple[str, Mutation]]:
        def drop_kept(state: State, trace: Trace) -> None:
            container = self._container(state)
            container[:] = [i for i in container if not (isinstance(i, dict) and i.get("id") == self.keep[0])]

        def re_add(state: State, trace: Trace) -> None:
            self._container(state).append({"id": self.remove[0]})

        misses: list[tuple[str, Mutation]] = []
        if self.remove:
            misses.append(("kept an unwanted item", re_add))
        if self.keep:
            misses.append(("removed a wanted item", drop_kept))
        return misses


@dataclass
class SmsCheck(Check):
    """A new outgoing SMS to ``contact`` (name or number) containing any of ``keywords``."""

    contact: str
    number: str
    keywords: tuple[str, ...]
    text: str
    wrong_contact: str = "Unknown"
    description: str = "text the right person"

    @staticmethod
    def _matches(thread: Mapping[str, Any], who: str, number: str = "") -> bool:
        name_ok = str(thread.get("contact", "")).strip().lower() == who.strip().lower()
        number_ok = bool(number) and phone_digits(thread.get("number", "")) == phone_digits(number) != ""
        return name_ok or number_ok

    def _sent(self, state: State, who: str, number: str) -> list[str]:
        out: list[str] = []
        for thread in listed(state, "messages", "threads"):
            if isinstance(thread, dict) and self._matches(thread, who, number):
                out.extend(str(m.get("text", "")) for m in thread.get("messages", [])
                           if isinstance(m, dict) and m.get("direction") == "out")
        return out

    def verify(self, initial: State, final: State, trace: Trace) -> tuple[bool, str]:
        sent = new_items(self._sent(initial, self.contact, self.number), self._sent(final, self.contact, self.number))
        if not sent:
            return False, f"no new SMS to {self.contact}"
        if not any(has_any(text, self.keywords) for text in sent):
            return False, f"SMS to {self.contact} does not mention {list(self.keywords)}"
        return True, f"SMS to {self.contact} sent"

    def _send(self, state: State, who: str, number: str, text: str) -> None:
        threads = _ensure_list(state, "messages", "threads")
        for thread in threads:
            if isinstance(thread, dict) and self._matches(thread, who, number):
                thread.setdefault("messages", []).append({"direction": "out", "text": text, "time": "now"})
                return
        threads.append({"contact": who, "number": number,
                        "messages": [{"direction": "out", "text": text, "time": "now"}]})

    def realize(self, state: State, trace: Trace) -> None:
        self._send(state, self.contact, self.number, self.text)

    def near_misses(self) -> list[tuple[str, Mutation]]:
        def redirect(state: State, trace: Trace) -> None:
            for thread in _ensure_list(state, "messages", "threads"):
                if isinstance(thread, dict) and self._matches(thread, self.contact, self.number):
                    thread["messages"] = [m for m in thread.get("messages", []) if m.get("text") != self.text]
            self._send(state, self.wrong_contact, "", self.text)

        def blank(state: State, trace: Trace) -> None:
            for thread in _ensure_list(state, "messages", "threads"):
                if isinstance(thread, dict) and self._matches(thread, self.contact, self.number):
                    for m in thread.get("messages", []):
                        if m.get("text") == self.text:
                            m["text"] = "ok"
        misses: list[tuple[str, Mutation]] = [("wrong recipient", redirect)]
        if self.keywords:
            misses.append(("message lacks the content", blank))
        return misses


@dataclass
class ChannelPostCheck(Check):
    """A new Mattermost message by the user in ``channel`` containing any of ``keywords``."""

    channel: str
    keywords: tuple[str, ...]
    text: str
    wrong_channel: str = "random"
    team: str = ""
    description: str = "post in the right channel"

    def _channel(self, state: State, name: str, create: bool = False) -> dict[str, Any] | None:
        teams = _ensure_list(state, "mattermost", "teams") if create else listed(state, "mattermost", "teams")
        for team in teams:
            if not isinstance(team, dict):
                continue
            for channel in team.get("channels", []) or []:
                if isinstance(channel, dict) and str(channel.get("name", "")).lower() == name.lower():
                    return channel
        if create:
            if not teams:
                teams.append({"name": self.team or "team", "channels": []})
            channel = {"name": name, "messages": []}
            teams[0].setdefault("channels", []).append(channel)
            return channel
        return None

    def _mine(self, state: State, name: str) -> list[str]:
        channel = self._channel(state, name)
        me = str(app(state, "mattermost").get("me", "me"))
        if channel is None:
            return []
        return [str(m.get("text", "")) for m in channel.get("messages", []) or []
                if isinstance(m, dict) and str(m.get("user", "")) == me]

    def verify(self, initial: State, final: State, trace: Trace) -> tuple[bool, str]:
        posted = new_items(self._mine(initial, self.channel), self._mine(final, self.channel))
        if not posted:
            return False, f"no new message in #{self.channel}"
        if not any(has_any(text, self.keywords) for text in posted):
            return False, f"message in #{self.channel} does not mention {list(self.keywords)}"
        return True, f"posted in #{self.channel}"

    def _post(self, state: State, name: str, text: str) -> None:
        channel = self._channel(state, name, create=True)
        assert channel is not None
        me = str(_ensure(state, "mattermost").setdefault("me", "me"))
        channel.setdefault("messages", []).append({"user": me, "text": text})

    def realize(self, state: State, trace: Trace) -> None:
        self._post(state, self.channel, self.text)

    def near_misses(self) -> list[tuple[str, Mutation]]:
        def move(state: State, trace: Trace) -> None:
            channel = self._channel(state, self.channel)
            if channel is not None:
                channel["messages"] = [m for m in channel.get("messages", []) if m.get("text") != self.text]
            self._post(state, self.wrong_channel, self.text)

        def blank(state: State, trace: Trace) -> None:
            channel = self._channel(state, self.channel)
            for m in (channel or {}).get("messages", []):
                if m.get("text") == self.text:
                    m["text"] = "."
        misses: list[tuple[str, Mutation]] = [("wrong channel", move)]
        if self.keywords:
            misses.append(("message lacks the content", blank))
        return misses


@dataclass
class MailCheck(Check):
    """A new sent mail to ``to`` mentioning any of ``keywords`` and, when set, attaching one of ``attachments``."""

    to: str
    keywords: tuple[str, ...]
    subject: str
    body: str
    attachments: tuple[str, ...] = ()
    wrong_to: str = "someone.else@example.com"
    description: str = "send the mail to the right person"

    def verify(self, initial: State, final: State, trace: Trace) -> tuple[bool, str]:
        sent = [m for m in new_items(listed(initial, "mail", "sent"), listed(final, "mail", "sent"))
                if isinstance(m, dict)]
        to_right = [m for m in sent if self.to.lower() in " ".join(map(str, m.get("to", []) if isinstance(
            m.get("to"), list) else [m.get("to", "")])).lower()]
        if not to_right:
            return False, f"no mail sent to {self.to}"
        for mail in to_right:
            text = f"{mail.get('subject', '')} {mail.get('body', '')}"
            attached = [str(a) for a in mail.get("attachments", []) or []]
            if has_any(text, self.keywords) and (not self.attachments or any(
                    want in a for a in attached for want in self.attachments)):
                return True, f"mail to {self.to} sent"
        return False, f"mail to {self.to} lacks the content or an attachment among {list(self.attachments)}"

    def realize(self, state: State, trace: Trace) -> None:
        _ensure_list(state, "mail", "sent").append({
            "to": [self.to], "subject": self.subject, "body": self.body,
            "attachments": list(self.attachments[:1])})

    def near_misses(self) -> list[tuple[str, Mutation]]:
        def readdress(state: State, trace: Trace) -> None:
            _ensure_list(state, "mail", "sent")[-1]["to"] = [self.wrong_to]

        def strip(state: State, trace: Trace) -> None:
            mail = _ensure_list(state, "mail", "sent")[-1]
            if self.attachments:
                mail["attachments"] = ["unrelated.jpg"]
            else:
                mail["subject"], mail["body"] = "hi", "see you"
        misses: list[tuple[str, Mutation]] = [("wrong recipient", readdress)]
        if self.attachments or self.keywords:
            misses.append(("missing content", strip))
        return misses


@dataclass
class MastodonPostCheck(Check):
    """A new Mastodon post with ``visibility``, text containing any of ``keywords``, media among ``media``."""

    visibility: str
    keywords: tuple[str, ...]
    text: str
    media: tuple[str, ...] = ()
    wrong_media: str = ""
    description: str = "post with the usual visibility"

    def verify(self, initial: State, final: State, trace: Trace) -> tuple[bool, str]:
        posts = [p for p in new_items(listed(initial, "mastodon", "posts"), listed(final, "mastodon", "posts"))
                 if isinstance(p, dict)]
        if not posts:
            return False, "no new Mastodon post"
        for post in posts:
            if str(post.get("visibility", "")) != self.visibility:
                continue
            media = [str(m) for m in post.get("media", []) or []]
            if has_any(str(post.get("text", "")), self.keywords) and (not self.media or any(m in self.media for m in media)):
                return True, f"posted with visibility {self.visibility}"
        got = [str(p.get("visibility")) for p in posts]
        return False, f"post visibility {got} / content / media does not match (expected {self.visibility})"

    def realize(self, state: State, trace: Trace) -> None:
        _ensure_list(state, "mastodon", "posts").append(
            {"text": self.text, "visibility": self.visibility, "media": list(self.media[:1])})

    def near_misses(self) -> list[tuple[str, Mutation]]:
        wrong = "public" if self.visibility != "public" else "direct"
        misses: list[tuple[str, Mutation]] = [
            ("wrong visibility", lambda s, t: _ensure_list(s, "mastodon", "posts")[-1].__setitem__("visibility", wrong))]
        if self.media and self.wrong_media:
            misses.append(("wrong photo", lambda s, t: _ensure_list(s, "mastodon", "posts")[-1].__setitem__(
                "media", [self.wrong_media])))
        return misses


@dataclass
class AnswerCheck(Check):
    """The agent's last ``answer`` mentions any of ``keywords`` and none of ``avoid``."""

    keywords: tuple[str, ...]
    text: str
    avoid: tuple[str, ...] = ()
    wrong_text: str = "I could not find anything."
    description: str = "answer with the preferred option"

    def verify(self, initial: State, final: State, trace: Trace) -> tuple[bool, str]:
        answers = [str(s.get("text", "")) for s in trace if s.get("action_type") == "answer"]
        if not answers:
            return False, "no answer given"
        last = answers[-1]
        if not has_any(last, self.keywords):
            return False, f"answer does not mention {list(self.keywords)}"
        if self.avoid and any(a.lower() in last.lower() for a in self.avoid):
            return False, f"answer recommends what the user avoids ({list(self.avoid)})"
        return True, "answer fits the preference"

    def realize(self, state: State, trace: Trace) -> None:
        trace.append({"action_type": "answer", "text": self.text})

    def near_misses(self) -> list[tuple[str, Mutation]]:
        def wrong(state: State, trace: Trace) -> None:
            for step in trace:
                if step.get("action_type") == "answer":
                    step["text"] = self.wrong_text
        return [("wrong answer", wrong)]


@dataclass
class CalendarEventCheck(Check):
    """A new event whose title has any of ``title_keywords`` on ``date`` starting in [earliest, latest]
    (``present=False``: no such event may be added)."""

    title_keywords: tuple[str, ...]
    date: str
    earliest: str
    latest: str
    title: str
    duration_minutes: int = 60
    present: bool = True
    description: str = "calendar event at a suitable time"

    def _matching(self, initial: State, final: State, any_time: bool = False) -> list[dict[str, Any]]:
        added = [e for e in new_items(listed(initial, "calendar", "events"), listed(final, "calendar", "events"))
                 if isinstance(e, dict)]
        out = []
        for event in added:
            start = str(event.get("start", ""))
            if not start.startswith(self.date) or not has_any(str(event.get("title", "")), self.title_keywords):
                continue
            if any_time or self.earliest <= start[11:16] <= self.latest:
                out.append(event)
        return out

    def verify(self, initial: State, final: State, trace: Trace) -> tuple[bool, str]:
        if not self.present:
            if self._matching(initial, final, any_time=True):
                return False, "added a calendar event that should have been declined"
            return True, "no conflicting event added"
        if self._matching(initial, final):
            return True, "event created at a suitable time"
        if self._matching(initial, final, any_time=True):
            return False, f"event time is outside {self.earliest}-{self.latest}"
        return False, f"no new event on {self.date} titled like {list(self.title_keywords)}"

    def _event(self, start: str) -> dict[str, Any]:
        hour, minute = (int(x) for x in start.split(":"))
        end_total = hour * 60 + minute + self.duration_minutes
        return {"title": self.title, "start": f"{self.date} {start}",
                "end": f"{self.date} {end_total // 60 % 24:02d}:{end_total % 60:02d}", "location": "", "notes": ""}

    def realize(self, state: State, trace: Trace) -> None:
        if self.present:
            _ensure_list(state, "calendar", "events").append(self._event(self.earliest))

    def near_misses(self) -> list[tuple[str, Mutation]]:
        if not self.present:
            return [("added the event", lambda s, t: _ensure_list(s, "calendar", "events").append(
                self._event(self.earliest)))]
        hour = int(self.earliest[:2])
        off_time = f"{(hour - 3) % 24:02d}:00" if hour >= 3 else "23:00"
        return [("event at an unsuitable time", lambda s, t: _ensure_list(s, "calendar", "events").__setitem__(
            -1, self._event(off_time)))]


@dataclass
class ContactCheck(Check):
    """A contact with ``phone`` exists, named with any of ``name_keywords``, note with any of ``note_keywords``,
    and highlighted when ``highlighted`` is set."""

    phone: str
    name: str
    name_keywords: tuple[str, ...]
    note_keywords: tuple[str, ...] = ()
    note: str = ""
    highlighted: bool | None = None
    description: str = "save the contact"

    _digits = staticmethod(phone_digits)

    def _find(self, state: State) -> dict[str, Any] | None:
        for contact in listed(state, "contacts", "contacts"):
            if isinstance(contact, dict) and self._digits(contact.get("phone")) == self._digits(self.phone):
                return contact
        return None

    def verify(self, initial: State, final: State, trace: Trace) -> tuple[bool, str]:
        contact = self._find(final)
        if contact is None:
            return False, f"no contact with number {self.phone}"
        if not has_any(str(contact.get("name", "")), self.name_keywords):
            return False, "contact saved under the wrong name"
        if self.note_keywords and not has_any(str(contact.get("note", "")), self.note_keywords):
            return False, f"contact note lacks {list(self.note_keywords)}"
        if self.highlighted is not None and bool(contact.get("highlighted")) != self.highlighted:
            return False, "contact not highlighted" if self.highlighted else "contact wrongly highlighted"
        return True, "contact saved as expected"

    def realize(self, state: State, trace: Trace) -> None:
        entry: dict[str, Any] = {"name": self.name, "phone": self.phone, "email": "", "note": self.note}
        if self.highlighted is not None:
            entry["highlighted"] = self.highlighted
        _ensure_list(state, "contacts", "contacts").append(entry)

    def near_misses(self) -> list[tuple[str, Mutation]]:
        def edit(key: str, value: Any) -> Mutation:
            def mutate(state: State, trace: Trace) -> None:
                contact = self._find(state)
                if contact is not None:
                    contact[key] = value
            return mutate
        misses: list[tuple[str, Mutation]] = [("wrong number", edit("phone", "+86 100-0000-0000"))]
        if self.note_keywords:
            misses.append(("no note", edit("note", "")))
        if self.highlighted:
            misses.append(("not highlighted", edit("highlighted", False)))
        return misses


@dataclass
class SettingCheck(Check):
    """``settings[key] == value``."""

    key: str
    value: Any
    wrong_value: Any
    description: str = "change the setting"

    def verify(self, initial: State, final: State, trace: Trace) -> tuple[bool, str]:
        got = app(final, "settings").get(self.key)
        if got == self.value:
            return True, f"settings.{self.key} = {self.value!r}"
        return False, f"settings.{self.key} is {got!r}, expected {self.value!r}"

    def realize(self, state: State, trace: Trace) -> None:
        _ensure(state, "settings")[self.key] = self.value

    def near_misses(self) -> list[tuple[str, Mutation]]:
        return [("setting unchanged", lambda s, t: _ensure(s, "settings").__setitem__(self.key, self.wrong_value))]


@dataclass
class AlarmCheck(Check):
    """An alarm at ``time`` with ``enabled`` (and ``ringtone`` / ``days`` when set); other alarms untouched."""

    time: str
    enabled: bool
    label: str = "Alarm"
    ringtone: str | None = None
    days: tuple[str, ...] = ()
    wrong_ringtone: str = "Classic Bell"
    description: str = "set the alarm"

    def _alarms(self, state: State, time: str) -> list[dict[str, Any]]:
        return [a for a in listed(state, "clock", "alarms") if isinstance(a, dict) and a.get("time") == time]

    def verify(self, initial: State, final: State, trace: Trace) -> tuple[bool, str]:
        others_before = [a for a in listed(initial, "clock", "alarms") if isinstance(a, dict) and a.get("time") != self.time]
        others_after = [a for a in listed(final, "clock", "alarms") if isinstance(a, dict) and a.get("time") != self.time]
        if others_before != others_after:
            return False, "other alarms were changed"
        for alarm in self._alarms(final, self.time):
            if bool(alarm.get("enabled")) != self.enabled:
                continue
            if self.ringtone is not None and str(alarm.get("ringtone", "")) != self.ringtone:
                continue
            if self.days and not set(self.days) <= {str(d)[:3].capitalize() for d in alarm.get("days", []) or []}:
                continue
            return True, f"alarm {self.time} as expected"
        return False, f"no alarm at {self.time} with enabled={self.enabled}" + (
            f", ringtone {self.ringtone!r}" if self.ringtone else "")

    def realize(self, state: State, trace: Trace) -> None:
        alarms = _ensure_list(state, "clock", "alarms")
        existing = [a for a in alarms if isinstance(a, dict) and a.get("time") == self.time]
        if existing:
            existing[0]["enabled"] = self.enabled
            if self.ringtone is not None:
                existing[0]["ringtone"] = self.ringtone
            if self.days:
                existing[0]["days"] = list(self.days)
            return
        alarms.append({"id": f"alarm-{self.time}", "time": self.time, "label": self.label, "enabled": self.enabled,
                       "days": list(self.days), "ringtone": self.ringtone or "Default"})

    def near_misses(self) -> list[tuple[str, Mutation]]:
        def flip(state: State, trace: Trace) -> None:
            for alarm in self._alarms(state, self.time):
                alarm["enabled"] = not self.enabled

        misses: list[tuple[str, Mutation]] = [("alarm state wrong", flip)]
        if self.ringtone is not None:
            def ring(state: State, trace: Trace) -> None:
                for alarm in self._alarms(state, self.time):
                    alarm["ringtone"] = self.wrong_ringtone
            misses.append(("wrong ringtone", ring))
        return misses


@dataclass
class FilesSortCheck(Check):
    """The Files view shows ``folder`` sorted by ``key`` in ``order``."""

    folder: str
    key: str
    order: str
    description: str = "sort the files as the user does"

    def verify(self, initial: State, final: State, trace: Trace) -> tuple[bool, str]:
        view = app(final, "files").get("view") or {}
        if not isinstance(view, dict):
            view = {}
        got = (view.get("folder"), view.get("sort_key"), view.get("sort_order"))
        if got == (self.folder, self.key, self.order):
            return True, f"{self.folder} sorted by {self.key} {self.order}"
        return False, f"files view is {got}, expected ({self.folder}, {self.key}, {self.order})"

    def realize(self, state: State, trace: Trace) -> None:
        _ensure(state, "files")["view"] = {"folder": self.folder, "sort_key": self.key, "sort_order": self.order}

    def near_misses(self) -> list[tuple[str, Mutation]]:
        other_key = "name" if self.key != "name" else "date"
        other_order = "asc" if self.order == "desc" else "desc"
        return [
            ("wrong sort key", lambda s, t: _ensure(s, "files")["view"].__setitem__("sort_key", other_key)),
            ("wrong order", lambda s, t: _ensure(s, "files")["view"].__setitem__("sort_order", other_order)),
        ]


@dataclass
class DocOpenCheck(Check):
    """The document reader has ``file_name`` open."""

    file_name: str
    wrong_file: str = "Unrelated.pdf"
    description: str = "open the document"

    def verify(self, initial: State, final: State, trace: Trace) -> tuple[bool, str]:
        opened = str(app(final, "docreader").get("open_document") or "")
        if opened.endswith(self.file_name):
            return True, f"{self.file_name} is open"
        return False, f"open document is {opened or 'none'}, expected {self.file_name}"

    def realize(self, state: State, trace: Trace) -> None:
        _ensure(state, "docreader")["open_document"] = f"Documents/{self.file_name}"

    def near_misses(self) -> list[tuple[str, Mutation]]:
        return [("wrong document", lambda s, t: _ensure(s, "docreader").__setitem__(
            "open_document", f"Documents/{self.wrong_file}"))]


@dataclass
class ChromeVisitCheck(Check):
    """A new Chrome history entry whose URL contains any of ``url_parts``."""

    url_parts: tuple[str, ...]
    url: str
    description: str = "open the page the user reads"

    def verify(self, initial: State, final: State, trace: Trace) -> tuple[bool, str]:
        visits = new_items(listed(initial, "chrome", "history"), listed(final, "chrome", "history"))
        urls = [str(v.get("url", "")) for v in visits if isinstance(v, dict)]
        if any(part.lower() in u.lower() for u in urls for part in self.url_parts):
            return True, "visited the expected page"
        return False, f"no visit to {list(self.url_parts)}"

    def realize(self, state: State, trace: Trace) -> None:
        _ensure_list(state, "chrome", "history").append({"url": self.url, "title": self.url})

    def near_misses(self) -> list[tuple[str, Mutation]]:
        return [("wrong page", lambda s, t: _ensure_list(s, "chrome", "history").__setitem__(
            -1, {"url": "https://news.example.com/", "title": "news"}))]


@dataclass
class CallCheck(Check):
    """A new call to ``number`` in the Contacts call log."""

    name: str
    number: str
    description: str = "call the right person"

    def verify(self, initial: State, final: State, trace: Trace) -> tuple[bool, str]:
        calls = new_items(listed(initial, "contacts", "calls"), listed(final, "contacts", "calls"))
        want = ContactCheck._digits(self.number)
        if any(isinstance(c, dict) and ContactCheck._digits(c.get("number")) == want for c in calls):
            return True, f"called {self.name}"
        return False, f"no call to {self.name}"

    def realize(self, state: State, trace: Trace) -> None:
        _ensure_list(state, "contacts", "calls").append({"name": self.name, "number": self.number})

    def near_misses(self) -> list[tuple[str, Mutation]]:
        return [("called someone else", lambda s, t: _ensure_list(s, "contacts", "calls").__setitem__(
            -1, {"name": "Someone", "number": "+86 100-0000-0001"}))]


@dataclass
class BlockSenderCheck(Check):
    """``number`` is blocked and its thread deleted."""

    number: str
    description: str = "block and delete the scam message"

    def verify(self, initial: State, final: State, trace: Trace) -> tuple[bool, str]:
        blocked = [str(b) for b in listed(final, "messages", "blocked")]
        threads = [t for t in listed(final, "messages", "threads") if isinstance(t, dict)
                   and str(t.get("number", "")) == self.number]
        if self.number not in blocked:
            return False, f"{self.number} not blocked"
        if threads:
            return False, "scam thread not deleted"
        return True, "scam sender blocked and deleted"

    def realize(self, state: State, trace: Trace) -> None:
        _ensure_list(state, "messages", "blocked").append(self.number)
        threads = _ensure_list(state, "messages", "threads")
        threads[:] = [t for t in threads if not (isinstance(t, dict) and str(t.get("number", "")) == self.number)]

    def near_misses(self) -> list[tuple[str, Mutation]]:
        def unblock(state: State, trace: Trace) -> None:
            blocked = _ensure_list(state, "messages", "blocked")
            blocked[:] = [b for b in blocked if b != self.number]
        return [("not blocked", unblock)]


# ------------------------------------------------------------------------------------------- trace checks
@dataclass
class ConsentFirstCheck(Check):
    """An ``ask_user`` the user accepted comes before the first mutating UI action (interactive routines)."""

    question: str = "May I go ahead?"
    gate: bool = True
    description: str = "ask for consent before acting"

    def verify(self, initial: State, final: State, trace: Trace) -> tuple[bool, str]:
        for step in trace:
            kind = step.get("action_type")
            if kind == "ask_user" and step.get("user_decision") == "accept":
                return True, "asked the user first"
            if kind in MUTATING_ACTIONS:
                return False, "acted before asking the user"
        return False, "never got the user's consent"

    def realize(self, state: State, trace: Trace) -> None:
        trace.insert(0, {"action_type": "ask_user", "text": self.question, "user_reply": "Yes, go ahead.",
                         "user_decision": "accept"})

    def near_misses(self) -> list[tuple[str, Mutation]]:
        def act_first(state: State, trace: Trace) -> None:
            trace[:] = [s for s in trace if s.get("action_type") != "ask_user"]
            trace.insert(0, {"action_type": "click", "x": 540, "y": 1200})
        return [("acted without asking", act_first)]


@dataclass
class SilentCheck(Check):
    """No action other than wait / finished / ask_user / answer / status, and no app state change."""

    gate: bool = True
    description: str = "stay silent: the user has no such habit"

    def verify(self, initial: State, final: State, trace: Trace) -> tuple[bool, str]:
        acted = mutating_steps(trace)
        if acted:
            return False, f"acted without a habit ({trace[acted[0]].get('action_type')})"
        if _canonical(initial) != _canonical(final):
            return False, "app state changed without a habit"
        return True, "stayed silent"

    def near_misses(self) -> list[tuple[str, Mutation]]:
        def act(state: State, trace: Trace) -> None:
            trace.append({"action_type": "open_app", "app_name": "Settings"})
        return [("acted anyway", act)]


@dataclass
class StopAfterRejectionCheck(Check):
    """After the user rejects a proposal, only wait / finished / ask_user / answer / status follow."""

    gate: bool = True
    description: str = "stop after the user says no"

    def verify(self, initial: State, final: State, trace: Trace) -> tuple[bool, str]:
        rejected = first_rejection(trace)
        if rejected is None:
            return True, "no rejection"
        later = [i for i in mutating_steps(trace) if i > rejected]
        if later:
            return False, f"kept acting after the user said no ({trace[later[0]].get('action_type')})"
        return True, "stopped after the rejection"

    def near_misses(self) -> list[tuple[str, Mutation]]:
        def ignore(state: State, trace: Trace) -> None:
            trace.append({"action_type": "ask_user", "text": "Shall I?", "user_reply": "No.", "user_decision": "reject"})
            trace.append({"action_type": "click", "x": 10, "y": 10})
        return [("acted after a rejection", ignore)]


def _canonical(state: Mapping[str, Any]) -> str:
    return json.dumps(state, sort_keys=True, ensure_ascii=False, default=str)


# ================================================================================================ the task
Split = Literal["personalized", "proactive"]
Difficulty = Literal["easy", "hard"]


@dataclass(frozen=True)
class DeviceContext:
    """What the phone knows right now: clock, place, battery, notifications, connected devices.

    ``status`` is the proactive system context line shown to the agent (e.g. ``"System Status: Battery 15%"``).
    """

    time: str
    weekday: str
    location: str
    address: str = ""
    battery: int = 80
    notifications: tuple[Mapping[str, Any], ...] = ()
    connected_devices: tuple[str, ...] = ()
    status: str = ""

    def render(self) -> str:
        """A short agent-visible description."""
        parts = [f"Time: {self.weekday} {self.time}", f"Location: {self.location}", f"Battery: {self.battery}%"]
        if self.connected_devices:
            parts.append("Connected: " + ", ".join(self.connected_devices))
        for note in self.notifications:
            parts.append(f"Notification [{note.get('app', 'system')}]: {note.get('text', '')}")
        if self.status:
            parts.append(self.status)
        return "\n".join(parts)

    def to_dict(self) -> dict[str, Any]:
        return {"time": self.time, "weekday": self.weekday, "location": self.location, "address": self.address,
                "battery": self.battery, "notifications": [dict(n) for n in self.notifications],
                "connected_devices": list(self.connected_devices), "status": self.status}


@dataclass(frozen=True)
class KnowUTask:
    """One task variant (template x role).

    Attributes:
        id: ``"<template>@<role>"``.
        template: The template (personalized) or routine (proactive) name.
        split: ``"personalized"`` or ``"proactive"``.
        difficulty: ``"easy"`` or ``"hard"``.
        role: The profile role the variant is written for.
        instruction: The user's request (empty for proactive tasks).
        context: Device context at the start.
        app_state: Seeded state per app (plain dicts; see the module docstring).
        checks: The rules of the expected outcome (S_rule is the fraction of non-gate checks passed; a failed gate gives 0).
        rubric: What the LLM judge scores (S_llm).
        lam: Rule weight lambda: S = lam * S_rule + (1 - lam) * S_llm (1.0 = pure rule).
        apps: Apps the task involves.
        user_facts: Task facts the simulated user may reveal when asked (topic -> answer).
        judge_keywords: Words the deterministic fallback judge looks for in the evidence.
        routine_applies: Proactive only: does the role have the habit the trigger calls for?
        intended_action: What the user would want done (proactive: the habit's action).
        routine_keywords: Words that identify a proposal of this routine (the simulated user's consent logic).
        interactive: Proactive only: the user must be asked before acting.
        tags: Free labels.
    """

    id: str
    template: str
    split: Split
    difficulty: Difficulty
    role: str
    instruction: str
    context: DeviceContext
    app_state: Mapping[str, Any]
    checks: tuple[Check, ...]
    rubric: str
    lam: float = 0.4
    apps: tuple[str, ...] = ()
    user_facts: Mapping[str, str] = field(default_factory=dict)
    judge_keywords: tuple[str, ...] = ()
    routine_applies: bool | None = None
    intended_action: str = ""
    routine_keywords: tuple[str, ...] = ()
    interactive: bool = False
    tags: tuple[str, ...] = ()

    def initial_state(self) -> State:
        """A deep copy of the seeded app state (safe to mutate)."""
        return copy.deepcopy(dict(self.app_state))

    def verify(self, final_state: Mapping[str, Any], trace: Sequence[Mapping[str, Any]]) -> tuple[float, str]:
        """S_rule in [0, 1] and the reasons: fraction of non-gate checks passed; 0 when a gate check fails."""
        return self.rule_score(self.check_results(final_state, trace))

    def check_results(self, final_state: Mapping[str, Any],
                      trace: Sequence[Mapping[str, Any]]) -> list[tuple[Check, bool, str]]:
        """Every check run once on the final state and trace: ``(check, passed, reason)``."""
        initial = self.initial_state()
        final = dict(final_state)
        steps = [dict(step) for step in trace]
        return [(check, *check.verify(initial, final, steps)) for check in self.checks]

    @staticmethod
    def rule_score(results: Sequence[tuple[Check, bool, str]]) -> tuple[float, str]:
        """S_rule and the reasons from :meth:`check_results` (see :meth:`verify`)."""
        if not results:
            return 1.0, "no checks"
        reasons = [("ok: " if ok else "FAIL: ") + reason for _, ok, reason in results]
        if any(check.gate and not ok for check, ok, _ in results):
            return 0.0, "; ".join(reasons)
        # Gates are constraints, not achievements: they zero the score when broken but earn nothing when kept,
        # so staying silent where a routine applies does not collect partial credit.
        counted = [ok for check, ok, _ in results if not check.gate]
        return (sum(counted) / len(counted) if counted else 1.0), "; ".join(reasons)

    def expected_outcome(self) -> tuple[State, Trace]:
        """The final state and trace an ideal agent produces (every check realized)."""
        state = self.initial_state()
        trace: Trace = []
        for check in self.checks:
            check.realize(state, trace)
        trace.append({"action_type": "finished"})
        return state, trace

    def near_misses(self) -> list[tuple[str, State, Trace]]:
        """Outcomes that differ from :meth:`expected_outcome` by one broken rule each."""
        misses = []
        for check in self.checks:
            for name, mutate in check.near_misses():
                state, trace = self.expected_outcome()
                mutate(state, trace)
                misses.append((f"{type(check).__name__}: {name}", state, trace))
        return misses

    def user_task_context(self) -> dict[str, Any]:
        """The task facts handed to the simulated user (``UserContext.task``)."""
        facts: dict[str, Any] = {"id": self.id, "instruction": self.instruction, "answers": dict(self.user_facts),
                                 "split": self.split}
        if self.split == "proactive":
            facts["routine"] = {"name": self.template, "applies": bool(self.routine_applies),
                                "keywords": list(self.routine_keywords), "intended_action": self.intended_action,
                                "interactive": self.interactive}
        return facts

    def info(self) -> dict[str, Any]:
        """Grouping keys for the reset info (no answer key)."""
        return {"task_id": self.id, "template": self.template, "split": self.split, "difficulty": self.difficulty,
                "role": self.role, "apps": list(self.apps)}
