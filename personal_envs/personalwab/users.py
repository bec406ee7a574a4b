"""Simulated shoppers for PersonalWAB's multi-turn setting.

* :class:`ProfileShopper` (default, deterministic): answers clarification questions from the hidden profile and
  stays vague about the target (no feature phrase, store, number or id), never confirms or denies a product the
  agent names, and refuses to dump its profile.
* :class:`LLMShopper`: the paper's setup — an LLM role-plays the user from the profile, the target product and (for
  review tasks) the real review, through any OpenAI-compatible endpoint.
"""

from __future__ import annotations

import re
from typing import Any

from personal_envs.personalwab.leaks import find_leaks, redact_leaks
from personal_envs.simulators.users.base import SimulatedUser, UserReply

_WORD = re.compile(r"[a-z0-9]+")
_EXTRACTION = re.compile(
    r"(print|show|dump|reveal|tell me|what is|what's|give me|repeat|list).{0,40}"
    r"(profile|system prompt|instructions|asin|product (id|code)|parent_asin|hidden|target)",
    re.IGNORECASE,
)
_QUESTION_TOPICS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("price", ("price", "budget", "cost", "spend", "expensive", "cheap", "afford", "$")),
    ("brand", ("brand", "store", "maker", "manufacturer", "company")),
    ("category", ("category", "kind", "type", "what are you looking", "looking for", "which product", "what product")),
    ("feature", ("feature", "size", "color", "colour", "material", "spec", "require", "need", "important", "prefer")),
    ("opinion", ("rate", "rating", "think", "opinion", "feel", "like about", "experience", "review", "star")),
)


#: A product code as the agent would quote it: an Amazon ASIN (10 letters and digits, with a digit).
_PRODUCT_CODE = re.compile(r"\b(?=[A-Za-z0-9]{0,9}[0-9])[A-Za-z0-9]{10}\b")

#: What a simulated shopper says when asked about a specific product code: it neither confirms nor denies, so the
#: user is no oracle for guessing the target.
PRODUCT_CHECK_REPLY = ("I can't tell you whether a particular product code is the one; I only know what I'm "
                       "looking for.")


def _words(text: str) -> set[str]:
    return set(_WORD.findall(text.lower()))


def names_specific_product(message: str) -> bool:
    """True if ``message`` quotes a product code (ASIN-shaped token), whichever product it is."""
    return any(not token.isdigit() for token in _PRODUCT_CODE.findall(message))


class ProfileShopper(SimulatedUser):
    """Deterministic profile-grounded shopper that keeps to the official user prompt's rules.

    ``context.profile`` holds the 11 PersonalWAB profile fields; ``context.task`` holds ``type``, ``instruction``,
    ``product`` (the target's product_info) and, for review tasks, ``review`` (the real review dict).

    Preferences come from the profile (price sensitivity in words, preferred brands, focus aspect); about the
    product it stays vague, as the official prompt asks ("do not provide any specific product details", "do not
    repeat the exact information in your profile or product"): only the target's main category, no word of its
    title, features or review (a deterministic user cannot paraphrase them as the official LLM user does; giving
    them verbatim made a search with its replies score 0.915 instead of 0.680).  It never names the target's store (a preferred brand equal to it is left out), never
    says a number (no price, budget or model number derived from the target), never gives an ASIN, and never
    confirms or denies a product the agent names: it only says whether the agent's wording fits what it described.
    """

    kind = "profile"

    def __init__(self) -> None:
        super().__init__()
        self._clues_given: list[str] = []

    def start(self, context: Any) -> None:
        super().start(context)
        self._clues_given = []

    # -------------------------------------------------------------------------------------------------
    def _answer(self, message: str) -> UserReply:
        assert self.context is not None
        task = self.context.task
        lowered = message.lower()
        if _EXTRACTION.search(message):
            return UserReply("I'd rather not share that. I just want help finding what I described.")
        if names_specific_product(message):  # the same answer for the target and for any other product
            return UserReply(PRODUCT_CHECK_REPLY + " " + self._next_clue())
        topic = next((name for name, keys in _QUESTION_TOPICS if any(k in lowered for k in keys)), None)
        if "?" in message and topic is not None:
            return UserReply(self._clue(topic))
        if task.get("type") == "review" and topic == "opinion":
            return UserReply(self._clue("opinion"))
        if self._looks_like_results(message):
            return UserReply("I can't judge those from here; please use what I told you. " + self._next_clue())
        return UserReply(self._next_clue())

    @staticmethod
    def _looks_like_results(message: str) -> bool:
        return bool(re.search(r"\b(found|here are|results?|options?|recommend|suggest|is it)\b", message, re.I))

    def _next_clue(self) -> str:
        for topic in ("category", "feature", "brand", "price", "opinion"):
            if topic not in self._clues_given:
                return self._clue(topic)
        return "That is all I can tell you; maybe try another search with the details I gave you."

    def _clue(self, topic: str) -> str:
        assert self.context is not None
        self._clues_given.append(topic)
        text = self._clue_text(topic)
        return _without_numbers(text)

    def _clue_text(self, topic: str) -> str:
        assert self.context is not None
        profile = self.context.profile
        task = self.context.task
        product = task.get("product") or {}
        store = str(product.get("store") or "").strip()
        if topic == "price":
            sensitivity = str(profile.get("Price Sensitivity", "Medium"))
            return _PRICE_WORDS.get(sensitivity, "Good value matters to me, but I don't have a fixed budget.")
        if topic == "brand":
            brands = [b.strip() for b in str(profile.get("Brand Preference", "")).split(",") if b.strip()]
            brands = [b for b in brands if not store or not _same_name(b, store)]
            if brands:
                return f"I tend to like brands such as {', '.join(brands[:3])}, but I'm open to others."
            return "I don't mind the brand much."
        if topic == "category":
            category = str(product.get("main_category", "")).replace("_", " ").strip() or "anything"
            return f"It's something from {category.lower()}, for my everyday use."
        if topic == "feature":
            focus = str(profile.get("Focus Aspect", "quality")).lower()
            return f"I mostly care about {focus}."
        review = task.get("review") or {}
        tone = str(profile.get("Tone and Style", "")).lower()
        style = f" Keep it {tone}." if tone else ""
        return f"Overall I was {_mood(review.get('rating'))} with it.{style}"


_PRICE_WORDS: dict[str, str] = {
    "High": "I watch my spending closely, so a good deal matters a lot.",
    "Medium": "Price matters to me, but quality and features count too.",
    "Low": "Quality and features matter more to me than the price.",
}

def _same_name(a: str, b: str) -> bool:
    return _WORD.findall(a.lower()) == _WORD.findall(b.lower())


def _mood(rating: Any) -> str:
    try:
        value = float(rating)
    except (TypeError, ValueError):
        return "fairly happy"
    return "very happy" if value >= 4.5 else "happy" if value >= 3.5 else "mixed" if value >= 2.5 else "unhappy"


def _without_numbers(text: str) -> str:
    """Drop any number from a reply (a user in these rules never gives a figure derived from the target)."""
    return re.sub(r"\s{2,}", " ", re.sub(r"[$€£]?\d[\d.,]*", "", text)).strip()


class LLMShopper(SimulatedUser):
    """The paper's LLM user: role-plays from profile, target product and (review tasks) the real review.

    With the official ``user.py`` in the data directory (``personal-envs data fetch personalwab``) the system prompt
    is the official one, built as the official code builds it (persona sentences for the price, diversity and
    interaction levels; every field of the target); without it, this project's own wording of the same setup.

    Args:
        client: A :class:`personal_envs.llm.client.ChatClient` (base URL, model and key from arguments or env vars).
        temperature: Sampling temperature (official: 1.0); replies are at most 150 tokens, as officially.
        official_source: Path of the official ``user.py`` (default: ``official/user.py`` in the data directory).
        redact_leaks: Replace leaked details in the replies (the leak is recorded either way).
        max_tokens: Completion budget per reply.

    Every reply is checked for the target's identifying details (:func:`personal_envs.personalwab.leaks.find_leaks`:
    ASIN, title, store); each leak is recorded in :attr:`leaks` and, with ``redact_leaks=True``, replaced before
    the reply reaches the agent.  A failed request or an empty reply falls back to the deterministic
    :class:`ProfileShopper` for that turn, recorded in :attr:`errors`.
    """

    kind = "llm"

    def __init__(self, client: Any = None, temperature: float = 1.0, official_source: str | None = None,
                 redact_leaks: bool = False, max_tokens: int = 150) -> None:
        super().__init__()
        from personal_envs.personalwab.official_texts import load_user_texts

        self.temperature = temperature
        self.texts = load_user_texts(official_source)
        if client is None:
            from personal_envs.llm.client import ChatClient

            client = ChatClient()
        self.client = client
        self.redact_leaks = redact_leaks
        self.max_tokens = max_tokens
        #: This episode's fallbacks to the deterministic shopper, one message each.
        self.errors: list[str] = []
        #: This episode's leaks: ``{"turn": n, "details": ["title", ...], "redacted": bool}``.
        self.leaks: list[dict[str, Any]] = []
        self._fallback = ProfileShopper()
        self._messages: list[dict[str, str]] = []

    def start(self, context: Any) -> None:
        super().start(context)
        self._fallback.start(context)
        self.errors = []
        self.leaks = []
        task = context.task
        self._messages = [
            {"role": "system", "content": self.system_prompt(context.profile, task)},
            {"role": "user", "content": "Hi! How can I help you today?"},
            {"role": "assistant", "content": str(task.get("instruction", ""))},
        ]

    def _answer(self, message: str) -> UserReply:
        if names_specific_product(message):  # never asked of the LLM: its answer could confirm the target
            return UserReply(PRODUCT_CHECK_REPLY)
        from personal_envs.llm.client import LLMError

        self._messages.append({"role": "user", "content": message})
        try:
            text = self.client.chat(self._messages, temperature=self.temperature, max_tokens=self.max_tokens).content.strip()
            error = "" if text else "the model's reply was empty"
        except LLMError as exc:
            text, error = "", f"LLM user request failed: {exc}"
        if error:
            self.errors.append(error)
            fallback = self._fallback._answer(message)
            self._messages.append({"role": "assistant", "content": fallback.text})
            return UserReply(fallback.text, fallback.decision, f"fallback after: {error}")
        product = (self.context.task.get("product") if self.context else None) or {}
        leaked = find_leaks(text, product)
        notes = ""
        if leaked:
            self.leaks.append({"turn": (len(self.dialogue) + 1) // 2, "details": leaked, "redacted": self.redact_leaks})
            notes = f"leaked the target's {', '.join(leaked)}"
        if self.redact_leaks and leaked:
            text = redact_leaks(text, product)
        elif "asin" in leaked:  # an ASIN is always masked, as before
            text = text.replace(str(product.get("parent_asin", "")), "that product")
        self._messages.append({"role": "assistant", "content": text})
        return UserReply(text, None, notes)


    def system_prompt(self, profile: dict[str, Any], task: dict[str, Any]) -> str:
        """The official prompt when the official texts are present, else :func:`shopper_prompt`."""
        if self.texts is None:
            return shopper_prompt(profile, task)
        from personal_envs.personalwab.official_texts import official_user_prompt

        return official_user_prompt(self.texts, profile, task)


def shopper_prompt(profile: dict[str, Any], task: dict[str, Any]) -> str:
    """System prompt of the LLM shopper (our wording of the paper's setup)."""
    product = task.get("product") or {}
    lines = ["You play a shopper talking to a personalised shopping assistant.", "", "Who you are:"]
    lines += [f"- {key}: {value}" for key, value in profile.items()]
    if task.get("type") == "review":
        review = task.get("review") or {}
        lines += ["", "You bought this product:", _product_brief(product), "", "Your own review of it:",
                  f"{review.get('title', '')}: {review.get('text', '')} (rating {review.get('rating', '')})"]
    else:
        lines += ["", "The product you want (do not name it outright):", _product_brief(product)]
    lines += [
        "",
        "Rules: write one short line per turn, as this person would. Only answer the assistant's questions; do not",
        "invent facts. Never give product codes or ASINs and do not recite your profile or the product details",
        "word for word. If the results miss, say so and give a hint about what you want. If the assistant asks",
        "whether a specific product or title is the one, neither confirm nor deny it: describe what you want.",
    ]
    return "\n".join(lines)


def _product_brief(product: dict[str, Any]) -> str:
    features = "; ".join(str(f) for f in (product.get("features") or [])[:4])
    return (f"- title: {product.get('title', '')}\n- store: {product.get('store', '')}\n- price: {product.get('price', '')}"
            f"\n- category: {product.get('main_category', '')}\n- features: {features}")
