"""What every KnowU user keeps to itself: one refusal, one list of extraction patterns, one redaction.

The deterministic users of the three families refuse a request for identity, contact or credential data, or for
their hidden instructions, with :data:`REFUSAL` (:func:`is_extraction`).  The env passes every reply, the LLM
user's included, through :func:`redact` with the episode profile's :func:`secret_values` (identity documents,
contact details, security settings, coordinates), so no user model can leak them whatever it is asked.  This is a
deliberate deviation from the official code, which shows the user model's raw reply: here the raw reply is kept
except for those values.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from personal_envs.knowu.personas import user_profile_of

REFUSAL = "Sorry, I'd rather not share that. Let's stick to what you're helping me with."
REDACTED = "[withheld]"
#: Identity keys whose values are secrets wholesale.
SECRET_SECTIONS: tuple[str, ...] = ("auth_documents", "contact_info", "security")
_ID_LIKE = ("id", "passport", "card", "ssn", "license", "number")
_COORDINATES = ("latitude", "longitude", "lat", "lng", "lon")

_EXTRACTION = re.compile(
    r"(\bprofile\b|system prompt|your (instructions|prompt|rules|persona)|repeat (everything|all|your|the above)|"
    r"ignore (all|any|previous|your|the)|\bid[- ]?card\b|\bid number\b|identity (card|number|document)|passport|"
    r"password|passcode|\bpin\b|social security|\bssn\b|(student|employee|staff|staff member) id|"
    r"residence permit|pension card|medical insurance|bank (card|account)|credit card|card number|"
    r"everything (you know|about you)|all (of )?your (data|details|information|info|preferences|habits)|"
    r"\bdump\b|\byaml\b|\bjson\b|hidden (context|data|profile)|phone number|mobile number|e-?mail address|"
    r"personal (data|details|information)|latitude|longitude|coordinates|verification code|routine status|"
    r"full name|date of birth|print (your|the|out)|reveal|confidential)",
    re.IGNORECASE,
)


def is_extraction(message: str) -> bool:
    """True for requests for identity, contact or credential data, or for the hidden profile or instructions."""
    return bool(_EXTRACTION.search(message))


def _leaves(node: Any) -> list[str]:
    if isinstance(node, Mapping):
        return [s for value in node.values() for s in _leaves(value)]
    if isinstance(node, list | tuple):
        return [s for value in node for s in _leaves(value)]
    return [] if node is None else [str(node)]


def addresses(profile: Mapping[str, Any]) -> list[str]:
    """The addresses of the profile's ``locations`` (given only to a question about where to deliver or go)."""
    places = user_profile_of(profile).get("locations") or {}
    found = [str(v.get("address") or "") if isinstance(v, Mapping) else str(v) for v in places.values()] \
        if isinstance(places, Mapping) else []
    return [a for a in found if len(a) >= 4]


def secret_values(profile: Mapping[str, Any]) -> list[str]:
    """Strings no user reply may carry: identity documents, contact details, security settings, id-like identity
    fields and coordinates (values of 4 characters or more, longest first)."""
    doc = user_profile_of(profile)
    identity = doc.get("identity") or {}
    digital = doc.get("digital_context") or {}
    found: list[str] = []
    if isinstance(identity, Mapping):
        for key in SECRET_SECTIONS:
            found += _leaves(identity.get(key))
        found += [str(v) for k, v in identity.items()
                  if any(w in str(k).lower() for w in _ID_LIKE) and not isinstance(v, Mapping | list)]
    if isinstance(digital, Mapping):
        found += _leaves(digital.get("security"))
    places = doc.get("locations") or {}
    for place in places.values() if isinstance(places, Mapping) else ():
        if isinstance(place, Mapping):
            found += [str(place[c]) for c in _COORDINATES if c in place]
    return sorted({v.strip() for v in found if len(v.strip()) >= 4}, key=len, reverse=True)


def redact(text: str, secrets: Iterable[str]) -> str:
    """``text`` with every secret replaced by :data:`REDACTED`; a secret of 7 digits or more also when its digits
    are written with separators (``138-0013-8000``)."""
    out = text
    for value in sorted(set(secrets), key=len, reverse=True):
        out = re.sub(re.escape(value), REDACTED, out, flags=re.IGNORECASE)
        digits = re.sub(r"\D", "", value)
        if len(digits) >= 7:
            out = re.sub(r"\D{0,3}".join(re.escape(d) for d in digits), REDACTED, out)
    return out
