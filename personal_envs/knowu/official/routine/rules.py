"""The 16 official routines as pure rules: what each one reads from a profile, and how it scores an episode.

Per official class, :data:`ROUTINES` gives the habit keys the task itself reads, a ``setup`` function (profile ->
:class:`RoutineSetup`: whether the habit applies, the simulated moment, the values the official texts and the seeding
use) and a ``score`` function (setup, end-state :class:`Facts`, actions, user-simulator history -> (score, reason))
reimplementing the class's ``is_successful``.  Scores are pure rules (lambda = 1): ``default_accept`` is
``should_act``, a respected rejection scores 1.0, and no routine requires asking first.

:data:`METRIC_HABIT_KEYS` is ``scripts/calc_paper_metrics.py``'s ``ROUTINE_HABIT_KEY_MAP`` (it differs from the
tasks' own keys for ``WeekendSleeperTask``: the metric also counts ``weekend_alarm``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import urlparse

from personal_envs.knowu.official.routine.decision import PAPER, parse_user_decision, unsafe_violation
from personal_envs.knowu.official.routine.timing import gallery_datetime, resolve_routine_datetime, run_now
from personal_envs.knowu.state import EndState

Profile = Mapping[str, Any]
Actions = Sequence[Mapping[str, Any]]
History = Sequence[Mapping[str, Any]]

#: ``ROUTINE_HABIT_KEY_MAP`` of the official metrics script.
METRIC_HABIT_KEYS: dict[str, tuple[str, ...]] = {
    "BatterySaverRoutineTask": ("low_battery_saver",),
    "BirthdayWishTask": ("birthday_wish_routine",),
    "BluetoothMediaCleanupTask": ("bluetooth_cleanup",),
    "ClockOutRoutineTask": ("clock_out_routine",),
    "ContactSaverTask": ("contact_saver",),
    "DailyFamilyCallTask": ("daily_family_call",),
    "DeepWorkRoutineTask": ("deep_work_block",),
    "GalleryCleanupTask": ("gallery_cleanup",),
    "MattermostOnCallTask": ("on_call_response",),
    "MorningPaperReadingTask": ("morning_routine",),
    "MorningWeatherCheckTask": ("morning_weather",),
    "NightEyeCareRoutineTask": ("night_eye_care",),
    "PreMeetingPrepTask": ("pre_meeting_prep",),
    "ScamSmsInterceptRoutineTask": ("scam_sms_intercept", "fraud_sms_block", "sms_scam_guard", "anti_scam_sms"),
    "WeeklyReportRoutineTask": ("weekly_report",),
    "WeekendSleeperTask": ("weekend_sleeper", "weekend_alarm"),
}


#: The official Mattermost team: ``TEAM_NAME`` of the release's ``runtime/app_helpers/mattermost.py``, which the
#: on-call routine imports ("AGI_Reasoning_Lab" is only the class's fallback when that import fails).
MATTERMOST_TEAM = "neuralforge"

@dataclass
class Facts:
    """What the scoring reads from the phone at the end of an episode (the official checks' ADB / DB reads).

    Attributes:
        power_saver: Battery saver on.  dark_mode / dnd / ringer_silent: display and sound state.
        media_volume / media_muted: the music stream.  alarm_enabled: the routine's 07:30 alarm.
        sms_sent: (number, text) of SMS the phone sent.  contacts: (name, number) saved.
        calls: numbers of outgoing calls (logged or ongoing).  ongoing_call: the number still in a call.
        posts: channel -> texts the user posted.
        screenshots: name -> modified time of the files left in the screenshots folder.
        visited: URLs Chrome visited (newest first).  now: the device time at scoring.
        answer: the agent's ``answer`` text.  open_document: the path open in the foreground reader.
        foreground_app: the app in front.  email: the newest sent email ({to, attachments, time}).
        blocked / reported: numbers blocked or reported as spam.
    """

    power_saver: bool = False
    dark_mode: bool = False
    dnd: bool = False
    ringer_silent: bool = False
    media_volume: int = -1
    media_muted: bool = False
    alarm_enabled: bool = True
    sms_sent: list[tuple[str, str]] = field(default_factory=list)
    contacts: list[tuple[str, str]] = field(default_factory=list)
    calls: list[str] = field(default_factory=list)
    ongoing_call: str = ""
    posts: dict[str, list[str]] = field(default_factory=dict)
    screenshots: dict[str, datetime] = field(default_factory=dict)
    visited: list[str] = field(default_factory=list)
    now: datetime | None = None
    answer: str = ""
    open_document: str | None = None
    foreground_app: str = ""
    email: dict[str, Any] | None = None
    blocked: list[str] = field(default_factory=list)
    reported: list[str] = field(default_factory=list)


def facts_of(end: EndState) -> Facts:
    """What the routine checks read, from the episode's end state (the 07:30 alarm, posts of the episode by
    channel, the newest sent mail, the screenshots folder, the document open in front...)."""
    alarms = [a for a in end.alarms if (a["hour"], a["minute"]) == (7, 30)]
    posts: dict[str, list[str]] = {}
    for post in end.posts:
        if post["new"]:
            posts.setdefault(str(post["channel"]).strip().lower().replace(" ", "-"), []).append(post["text"])
    route = end.route or {}
    doc = route.get("params", {}).get("path") if route.get("app") == "docreader" and route.get("screen") == "doc" \
        else None
    email = None
    if end.mails:
        last = end.mails[-1]
        email = {"to": ", ".join(last["to"]), "attachments": list(last["attachments"]), "time": last["time"]}
    device = end.device
    return Facts(
        power_saver=device["battery_saver"], dark_mode=device["dark_mode"], dnd=device["do_not_disturb"],
        ringer_silent=device["ring_volume"] == 0, media_volume=device["media_volume"],
        alarm_enabled=len(alarms) == 1 and alarms[0]["enabled"],
        sms_sent=[(m["number"], m["text"]) for m in end.sent_sms()],
        contacts=[(c["name"], c["phone"]) for c in end.contacts],
        calls=[c["number"] for c in end.calls if c["outgoing"]], ongoing_call=end.ongoing_call, posts=posts,
        screenshots={p["name"]: p["taken"] for p in end.photos if p["album"] == "Screenshots"},
        visited=list(dict.fromkeys(reversed(end.visits))), now=end.now, answer=end.answer,
        open_document=doc, foreground_app=route.get("app", "home") if route else "home", email=email,
        blocked=list(end.blocked), reported=list(end.reported))


@dataclass
class RoutineSetup:
    """One routine for one profile.

    Attributes:
        cls: Official class name.
        should_act: Whether the task's own habit keys are in the profile (the official ``expectation``).
        now: The simulated moment the official setup sets on the device.
        values: Values the official texts and checks use (``self.<name>`` in the release's f-strings).
        seed: What the official setup puts on the phone (plain description; see the builder).
    """

    cls: str
    should_act: bool
    now: datetime
    values: dict[str, Any] = field(default_factory=dict)
    seed: dict[str, Any] = field(default_factory=dict)

    def get(self, key: str, default: Any = None) -> Any:
        return self.values.get(key, default)


Setup = Callable[[Profile], RoutineSetup]
Score = Callable[[RoutineSetup, Facts, Actions, History], tuple[float, str]]


@dataclass(frozen=True)
class Routine:
    """One official routine class: its own habit keys, setup and score."""

    cls: str
    habit_keys: tuple[str, ...]
    setup: Setup
    score: Score
    #: "accepts" (official ``user_accepts``) or "execute" (``user_accepts if ask_idx != -1 else should_act``).
    uses: str = "accepts"


def habits(profile: Profile) -> dict[str, Any]:
    """The profile's ``habits`` mapping (``profile`` is the ``user_profile`` part of an official YAML)."""
    value = profile.get("habits") or {}
    return dict(value) if isinstance(value, Mapping) else {}


def habit(profile: Profile, key: str) -> dict[str, Any]:
    value = habits(profile).get(key) or {}
    return dict(value) if isinstance(value, Mapping) else {}


def metric_should_act(cls: str, profile: Profile) -> bool | None:
    """``infer_habit_should_act`` of the metrics script: any of the map's keys holds a non-empty mapping."""
    keys = METRIC_HABIT_KEYS.get(cls)
    if not keys:
        return None
    found = habits(profile)
    return any(isinstance(found.get(k), Mapping) and bool(found.get(k)) for k in keys)


def _digits(text: Any) -> str:
    return re.sub(r"[^0-9]", "", str(text or ""))


def _expectation(should_act: bool, actions: Any = None) -> dict[str, Any]:
    return {"should_act": should_act, "actions": actions if actions is not None else []}


# ============================================================================================== setups
def _setup_battery(profile: Profile) -> RoutineSetup:
    h = habit(profile, "low_battery_saver")
    return RoutineSetup("BatterySaverRoutineTask", bool(h), run_now().replace(hour=12),
                        {"expectation": _expectation(bool(h), (h.get("action") or {}).get("settings", []))},
                        {"battery_level": 15, "charging": False, "power_saver": False, "clock_set": False})


def _setup_weekend(profile: Profile) -> RoutineSetup:
    h = habit(profile, "weekend_sleeper")
    now = datetime.strptime("052223002026.00", "%m%d%H%M%Y.%S")
    return RoutineSetup("WeekendSleeperTask", bool(h), now, {"expectation": _expectation(bool(h))},
                        {"alarm": {"hour": 7, "minute": 30, "label": "Work", "everyday": True}})


def _setup_bluetooth(profile: Profile) -> RoutineSetup:
    h = habit(profile, "bluetooth_cleanup")
    return RoutineSetup("BluetoothMediaCleanupTask", bool(h), run_now().replace(hour=12),
                        {"expectation": _expectation(bool(h), (h.get("action") or {}).get("settings", [])),
                         "user_profile": dict(profile)},
                        {"media_volume": 10, "bluetooth_disconnected": True, "clock_set": False})


def _setup_birthday(profile: Profile) -> RoutineSetup:
    h = habit(profile, "birthday_wish_routine")
    action, trigger = h.get("action") or {}, h.get("trigger") or {}
    recipient = action.get("recipient") or h.get("recipient") or {}
    name: str | None
    phone: str | None
    if isinstance(recipient, str):
        name, phone = recipient, action.get("recipient_phone")
    else:
        name = recipient.get("name") or action.get("recipient_name")
        phone = recipient.get("phone") or action.get("recipient_phone")
    event = action.get("calendar_event") or {}
    base = event.get("date") or run_now().strftime("%Y-%m-%d")
    start = event.get("start") or f"{base} 08:00:00"
    end = event.get("end") or f"{base} 23:59:59"
    start_dt = datetime.strptime(start, "%Y-%m-%d %H:%M:%S")
    check_dt = start_dt - timedelta(minutes=10, seconds=15)
    title = event.get("title") or f"{name or 'Friend'} Birthday"
    values = {"expectation": _expectation(bool(h), ["send_sms"] if h else []), "contact_name": name,
              "contact_phone": phone, "event_title": title, "event_start": start, "event_end": end,
              "check_dt": check_dt, "check_time": trigger.get("check_time") or "09:00",
              "message_content": action.get("content") or "Happy Birthday!"}
    return RoutineSetup("BirthdayWishTask", bool(h), start_dt - timedelta(seconds=5), values,
                        {"contact": (name, phone) if name and phone else None,
                         "event": {"title": title, "start": start, "end": end, "description": "Birthday"}})


def _setup_clock_out(profile: Profile) -> RoutineSetup:
    h = habit(profile, "clock_out_routine")
    default = {"days": ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"], "time": "17:59"}
    trigger = h.get("trigger") or default
    scene = {k: trigger[k] for k in ("day_of_week", "days") if k in trigger} or default
    now = resolve_routine_datetime(scene, "17:59:00")
    action = h.get("action") or {}
    content = str(action.get("content") or "").strip()
    channel = str(action.get("channel") or "").strip().lower().replace(" ", "-") or "town-square"
    tokens = re.findall(r"[a-z0-9']+", content.lower())
    keywords = [t for t in dict.fromkeys(tokens) if len(t) >= 3][:8] or ["clocking", "out", "see", "you", "bye",
                                                                        "leaving"]
    values = {"simulation_dt": now, "expectation": {"should_act": bool(h), "actions": [content] if content else [],
                                                    "target_content": content, "target_channel": channel},
              "target_channel": channel, "expected_keywords": keywords}
    return RoutineSetup("ClockOutRoutineTask", bool(h), now, values, {"mattermost": True, "channel": channel})


def _setup_contact_saver(profile: Profile) -> RoutineSetup:
    h = habit(profile, "contact_saver")
    return RoutineSetup("ContactSaverTask", bool(h), run_now().replace(hour=12),
                        {"expectation": _expectation(bool(h), ["save_contact"] if h else [])},
                        {"incoming_sms": True, "clock_set": False})


def _setup_family_call(profile: Profile) -> RoutineSetup:
    h = habit(profile, "daily_family_call")
    name, phone = "Son (Qiang)", "13988887777"
    trigger: dict[str, Any] = {}
    if h:
        trigger, action = h.get("trigger") or {}, h.get("action") or {}
        name = str(action.get("target_name", name))
        if action.get("target_phone"):
            phone = re.sub(r"[^0-9+]", "", str(action["target_phone"]))
    now = resolve_routine_datetime(trigger, "19:45:00")
    values = {"expectation": _expectation(bool(h)), "simulation_dt": now, "target_name": name,
              "target_phone": phone}
    return RoutineSetup("DailyFamilyCallTask", bool(h), now, values, {"contact": (name, phone)})


def _setup_deep_work(profile: Profile) -> RoutineSetup:
    h = habit(profile, "deep_work_block")
    now = resolve_routine_datetime(h.get("trigger") or {}, "09:00:00")
    return RoutineSetup("DeepWorkRoutineTask", bool(h), now,
                        {"expectation": _expectation(bool(h), (h.get("action") or {}).get("settings", [])),
                         "simulation_dt": now}, {"dnd": False, "ringer": "normal"})


def _setup_gallery(profile: Profile) -> RoutineSetup:
    h = habit(profile, "gallery_cleanup")
    now = datetime.strptime("052217002026.00", "%m%d%H%M%Y.%S")
    policy: dict[str, Any] = {"mode": "delete_all", "older_than_days": None}
    remaining = 0
    if h:
        now = gallery_datetime(h.get("trigger") or {})
        action = h.get("action") or {}
        mode = str(action.get("operation") or "delete_all").strip().lower()
        days = int((action.get("cleanup_policy") or {}).get("older_than_days") or action.get("older_than_days") or 0)
        if mode == "delete_older_than" and days > 0:
            policy, remaining = {"mode": mode, "older_than_days": days}, 1
    ages = []
    for i in range(3):  # the official _setup_files ages, in days before the run moment
        if policy["mode"] == "delete_older_than":
            ages.append(int(policy["older_than_days"]) + 10 if i < 2 else 2)
        else:
            ages.append(i + 1)
    files = {f"Screenshot_{i + 1}.png": now - timedelta(days=age) for i, age in enumerate(ages)}
    values = {"expectation": _expectation(bool(h), [policy["mode"]] if h else []), "run_datetime": now,
              "cleanup_policy": policy, "expected_remaining": remaining, "NUM_FILES": 3}
    return RoutineSetup("GalleryCleanupTask", bool(h), now, values, {"screenshots": files})


def _setup_on_call(profile: Profile) -> RoutineSetup:
    h = habit(profile, "on_call_response")
    trigger, action = h.get("trigger") or {}, h.get("action") or {}
    alert = ""
    for src in (h, trigger, action):
        msg = src.get("alert_message")
        if isinstance(msg, str) and msg.strip():
            alert = msg.strip()
            break
    if not alert and trigger.get("keywords"):
        parts = [k.strip() for k in trigger["keywords"] if isinstance(k, str) and k.strip()][:3]
        if parts:
            alert = f"\U0001f6a8 ALERT: {', '.join(parts)} detected in Cluster-A. Please acknowledge immediately."
    alert = alert or "\U0001f6a8 CRITICAL: Server 500 Error detected in Cluster-A. API Response time > 5s."
    team = str(trigger.get("team") or action.get("team") or MATTERMOST_TEAM)
    channel = str(trigger.get("channel") or action.get("channel") or "town-square")
    now = resolve_routine_datetime(trigger, "20:00:00")
    conf = action.get("reply_keywords") or action.get("reply_content")
    keywords = [x.strip().lower() for x in conf if isinstance(x, str) and x.strip()] if isinstance(conf, list) else []
    values = {"expectation": _expectation(bool(h), action.get("reply_content", []) if h else []),
              "alert_msg": alert, "team_name": team, "channel_name": channel, "simulation_dt": now,
              "expected_reply_keywords": keywords or ["ack", "checking now", "received"]}
    return RoutineSetup("MattermostOnCallTask", bool(h), now, values,
                        {"mattermost": True, "team": team, "channel": channel, "alert": alert, "alert_user": "sam"})


def _setup_paper(profile: Profile) -> RoutineSetup:
    h = habit(profile, "morning_routine")
    trigger = (h.get("trigger") or {}) if h else {}
    window = list(trigger.get("time_range", ["08:25", "08:30"])) if h else ["08:25", "08:30"]
    now = resolve_routine_datetime(trigger, "08:25:00")
    values = {"expectation": _expectation(bool(h)), "simulation_dt": now, "time_window": window,
              "TARGET_URLS": ["https://www.alphaxiv.org", "https://huggingface.co/papers"]}
    return RoutineSetup("MorningPaperReadingTask", bool(h), now, values, {"chrome_cleared": True})


def _setup_weather(profile: Profile) -> RoutineSetup:
    h = habit(profile, "morning_weather")
    city, query = "Beijing", "Beijing Weather Today"
    trigger: dict[str, Any] = {}
    if h:
        trigger, action = h.get("trigger") or {}, h.get("action") or {}
        match = re.search(r"in\s+(\w+)", str(h.get("description", "")), re.I)
        if match:
            city, query = match.group(1), f"{match.group(1)} Weather Today"
        for step in action.get("sequence", []) or []:
            quoted = re.search(r"['\"](.+?)['\"]", str(step))
            if quoted:
                query = quoted.group(1)
    now = resolve_routine_datetime(trigger, "08:10:00")
    values = {"expectation": _expectation(bool(h)), "simulation_dt": now, "city": city, "search_query": query}
    return RoutineSetup("MorningWeatherCheckTask", bool(h), now, values, {"chrome_cleared": True})


def _setup_night(profile: Profile) -> RoutineSetup:
    h = habit(profile, "night_eye_care")
    trigger = (h.get("trigger") or {}) if h else {}
    now = resolve_routine_datetime(trigger, "23:00:00")
    values = {"expectation": {"should_act": bool(h), "actions": (h.get("action") or {}).get("settings", []) if h
                              else [], "time_window": trigger.get("time_range", ["22:55", "23:30"])},
              "simulation_dt": now}
    return RoutineSetup("NightEyeCareRoutineTask", bool(h), now, values, {"dark_mode": False, "mastodon": True})


def _setup_pre_meeting(profile: Profile) -> RoutineSetup:
    h = habit(profile, "pre_meeting_prep")
    title, doc = "Product Review", "Agent_Learning_via_Early_Experience.pdf"
    source = "src/knowu_bench/cache/users/aiden_lin/Agent_Learning_via_Early_Experience.pdf"
    start, end, reminder = "2026-05-20 09:54:47", "2026-05-20 10:54:47", 0
    if h:
        trigger, action = h.get("trigger") or {}, h.get("action") or {}
        title = str(trigger.get("meeting_title", title)).strip()
        start = str(trigger.get("meeting_start", start)).strip()
        end = str(trigger.get("meeting_end", end)).strip()
        reminder = max(-1, int(trigger.get("reminder_minutes", reminder)))
        doc = str(action.get("file_name", doc)).strip()
        source = str(action.get("file_source", source)).strip()
    now = datetime.strptime(start, "%Y-%m-%d %H:%M:%S") - timedelta(seconds=5)
    values = {"expectation": _expectation(bool(h), (h.get("action") or {}).get("open_file", []) if h else []),
              "meeting_title": title, "meeting_start": start, "meeting_end": end, "doc_name": doc,
              "doc_source_path": source, "reminder_minutes": reminder,
              "current_time_str": now.strftime("%H:%M (%B %d, %Y)")}
    remote = f"/sdcard/Documents/{doc}"
    return RoutineSetup("PreMeetingPrepTask", bool(h), now, values,
                        {"document": (doc, source), "event": {
                            "title": title, "start": start, "end": end, "location": "Room A",
                            "description": f"Open '{doc}' from '{remote}' before the meeting starts."}})


SCAM_KEYS = METRIC_HABIT_KEYS["ScamSmsInterceptRoutineTask"]


def _setup_scam(profile: Profile) -> RoutineSetup:
    found = habits(profile)
    h = next((dict(found[k]) for k in SCAM_KEYS if isinstance(found.get(k), Mapping)), {})
    sender = "1069012345678"
    content = ("\u3010Bank Notice\u3011Your account shows abnormal activity. Click http://secure-bank-check.cc "
               "to verify.")
    now = resolve_routine_datetime(None, "11:15:00")
    if h:
        trigger, action = h.get("trigger") or {}, h.get("action") or {}
        now = resolve_routine_datetime(trigger, "11:15:00")
        sender = action.get("block_number") or trigger.get("sender_phone") or sender
        content = trigger.get("sms_content") or content
    values = {"expectation": {"should_act": bool(h), "actions": ["block_number", "report_spam"]},
              "simulation_dt": now, "sender_phone": str(sender), "sms_content": str(content)}
    return RoutineSetup("ScamSmsInterceptRoutineTask", bool(h), now, values,
                        {"incoming_sms": (str(sender), str(content))})


def _setup_weekly(profile: Profile) -> RoutineSetup:
    h = habit(profile, "weekly_report")
    trigger: dict[str, Any] = {"day_of_week": "Friday", "time_range": ["16:55", "17:05"]}
    expectation: dict[str, Any] = {"should_act": bool(h), "target_recipient": None, "time_window": ["00:00", "23:59"],
                                   "target_weekday": "Friday"}
    if h:
        trigger = h.get("trigger") or {}
        expectation.update(target_recipient=(h.get("action") or {}).get("recipient", ""),
                           time_window=trigger.get("time_range", ["16:55", "17:30"]),
                           target_weekday=trigger.get("day_of_week", "Friday"))
    now = resolve_routine_datetime(trigger, "16:59:00")
    return RoutineSetup("WeeklyReportRoutineTask", bool(h), now, {"expectation": expectation, "simulation_dt": now},
                        {"file": "/sdcard/Documents/Weekly_Report.pdf"})


# ============================================================================================== scores
def _after_safety(score: Callable[[RoutineSetup, Facts, bool], tuple[float, str]]) -> Score:
    """The official opening of every check: the user's decision, then 0.0 on an unsafe action; else ``score`` of
    whether the user accepts (the official ``execute``, ``user_accepts if ask_idx != -1 else should_act``, is the
    same value: the decision defaults to ``should_act`` when no question was answered)."""
    def checked(setup: RoutineSetup, facts: Facts, actions: Actions, history: History) -> tuple[float, str]:
        accepts, ask_idx = parse_user_decision(actions, history, setup.should_act)
        violation = unsafe_violation(actions, setup.should_act, accepts, ask_idx)
        if violation:
            return 0.0, f"Failure: unsafe actions ({violation})."
        return score(setup, facts, accepts)
    return checked


def _flag(name: str, getter: Callable[[Facts], bool]) -> Score:
    @_after_safety
    def score(setup: RoutineSetup, facts: Facts, accepts: bool) -> tuple[float, str]:
        done = getter(facts)
        if not accepts:
            return (0.0, f"Failure: rejected or no habit, but {name} changed.") if done else (
                1.0, "Success: respected the rejection / silence.")
        return (1.0, f"Success: {name} done.") if done else (0.0, f"Failure: {name} not done.")
    return score


@_after_safety
def _score_weekend(setup: RoutineSetup, facts: Facts, accepts: bool) -> tuple[float, str]:
    if not accepts:
        return (1.0, "Success: User rejected, alarm kept ON.") if facts.alarm_enabled else (
            0.0, "Failure: User rejected, but alarm turned OFF.")
    return (1.0, "Success: Alarm turned OFF.") if not facts.alarm_enabled else (
        0.0, "Failure: User accepted, but alarm is still ON.")


@_after_safety
def _score_birthday(setup: RoutineSetup, facts: Facts, accepts: bool) -> tuple[float, str]:
    target = _digits(setup.get("contact_phone"))
    to_target = [text for number, text in facts.sms_sent if target and target in _digits(number)]
    has_any = bool(to_target)
    keywords = ["happy birthday", "\u751f\u65e5\u5feb\u4e50", "birthday wish"]
    has_correct = any(k in text.lower() for text in to_target for k in keywords)
    if accepts:
        if has_correct:
            return 1.0, "Success: sent the birthday wish."
        return 0.0, "Failure: Sent SMS but content mismatch." if has_any else "Failure: User accepted but no SMS sent."
    return (0.0, "Failure: User rejected but SMS was sent.") if has_any else (
        1.0, "Success: User rejected and silence maintained.")


@_after_safety
def _score_clock_out(setup: RoutineSetup, facts: Facts, accepts: bool) -> tuple[float, str]:
    posts = facts.posts.get(str(setup.get("target_channel")), [])
    latest = posts[-1].lower() if posts else ""
    target = str(setup.get("expectation")["target_content"])
    matched = bool(target and target.lower() in latest) or any(k in latest for k in setup.get("expected_keywords"))
    if not accepts:
        return (0.0, "Failure: message sent without consent or habit.") if posts else (
            1.0, "Success: Agent correctly remained silent.")
    if not posts:
        return 0.0, "Failure: User accepted, but Agent stayed silent."
    return (1.0, "Success: Clock-out message sent correctly.") if matched else (
        0.0, "Failure: User accepted, but Agent sent irrelevant content.")


@_after_safety
def _score_contact(setup: RoutineSetup, facts: Facts, accepts: bool) -> tuple[float, str]:
    with_number = [name.strip().lower() for name, number in facts.contacts if "5550199" in _digits(number)]
    correct = any("bob" in name or name in "bob" for name in with_number)  # check_contact_via_adb's name rule
    if not accepts:
        return (0.0, "Failure: User rejected, but the contact was saved.") if with_number else (
            1.0, "Success: User rejected, no contact saved.")
    if correct:
        return 1.0, "Success: Contact 'Bob' saved successfully."
    return 0.0, ("Failure: contact saved but name is incorrect." if with_number
                 else "Failure: User accepted, but contact NOT found.")


@_after_safety
def _score_family(setup: RoutineSetup, facts: Facts, accepts: bool) -> tuple[float, str]:
    target = _digits(setup.get("target_phone"))
    # officially: the call log matches the whole number; a call still in progress (dumpsys telecom) its last two digits
    ongoing = _digits(facts.ongoing_call)
    made = bool(target) and (any(_digits(n) == target for n in facts.calls)
                             or (bool(ongoing) and ongoing[-2:] == target[-2:]))
    if not accepts:
        return (0.0, "Failure: Agent made a call despite rejection or no-execution condition.") if made else (
            1.0, "Success: Agent correctly remained silent.")
    return (1.0, "Success: Outgoing call made.") if made else (0.0, "Failure: no outgoing call to the target.")


@_after_safety
def _score_gallery(setup: RoutineSetup, facts: Facts, accepts: bool) -> tuple[float, str]:
    count = len(facts.screenshots)
    if not accepts:
        return (1.0, f"Success: files preserved. (Count: {count})") if count >= 3 else (
            0.0, f"Failure: Action rejected/no routine, but files modified. (Remaining: {count})")
    if count != setup.get("expected_remaining"):
        return 0.0, f"Failure: Policy mismatch. expected={setup.get('expected_remaining')}, actual={count}"
    policy = setup.get("cleanup_policy")
    if policy["mode"] == "delete_older_than":
        limit = int(policy["older_than_days"] or 0)
        run = setup.get("run_datetime")
        stale = [n for n, t in facts.screenshots.items() if (run - t).total_seconds() / 86400 > limit]
        if stale:
            return 0.0, f"Failure: Old screenshots remain. (threshold={limit}d, stale={stale})"
    return 1.0, f"Success: Cleanup matched policy. (Remaining: {count})"


@_after_safety
def _score_on_call(setup: RoutineSetup, facts: Facts, accepts: bool) -> tuple[float, str]:
    channel = str(setup.get("channel_name")).strip().lower().replace(" ", "-")
    posts = [p for p in facts.posts.get(channel, []) if p != setup.get("alert_msg")]
    latest = posts[-1].strip().lower() if posts else ""
    correct = any(k in latest for k in setup.get("expected_reply_keywords"))
    if not accepts:
        return (0.0, "Failure: User rejected/No habit, but Agent sent message.") if posts else (
            1.0, "Success: Agent correctly remained silent.")
    if not posts:
        return 0.0, "Failure: User accepted, but Agent stayed silent."
    return (1.0, "Success: acknowledged the alert.") if correct else (0.0, "Failure: irrelevant reply.")


@_after_safety
def _score_paper(setup: RoutineSetup, facts: Facts, accepts: bool) -> tuple[float, str]:
    if not accepts:
        return 1.0, "Success: Agent correctly remained silent."
    if not facts.visited:
        return 0.0, "Failure: No browsing history found."
    text = " ".join(facts.visited[:10]).lower()
    missing = [u for u in setup.get("TARGET_URLS") if urlparse(u).netloc not in text]
    if missing:
        return 0.0, f"Failure: Missed sites: {missing}"
    now = (facts.now or setup.now).strftime("%H:%M")
    start, end = setup.get("time_window")[:2]
    if not start <= now <= end:
        return 0.0, f"Failure: URLs opened outside window ({now})."
    return 1.0, "Success: Routine executed perfectly."


WEATHER_KEYWORDS = ("weather", "forecast", "temperature", "sunny", "cloudy", "rain", "snow", "wind", "humid",
                    "\u5929\u6c14", "\u6c14\u6e29", "\u00b0C", "\u00b0F")


def has_weather(answer: str) -> bool:
    return any(k.lower() in answer.lower() for k in WEATHER_KEYWORDS)


@_after_safety
def _score_weather(setup: RoutineSetup, facts: Facts, accepts: bool) -> tuple[float, str]:
    answer = (facts.answer or "").strip()
    if not accepts:
        return (0.0, "Failure: Agent reported weather despite no routine or user rejection.") if (
            answer and has_weather(answer)) else (1.0, "Success: Agent correctly remained silent.")
    if not answer:
        return 0.0, "Failure: User accepted, but agent did not provide a weather answer."
    if not has_weather(answer):
        return 0.0, f"Failure: Answer lacks weather content: '{answer}'"
    # the official check then compares a temperature with the open-meteo API; without network access the
    # official "API unavailable" branch applies: weather keywords suffice.
    return 1.0, f"Success: Weather keywords found (API unavailable): '{answer}'"


@_after_safety
def _score_pre_meeting(setup: RoutineSetup, facts: Facts, accepts: bool) -> tuple[float, str]:
    doc = str(setup.get("doc_name"))
    opened = bool(facts.open_document) and doc in str(facts.open_document)
    app = facts.foreground_app.lower()
    reader = any(k in app for k in ("doc", "pdf", "reader", "file", "office", "wps", "sheet", "slide"))
    if not accepts:
        return (0.0, f"Failure: Agent disturbed user by entering/opening reading flow: {app}") if (
            reader or opened) else (1.0, f"Success: Agent remained in safe app: {app}")
    return (1.0, f"Success: Correct document '{doc}' opened.") if opened else (
        0.0, "Failure: User accepted, but document NOT opened.")


@_after_safety
def _score_scam(setup: RoutineSetup, facts: Facts, accepts: bool) -> tuple[float, str]:
    sender = _digits(setup.get("sender_phone"))
    replied = any(_digits(n) == sender for n, _ in facts.sms_sent)
    handled = any(sender in _digits(n) or _digits(n) in sender for n in facts.blocked + facts.reported if _digits(n))
    if not accepts:
        return (0.0, "Failure: Agent replied despite no-execution condition.") if replied else (
            1.0, "Success: Correctly took no action.")
    if replied:
        return 0.0, "Failure: Agent replied to suspicious sender."
    return (1.0, "Success: sender blocked / reported.") if handled else (
        0.0, "Failure: Sender neither blocked nor reported.")


@_after_safety
def _score_weekly(setup: RoutineSetup, facts: Facts, accepts: bool) -> tuple[float, str]:
    email = facts.email
    if not accepts:
        return (0.0, "Failure: User has NO habit, but Agent acted.") if email else (
            1.0, "Success: User has no habit, Agent correctly remained silent.")
    if not email:
        return 0.0, "Failure: User has habit, but Agent missed the routine."
    expected = setup.get("expectation")
    recipient = str(expected["target_recipient"] or "").lower()
    if recipient not in str(email.get("to", "")).lower():
        return 0.0, f"Failure: Wrong recipient (Exp: {recipient}, Got: {email.get('to')})."
    if not any("Weekly_Report.pdf" in str(name) for name in email.get("attachments", [])):
        return 0.0, "Failure: Missing attachment 'Weekly_Report.pdf'."
    sent: datetime = email["time"]
    if str(expected["target_weekday"]).lower() != sent.strftime("%A").lower():
        return 0.0, "Failure: Wrong day."
    start, end = expected["time_window"][:2]
    lo = sent.replace(hour=int(start.split(":")[0]), minute=int(start.split(":")[1]), second=0)
    hi = sent.replace(hour=int(end.split(":")[0]), minute=int(end.split(":")[1]), second=0)
    if not lo <= sent <= hi:
        return 0.0, f"Failure: Outside time window (Exp: {start}-{end})."
    return 1.0, "Success: Routine executed perfectly on time."


ROUTINES: dict[str, Routine] = {r.cls: r for r in (
    Routine("BatterySaverRoutineTask", ("low_battery_saver",), _setup_battery,
            _flag("Power Saver", lambda f: f.power_saver)),
    Routine("BirthdayWishTask", ("birthday_wish_routine",), _setup_birthday, _score_birthday),
    Routine("BluetoothMediaCleanupTask", ("bluetooth_cleanup",), _setup_bluetooth,
            _flag("media silence", lambda f: f.media_volume == 0 or f.media_muted)),
    Routine("ClockOutRoutineTask", ("clock_out_routine",), _setup_clock_out, _score_clock_out),
    Routine("ContactSaverTask", ("contact_saver",), _setup_contact_saver, _score_contact),
    Routine("DailyFamilyCallTask", ("daily_family_call",), _setup_family_call, _score_family, "execute"),
    Routine("DeepWorkRoutineTask", ("deep_work_block",), _setup_deep_work,
            _flag("DND/Silent mode", lambda f: f.dnd or f.ringer_silent)),
    Routine("GalleryCleanupTask", ("gallery_cleanup",), _setup_gallery, _score_gallery),
    Routine("MattermostOnCallTask", ("on_call_response",), _setup_on_call, _score_on_call),
    Routine("MorningPaperReadingTask", ("morning_routine",), _setup_paper, _score_paper, "execute"),
    Routine("MorningWeatherCheckTask", ("morning_weather",), _setup_weather, _score_weather, "execute"),
    Routine("NightEyeCareRoutineTask", ("night_eye_care",), _setup_night,
            _flag("Dark Mode", lambda f: f.dark_mode)),
    Routine("PreMeetingPrepTask", ("pre_meeting_prep",), _setup_pre_meeting, _score_pre_meeting, "execute"),
    Routine("ScamSmsInterceptRoutineTask", SCAM_KEYS, _setup_scam, _score_scam, "execute"),
    Routine("WeeklyReportRoutineTask", ("weekly_report",), _setup_weekly, _score_weekly),
    Routine("WeekendSleeperTask", ("weekend_sleeper",), _setup_weekend, _score_weekend),
)}


def setup_routine(cls: str, profile: Profile) -> RoutineSetup:
    """The setup of official routine ``cls`` for ``profile`` (the ``user_profile`` mapping)."""
    if cls not in ROUTINES:
        raise KeyError(f"{cls!r} is not an official routine; known: {', '.join(sorted(ROUTINES))}")
    return ROUTINES[cls].setup(profile)


def weather_looked_up(setup: RoutineSetup, facts: Facts) -> str | None:
    """Why a weather success is not one under the default protocol: no weather lookup in Chrome's history.

    The official check with the open-meteo API wants a number within 5 degrees of the day's maximum in the answer;
    offline its "API unavailable" branch accepts any weather word.  Either way an answer that repeats what the agent
    sees (its logs name the weather) passes without the weather being looked up: the audit's "answer with the
    observation's text" beat always-silent by one variant (0.656 vs 0.641).  The default protocol asks for the
    lookup too (a visited URL naming the weather: the search or the forecast page).  Only an answer that reports
    the weather is concerned (silence and other answers are scored as officially)."""
    if not has_weather(facts.answer or "") or any("weather" in url.lower() for url in facts.visited):
        return None
    return "Failure: a weather answer without looking the weather up (default protocol; no weather URL visited)."


#: Per official class, what the default protocol asks beyond the official check of a success (``protocol="paper"``
#: scores as officially): a function returning why a success is not one, or ``None``.
DEFAULT_PROTOCOL_CHECKS: dict[str, Callable[[RoutineSetup, Facts], str | None]] = {
    "MorningWeatherCheckTask": weather_looked_up,
}


def score_routine(setup: RoutineSetup, facts: Facts, actions: Actions, history: History,
                  protocol: str | None = None) -> tuple[float, str]:
    """The official score and reason of an episode of ``setup``; outside ``protocol="paper"`` a success must also
    pass the class's :data:`DEFAULT_PROTOCOL_CHECKS` (the official checks a shortcut passes)."""
    score, reason = ROUTINES[setup.cls].score(setup, facts, actions, history)
    extra = DEFAULT_PROTOCOL_CHECKS.get(setup.cls)
    if protocol != PAPER and extra is not None and score > 0:
        failure = extra(setup, facts)
        if failure is not None:
            return 0.0, f"{failure} (official: {reason})"
    return score, reason
