"""Rule checks over app state used by the task verifiers (each returns a :class:`Check`)."""

from __future__ import annotations

import re
from collections.abc import Iterable

from personal_envs.core.task import Check
from personal_envs.simulators.phone.apps.messages import normalize_number
from personal_envs.simulators.phone.phone import Phone

normalize_phone = normalize_number


def norm(text: str) -> str:
    """Lower-case, punctuation folded to spaces, whitespace collapsed."""
    return " ".join(re.sub(r"[^\w¥%:@./-]+", " ", text.lower()).split())


def mentions(text: str, *needles: str) -> bool:
    """True when every needle occurs in ``text`` (normalized)."""
    haystack = norm(text)
    return all(norm(n) in haystack for n in needles)


def mentions_any(text: str, needles: Iterable[str]) -> bool:
    haystack = norm(text)
    return any(norm(n) in haystack for n in needles)


def sms_sent(phone: Phone, number: str, *, all_of: Iterable[str] = (), any_of: Iterable[str] = (), who: str = "") -> Check:
    """A text went to ``number`` containing every ``all_of`` and at least one ``any_of`` word."""
    texts = phone.messages.sent_to(number)
    required, options = list(all_of), list(any_of)
    ok = [t for t in texts if mentions(t, *required) and (not options or mentions_any(t, options))]
    label = f"sms to {who or number}"
    if ok:
        return Check(label, True)
    return Check(label, False, f"sent {texts!r}" if texts else "nothing sent")


def no_sms_except(phone: Phone, *numbers: str) -> Check:
    """No text went to anyone but ``numbers``."""
    allowed = {normalize_number(n) for n in numbers}
    others = sorted({m.number for m in phone.messages.sms if m.outgoing and normalize_number(m.number) not in allowed
                     and m.text != "Will do!"})
    return Check("no texts to other people", not others, f"also texted {others}" if others else "")


def chat_posted(phone: Phone, channel: str, *, all_of: Iterable[str] = (), any_of: Iterable[str] = (), exact: str = "") -> Check:
    """The user posted in ``channel`` a message matching the criteria."""
    posts = phone.mattermost.my_posts(channel)
    required, options = list(all_of), list(any_of)
    for text in posts:
        if exact and norm(text) != norm(exact):
            continue
        if mentions(text, *required) and (not options or mentions_any(text, options)):
            return Check(f"post in {channel}", True)
    return Check(f"post in {channel}", False, f"posted {posts!r}" if posts else "nothing posted")


def no_chat_posts_except(phone: Phone, *channels: str) -> Check:
    """The user posted nowhere but ``channels``."""
    others = sorted({p.channel for p in phone.mattermost.posts if p.user == phone.mattermost.username
                     and p.channel not in channels})
    return Check("no posts in other channels", not others, f"also posted in {others}" if others else "")


def device_flag(phone: Phone, attribute: str, expected: object) -> Check:
    """A device setting has the expected value."""
    value = getattr(phone.device, attribute)
    return Check(f"{attribute} == {expected}", value == expected, f"is {value}")


def answer_mentions(answer: str | None, *, all_of: Iterable[str] = (), any_of: Iterable[str] = ()) -> Check:
    """The final answer contains the given words."""
    text = answer or ""
    required, options = list(all_of), list(any_of)
    ok = bool(text) and mentions(text, *required) and (not options or mentions_any(text, options))
    detail = "no answer given" if not text else f"answer was {text[:200]!r}"
    return Check("answer content", ok, "" if ok else detail)


def one_of_each(values: Iterable[str]) -> str:
    return ", ".join(sorted(values))
