"""Simulated shoppers for PersonalWAB's multi-turn setting.

* :class:`ProfileShopper` (default, deterministic): answers clarification questions from the hidden profile and the
  target product's attributes, says so when the results contain the product it wants, otherwise expresses
  dissatisfaction and gives a new clue; never reveals the product id and refuses to dump its profile.
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


def _words(text: str) -> set[str]:
    return set(_WORD.findall(text.lower()))


def _first_sentence(text: str, limit: int = 160) -> str:
    sentence = re.split(r"(?<=[.!?])\s", text.strip(), maxsplit=1)[0]
    return sentence if len(sentence) <= limit else sentence[: limit - 1] + "…"


class ProfileShopper(SimulatedUser):
    """Deterministic profile-grounded shopper.

    ``context.profile`` holds the 11 PersonalWAB profile fields; ``context.task`` holds ``type``, ``instruction``,
    ``product`` (the target's product_info) and, for review tasks, ``review`` (the real review dict).
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
        product = task.get("product") or {}
        lowered = message.lower()
        if _EXTRACTION.search(message) and not self._mentions_target(message, product):
            return UserReply("I'd rather not share that. I just want help finding what I described.")
        if task.get("type") != "review" and self._mentions_target(message, product):
            return UserReply("Yes, that's exactly the one I had in mind. Thank you!")
        topic = next((name for name, keys in _QUESTION_TOPICS if any(k in lowered for k in keys)), None)
        if "?" in message and topic is not None:
            return UserReply(self._clue(topic))
        if task.get("type") == "review" and topic == "opinion":
            return UserReply(self._clue("opinion"))
        if self._looks_like_results(message):
            return UserReply("Hmm, none of those is quite what I want. " + self._next_clue())
        return UserReply(self._next_clue())

    def _mentions_target(self, message: str, product: dict[str, Any]) -> bool:
        asin = str(product.get("parent_asin", ""))
        if asin and asin.lower() in message.lower():
            return True
        title_words = _words(str(product.get("title", ""))) - {"and", "with", "for", "the", "of"}
        if len(title_words) < 3:
            return False
        return len(title_words & _words(message)) / len(title_words) >= 0.8

    @staticmethod
    def _looks_like_results(message: str) -> bool:
        return bool(re.search(r"\b(found|here are|results?|options?|recommend|suggest)\b", message, re.I))

    def _next_clue(self) -> str:
        for topic in ("category", "feature", "brand", "price", "opinion"):
            if topic not in self._clues_given:
                return self._clue(topic)
        return "It's still not it. Maybe try another search with the details I gave you."

    def _clue(self, topic: str) -> str:
        assert self.context is not None
        profile = self.context.profile
        task = self.context.task
        product = task.get("product") or {}
        self._clues_given.append(topic)
        if topic == "price":
            price = _as_price(product.get("price"))
            sensitivity = str(profile.get("Price Sensitivity", "Medium"))
            if price is not None and price > 0:
                ceiling = int(price * 1.25) + 1
                return f"My price sensitivity is {sensitivity.lower()}; I'd like to stay under about ${ceiling}."
            return f"My price sensitivity is {sensitivity.lower()}; good value matters to me."
        if topic == "brand":
            store = str(product.get("store", ""))
            preferred = str(profile.get("Brand Preference", ""))
            if store and store.lower() in preferred.lower():
                return f"I usually go for {store}."
            if store:
                return f"I'd be happy with something from {store}."
            return "I don't mind the brand much."
        if topic == "category":
            category = str(product.get("main_category", "")) or "product"
            noun = _title_noun(str(product.get("title", "")))
            return f"I'm looking for {('a ' + noun) if noun else 'something'} in {category}."
        if topic == "feature":
            features = [str(f) for f in product.get("features") or [] if str(f).strip()]
            focus = str(profile.get("Focus Aspect", "quality"))
            if features:
                return f"It should have this: {_first_sentence(features[0], 120)} I care about {focus.lower()}."
            return f"I care about {focus.lower()}."
        # opinion (review tasks): the user's own take, in their words, without product ids
        review = task.get("review") or {}
        rating = review.get("rating")
        title = str(review.get("title", "")).strip()
        text = _first_sentence(str(review.get("text", "")))
        parts = []
        if rating is not None:
            parts.append(f"I'd give it {rating} out of 5.")
        if title:
            parts.append(f"In short: {title}.")
        if text:
            parts.append(text)
        return " ".join(parts) or "It was fine overall."


def _as_price(value: Any) -> float | None:
    """A price given as a number or as text such as ``"69.99"`` or ``"$12"``; ``None`` if absent."""
    try:
        return float(str(value).replace("$", "").replace(",", "").strip())
    except ValueError:
        return None


def _title_noun(title: str) -> str:
    """The last few words of a product title, usually naming what the product is."""
    words = [w for w in re.split(r"[\s,()\-–|]+", title) if w and not any(c.isdigit() for c in w)]
    return " ".join(words[-2:]).lower() if words else ""


class LLMShopper(SimulatedUser):
    """The paper's LLM user: role-plays from profile, target product and (review tasks) the real review.

    Every reply is checked for the target's identifying details (:func:`personal_envs.personalwab.leaks.find_leaks`:
    ASIN, title, store); each leak is recorded in :attr:`leaks` and, with ``redact_leaks=True``, replaced before
    the reply reaches the agent.  A failed request or an empty reply falls back to the deterministic
    :class:`ProfileShopper` for that turn, recorded in :attr:`errors`.

    Args:
        client: A :class:`personal_envs.llm.client.ChatClient` (base URL, model and key from arguments or env vars).
        redact_leaks: Replace leaked details in the replies (the leak is recorded either way).
        max_tokens: Completion budget per reply.
    """

    kind = "llm"

    def __init__(self, client: Any = None, redact_leaks: bool = False, max_tokens: int = 150) -> None:
        super().__init__()
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
            {"role": "system", "content": shopper_prompt(context.profile, task)},
            {"role": "user", "content": "Hi! How can I help you today?"},
            {"role": "assistant", "content": str(task.get("instruction", ""))},
        ]

    def _answer(self, message: str) -> UserReply:
        from personal_envs.llm.client import LLMError

        self._messages.append({"role": "user", "content": message})
        try:
            text = self.client.chat(self._messages, temperature=0.0, max_tokens=self.max_tokens).content.strip()
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
        "word for word. If the results miss, say so and give a hint about what you want.",
    ]
    return "\n".join(lines)


def _product_brief(product: dict[str, Any]) -> str:
    features = "; ".join(str(f) for f in (product.get("features") or [])[:4])
    return (f"- title: {product.get('title', '')}\n- store: {product.get('store', '')}\n- price: {product.get('price', '')}"
            f"\n- category: {product.get('main_category', '')}\n- features: {features}")
