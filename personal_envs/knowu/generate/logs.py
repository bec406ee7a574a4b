"""A generated persona's logs: a month of phone use with evidence of its habits and preferences, and a noisy copy.

Clean logs (``{time, location, action, label, category}`` as the official logs) hold, per applying habit, entries on
the habit's trigger days at the habit's *strength* (weak: 2-3, medium: 5-8, strong: 10-14 on daily habits; fewer
on weekly ones, where a month has only four or five trigger days); 2-4 entries per preference a rubric reads (the
app used, the brand bought, the mode taken...); with ``decoy_rate``, one near-miss entry for a habit that does not
apply (dark mode tried once at noon), so "any mention means act" does not pay; and everyday filler up to 100-150
entries.  The noisy file adds noise entries (25 % of the file) from official-style noise categories, interleaved by
time.  Locations are the persona's addresses.
"""

from __future__ import annotations

import random
import re
from collections.abc import Mapping
from datetime import date, datetime, timedelta
from typing import Any

Entry = dict[str, Any]
START = date(2026, 1, 1)
STRENGTHS: dict[str, tuple[int, int]] = {"weak": (2, 3), "medium": (5, 8), "strong": (10, 14)}

#: Habit -> (trigger weekdays (0 = Monday; empty: every day), first minute of the day, last minute, evidence).
EVIDENCE: dict[str, tuple[tuple[int, ...], int, int, str]] = {
    "low_battery_saver": ((), 11 * 60, 18 * 60, "with the battery below 20%, {p} turned on Battery Saver in Settings"),
    "weekend_sleeper": ((4,), 22 * 60 + 50, 23 * 60 + 20, "{p} turned off the 07:30 workday alarm in Clock for the "
                                                          "weekend"),
    "bluetooth_cleanup": ((), 8 * 60, 21 * 60, "when the earbuds disconnected, {p} turned the media volume down to 0"),
    "birthday_wish_routine": ((), 8 * 60, 8 * 60 + 20, "{p} texted a birthday wish as soon as the Calendar reminder "
                                                       "of a friend's birthday showed"),
    "clock_out_routine": ((0, 1, 2, 3, 4), 17 * 60 + 55, 18 * 60 + 5, "{p} posted 'Clocking out for today' in "
                                                                       "#{channel} on Mattermost"),
    "contact_saver": ((), 10 * 60, 20 * 60, "{p} saved a new number from an SMS straight into Contacts"),
    "daily_family_call": ((0, 1, 2, 3, 4), 19 * 60 + 30, 20 * 60, "{p} called {relative} from Contacts"),
    "deep_work_block": ((0, 1, 2, 3, 4), 8 * 60 + 55, 9 * 60 + 5, "{p} turned on Do Not Disturb and declined a "
                                                                  "morning meeting invite"),
    "gallery_cleanup": ((6,), 20 * 60 + 55, 21 * 60 + 10, "{p} deleted old screenshots in Gallery"),
    "on_call_response": ((), 19 * 60, 23 * 60, "{p} answered a monitoring alert with 'ack' in #{on_call_channel} "
                                               "within a minute"),
    "morning_routine": ((0, 1, 2, 3, 4), 8 * 60 + 25, 8 * 60 + 30, "{p} opened alphaXiv and Hugging Face Papers in "
                                                                   "Chrome to skim new papers"),
    "morning_weather": ((), 8 * 60 + 10, 8 * 60 + 20, "{p} searched '{city} Weather Today' in Chrome"),
    "night_eye_care": ((), 22 * 60 + 55, 23 * 60 + 25, "{p} switched the phone to dark mode"),
    "pre_meeting_prep": ((0, 1, 2, 3, 4), 9 * 60 + 50, 9 * 60 + 58, "a few minutes before a meeting {p} opened the "
                                                                    "meeting notes PDF in Files"),
    "scam_sms_intercept": ((), 9 * 60, 21 * 60, "{p} blocked a number that sent a fake parcel SMS"),
    "weekly_report": ((4,), 16 * 60 + 55, 17 * 60 + 10, "{p} mailed the weekly report PDF to {manager}"),
}
#: Habit -> a near miss that does not show the habit.
DECOYS: dict[str, str] = {
    "low_battery_saver": "{p} opened Battery settings to check the usage chart, then went back",
    "weekend_sleeper": "{p} snoozed the 07:30 alarm once on a Tuesday",
    "bluetooth_cleanup": "{p} paired a friend's speaker for one song",
    "birthday_wish_routine": "{p} looked at a birthday photo album",
    "clock_out_routine": "{p} read the Mattermost channels at lunch without posting",
    "contact_saver": "{p} ignored a text from an unknown number",
    "daily_family_call": "{p} missed a call from an unknown number",
    "deep_work_block": "{p} turned on Do Not Disturb during a film at the weekend",
    "gallery_cleanup": "{p} took a screenshot of a recipe",
    "on_call_response": "{p} muted a noisy Mattermost channel",
    "morning_routine": "{p} browsed the news in Chrome at lunch",
    "morning_weather": "{p} checked the weather once before a trip",
    "night_eye_care": "{p} tried dark mode for a minute at noon and switched it back",
    "pre_meeting_prep": "{p} opened a PDF after a meeting had ended",
    "scam_sms_intercept": "{p} read a delivery SMS and kept it",
    "weekly_report": "{p} drafted an email and left it in drafts",
}


def _days(weekdays: tuple[int, ...], days: int) -> list[date]:
    return [START + timedelta(days=i) for i in range(days) if not weekdays or (START + timedelta(days=i)).weekday()
            in weekdays]


def _entry(rng: random.Random, day: date, low: int, high: int, text: str, where: str, category: str,
           label: str = "signal") -> Entry:
    minute = rng.randint(low, max(low, high))
    moment = datetime(day.year, day.month, day.day, minute // 60 % 24, minute % 60, rng.randint(0, 59))
    return {"time": moment.strftime("%Y-%m-%dT%H:%M:%S+08:00"), "location": where,
            "action": f"At {moment:%H:%M}, {text}.", "label": label, "category": category}


def evidence_count(rng: random.Random, strength: str, trigger_days: int) -> int:
    """How many entries show a habit of ``strength`` (fewer when the month has few trigger days)."""
    low, high = STRENGTHS[strength]
    if trigger_days >= high:
        return rng.randint(low, high)
    return {"weak": 2, "medium": max(2, trigger_days // 2 + 1)}.get(strength, trigger_days)


def _words(user: Mapping[str, Any], pronoun: str) -> dict[str, str]:
    """The habit parameters the evidence sentences name, read from the profile's habits."""
    habits = user["habits"]

    def at(habit: str, part: str, key: str, default: str = "") -> str:
        return str(((habits.get(habit) or {}).get(part) or {}).get(key, default))

    city = re.search(r"in\s+(\w+)", str((habits.get("morning_weather") or {}).get("description", "")))
    return {"p": pronoun, "relative": at("daily_family_call", "action", "target_name"),
            "city": city.group(1) if city else "", "manager": at("weekly_report", "action", "recipient"),
            "channel": at("clock_out_routine", "action", "channel", "town-square"),
            "on_call_channel": at("on_call_response", "trigger", "channel", "devops")}


def clean_logs(rng: random.Random, profile: Mapping[str, Any], pools: Mapping[str, Any], strengths: Mapping[str, str],
               decoys: list[str], days: int = 31) -> tuple[list[Entry], dict[str, int]]:
    """The clean month of ``profile`` and the evidence count per applying habit."""
    user = profile["user_profile"]
    pronoun = "she" if user["identity"]["gender"] == "female" else "he"
    home, work = user["locations"]["home"]["address"], user["locations"]["work"]["address"]
    words = _words(user, pronoun)
    entries: list[Entry] = []
    counts: dict[str, int] = {}
    for key, strength in strengths.items():
        weekdays, low, high, text = EVIDENCE[key]
        pool = _days(weekdays, days)
        count = evidence_count(rng, strength, len(pool))
        chosen = sorted(rng.sample(pool, min(count, len(pool))))
        where = work if weekdays == (0, 1, 2, 3, 4) and low < 18 * 60 else home
        entries += [_entry(rng, day, low, high, text.format(**words), where, key) for day in chosen]
        counts[key] = len(chosen)
    for key in decoys:
        day = rng.choice(_days((), days))
        entries.append(_entry(rng, day, 12 * 60, 14 * 60, DECOYS[key].format(**words), work, "daily_life"))
    prefs = user["preferences"]
    shop = prefs["shopping"]["online_platforms"]["preferred"].split(" ")[0]
    app = prefs["diet"]["delivery_platform"].split(" ")[0]
    mode = prefs["travel"]["daily_commute"]["primary_transport"].split(" (")[0].lower()
    signals = [
        ("preference_diet", f"{pronoun} ordered lunch on {app} with the note '{prefs['diet']['delivery_general_remark']}'"),
        ("preference_diet", f"{pronoun} bought {prefs['diet']['soft_drinks'].split(',')[0]} on {shop}"),
        ("preference_shopping", f"{pronoun} ordered household items on {shop} and paid with "
                                f"{prefs['shopping']['payment_method'].split(' preferred')[0]}"),
        ("preference_travel", f"{pronoun} went to work by {mode}"),
        ("preference_social", f"{pronoun} read posts about {prefs['social']['hobby']['field_of_interest']} on Mastodon"),
        ("preference_apps", f"{pronoun} sorted Download by {prefs['apps']['files']['sort_order']} in Files"),
    ]
    for category, text in signals:
        for day in rng.sample(_days((), days), rng.randint(2, 4)):
            entries.append(_entry(rng, day, 11 * 60, 21 * 60, text, home if category == "preference_social" else work,
                                  category))
    target = rng.randint(100, 150)
    fillers: list[str] = []
    while len(entries) + len(fillers) < target:
        fillers.append(rng.choice(pools["filler"]))
    for text in fillers:
        entries.append(_entry(rng, rng.choice(_days((), days)), 7 * 60, 22 * 60, f"{pronoun} {text}",
                              rng.choice([home, work]), "daily_life"))
    entries.sort(key=lambda e: e["time"])
    return entries, counts


def noisy_logs(rng: random.Random, clean: list[Entry], profile: Mapping[str, Any], pools: Mapping[str, Any],
               days: int = 31) -> list[Entry]:
    """``clean`` plus noise entries (a quarter of the result), interleaved by time."""
    user = profile["user_profile"]
    pronoun = "she" if user["identity"]["gender"] == "female" else "he"
    places = [user["locations"]["home"]["address"], user["locations"]["work"]["address"]]
    noise: list[Entry] = []
    for _ in range(round(len(clean) / 3)):
        category = rng.choice(sorted(pools["noise"]))
        noise.append(_entry(rng, rng.choice(_days((), days)), 7 * 60, 23 * 60,
                            f"{pronoun} {rng.choice(pools['noise'][category])}", rng.choice(places), category, "noise"))
    return sorted([*clean, *noise], key=lambda e: e["time"])
