"""The oracle policy: completes a task through the UI from a scripted plan, locating targets in ``ui_xml``.

A plan is a list of steps.  :class:`Tap` names a node by text, resource-id, content-desc or a substring, and the
policy taps the centre of its bounds (scrolling to find it when it is off screen); :class:`Fill` taps a field and
types into it; :class:`Do` sends a raw action (open_app, navigate_back, answer, finished, ...).  It proves each task
solvable through the same observations and actions an agent gets.  It is privileged only in reading the task's
plan (through :meth:`OraclePolicy.attach`).

Goals (:class:`Order`, :class:`Sms`, :class:`Post`...) say what a task needs done without the UI; :func:`plan` turns
them into steps, and the plan helpers (:func:`sms_plan`, :func:`chat_plan`, :func:`event_plan`, :func:`mail_plan`)
serve every family.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import gymnasium as gym

from personal_envs.policies.base import Policy
from personal_envs.simulators.phone.uixml import UiNode, find_nodes, parse_ui_xml

#: How many scrolls the oracle tries before it gives up on a target.
MAX_SCROLLS = 8


@dataclass(frozen=True)
class Tap:
    """Tap a node; ``near`` picks, among several matches, the one on the same row as the node with that text."""

    text: str | None = None
    rid: str | None = None
    desc: str | None = None
    contains: str | None = None
    near: str | None = None
    nth: int = 0
    long: bool = False

    def locate(self, nodes: list[UiNode]) -> UiNode | None:
        """The node to tap, or ``None`` when it is not on screen."""
        found = find_nodes(nodes, text=self.text, rid=self.rid, desc=self.desc, contains=self.contains)
        if self.near is not None:
            anchors = find_nodes(nodes, contains=self.near)
            if not anchors:
                return None
            anchor_y = anchors[0].center[1]
            found = sorted(found, key=lambda n: abs(n.center[1] - anchor_y))
            found = [n for n in found if abs(n.center[1] - anchor_y) < 120]
        return found[self.nth] if len(found) > self.nth else None


@dataclass(frozen=True)
class Fill:
    """Tap the text field with resource-id ``rid`` and type ``value``."""

    rid: str
    value: str


@dataclass(frozen=True)
class Do:
    """Send ``action`` as it is."""

    action: dict[str, Any]


Step = Tap | Fill | Do


def open_app(name: str) -> Do:
    return Do({"action_type": "open_app", "app_name": name})


def back() -> Do:
    return Do({"action_type": "navigate_back"})


def home() -> Do:
    return Do({"action_type": "navigate_home"})


def enter() -> Do:
    return Do({"action_type": "keyboard_enter"})


def answer(text: str) -> Do:
    return Do({"action_type": "answer", "text": text})


def finish() -> Do:
    return Do({"action_type": "finished"})


# ================================================================================================= goals
# What an oracle must achieve, independent of the UI: a family's reading (the class rubric of a preference
# variant, a routine's action) states goals; :func:`plan` turns them into steps on the simulated phone.
State = Mapping[str, Any]
#: Phone labels of the shopping and delivery apps.
APP_LABELS: dict[str, str] = {"taodian": "Taodian", "jingdian": "jingdian", "chilemei": "chilemei",
                              "tuantuan": "tuantuan"}
#: Payment and visibility names of the world data -> the phone's button ids.
PAYMENT_IDS: dict[str, str] = {"wechat_pay": "wechat", "bank_card": "card", "cash_on_delivery": "cod"}
VISIBILITY_IDS: dict[str, str] = {"followers-only": "private", "followers": "private"}


@dataclass(frozen=True)
class Order:
    """An order of ``item`` (a catalog product or a dish id) on ``app``, delivered to ``address``."""

    app: str
    item: str
    address: str = ""
    size: str | None = None
    note: str = ""
    payment: str | None = None
    recipient: str = ""
    phone: str = ""


@dataclass(frozen=True)
class Prune:
    """Delete the cart items ``ids`` of ``app``, one by one."""

    app: str
    ids: tuple[str, ...]


@dataclass(frozen=True)
class Sms:
    """A new text to ``recipient`` (a number or a contact name)."""

    recipient: str
    text: str


@dataclass(frozen=True)
class Post:
    """A Mattermost post in ``channel``."""

    channel: str
    text: str


@dataclass(frozen=True)
class Mail:
    """A sent mail (``attachments``: file names to attach)."""

    to: str
    subject: str
    body: str
    attachments: tuple[str, ...] = ()


@dataclass(frozen=True)
class Toot:
    """A Mastodon post with ``visibility`` (and photos by name)."""

    text: str
    visibility: str = "public"
    media: tuple[str, ...] = ()


@dataclass(frozen=True)
class Visit:
    """Open ``target`` (a URL or a search) in Chrome."""

    target: str


@dataclass(frozen=True)
class Alarm:
    """A new alarm at ``time`` (HH:MM) on ``days`` with ``ringtone``."""

    time: str
    label: str = ""
    ringtone: str | None = None
    days: tuple[str, ...] = ()


@dataclass(frozen=True)
class Contact:
    """A new contact (starred with ``starred``)."""

    name: str
    phone: str
    note: str = ""
    starred: bool = False


@dataclass(frozen=True)
class Sort:
    """Sort ``folder`` in Files by the phone's order id (``modified_desc``, ``name_asc``...)."""

    folder: str
    order: str


@dataclass(frozen=True)
class Event:
    """A new calendar event."""

    title: str
    date: str
    start: str
    end: str


@dataclass(frozen=True)
class Ask:
    """Ask the user ``question`` first."""

    question: str


@dataclass(frozen=True)
class Reply:
    """End the episode with the answer ``text``."""

    text: str


Goal = Order | Prune | Sms | Post | Mail | Toot | Visit | Alarm | Contact | Sort | Event | Ask | Reply


def listed(state: State, app: str, key: str) -> list[Mapping[str, Any]]:
    """The records of list ``key`` of ``app`` in a class's world (app-state fixture); none when malformed."""
    holder = state.get(app)
    value = holder.get(key) if isinstance(holder, Mapping) else None
    return [i for i in value if isinstance(i, Mapping)] if isinstance(value, list) else []


def _order_steps(goal: Order, world: State) -> list[Step]:
    label = APP_LABELS.get(goal.app, goal.app)
    tail: list[Step] = []
    if goal.recipient:
        tail.append(Fill("receiver_name", goal.recipient))
    if goal.phone:
        tail.append(Fill("receiver_phone", goal.phone))
    tail.append(Fill("receiver_address", goal.address or "Home"))
    if goal.note:
        tail.append(Fill("order_note", goal.note))
    pay = [Tap(rid=f"pay_{PAYMENT_IDS.get(goal.payment, goal.payment)}")] if goal.payment else []
    for restaurant in listed(world, goal.app, "restaurants"):
        for dish in restaurant.get("dishes", []):
            if dish.get("id") == goal.item:
                return [open_app(label), Tap(text=str(restaurant["name"])), Tap(rid="add_dish", near=str(dish["name"])),
                        Tap(rid="add_to_basket"), Tap(rid="basket_button"), *tail, *pay, Tap(rid="place_order")]
    title = next((str(i.get("title")) for i in listed(world, goal.app, "catalog") if i.get("id") == goal.item),
                 goal.item)
    steps: list[Step] = [open_app(label), Fill("search_input", title), Tap(rid="search_button"), Tap(text=title)]
    if goal.size is not None:
        steps.append(Tap(rid=f"option_size={goal.size}"))
    return [*steps, Tap(rid="buy_now"), *tail, *pay, Tap(rid="submit_order")]


def _prune_steps(goal: Prune, world: State) -> list[Step]:
    titles = {str(i.get("id")): str(i.get("title")) for i in listed(world, goal.app, "cart")}
    return [open_app(APP_LABELS.get(goal.app, goal.app)), Tap(rid="cart_button"),
            *[Tap(rid="delete_item", near=titles.get(i, i)) for i in goal.ids]]


def sms_plan(recipient: str, text: str) -> list[Step]:
    """Text ``recipient`` (a number or a contact name) from a new conversation."""
    return [open_app("Messages"), Tap(rid="start_chat_fab"), Fill("recipient", recipient),
            Fill("compose_message_text", text), Tap(rid="send_message_button")]


def chat_plan(channel: str, text: str) -> list[Step]:
    """Post ``text`` in the Mattermost channel shown as ``channel``."""
    return [open_app("Mattermost"), Tap(text=channel), Fill("post_input", text), Tap(rid="send_button")]


def event_plan(title: str, date: str, start: str, end: str) -> list[Step]:
    """Create a calendar event."""
    return [open_app("Calendar"), Tap(rid="create_event_fab"), Fill("event_title_input", title), Tap(rid="date_clear"),
            Fill("event_date_input", date), Fill("event_start_input", start), Fill("event_end_input", end),
            Tap(rid="save_event")]


def mail_plan(to: str, subject: str, body: str, attachments: tuple[str, ...] = ()) -> list[Step]:
    """Compose and send a mail (attaching the first of ``attachments``)."""
    steps: list[Step] = [open_app("Mail"), Tap(rid="compose_button"), Fill("to", to), Fill("subject", subject),
                         Fill("body", body)]
    if attachments:
        steps += [Tap(rid="add_attachment"), Tap(text=attachments[0])]
    return [*steps, Tap(rid="send")]


def _steps(goal: Goal, world: State) -> list[Step]:
    if isinstance(goal, Order):
        return _order_steps(goal, world)
    if isinstance(goal, Prune):
        return _prune_steps(goal, world)
    if isinstance(goal, Sms):
        return sms_plan(goal.recipient, goal.text)
    if isinstance(goal, Post):
        return chat_plan(goal.channel, goal.text)
    if isinstance(goal, Mail):
        return mail_plan(goal.to, goal.subject, goal.body, goal.attachments)
    if isinstance(goal, Toot):
        steps: list[Step] = [open_app("Mastodon"), Tap(rid="compose_fab"), Fill("compose_text", goal.text),
                             Tap(rid=f"visibility_{VISIBILITY_IDS.get(goal.visibility, goal.visibility)}")]
        if goal.media:
            steps += [Tap(rid="add_media"), Tap(text=goal.media[0])]
        return [*steps, Tap(rid="publish")]
    if isinstance(goal, Visit):
        return [open_app("Chrome"), Fill("url_bar", goal.target), Tap(rid="go_button")]
    if isinstance(goal, Alarm):
        steps = [open_app("Clock"), Tap(rid="add_alarm_fab"), Fill("alarm_time", goal.time)]
        if goal.label:
            steps.append(Fill("alarm_label", goal.label))
        steps += [Tap(rid=f"day_{d.lower()}") for d in goal.days]
        if goal.ringtone is not None:
            steps += [Tap(rid="alarm_sound"), Tap(text=goal.ringtone)]
        return [*steps, Tap(rid="save_alarm")]
    if isinstance(goal, Contact):
        steps = [open_app("Contacts"), Tap(rid="create_contact_fab"), Fill("contact_name", goal.name),
                 Fill("contact_phone", goal.phone)]
        if goal.note:
            steps.append(Fill("contact_note", goal.note))
        steps.append(Tap(rid="save_contact"))
        return [*steps, Tap(rid="favorite_button")] if goal.starred else steps
    if isinstance(goal, Sort):
        return [open_app("Files"), Tap(text=goal.folder), Tap(rid="sort_button"), Tap(rid=f"sort_{goal.order}")]
    if isinstance(goal, Event):
        return event_plan(goal.title, goal.date, goal.start, goal.end)
    return []


def plan(goals: Sequence[Goal], world: State | None = None) -> list[Step]:
    """The UI steps that reach ``goals`` on a phone seeded with ``world`` (the app-state fixture the goals name
    items of): an :class:`Ask` first, the actions in order, then the :class:`Reply` (or ``finished``)."""
    world = world or {}
    asks = [Do({"action_type": "ask_user", "text": g.question}) for g in goals if isinstance(g, Ask)]
    closing = [answer(g.text) for g in goals if isinstance(g, Reply)] or [finish()]
    body = [step for g in goals if not isinstance(g, Ask | Reply) for step in _steps(g, world)]
    return [*asks, *body, closing[-1]]


class OraclePolicy(Policy):
    """Runs the current task's oracle plan (see module docstring).

    Args:
        env: The env (wrapped or not); the policy reads the current task from its unwrapped form.
        seed: Unused (the oracle is deterministic).
    """

    name = "oracle"

    def __init__(self, env: gym.Env[Any, Any] | None = None, seed: int = 0) -> None:
        self._env: Any = env.unwrapped if env is not None else None
        self._queue: list[Tap | Do] = []
        self._scrolls = 0
        self.failures: list[str] = []

    def attach(self, env: gym.Env[Any, Any]) -> None:
        self._env = env.unwrapped

    def reset(self, observation: dict[str, Any], info: dict[str, Any]) -> None:
        if self._env is None:
            raise RuntimeError("OraclePolicy needs the env: pass it to the constructor or call attach(env)")
        plan: list[Step] = self._env.task.oracle_plan()
        self._queue = []
        for step in plan:
            if isinstance(step, Fill):
                self._queue.append(Tap(rid=step.rid))
                self._queue.append(Do({"action_type": "input_text", "text": step.value}))
            else:
                self._queue.append(step)
        self._scrolls = 0
        self.failures = []

    def act(self, observation: dict[str, Any], info: dict[str, Any]) -> Any:
        if not self._queue:
            return {"action_type": "finished"}
        step = self._queue[0]
        if isinstance(step, Do):
            self._queue.pop(0)
            return dict(step.action)
        node = step.locate(parse_ui_xml(observation["ui_xml"]))
        if node is not None:
            self._queue.pop(0)
            self._scrolls = 0
            x, y = node.center
            return {"action_type": "long_press" if step.long else "click", "x": x, "y": y}
        if self._scrolls < MAX_SCROLLS:
            self._scrolls += 1
            return {"action_type": "scroll", "direction": "down" if self._scrolls <= MAX_SCROLLS // 2 else "up"}
        self.failures.append(f"target not found: {step}")
        self._queue.pop(0)
        self._scrolls = 0
        return {"action_type": "wait"}


def make_oracle(env: gym.Env[Any, Any], seed: int = 0, **_: Any) -> OraclePolicy:
    """Factory used by the registry (``--policy oracle``)."""
    return OraclePolicy(env, seed)
