"""The simulated date and time of an official routine, as the official routine-time logic derives them.

Reimplements ``runtime/utils/routine_time.resolve_routine_datetime`` with the run date pinned: the official code
takes today's date (``datetime.now()``) and moves it to the nearest configured weekday; the project uses
:data:`RUN_DATE` in its place so every run simulates the same moment.  ``simulation_datetime`` in a profile only
gives a time of day there (its date is ignored), exactly as officially.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import date, datetime, time, timedelta
from typing import Any

from personal_envs.knowu.world import RUN_DATE as WORLD_RUN_DATE

#: The pinned "today" of every run: Friday 22 May 2026 (the date the official fixed timestamps use).
RUN_DATE: date = WORLD_RUN_DATE.date()

WEEKDAYS: dict[str, int] = {
    "mon": 0, "monday": 0, "tue": 1, "tues": 1, "tuesday": 1, "wed": 2, "wednesday": 2, "thu": 3, "thur": 3,
    "thurs": 3, "thursday": 3, "fri": 4, "friday": 4, "sat": 5, "saturday": 5, "sun": 6, "sunday": 6,
}
_DATETIME_FORMATS = ("%Y-%m-%d %H:%M:%S", "%Y-%m-%d %H:%M", "%m%d%H%M%Y.%S")


def run_now(run_date: date = RUN_DATE) -> datetime:
    """Midnight of the pinned run date (the official code's ``datetime.now()``)."""
    return datetime.combine(run_date, time(0, 0))


def parse_weekdays(raw: Any) -> set[int]:
    """Weekday numbers of a ``day_of_week`` / ``days`` value (unknown names are ignored)."""
    if raw is None:
        return set()
    values = raw if isinstance(raw, list | tuple | set) else [raw]
    return {WEEKDAYS[str(v).strip().lower()] for v in values if str(v).strip().lower() in WEEKDAYS}


def parse_datetime(raw: Any) -> datetime | None:
    """A full date and time, or ``None``."""
    if isinstance(raw, datetime):
        return raw.replace(microsecond=0)
    if isinstance(raw, time):
        return None
    text = str(raw or "").strip()
    for fmt in _DATETIME_FORMATS:
        try:
            return datetime.strptime(text, fmt)
        except ValueError:
            continue
    return None


def parse_time(raw: Any) -> time | None:
    """A time of day from ``HH:MM[:SS]`` anywhere in the text, or from a full datetime."""
    if isinstance(raw, datetime):
        return raw.time().replace(microsecond=0)
    if isinstance(raw, time):
        return raw.replace(microsecond=0)
    text = str(raw or "").strip()
    if not text:
        return None
    full = parse_datetime(text)
    if full:
        return full.time()
    match = re.search(r"\b(\d{1,2}):(\d{2})(?::(\d{2}))?\b", text)
    if not match:
        return None
    hour, minute, second = int(match.group(1)), int(match.group(2)), int(match.group(3) or 0)
    if hour > 23 or minute > 59 or second > 59:
        return None
    return time(hour, minute, second)


def nearest_weekday(base: date, weekdays: set[int]) -> date:
    """The first date from ``base`` on (within a week) whose weekday is in ``weekdays``."""
    for offset in range(7):
        candidate = base + timedelta(days=offset)
        if candidate.weekday() in weekdays:
            return candidate
    return base


def resolve_routine_datetime(trigger: Mapping[str, Any] | None, default_time: str, now: datetime | None = None
                             ) -> datetime:
    """The official routine datetime for a habit trigger (``simulation_datetime`` / ``time`` / ``time_range``
    start / ``default_time``), on the pinned run date moved to the nearest configured weekday."""
    trigger = trigger or {}
    base = now or run_now()
    weekdays = parse_weekdays(trigger.get("day_of_week") or trigger.get("days"))
    raw = trigger.get("simulation_datetime") or trigger.get("datetime")
    full = parse_datetime(raw)
    sim_time = full.time() if full else parse_time(raw)
    span = trigger.get("time_range")
    resolved = (sim_time or parse_time(trigger.get("time"))
                or (parse_time(span[0]) if isinstance(span, list | tuple) and span else None)
                or parse_time(default_time) or time(0, 0))
    day = nearest_weekday(base.date(), weekdays) if weekdays else base.date()
    return datetime.combine(day, resolved)


def gallery_datetime(trigger: Mapping[str, Any]) -> datetime:
    """``GalleryCleanupTask``'s own rule: a full ``simulation_datetime`` wins; else the first configured weekday
    of the week of 2026-01-01 at ``time`` / ``time_range`` start (17:00 by default)."""
    custom = str(trigger.get("simulation_datetime") or "").strip()
    for fmt in ("%Y-%m-%d %H:%M:%S", "%Y-%m-%d %H:%M"):
        try:
            return datetime.strptime(custom, fmt)
        except ValueError:
            continue
    base = datetime(2026, 1, 1)
    span = trigger.get("time_range") or ["17:00"]
    text = str(trigger.get("time") or span[0]).strip()
    hour, minute = (int(x) for x in text.split(":")) if re.match(r"^\d{2}:\d{2}$", text) else (17, 0)
    raw_day = trigger.get("day_of_week") or trigger.get("days") or []
    target = (raw_day[0] if isinstance(raw_day, list) else raw_day) or "mon"
    delta = (WEEKDAYS.get(str(target).lower(), 0) - base.weekday()) % 7
    return (base + timedelta(days=delta)).replace(hour=hour, minute=minute, second=0)
