"""KnowU user activity logs: loading, rendering for the agent, and the seeded generator of the shipped logs.

A log file is a JSON list of entries ``{"time", "location", "action", "label", "category"}`` where ``label`` is
``"signal"`` (behaviour that reveals a habit or preference) or ``"noise"`` (irrelevant events).  The noisy variant
mixes noise events into the clean log so that 25% of its entries are noise.  The agent sees only
``[time] (location) action`` (:func:`render_entry`): never the label or the category.

:func:`load_logs` takes a path to a log file or a role name; a role is looked up in ``data_dir``,
``$PERSONAL_ENVS_DATA`` (``knowu/user_logs``, ``user_logs``, ``logs``) and the shipped logs, as ``<role>.json``
(``source="clean"``) or ``<role>_noise_25pct.json`` (``source="noise"``).

The shipped logs are produced by :func:`generate_logs` from each shipped profile (its habits and preferences plus a
pool of noise events written for this project); ``python -m personal_envs.knowu.logs`` rewrites them.
"""

from __future__ import annotations

import json
import os
import random
import re
import zlib
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, Literal

from personal_envs.core.errors import InputError, reraise_as
from personal_envs.core.schema import read_json, validate
from personal_envs.knowu import schema
from personal_envs.knowu.profiles import DATA_ENV, Profile, data_search_dirs, load_profile

LogSource = Literal["clean", "noise"]
SHIPPED_LOG_DIR = Path(__file__).resolve().parent / "data" / "logs"
LOG_SUBDIRS: tuple[str, ...] = ("knowu/user_logs", "user_logs", "logs", ".")
NOISE_SUFFIX = "_noise_25pct"
NOISE_FRACTION = 0.25
WEEKDAYS: tuple[str, ...] = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")


class LogError(InputError):
    """A log file that cannot be found, read or checked against :mod:`personal_envs.knowu.schema` (the message names
    the file and the field)."""


@dataclass(frozen=True)
class LogEntry:
    """One logged user action.  ``label`` and ``category`` are hidden from the agent."""

    time: str
    location: str
    action: str
    label: str = "signal"
    category: str = ""

    def render(self) -> str:
        """The agent-visible line ``[time] (location) action``."""
        return render_entry(self)

    def to_dict(self) -> dict[str, str]:
        return asdict(self)


def render_entry(entry: LogEntry) -> str:
    """``[time] (location) action`` with no label or category."""
    return f"[{entry.time}] ({entry.location}) {entry.action}"


def render_logs(entries: Sequence[LogEntry]) -> str:
    """All entries, one rendered line each."""
    return "\n".join(render_entry(entry) for entry in entries)


def parse_logs(document: Any, source: str = "<logs>") -> list[LogEntry]:
    """Entries from a parsed JSON document (a list, or a mapping with ``logs``/``entries``).

    Extra keys are ignored, missing ``label``/``category``/``location`` become ``""`` (``label`` defaults to
    ``"signal"``); entries without an ``action`` are skipped; the fields present must be text
    (:data:`~personal_envs.knowu.schema.LogEntries`).

    Raises:
        LogError: the document is not a list of entries, or an entry has a field of the wrong type.
    """
    if isinstance(document, dict):
        document = document.get("logs", document.get("entries"))
    if not isinstance(document, list):
        raise LogError(f"{source}: a log is a JSON list of entries (or an object holding one under 'logs'), got "
                       f"a {type(document).__name__}")
    with reraise_as(LogError):
        validate(schema.LogEntries, document, source)
    entries: list[LogEntry] = []
    for item in document:
        if not item.get("action"):
            continue
        entries.append(LogEntry(
            time=str(item.get("time", "") or ""),
            location=str(item.get("location", "") or ""),
            action=str(item["action"]),
            label=str(item.get("label", "signal") or "signal"),
            category=str(item.get("category", "") or ""),
        ))
    return entries


def read_log_file(path: str | os.PathLike[str]) -> list[LogEntry]:
    """Read one JSON log file."""
    file = Path(path)
    with reraise_as(LogError):
        document = read_json(file, "log file")
    return parse_logs(document, str(file))


def log_dirs(data_dir: str | os.PathLike[str] | None = None) -> list[Path]:
    """Directories searched for role logs, in order (existing ones only)."""
    return data_search_dirs(data_dir, LOG_SUBDIRS, SHIPPED_LOG_DIR)


def log_file_name(role: str, source: LogSource = "clean") -> str:
    """``<role>.json`` or ``<role>_noise_25pct.json``."""
    if source not in ("clean", "noise"):
        raise LogError(f"log source must be 'clean' or 'noise', got {source!r}")
    return f"{role}{NOISE_SUFFIX if source == 'noise' else ''}.json"


def load_logs(path_or_role: str | os.PathLike[str], source: LogSource = "clean",
              data_dir: str | os.PathLike[str] | None = None) -> list[LogEntry]:
    """Load a log by file path or by role name (``source`` picks the clean or the 25%-noise variant)."""
    text = os.fspath(path_or_role)
    as_path = Path(text).expanduser()
    if as_path.suffix == ".json" or os.sep in text or as_path.is_file():
        if not as_path.is_file():
            raise LogError(f"log file {as_path} does not exist")
        return read_log_file(as_path)
    name = log_file_name(text, source)
    for directory in log_dirs(data_dir):
        candidate = directory / name
        if candidate.is_file():
            return read_log_file(candidate)
    raise LogError(f"no {source} log for role {text!r} ({name}) in {[str(d) for d in log_dirs(data_dir)]}; "
                   f"pass a path to a log JSON or set {DATA_ENV}")


# ---------------------------------------------------------------------------------------------- generator
_NOISE_EVENTS: tuple[tuple[str, str], ...] = (
    ("accidental_tap", "opened the Calculator by accident and closed it right away"),
    ("spam_sms", "received a promotional SMS about a gym membership and left it unread"),
    ("spam_call", "declined a call from an unknown number marked as telemarketing"),
    ("system_prompt", "dismissed a system update prompt without reading it"),
    ("app_popup", "closed a pop-up advert in a shopping app without tapping it"),
    ("random_search", "searched for the lyrics of a song heard in a shop, then closed the browser"),
    ("wifi_toggle", "turned Wi-Fi off and on again because a page would not load"),
    ("storage_warning", "saw a storage-almost-full notice and swiped it away"),
    ("weather_glance", "glanced at the weather widget on the home screen"),
    ("wrong_number", "got an SMS meant for someone else about a car wash booking and ignored it"),
    ("map_wander", "zoomed around the map of a city abroad for a minute"),
    ("calendar_spam", "removed a spam invitation from the calendar"),
    ("notification_clear", "cleared a pile of app notifications at once"),
    ("video_scroll", "watched two short videos a friend had forwarded"),
    ("flashlight", "turned the flashlight on to find a dropped key"),
    ("screenshot_misfire", "took an accidental screenshot of the lock screen"),
)

_DAY_ALIASES = {d[:3].lower(): d for d in WEEKDAYS}


def _days_of(trigger: dict[str, Any]) -> set[str]:
    raw = trigger.get("days", trigger.get("day_of_week"))
    if raw is None:
        return set()
    items = raw if isinstance(raw, list) else [raw]
    days: set[str] = set()
    for item in items:
        full = _DAY_ALIASES.get(str(item).strip().lower()[:3])
        if full:
            days.add(full)
    return days


def _clock_of(trigger: dict[str, Any]) -> tuple[int, int] | None:
    for key in ("time", "check_time"):
        value = trigger.get(key)
        if isinstance(value, str) and re.fullmatch(r"\d{1,2}:\d{2}", value.strip()):
            hour, minute = value.strip().split(":")
            return int(hour), int(minute)
    span = trigger.get("time_range")
    if isinstance(span, list) and span and isinstance(span[0], str) and ":" in span[0]:
        hour, minute = span[0].split(":")[:2]
        return int(hour), int(minute)
    return None


def _short(value: Any) -> str:
    """The head of a preference string: text before the first parenthesis or semicolon."""
    text = value[0] if isinstance(value, list) and value else value
    text = str(text or "")
    return re.split(r"[(;]", text)[0].strip().rstrip(",.")


def _preference_signals(profile: Profile) -> list[tuple[str, tuple[int, int], str, str]]:
    """(category, (hour, minute), location key, phrase) of preference-revealing events."""
    p = profile.first
    signals: list[tuple[str, tuple[int, int], str, str]] = []
    delivery = _short(p("preferences.diet.delivery_platform"))
    cuisines = p("preferences.diet.cuisine_preference") or []
    if delivery:
        for cuisine in (cuisines[:3] if isinstance(cuisines, list) else [cuisines]):
            signals.append(("preference_diet", (12, 5), "work",
                            f"opened {delivery} and ordered {_short(cuisine)} for lunch"))
    remark = p("preferences.diet.delivery_general_remark")
    if delivery and remark:
        signals.append(("preference_diet", (19, 20), "home",
                        f"ordered dinner on {delivery} with the note '{remark}'"))
    dislikes = p("preferences.diet.cuisine_dislike", "preferences.diet.allergies")
    if dislikes:
        signals.append(("preference_diet", (12, 40), "work",
                        f"scrolled past a restaurant and muttered about {_short(dislikes).lower()}"))
    drink = _short(p("preferences.diet.soft_drinks")).split(",")[0].strip()
    if drink:
        signals.append(("preference_diet", (15, 30), "work", f"bought a bottle of {drink} from the vending machine"))
    shop = _short(p("preferences.shopping.online_platforms.preferred"))
    pay = _short(p("preferences.shopping.payment_method"))
    if shop:
        signals.append(("preference_shopping", (21, 10), "home",
                        f"browsed {shop} and checked out a small order with {pay or 'the usual payment'}"))
    courier = _short(p("preferences.shopping.courier_preference"))
    if shop and courier:
        signals.append(("preference_shopping", (21, 35), "home",
                        f"left a note on a {shop} order asking the seller to ship with {courier}"))
    shoe = p("preferences.shopping.shoe")
    if isinstance(shoe, dict) and shoe.get("shoe_size_eu"):
        signals.append(("preference_shopping", (22, 0), "home",
                        f"saved {shoe.get('shoe_color', '')} {shoe.get('style', 'shoes')} in EU size "
                        f"{shoe['shoe_size_eu']} to the wishlist"))
    clothes_avoid = p("preferences.shopping.clothes.avoid")
    if clothes_avoid:
        signals.append(("preference_shopping", (22, 15), "home",
                        f"removed an item from the cart, grumbling: '{_short(clothes_avoid).lower()} - not my style'"))
    commute = _short(p("preferences.travel.daily_commute"))
    if commute:
        signals.append(("commute", (8, 10), "home", f"left for {profile.location_label('work')} by {commute}"))
        signals.append(("commute", (18, 20), "work", f"went home by {commute}"))
    rain = _short(p("preferences.travel.rain"))
    if rain:
        signals.append(("commute", (8, 5), "home", f"saw it was raining; chose: {rain}"))
    late = _short(p("preferences.travel.late_night"))
    if late:
        signals.append(("commute", (23, 10), "work", f"finished late; the way home: {late[0].lower()}{late[1:]}"))
    visibility = p("preferences.social.social_media.default_visibility")
    interests = p("preferences.social.interests") or []
    if visibility:
        topic = interests[0] if isinstance(interests, list) and interests else "the day"
        signals.append(("social_media", (20, 30), "home",
                        f"posted on Mastodon about {topic} with visibility set to {visibility}"))
    style = _short(p("preferences.social.communication_style"))
    if style:
        signals.append(("communication", (10, 45), "work", f"answered a group message; tone: {style.lower()}"))
    sort = p("preferences.apps.files.sort")
    if sort:
        signals.append(("file_management", (16, 10), "work", f"sorted the Download folder in Files by {sort}"))
    share = p("preferences.social.share.photos")
    if share:
        signals.append(("photo_sharing", (20, 50), "home", f"{_short(share)[0].lower()}{_short(share)[1:]}"))
    return signals


def _location_text(profile: Profile, key: str) -> str:
    return profile.location_address(key) or profile.location_label(key)


def generate_logs(profile: Profile, *, seed: int = 0, days: int = 28, start: str = "2026-01-05",
                  noise_fraction: float = NOISE_FRACTION) -> tuple[list[LogEntry], list[LogEntry]]:
    """Seeded (clean, noisy) logs for ``profile``: habit and preference signals plus noise events.

    Habits fire on their trigger days (or on a random third of the days when the trigger names none) near their
    trigger time; each preference signal appears on 2-3 random days.  The noisy log adds noise events until they
    make up ``noise_fraction`` of it.  Same profile and seed, same logs.
    """
    rng = random.Random(seed * 1_000_003 + zlib.crc32(profile.role.encode("utf-8")))
    pronoun = "she" if str(profile.identity.get("gender", "")).lower().startswith("f") else "he"
    first_day = datetime.fromisoformat(start)
    clean: list[LogEntry] = []

    def stamp(day: datetime, hour: int, minute: int) -> str:
        jitter = rng.randint(-6, 6)
        moment = day.replace(hour=hour % 24, minute=minute % 60) + timedelta(minutes=jitter, seconds=rng.randint(0, 59))
        return moment.strftime("%Y-%m-%dT%H:%M:%S+08:00")

    def line(moment: str, phrase: str) -> str:
        return f"At {moment[11:16]}, {pronoun} {phrase}."

    for habit in profile.habits.values():
        phrases = [str(x) for x in habit.extra.get("log_phrases", []) or []] or [habit.description.rstrip(".").lower()]
        trigger = dict(habit.trigger)
        habit_days = _days_of(trigger)
        clock = _clock_of(trigger) or (rng.randint(8, 21), rng.choice((0, 15, 30, 45)))
        for offset in range(days):
            day = first_day + timedelta(days=offset)
            fires = day.strftime("%A") in habit_days if habit_days else rng.random() < 0.2
            if not fires or (len(habit_days) >= 5 and rng.random() < 0.5):
                continue
            location = "work" if day.weekday() < 5 and 9 <= clock[0] < 18 else "home"
            moment = stamp(day, *clock)
            clean.append(LogEntry(moment, _location_text(profile, location), line(moment, rng.choice(phrases)),
                                  "signal", habit.name))
    for category, (hour, minute), location, phrase in _preference_signals(profile):
        for offset in rng.sample(range(days), k=rng.randint(2, 3)):
            day = first_day + timedelta(days=offset)
            moment = stamp(day, hour, minute)
            clean.append(LogEntry(moment, _location_text(profile, location), line(moment, phrase), "signal", category))
    clean.sort(key=lambda entry: entry.time)

    noise_count = round(len(clean) * noise_fraction / (1.0 - noise_fraction)) if noise_fraction < 1 else 0
    places = [key for key in profile.locations] or ["home"]
    noise: list[LogEntry] = []
    for _ in range(noise_count):
        category, phrase = rng.choice(_NOISE_EVENTS)
        day = first_day + timedelta(days=rng.randrange(days))
        moment = stamp(day, rng.randint(7, 23), rng.randint(0, 59))
        noise.append(LogEntry(moment, _location_text(profile, rng.choice(places)), line(moment, phrase),
                              "noise", category))
    noisy = sorted(clean + noise, key=lambda entry: entry.time)
    return clean, noisy


def write_shipped_logs(roles: Sequence[str] = ("researcher", "developer", "student", "grandma"), seed: int = 0,
                       out_dir: Path = SHIPPED_LOG_DIR) -> list[Path]:
    """Regenerate the shipped logs of ``roles`` from the shipped profiles; returns the files written."""
    out_dir.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    for role in roles:
        clean, noisy = generate_logs(load_profile(role), seed=seed)
        for source, entries in (("clean", clean), ("noise", noisy)):
            path = out_dir / log_file_name(role, source)  # type: ignore[arg-type]
            path.write_text(json.dumps([e.to_dict() for e in entries], ensure_ascii=False, indent=1) + "\n",
                            encoding="utf-8")
            written.append(path)
    return written


if __name__ == "__main__":  # pragma: no cover - maintenance entry point
    for written_path in write_shipped_logs():
        print(written_path)
