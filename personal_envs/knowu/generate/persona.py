"""One generated persona: a profile in the official sub-structures, with the routine habits chosen for it.

The profile is written in the shapes the readers read (the preference rubric readings, the routine setups, the
official user-context hooks): identity, locations, digital context, the applying habits with their parameters,
preferences (diet, shopping, travel, apps, social), decision criteria and a social graph.  Values come from the
word pools of ``data/generator.yaml``; nothing is copied from the official roles.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from typing import Any

#: The 16 routine habits, by the key the official routine reads.
HABITS: tuple[str, ...] = (
    "low_battery_saver", "weekend_sleeper", "bluetooth_cleanup", "birthday_wish_routine", "clock_out_routine",
    "contact_saver", "daily_family_call", "deep_work_block", "gallery_cleanup", "on_call_response",
    "morning_routine", "morning_weather", "night_eye_care", "pre_meeting_prep", "scam_sms_intercept",
    "weekly_report")
WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"]
Pools = Mapping[str, Any]


def _phone(rng: random.Random) -> str:
    return f"+86 1{rng.choice('3589')}{rng.randint(0, 9)}-{rng.randint(1000, 9999)}-{rng.randint(1000, 9999)}"


def _digits(number: str) -> str:
    return "".join(ch for ch in number if ch.isdigit())


def _place(rng: random.Random, pools: Pools, city: Mapping[str, Any], label: str, building: bool) -> dict[str, Any]:
    street = rng.choice(pools["streets"])
    site = rng.choice(pools["buildings"] if building else pools["compounds"])
    unit = f"Unit {rng.randint(1, 30)}-{rng.randint(101, 2808)}, " if not building else ""
    return {"address": f"{unit}{site}, {rng.randint(1, 299)} {street}, {rng.choice(city['districts'])}, {city['name']}",
            "label": label, "latitude": round(city["lat"] + rng.uniform(-0.08, 0.08), 4),
            "longitude": round(city["lon"] + rng.uniform(-0.08, 0.08), 4)}


def _habit(key: str, rng: random.Random, pools: Pools, person: Mapping[str, Any]) -> dict[str, Any]:
    """The habit ``key`` with the parameters the official routine setup reads."""
    builders: dict[str, Callable[[], dict[str, Any]]] = {
        "low_battery_saver": lambda: {"description": "Turns on battery saver when the battery runs low.",
                                      "trigger": {"battery_below": rng.choice([15, 20])},
                                      "action": {"settings": ["battery_saver: on"]}},
        "weekend_sleeper": lambda: {"description": "Sleeps in at weekends: the workday alarm goes off on Friday night.",
                                    "trigger": {"day_of_week": "Friday", "time": "23:00"},
                                    "action": {"alarm": "turn off the 07:30 workday alarm"}},
        "bluetooth_cleanup": lambda: {"description": "Mutes media when the earbuds disconnect.",
                                      "trigger": {"event": "bluetooth headset disconnected"},
                                      "action": {"settings": ["media_volume: 0"]}},
        "birthday_wish_routine": lambda: {
            "description": f"Texts {person['friend']} on their birthday.",
            "trigger": {"check_time": "08:00"},
            "action": {"recipient": {"name": person["friend"], "phone": person["friend_phone"]},
                       "content": f"Happy birthday, {person['friend'].split()[0]}! Have a great day.",
                       "calendar_event": {"date": "2026-05-22", "start": "2026-05-22 08:00:00",
                                          "end": "2026-05-22 23:59:59", "title": f"{person['friend']} Birthday"}}},
        "clock_out_routine": lambda: {
            "description": "Says goodbye to the team when leaving work.",
            "trigger": {"days": WEEKDAYS, "time": rng.choice(["17:59", "18:00"])},
            "action": {"content": "Clocking out for today, see you tomorrow!",
                       "channel": rng.choice(pools["routine_channels"])}},
        "contact_saver": lambda: {"description": "Saves new numbers right away when someone texts their new number.",
                                  "trigger": {"event": "SMS with a new number"}, "action": {"save": "contact"}},
        "daily_family_call": lambda: {
            "description": f"Calls {person['relative']} every evening.",
            "trigger": {"day_of_week": WEEKDAYS, "time_range": ["19:30", "20:00"]},
            "action": {"target_name": person["relative"], "target_phone": _digits(person["relative_phone"])}},
        "deep_work_block": lambda: {
            "description": "Keeps weekday mornings for focused work: do not disturb, no meetings.",
            "trigger": {"day_of_week": WEEKDAYS, "time_range": ["09:00", "11:30"]},
            "action": {"settings": ["do_not_disturb: on"], "auto_decline_meetings": True}},
        "gallery_cleanup": lambda: {
            "description": "Clears old screenshots every Sunday evening.",
            "trigger": {"day_of_week": "Sunday", "time": "21:00"},
            "action": {"operation": "delete_older_than", "cleanup_policy": {"older_than_days": rng.choice([7, 14])}}},
        "on_call_response": lambda: {
            "description": "Acknowledges on-call alerts right away.",
            "alert_message": person["on_call"]["alert"],
            "trigger": {"team": "Platform", "channel": rng.choice(pools["routine_channels"]),
                        "keywords": list(person["on_call"]["keywords"]), "time": "20:00"},
            "action": {"reply_keywords": list(person["on_call"]["reply"])}},
        "morning_routine": lambda: {"description": "Reads the day's AI papers before work.",
                                    "trigger": {"time_range": ["08:25", "08:30"]},
                                    "action": {"open": ["alphaXiv", "Hugging Face Papers"]}},
        "morning_weather": lambda: {
            "description": f"Checks the weather in {person['weather_city']} every morning.",
            "trigger": {"time_range": ["08:10", "08:20"]},
            "action": {"sequence": ["open Chrome", f"search '{person['weather_city']} Weather Today'"]}},
        "night_eye_care": lambda: {"description": "Switches to dark mode late in the evening.",
                                   "trigger": {"time_range": ["22:55", "23:30"]},
                                   "action": {"settings": ["dark_mode: on"]}},
        "pre_meeting_prep": lambda: {
            "description": "Opens the meeting notes just before a meeting starts.",
            "trigger": {"meeting_title": person["meeting"], "meeting_start": "2026-05-22 10:00:00",
                        "meeting_end": "2026-05-22 11:00:00", "reminder_minutes": 5},
            "action": {"file_name": f"{person['meeting'].replace(' ', '_')}_Notes.pdf"}},
        "scam_sms_intercept": lambda: {
            "description": "Blocks scam texts at once.",
            "trigger": {"sender_phone": person["scam_number"], "sms_content": person["scam_text"]},
            "action": {"block_number": person["scam_number"]}},
        "weekly_report": lambda: {
            "description": "Mails the weekly report on Friday afternoon.",
            "trigger": {"day_of_week": "Friday", "time_range": ["16:55", "17:30"]},
            "action": {"recipient": person["manager_email"]}},
    }
    return builders[key]()


def make_persona(rng: random.Random, pools: Pools, applying: set[str]) -> dict[str, Any]:
    """A profile document (``{"user_profile": ...}``) whose habits are exactly ``applying``."""
    gender = rng.choice(["female", "male"])
    given, family = rng.choice(pools["given_names"][gender]), rng.choice(pools["family_names"])
    name = f"{given} {family}"
    job = rng.choice(pools["occupations"])
    city = rng.choice(pools["cities"])
    slug = f"{given}.{family}".lower()
    friend = f"{rng.choice(pools['given_names']['female' if gender == 'male' else 'male'])} " \
             f"{rng.choice(pools['family_names'])}"
    relative = rng.choice(pools["relatives"])
    person = {"friend": friend, "friend_phone": _phone(rng), "relative": relative, "relative_phone": _phone(rng),
              "weather_city": rng.choice(pools["weather_cities"]), "meeting": rng.choice(pools["meeting_titles"]),
              "on_call": rng.choice(pools["on_call"]), "scam_number": f"1069{rng.randint(10000000, 99999999)}",
              "scam_text": rng.choice(pools["scam_sms"]),
              "manager_email": f"{rng.choice(pools['family_names']).lower()}.lead@example.com"}
    shop, food = rng.sample(pools["shops"], 2), rng.sample(pools["food_apps"], 2)
    cuisine, commute, computer = rng.choice(pools["cuisines"]), rng.choice(pools["commutes"]), rng.choice(
        pools["computers"])
    photo = rng.choice(pools["photo_subjects"])
    identity = {
        "full_name": name, "nickname": given, "age": rng.randint(22, 68), "gender": gender,
        "occupation": job["title"], "employer": job["employer"] or "retired",
        "contact_info": {"phone": _phone(rng), "email_work": f"{slug}@work.example.com",
                         "email_personal": f"{slug}.{rng.randint(10, 99)}@example.com"},
        "auth_documents": {"id_card": f"{rng.randint(110000, 659999)}19{rng.randint(55, 99)}"
                                      f"{rng.randint(1, 12):02d}{rng.randint(1, 28):02d}{rng.randint(1000, 9999)}",
                           "passport": f"E{rng.randint(10000000, 99999999)}"},
    }
    habits = {key: _habit(key, rng, pools, person) for key in HABITS if key in applying}
    preferences = {
        "diet": {"delivery_platform": f"{food[0]} (preferred over {food[1]})",
                 "cuisine_preference": list(cuisine["likes"]), "special_notes": cuisine["avoid"],
                 "dinner_preference": cuisine["dinner"], "delivery_general_remark": rng.choice(pools["remarks"]),
                 "soft_drinks": rng.choice(pools["drinks"]),
                 "lunch_budget": f"about {rng.choice(pools['lunch_budgets'])} CNY"},
        "shopping": {"online_platforms": {"preferred": f"{shop[0]} (uses it for most orders)",
                                          "secondary": f"{shop[1]} (only when {shop[0]} lacks the item)"},
                     "payment_method": f"{rng.choice(pools['payments'])} preferred",
                     "courier_preference": f"{rng.choice(pools['couriers'])} (reliable tracking)",
                     "shoe": {"shoe_size_eu": rng.randint(36, 45), "shoe_color": rng.choice(pools["shoe_colors"])},
                     "clothes": rng.choice(pools["clothes"]),
                     "price_sensitivity": {"clothes_threshold": f"Skips clothes over "
                                                                f"{rng.choice(pools['clothes_thresholds'])} yuan"},
                     "electronics": {"computer_preference": {"brand": computer["brand"], "budget": computer["budget"]},
                                     "disliked_brands": list(computer["disliked"])}},
        "travel": {"daily_commute": {"primary_transport": commute["daily"]},
                   "weather_adaptation": {"rain": commute["rain"], "late_night": commute["late"]},
                   "avoid": commute["avoid"]},
        "apps": {"files": {"sort_order": rng.choice(pools["sort_orders"])}},
        "social": {"communication_style": rng.choice(pools["styles"]),
                   "social_media": {"default_visibility": rng.choice(pools["visibilities"])},
                   "hobby": {"field_of_interest": rng.choice(pools["interests"])},
                   "share": {"photos": photo["subject"]}},
    }
    social_graph = {
        "financial": [{"name": relative, "role": "Mom" if relative == "Mom" else relative,
                       "phone": person["relative_phone"], "instruction": "Ask for help with money only by text."}],
        "high_priority": [{"name": friend, "role": "Close friend", "phone": person["friend_phone"],
                           "instruction": "Reply warmly."}],
        "work": [{"name": f"{rng.choice(pools['colleague_roles'])} group", "role": "Team",
                  "target_channel": rng.choice(pools["team_channels"]), "instruction": "Post work updates here."}],
    }
    return {"user_profile": {
        "identity": identity,
        "locations": {"home": _place(rng, pools, city, "Home", False), "work": _place(rng, pools, city, "Work", True)},
        "digital_context": {"phone_model": rng.choice(pools["phone_models"]),
                            "preferred_apps": [shop[0], food[0], "Mastodon"]},
        "habits": habits, "preferences": preferences,
        "decision_criteria": {"accepts": ["help that saves time on routine chores"],
                              "rejects": ["actions it never asked for outside its habits"]},
        "social_graph": social_graph}, "share_photo": photo, "person": person}
