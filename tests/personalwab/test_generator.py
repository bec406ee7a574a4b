"""The seeded generator: determinism, schema, task integrity, findability and profile-driven behaviour."""

from __future__ import annotations

import json
import re
import statistics
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from personal_envs.personalwab.data import TASK_TYPES, PersonalWABData, generate, load_profiles, schema_errors
from personal_envs.personalwab.generator import fix_articles, noun_phrase
from personal_envs.personalwab.search import ProductSearch
from personal_envs.personalwab.vocab import FOCUS_SENTENCES, PROFILE_FIELDS, SEARCH_OPENERS, TONE_PHRASES

MAIN_CATEGORIES = {
    "Electronics",
    "Home_and_Kitchen",
    "Clothing_Shoes_and_Jewelry",
    "Grocery_and_Gourmet_Food",
    "Health_and_Household",
}


@pytest.fixture(scope="module")
def data() -> PersonalWABData:
    return generate(seed=11)


@pytest.fixture(scope="module")
def crowd() -> PersonalWABData:
    """More users, for statistics over profiles."""
    return generate(seed=4, n_users=400, n_products=3000)


def _dump(data: PersonalWABData) -> str:
    return json.dumps([data.profiles, data.products, data.histories, data.instructions, data.source])


def _series_key(product: dict[str, Any]) -> tuple[str, str, str]:
    return product["store"], product["details"]["Model Name"].split()[0], product["categories"][1]


def _tone_words(profile: dict[str, str]) -> list[str]:
    words = [w.strip().rstrip(".").capitalize() for w in profile["Tone and Style"].split(",")]
    return [w for w in words if w in TONE_PHRASES]


def test_same_seed_same_data_and_other_seed_differs() -> None:
    first = generate(seed=7, n_users=20, n_products=400)
    assert _dump(first) == _dump(generate(seed=7, n_users=20, n_products=400))
    assert _dump(first) != _dump(generate(seed=8, n_users=20, n_products=400))


def test_sizes_and_schema(data: PersonalWABData) -> None:
    assert data.source == "generated(seed=11, users=60, products=1500)"
    assert len(data.profiles) == 60 and len(data.products) == 1500
    assert len(data.tasks("train")) == 120 and len(data.tasks("test")) == 60
    assert schema_errors(data, limit=1000) == []
    assert {p["main_category"] for p in data.products.values()} == MAIN_CATEGORIES
    assert all(re.fullmatch(r"B0[0-9A-Z]{8}", asin) for asin in data.products)
    assert all(re.fullmatch(r"A[EFG][A-Z2-7]{26}", uid) for uid in data.profiles)
    for product in data.products.values():
        assert product["title"].startswith(product["store"] + " ")
        assert product["details"]["Brand"] == product["store"]
        assert float(product["price"]) > 0 and 1.0 <= product["average_rating"] <= 5.0


@pytest.mark.parametrize(
    ("options", "train", "test"),
    [
        ({"tasks_per_user": 0}, 0, 0),
        ({"tasks_per_user": 6}, 4 * 8, 2 * 8),
        ({"tasks_per_user": 2, "test_per_user": 2}, 0, 2 * 8),
        ({"n_products": 30}, 2 * 8, 8),
    ],
)
def test_other_shapes_stay_valid(options: dict[str, Any], train: int, test: int) -> None:
    generated = generate(seed=1, n_users=8, **{"n_products": 300, **options})
    assert schema_errors(generated, limit=1000) == []
    assert (len(generated.tasks("train")), len(generated.tasks("test"))) == (train, test)


def test_bad_sizes_are_rejected() -> None:
    with pytest.raises(ValueError):
        generate(n_users=0)
    with pytest.raises(ValueError):
        generate(purchases_per_user=(5, 2))


def test_profile_values_match_the_real_vocabulary(data: PersonalWABData, anchors_dir: Path) -> None:
    real = load_profiles(anchors_dir / "personalwab" / "user_profiles.json")
    for field in ("Gender", "Price Sensitivity", "Diversity Preference", "Interaction Complexity"):
        assert {p[field] for p in data.profiles.values()} <= {p[field] for p in real.values()}
    real_ages = {p["Age"] for p in real.values()}
    assert {p["Age"] for p in data.profiles.values()} <= real_ages
    for profile in data.profiles.values():
        assert list(profile) == list(PROFILE_FIELDS)
        assert all(isinstance(value, str) and value for value in profile.values())


def test_task_types_are_balanced_and_spelled_officially(data: PersonalWABData) -> None:
    for split in ("train", "test"):
        counts = Counter(task["type"] for task in data.tasks(split))
        assert set(counts) == set(TASK_TYPES)
        assert max(counts.values()) - min(counts.values()) <= 1


def test_targets_are_held_out_purchases(data: PersonalWABData) -> None:
    for split in ("train", "test"):
        for task in data.tasks(split):
            asin = task["target"]["product_info"]["parent_asin"]
            assert data.products[asin] is task["target"]["product_info"]
            history = data.histories[task["user_id"]]
            held_out = history[-3:]
            assert all(entry["split"] != "history" for entry in held_out)
            assert all(entry["split"] == "history" for entry in history[:-3])
            match = [entry for entry in held_out if entry["product_info"]["parent_asin"] == asin]
            assert len(match) == 1 and match[0]["split"] == split
            assert match[0]["review"] == task["target"]["review"]
            assert task["timestamp"] == match[0]["review"]["timestamp"]
    for uid, history in data.histories.items():  # the test targets are the latest purchases
        assert history[-1]["split"] == "test" and {e["split"] for e in history[-3:-1]} == {"train"}
        assert len({entry["product_info"]["parent_asin"] for entry in history}) == len(history), uid


def test_history_before_hides_the_target_and_everything_later(data: PersonalWABData) -> None:
    for task in data.tasks("test") + data.tasks("train"):
        visible = data.history_before(task["user_id"], task["timestamp"])
        asins = {entry["product_info"]["parent_asin"] for entry in visible}
        assert task["target"]["product_info"]["parent_asin"] not in asins
        assert all(entry["review"]["timestamp"] < task["timestamp"] for entry in visible)
        later = [e for e in data.histories[task["user_id"]] if e["review"]["timestamp"] >= task["timestamp"]]
        assert len(visible) + len(later) == len(data.histories[task["user_id"]])
        assert len(visible) >= 3


def test_instructions_never_leak_the_asin(data: PersonalWABData) -> None:
    for task in data.tasks("train") + data.tasks("test"):
        assert task["target"]["product_info"]["parent_asin"] not in task["task"]
        assert not re.search(r"\bB0[0-9A-Z]{8}\b", task["task"])


def test_search_instructions_use_words_of_the_target(data: PersonalWABData) -> None:
    openers = [o for options in SEARCH_OPENERS.values() for o in options] + ["I'm looking for"]
    glue = {"a", "an", "some", "from", "ideally", "the", "line", "something", "for", "my"}
    for task in data.tasks("test", "search") + data.tasks("train", "search"):
        opener = next(o for o in openers if task["task"].startswith(o))
        request = task["task"][len(opener) :].split(". ")[0].rstrip(".")
        target_words = set(_words(data.text_of(task["target"]["product_info"]["parent_asin"])))
        asked = [word for word in _words(request) if word not in glue]
        assert asked and all(word in target_words for word in asked), (asked, task["task"])


def test_many_search_instructions_say_what_the_product_is_for_not_what_it_is(data: PersonalWABData) -> None:
    # Official instructions are mostly implicit; naming the product's kind every time made search far too easy.
    tasks = data.tasks("test", "search") + data.tasks("train", "search")
    implicit = [t for t in tasks if "something" in t["task"] and " for my " in t["task"]]
    assert 0.3 <= len(implicit) / len(tasks) <= 0.7
    for task in implicit:
        noun = task["target"]["product_info"]["categories"][-1].lower()
        assert noun not in task["task"].lower().split(". ")[0]


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9][a-z0-9'-]*", text.lower().replace(",", " "))


def test_bm25_finds_many_search_targets_but_not_all(data: PersonalWABData) -> None:
    # Calibrated against the paper's no-memory search (0.647 result accuracy): the instruction alone finds the
    # target in the top 10 often, not always (before the calibration: 0.965).
    asins = list(data.products)
    search = ProductSearch(asins, [data.text_of(asin) for asin in asins])
    tasks = data.tasks("test", "search") + data.tasks("train", "search")
    hits = [task["target"]["product_info"]["parent_asin"] in search.search(task["task"]) for task in tasks]
    assert 0.5 <= sum(hits) / len(hits) <= 0.9


def test_recommend_targets_are_mostly_a_new_interest(data: PersonalWABData) -> None:
    # As in the real histories, the next purchase seldom continues what the user bought before (the paper's
    # recommendation baselines stay at or below 0.06); a few targets do continue a series.
    continuing = 0
    tasks = data.tasks("test", "recommend") + data.tasks("train", "recommend")
    for task in tasks:
        earlier = data.history_before(task["user_id"], task["timestamp"])
        key = _series_key(task["target"]["product_info"])
        continuing += any(_series_key(entry["product_info"]) == key for entry in earlier)
        assert task["target"]["product_info"]["categories"][-1].lower() not in task["task"].lower()
    assert continuing / len(tasks) <= 0.3


def test_purchases_follow_series_and_brand_preference(crowd: PersonalWABData) -> None:
    same_series = transitions = preferred = purchases = 0
    for uid, history in crowd.histories.items():
        brands = {b.strip() for b in crowd.profiles[uid]["Brand Preference"].split(",")}
        for before, after in zip(history, history[1:], strict=False):
            transitions += 1
            same_series += _series_key(before["product_info"]) == _series_key(after["product_info"])
        purchases += len(history)
        preferred += sum(entry["product_info"]["store"] in brands for entry in history)
    assert same_series / transitions > 0.3
    assert preferred / purchases > 0.4
    buyers = Counter(e["product_info"]["parent_asin"] for h in crowd.histories.values() for e in h)
    assert buyers.most_common(1)[0][1] >= 5  # shared items: something for a recommender to learn from


def test_reviews_follow_tone_and_focus(crowd: PersonalWABData) -> None:
    for uid, history in crowd.histories.items():
        profile = crowd.profiles[uid]
        tones = _tone_words(profile)
        aspects = [a.strip() for a in profile["Focus Aspect"].split(",") if a.strip() in FOCUS_SENTENCES]
        assert tones and aspects
        for entry in history:
            text = entry["review"]["text"]
            noun = noun_phrase(entry["product_info"]["categories"][-1]).lower()
            openings = [
                fix_articles(t.format(noun=noun)).lower()
                for tone in tones
                for pair in TONE_PHRASES[tone]
                for t in pair
            ]
            assert any(text.lower().startswith(opening) for opening in openings), (tones, text)
    # Focus aspects show across a user's reviews, not in every one (real reviews of one user vary): the users'
    # own focus sentences are far more frequent in their reviews than the focus sentences of other aspects.
    own, other = [], []
    for uid, history in crowd.histories.items():
        aspects = {a.strip() for a in crowd.profiles[uid]["Focus Aspect"].split(",")}
        for entry in history:
            text = entry["review"]["text"].lower()
            for aspect, pair in FOCUS_SENTENCES.items():
                said = any(sentence.split("{")[0].lower() in text for sentence in pair if sentence.split("{")[0])
                (own if aspect in aspects else other).append(said)
    assert sum(own) > 0 and sum(own) / len(own) > 5 * sum(other) / len(other)


def test_review_length_and_rating_follow_the_profile(crowd: PersonalWABData) -> None:
    prices: dict[str, list[float]] = {}
    for product in crowd.products.values():
        prices.setdefault(product["categories"][-1], []).append(float(product["price"]))

    def expensive(product: dict[str, Any]) -> bool:
        same_noun = prices[product["categories"][-1]]
        return sum(p < float(product["price"]) for p in same_noun) / len(same_noun) > 0.8

    words: dict[str, list[int]] = {"Low": [], "High": []}
    gap: dict[str, list[float]] = {"Low": [], "High": []}
    for uid, history in crowd.histories.items():
        profile = crowd.profiles[uid]
        if profile["Interaction Complexity"] in words:
            words[profile["Interaction Complexity"]].extend(len(e["review"]["text"].split()) for e in history)
        if profile["Price Sensitivity"] in gap:
            gap[profile["Price Sensitivity"]].extend(
                e["review"]["rating"] - e["product_info"]["average_rating"]
                for e in history
                if expensive(e["product_info"])
            )
    assert statistics.mean(words["Low"]) + 8 < statistics.mean(words["High"])
    assert statistics.mean(gap["High"]) + 0.5 < statistics.mean(gap["Low"])


@pytest.mark.timeout(120)
def test_full_size_catalogue_builds() -> None:
    full = generate(seed=0, n_users=100, n_products=35772)
    assert len(full.products) == 35772
    assert {p["main_category"] for p in full.products.values()} == MAIN_CATEGORIES
    assert len({p["title"] for p in full.products.values()}) > 30000
    assert schema_errors(full, limit=10) == []
    assert len(full.tasks("test")) == 100


def test_official_scale_option_sizes_history_lengths_and_text_lengths() -> None:
    """``scale="official"`` asks for the official sizes; the same options at a tenth of the users give the official
    mean history length (38) and documents of about 221 terms (the official index's mean)."""
    from personal_envs.personalwab import functions as fn
    from personal_envs.personalwab.analysis import analyze
    from personal_envs.personalwab.generator import OFFICIAL_SCALE

    assert (OFFICIAL_SCALE["n_users"], OFFICIAL_SCALE["n_products"], OFFICIAL_SCALE["n_test_tasks"]) == (
        1000, 35_772, 2174)
    options = {**OFFICIAL_SCALE, "n_users": 100, "n_products": 3000, "n_test_tasks": 217}
    data = generate(seed=3, **options)
    assert len(data.profiles) == 100 and len(data.products) == 3000 and len(data.instructions["test"]) == 217
    per_user = Counter(r["user_id"] for r in data.instructions["test"])
    assert sorted(set(per_user.values())) == [2, 3]  # 17 users with three test tasks, the others two
    assert 35 <= statistics.mean(len(h) for h in data.histories.values()) <= 41
    terms = statistics.mean(len(analyze(fn.search_contents(p))) for p in data.products.values())
    assert 205 <= terms <= 235
    short = generate(seed=3, **{**options, "product_text": "short"})
    assert [r["task"] for r in short.instructions["test"]] == [r["task"] for r in data.instructions["test"]]
    assert statistics.mean(len(analyze(fn.search_contents(p))) for p in short.products.values()) < 120
    assert data.source.endswith(", official texts)")
    with pytest.raises(ValueError, match="scale"):
        generate(scale="huge")
    with pytest.raises(ValueError, match="product_text"):
        generate(product_text="long")
