"""The deterministic default user of the official preference variants: it knows what the official user model knows.

Officially a preference task's user model knows exactly its *relevant information*: the persona text plus what the
class's ``initialize_task_hook`` adds (its context, task facts and reply instructions; see
:mod:`~personal_envs.knowu.official.preference.user_context`, which renders it from the release).
:class:`OfficialPreferenceUser` answers from the same two sources and nothing else:

* the statements of the class's hook, read from the rendered text by :func:`stated_facts`:

  - ``Task fact(s): ...`` sentences (the inviter, Kevin's address, the SMS sender), given when a question names
    their subject;
  - explicit reply rules: "If the GUI agent asks for X, reply with / answer: Y", "..., refuse and ask for Y",
    "If the assistant suggests X, firmly refuse and insist on Y";
  - topic facts the hook spells out: the commute's origin and destination, the shoe size and colour, the weekend
    alarm time and ringtone, the contact to text, and the situation to stress on transport questions (rain, late
    night, running late);

* the official profile, through the clarification topics of :data:`TOPICS` (the schema's preference fields, the
  home address), with the shared refusal of identity and contact requests and redaction
  (:mod:`~personal_envs.knowu.official.guard`).

The project's reference world carries facts of a project persona (its workplace, its metro line); none of them
reach this user.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from personal_envs.knowu.official.guard import REFUSAL, addresses, is_extraction, redact, secret_values
from personal_envs.knowu.personas import user_profile_of, value_at
from personal_envs.knowu.user_messages import is_proposal
from personal_envs.simulators.users.base import Decision, SimulatedUser, UserReply

_STOP = frozenset({"a", "an", "the", "app", "of", "for", "to", "or", "and", "is", "your", "you", "s", "e", "g"})
_SUFFIXES = ("ation", "ment", "ing", "er", "ed", "s")
_GENERIC = frozenset({"name", "phone", "email", "address", "title", "time", "content"})
MAX_REPLY_CHARS = 2000


@dataclass(frozen=True)
class Topic:
    """A kind of clarification question: trigger words and where the answer lives in the profile."""

    name: str
    keywords: tuple[str, ...]
    paths: tuple[str, ...]
    lead: str


TOPICS: tuple[Topic, ...] = (
    Topic("recipient", ("who should", "whom", "recipient", "which contact", "which channel", "which group",
                        "which person", "send it to who", "who do you want"), (), "Send it to"),
    Topic("delivery_app", ("food app", "takeout", "take-out", "delivery app", "chilemei", "tuantuan", "order food",
                           "restaurant", "which app for food", "food delivery"),
          ("preferences.diet.delivery_platform", "preferences.apps.delivery.preferred"), "For food delivery:"),
    Topic("drink", ("cola", "coke", "pepsi", "soda", "drink"), ("preferences.diet.soft_drinks",), "Drinks:"),
    Topic("diet", ("diet", "allerg", "cuisine", "dish", "spicy", "what do you like to eat", "what food",
                   "food preference", "eat"),
          ("preferences.diet.cuisine_preference", "preferences.diet.cuisine_dislike", "preferences.diet.allergies",
           "preferences.diet.special_notes"), "Food-wise:"),
    Topic("budget", ("budget", "how much", "price", "expensive", "spend", "cost"),
          ("preferences.diet.lunch_budget", "preferences.shopping.clothes.budget",
           "preferences.shopping.price_sensitivity"), "Budget:"),
    Topic("payment", ("payment", "pay with", "pay by", "how do you pay", "how should i pay"),
          ("preferences.shopping.payment_method",), "Payment:"),
    Topic("shop_app", ("shopping app", "platform", "taodian", "jingdian", "which store", "which shop",
                       "where should i buy", "buy it on", "order it on"),
          ("preferences.shopping.online_platforms.preferred", "preferences.apps.shopping.preferred"), "I shop on"),
    Topic("size", ("size",), ("preferences.shopping.shoe.shoe_size_eu",), "My size (EU):"),
    Topic("color", ("colour", "color"), ("preferences.shopping.shoe.shoe_color",
                                         "preferences.shopping.clothes.color_preference"), "Colour:"),
    Topic("courier", ("courier", "express", "shipping", "ship it"), ("preferences.shopping.courier_preference",
                                                                     "preferences.shopping.delivery_courier"),
          "Courier:"),
    Topic("computer", ("computer", "laptop", "macbook", "thinkpad", " pc"), ("preferences.shopping.computer",
                                                                             "preferences.shopping.electronics"),
          "Computers:"),
    Topic("clothes", ("clothes", "clothing", "outfit", "wear"), ("preferences.shopping.clothes",), "Clothes:"),
    Topic("electronics", ("electronic", "gadget"), ("preferences.shopping.electronics",), "Electronics:"),
    Topic("workplace", ("workplace", "office", "employer", "where do you work", "where you work", "work address",
                        "where is your work"), (), "Work:"),
    Topic("address", ("address", "deliver", "where"), (), "Address:"),
    Topic("visibility", ("visibility", "public", "followers", "unlisted", "who can see"),
          ("preferences.social.social_media.default_visibility", "preferences.apps.mastodon.preferred_visibility"),
          "Visibility:"),
    Topic("transport", ("commute", "transport", "route", "get there", "get home", "travel", "taxi", "metro",
                        "subway", "bus", "bike", "drive"),
          ("preferences.travel.daily_commute", "preferences.travel.daily_commute.primary_transport",
           "preferences.travel.commute_optimization.primary_mode"), "Getting around:"),
    Topic("style", ("style", "tone", "how should i write", "wording", "sign off", "emoji", "caption"),
          ("preferences.social.communication_style", "preferences.social.tone", "preferences.social.emoji_usage"),
          "My style:"),
    Topic("ringtone", ("ringtone", "sound"), ("preferences.apps.clock.ringtone",), "Ringtone:"),
    Topic("sort", ("sort", "arrange"), ("preferences.apps.files.sort",), "Sorting:"),
    Topic("interest", ("interest", "topic", "field", "follow", "news about"),
          ("preferences.social.interests", "preferences.social.hobby.field_of_interest"), "Interests:"),
    Topic("photo", ("photo", "picture", "image"), ("preferences.social.share.photos",), "Photos:"),
    Topic("note", ("note", "remark", "memo"), ("preferences.diet.delivery_general_remark",), "Note:"),
    Topic("time", ("what time", "when", "which time", "schedule", "wake"),
          ("preferences.social.meeting_preference.scheduling",), "Timing:"),
)


def flat_text(value: Any, limit: int = 300) -> str:
    """``value`` (a mapping, list or scalar) as one line of text, cut to ``limit`` characters."""
    if isinstance(value, Mapping):
        text = "; ".join(f"{str(k).replace('_', ' ')}: {flat_text(v, limit)}" for k, v in value.items())
    elif isinstance(value, list | tuple):
        text = ", ".join(flat_text(v, limit) for v in value)
    else:
        text = str(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def mentions(text: str, keyword: str) -> bool:
    """``keyword`` occurs in ``text`` at the start of a word (so "eat" does not match "create")."""
    return re.search(r"(?<![a-z])" + re.escape(keyword.strip() if keyword.strip() else keyword), text) is not None


def stem(word: str) -> str:
    """``word`` lower-cased without one common suffix (kept at four letters or more): inviter -> invit."""
    lowered = word.lower()
    for suffix in _SUFFIXES:
        if lowered.endswith(suffix) and len(lowered) - len(suffix) >= 4:
            return lowered[: -len(suffix)]
    return lowered


def _words(phrase: str) -> list[str]:
    return [w for w in re.findall(r"[a-zA-Z]+", phrase.replace("'s", "")) if w.lower() not in _STOP]


def _first_person(text: str) -> str:
    """A second-person instruction sentence as the user says it ("you are tired" -> "I am tired")."""
    out = re.sub(r"\byou are\b", "I am", text, flags=re.IGNORECASE)
    out = re.sub(r"\byou (want|need|have|prefer)\b", r"I \1", out, flags=re.IGNORECASE)
    out = re.sub(r"\byour\b", "my", out, flags=re.IGNORECASE)
    return out[:1].upper() + out[1:]


@dataclass(frozen=True)
class StatedFact:
    """Something the official class tells its user to say, and the question words that ask for it.

    Attributes:
        stems: Word stems of the question that ask for it (see :func:`stem`).
        reply: What the user says.
        head: The stem that names the thing asked for (a hit on it outweighs a hit on another stem).
        decision: The consent a reply carries (``"reject"`` for "firmly refuse"), else ``None``.
        source: Which statement of the release it comes from (for the reply's private note).
    """

    stems: tuple[str, ...]
    reply: str
    head: str = ""
    decision: Decision | None = None
    source: str = ""

    def weight(self, message_stems: set[str]) -> int:
        """How strongly ``message_stems`` ask for this fact (0: not at all)."""
        hits = [s for s in self.stems if s in message_stems]
        return len(hits) + (1 if self.head and self.head in hits else 0) if hits else 0


@dataclass(frozen=True)
class StatedFacts:
    """What a class's hook tells its user: facts asked by name, and answers to the user-simulator topics."""

    facts: tuple[StatedFact, ...] = ()
    topics: Mapping[str, str] = field(default_factory=dict)
    situation: str = ""


def _task_facts(text: str) -> list[StatedFact]:
    found = []
    for match in re.finditer(r"Task facts?:\s*(.+)", text):
        sentence = re.split(r"\.(?:\s|$)", match.group(1).strip())[0]
        items = re.split(r",\s+(?=[A-Za-z' ]+ is )", sentence)
        subjects = [item.split(" is ", 1)[0] for item in items if " is " in item]
        qualifiers = {stem(w) for s in subjects for w in _words(s)[:1] if w.lower() not in _GENERIC}
        if not qualifiers:
            continue
        reply = sentence[:1].upper() + sentence[1:] + "."
        found.append(StatedFact(tuple(sorted(qualifiers)), reply, source="Task facts"))
    return found


def _reply_rules(text: str) -> list[StatedFact]:
    found = []
    for asked, reply in re.findall(r"If the (?:GUI agent|assistant) asks for (?:a |an |the )?([^,\n]+), "
                                   r"(?:reply with|answer): ([^\n]+?)\.?$", text, flags=re.MULTILINE):
        words = _words(asked)
        found.append(StatedFact(tuple(stem(w) for w in words), reply.strip(),  # verbatim: it may be a password
                                stem(words[-1]) if words else "", source=f"asks for {asked}"))
    for asked, instead in re.findall(r"If the (?:GUI agent|assistant) asks for (?:a |an |the )?([^,\n]+), refuse and "
                                     r"ask for ([^\n.]+)", text):
        words = _words(asked)
        found.append(StatedFact(tuple(stem(w) for w in words), f"I'd rather not give that. Please use {instead} "
                                "instead.", stem(words[-1]) if words else "", "reject", f"refuse {asked}"))
    for suggested, insisted in re.findall(r"If the assistant (?:suggests|offers) (\w+), (?:firmly refuse and insist on|"
                                          r"say no and ask for) (\w+)", text):
        found.append(StatedFact((stem(suggested),), f"No {suggested}, please. I want {insisted}.", stem(suggested),
                                "reject", f"suggests {suggested}"))
    return found


#: Topic -> (what the hook states, how the user says it): the one-value facts of the hooks' context lines.
STATED_TOPICS: tuple[tuple[str, str, str], ...] = (
    ("size", r"usual shoe size is ([^,.\n]+)", "My usual shoe size is {}."),
    ("color", r"preferred shoe color is ([^,.\n]+)", "I prefer {} shoes."),
    ("time", r"Preferred wake-up time: ([^\n]+)", "I like to wake up at {}."),
    ("ringtone", r"Favorite ringtone: ([^\n]+)", "My favourite ringtone is {}."),
    ("recipient", r"Target contact: ([^(\n]+)", "Text {}."),
)


def _topics(text: str) -> dict[str, str]:
    topics: dict[str, str] = {}
    route = re.search(r"(?:Origin|Current location): (.+?)\. Destination: (.+?)\.(?:\s|$)", text)
    if route:
        topics["address"] = f"From {route.group(1)} to {route.group(2)}."
    for topic, pattern, wording in STATED_TOPICS:
        found = re.search(pattern, text)
        if found:
            topics[topic] = wording.format(found.group(1).strip())
    return topics


def _situation(text: str) -> str:
    """What to stress on transport questions, as the hook instructs ("remind them that it is raining...")."""
    reminder = re.search(r"remind them that ([^\n]+)", text)
    if reminder:
        sentences = re.split(r"(?<=\.)\s+", reminder.group(1).strip())
        kept = [sentences[0]] + [s for s in sentences[1:] if re.match(r"You (want|need|are)\b", s)]
        return " ".join(_first_person(s) for s in kept)
    urgent = re.search(r"IMPORTANT: (I [^\u2014\n.]+?)\s*(?:\u2014|\.|\n)", text)
    return urgent.group(1).strip()[:1].upper() + urgent.group(1).strip()[1:] + "." if urgent else ""


def stated_facts(relevant_information: str, persona: str = "") -> StatedFacts:
    """The facts, reply rules and topic answers a class's hook states in its rendered relevant information.

    Args:
        relevant_information: The text the official user model is told (``self.relevant_information``).
        persona: The persona text inside it (left out of the parsing: the profile is read from its fields).
    """
    text = relevant_information.replace(persona, "") if persona else relevant_information
    return StatedFacts(tuple(_task_facts(text) + _reply_rules(text)), _topics(text), _situation(text))


def match_topics(message: str) -> list[Topic]:
    """Topics the message asks about, in table order."""
    lowered = f" {message.lower()} "
    found = [topic for topic in TOPICS if any(mentions(lowered, k) for k in topic.keywords)]
    if any(t.name == "workplace" for t in found):  # "where" asks for the workplace, not the home
        found = [t for t in found if t.name != "address"]
    return found


def profile_answer(topic: Topic, profile: Mapping[str, Any]) -> str:
    """The answer to ``topic`` from the profile's fields (the home address for ``address``, the work location's for
    ``workplace``; '' when none)."""
    doc = user_profile_of(profile)
    if topic.name in ("address", "workplace"):
        home = value_at(doc, "locations.home" if topic.name == "address" else "locations.work")
        address = str(home.get("address") or "") if isinstance(home, Mapping) else str(home or "")
        return f"{topic.lead} {address}" if address else ""
    if topic.name == "recipient":
        return ""
    values = [value_at(doc, path) for path in topic.paths]
    parts = [flat_text(v) for v in values if v not in (None, "", [], {})][:2]
    return f"{topic.lead} {' / '.join(parts)}" if parts else ""


class OfficialPreferenceUser(SimulatedUser):
    """The deterministic user of a preference variant (see the module docstring).

    Args:
        stated: What the class's hook tells the official user (:func:`stated_facts`).
        extra: Further facts of the variant (the SMS task's importance decision).
        max_topics: How many topics one reply may answer (keeps replies short; no wholesale dumps).
    """

    kind = "official-preference"

    def __init__(self, stated: StatedFacts, extra: Sequence[StatedFact] = (), max_topics: int = 2) -> None:
        super().__init__()
        self.stated = stated
        self.facts = (*stated.facts, *extra)
        self.max_topics = max_topics

    @property
    def profile(self) -> dict[str, Any]:
        """The hidden profile of the current episode (``{}`` before :meth:`start`)."""
        return dict(self.context.profile) if self.context is not None else {}

    def _hidden(self, allow_addresses: bool) -> list[str]:
        return secret_values(self.profile) + ([] if allow_addresses else addresses(self.profile))

    def _answer(self, message: str) -> UserReply:
        message_stems = {stem(w) for w in re.findall(r"[a-zA-Z]+", message)}
        weights = [(fact.weight(message_stems), index) for index, fact in enumerate(self.facts)]
        best = max(weights, default=(0, -1))  # on a tie the later fact wins: the variant's extra facts
        if best[0] > 0:
            fact = self.facts[best[1]]
            return UserReply(redact(fact.reply, self._hidden(False)), fact.decision,
                             f"stated by the official class: {fact.source}")
        if is_extraction(message):
            return UserReply(REFUSAL, None, "refused an extraction attempt")
        topics = match_topics(message)
        answers = [a for a in (self.topic_answer(t) for t in topics[: self.max_topics]) if a]
        if answers:
            allow = any(t.name in ("address", "workplace") for t in topics[: self.max_topics])
            text = redact(" ".join(answers), self._hidden(allow))
            return UserReply(text[:MAX_REPLY_CHARS], None, f"topics: {[t.name for t in topics]}")
        if is_proposal(message):  # only a proposal is a decision (issue 28)
            return UserReply("Yes, go ahead.", "accept", "confirmation")
        return UserReply("Just do it the way I usually would - you can check my history.", None, "no topic")

    def topic_answer(self, topic: Topic) -> str:
        """The hook's stated answer for ``topic``; else the profile's, led by the situation on transport."""
        if topic.name in self.stated.topics:
            return self.stated.topics[topic.name]
        if topic.name == "transport":  # the official hooks show the whole travel section; the key names differ
            travel = value_at(user_profile_of(self.profile), "preferences.travel")
            answer = f"{topic.lead} {flat_text(travel)}" if travel else ""
            return f"{self.stated.situation} {answer}".strip()
        return profile_answer(topic, self.profile)
