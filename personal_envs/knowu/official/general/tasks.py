"""The 42 general classes of KnowU-Bench on the simulated phone: one task class for the family.

Each class (``BatterySaverGeneralTask``...) becomes an :class:`OfficialGeneralTask`: its goal text and the constants
its setup and check use (numbers, names, SMS bodies, keyword lists, timestamps) come from the task source (the
release, parsed with ast, or the embedded cards); the seeding, the check with the official partial credit and the
oracle plan are reimplemented here, per class, on the simulator's state (:class:`~personal_envs.knowu.state.EndState`).

Classes in :data:`OFFICIAL_CHECKS` (40) follow the official seeding and ``is_successful``; the two judge-scored
commutes (:data:`JUDGED`) send the judge prompt with ``judge="llm"`` and use a labelled deterministic stand-in
otherwise (``metrics["official_check"]`` is False then).  Where the official world lives outside the repository (the
mall and food catalogs, the cart, the Mastodon timeline), the project's world stands in, with names carrying what the
official checks read.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any

from personal_envs.core.task import Check, EpisodeTrace, Evaluation
from personal_envs.knowu import oracle
from personal_envs.knowu.official.general.user import OfficialGeneralUser
from personal_envs.knowu.official.llm_user import OfficialLLMUser
from personal_envs.knowu.official.registry import BuildContext, official_task
from personal_envs.knowu.official.source import OfficialClass
from personal_envs.knowu.official.texts import GENERAL_DATE, GENERAL_JUDGE, GENERAL_USER_PROMPT, TaskSource
from personal_envs.knowu.oracle import Fill, Step, Tap, answer, chat_plan, enter, event_plan, finish, open_app
from personal_envs.knowu.state import FOODS, SHOPS, EndState, read_state
from personal_envs.knowu.task import PhoneTask, PhoneWorld
from personal_envs.knowu.world import RUN_DATE, seed_world
from personal_envs.simulators.phone.apps.shop import CartItem
from personal_envs.simulators.phone.phone import Phone
from personal_envs.simulators.users.base import SimulatedUser

Seeder = Callable[[Phone], None]
Scorer = Callable[[EndState, EpisodeTrace], tuple[float, str]]
Planner = Callable[[Phone], list[Step]]


def route_looked_up(end: EndState) -> str | None:
    """``None`` when a route was planned in Maps, else why a route plan answer is not grounded."""
    return None if end.routes else "no route was planned in Maps"


def weather_looked_up(end: EndState) -> str | None:
    """``None`` when Chrome visited a URL naming the weather, else why a weather answer is not grounded."""
    return None if any("weather" in url.lower() for url in end.history) else "the weather was not looked up"


#: Classes whose official check reads only the ``answer`` text, and the lookup the default protocol asks behind it.
#: Officially any answer earns the late commute's 0.4 and the sunny route's 0.2 (0.5 with a keyword, 1.0 with three
#: of "route", "min", "km"...), and a weather answer passes with a number within the tolerance of the day's maximum
#: anywhere in it: the shortcut audit's "answer with the observation's text" (the goal and context, no lookup)
#: scored 0.069 on average over the 42 tasks (1.0 on the weather and late-night commute, 0.5 and 0.4 on two more).
#: ``protocol="paper"`` scores as officially.
ANSWER_GROUNDING: dict[str, Callable[[EndState], str | None]] = {
    "CommuteRoutingSunnyGeneralTask": route_looked_up,
    "CommuteLateNightGeneralTask": route_looked_up,
    "CommuteRoutingBadWeatherGeneralTask": route_looked_up,
    "CommuteLateWithNoticeGeneralTask": route_looked_up,
    "MorningWeatherCheckGeneralTask": weather_looked_up,
}


@dataclass
class Spec:
    """How one official class runs on the simulator."""

    start: datetime
    seed: Seeder
    score: Scorer
    plan: Planner


class OfficialGeneralTask(PhoneTask):
    """An official general task: official goal, seeded world, official check (score, reason), oracle plan.

    Attributes:
        official: The parsed official class.
        spec: Its start time, seeding, check and oracle plan on the simulator.
        official_check: False where a deterministic stand-in scores instead of the official judge.
    """

    def __init__(self, official: OfficialClass, spec: Spec, official_check: bool = True,
                 source: TaskSource | None = None) -> None:
        self.official = official
        self.source = source
        self.spec = spec
        self.official_check = official_check
        self.task_id = official.name
        self.split = "general"
        self.difficulty = official.difficulty
        self.apps = official.app_names
        self.instruction = official.goal or ""
        self.start = spec.start
        self.facts: dict[str, str] = {}

    def reset_info(self) -> dict[str, Any]:
        return {**super().reset_info(), "official_check": self.official_check}

    def seed(self, phone: Phone) -> None:
        self.spec.seed(phone)

    def verify(self, phone: Phone, trace: EpisodeTrace) -> Evaluation:
        end = read_state(phone, trace)
        score, reason = self.spec.score(end, trace)
        grounding = ANSWER_GROUNDING.get(self.task_id)
        if self.protocol != "paper" and grounding is not None and end.answer.strip():
            missing = grounding(end)
            if missing is not None:  # the default protocol: an answer no lookup stands behind counts as none
                official = reason
                silent = replace(trace, answer=None)
                score, reason = self.spec.score(read_state(phone, silent), silent)
                reason = f"{reason} (default protocol: the answer counts as none, {missing}; official: {official})"
        checks = [Check("official check", score >= 0.99, reason)]
        return Evaluation(score, {"official_check": self.official_check, "template": self.task_id}, checks, reason)

    def user_facts(self) -> dict[str, Any]:
        return {"instruction": self.instruction, "facts": dict(self.facts)}

    # ------------------------------------------------------------------------------------------ user side
    @property
    def today(self) -> str:
        """Today's date as the user is told it (officially ``BaseTask.__init__``, the start time as device clock)."""
        if self.source is None:
            return self.start.date().isoformat()
        return str(self.source.text(self.official.name, GENERAL_DATE, {"app_names": self.apps, "start": self.start}))

    @property
    def user_prompt(self) -> str:
        """The user model's system prompt (officially ``BaseTask.initialize_user_agent_hook``)."""
        if self.source is None:
            raise ValueError(f"{self.task_id}: the user prompt needs the task source")
        return str(self.source.text(self.official.name, GENERAL_USER_PROMPT,
                                    {"goal": self.instruction, "app_names": self.apps, "start": self.start}))

    def make_user(self) -> SimulatedUser:
        return self.user_of_kind("profile")

    def user_of_kind(self, kind: str) -> SimulatedUser:
        """``"profile"``: the deterministic official general user; ``"llm"``: the official LLM user protocol."""
        if kind == "llm":
            return OfficialLLMUser(self.user_prompt)
        if kind in ("profile", "deterministic", "default"):
            return OfficialGeneralUser(self.instruction, self.today)
        raise ValueError(f"unknown simulated user kind {kind!r}; use 'profile' or 'llm'")

    def oracle_plan(self) -> list[Step]:
        """The UI plan that solves the task (computed on a freshly seeded phone)."""
        phone = Phone(now=self.start)
        self.seed(phone)
        return self.spec.plan(phone)

    def hidden_strings(self, world: PhoneWorld) -> list[str]:
        """The check's verdict on the untouched phone (the reason line must not reach the agent)."""
        phone = Phone(now=self.start)
        self.prepare(phone)
        return [self.verify(phone, EpisodeTrace()).reason]


# ----------------------------------------------------------------------------------------------- helpers
def adb_time(stamp: str) -> datetime:
    """``MMDDhhmmYYYY.ss`` (the official ``date`` argument) as a datetime."""
    return datetime.strptime(stamp, "%m%d%H%M%Y.%S")


def at_time(day: datetime, hms: str) -> datetime:
    """``day`` at ``"HH:MM:SS"``."""
    hour, minute, second = (int(p) for p in hms.split(":"))
    return day.replace(hour=hour, minute=minute, second=second, microsecond=0)


def digits(text: str) -> str:
    return re.sub(r"\D", "", text or "")


def same_number(a: str, b: str) -> bool:
    """Numbers equal on their digits, allowing a country prefix on one side (+86 ...)."""
    x, y = digits(a), digits(b)
    return bool(x and y) and (x == y or (len(x) >= 7 and len(y) >= 7 and (x.endswith(y) or y.endswith(x))))


def quoted(goal: str) -> str:
    """The last text quoted in the goal ('...' or "...")."""
    found = re.findall(r"[\"'“‘]([^\"'”’]{4,})[\"'”’]", goal)
    return found[-1] if found else goal


def sent_to(end: EndState, number: str) -> list[str]:
    return [m["text"] for m in end.sent_sms() if same_number(m["number"], number)]


def set_contact(phone: Phone, name: str, number: str) -> None:
    """A contact ``name`` with ``number`` (an existing one of that name gets the number, as ContactsSetup does)."""
    for contact in phone.contacts.contacts:
        if contact.name == name:
            contact.phone = number
            return
    phone.contacts.add(name, number)


def credit(checks: list[str], passed: Any, points: float, ok: str, missed: str, otherwise: float = 0.0) -> float:
    """One line of an official partial-credit check: ``points`` and ``ok`` noted in ``checks`` when ``passed``, else
    ``otherwise`` and ``missed``."""
    checks.append(ok if passed else missed)
    return points if passed else otherwise


def method_value(cls: OfficialClass, method: str, name: str) -> Any:
    return cls.method(method).value(name)


# ----------------------------------------------------------------------------------------------- the specs
SpecMaker = Callable[[OfficialClass], Spec]
OFFICIAL_CHECKS: dict[str, SpecMaker] = {}


def spec(name: str) -> Callable[[SpecMaker], SpecMaker]:
    def register(maker: SpecMaker) -> SpecMaker:
        OFFICIAL_CHECKS[name] = maker
        return maker

    return register


def base(extra: Seeder | None = None) -> Seeder:
    """The default world (the snapshot every task starts from) plus ``extra``."""

    def seeder(phone: Phone) -> None:
        seed_world(phone)
        if extra is not None:
            extra(phone)

    return seeder


@spec("BatterySaverGeneralTask")
def _battery(cls: OfficialClass) -> Spec:
    level = int(cls.attributes["TRIGGER_LEVEL"])

    def seed(phone: Phone) -> None:
        phone.device.battery_level, phone.device.charging, phone.device.battery_saver = level, False, False

    def score(end: EndState, trace: EpisodeTrace) -> tuple[float, str]:
        on = end.device["battery_saver"]
        return (1.0, "Success: Battery saver mode is ON.") if on else (0.0, "Failure: Battery saver mode is still OFF.")

    return Spec(RUN_DATE, base(seed), score,
                lambda p: [open_app("Settings"), Tap(rid="settings_battery"), Tap(rid="battery_saver"), finish()])


@spec("BluetoothCleanupGeneralTask")
def _bluetooth(cls: OfficialClass) -> Spec:
    volume = int(cls.attributes["INITIAL_VOLUME"])

    def seed(phone: Phone) -> None:
        phone.device.bluetooth_devices = []
        phone.device.media_volume = volume

    def score(end: EndState, trace: EpisodeTrace) -> tuple[float, str]:
        vol = end.device["media_volume"]
        if vol == 0:
            return 1.0, f"Success: Media volume is muted. [Vol: {vol}]"
        return 0.0, f"Failure: Media volume is still audible. [Vol: {vol}]"

    def plan(phone: Phone) -> list[Step]:
        return [open_app("Settings"), Tap(rid="settings_sound"),
                *[Tap(rid="media_volume_down")] * phone.device.media_volume, finish()]

    return Spec(RUN_DATE, base(seed), score, plan)


@spec("DeepWorkGeneralTask")
def _deep_work(cls: OfficialClass) -> Spec:
    def seed(phone: Phone) -> None:
        phone.device.do_not_disturb = False

    def score(end: EndState, trace: EpisodeTrace) -> tuple[float, str]:
        dnd, ring = end.device["do_not_disturb"], end.device["ring_volume"]
        on = dnd or ring == 0  # zen mode, or ringer silent
        desc = f"[DND: {dnd}, ring volume: {ring}]"
        return (1.0, f"Success: DND/Silent mode is ON. {desc}") if on else (0.0, f"Failure: DND/Silent mode is OFF. {desc}")

    return Spec(adb_time(cls.attributes["TARGET_TIMESTAMP"]), base(seed), score,
                lambda p: [open_app("Settings"), Tap(rid="settings_notifications"), Tap(rid="do_not_disturb"), finish()])


@spec("NightSocialGeneralTask")
def _night(cls: OfficialClass) -> Spec:
    def seed(phone: Phone) -> None:
        phone.device.dark_mode = False
        phone.open_app("Mastodon")

    def score(end: EndState, trace: EpisodeTrace) -> tuple[float, str]:
        return (1.0, "Success: Dark mode is ON.") if end.device["dark_mode"] else (0.0, "Failure: Dark mode is still OFF.")

    return Spec(at_time(RUN_DATE, cls.attributes["DEFAULT_SCENE_TIME"]), base(seed), score,
                lambda p: [open_app("Settings"), Tap(rid="settings_display"), Tap(rid="dark_theme"), finish()])


@spec("WeekendSleeperGeneralTask")
def _sleeper(cls: OfficialClass) -> Spec:
    hour, minute = cls.attributes["ALARM_TIME"]

    def seed(phone: Phone) -> None:
        phone.clock.alarms = [a for a in phone.clock.alarms if (a.hour, a.minute) != (hour, minute)]
        phone.clock.add_alarm(hour, minute, days=["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"], label="Work")

    def score(end: EndState, trace: EpisodeTrace) -> tuple[float, str]:
        on = any(a["enabled"] for a in end.alarms if (a["hour"], a["minute"]) == (hour, minute))
        time_text = f"{hour:02d}:{minute:02d}"
        return (0.0, f"Failure: {time_text} alarm is still ON.") if on else (1.0, f"Success: {time_text} alarm disabled.")

    return Spec(adb_time(cls.attributes["TARGET_TIMESTAMP"]), base(seed), score,
                lambda p: [open_app("Clock"), Tap(rid="alarm_switch", near=f"{hour:02d}:{minute:02d}"), finish()])


@spec("SetAlarmGeneralTask")
def _set_alarm(cls: OfficialClass) -> Spec:
    weekend = {"Sat", "Sun"}

    def score(end: EndState, trace: EpisodeTrace) -> tuple[float, str]:
        alarms = list(reversed(end.alarms))  # newest first, as the official query orders them
        if not alarms:
            return 0.0, "Failure: No alarm data found."
        found = next((a for a in alarms if a["enabled"] and weekend <= set(a["days"])), None)
        if found is None:
            return 0.0, "Failure: No enabled weekend alarm found."
        value, checks = 0.5, ["weekend_alarm=FOUND"]
        hour, minute = found["hour"], found["minute"]
        if (hour, minute) == (8, 30):
            value += 0.5
            checks.append("time=8:30(OK)")
        elif hour == 8:
            value += 0.3
            checks.append(f"time=8:{minute:02d}(CLOSE)")
        else:
            checks.append(f"time={hour}:{minute:02d}(WRONG)")
        return value, f"Alarm check. {', '.join(checks)}. Score: {value:.1f}"

    def plan(phone: Phone) -> list[Step]:
        return oracle.plan([oracle.Alarm("08:30", ringtone=quoted(cls.goal or ""), days=("Sat", "Sun"))])

    return Spec(RUN_DATE, base(), score, plan)


@spec("DailyFamilyCallGeneralTask")
def _family_call(cls: OfficialClass) -> Spec:
    name, number = cls.attributes["TARGET_NAME"], cls.attributes["TARGET_PHONE"]

    def seed(phone: Phone) -> None:
        set_contact(phone, name, number)
        phone.contacts.calls = []

    def score(end: EndState, trace: EpisodeTrace) -> tuple[float, str]:
        made = any(c["outgoing"] and digits(c["number"]) == digits(number) for c in end.calls)
        if made:
            return 1.0, f"Success: Outgoing call made to '{name}'."
        return 0.0, f"Failure: No outgoing call to '{name}' ({number})."

    return Spec(adb_time(cls.attributes["TARGET_TIMESTAMP"]), base(seed), score,
                lambda p: [open_app("Contacts"), Tap(text=name), Tap(rid="call_button"), finish()])


@spec("MessagesAskMomMoneyGeneralTask")
def _ask_mom(cls: OfficialClass) -> Spec:
    name, number = cls.module_constants["MOM_NAME"], cls.module_constants["MOM_PHONE"]
    keywords = method_value(cls, "is_successful", "money_keywords")

    def score(end: EndState, trace: EpisodeTrace) -> tuple[float, str]:
        bodies = sent_to(end, number)
        if not bodies:
            return 0.0, f"Failure: No SMS sent to Mom ({number})."
        body = bodies[-1]
        ok = any(k in body for k in keywords)
        value = 1.0 if ok else 0.6
        return value, f"SMS to Mom. sms_sent=OK, content={'OK' if ok else 'PARTIAL'}. Score: {value:.1f}"

    return Spec(RUN_DATE, base(lambda p: set_contact(p, name, number)), score,
                lambda p: [*oracle.sms_plan(name, quoted(cls.goal or "")), finish()])


@spec("BirthdayWishGeneralTask")
def _birthday(cls: OfficialClass) -> Spec:
    a = cls.attributes
    start = datetime.strptime(a["EVENT_START"], "%Y-%m-%d %H:%M:%S")

    def seed(phone: Phone) -> None:
        set_contact(phone, a["CONTACT_NAME"], a["CONTACT_PHONE"])
        phone.calendar.add(a["EVENT_TITLE"], start, datetime.strptime(a["EVENT_END"], "%Y-%m-%d %H:%M:%S"),
                           notes="Birthday")
        phone.notify("calendar", a["EVENT_TITLE"], f"{start:%H:%M}")

    def score(end: EndState, trace: EpisodeTrace) -> tuple[float, str]:
        bodies = sent_to(end, a["CONTACT_PHONE"])
        if any(k.lower() in b.lower() for b in bodies for k in a["KEYWORDS"]):
            return 1.0, f"Success: Birthday wish sent to {a['CONTACT_NAME']}."
        if bodies:
            return 0.0, "Failure: SMS sent but content does not contain birthday keywords."
        return 0.0, "Failure: No SMS was sent."

    return Spec(start - timedelta(seconds=13), base(seed), score,
                lambda p: [*oracle.sms_plan(a["CONTACT_NAME"],
                                            f"{a['KEYWORDS'][0].title()}! {a['KEYWORDS'][1]}"), finish()])


@spec("ContactSaverGeneralTask")
def _contact_saver(cls: OfficialClass) -> Spec:
    a = cls.attributes

    def seed(phone: Phone) -> None:
        phone.contacts.contacts = [c for c in phone.contacts.contacts if c.name != a["SENDER_NAME"]]
        phone.receive_sms(a["SENDER_PHONE"], a["SMS_CONTENT"])

    def score(end: EndState, trace: EpisodeTrace) -> tuple[float, str]:
        match = [c for c in end.contacts if digits(c["phone"]) == digits(a["SENDER_PHONE"])]
        if any(c["name"] == a["SENDER_NAME"] for c in match):
            return 1.0, f"Success: Contact '{a['SENDER_NAME']}' saved with phone {a['SENDER_PHONE']}."
        if match:
            return 0.0, f"Failure: Contact saved but name is not '{a['SENDER_NAME']}'."
        return 0.0, "Failure: Contact was not saved."

    return Spec(RUN_DATE, base(seed), score,
                lambda p: oracle.plan([oracle.Contact(a["SENDER_NAME"], a["SENDER_PHONE"])]))


@spec("ScamSmsInterceptGeneralTask")
def _scam(cls: OfficialClass) -> Spec:
    a = cls.attributes

    def seed(phone: Phone) -> None:
        phone.receive_sms(a["SENDER_PHONE"], a["SMS_CONTENT"])

    def score(end: EndState, trace: EpisodeTrace) -> tuple[float, str]:
        if sent_to(end, a["SENDER_PHONE"]):
            return 0.0, "Failure: Agent replied to the scam sender."
        if any(same_number(n, a["SENDER_PHONE"]) for n in end.blocked):
            return 1.0, f"Success: Sender {a['SENDER_PHONE']} has been blocked."
        return 0.0, f"Failure: Sender {a['SENDER_PHONE']} was not blocked."

    return Spec(adb_time(a["TARGET_TIMESTAMP"]), base(seed), score,
                lambda p: [open_app("Messages"), Tap(text=a["SENDER_PHONE"]), Tap(rid="block_button"),
                           Tap(rid="dialog_block"), finish()])


@spec("HighlightImportantSmsSenderGeneralTask")
def _highlight(cls: OfficialClass) -> Spec:
    c = cls.module_constants

    def seed(phone: Phone) -> None:
        phone.receive_sms(c["SENDER_PHONE"], c["SMS_CONTENT"])

    def score(end: EndState, trace: EpisodeTrace) -> tuple[float, str]:
        match = [k for k in end.contacts if same_number(k["phone"], c["SENDER_PHONE"])]
        starred = any(k["starred"] for k in match)
        value = (0.5 if match else 0.0) + (0.5 if starred else 0.0)
        return value, (f"SMS sender handling. contact_added={'OK' if match else 'NO'}, "
                       f"starred={'OK' if starred else 'NO'}. Score: {value:.1f}")

    return Spec(RUN_DATE, base(seed), score,
                lambda p: oracle.plan([oracle.Contact(c["SENDER_NAME"], c["SENDER_PHONE"], starred=True)]))


@spec("CalendarInviteConflictResolutionGeneralTask")
def _invite(cls: OfficialClass) -> Spec:
    c = cls.module_constants
    body = method_value(cls, "initialize_task_hook", "sms_content")
    date = re.findall(r"\d{4}-\d{2}-\d{2}", cls.goal or "")[-1]
    start_hm, end_hm = c["INVITE_START_HM"], c["INVITE_END_HM"]

    def seed(phone: Phone) -> None:
        phone.receive_sms(c["INVITER_PHONE"], body)

    def score(end: EndState, trace: EpisodeTrace) -> tuple[float, str]:
        new_sent = end.sent_sms(new_only=True)
        to_inviter = [m for m in new_sent if same_number(m["number"], c["INVITER_PHONE"])]
        pool = to_inviter or new_sent
        latest = pool[-1]["text"] if pool else None
        value, checks = 0.0, []
        if latest is not None and any(k in latest.lower() for k in c["ACCEPT_KEYWORDS"]):
            value += 0.4
            checks.append(f"sms_reply=ACCEPTED('{latest[:50]}')")
        else:
            checks.append("sms_reply=NOT_FOUND" if latest is None else "sms_reply=FOUND_BUT_NO_ACCEPT_KEYWORD")
        new_events = [e for e in end.new(end.events) if any(k in e["title"].lower() for k in c["INVITE_TITLE_HINTS"])]
        value += credit(checks, new_events, 0.6,
                        f"calendar_event=FOUND({len(new_events)})", "calendar_event=NOT_FOUND")
        return value, f"Invite handling. {', '.join(checks)}. Score: {value:.1f}"

    def plan(phone: Phone) -> list[Step]:
        reply = f"{c['ACCEPT_KEYWORDS'][0].upper()}, {c['ACCEPT_KEYWORDS'][4]}"
        return [open_app("Messages"), Tap(text=c["INVITER_PHONE"]), Fill("compose_message_text", reply),
                Tap(rid="send_message_button"),
                *event_plan(c["INVITE_TITLE"], date, f"{start_hm[0]:02d}:{start_hm[1]:02d}",
                            f"{end_hm[0]:02d}:{end_hm[1]:02d}"), finish()]

    return Spec(adb_time("021008502026.00"), base(seed), score, plan)


@spec("CalendarScheduleGroupMeetingGeneralTask")
def _group_meeting(cls: OfficialClass) -> Spec:
    keywords = cls.module_constants["_MEETING_KEYWORDS"]

    def score(end: EndState, trace: EpisodeTrace) -> tuple[float, str]:
        new = [e for e in end.new(end.events) if any(k in e["title"].lower() for k in keywords)]
        posts = end.my_posts()
        value = (0.5 if new else 0.0) + (0.5 if posts else 0.0)
        reasons = [f"Calendar event found ({len(new)} meeting event(s))" if new else
                   "No meeting-related calendar events found",
                   f"Mattermost notification sent to channel '{posts[-1]['channel']}'" if posts else
                   "No Mattermost message found after task init"]
        return value, "; ".join(reasons)

    def plan(phone: Phone) -> list[Step]:
        title = re.findall(r"'([^']+)'", cls.goal or "")[0]
        date = re.findall(r"\d{4}-\d{2}-\d{2}", cls.goal or "")[0]
        start, end = re.findall(r"(\d{2}:\d{2})", cls.goal or "")[:2]
        return [*event_plan(title, date, start, end), *chat_plan("team-chat", f"{title}: {date} {start}-{end}"), finish()]

    return Spec(RUN_DATE, base(), score, plan)


def _channel_task(cls: OfficialClass, start: datetime, channel: str, keywords: list[str], text: str,
                  seed: Seeder | None = None) -> Spec:
    def score(end: EndState, trace: EpisodeTrace) -> tuple[float, str]:
        posts = end.my_posts(channel)
        if not posts:
            return 0.0, f"Failure: No message sent in {channel} channel."
        message = posts[-1]["text"].strip().lower()
        if any(k in message for k in keywords):
            return 1.0, f"Success: message sent correctly. [Channel='{channel}', Sent: '{message[:80]}']"
        return 0.0, f"Failure: Message sent but content does not match. [Channel='{channel}', Sent: '{message[:80]}']"

    display = "Town Square" if channel == "town-square" else channel
    return Spec(start, base(seed), score, lambda p: [*chat_plan(display, text), finish()])


@spec("ClockOutGeneralTask")
def _clock_out(cls: OfficialClass) -> Spec:
    a = cls.attributes
    return _channel_task(cls, at_time(RUN_DATE, a["DEFAULT_SCENE_TIME"]), a["TARGET_CHANNEL"],
                         list(a["EXPECTED_KEYWORDS"]), quoted(cls.goal or ""))


@spec("MattermostResponseGeneralTask")
def _mm_response(cls: OfficialClass) -> Spec:
    a = cls.attributes
    start = at_time(RUN_DATE, a["DEFAULT_SCENE_TIME"])

    def seed(phone: Phone) -> None:
        phone.mattermost.post(a["CHANNEL_NAME"], "sam", a["ALERT_MSG"], start)

    return _channel_task(cls, start, a["CHANNEL_NAME"], list(a["REPLY_KEYWORDS"]), quoted(cls.goal or ""), seed)


@spec("MattermostLeaveNoticeGeneralTask")
def _leave(cls: OfficialClass) -> Spec:
    keywords = method_value(cls, "is_successful", "leave_keywords")

    def score(end: EndState, trace: EpisodeTrace) -> tuple[float, str]:
        posts = end.my_posts()
        if not posts:
            return 0.0, "No Mattermost message found after task init."
        post = posts[-1]
        if not post["text"].strip():
            return 0.0, "Message is empty."
        value, checks = 0.4, ["message_sent=OK"]
        value += credit(checks, any(k in post["text"] for k in keywords), 0.3,
                        "leave_content=OK", "leave_content=MISSING")
        channel = post["channel"].lower()
        value += credit(checks, "town" in channel or "square" in channel, 0.3,
                        f"channel={post['channel']}(OK)", f"channel={post['channel']}(WRONG)", otherwise=0.1)
        return value, f"Leave notice. {', '.join(checks)}. Score: {value:.1f}"

    return Spec(RUN_DATE, base(), score, lambda p: [*chat_plan("Town Square", quoted(cls.goal or "")), finish()])


def latest_sent(end: EndState) -> Any:
    return end.mails[-1] if end.mails else None


def maps_plan(origin: str, destination: str, mode: str) -> list[Step]:
    return [open_app("Maps"), Fill("directions_start", origin), Fill("directions_end", destination),
            Tap(rid=f"mode_{mode}"), Tap(rid="directions_button")]


def route_minutes(phone: Phone, origin: str, destination: str, mode: str) -> int:
    start, end = phone.maps.find(origin), phone.maps.find(destination)
    assert start is not None and end is not None
    return int(phone.maps.options(start, end, mode)[0][1])


#: The official campus and science-park addresses are the project map's places of these names.
CAMPUS, PARK = "Zijingang Campus", "Zheda Science Park"


@spec("SendWeeklyReportGeneralTask")
def _weekly_report(cls: OfficialClass) -> Spec:
    a = cls.attributes
    start = at_time(RUN_DATE, "16:59:00")  # the default trigger: Friday 16:55-17:05, scene time 16:59

    def seed(phone: Phone) -> None:
        phone.files.add(f"/Documents/{a['FILE_NAME']}", 0, start)  # an empty file, as `touch` makes it

    def score(end: EndState, trace: EpisodeTrace) -> tuple[float, str]:
        mail = latest_sent(end)
        if mail is None:
            return 0.0, "Failure: No email was sent."
        checks: list[str] = []
        recipients = ",".join(mail["to"]).lower()
        value = credit(checks, a["TARGET_RECIPIENT"].lower() in recipients, 0.4,
                       f"recipient=OK({recipients})", f"recipient=WRONG(got={recipients})")
        value += credit(checks, any(a["FILE_NAME"] in name for name in mail["attachments"]), 0.6,
                        f"attachment=OK({a['FILE_NAME']})", f"attachment=MISSING({a['FILE_NAME']})")
        return value, f"Email sent. {', '.join(checks)}. Score: {value:.1f}"

    def plan(phone: Phone) -> list[Step]:
        subject = re.findall(r"'([^']+)'", cls.goal or "")[0]
        return [open_app("Files"), Tap(text="Documents"), Tap(text=a["FILE_NAME"]), Tap(rid="share"),
                Fill("to", a["TARGET_RECIPIENT"]), Fill("subject", subject), Tap(rid="send"), finish()]

    return Spec(start, base(seed), score, plan)


#: What the official media files show (the simulator's gallery shows a caption where the device shows the image).
MEDIA_CAPTIONS: dict[str, tuple[str, bool]] = {
    "imag0-2.jpeg": ("a green tree", False),
    "image0-1.jpeg": ("a pile of fruit", False),
    "image0-3.jpeg": ("potted succulents", False),
    "image1.jpeg": ("a sunflower", True),
    "image2.jpeg": ("a red rose", True),
    "image3.jpeg": ("yellow chrysanthemums", True),
    "image4.jpeg": ("a pink morning glory", True),
}


@spec("SharePhotosGeneralTask")
def _share_photos(cls: OfficialClass) -> Spec:
    address, text = cls.module_constants["EMAIL_ADDRESS"], cls.module_constants["EMAIL_TEXT"]
    names: list[str] = []

    def seed(phone: Phone) -> None:
        # the official setup pushes every .png / .jpeg / .jpg of assets/ to /sdcard/Pictures
        for i, (name, (caption, _)) in enumerate(sorted(MEDIA_CAPTIONS.items())):
            phone.gallery.add(name, "Pictures", RUN_DATE - timedelta(minutes=10 - i), caption)
        names[:] = sorted(MEDIA_CAPTIONS)

    def score(end: EndState, trace: EpisodeTrace) -> tuple[float, str]:
        mail = latest_sent(end)
        if mail is None:
            return 0.0, "Failure: No email sent."
        to = ",".join(mail["to"])
        if not to.strip():
            return 0.0, "Failure: Email recipient is empty."
        if not mail["attachments"]:
            return 0.0, "Failure: No image attachments found."
        checks: list[str] = []
        value = credit(checks, address.lower() in to.lower() or "kevin" in to.lower(), 0.3,
                       "recipient=OK", f"recipient=WRONG({to})")
        value += credit(checks, text.lower() in mail["body"].lower() or "picture" in mail["body"].lower(),
                        0.2, "body_text=OK", "body_text=MISSING")
        value += 0.5
        checks.append(f"attachments={len(mail['attachments'])}")
        return value, f"Email sent. To: {to}. {', '.join(checks)}. Score: {value:.1f}"

    def plan(phone: Phone) -> list[Step]:
        flowers = [n for n, (_, flower) in sorted(MEDIA_CAPTIONS.items()) if flower]
        return [open_app("Gallery"), Tap(rid="select_mode"), *[Tap(contains=n) for n in flowers],
                Tap(rid="share_selected"), Tap(rid="share_mail"), Fill("to", address), Fill("subject", "Flowers"),
                Fill("body", text), Tap(rid="send"), finish()]

    return Spec(RUN_DATE, base(seed), score, plan)


@spec("SearchTopInfoGeneralTask")
def _search_top(cls: OfficialClass) -> Spec:
    kevin = cls.module_constants["KEVIN_EMAIL"]

    def score(end: EndState, trace: EpisodeTrace) -> tuple[float, str]:
        mail = latest_sent(end)
        if mail is None:
            return 0.0, "Failure: No email found."
        to, subject, body = ",".join(mail["to"]).strip(), mail["subject"].strip(), mail["body"].strip()
        if not to:
            return 0.0, "Failure: Email recipient is empty."
        if not subject and not body:
            return 0.0, "Failure: Email subject and body are both empty."
        checks: list[str] = []
        value = credit(checks, kevin.lower() in to.lower() or "kevin" in to.lower(), 0.4,
                       "recipient=OK", f"recipient=WRONG({to})")
        value += credit(checks, any(k in subject.lower() for k in ("ai", "artificial intelligence", "人工智能")),
                        0.3, "subject=OK", f"subject=MISSING_AI({subject})")
        value += credit(checks, len(body) > 20, 0.3, "body=OK", "body=TOO_SHORT")
        return value, f"Email sent. To: {to}. Subject: {subject}. Checks: {', '.join(checks)}. Score: {value:.1f}"

    def plan(phone: Phone) -> list[Step]:
        body = "Here is the recent news in the AI field:\nHangzhou opens its first fully driverless bus line."
        return [open_app("Chrome"), Fill("url_bar", "tech.example.com"), enter(),
                *oracle.mail_plan(kevin, "Recent AI news", body), finish()]

    return Spec(RUN_DATE, base(), score, plan)


@spec("CommuteRoutingSunnyGeneralTask")
def _sunny(cls: OfficialClass) -> Spec:
    keywords = method_value(cls, "is_successful", "route_keywords")

    def score(end: EndState, trace: EpisodeTrace) -> tuple[float, str]:
        plan_text = (trace.answer or "").strip()
        if not plan_text:
            return 0.0, "No travel plan provided by agent."
        hits = sum(1 for k in keywords if k in plan_text.lower())
        value = 1.0 if hits >= 3 else 0.5 if hits >= 1 else 0.2
        return value, f"Route plan provided. Keyword hits: {hits}. Score: {value:.1f}. Plan: {plan_text[:100]}"

    def plan(phone: Phone) -> list[Step]:
        minutes = route_minutes(phone, CAMPUS, PARK, "bike")
        return [*maps_plan(CAMPUS, PARK, "bike"),
                answer(f"Cycling route from {CAMPUS} to {PARK}: about {minutes} min by bike.")]

    return Spec(RUN_DATE, base(), score, plan)


@spec("CommuteLateWithNoticeGeneralTask")
def _late_notice(cls: OfficialClass) -> Spec:
    keywords = list(cls.attributes["_LATE_KEYWORDS"])

    def score(end: EndState, trace: EpisodeTrace) -> tuple[float, str]:
        checks: list[str] = []
        value = credit(checks, (trace.answer or "").strip(), 0.4, "route_plan=PROVIDED", "route_plan=MISSING")
        posts = end.my_posts()
        if posts:
            late = any(k in posts[-1]["text"].lower() for k in keywords)
            value += 0.6 if late else 0.3
            checks.append("mattermost_notice=OK" if late else "mattermost_notice=PARTIAL")
        else:
            checks.append("mattermost_notice=MISSING")
        return value, f"Late commute + notice. {', '.join(checks)}. Score: {value:.1f}"

    def plan(phone: Phone) -> list[Step]:
        message = re.findall(r"'([^']+)'", cls.goal or "")[-1]
        minutes = route_minutes(phone, CAMPUS, PARK, "drive")
        return [*maps_plan(CAMPUS, PARK, "drive"), *chat_plan("Town Square", message),
                answer(f"Fastest: drive from {CAMPUS} to {PARK}, about {minutes} min.")]

    return Spec(RUN_DATE, base(), score, plan)


@spec("SortFilesGeneralTask")
def _sort_files(cls: OfficialClass) -> Spec:
    specs = cls.attributes["FILE_SPECS"]
    scores = {"modified_desc": 1.0, "modified_asc": 0.5}

    def seed(phone: Phone) -> None:
        phone.files.items = [f for f in phone.files.items if f.folder != "Download"]
        for item in specs:
            when = datetime.strptime(item["mtime"], "%Y%m%d%H%M.%S")
            phone.files.add(f"/Download/{item['name']}", max(1, int(item["size"]) // 1024), when)

    def score(end: EndState, trace: EpisodeTrace) -> tuple[float, str]:
        download = end.files.get("Download", {})
        order = download.get("sort", "name_asc")
        value = scores.get(order, 0.0)
        observed = [f["name"] for f in download.get("items", [])]
        return value, f"Selected sort option {order}. Observed files: {observed[:10]}. Score: {value:.1f}"

    return Spec(RUN_DATE, base(seed), score,
                lambda p: oracle.plan([oracle.Sort("Download", "modified_desc")]))


@spec("GalleryCleanupGeneralTask")
def _gallery_cleanup(cls: OfficialClass) -> Spec:
    a = cls.attributes
    run = adb_time(a["TARGET_TIMESTAMP"])
    days = int(a["OLDER_THAN_DAYS"])
    names = [f"Screenshot_{i + 1}.png" for i in range(int(a["NUM_FILES"]))]

    def seed(phone: Phone) -> None:
        phone.gallery.photos = [p for p in phone.gallery.photos if p.album != "Screenshots"]
        for i, name in enumerate(names):  # the first two are 17 days old, the last 2 days
            phone.gallery.add(name, "Screenshots", run - timedelta(days=(days + 10) if i < 2 else 2), "A screenshot")

    def score(end: EndState, trace: EpisodeTrace) -> tuple[float, str]:
        left = [p for p in end.photos if p["album"] == "Screenshots"]
        if len(left) != 1:
            return 0.0, f"Failure: Expected 1 file(s), found {len(left)}. Files: {[p['name'] for p in left]}"
        for photo in left:
            if (run - photo["taken"]).total_seconds() / 86400 > days:
                return 0.0, f"Failure: Old screenshot '{photo['name']}' still remains."
        return 1.0, f"Success: Cleanup completed. Remaining: {len(left)} file(s)."

    return Spec(run, base(seed), score,
                lambda p: [open_app("Gallery"), Tap(rid="tab_Screenshots"), Tap(rid="select_mode"),
                           *[Tap(contains=n) for n in names[:2]], Tap(rid="delete_selected"), Tap(rid="dialog_delete"),
                           finish()])


@spec("MastodonPrivacyDefaultGeneralTask")
def _mastodon_public(cls: OfficialClass) -> Spec:
    keywords = method_value(cls, "is_successful", "content_keywords")
    text = cls.module_constants["POST_TEXT"]

    def score(end: EndState, trace: EpisodeTrace) -> tuple[float, str]:
        if not end.toots:
            return 0.0, "No toot found for target user."
        toot = end.toots[-1]
        if not toot["text"].strip():
            return 0.0, "Toot has no text content."
        checks: list[str] = []
        value = credit(checks, any(k in toot["text"] for k in keywords), 0.6,
                       "content=OK", f"content=PARTIAL('{toot['text'][:50]}')", otherwise=0.2)
        value += credit(checks, toot["visibility"] == "public", 0.4,
                        "visibility=public(OK)", f"visibility={toot['visibility']}(WRONG)")
        return value, f"Toot posted. {', '.join(checks)}. Score: {value:.1f}"

    return Spec(RUN_DATE, base(), score,
                lambda p: oracle.plan([oracle.Toot(text)]))


@spec("MorningPaperReadingGeneralTask")
def _papers(cls: OfficialClass) -> Spec:
    urls = list(cls.attributes["TARGET_URLS"])

    def score(end: EndState, trace: EpisodeTrace) -> tuple[float, str]:
        visited = list(dict.fromkeys(reversed(end.visits)))[:10]  # Chrome's urls table: distinct, newest first
        if not visited:
            return 0.0, "Failure: No browsing history found."
        text = " ".join(visited).lower()
        missing = [u for u in urls if u.split("//", 1)[-1].split("/", 1)[0] not in text]
        if missing:
            return 0.0, f"Failure: Did not visit: {missing}"
        return 1.0, "Success: Both target websites were visited."

    def plan(phone: Phone) -> list[Step]:
        steps: list[Step] = [open_app("Chrome")]
        for i, url in enumerate(urls):
            steps += ([Tap(rid="url_clear")] if i else []) + [Fill("url_bar", url), enter()]
        return [*steps, finish()]

    def seed(phone: Phone) -> None:
        phone.chrome.history, phone.chrome.visits = [], []  # pm clear

    return Spec(at_time(RUN_DATE, cls.attributes["DEFAULT_SCENE_TIME"]), base(seed), score, plan)


WEATHER_PAGE = "weather.example.com/hangzhou"


def page_max_temperature(pages: dict[str, str]) -> float | None:
    """The day's maximum on the simulator's weather page (it stands in for the official Open-Meteo query)."""
    page = next((text for url, text in pages.items() if WEATHER_PAGE in url), None)
    found = re.findall(r"to (-?\d+)°C", page) if page is not None else []
    return float(found[0]) if found else None


@spec("MorningWeatherCheckGeneralTask")
def _weather(cls: OfficialClass) -> Spec:
    a = cls.attributes
    tolerance = float(a["TEMP_TOLERANCE"])

    def score(end: EndState, trace: EpisodeTrace) -> tuple[float, str]:
        text = (trace.answer or "").strip()
        if not text:
            return 0.0, "Failure: No weather answer provided."
        if not any(k.lower() in text.lower() for k in a["WEATHER_KEYWORDS"]):
            return 0.0, f"Failure: Answer lacks weather content: '{text[:80]}'"
        reference = page_max_temperature(dict(end.pages))
        if reference is None:
            return 1.0, f"Success: Weather keywords found (no reference temperature): '{text[:80]}'"
        numbers = [float(x) for x in re.findall(r"-?\d+\.?\d*", text)]
        if not numbers:
            return 0.0, f"Failure: Weather keywords found but no temperature number: '{text[:80]}'"
        if any(abs(n - reference) <= tolerance for n in numbers):
            return 1.0, f"Success: Temperature matches the reference ({reference}±{tolerance}°C)."
        return 0.0, f"Failure: Temperature mismatch: extracted {numbers}, reference={reference}°C."

    def plan(phone: Phone) -> list[Step]:
        return [open_app("Chrome"), Fill("url_bar", f"{a['CITY']} weather today"), enter(),
                Tap(rid="link", contains=f"{a['CITY']} weather"),
                answer(f"{a['CITY']} weather today: light rain, 8°C to "
                       f"{page_max_temperature({u: p.text() for u, p in phone.chrome.pages.items()}):.0f}°C.")]

    def seed(phone: Phone) -> None:
        phone.chrome.history, phone.chrome.visits = [], []

    return Spec(at_time(RUN_DATE, a["DEFAULT_SCENE_TIME"]), base(seed), score, plan)


@spec("PreMeetingPrepGeneralTask")
def _pre_meeting(cls: OfficialClass) -> Spec:
    a = cls.attributes
    start = datetime.strptime(a["MEETING_START"], "%Y-%m-%d %H:%M:%S")
    path = f"/Documents/{a['DOC_NAME']}"
    notes = next((c.kwargs.get("description") for c in cls.calls("insert_calendar_event")), "") or ""

    def seed(phone: Phone) -> None:
        phone.files.add(path, 2048, start - timedelta(days=1), a["DOC_NAME"])
        phone.calendar.add(a["MEETING_TITLE"], start, datetime.strptime(a["MEETING_END"], "%Y-%m-%d %H:%M:%S"),
                           "Room A", notes)
        phone.notify("calendar", a["MEETING_TITLE"], f"{start:%H:%M} · Room A")

    def score(end: EndState, trace: EpisodeTrace) -> tuple[float, str]:
        route = end.route
        if route is not None and route["app"] == "docreader" and route["params"].get("path", "").endswith(
                a["DOC_NAME"]):
            return 1.0, f"Success: Document '{a['DOC_NAME']}' is open."
        return 0.0, f"Failure: Document not opened. Current app: {route['app'] if route else 'home'}"

    return Spec(datetime.strptime(a["SIMULATION_DATETIME"], "%Y-%m-%d %H:%M:%S"), base(seed), score,
                lambda p: [open_app("Files"), Tap(text="Documents"), Tap(text=a["DOC_NAME"]), Tap(rid="open"),
                           finish()])


@spec("MastodonInterestBoostGeneralTask")
def _interest_boost(cls: OfficialClass) -> Spec:
    link = "https://mlweekly.example/vlm"  # the timeline is the project's (the official one lives in its server image)

    def seed(phone: Phone) -> None:
        phone.mastodon.add("ML Weekly", "@mlweekly", "A new open-source vision-language model tops the leaderboard. "
                           f"Paper and code: {link} #MachineLearning", RUN_DATE - timedelta(hours=1))

    def score(end: EndState, trace: EpisodeTrace) -> tuple[float, str]:
        posts = end.my_posts()
        if not posts:
            return 0.0, "No message found on Mattermost after task init."
        post = posts[-1]
        checks: list[str] = []
        value = credit(checks, post["text"].strip(), 0.5, "message_sent=OK", "message_sent=EMPTY")
        value += credit(checks, "town" in post["channel"].lower() or "square" in post["channel"].lower(), 0.3,
                        f"channel={post['channel']}(OK)", f"channel={post['channel']}(WRONG)", otherwise=0.1)
        value += credit(checks, re.search(r"https?://", post["text"]), 0.2, "has_link=OK", "has_link=NO")
        return value, f"Mattermost forwarding. {', '.join(checks)}. Score: {value:.1f}"

    return Spec(RUN_DATE, base(seed), score,
                lambda p: [open_app("Mastodon"), Tap(contains="vision-language"),
                           *chat_plan("Town Square", f"AI news from my timeline: {link}"), finish()])


@spec("MastodonSharePhotosGeneralTask")
def _share_to_mastodon(cls: OfficialClass) -> Spec:
    image = "hugginggpt.jpg"  # DEFAULT_SHARE_IMAGE: cache/users/aiden_lin/mastodon_share/hugginggpt.jpg of the release

    def seed(phone: Phone) -> None:
        phone.gallery.add(image, "Pictures", RUN_DATE - timedelta(minutes=5), "the provided photo")

    def score(end: EndState, trace: EpisodeTrace) -> tuple[float, str]:
        if not end.toots:
            return 0.0, "No toot found for target user."
        toot = end.toots[-1]
        image_ok = image in toot["media"]
        caption = len(toot["text"].strip()) > 3
        value = 1.0 if image_ok and caption else 0.0
        return value, (f"Image: {'ok' if image_ok else 'failed'}. Caption: '{toot['text'][:60]}' "
                       f"(has_caption={caption}). Score: {value:.1f}")

    return Spec(RUN_DATE, base(seed), score,
                lambda p: [open_app("Gallery"), Tap(contains=image), Tap(rid="share"), Tap(rid="share_mastodon"),
                           Fill("compose_text", quoted(cls.goal or "")), Tap(rid="publish"), finish()])


def delivery_of(cls: OfficialClass) -> tuple[str, str, str]:
    """(receiver, phone, address): a card's ``DELIVERY``, else as the official goal states them."""
    given = cls.attributes.get("DELIVERY")
    if isinstance(given, dict):
        return str(given["receiver"]), str(given["phone"]), str(given["address"])
    goal = cls.goal or ""
    receiver = re.findall(r"收件人填'([^']+)'", goal)
    number = re.findall(r"电话填\s*(\d+)", goal)
    address = re.findall(r"(?:送到|地址填)([^，。]+)", goal)
    return (receiver[0] if receiver else "", number[0] if number else "", address[-1].strip() if address else "")


def food_plan(app: str, shop: str, dish: str, cls: OfficialClass, options: tuple[str, ...] = (),
              note: str = "") -> list[Step]:
    receiver, number, address = delivery_of(cls)
    fills = [Fill("receiver_name", receiver or "张伟"), Fill("receiver_phone", number or "13800138000"),
             Fill("receiver_address", address)]
    return [open_app(app), Tap(text=shop), Tap(rid="add_dish", near=dish), *[Tap(text=o) for o in options],
            Tap(rid="add_to_basket"), Tap(rid="basket_button"), *fills,
            *([Fill("order_note", note)] if note else []), Tap(rid="place_order"), finish()]


def rename_dish(phone: Phone, did: str, name: str) -> None:
    """Give a seeded dish, on every delivery app, the name the official catalog has (the name the check reads)."""
    for app in FOODS:
        for shop in phone.food(app).restaurants:
            for dish in shop.dishes:
                if dish.did == did:
                    dish.name = name


def order_dishes(order: Any) -> list[tuple[str, int]]:
    return [(item["title"], item["qty"]) for item in order["items"]]


ADDRESSES = ("杭州市西湖区文三路 478 号浙大科技园", "杭州市西湖区文三路478号浙大科技园")


@spec("OrderLunchFirstTimeGeneralTask")
def _first_lunch(cls: OfficialClass) -> Spec:
    dish_name = "鱼香肉丝"  # the official check's exact food name

    def score(end: EndState, trace: EpisodeTrace) -> tuple[float, str]:
        app, order = end.last_order(FOODS)
        if order is None:
            return 0.0, "Failure: No delivery order callback found."
        foods = order_dishes(order)
        if not foods:
            return 0.0, "Failure: No food items found in order callback."
        ok = (app == "chilemei" and len(foods) == 1 and foods[0][0] == dish_name and order["name"] == "张伟"
              and order["phone"] == "13800138000" and order["address"] in ADDRESSES)
        value = 1.0 if ok else 0.0
        return value, (f"Lunch order placed via {app}. Ordered food: {[f[0] for f in foods]}. Receiver: "
                       f"{order['name']}, Mobile: {order['phone']}. Address: {order['address']}. Score: {value:.1f}")

    return Spec(RUN_DATE, base(lambda phone: rename_dish(phone, "yuxiang_rice", dish_name)), score,
                lambda p: food_plan("chilemei", "Sichuan Kitchen", dish_name, cls))


@spec("TakeoutRemarkGeneralTask")
def _takeout_remark(cls: OfficialClass) -> Spec:
    remark = cls.module_constants["EXPECTED_REMARK"]
    dish_name = "宫保鸡丁盖饭"

    def normalize(text: str) -> str:
        return text.replace(" ", "").replace(",", "，")

    def score(end: EndState, trace: EpisodeTrace) -> tuple[float, str]:
        app, order = end.last_order(FOODS)
        if order is None:
            return 0.0, "No order callback found."
        foods = order_dishes(order)
        checks = []
        target = next((f for f in foods if "宫保鸡丁" in f[0]), None)
        checks.append("food=OK" if target and target[1] == 1 else f"food=FAIL(got: {[f[0] for f in foods]})")
        note = order["note"]
        checks.append("remark=OK" if normalize(note) == normalize(remark) else f"remark=FAIL(got: {note[:40]})")
        address = order["address"].replace(" ", "")
        hits = sum(1 for f in ("西湖区", "文三路", "478", "浙大科技园") if f in address)
        checks.append(f"address={'OK' if hits >= 3 else 'FAIL'}({hits}/4)")
        value = 1.0 if all(c.split("=")[1].startswith("OK") for c in checks) else 0.0
        return value, f"{', '.join(checks)}. Score: {value}"

    return Spec(RUN_DATE, base(lambda phone: rename_dish(phone, "kungpao_rice", dish_name)), score,
                lambda p: food_plan("chilemei", "Sichuan Kitchen", dish_name, cls, note=remark))


@spec("OrderLunchTradeoffGeneralTask")
def _lunch_tradeoff(cls: OfficialClass) -> Spec:
    def score(end: EndState, trace: EpisodeTrace) -> tuple[float, str]:
        app, order = end.last_order(FOODS)
        if order is None:
            return 0.0, "Failure: No delivery order callback found."
        if not order["items"]:
            return 0.0, "Failure: No food items found in order callback."
        ok = (order["total"] <= 30.0 and order["name"] == "张伟" and order["phone"] == "13800138000"
              and order["address"] in ADDRESSES)
        value = 1.0 if ok else 0.0
        return value, (f"Lunch order placed via {app}. Total price: {order['total']:.1f} yuan. Receiver: "
                       f"{order['name']}, Mobile: {order['phone']}. Address: {order['address']}. Score: {value:.1f}")

    return Spec(RUN_DATE, base(), score,
                lambda p: food_plan("chilemei", "Green Bowl", "Steamed fish", cls))


SHOP_LABELS = {"taodian": "Taodian", "jingdian": "jingdian"}


def latest_shop_order(end: EndState) -> tuple[str, Any]:
    """The latest order of Taodian, else jingdian, as the official check reads the order callbacks."""
    app, order = end.last_order(SHOPS)
    return SHOP_LABELS.get(app, app), order


def address_info(order: Any) -> dict[str, str]:
    """The official order callback's ``address_info`` from the simulator's one-line address: province / city / area
    split on 省 / 市 / 区 (the official app picks the region; 杭州市 lies in 浙江省), the rest as ``addr``."""
    found = re.match(r"^(?P<province>[^省]+省)?(?P<city>[^市]+市)?(?P<area>[^区县]+[区县])?(?P<addr>.*)$",
                     order["address"].strip())
    parts = {k: (v or "").strip() for k, v in (found.groupdict() if found else {}).items()}
    if not parts.get("province") and parts.get("city") == "杭州市":
        parts["province"] = "浙江省"
    return {"receiver": order["name"], "mobile": order["phone"], **parts}


OrderCheck = Callable[[str, Any, list[dict[str, Any]]], tuple[float, str]]


def on_order(check: OrderCheck, missing: str = "Failure: No order callback found in Taodian or jingdian.",
             empty: str = "Failure: Empty product info.") -> Scorer:
    """A check of the latest shop order (app label, order, its official ``product_info``): 0 with ``missing`` when
    there is no order and with ``empty`` when it has no items, as the official shop checks begin."""

    def score(end: EndState, trace: EpisodeTrace) -> tuple[float, str]:
        app, order = latest_shop_order(end)
        if order is None:
            return 0.0, missing
        items = product_info(order)
        return check(app, order, items) if items else (0.0, empty)

    return score


def product_info(order: Any) -> list[dict[str, Any]]:
    return [{"prodName": item["title"], "skuName": " ".join(item["options"].values()), "price": item["price"]}
            for item in order["items"]]


def official_address_ok(info: dict[str, str]) -> bool:
    return (info.get("province") == "浙江省" and info.get("city") == "杭州市" and info.get("area") == "西湖区"
            and info.get("addr") in ("文三路 478 号浙大科技园", "文三路478号浙大科技园"))


def retitle(phone: Phone, pid: str, title: str, options: dict[str, list[str]] | None = None) -> None:
    """Give a seeded product the name (and SKUs) the official catalog has, in both shops."""
    for key in ("taodian", "jingdian"):
        product = phone.shop(key).product(pid)
        if product is not None:
            product.title = title
            if options is not None:
                product.options = options


def shop_plan(cls: OfficialClass, search: str, title: str, options: tuple[str, ...] = (),
              note: str = "") -> list[Step]:
    receiver, number, address = delivery_of(cls)
    steps: list[Step] = [open_app("Taodian"), Fill("search_input", search), Tap(rid="search_button"), Tap(text=title)]
    steps += [Tap(rid=f"option_{o}") for o in options]
    steps += [Tap(rid="buy_now"), Fill("receiver_name", receiver), Fill("receiver_phone", number),
              Fill("receiver_address", address)]
    if note:
        steps.append(Fill("order_note", note))
    return [*steps, Tap(rid="submit_order"), finish()]


#: Product names as the official checks read them (the official catalog is in the official app image, not in the
#: release): they carry the words those checks look for.
COLA, SOFA, SNEAKERS = "无糖可乐 罐装 330ml×24", "三人位布艺沙发 灰色", "经典白色帆布运动鞋"


@spec("BuyColaGeneralTask")
def _buy_cola(cls: OfficialClass) -> Spec:
    def seed(phone: Phone) -> None:
        retitle(phone, "cola_zero_24", COLA, {"sku": ["整箱", "半箱"]})

    def score(app: str, order: Any, items: list[dict[str, Any]]) -> tuple[float, str]:
        name, sku, info = items[0]["prodName"], items[0]["skuName"], address_info(order)
        hits = sum(1 for k in ("无糖", "可乐", "罐装") if k in name.lower())
        ok = (app == "Taodian" and hits == 3 and "整箱" in sku and info["receiver"] == "张伟"
              and info["mobile"] == "13800138000" and official_address_ok(info))
        value = 1.0 if ok else 0.0
        return value, (f"Order placed via {app}. Item: {name}, SKU: {sku}. Receiver: {info['receiver']}, Mobile: "
                       f"{info['mobile']}. Address: {info.get('province')}+{info.get('city')}+{info.get('area')}+"
                       f"{info.get('addr')}. Score: {value:.1f}")

    return Spec(RUN_DATE, base(seed), on_order(score), lambda p: shop_plan(cls, "可乐", COLA, ("sku=整箱",)))


@spec("BuyComputerGeneralTask")
def _buy_computer(cls: OfficialClass) -> Spec:
    c = cls.module_constants

    def score(app: str, order: Any, items: list[dict[str, Any]]) -> tuple[float, str]:
        name, price = items[0]["prodName"].lower(), float(items[0]["price"])
        checks = ["product=OK" if "macbook" in name and "pro" in name else f"product=FAIL(got: {items[0]['prodName']})",
                  f"budget=OK({price})" if 0 < price <= c["BUDGET"] else f"budget=FAIL(price={price})",
                  "receiver=OK" if order["name"].replace(" ", "") == c["EXPECTED_RECEIVER"] else "receiver=FAIL",
                  "phone=OK" if order["phone"].replace(" ", "") == c["EXPECTED_PHONE"] else "phone=FAIL",
                  "address=OK" if order["address"].replace(" ", "") == c["EXPECTED_ADDRESS"] else "address=FAIL"]
        value = 1.0 if all(x.split("=")[1].startswith("OK") for x in checks) else 0.0
        return value, f"{', '.join(checks)}. Score: {value}"

    return Spec(RUN_DATE, base(), on_order(score, "No order callback found.", "Empty product info."),
                lambda p: shop_plan(cls, "MacBook Pro", "MacBook Pro 14-inch M3 8GB/512GB"))


@spec("NoteTheCourierGeneralTask")
def _courier(cls: OfficialClass) -> Spec:
    def seed(phone: Phone) -> None:
        retitle(phone, "sofa_fabric_3", SOFA)

    def score(app: str, order: Any, items: list[dict[str, Any]]) -> tuple[float, str]:
        info, name = address_info(order), items[0]["prodName"]
        sofa = any(k in name.lower() for k in ("沙发", "sofa"))
        courier = any(k in order["note"].lower() for k in ("顺丰", "sf", "shunfeng"))
        value = (0.1 * (info["receiver"] == "张伟") + 0.1 * (info["mobile"] == "13800138000")
                 + 0.1 * official_address_ok(info) + 0.2 * (app == "Taodian") + 0.2 * sofa + 0.3 * courier)
        return round(value, 4), (f"Order placed via {app}. Item: {name} (sofa={sofa}). Receiver: {info['receiver']}, "
                                 f"Mobile: {info['mobile']}. Courier note: {courier}. Score: {value:.1f}")

    return Spec(RUN_DATE, base(seed), on_order(score),
                lambda p: shop_plan(cls, "沙发", SOFA, note=quoted(re.sub(r"收件人填'[^']+'", "", cls.goal or ""))))


@spec("SearchWhiteSneakersCheckoutGeneralTask")
def _sneakers(cls: OfficialClass) -> Spec:
    def seed(phone: Phone) -> None:
        retitle(phone, "sneakers_white", SNEAKERS)

    def score(app: str, order: Any, items: list[dict[str, Any]]) -> tuple[float, str]:
        info = address_info(order)
        combined = f"{items[0]['prodName']} {items[0]['skuName']}".lower()
        white = "白" in combined or "white" in combined
        shoe = "鞋" in combined or "运动" in combined or "sneaker" in combined
        size = "42" in combined
        value = (0.1 * (info["receiver"] == "张伟") + 0.1 * (info["mobile"] == "13800138000")
                 + 0.1 * official_address_ok(info) + 0.2 * (app == "Taodian") + 0.1 * white + 0.2 * shoe + 0.2 * size)
        return round(value, 4), (f"Order placed via {app}. Item: {combined}. White: {white}, Shoe: {shoe}, "
                                 f"Size 42: {size}. Score: {value:.1f}")

    return Spec(RUN_DATE, base(seed), on_order(score),
                lambda p: shop_plan(cls, "运动鞋", SNEAKERS, ("size=42",)))


# ----------------------------------------------------------------------------------------------- judged commutes
#: What the deterministic stand-in of the two commute judges looks for (the official rubric: the plan's main mode).
TAXI_WORDS = ("taxi", "cab", "ride-hailing", "didi", "打车", "出租", "网约车", "滴滴")
TRANSIT_WORDS = ("metro", "subway", "bus", "transit", "地铁", "公交")
OPEN_AIR_WORDS = ("walk", "cycl", "bike", "步行", "骑行", "骑车", "自行车")


def parse_judge_reply(text: str) -> float | None:
    """The official parsing: ``<score>x</score>``, else the last number in the reply; clamped to [0, 1]."""
    tagged = re.search(r"<score>(.*?)</score>", text, re.DOTALL)
    raw = tagged.group(1).strip() if tagged else (re.findall(r"(\d+(?:\.\d+)?)", text) or [None])[-1]
    try:
        return None if raw is None else min(max(float(raw), 0.0), 1.0)
    except ValueError:
        return None


def fallback_verdict(plan_text: str, bad_words: tuple[str, ...], good_words: tuple[str, ...]) -> float:
    """Deterministic stand-in: 1.0 if the plan names a good mode, else 0.0 (a plan naming only bad modes, or none,
    fails as the rubric says)."""
    lower = plan_text.lower()
    return 1.0 if any(w in lower for w in good_words) else 0.0 if any(w in lower for w in bad_words) else 0.0


def _judged(cls: OfficialClass, source: TaskSource, options: dict[str, Any], method: str, label: str,
            bad: tuple[str, ...], good: tuple[str, ...], start: datetime, plan: Planner) -> Spec:
    judge = options.get("judge", "fallback")

    def score(end: EndState, trace: EpisodeTrace) -> tuple[float, str]:
        plan_text = (trace.answer or "").strip()
        if not plan_text:
            return 0.0, "No travel plan provided by agent."
        if judge == "llm":
            from personal_envs.llm.client import ChatClient, LLMError

            try:
                messages = source.text(cls.name, GENERAL_JUDGE, {"method": method, "plan": plan_text})
                reply = ChatClient().chat(messages, temperature=0.0, max_tokens=512)
            except LLMError as exc:  # visible, never a silent 0.5
                return 0.0, f"{label} judge error: {exc}"
            value = parse_judge_reply(reply.content)
            if value is None:
                return 0.0, f"{label} judge error: no score in the reply"
            return value, f"{label} judge (llm): {value:.2f}. Plan: {plan_text[:120]}"
        value = fallback_verdict(plan_text, bad, good)
        return value, f"{label} judge (deterministic fallback, not the official LLM judge): {value:.2f}. " \
                      f"Plan: {plan_text[:120]}"

    return Spec(start, base(), score, plan)


def _taxi_home(phone: Phone) -> list[Step]:
    minutes = route_minutes(phone, PARK, CAMPUS, "taxi")
    return [*maps_plan(PARK, CAMPUS, "taxi"),
            answer(f"Take a taxi (Economy) from {PARK} to {CAMPUS}: about {minutes} min.")]


def _dry_route(phone: Phone) -> list[Step]:
    minutes = route_minutes(phone, CAMPUS, PARK, "transit")
    return [*maps_plan(CAMPUS, PARK, "transit"),
            answer(f"Take the subway (Line 2 to Line 10), mostly underground: about {minutes} min.")]


JUDGED: dict[str, Callable[[OfficialClass, TaskSource, dict[str, Any]], Spec]] = {
    "CommuteLateNightGeneralTask": lambda cls, source, options: _judged(
        cls, source, options, "_query_late_night_judge", "Late-night route", TRANSIT_WORDS, TAXI_WORDS,
        at_time(RUN_DATE, "23:30:00"), _taxi_home),
    "CommuteRoutingBadWeatherGeneralTask": lambda cls, source, options: _judged(
        cls, source, options, "_query_bad_weather_judge", "Bad-weather route", OPEN_AIR_WORDS,
        TRANSIT_WORDS + TAXI_WORDS, RUN_DATE, _dry_route),
}


# ----------------------------------------------------------------------------------------------- cart deletions
#: Official cart class -> (the cart the world holds, the product ids the task deletes).  The official cart (product
#: ids 1-22 of the official mall image) is not in the release; the check is the official one: the last "delete
#: selected" must delete exactly these and leave exactly the rest.
CART_TASKS: dict[str, tuple[tuple[str, ...], frozenset[str]]] = {
    "CartManagementGeneralTask": (("jacket_run", "coat_wool", "shorts_basket", "bottle_steel", "shirt_linen",
                                   "leggings_yoga", "earbuds_bt"), frozenset({"jacket_run", "shorts_basket",
                                                                             "leggings_yoga"})),
    "DeleteItemOverBudgetGeneralTask": (("sweater_cashmere", "tshirt_cotton", "jacket_denim", "chinos",
                                         "sneakers_leather", "case_silicone"),
                                        frozenset({"sweater_cashmere", "jacket_denim"})),
    "DeleteItemsGeneralTask": (("earbuds_bt", "notebook_set", "charger_65w", "green_tea", "case_silicone",
                                "tshirt_cotton"), frozenset({"earbuds_bt", "charger_65w", "case_silicone"})),
}
#: The start of the cart tasks (a Monday morning).
CART_START = datetime(2026, 2, 9, 9, 0)


def last_deletion(end: EndState) -> tuple[str, list[str], list[str]] | None:
    """The latest cart deletion of Taodian, else jingdian: (app, deleted ids, cart ids before)."""
    for key, label in SHOP_LABELS.items():
        deletions = end.deletions.get(key, [])
        if deletions:
            deleted, before = deletions[-1]
            return label, deleted, before
    return None


def _cart(cls: OfficialClass) -> Spec:
    cart, delete = CART_TASKS[cls.name]
    expected_left = set(cart) - delete

    def seed(phone: Phone) -> None:
        phone.shop("taodian").cart = [CartItem(pid) for pid in cart]

    def score(end: EndState, trace: EpisodeTrace) -> tuple[float, str]:
        found = last_deletion(end)
        if found is None:
            return 0.0, "Failure: No cart deletion callback found in Taodian or jingdian."
        app, deleted, before = found
        if not deleted:
            return 0.0, "Failure: No items were selected for deletion."
        if not before:
            return 0.0, "Failure: Callback is missing current cart items."
        if set(deleted) != delete:
            return 0.0, f"Failure: Deleted product ids do not match. Expected {sorted(delete)}, got {sorted(deleted)}."
        left = set(before) - set(deleted)
        if left != expected_left:
            return 0.0, f"Failure: Remaining cart items do not match. Expected {sorted(expected_left)}, got {sorted(left)}."
        return 1.0, f"Cart deletion executed via {app}. Deleted the expected items {sorted(deleted)}."

    def plan(phone: Phone) -> list[Step]:
        titles = [p.title for pid in sorted(delete) if (p := phone.shop("taodian").product(pid)) is not None]
        return [open_app("Taodian"), Tap(rid="cart_button"), *[Tap(rid="select_item", near=t) for t in titles],
                Tap(rid="delete_selected_items"), finish()]

    return Spec(CART_START, base(seed), score, plan)


for _name in CART_TASKS:
    OFFICIAL_CHECKS[_name] = _cart


@official_task(*OFFICIAL_CHECKS, *JUDGED)
def build(ctx: BuildContext) -> PhoneTask:
    """An official general task on the simulator."""
    cls = ctx.cls
    if cls.name in OFFICIAL_CHECKS:
        made, exact = OFFICIAL_CHECKS[cls.name](cls), True
    else:
        made, exact = JUDGED[cls.name](cls, ctx.source, ctx.options), ctx.options.get("judge") == "llm"
    return OfficialGeneralTask(cls, made, exact, source=ctx.source)
