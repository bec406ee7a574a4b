"""What the official preference checks read, taken from the simulated phone at the end of an episode.

The official ``is_successful`` methods read app callbacks and databases on Android (the latest order callback of
Taodian then jingdian, the latest Mattermost post after the start, sent SMS, the sent mail, the latest toot, calendar
events, the Clock database, contacts and their star, the Files screen).  :func:`episode_facts` reads the same facts
from the project's app state (the shapes of :mod:`personal_envs.knowu.taskspec`) before and after the episode, the
action trace and the dialogue, so :mod:`.scoring` can apply the official rules to plain data.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from personal_envs.knowu.taskspec import app, listed, new_items


@dataclass(frozen=True)
class Facts:
    """The end state of an episode as the official checks see it (every list in the order things happened).

    Attributes:
        orders: New orders per shop / delivery app key (``taodian``, ``jingdian``, ``chilemei``, ``tuantuan``).
        cart_removed: Cart items removed per shop app key.
        posts: New Mattermost posts by the user: ``{"message", "channel_name", "channel_display_name"}``.
        sms: New outgoing SMS: ``{"contact", "number", "body"}``.
        mails: New sent mails: ``{"to", "subject", "body", "attachments"}``.
        toots: New Mastodon posts by the user: ``{"text", "visibility", "media"}``.
        events: New calendar events.
        alarms: The alarms at the end.
        contacts_added: New contacts.
        contacts_highlighted: Contacts whose ``highlighted`` flag was set during the episode.
        blocked_added: Numbers blocked during the episode.
        calls: Calls placed during the episode.
        files_view: The Files app view at the end (``folder``, ``sort_key``, ``sort_order``).
        files: Files of the viewed folder at the end (name, modified, size_kb, type).
        answer: The agent's final answer (the official ``interaction_cache``).
        chat: The dialogue in the official roles (``"user"``: the agent's question, ``"assistant"``: the reply).
        date: The simulated date (``YYYY-MM-DD``).
    """

    orders: Mapping[str, list[dict[str, Any]]] = field(default_factory=dict)
    cart_removed: Mapping[str, list[dict[str, Any]]] = field(default_factory=dict)
    posts: list[dict[str, Any]] = field(default_factory=list)
    sms: list[dict[str, Any]] = field(default_factory=list)
    mails: list[dict[str, Any]] = field(default_factory=list)
    toots: list[dict[str, Any]] = field(default_factory=list)
    events: list[dict[str, Any]] = field(default_factory=list)
    alarms: list[dict[str, Any]] = field(default_factory=list)
    contacts_added: list[dict[str, Any]] = field(default_factory=list)
    contacts_highlighted: list[dict[str, Any]] = field(default_factory=list)
    blocked_added: list[str] = field(default_factory=list)
    calls: list[dict[str, Any]] = field(default_factory=list)
    files_view: Mapping[str, Any] = field(default_factory=dict)
    files: list[dict[str, Any]] = field(default_factory=list)
    answer: str = ""
    chat: list[dict[str, str]] = field(default_factory=list)
    date: str = ""


SHOP_KEYS = ("taodian", "jingdian")
FOOD_KEYS = ("chilemei", "tuantuan")


def _dicts(items: Sequence[Any]) -> list[dict[str, Any]]:
    return [dict(i) for i in items if isinstance(i, Mapping)]


def _removed(before: Sequence[Any], after: Sequence[Any]) -> list[dict[str, Any]]:
    kept = {str(i.get("id")) for i in after if isinstance(i, Mapping)}
    return [dict(i) for i in before if isinstance(i, Mapping) and str(i.get("id")) not in kept]


def _posts(initial: Mapping[str, Any], final: Mapping[str, Any]) -> list[dict[str, Any]]:
    me = str(app(final, "mattermost").get("me", ""))
    posts: list[dict[str, Any]] = []
    before: dict[tuple[str, str], list[Any]] = {}
    for team in listed(initial, "mattermost", "teams"):
        for channel in team.get("channels", []) if isinstance(team, Mapping) else []:
            before[(str(team.get("name")), str(channel.get("name")))] = list(channel.get("messages", []))
    for team in listed(final, "mattermost", "teams"):
        for channel in team.get("channels", []) if isinstance(team, Mapping) else []:
            key = (str(team.get("name")), str(channel.get("name")))
            for message in new_items(before.get(key, []), list(channel.get("messages", []))):
                if isinstance(message, Mapping) and (not me or message.get("user") == me):
                    name = str(channel.get("name", ""))
                    posts.append({"message": str(message.get("text", "")), "channel_name": name.lower().replace(
                        " ", "-"), "channel_display_name": name, "team": key[0]})
    return posts


def _sms(initial: Mapping[str, Any], final: Mapping[str, Any]) -> list[dict[str, Any]]:
    before = {(str(t.get("contact")), str(t.get("number"))): list(t.get("messages", []))
              for t in listed(initial, "messages", "threads") if isinstance(t, Mapping)}
    sent: list[dict[str, Any]] = []
    for thread in listed(final, "messages", "threads"):
        if not isinstance(thread, Mapping):
            continue
        key = (str(thread.get("contact")), str(thread.get("number")))
        for message in new_items(before.get(key, []), list(thread.get("messages", []))):
            if isinstance(message, Mapping) and message.get("direction") == "out":
                sent.append({"contact": key[0], "number": key[1], "body": str(message.get("text", ""))})
    return sent


def _highlighted(initial: Mapping[str, Any], final: Mapping[str, Any]) -> list[dict[str, Any]]:
    was = {str(c.get("phone")) for c in listed(initial, "contacts", "contacts")
           if isinstance(c, Mapping) and c.get("highlighted")}
    return [dict(c) for c in listed(final, "contacts", "contacts")
            if isinstance(c, Mapping) and c.get("highlighted") and str(c.get("phone")) not in was]


def _added_contacts(initial: Mapping[str, Any], final: Mapping[str, Any]) -> list[dict[str, Any]]:
    known = {_digits(c.get("phone")) for c in _dicts(listed(initial, "contacts", "contacts"))}
    return [c for c in _dicts(listed(final, "contacts", "contacts")) if _digits(c.get("phone")) not in known]


def _digits(value: Any) -> str:
    return "".join(ch for ch in str(value or "") if ch.isdigit())


def chat_of(trace: Sequence[Mapping[str, Any]]) -> list[dict[str, str]]:
    """The dialogue of a trace in the official roles: the agent's ``ask_user`` text as ``"user"``, the reply as
    ``"assistant"`` (the official controller records it so)."""
    chat: list[dict[str, str]] = []
    for step in trace:
        if step.get("action_type") == "ask_user":
            chat.append({"role": "user", "content": str(step.get("text", ""))})
            if step.get("user_reply") is not None:
                chat.append({"role": "assistant", "content": str(step.get("user_reply", ""))})
    return chat


def episode_facts(initial: Mapping[str, Any], final: Mapping[str, Any], trace: Sequence[Mapping[str, Any]],
                  date: str = "") -> Facts:
    """The :class:`Facts` of an episode from the app state before and after it and its action trace."""
    view = app(final, "files").get("view", {})
    view = dict(view) if isinstance(view, Mapping) else {}
    folders = app(final, "files").get("folders", {})
    files = _dicts(folders.get(str(view.get("folder", "Download")), [])) if isinstance(folders, Mapping) else []
    answers = [str(s.get("text", "")) for s in trace if s.get("action_type") == "answer"]
    return Facts(
        orders={k: _dicts(new_items(listed(initial, k, "orders"), listed(final, k, "orders")))
                for k in (*SHOP_KEYS, *FOOD_KEYS)},
        cart_removed={k: _removed(listed(initial, k, "cart"), listed(final, k, "cart")) for k in SHOP_KEYS},
        posts=_posts(initial, final),
        sms=_sms(initial, final),
        mails=_dicts(new_items(listed(initial, "mail", "sent"), listed(final, "mail", "sent"))),
        toots=_dicts(new_items(listed(initial, "mastodon", "posts"), listed(final, "mastodon", "posts"))),
        events=_dicts(new_items(listed(initial, "calendar", "events"), listed(final, "calendar", "events"))),
        alarms=_dicts(listed(final, "clock", "alarms")),
        contacts_added=_added_contacts(initial, final),
        contacts_highlighted=_highlighted(initial, final),
        blocked_added=[str(n) for n in new_items(listed(initial, "messages", "blocked"),
                                                 listed(final, "messages", "blocked"))],
        calls=_dicts(new_items(listed(initial, "contacts", "calls"), listed(final, "contacts", "calls"))),
        files_view=view,
        files=files,
        answer=answers[-1] if answers else "",
        chat=chat_of(trace),
        date=date,
    )
