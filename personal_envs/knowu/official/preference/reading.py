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

from personal_envs.knowu.taskspec import phone_digits

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


digits = phone_digits


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
