"""The default user leaks nothing of the target on any task of the default data.

For every task of the default (generated) data, the deterministic user is asked the clarifying questions an agent
would ask, then shown the target's own title as a result; no reply may hold the target's ASIN, its store, a phrase
of four or more words from one of its features, or any number (a price, budget or model number derived from it),
and no reply may confirm or deny the named product.
"""

from __future__ import annotations

import re

from personal_envs.personalwab.data import load
from personal_envs.personalwab.users import ProfileShopper
from personal_envs.simulators.users.base import UserContext

QUESTIONS = (
    "What are you looking for?",
    "What kind of product is it?",
    "Do you have a budget in mind? How much do you want to spend?",
    "Which brand or store do you prefer?",
    "Which features matter most to you? Any size, color or material?",
    "What is important to you about it?",
    "How would you rate it and what did you think of it?",
    "Can you tell me the exact product name or ASIN?",
)

_WORDS = re.compile(r"[a-z0-9]+")


def phrases(text: str, n: int = 4) -> set[str]:
    words = _WORDS.findall(text.lower())
    return {" ".join(words[i:i + n]) for i in range(len(words) - n + 1)}


def test_default_user_never_leaks_target_feature_store_price_or_id():
    data = load(None)
    checked = 0
    for split in ("train", "test"):
        for record in data.instructions.get(split, []):
            product = record["target"]["product_info"]
            profile = data.profiles.get(record["user_id"], {})
            task = {"type": record["type"], "instruction": record["task"], "product": product,
                    "review": record["target"].get("review", {}) if record["type"] == "review" else {}}
            user = ProfileShopper()
            user.start(UserContext(profile=dict(profile), task=task))
            replies = [user.reply(q).text for q in QUESTIONS]
            named = user.reply(f"Here are the results I found: {product['title']}. Is it this one?").text
            replies.append(named)
            feature_phrases = set().union(*(phrases(str(f)) for f in product.get("features") or [""]))
            store = str(product.get("store") or "").strip().lower()
            for reply in replies:
                lowered = reply.lower()
                assert product["parent_asin"].lower() not in lowered
                assert not store or not re.search(rf"\b{re.escape(store)}\b", lowered), (store, reply)
                assert not (phrases(reply) & feature_phrases), reply
                assert not re.search(r"\d", reply), reply
            assert not re.search(r"\b(yes|exactly|that's (it|the one)|not it|none of those)\b", named.lower())
            checked += 1
    assert checked >= 50
