"""Simulated shoppers for PersonalWAB's multi-turn setting.

* :class:`ProfileShopper` (default, deterministic): answers clarification questions from the hidden profile and the
  target product's attributes, answers a list of results with a new clue (never saying whether the target is in
  it); never reveals the product
  id, refuses to dump its profile, and answers a question about a specific product (code) the same way whichever
  product it is, so it is no oracle for the target.
* :class:`LLMShopper`: the paper's setup — an LLM role-plays the user from the profile, the target product and (for
  review tasks) the real review, through any OpenAI-compatible endpoint.
"""

from __future__ import annotations

import re
from typing import Any

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


def names_specific_product(message: str) -> bool:
    """True if ``message`` quotes a product code (ASIN-shaped token), whichever product it is."""
    return any(not token.isdigit() for token in _PRODUCT_CODE.findall(message))


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
        if self._looks_like_results(message):  # neutral whether or not the target is among them
            return UserReply("I'll have a look at those. To narrow it down: " + self._next_clue())
        return UserReply(self._next_clue())

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

    Args:
        client: A :class:`personal_envs.llm.client.ChatClient` (base URL, model and key from arguments or env vars).
    """

    kind = "llm"

    def __init__(self, client: Any = None) -> None:
        super().__init__()
        if client is None:
            from personal_envs.llm.client import ChatClient

            client = ChatClient()
        self.client = client
        self._messages: list[dict[str, str]] = []

    def start(self, context: Any) -> None:
        super().start(context)
        task = context.task
        self._messages = [
            {"role": "system", "content": shopper_prompt(context.profile, task)},
            {"role": "user", "content": "Hi! How can I help you today?"},
            {"role": "assistant", "content": str(task.get("instruction", ""))},
        ]

    def _answer(self, message: str) -> UserReply:
        if names_specific_product(message):  # never asked of the LLM: its answer could confirm the target
            return UserReply(PRODUCT_CHECK_REPLY)
        self._messages.append({"role": "user", "content": message})
        response = self.client.chat(self._messages, temperature=0.0, max_tokens=150)
        text = response.content.strip()
        product = (self.context.task.get("product") if self.context else None) or {}
        asin = str(product.get("parent_asin", ""))
        if asin:
            text = text.replace(asin, "that product")
        self._messages.append({"role": "assistant", "content": text})
        return UserReply(text)


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
