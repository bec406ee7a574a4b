"""The 42 general tasks of KnowU-Bench's "general" family, written for this project.

Each task states everything the agent needs; it seeds app state on top of the default world
(:mod:`personal_envs.knowu.world`), and a rule verifier scores the end state in [0, 1] (fraction of checks that
hold; success means every check holds).  Checks that already hold on the untouched phone ("ring volume untouched",
"alarm not deleted") are guards: they earn credit only once a check the task asks to make true holds, so doing
nothing scores 0 (before, finishing at once scored 0.28 on average over the 42 tasks, above 0 on 26).  The easy / hard split follows the task kinds of the paper (18 easy, 24 hard).
Every task has an oracle plan (:mod:`personal_envs.knowu.oracle`) that solves it through the UI.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from personal_envs.core.task import Check, EpisodeTrace, Evaluation
from personal_envs.knowu import verifiers as v
from personal_envs.knowu.oracle import Fill, Step, Tap, answer, back, enter, finish, open_app
from personal_envs.knowu.task import PhoneTask, PhoneWorld
from personal_envs.knowu.world import OWNER_NAME, OWNER_PHONE, WORK_ADDRESS, at, number_of, seed_world
from personal_envs.simulators.phone.phone import Phone

MONDAY = datetime(2026, 2, 9, 9, 0)

Seeder = Callable[[Phone], None]
Checker = Callable[[Phone, EpisodeTrace], list[Check]]
Planner = Callable[[Phone], list[Step]]

DELIVERY = f"recipient {OWNER_NAME}, phone {OWNER_PHONE}, address {WORK_ADDRESS}"


@dataclass
class GeneralTask(PhoneTask):
    """A general task: explicit instruction, seeded state, rule checks, oracle plan."""

    task_id: str = ""
    difficulty: str = "easy"
    apps: tuple[str, ...] = ()
    instruction: str = ""
    seeder: Seeder = field(default=lambda phone: None, repr=False)
    checker: Checker = field(default=lambda phone, trace: [], repr=False)
    planner: Planner = field(default=lambda phone: [], repr=False)
    facts: dict[str, str] = field(default_factory=dict)
    start: datetime = MONDAY
    split: str = "general"
    _guards: frozenset[str] | None = field(default=None, init=False, repr=False, compare=False)

    def seed(self, phone: Phone) -> None:
        seed_world(phone)
        self.seeder(phone)

    def verify(self, phone: Phone, trace: EpisodeTrace) -> Evaluation:
        checks = self.checker(phone, trace)
        verdict = Evaluation.from_checks(checks)
        guards = self.guard_checks()
        goals = [c for c in checks if c.name not in guards]
        if goals and not any(c.passed for c in goals):
            verdict.score = 0.0
            verdict.reason = f"{verdict.reason} (nothing the task asks for was done: the guards earn no credit)"
        return verdict

    def guard_checks(self) -> frozenset[str]:
        """Names of the checks that hold on the untouched phone (cached): they guard against side effects and earn
        credit only next to a goal check that holds."""
        cached = self._guards
        if cached is None:
            phone = Phone(now=self.start)
            self.seed(phone)
            cached = frozenset(c.name for c in self.checker(phone, EpisodeTrace()) if c.passed)
            self._guards = cached
        return cached

    def user_facts(self) -> dict[str, Any]:
        return {"instruction": self.instruction, "facts": dict(self.facts)}

    def hidden_strings(self, world: PhoneWorld) -> list[str]:
        """The verifier's reasons on the untouched phone (``"<check>: <evidence>"``, and the whole reason line).

        A general task states its targets in the instruction and the agent reads the values it needs on screen, so
        what must stay hidden is the verdict itself (the check reasons)."""
        phone = Phone(now=self.start)
        self.seed(phone)
        verdict = self.verify(phone, EpisodeTrace())
        untouched = Evaluation.from_checks(verdict.checks).reason
        return [verdict.reason, untouched,
                *(f"{c.name}: {c.detail}" for c in verdict.checks if not c.passed and c.detail)]

    def oracle_plan(self) -> list[Step]:
        """The UI plan that solves the task (computed on a freshly seeded phone)."""
        phone = Phone(now=self.start)
        self.seed(phone)
        return self.planner(phone)


TASKS: list[GeneralTask] = []


def task(task_id: str, difficulty: str, apps: tuple[str, ...], instruction: str, *, start: datetime = MONDAY,
         facts: dict[str, str] | None = None) -> Callable[[type], type]:
    """Class decorator: a class with static ``seed``, ``check`` and ``plan`` becomes a registered task."""

    def register(holder: type) -> type:
        rules: Any = holder
        TASKS.append(GeneralTask(
            task_id=task_id, difficulty=difficulty, apps=apps, instruction=instruction,
            seeder=getattr(holder, "seed", lambda phone: None), checker=rules.check,
            planner=rules.plan,
            facts=dict(facts or {}), start=start,
        ))
        return holder

    return register


def delivery_fills(name: str = OWNER_NAME, number: str = OWNER_PHONE, address: str = WORK_ADDRESS) -> list[Step]:
    return [Fill("receiver_name", name), Fill("receiver_phone", number), Fill("receiver_address", address)]


def order_checks(phone: Phone, app: str, pid: str, *, other_app: str, options: dict[str, str] | None = None,
                 note: tuple[str, ...] = ()) -> list[Check]:
    """One order of exactly ``pid`` in ``app`` to the owner's address; nothing ordered in ``other_app``."""
    orders = phone.shop(app).orders
    checks = [Check(f"exactly one {app} order", len(orders) == 1, f"{len(orders)} orders")]
    other = phone.shop(other_app).orders
    checks.append(Check(f"nothing ordered on {other_app}", not other, f"{len(other)} orders"))
    if not orders:
        return checks + [Check("ordered item", False, "no order")]
    order = orders[-1]
    items = [(i.pid, i.quantity, i.options) for i in order.items]
    checks.append(Check(f"ordered {pid} × 1", len(items) == 1 and items[0][0] == pid and items[0][1] == 1, f"items {items}"))
    if options:
        checks.append(Check(f"options {options}", bool(items) and all(items[0][2].get(k) == val for k, val in options.items()),
                            f"options {items[0][2] if items else {}}"))
    checks.append(Check("recipient name", v.norm(order.name) == v.norm(OWNER_NAME), order.name))
    checks.append(Check("recipient phone", v.normalize_phone(order.phone) == OWNER_PHONE, order.phone))
    checks.append(Check("delivery address", v.mentions(order.address, "478 Wensan Road"), order.address))
    if note:
        checks.append(Check("order note", v.mentions(order.note, *note), order.note))
    return checks


def food_order_checks(phone: Phone, app: str, other_app: str) -> tuple[list[Check], Any]:
    orders = phone.food(app).orders
    checks = [Check(f"exactly one {app} order", len(orders) == 1, f"{len(orders)} orders"),
              Check(f"nothing ordered on {other_app}", not phone.food(other_app).orders)]
    order = orders[-1] if orders else None
    if order is not None:
        checks.append(Check("recipient name", v.norm(order.name) == v.norm(OWNER_NAME), order.name))
        checks.append(Check("recipient phone", v.normalize_phone(order.phone) == OWNER_PHONE, order.phone))
        checks.append(Check("delivery address", v.mentions(order.address, "478 Wensan Road"), order.address))
    return checks, order


def cart_checks(phone: Phone, keep: set[str]) -> list[Check]:
    left = {item.pid for item in phone.shop("taodian").cart}
    removed_wrong = keep - left
    kept_wrong = left - keep
    return [
        Check("kept the items that should stay", not removed_wrong, f"removed {sorted(removed_wrong)}"),
        Check("removed the items that should go", not kept_wrong, f"still in cart {sorted(kept_wrong)}"),
        Check("no order placed", not phone.shop("taodian").orders),
    ]


def seed_cart(phone: Phone, pids: list[str]) -> None:
    from personal_envs.simulators.phone.apps.shop import CartItem

    phone.shop("taodian").cart = [CartItem(pid) for pid in pids]


def route_checks(phone: Phone, origin: str, destination: str, modes: tuple[str, ...]) -> tuple[list[Check], int]:
    """A planned route between two places with one of ``modes``; returns the checks and its minutes."""
    queries = [q for q in phone.maps.queries if q.origin == origin and q.destination == destination]
    good = [q for q in queries if q.mode in modes]
    detail = f"planned {[(q.origin, q.destination, q.mode) for q in phone.maps.queries]}"
    checks = [Check(f"route {origin} -> {destination} by {'/'.join(modes)}", bool(good), "" if good else detail)]
    return checks, (good[-1].minutes if good else -1)


def minutes_of(phone: Phone, origin: str, destination: str, mode: str) -> int:
    maps = phone.maps
    start, end = maps.find(origin), maps.find(destination)
    assert start is not None and end is not None
    return maps.options(start, end, mode)[0][1]


def maps_plan(origin: str, destination: str, mode: str) -> list[Step]:
    return [open_app("Maps"), Fill("directions_start", origin), Fill("directions_end", destination),
            Tap(rid=f"mode_{mode}"), Tap(rid="directions_button")]


def chat_plan(channel: str, text: str) -> list[Step]:
    return [open_app("Mattermost"), Tap(text=channel), Fill("post_input", text), Tap(rid="send_button")]


def new_sms_plan(recipient: str, text: str) -> list[Step]:
    return [open_app("Messages"), Tap(rid="start_chat_fab"), Fill("recipient", recipient),
            Fill("compose_message_text", text), Tap(rid="send_message_button")]


# =============================================================================================== settings
@task("battery_saver", "easy", ("Settings",),
      "My battery is down to 15%. Please switch on Battery Saver.")
class BatterySaver:
    @staticmethod
    def seed(phone: Phone) -> None:
        phone.device.battery_level = 15

    @staticmethod
    def check(phone: Phone, trace: EpisodeTrace) -> list[Check]:
        return [v.device_flag(phone, "battery_saver", True)]

    @staticmethod
    def plan(phone: Phone) -> list[Step]:
        return [open_app("Settings"), Tap(rid="settings_battery"), Tap(rid="battery_saver"), finish()]


@task("mute_media_volume", "easy", ("Settings",),
      "My Bluetooth earbuds just disconnected. Turn the phone's media volume all the way down to 0.")
class MuteMedia:
    @staticmethod
    def seed(phone: Phone) -> None:
        phone.device.bluetooth_devices = []
        phone.device.media_volume = 6

    @staticmethod
    def check(phone: Phone, trace: EpisodeTrace) -> list[Check]:
        return [v.device_flag(phone, "media_volume", 0),
                Check("ring volume untouched", phone.device.ring_volume == 6, f"ring volume {phone.device.ring_volume}")]

    @staticmethod
    def plan(phone: Phone) -> list[Step]:
        return [open_app("Settings"), Tap(rid="settings_sound"), *[Tap(rid="media_volume_down")] * 6, finish()]


@task("focus_do_not_disturb", "easy", ("Settings",),
      "I'm about to start an hour of focused work. Turn on Do Not Disturb.")
class FocusDnd:
    @staticmethod
    def check(phone: Phone, trace: EpisodeTrace) -> list[Check]:
        return [v.device_flag(phone, "do_not_disturb", True)]

    @staticmethod
    def plan(phone: Phone) -> list[Step]:
        return [open_app("Settings"), Tap(rid="settings_notifications"), Tap(rid="do_not_disturb"), finish()]


@task("night_dark_mode", "easy", ("Mastodon", "Settings"),
      "It's 11 pm and I'm scrolling Mastodon; the screen is far too bright. Turn on dark mode.",
      start=datetime(2026, 2, 9, 23, 0))
class NightDarkMode:
    @staticmethod
    def seed(phone: Phone) -> None:
        phone.open_app("Mastodon")

    @staticmethod
    def check(phone: Phone, trace: EpisodeTrace) -> list[Check]:
        return [v.device_flag(phone, "dark_mode", True)]

    @staticmethod
    def plan(phone: Phone) -> list[Step]:
        return [open_app("Settings"), Tap(rid="settings_display"), Tap(rid="dark_theme"), finish()]


# =============================================================================================== clock
@task("weekend_alarm", "easy", ("Clock",),
      "Set a weekend wake-up alarm in Clock: 8:30 am on Saturday and Sunday, with the ringtone 'Bright Morning'.")
class WeekendAlarm:
    @staticmethod
    def check(phone: Phone, trace: EpisodeTrace) -> list[Check]:
        found = [a for a in phone.clock.alarms if (a.hour, a.minute) == (8, 30)]
        alarm = found[-1] if found else None
        return [
            Check("alarm at 08:30", alarm is not None and alarm.enabled,
                  f"alarms {[a.time_text for a in phone.clock.alarms]}"),
            Check("repeats on Sat and Sun only", alarm is not None and sorted(alarm.days) == ["Sat", "Sun"],
                  f"days {alarm.days if alarm else None}"),
            Check("ringtone Bright Morning", alarm is not None and alarm.ringtone == "Bright Morning",
                  f"ringtone {alarm.ringtone if alarm else None}"),
        ]

    @staticmethod
    def plan(phone: Phone) -> list[Step]:
        return [open_app("Clock"), Tap(rid="add_alarm_fab"), Fill("alarm_time", "08:30"), Tap(rid="day_sat"),
                Tap(rid="day_sun"), Tap(rid="alarm_sound"), Tap(text="Bright Morning"), Tap(rid="save_alarm"), finish()]


@task("weekend_sleep_in", "easy", ("Clock",),
      "Tomorrow is Saturday and I want to sleep in. Turn off my 7:30 alarm (don't delete it).",
      start=datetime(2026, 2, 13, 21, 0))
class WeekendSleepIn:
    @staticmethod
    def seed(phone: Phone) -> None:
        phone.clock.add_alarm(7, 30, days=["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"], label="Wake up")

    @staticmethod
    def check(phone: Phone, trace: EpisodeTrace) -> list[Check]:
        by_time = {a.time_text: a for a in phone.clock.alarms}
        target = by_time.get("07:30")
        return [
            Check("07:30 alarm still exists", target is not None),
            Check("07:30 alarm is off", target is not None and not target.enabled),
            Check("07:00 alarm untouched", "07:00" in by_time and by_time["07:00"].enabled),
        ]

    @staticmethod
    def plan(phone: Phone) -> list[Step]:
        return [open_app("Clock"), Tap(rid="alarm_switch", near="07:30"), finish()]


# =============================================================================================== calls & sms
@task("call_mom", "easy", ("Contacts",), "Give my mom a call.")
class CallMom:
    @staticmethod
    def check(phone: Phone, trace: EpisodeTrace) -> list[Check]:
        numbers = [c.number for c in phone.contacts.calls]
        return [Check("called Mom", number_of("Mom") in numbers, f"calls {numbers}"),
                Check("called nobody else", all(n == number_of("Mom") for n in numbers), f"calls {numbers}")]

    @staticmethod
    def plan(phone: Phone) -> list[Step]:
        return [open_app("Contacts"), Tap(text="Mom"), Tap(rid="call_button"), finish()]


@task("ask_mom_rent", "easy", ("Messages",),
      "Text my mom and ask her to transfer 500 yuan for this month's rent.")
class AskMomRent:
    @staticmethod
    def check(phone: Phone, trace: EpisodeTrace) -> list[Check]:
        return [v.sms_sent(phone, number_of("Mom"), all_of=["500"], any_of=["rent"], who="Mom"),
                v.no_sms_except(phone, number_of("Mom"))]

    @staticmethod
    def plan(phone: Phone) -> list[Step]:
        return [*new_sms_plan("Mom", "Hi Mom, could you transfer 500 yuan for this month's rent? Thank you!"), finish()]


@task("birthday_wish", "easy", ("Calendar", "Messages"),
      "Check today's calendar to see whose birthday it is, then send that person a short happy-birthday text.")
class BirthdayWish:
    @staticmethod
    def seed(phone: Phone) -> None:
        phone.calendar.add("Wang Fang's birthday", at(phone, 0, 0), at(phone, 0, 23, 59))

    @staticmethod
    def check(phone: Phone, trace: EpisodeTrace) -> list[Check]:
        return [v.sms_sent(phone, number_of("Wang Fang"), any_of=["birthday"], who="Wang Fang"),
                v.no_sms_except(phone, number_of("Wang Fang"))]

    @staticmethod
    def plan(phone: Phone) -> list[Step]:
        return [open_app("Calendar"), *new_sms_plan("Wang Fang", "Happy birthday, Wang Fang! Have a wonderful day."),
                finish()]


@task("save_sender_contact", "easy", ("Contacts", "Messages"),
      "Someone texted me from an unknown number and introduced themselves. Save that number in Contacts under "
      "the sender's name.")
class SaveSenderContact:
    @staticmethod
    def seed(phone: Phone) -> None:
        phone.receive_sms("13212345678", "Hi, this is Liu Yang from the building management office. Please save my "
                          "number for repair requests.", at(phone, 0, 8, 40))

    @staticmethod
    def check(phone: Phone, trace: EpisodeTrace) -> list[Check]:
        match = [c for c in phone.contacts.contacts if v.normalize_phone(c.phone) == "13212345678"]
        return [Check("contact with the number exists", bool(match)),
                Check("named Liu Yang", any(v.mentions(c.name, "Liu Yang") for c in match),
                      f"names {[c.name for c in match]}")]

    @staticmethod
    def plan(phone: Phone) -> list[Step]:
        return [open_app("Messages"), Tap(text="13212345678"), open_app("Contacts"), Tap(rid="create_contact_fab"),
                Fill("contact_name", "Liu Yang"), Fill("contact_phone", "13212345678"), Tap(rid="save_contact"), finish()]


@task("block_scam_sms", "easy", ("Messages",),
      "I received a scam text claiming my bank account is frozen. Block that sender and report it as spam.")
class BlockScam:
    SCAMMER = "10698800123"

    @staticmethod
    def seed(phone: Phone) -> None:
        phone.receive_sms(BlockScam.SCAMMER, "URGENT: your bank account is frozen! Verify within 2 hours at "
                          "http://bank-secure.example.top or lose your funds.", at(phone, 0, 8, 55))

    @staticmethod
    def check(phone: Phone, trace: EpisodeTrace) -> list[Check]:
        blocked = phone.messages.blocked
        return [Check("scam sender blocked", BlockScam.SCAMMER in blocked, f"blocked {sorted(blocked)}"),
                Check("reported as spam", BlockScam.SCAMMER in phone.messages.spam_reports),
                Check("nobody else blocked", blocked <= {BlockScam.SCAMMER}, f"blocked {sorted(blocked)}")]

    @staticmethod
    def plan(phone: Phone) -> list[Step]:
        return [open_app("Messages"), Tap(text=BlockScam.SCAMMER), Tap(rid="block_button"),
                Tap(rid="dialog_block_&_report_spam"), finish()]


@task("star_demo_sender", "hard", ("Contacts", "Messages"),
      "One of my recent texts is about tomorrow's client demo. Mark the person who sent it as a favourite in Contacts.")
class StarDemoSender:
    @staticmethod
    def seed(phone: Phone) -> None:
        phone.receive_sms(number_of("Sun Yu"), "Did you catch the match last night?", at(phone, 0, 8, 10))
        phone.receive_sms(number_of("Zhao Lei"), "Heads-up: the client demo moved to 10:00 tomorrow, please bring the "
                          "slides.", at(phone, 0, 8, 20))
        phone.receive_sms(number_of("Li Na"), "Lunch at the new noodle place?", at(phone, 0, 8, 30))

    @staticmethod
    def check(phone: Phone, trace: EpisodeTrace) -> list[Check]:
        starred = {c.name for c in phone.contacts.contacts if c.starred}
        return [Check("Zhao Lei is a favourite", "Zhao Lei" in starred, f"favourites {sorted(starred)}"),
                Check("no other favourites changed", starred == {"Mom", "Zhao Lei"}, f"favourites {sorted(starred)}")]

    @staticmethod
    def plan(phone: Phone) -> list[Step]:
        return [open_app("Messages"), Tap(text="Zhao Lei"), back(), open_app("Contacts"), Tap(text="Zhao Lei"),
                Tap(rid="favorite_button"), finish()]


@task("resolve_invite_conflict", "hard", ("Calendar", "Messages"),
      "Li Na texted me a meeting invite. If it clashes with something in my calendar, text her back proposing 16:00 "
      "the same day instead and add 'Design review' to my calendar at 16:00-17:00 that day; if it doesn't clash, "
      "accept and add it at her proposed time.",
      facts={"time": "Whatever slot works with my calendar is fine."})
class ResolveConflict:
    @staticmethod
    def seed(phone: Phone) -> None:
        phone.receive_sms(number_of("Li Na"), "Can we do the design review tomorrow (Feb 10) at 15:00? An hour "
                          "should be enough.", at(phone, 0, 8, 45))
        phone.calendar.add("Dentist appointment", at(phone, 1, 15), at(phone, 1, 16))

    @staticmethod
    def check(phone: Phone, trace: EpisodeTrace) -> list[Check]:
        reviews = [e for e in phone.calendar.events if v.mentions(e.title, "design review")]
        good = [e for e in reviews if e.start == at(phone, 1, 16) and e.end == at(phone, 1, 17)]
        return [
            Check("Design review on Feb 10 16:00-17:00", bool(good),
                  f"events {[(e.title, f'{e.start:%m-%d %H:%M}') for e in reviews]}"),
            Check("no review at the clashing time", not any(e.start == at(phone, 1, 15) for e in reviews)),
            Check("dentist kept", any(v.mentions(e.title, "dentist") for e in phone.calendar.events)),
            v.sms_sent(phone, number_of("Li Na"), any_of=["16:00", "16", "4 pm", "4pm"], who="Li Na"),
        ]

    @staticmethod
    def plan(phone: Phone) -> list[Step]:
        return [
            open_app("Messages"), Tap(text="Li Na"),
            Fill("compose_message_text", "Sorry, I have a clash at 15:00 tomorrow. Could we do 16:00 instead?"),
            Tap(rid="send_message_button"), open_app("Calendar"), Tap(rid="create_event_fab"),
            Fill("event_title_input", "Design review"), Tap(rid="date_clear"), Fill("event_date_input", "2026-02-10"),
            Fill("event_start_input", "16:00"), Fill("event_end_input", "17:00"), Tap(rid="save_event"), finish(),
        ]


# =============================================================================================== calendar & chat
@task("schedule_team_meeting", "hard", ("Calendar", "Mattermost"),
      "Create a calendar event titled 'Project sync' on 2026-02-10 from 14:00 to 15:00, then let everyone know the "
      "meeting time in the team-chat channel on Mattermost.")
class ScheduleMeeting:
    @staticmethod
    def check(phone: Phone, trace: EpisodeTrace) -> list[Check]:
        good = [e for e in phone.calendar.events if v.mentions(e.title, "project sync")
                and e.start == at(phone, 1, 14) and e.end == at(phone, 1, 15)]
        return [Check("event Project sync 2026-02-10 14:00-15:00", bool(good)),
                v.chat_posted(phone, "team-chat", any_of=["14:00", "2 pm", "2pm", "14.00"]),
                v.no_chat_posts_except(phone, "team-chat")]

    @staticmethod
    def plan(phone: Phone) -> list[Step]:
        return [open_app("Calendar"), Tap(rid="create_event_fab"), Fill("event_title_input", "Project sync"),
                Tap(rid="date_clear"), Fill("event_date_input", "2026-02-10"), Fill("event_start_input", "14:00"),
                Fill("event_end_input", "15:00"), Tap(rid="save_event"),
                *chat_plan("team-chat", "Project sync tomorrow (Feb 10) 14:00-15:00, see you there!"), finish()]


@task("clock_out_message", "easy", ("Mattermost",),
      "It's nearly the end of the day. Post this in Mattermost's Town Square: "
      "'Wrapping up for today, thanks everyone! See you tomorrow.'", start=datetime(2026, 2, 9, 17, 50))
class ClockOut:
    TEXT = "Wrapping up for today, thanks everyone! See you tomorrow."

    @staticmethod
    def check(phone: Phone, trace: EpisodeTrace) -> list[Check]:
        return [v.chat_posted(phone, "town-square", exact=ClockOut.TEXT), v.no_chat_posts_except(phone, "town-square")]

    @staticmethod
    def plan(phone: Phone) -> list[Step]:
        return [*chat_plan("Town Square", ClockOut.TEXT), finish()]


@task("sick_leave_notice", "easy", ("Mattermost",),
      "I'm feeling unwell and taking the day off. Post in Mattermost's Town Square: 'Hi all, I'm unwell and taking a "
      "sick day today. Please leave a message if anything is urgent. Thanks!'")
class SickLeave:
    TEXT = "Hi all, I'm unwell and taking a sick day today. Please leave a message if anything is urgent. Thanks!"

    @staticmethod
    def check(phone: Phone, trace: EpisodeTrace) -> list[Check]:
        return [v.chat_posted(phone, "town-square", exact=SickLeave.TEXT), v.no_chat_posts_except(phone, "town-square")]

    @staticmethod
    def plan(phone: Phone) -> list[Step]:
        return [*chat_plan("Town Square", SickLeave.TEXT), finish()]


@task("acknowledge_alert", "easy", ("Mattermost",),
      "An urgent monitoring alert was posted in Mattermost's Town Square. Reply in that channel to confirm you've "
      "seen it (for example 'Acknowledged, looking into it now').")
class AcknowledgeAlert:
    @staticmethod
    def seed(phone: Phone) -> None:
        phone.mattermost.post("town-square", "monitor-bot", "CRITICAL: HTTP 500 errors in cluster-a, API latency above "
                              "10 s.", at(phone, 0, 8, 58))

    @staticmethod
    def check(phone: Phone, trace: EpisodeTrace) -> list[Check]:
        return [v.chat_posted(phone, "town-square", any_of=["ack", "received", "looking into", "on it", "checking"]),
                v.no_chat_posts_except(phone, "town-square")]

    @staticmethod
    def plan(phone: Phone) -> list[Step]:
        return [*chat_plan("Town Square", "Acknowledged, looking into it now."), finish()]


@task("share_ai_post", "hard", ("Mastodon", "Mattermost"),
      "Find the post about AI or machine learning on my Mastodon home timeline and share it (its link or its text) "
      "in the Town Square channel on Mattermost.")
class ShareAiPost:
    LINK = "https://mlweekly.example/vlm"

    @staticmethod
    def seed(phone: Phone) -> None:
        phone.mastodon.add("ML Weekly", "@mlweekly", "A new open-source vision-language model tops the leaderboard. "
                           f"Paper and code: {ShareAiPost.LINK} #MachineLearning", at(phone, 0, 7, 30))

    @staticmethod
    def check(phone: Phone, trace: EpisodeTrace) -> list[Check]:
        toot = next(t for t in phone.mastodon.toots if t.handle == "@mlweekly")
        return [v.chat_posted(phone, "town-square", any_of=["mlweekly.example/vlm", toot.url, "vision-language model"]),
                v.no_chat_posts_except(phone, "town-square")]

    @staticmethod
    def plan(phone: Phone) -> list[Step]:
        return [open_app("Mastodon"), Tap(contains="vision-language"),
                *chat_plan("Town Square", f"Interesting: a new open-source vision-language model tops the leaderboard "
                           f"{ShareAiPost.LINK}"), finish()]


# =============================================================================================== mastodon & gallery
@task("mastodon_followers_only", "easy", ("Mastodon",),
      "In Mastodon's settings, make 'Followers only' my default post visibility.")
class MastodonPrivacy:
    @staticmethod
    def check(phone: Phone, trace: EpisodeTrace) -> list[Check]:
        return [Check("default visibility is followers only", phone.mastodon.default_visibility == "private",
                      phone.mastodon.default_visibility),
                Check("nothing posted", not phone.mastodon.mine())]

    @staticmethod
    def plan(phone: Phone) -> list[Step]:
        return [open_app("Mastodon"), Tap(rid="settings_button"), Tap(rid="default_private"), finish()]


@task("post_sunset_photo", "hard", ("Gallery", "Mastodon"),
      "Post today's West Lake sunset photo from my Gallery to Mastodon (I'm logged in as @test) with a short casual "
      "caption such as 'Nice shot from today!'.")
class PostSunset:
    @staticmethod
    def seed(phone: Phone) -> None:
        phone.gallery.add("IMG_0412.jpg", "Camera", at(phone, -1, 17, 40), "Sunset over West Lake", "#e07b39")
        phone.gallery.add("IMG_0413.jpg", "Camera", at(phone, 0, 8, 5), "Breakfast on the balcony", "#c9a66b")

    @staticmethod
    def check(phone: Phone, trace: EpisodeTrace) -> list[Check]:
        sunset = next(p for p in phone.gallery.photos if p.name == "IMG_0412.jpg")
        mine = phone.mastodon.mine()
        with_photo = [t for t in mine if t.media == [sunset.pid]]
        return [Check("one post published", len(mine) == 1, f"{len(mine)} posts"),
                Check("post carries the sunset photo only", bool(with_photo), f"media {[t.media for t in mine]}"),
                Check("post has a caption", any(t.text.strip() for t in with_photo)),
                Check("post is public", all(t.visibility == "public" for t in with_photo))]

    @staticmethod
    def plan(phone: Phone) -> list[Step]:
        return [open_app("Gallery"), Tap(contains="IMG_0412"), Tap(rid="share"), Tap(rid="share_mastodon"),
                Fill("compose_text", "Nice shot from today!"), Tap(rid="publish"), finish()]


@task("clean_old_screenshots", "hard", ("Gallery",),
      "Delete the screenshots in my Gallery that are more than 7 days old. Keep the ones from the last 7 days and "
      "leave my camera photos alone.")
class CleanScreenshots:
    OLD = ("Screenshot_20260201_101500.png", "Screenshot_20260125_093000.png", "Screenshot_20260110_200000.png")
    RECENT = ("Screenshot_20260208_113000.png", "Screenshot_20260206_160000.png", "Screenshot_20260203_120000.png")

    @staticmethod
    def seed(phone: Phone) -> None:
        for name in CleanScreenshots.OLD + CleanScreenshots.RECENT:
            stamp = datetime.strptime(name[11:26], "%Y%m%d_%H%M%S")
            phone.gallery.add(name, "Screenshots", stamp, "A screenshot", "#546e7a")

    @staticmethod
    def check(phone: Phone, trace: EpisodeTrace) -> list[Check]:
        left = {p.name for p in phone.gallery.photos}
        return [Check("old screenshots deleted", not (set(CleanScreenshots.OLD) & left),
                      f"still there {sorted(set(CleanScreenshots.OLD) & left)}"),
                Check("recent screenshots kept", set(CleanScreenshots.RECENT) <= left,
                      f"missing {sorted(set(CleanScreenshots.RECENT) - left)}"),
                Check("camera photos kept", {"IMG_0398.jpg", "IMG_0401.jpg"} <= left)]

    @staticmethod
    def plan(phone: Phone) -> list[Step]:
        return [open_app("Gallery"), Tap(rid="tab_Screenshots"), Tap(rid="select_mode"),
                *[Tap(contains=name) for name in CleanScreenshots.OLD], Tap(rid="delete_selected"),
                Tap(rid="dialog_delete"), finish()]


@task("email_dinner_photos", "hard", ("Gallery", "Mail"),
      "Email the three photos from last Saturday's team dinner to Zhao Lei (zhaolei@example.com).")
class EmailDinnerPhotos:
    NAMES = ("IMG_0405.jpg", "IMG_0406.jpg", "IMG_0407.jpg")

    @staticmethod
    def seed(phone: Phone) -> None:
        for i, name in enumerate(EmailDinnerPhotos.NAMES):
            phone.gallery.add(name, "Camera", at(phone, -2, 19, 10 + i * 7), "Team dinner at the hot-pot place", "#a1887f")
        phone.gallery.add("IMG_0408.jpg", "Camera", at(phone, -1, 10, 0), "Sunday hike", "#689f38")

    @staticmethod
    def check(phone: Phone, trace: EpisodeTrace) -> list[Check]:
        wanted = {f"photo:{p.pid}" for p in phone.gallery.photos if p.name in EmailDinnerPhotos.NAMES}
        sent = [m for m in phone.mail.sent() if "zhaolei@example.com" in m.to]
        return [Check("email sent to Zhao Lei", bool(sent), f"sent to {[m.to for m in phone.mail.sent()]}"),
                Check("exactly the three dinner photos attached", any(set(m.attachments) == wanted for m in sent),
                      f"attachments {[m.attachments for m in sent]}")]

    @staticmethod
    def plan(phone: Phone) -> list[Step]:
        return [open_app("Gallery"), Tap(rid="select_mode"), *[Tap(contains=n) for n in EmailDinnerPhotos.NAMES],
                Tap(rid="share_selected"), Tap(rid="share_mail"), Fill("to", "zhaolei@example.com"),
                Fill("subject", "Team dinner photos"), Tap(rid="send"), finish()]


# =============================================================================================== files & docs
@task("sort_downloads_by_date", "easy", ("Files",),
      "In Files, sort the Download folder by date modified with the newest files first.")
class SortDownloads:
    @staticmethod
    def check(phone: Phone, trace: EpisodeTrace) -> list[Check]:
        order = phone.files.sort_order.get("Download", "name_asc")
        return [Check("Download sorted newest first", order == "modified_desc", order)]

    @staticmethod
    def plan(phone: Phone) -> list[Step]:
        return [open_app("Files"), Tap(text="Download"), Tap(rid="sort_button"), Tap(rid="sort_modified_desc"), finish()]


@task("open_meeting_document", "easy", ("Calendar", "Docreader", "Files"),
      "My next meeting today has a document I should read first. Find it and open it in Docreader.")
class OpenMeetingDoc:
    @staticmethod
    def seed(phone: Phone) -> None:
        phone.calendar.add("Quarterly planning", at(phone, 0, 10), at(phone, 0, 11), "Room 3B",
                           "Pre-read: Q1_planning.pdf (in Documents)")
        phone.files.add("/Documents/Q1_planning.pdf", 640, at(phone, -1, 18), "Q1 planning: goals, budget, hiring plan.")
        phone.files.add("/Documents/Q4_review.pdf", 580, at(phone, -40, 18), "Q4 review.")

    @staticmethod
    def check(phone: Phone, trace: EpisodeTrace) -> list[Check]:
        opened = phone.docreader.opened
        return [Check("Q1_planning.pdf opened in Docreader", "/Documents/Q1_planning.pdf" in opened, f"opened {opened}")]

    @staticmethod
    def plan(phone: Phone) -> list[Step]:
        return [open_app("Calendar"), Tap(text="Quarterly planning"), open_app("Files"), Tap(text="Documents"),
                Tap(text="Q1_planning.pdf"), Tap(rid="open"), finish()]


@task("send_weekly_report", "hard", ("Files", "Mail"),
      "Email this week's report (the newest Weekly_Report file in Documents) as an attachment to my manager Chen Jie "
      "at chenjie@example.com.")
class SendWeeklyReport:
    @staticmethod
    def seed(phone: Phone) -> None:
        phone.files.add("/Documents/Weekly_Report_W5.docx", 48, at(phone, -7, 17), "Week 5 report.")
        phone.files.add("/Documents/Weekly_Report_W6.docx", 52, at(phone, 0, 8, 30), "Week 6 report.")

    @staticmethod
    def check(phone: Phone, trace: EpisodeTrace) -> list[Check]:
        sent = [m for m in phone.mail.sent() if "chenjie@example.com" in m.to]
        return [Check("email sent to Chen Jie", bool(sent), f"sent to {[m.to for m in phone.mail.sent()]}"),
                Check("this week's report attached (only)",
                      any(m.attachments == ["file:/Documents/Weekly_Report_W6.docx"] for m in sent),
                      f"attachments {[m.attachments for m in sent]}")]

    @staticmethod
    def plan(phone: Phone) -> list[Step]:
        return [open_app("Files"), Tap(text="Documents"), Tap(text="Weekly_Report_W6.docx"), Tap(rid="share"),
                Fill("to", "chenjie@example.com"), Fill("subject", "Weekly report W6"),
                Fill("body", "Hi Chen Jie, please find this week's report attached."), Tap(rid="send"), finish()]


# =============================================================================================== chrome
@task("morning_papers", "easy", ("Chrome",),
      "Open these two sites in Chrome, in this order: https://www.alphaxiv.org and then https://huggingface.co/papers")
class MorningPapers:
    @staticmethod
    def check(phone: Phone, trace: EpisodeTrace) -> list[Check]:
        history = phone.chrome.history
        first = history.index("alphaxiv.org") if "alphaxiv.org" in history else -1
        second = max((i for i, u in enumerate(history) if u == "huggingface.co/papers"), default=-1)
        return [Check("opened alphaxiv.org", first >= 0, f"history {history}"),
                Check("then opened huggingface.co/papers", second > first >= 0, f"history {history}")]

    @staticmethod
    def plan(phone: Phone) -> list[Step]:
        return [open_app("Chrome"), Fill("url_bar", "https://www.alphaxiv.org"), enter(), Tap(rid="url_clear"),
                Fill("url_bar", "https://huggingface.co/papers"), enter(), finish()]


@task("weather_report", "hard", ("Chrome",),
      "Use Chrome to look up today's weather in Hangzhou and tell me the conditions, including the temperature.")
class WeatherReport:
    @staticmethod
    def check(phone: Phone, trace: EpisodeTrace) -> list[Check]:
        return [Check("weather page visited", "weather.example.com/hangzhou" in phone.chrome.history),
                v.answer_mentions(trace.answer, all_of=["rain"], any_of=["13", "8°", "8 °", "8 to", "8-13", "8c"])]

    @staticmethod
    def plan(phone: Phone) -> list[Step]:
        return [open_app("Chrome"), Fill("url_bar", "Hangzhou weather today"), enter(),
                Tap(rid="link", contains="Hangzhou weather"),
                answer("Hangzhou today: light rain, 8°C to 13°C, humidity 85%.")]


@task("mail_top_story", "hard", ("Chrome", "Mail"),
      "Open tech.example.com in Chrome, find today's top story, and email its headline to Li Na (lina@example.com) "
      "with the subject 'Top story'.")
class MailTopStory:
    @staticmethod
    def check(phone: Phone, trace: EpisodeTrace) -> list[Check]:
        sent = [m for m in phone.mail.sent() if "lina@example.com" in m.to]
        return [Check("visited tech.example.com", "tech.example.com" in phone.chrome.history),
                Check("email to Li Na", bool(sent)),
                Check("subject 'Top story'", any(v.mentions(m.subject, "top story") for m in sent)),
                Check("headline in the email", any(v.mentions(m.body + " " + m.subject, "driverless bus") for m in sent),
                      f"bodies {[m.body[:80] for m in sent]}")]

    @staticmethod
    def plan(phone: Phone) -> list[Step]:
        return [open_app("Chrome"), Fill("url_bar", "tech.example.com"), enter(), open_app("Mail"),
                Tap(rid="compose_button"), Fill("to", "lina@example.com"), Fill("subject", "Top story"),
                Fill("body", "Today's top story: Hangzhou opens its first fully driverless bus line"), Tap(rid="send"),
                finish()]


# =============================================================================================== maps
@task("late_night_taxi", "hard", ("Maps",),
      "It's 23:30 and the metro and buses have stopped. In Maps, plan a taxi trip from Zheda Science Park (478 Wensan "
      "Road) to Zijingang Campus and tell me the plan with the estimated travel time.",
      start=datetime(2026, 2, 9, 23, 30))
class LateNightTaxi:
    @staticmethod
    def check(phone: Phone, trace: EpisodeTrace) -> list[Check]:
        checks, minutes = route_checks(phone, "Zheda Science Park", "Zijingang Campus", ("taxi",))
        expected = minutes_of(phone, "Zheda Science Park", "Zijingang Campus", "taxi")
        return checks + [v.answer_mentions(trace.answer, all_of=[str(expected)], any_of=["taxi", "cab", "ride"])]

    @staticmethod
    def plan(phone: Phone) -> list[Step]:
        minutes = minutes_of(phone, "Zheda Science Park", "Zijingang Campus", "taxi")
        return [*maps_plan("Zheda Science Park", "Zijingang Campus", "taxi"),
                answer(f"Take a taxi (Economy) from Zheda Science Park to Zijingang Campus: about {minutes} min.")]


@task("late_with_notice", "hard", ("Maps", "Mattermost"),
      "I'm running late! First, find the fastest way from Zijingang Campus to Zheda Science Park in Maps. Then post "
      "in Mattermost's Town Square: 'Sorry all, I'm on my way and will be there in about 20 minutes.' Finally tell me "
      "the route plan and how long it takes.")
class LateWithNotice:
    TEXT = "Sorry all, I'm on my way and will be there in about 20 minutes."

    @staticmethod
    def check(phone: Phone, trace: EpisodeTrace) -> list[Check]:
        fastest = min(("drive", "transit", "walk", "bike", "taxi"),
                      key=lambda m: minutes_of(phone, "Zijingang Campus", "Zheda Science Park", m))
        checks, minutes = route_checks(phone, "Zijingang Campus", "Zheda Science Park", (fastest,))
        expected = minutes_of(phone, "Zijingang Campus", "Zheda Science Park", fastest)
        return checks + [v.chat_posted(phone, "town-square", exact=LateWithNotice.TEXT),
                         v.answer_mentions(trace.answer, all_of=[str(expected)])]

    @staticmethod
    def plan(phone: Phone) -> list[Step]:
        minutes = minutes_of(phone, "Zijingang Campus", "Zheda Science Park", "drive")
        return [*maps_plan("Zijingang Campus", "Zheda Science Park", "drive"),
                *chat_plan("Town Square", LateWithNotice.TEXT),
                answer(f"Fastest is driving from Zijingang Campus to Zheda Science Park, about {minutes} min.")]


@task("rainy_commute", "hard", ("Maps",),
      "It's raining. In Maps, plan a route from Zijingang Campus to Zheda Science Park that keeps me out of the rain "
      "as much as possible, and tell me the plan.")
class RainyCommute:
    @staticmethod
    def check(phone: Phone, trace: EpisodeTrace) -> list[Check]:
        checks, _ = route_checks(phone, "Zijingang Campus", "Zheda Science Park", ("transit", "taxi", "drive"))
        exposed = [q for q in phone.maps.queries if q.mode in ("walk", "bike")]
        return checks + [
            v.answer_mentions(trace.answer, any_of=["subway", "metro", "transit", "taxi", "drive", "car", "line 2"]),
            Check("did not recommend walking or cycling",
                  not v.mentions_any(trace.answer or "", ["walk there", "cycle", "bike"]) or not exposed),
        ]

    @staticmethod
    def plan(phone: Phone) -> list[Step]:
        minutes = minutes_of(phone, "Zijingang Campus", "Zheda Science Park", "transit")
        return [*maps_plan("Zijingang Campus", "Zheda Science Park", "transit"),
                answer(f"Take the subway (Line 2 to Line 10), mostly underground: about {minutes} min.")]


@task("sunny_bike_route", "hard", ("Maps",),
      "The weather is lovely today. Plan a cycling route in Maps from Zijingang Campus to Zheda Science Park and tell "
      "me how long the ride takes.")
class SunnyBike:
    @staticmethod
    def check(phone: Phone, trace: EpisodeTrace) -> list[Check]:
        checks, _ = route_checks(phone, "Zijingang Campus", "Zheda Science Park", ("bike",))
        expected = minutes_of(phone, "Zijingang Campus", "Zheda Science Park", "bike")
        return checks + [v.answer_mentions(trace.answer, all_of=[str(expected)])]

    @staticmethod
    def plan(phone: Phone) -> list[Step]:
        minutes = minutes_of(phone, "Zijingang Campus", "Zheda Science Park", "bike")
        return [*maps_plan("Zijingang Campus", "Zheda Science Park", "bike"),
                answer(f"Cycling from Zijingang Campus to Zheda Science Park takes about {minutes} min.")]


# =============================================================================================== shopping
def _buy_plan(search: str, title: str, options: tuple[str, ...] = (), note: str = "") -> list[Step]:
    steps: list[Step] = [open_app("Taodian"), Fill("search_input", search), Tap(rid="search_button"), Tap(text=title)]
    steps += [Tap(rid=f"option_{option}") for option in options]
    steps += [Tap(rid="buy_now"), *delivery_fills()]
    if note:
        steps.append(Fill("order_note", note))
    return [*steps, Tap(rid="submit_order"), finish()]


@task("buy_zero_cola", "hard", ("Taodian", "jingdian"),
      f"On Taodian, buy one case (24 cans) of zero-sugar cola. Deliver to {DELIVERY}.")
class BuyCola:
    @staticmethod
    def check(phone: Phone, trace: EpisodeTrace) -> list[Check]:
        return order_checks(phone, "taodian", "cola_zero_24", other_app="jingdian")

    @staticmethod
    def plan(phone: Phone) -> list[Step]:
        return _buy_plan("zero sugar cola", "Zero Sugar Cola 330ml × 24 cans")


@task("buy_macbook_budget", "hard", ("Taodian", "jingdian"),
      f"Buy a MacBook Pro on Taodian that costs at most ¥15,000. Deliver to {DELIVERY}.")
class BuyMacbook:
    @staticmethod
    def check(phone: Phone, trace: EpisodeTrace) -> list[Check]:
        return order_checks(phone, "taodian", "mbp14_m3", other_app="jingdian")

    @staticmethod
    def plan(phone: Phone) -> list[Step]:
        return _buy_plan("MacBook Pro", "MacBook Pro 14-inch M3 8GB/512GB")


@task("buy_sofa_with_note", "hard", ("Taodian", "jingdian"),
      f"Buy the three-seat fabric sofa on Taodian and add the order note 'Please ship with SF Express'. Deliver to "
      f"{DELIVERY}.")
class BuySofa:
    @staticmethod
    def check(phone: Phone, trace: EpisodeTrace) -> list[Check]:
        return order_checks(phone, "taodian", "sofa_fabric_3", other_app="jingdian", note=("SF Express",))

    @staticmethod
    def plan(phone: Phone) -> list[Step]:
        return _buy_plan("sofa", "Three-seat fabric sofa, grey", note="Please ship with SF Express")


@task("buy_white_sneakers", "hard", ("Taodian", "jingdian"),
      f"On Taodian, find white everyday sneakers for commuting in size 42 and order a pair. Deliver to {DELIVERY}.")
class BuySneakers:
    @staticmethod
    def check(phone: Phone, trace: EpisodeTrace) -> list[Check]:
        return order_checks(phone, "taodian", "sneakers_white", other_app="jingdian", options={"size": "42"})

    @staticmethod
    def plan(phone: Phone) -> list[Step]:
        return _buy_plan("white sneakers", "Classic white canvas sneakers", options=("size=42",))


@task("cart_remove_sportswear", "hard", ("Taodian", "jingdian"),
      "Remove every sport-style clothing item from my Taodian cart. Keep clothes of other styles and everything "
      "that isn't clothing.")
class CartSportswear:
    CART = ["jacket_run", "coat_wool", "shorts_basket", "bottle_steel", "shirt_linen", "leggings_yoga", "earbuds_bt"]

    @staticmethod
    def seed(phone: Phone) -> None:
        seed_cart(phone, CartSportswear.CART)

    @staticmethod
    def check(phone: Phone, trace: EpisodeTrace) -> list[Check]:
        return cart_checks(phone, {"coat_wool", "bottle_steel", "shirt_linen", "earbuds_bt"})

    @staticmethod
    def plan(phone: Phone) -> list[Step]:
        return [open_app("Taodian"), Tap(rid="cart_button"),
                *[Tap(rid="delete_item", near=t) for t in ("Men's running jacket", "Basketball shorts", "Yoga leggings")],
                finish()]


@task("cart_remove_over_140", "hard", ("Taodian", "jingdian"),
      "Delete every clothing item in my Taodian cart whose unit price is above ¥140 (shoes don't count as clothing). "
      "Leave all other items as they are.")
class CartOverBudget:
    CART = ["sweater_cashmere", "tshirt_cotton", "jacket_denim", "chinos", "sneakers_leather", "case_silicone"]

    @staticmethod
    def seed(phone: Phone) -> None:
        seed_cart(phone, CartOverBudget.CART)

    @staticmethod
    def check(phone: Phone, trace: EpisodeTrace) -> list[Check]:
        return cart_checks(phone, {"tshirt_cotton", "chinos", "sneakers_leather", "case_silicone"})

    @staticmethod
    def plan(phone: Phone) -> list[Step]:
        return [open_app("Taodian"), Tap(rid="cart_button"), Tap(rid="delete_item", near="Cashmere sweater"),
                Tap(rid="delete_item", near="Denim jacket"), finish()]


@task("cart_remove_electronics", "hard", ("Taodian", "jingdian"),
      "Remove all electronics (earbuds, chargers, phone cases and similar accessories) from my Taodian cart and keep "
      "everything else.")
class CartElectronics:
    CART = ["earbuds_bt", "notebook_set", "charger_65w", "green_tea", "case_silicone", "tshirt_cotton"]

    @staticmethod
    def seed(phone: Phone) -> None:
        seed_cart(phone, CartElectronics.CART)

    @staticmethod
    def check(phone: Phone, trace: EpisodeTrace) -> list[Check]:
        return cart_checks(phone, {"notebook_set", "green_tea", "tshirt_cotton"})

    @staticmethod
    def plan(phone: Phone) -> list[Step]:
        return [open_app("Taodian"), Tap(rid="cart_button"),
                *[Tap(rid="delete_item", near=t) for t in ("Bluetooth earbuds", "USB-C charger 65W", "Silicone phone case")],
                finish()]


# =============================================================================================== food
@task("first_lunch_order", "hard", ("chilemei", "tuantuan"),
      f"Order one Yu-Shiang shredded pork rice bowl on chilemei. Deliver to {DELIVERY}.")
class FirstLunch:
    @staticmethod
    def check(phone: Phone, trace: EpisodeTrace) -> list[Check]:
        checks, order = food_order_checks(phone, "chilemei", "tuantuan")
        items = [(i.did, i.quantity) for i in order.items] if order else []
        return checks + [Check("one Yu-Shiang pork rice bowl", items == [("yuxiang_rice", 1)], f"items {items}")]

    @staticmethod
    def plan(phone: Phone) -> list[Step]:
        return [open_app("chilemei"), Fill("search_input", "Yu-Shiang"), Tap(rid="search_button"),
                Tap(text="Yu-Shiang shredded pork rice bowl"), Tap(rid="add_dish", near="Yu-Shiang"),
                Tap(rid="add_to_basket"), Tap(rid="basket_button"), *delivery_fills(), Tap(rid="place_order"), finish()]


@task("kungpao_with_note", "hard", ("chilemei", "tuantuan"),
      f"Order a Kung Pao chicken rice bowl on chilemei with these requests: no peanuts, less spicy, extra rice. "
      f"Deliver to {DELIVERY}.")
class KungPaoNote:
    @staticmethod
    def check(phone: Phone, trace: EpisodeTrace) -> list[Check]:
        checks, order = food_order_checks(phone, "chilemei", "tuantuan")
        items = [(i.did, i.quantity) for i in order.items] if order else []
        checks.append(Check("one Kung Pao chicken rice bowl", items == [("kungpao_rice", 1)], f"items {items}"))
        said = (order.note + " " + " ".join(o for i in order.items for o in i.options)) if order else ""
        for request, words in (("no peanuts", ["no peanut", "without peanut"]), ("less spicy", ["less spicy", "mild"]),
                               ("extra rice", ["extra rice", "more rice"])):
            checks.append(Check(f"request '{request}'", v.mentions_any(said, words), said))
        return checks

    @staticmethod
    def plan(phone: Phone) -> list[Step]:
        return [open_app("chilemei"), Tap(text="Sichuan Kitchen"), Tap(rid="add_dish", near="Kung Pao"),
                Tap(text="No peanuts"), Tap(text="Less spicy"), Tap(text="Extra rice"), Tap(rid="add_to_basket"),
                Tap(rid="basket_button"), *delivery_fills(), Fill("order_note", "No peanuts, less spicy, extra rice"),
                Tap(rid="place_order"), finish()]


@task("light_lunch_budget", "hard", ("chilemei", "tuantuan"),
      f"Order me a light lunch costing at most ¥30 in total including delivery. Prefer chilemei; use tuantuan only "
      f"if chilemei has nothing suitable. Deliver to {DELIVERY}.")
class LightLunch:
    @staticmethod
    def check(phone: Phone, trace: EpisodeTrace) -> list[Check]:
        checks, order = food_order_checks(phone, "chilemei", "tuantuan")
        if order is None:
            return checks
        app = phone.food("chilemei")
        dishes = [app.dish(i.sid, i.did) for i in order.items]
        checks.append(Check("total within ¥30", order.total <= 30, f"total {order.total}"))
        checks.append(Check("every dish is light", bool(dishes) and all(d is not None and "light" in d.tags for d in dishes),
                            f"dishes {[d.name if d else None for d in dishes]}"))
        return checks

    @staticmethod
    def plan(phone: Phone) -> list[Step]:
        return [open_app("chilemei"), Tap(text="Green Bowl"), Tap(rid="add_dish", near="Steamed fish"),
                Tap(rid="add_to_basket"), Tap(rid="basket_button"), *delivery_fills(), Tap(rid="place_order"), finish()]


def load_tasks(**_: Any) -> list[PhoneTask]:
    """The general split (the env's loader hook)."""
    return list(TASKS)
