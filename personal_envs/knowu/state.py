"""The one reader of phone state: what every KnowU check reads from the phone at the end of an episode.

:func:`remember` marks what a task seeded (called by :meth:`~personal_envs.knowu.task.PhoneTask.prepare` right after
seeding); :func:`read_state` reads the phone at the end into an :class:`EndState` of plain data, telling what is new
since the marks.  The three families' checks (general specs, preference rules and rubric judge, routine rules) read
only an :class:`EndState` and the episode trace, as the official checks read app callbacks and databases.

Vocabulary (every item is a plain dict; ``new`` is True for what appeared after seeding):

=================  ================================================================================================
``device``         ``battery_saver``, ``battery_level``, ``charging``, ``dark_mode``, ``do_not_disturb``,
                   ``ring_volume``, ``media_volume`` (0-10), ``bluetooth``, ``wifi``
``alarms``         ``id``, ``hour``, ``minute``, ``time`` (HH:MM), ``enabled``, ``days`` (Mon..Sun), ``label``,
                   ``ringtone``, ``new``
``sms``            every message: ``number``, ``contact``, ``text``, ``outgoing``, ``time``, ``new``
``contacts``       ``id``, ``name``, ``phone``, ``email``, ``starred``, ``was_starred``, ``note``, ``new``
``calls``          ``number``, ``outgoing``, ``time``, ``new``
``mails``          sent mail: ``to`` (list), ``subject``, ``body``, ``attachments`` (file names), ``time``, ``new``
``toots``          the user's toots: ``text``, ``visibility``, ``media`` (photo names), ``time``, ``new``
``posts``          Mattermost: ``channel``, ``display``, ``user``, ``mine``, ``text``, ``time``, ``new``
``events``         ``id``, ``title``, ``start`` / ``end`` (YYYY-MM-DD HH:MM), ``location``, ``notes``, ``new``
``photos``         ``id``, ``name``, ``album``, ``taken``
``files``          per folder: ``sort`` (``name_asc``, ``modified_desc``...) and ``items`` (``name``, ``modified``,
                   ``size_kb``, ``type``) in the order the Files app lists them; ``files_view``: the folder shown
``orders``         per app (taodian, jingdian, chilemei, tuantuan): ``items`` (``id``, ``title``, ``qty``,
                   ``options``, ``price``), ``name``, ``phone``, ``address``, ``payment``, ``note``, ``total``,
                   ``time``, ``new``, ``shop`` (the restaurant of a delivery order)
``cart_removed``   per shop: the seeded cart items no longer in the cart (``id``, ``title``, ``price``,
                   ``category``)
``deletions``      per shop: each "delete selected" as ``(deleted ids, cart ids before)``
=================  ================================================================================================

Besides: ``blocked`` / ``blocked_new`` / ``reported`` numbers, Chrome ``history`` (visited hosts and paths, in order)
and ``pages`` (URL -> text), the foreground ``route`` (``app``, ``screen``, ``params``), ``now`` and ``start``, the
agent's ``answer`` and the ``chat`` (its questions as ``user``, the replies as ``assistant``).
"""

from __future__ import annotations

import weakref
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from personal_envs.core.task import EpisodeTrace
from personal_envs.simulators.phone.phone import Phone

SHOPS: tuple[str, ...] = ("taodian", "jingdian")
FOODS: tuple[str, ...] = ("chilemei", "tuantuan")
Item = dict[str, Any]


@dataclass(frozen=True)
class Marks:
    """What was on the phone when seeding ended (counts of append-only lists, ids of the rest)."""

    start: datetime
    sms: int = 0
    calls: int = 0
    mails: frozenset[str] = frozenset()
    posts: int = 0
    toots: frozenset[str] = frozenset()
    contacts: frozenset[str] = frozenset()
    starred: frozenset[str] = frozenset()
    blocked: frozenset[str] = frozenset()
    events: frozenset[str] = frozenset()
    alarms: frozenset[str] = frozenset()
    orders: Mapping[str, int] = field(default_factory=dict)
    carts: Mapping[str, tuple[Item, ...]] = field(default_factory=dict)


_MARKS: weakref.WeakKeyDictionary[Phone, Marks] = weakref.WeakKeyDictionary()


def remember(phone: Phone) -> Marks:
    """Mark the phone's seeded state (everything on it now is not new)."""
    marks = Marks(
        start=phone.device.now, sms=len(phone.messages.sms), calls=len(phone.contacts.calls),
        mails=frozenset(m.mid for m in phone.mail.sent()), posts=len(phone.mattermost.posts),
        toots=frozenset(t.tid for t in phone.mastodon.mine()),
        contacts=frozenset(c.cid for c in phone.contacts.contacts),
        starred=frozenset(c.cid for c in phone.contacts.contacts if c.starred),
        blocked=frozenset(phone.messages.blocked), events=frozenset(e.eid for e in phone.calendar.events),
        alarms=frozenset(a.aid for a in phone.clock.alarms),
        orders={app: len(_orders(phone, app)) for app in (*SHOPS, *FOODS)},
        carts={shop: tuple(_cart(phone, shop)) for shop in SHOPS})
    _MARKS[phone] = marks
    return marks


def marks_of(phone: Phone) -> Marks:
    """The phone's marks (a phone that was never marked counts everything on it as new)."""
    found = _MARKS.get(phone)
    return found if found is not None else Marks(start=phone.device.now, orders={})


def _orders(phone: Phone, app: str) -> list[Any]:
    return list(phone.shop(app).orders if app in SHOPS else phone.food(app).orders)


def _cart(phone: Phone, shop: str) -> list[Item]:
    catalog = phone.shop(shop)
    out = []
    for item in catalog.cart:
        product = catalog.product(item.pid)
        out.append({"id": item.pid, "title": product.title if product else item.pid,
                    "price": product.price if product else 0.0, "category": product.category if product else ""})
    return out


def _order(phone: Phone, app: str, order: Any, new: bool) -> Item:
    items = []
    if app in SHOPS:
        shop = phone.shop(app)
        for line in order.items:
            product = shop.product(line.pid)
            items.append({"id": line.pid, "title": product.title if product else line.pid, "qty": line.quantity,
                          "options": dict(line.options), "price": product.price if product else 0.0})
    else:
        food = phone.food(app)
        for line in order.items:
            dish = food.dish(line.sid, line.did)
            items.append({"id": line.did, "title": dish.name if dish else line.did, "qty": line.quantity,
                          "options": list(line.options), "price": dish.price if dish else 0.0})
    return {"items": items, "name": order.name, "phone": order.phone, "address": order.address,
            "payment": order.payment, "note": order.note, "total": order.total, "time": order.time, "new": new,
            "shop": getattr(order, "sid", "")}


@dataclass(frozen=True)
class EndState:
    """The phone at the end of an episode, as the checks read it (see the module docstring)."""

    now: datetime
    start: datetime
    device: Mapping[str, Any]
    alarms: list[Item]
    sms: list[Item]
    contacts: list[Item]
    calls: list[Item]
    mails: list[Item]
    toots: list[Item]
    posts: list[Item]
    events: list[Item]
    photos: list[Item]
    files: Mapping[str, Item]
    files_view: str
    orders: Mapping[str, list[Item]]
    cart_removed: Mapping[str, list[Item]]
    deletions: Mapping[str, list[tuple[list[str], list[str]]]]
    blocked: list[str] = field(default_factory=list)
    blocked_new: list[str] = field(default_factory=list)
    reported: list[str] = field(default_factory=list)
    history: list[str] = field(default_factory=list)
    #: The number of the call still in progress at the end ("" when none).
    ongoing_call: str = ""
    #: Chrome's visits as its history database keeps them (``https://www.alphaxiv.org``), in order.
    visits: list[str] = field(default_factory=list)
    pages: Mapping[str, str] = field(default_factory=dict)
    route: Mapping[str, Any] | None = None
    routes: list[Item] = field(default_factory=list)
    answer: str = ""
    chat: list[dict[str, str]] = field(default_factory=list)

    # ------------------------------------------------------------------------------------- common reads
    def sent_sms(self, new_only: bool = False) -> list[Item]:
        """Outgoing messages (only those sent during the episode with ``new_only``)."""
        return [m for m in self.sms if m["outgoing"] and (m["new"] or not new_only)]

    def my_posts(self, channel: str | None = None) -> list[Item]:
        """The user's Mattermost posts of the episode (in ``channel`` when given)."""
        return [p for p in self.posts if p["mine"] and p["new"] and (channel is None or p["channel"] == channel)]

    def new(self, items: list[Item]) -> list[Item]:
        """The items of a list that appeared during the episode."""
        return [i for i in items if i.get("new")]

    def last_order(self, apps: tuple[str, ...]) -> tuple[str, Item | None]:
        """The latest new order of the first app of ``apps`` that has one, as the official checks read the order
        callbacks (Taodian then jingdian; chilemei then tuantuan)."""
        for app in apps:
            placed = self.new(list(self.orders.get(app, [])))
            if placed:
                return app, placed[-1]
        return "", None


def read_state(phone: Phone, trace: EpisodeTrace | None = None) -> EndState:
    """Read the phone (and the trace's answer and dialogue) into an :class:`EndState`."""
    marks = marks_of(phone)
    device = phone.device
    contacts = phone.contacts
    mm = phone.mattermost
    toots = phone.mastodon.mine()
    gallery = {p.pid: p.name for p in phone.gallery.photos}
    files: dict[str, Item] = {}
    for folder in sorted({f.folder for f in phone.files.items} | set(phone.files.sort_order)):
        files[folder] = {"sort": phone.files.sort_order.get(folder, "name_asc"), "items": [
            {"name": f.name, "modified": f.modified, "size_kb": f.size_kb, "type": f.name.rsplit(".", 1)[-1]}
            for f in phone.files.listing(folder)]}
    route = phone.route
    chat: list[dict[str, str]] = []
    for turn in (trace.dialogue if trace is not None else []):
        chat += [{"role": "user", "content": turn.message}, {"role": "assistant", "content": turn.reply}]
    return EndState(
        now=device.now, start=marks.start,
        device={k: getattr(device, k) for k in ("battery_saver", "battery_level", "charging", "dark_mode",
                                                "do_not_disturb", "ring_volume", "media_volume", "bluetooth", "wifi")},
        alarms=[{"id": a.aid, "hour": a.hour, "minute": a.minute, "time": f"{a.hour:02d}:{a.minute:02d}",
                 "enabled": a.enabled, "days": list(a.days), "label": a.label, "ringtone": a.ringtone,
                 "new": a.aid not in marks.alarms} for a in phone.clock.alarms],
        sms=[{"number": m.number, "contact": contacts.name_for(m.number), "text": m.text, "outgoing": m.outgoing,
              "time": m.time, "new": i >= marks.sms} for i, m in enumerate(phone.messages.sms)],
        contacts=[{"id": c.cid, "name": c.name, "phone": c.phone, "email": c.email, "starred": c.starred,
                   "was_starred": c.cid in marks.starred, "note": c.note, "new": c.cid not in marks.contacts}
                  for c in contacts.contacts],
        calls=[{"number": c.number, "outgoing": c.outgoing, "time": c.time, "new": i >= marks.calls}
               for i, c in enumerate(contacts.calls)],
        mails=[{"to": list(m.to), "subject": m.subject, "body": m.body, "time": m.time,
                "attachments": [phone.mail.attachment_name(a) for a in m.attachments], "new": m.mid not in marks.mails}
               for m in phone.mail.sent()],
        toots=[{"text": t.text, "visibility": t.visibility, "media": [gallery.get(m, m) for m in t.media],
                "time": t.time, "new": t.tid not in marks.toots} for t in toots],
        posts=[{"channel": p.channel, "display": mm.channels.get(p.channel, p.channel), "user": p.user,
                "mine": p.user == mm.username, "text": p.text, "time": p.time, "new": i >= marks.posts}
               for i, p in enumerate(mm.posts)],
        events=[{"id": e.eid, "title": e.title, "start": f"{e.start:%Y-%m-%d %H:%M}", "end": f"{e.end:%Y-%m-%d %H:%M}",
                 "location": e.location, "notes": e.notes, "new": e.eid not in marks.events}
                for e in phone.calendar.events],
        photos=[{"id": p.pid, "name": p.name, "album": p.album, "taken": p.taken} for p in phone.gallery.photos],
        files=files, files_view=phone.files.view_folder,
        orders={app: [_order(phone, app, o, i >= marks.orders.get(app, 0)) for i, o in enumerate(_orders(phone, app))]
                for app in (*SHOPS, *FOODS)},
        cart_removed={shop: [i for i in marks.carts.get(shop, ()) if i["id"] not in
                             {c.pid for c in phone.shop(shop).cart}] for shop in SHOPS},
        deletions={shop: [(list(d), list(b)) for d, b in phone.shop(shop).deletions] for shop in SHOPS},
        blocked=sorted(phone.messages.blocked), blocked_new=sorted(set(phone.messages.blocked) - marks.blocked),
        reported=list(phone.messages.spam_reports), history=list(phone.chrome.history),
        visits=list(phone.chrome.visits), ongoing_call=contacts.ongoing,
        pages={url: page.text() for url, page in phone.chrome.pages.items()},
        route={"app": route.app, "screen": route.screen, "params": dict(route.params)} if route is not None else None,
        routes=[{"origin": q.origin, "destination": q.destination, "mode": q.mode, "minutes": q.minutes}
                for q in phone.maps.queries],
        answer=(trace.answer or "") if trace is not None else "", chat=chat)
