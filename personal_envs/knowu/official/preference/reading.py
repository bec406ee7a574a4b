"""What the official preference rubrics read from an official-format profile, parsed from its free text.

The official judge reads the whole persona; the deterministic fallback of :mod:`.rubric_fallback` reads the fields
each official rubric names (``preferences.shopping.online_platforms``, ``preferences.diet.soft_drinks``,
``identity.contact_info``, ``locations``...).  The fields are free text written differently per role ("Tuantuan
(..., preferred over Chilemei)", "Compared with Tuantuan,users prefer Chilemei."), so each reader here parses the
wordings the official profiles use and returns ``None`` when the profile does not state the thing: the rubric
dimension is then not judged, and the record says which field was missing.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

SHOPS: tuple[str, ...] = ("taodian", "jingdian")
FOOD: tuple[str, ...] = ("chilemei", "tuantuan")
#: Courier names of the official profiles and the words a note may use for them.
COURIERS: Mapping[str, tuple[str, ...]] = {
    "SF Express": ("sf express", "sf", "顺丰"), "Zhongtong Express": ("zhongtong", "zto", "中通"),
    "Yuantong Express": ("yuantong", "yto", "圆通"), "JD Logistics": ("jd logistics", "京东物流"),
    "EMS": ("ems",), "Yunda Express": ("yunda", "韵达"),
}


def get(doc: Mapping[str, Any], dotted: str) -> Any:
    """The value at a dotted path of the profile (``None`` when any part is missing or empty)."""
    node: Any = doc
    for part in dotted.split("."):
        if not isinstance(node, Mapping) or node.get(part) in (None, "", {}, []):
            return None
        node = node[part]
    return node


def first(doc: Mapping[str, Any], paths: Iterable[str]) -> tuple[str, Any] | None:
    """The first of ``paths`` the profile states, with its value."""
    for path in paths:
        value = get(doc, path)
        if value is not None:
            return path, value
    return None


def text_of(value: Any) -> str:
    """A profile value as one lower-case text (mappings and lists flattened)."""
    if isinstance(value, Mapping):
        return " ".join(text_of(v) for v in value.values())
    if isinstance(value, list | tuple):
        return " ".join(text_of(v) for v in value)
    return str(value or "").lower()


def _mentioned(text: str, names: Sequence[str]) -> list[str]:
    found = sorted((text.find(n), n) for n in names if n in text)
    return [n for _, n in found]


def _credits_of_sentence(text: str, names: Sequence[str]) -> dict[str, float]:
    """``preferred over Y`` / ``Compared with Y, users prefer X`` / ``X (... avoid ...)`` in one sentence."""
    text = text.lower()
    named = _mentioned(text, names)
    if not named:
        return {}
    compared = re.search(r"compared with (\w+)", text)
    if compared and compared.group(1) in names:
        preferred = [n for n in named if n != compared.group(1)]
        return {**({preferred[0]: 1.0} if preferred else {}), compared.group(1): 0.5}
    credits = {named[0]: 1.0}
    for other in named[1:]:
        credits[other] = 0.5
    return credits


def platform_credits(doc: Mapping[str, Any], kind: str) -> tuple[dict[str, float], str] | None:
    """Rubric credit per app (1.0 preferred, 0.5 secondary, 0.0 avoided) and the field read; ``kind``: shop/food."""
    names = SHOPS if kind == "shop" else FOOD
    paths = (("preferences.shopping.online_platforms", "preferences.apps.shopping", "preferences.shopping.app",
              "preferences.shopping.online_platform") if kind == "shop"
             else ("preferences.apps.delivery", "preferences.diet.delivery_platform"))
    for path in paths:
        value = get(doc, path)
        if isinstance(value, Mapping):
            credits: dict[str, float] = {}
            for key, credit in (("avoid", 0.0), ("secondary", 0.5), ("preferred", 1.0)):
                for name in _mentioned(text_of(value.get(key)), names)[:1]:
                    credits[name] = credit
            if credits:
                return credits, path
        elif value is not None:
            credits = _credits_of_sentence(text_of(value), names)
            if credits:
                return credits, path
    return None


def preferred_app(credits: Mapping[str, float], names: Sequence[str]) -> str:
    """The app with the highest credit (the first of ``names`` on ties)."""
    return max(names, key=lambda n: (credits.get(n, 0.5), -names.index(n)))


def identity(doc: Mapping[str, Any]) -> tuple[tuple[str, ...], str]:
    """The names an order may carry for the user (full name, nickname) and the user's phone."""
    names = tuple(str(get(doc, p)) for p in ("identity.full_name", "identity.nickname") if get(doc, p))
    return names, str(get(doc, "identity.contact_info.phone") or "")


def digits(value: Any) -> str:
    """The last eight digits of a phone number (how numbers written differently are compared)."""
    return "".join(ch for ch in str(value) if ch.isdigit())[-8:]


def addresses(doc: Mapping[str, Any]) -> dict[str, str]:
    """The profile's locations (key -> address)."""
    return {str(k): str(v.get("address")) for k, v in (get(doc, "locations") or {}).items()
            if isinstance(v, Mapping) and v.get("address")}


def negated_words(text: str) -> list[str]:
    """The words after "no" in a dislike sentence ("No black clothes and no one-piece outfits" -> black, one-piece)."""
    return [m.group(1) for m in re.finditer(r"\bno ([\w-]+)", text.lower())]


def number_in(text: str) -> float | None:
    """The first number of a text ("exceeds 100 yuan" -> 100)."""
    found = re.search(r"(\d+(?:\.\d+)?)", text)
    return float(found.group(1)) if found else None


def courier(doc: Mapping[str, Any]) -> tuple[str, tuple[str, ...], str] | None:
    """The first courier the profile names, the words a note may use for it, and the field read."""
    found = first(doc, ("preferences.shopping.delivery_courier", "preferences.shopping.courier_preference",
                        "preferences.shopping.delivery"))
    if found is None:
        return None
    text = text_of(found[1])
    named = sorted((min(text.find(w) for w in words if w in text), name) for name, words in COURIERS.items()
                   if any(w in text for w in words))
    return (named[0][1], COURIERS[named[0][1]], found[0]) if named else None


def payment(doc: Mapping[str, Any]) -> tuple[str, str] | None:
    """The payment method the profile prefers (the state's value: ``alipay`` / ``wechat_pay``) and the field."""
    value = get(doc, "preferences.shopping.payment_method")
    if value is None:
        return None
    text = text_of(value)
    order = sorted((text.find(w), key) for w, key in (("alipay", "alipay"), ("wechat", "wechat_pay")) if w in text)
    return (order[0][1], "preferences.shopping.payment_method") if order else None


def field_of_interest(doc: Mapping[str, Any]) -> tuple[str, str] | None:
    """The user's field of interest (the official judge's hint field first, then where the profiles keep it)."""
    found = first(doc, ("preferences.hobby.field_of_interest", "preferences.social.hobby.field_of_interest",
                        "preferences.social.field_of_interest"))
    if found is not None:
        return str(found[1]).strip(), found[0]
    news = get(doc, "preferences.apps.news_and_papers")
    if isinstance(news, list) and news:
        return str(news[0]).strip(), "preferences.apps.news_and_papers"
    return None


#: Sort options as the official classes name them -> the Files app's order ids.
SORT_IDS: Mapping[str, str] = {
    "File name (A to Z)": "name_asc", "File name (Z to A)": "name_desc", "Modified (newest first)": "modified_desc",
    "Modified (oldest first)": "modified_asc", "Type (A to Z)": "type_asc", "Type (Z to A)": "type_desc",
    "Size (largest first)": "size_desc", "Size (smallest first)": "size_asc"}
VISIBILITIES: tuple[tuple[str, str], ...] = (("followers", "followers-only"), ("private", "followers-only"),
                                             ("unlisted", "unlisted"), ("direct", "direct"), ("public", "public"))


def visibility(doc: Mapping[str, Any]) -> str | None:
    """The default post visibility the profile states (``public``, ``unlisted``, ``followers-only``, ``direct``)."""
    text = text_of(get(doc, "preferences.social.social_media.default_visibility")
                   or get(doc, "preferences.apps.mastodon.preferred_visibility"))
    found = sorted((text.find(w), name) for w, name in VISIBILITIES if w in text)
    return found[0][1] if found else None


def clock_time(text: str) -> str | None:
    """"6:00am" / "18:30" -> "06:00" / "18:30" (``None`` without a time)."""
    found = re.search(r"(\d{1,2}):(\d{2})\s*([ap]m)?", text.lower())
    if not found:
        return None
    hour = int(found.group(1)) % 12 + (12 if found.group(3) == "pm" else 0) if found.group(3) else int(found.group(1))
    return f"{hour:02d}:{found.group(2)}"


def _minutes(value: Any) -> int | None:
    found = re.search(r"(\d{1,2}):(\d{2})", str(value))
    return int(found.group(1)) * 60 + int(found.group(2)) if found else None


def habit_blocks(habit: Any, start: int, end: int, day: str) -> bool:
    """True for a habit that declines meetings (``action.auto_decline_meetings``) in a time range overlapping
    ``start``-``end`` (minutes) on ``day`` (``"tue"``), as the official invite class decides."""
    if not isinstance(habit, Mapping):
        return False
    trigger, action = habit.get("trigger") or {}, habit.get("action") or {}
    if not isinstance(trigger, Mapping) or not isinstance(action, Mapping) or not action.get("auto_decline_meetings"):
        return False
    span = trigger.get("time_range")
    if not isinstance(span, list) or len(span) != 2:
        return False
    low, high = _minutes(span[0]), _minutes(span[1])
    if low is None or high is None or not (low < end and high > start):
        return False
    rule = trigger.get("day_of_week")
    if isinstance(rule, str):
        return rule.strip().lower()[:3] == day
    if isinstance(rule, list):
        return any(isinstance(x, str) and x.strip().lower()[:3] == day for x in rule)
    return True
