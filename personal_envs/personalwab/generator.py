"""Seeded PersonalWAB-style data in the official schema (see :mod:`personal_envs.personalwab.data`).

How the data is made (all from one ``random.Random``, so one seed gives identical data):

- Catalogue: the paper's five main categories (``Electronics``, ``Home_and_Kitchen``,
  ``Clothing_Shoes_and_Jewelry``, ``Grocery_and_Gourmet_Food``, ``Health_and_Household``), each with themes; a theme is an ordered chain of product nouns. Products come
  in *series*: one brand and product line covering the theme's chain (a Velora Flex camera, lens, memory card ...)
  with a price tier (budget / mid / premium), a quality level and a popularity. Titles are built from brand, line,
  descriptor, noun, material, variant (colour, flavour or scent) and size; features, description, categories and
  details repeat those facts.
- Users: the 11 profile fields with value sets like the real file. Shopping Interest names the user's themes,
  Brand Preference brands that sell in them.
- Purchases: users mostly follow the series they started, in chain order (the co-purchase structure a sequential
  recommender learns), pick new series by popularity, preferred brand and price tier against Price Sensitivity,
  and stray to other themes as often as Diversity Preference says.
- Reviews: the rating follows product quality and price tier against Price Sensitivity; the text opens with a
  phrase of one of the user's tone words, mentions the Focus Aspects, refers to brands or past purchases as Item
  Reference says, and is as long as Interaction Complexity says.
- Instructions: each user's last ``tasks_per_user`` purchases are the targets (the latest ``test_per_user`` form
  the test split, the others train; history entries carry ``split`` accordingly). Search instructions name the
  target's noun and some of its attributes (and the brand when it is a preferred one), never its ASIN; recommend
  instructions are vague and their targets continue the user's most recent series; review instructions ask for a
  review of the target, whose real review is the reference.
"""

from __future__ import annotations

import bisect
import functools
import itertools
import math
import random
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from personal_envs.core.errors import InputError
from personal_envs.personalwab.data import TASK_TYPES, PersonalWABData
from personal_envs.personalwab.vocab import (
    AGE_BANDS,
    BRAND_PREFIXES,
    BRAND_SUFFIXES,
    CATEGORIES,
    COMMON_TONES,
    FOCUS_ASPECTS,
    FOCUS_SENTENCES,
    FOCUS_WEIGHTS,
    GENDERS,
    ITEM_REFERENCES,
    LEVEL_WEIGHTS,
    LEVELS,
    LINE_NAMES,
    OCCUPATIONS,
    PRICE_TIERS,
    RECOMMEND_REQUESTS,
    REVIEW_CIRCUMSTANCES,
    REVIEW_REQUESTS,
    SEARCH_OPENERS,
    THEME_SIZES,
    TONE_PHRASES,
    TONE_WORDS,
    Category,
    Theme,
)

ASIN_ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
UID_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
HOUR_MS = 3_600_000
DAY_MS = 24 * HOUR_MS
FIRST_PURCHASE_MS = 1_420_070_400_000  # 2015-01-01 UTC
#: Price Sensitivity -> weight of a price tier when choosing a series.
TIER_FIT: dict[str, dict[str, float]] = {
    "Low": {"budget": 0.5, "mid": 1.0, "premium": 2.5},
    "Medium": {"budget": 1.0, "mid": 1.5, "premium": 0.8},
    "High": {"budget": 3.0, "mid": 1.0, "premium": 0.25},
}
#: Price Sensitivity -> rating shift for a price tier.
TIER_RATING: dict[str, dict[str, float]] = {
    "Low": {"budget": -0.4, "mid": 0.0, "premium": 0.3},
    "Medium": {"budget": 0.0, "mid": 0.0, "premium": -0.2},
    "High": {"budget": 0.4, "mid": -0.2, "premium": -1.2},
}
#: How often a search instruction names each attribute of its target. The brand is often left out so that
#: an agent gains from knowing the user's preferred brands (profile or history).
SEARCH_MENTION: dict[str, float] = {
    "noun": 0.5,
    "descriptor": 0.3,
    "variant": 0.2,
    "material": 0.3,
    "preferred brand": 0.2,
    "other brand": 0.05,
    "line": 0.1,
}
SESSION_CONTINUE = 0.4  # chance the next purchase continues the series just bought from
#: Chance a recommend target continues a series of the history (else it is the next purchase, like any other).
RECOMMEND_CONTINUES = 0.1
STRAY_PROBABILITY: dict[str, float] = {"Low": 0.04, "Medium": 0.12, "High": 0.3}
#: Nouns that are plural, with the unit a sentence uses for one of them ("this pair of jeans").
PLURAL_UNITS: dict[str, str] = {
    "athletic socks": "pair",
    "running shorts": "pair",
    "running shoes": "pair",
    "earrings": "pair",
    "jeans": "pair",
    "sneakers": "pair",
    "hiking boots": "pair",
    "insulated gloves": "pair",
    "slippers": "pair",
    "lounge pants": "pair",
    "storage bins": "set",
    "measuring cups": "set",
    "microfiber cloths": "pack",
    "protein bars": "box",
    "coffee pods": "box",
    "brush heads": "pack",
    "dishwasher pods": "pack",
    "paper towels": "pack",
    "trash bags": "box",
    "pain relief patches": "pack",
    "earbud tips": "set",
}
#: Focus aspects that only make sense for some main categories (others apply everywhere).
ASPECT_CATEGORIES: dict[str, frozenset[str]] = {
    "Taste": frozenset(["Grocery_and_Gourmet_Food"]),
    "Fit": frozenset(["Clothing_Shoes_and_Jewelry"]),
    "Comfort": frozenset(["Clothing_Shoes_and_Jewelry", "Home_and_Kitchen", "Health_and_Household"]),
}
MASS_CATEGORIES = frozenset(["Grocery_and_Gourmet_Food"])


@dataclass
class _Series:
    """A brand's product line over one theme's noun chain."""

    theme_key: int
    category: Category
    theme: Theme
    brand: str
    line: str
    tier: str
    quality: float
    popularity: float
    items: list[_Item] = field(default_factory=list)


@dataclass
class _Item:
    """Generator-side facts about one product (not part of the output)."""

    asin: str
    series: _Series
    position: int
    noun: str
    descriptor: str
    material: str
    variant: str
    size: str
    price: float
    product: dict[str, Any]


@dataclass
class _User:
    uid: str
    profile: dict[str, str]
    themes: list[int]
    theme_weights: list[float]
    brands: list[str]
    tones: list[str]
    aspects: list[str]


@dataclass
class _Catalog:
    products: dict[str, dict[str, Any]]
    items: dict[str, _Item]
    themes: list[tuple[Category, Theme]]
    series_by_theme: list[list[_Series]]
    cumulative: dict[tuple[int, str], list[float]]  # (theme, sensitivity) -> cumulative choice weights
    by_theme_brand: dict[tuple[int, str], list[_Series]]
    brands_by_category: dict[str, list[str]]


#: ``generate(scale="official")``: the official release's sizes (1,000 users, 35,772 products, 2,174 test
#: instructions), its mean history length (38 entries per user) and product texts as long as its index's documents
#: (221 terms per document after analysis; the default catalogue has about 100).
OFFICIAL_SCALE: dict[str, Any] = {
    "n_users": 1000, "n_products": 35_772, "n_test_tasks": 2174, "tasks_per_user": 4,
    "purchases_per_user": (20, 56), "product_text": "official",
}
#: Product text lengths: ``"short"`` (the default catalogue) or ``"official"`` (Amazon-like listings: more feature
#: bullets, a longer description and the usual details such as dimensions, weight, manufacturer and model number).
PRODUCT_TEXTS = ("short", "official")


def generate(
    seed: int = 0,
    n_users: int = 60,
    n_products: int = 1500,
    tasks_per_user: int = 3,
    *,
    test_per_user: int | None = None,
    purchases_per_user: tuple[int, int] = (12, 30),
    n_test_tasks: int | None = None,
    product_text: str = "short",
    scale: str | None = None,
) -> PersonalWABData:
    """Generate users, products, histories and instructions in the official PersonalWAB schema.

    Args:
        seed: Same seed, same data.
        n_users: Number of users.
        n_products: Catalogue size (the official release has 35,772).
        tasks_per_user: Instructions per user, made from the user's latest purchases.
        test_per_user: How many of those (the latest) form the test split; default ``max(1, round(tasks/3))``.
        purchases_per_user: Range of history lengths (targets included).
        n_test_tasks: Total test instructions instead of ``test_per_user`` (spread over the users: some get one
            more than others); at most ``tasks_per_user`` per user.
        product_text: ``"short"`` or ``"official"`` (:data:`PRODUCT_TEXTS`); the official texts come from a stream
            of their own, so the rest of the data is the same either way.
        scale: ``"official"`` applies :data:`OFFICIAL_SCALE` (the sizes above are then ignored).

    Raises:
        ValueError: a size is out of range.
    """
    if scale is not None:
        if scale != "official":
            raise InputError(f"scale must be None or 'official', got {scale!r}")
        return generate(seed, test_per_user=test_per_user, **OFFICIAL_SCALE)
    if product_text not in PRODUCT_TEXTS:
        raise InputError(f"product_text must be one of {PRODUCT_TEXTS}, got {product_text!r}")
    if n_users < 1 or n_products < 1 or tasks_per_user < 0:
        raise InputError("n_users and n_products must be >= 1 and tasks_per_user >= 0")
    low, high = purchases_per_user
    if low < 1 or high < low:
        raise InputError("purchases_per_user must be (low, high) with 1 <= low <= high")
    if test_per_user is None:
        test_per_user = max(1, round(tasks_per_user / 3)) if tasks_per_user else 0
    test_per_user = min(max(test_per_user, 0), tasks_per_user)
    if n_test_tasks is not None and not 0 <= n_test_tasks <= n_users * tasks_per_user:
        raise InputError(f"n_test_tasks must be between 0 and n_users * tasks_per_user, got {n_test_tasks}")

    rng = random.Random(f"personalwab-{seed}")
    catalog = _build_catalog(rng, n_products, official_texts=product_text == "official")
    profiles: dict[str, dict[str, str]] = {}
    histories: dict[str, list[dict[str, Any]]] = {}
    instructions: dict[str, list[dict[str, Any]]] = {"train": [], "test": []}
    used_uids: set[str] = set()
    for user_index in range(n_users):
        user = _make_user(rng, catalog, used_uids)
        profiles[user.uid] = user.profile
        n_purchases = max(rng.randint(low, high), tasks_per_user + 3)
        tail_types = [TASK_TYPES[(user_index + offset) % len(TASK_TYPES)] for offset in range(tasks_per_user)]
        purchases = _purchase_sequence(rng, user, catalog, n_purchases, tail_types)
        tail_start = len(purchases) - min(tasks_per_user, max(len(purchases) - 1, 0))
        tail_types = tail_types[len(tail_types) - (len(purchases) - tail_start) :]
        user_tests = test_per_user
        if n_test_tasks is not None:
            user_tests = n_test_tasks // n_users + (1 if user_index < n_test_tasks % n_users else 0)
        timestamp = FIRST_PURCHASE_MS + rng.randrange(0, 5 * 365 * DAY_MS)
        history: list[dict[str, Any]] = []
        previous: _Item | None = None
        for index, item in enumerate(purchases):
            if previous is not None and previous.series is item.series:
                timestamp += rng.randrange(HOUR_MS, 4 * DAY_MS)
            else:
                timestamp += rng.randrange(2 * DAY_MS, 45 * DAY_MS)
            timestamp += rng.randrange(1, 60_000)
            review = _make_review(rng, user, item, previous, timestamp)
            split = "history"
            if index >= tail_start:
                split = "test" if index >= len(purchases) - user_tests else "train"
            history.append({"product_info": item.product, "review": review, "split": split})
            if split != "history":
                task_type = tail_types[index - tail_start]
                instructions[split].append(
                    {
                        "user_id": user.uid,
                        "task": _make_instruction(rng, user, item, review, task_type),
                        "target": {"product_info": item.product, "review": review, "split": split},
                        "timestamp": timestamp,
                        "type": task_type,
                    }
                )
            previous = item
        histories[user.uid] = history
    return PersonalWABData(
        profiles=profiles,
        products=catalog.products,
        histories=histories,
        instructions=instructions,
        source=f"generated(seed={seed}, users={n_users}, products={n_products}"
               + (", official texts)" if product_text == "official" else ")"),
    )


# --- catalogue ----------------------------------------------------------------------------------------------------


def _weighted(rng: random.Random, pairs: tuple[tuple[str, float], ...]) -> str:
    return rng.choices([value for value, _ in pairs], weights=[weight for _, weight in pairs])[0]


@functools.lru_cache(maxsize=4096)
def _capitalize(words: str) -> str:
    return " ".join(word[:1].upper() + word[1:] for word in words.split(" "))


def _brand_pools(rng: random.Random, n_products: int) -> dict[str, list[str]]:
    names = [prefix + suffix for prefix, suffix in itertools.product(BRAND_PREFIXES, BRAND_SUFFIXES)]
    rng.shuffle(names)
    per_category = len(names) // len(CATEGORIES)
    wanted = min(per_category, max(8, n_products // 120))
    pools: dict[str, list[str]] = {}
    for index, category in enumerate(CATEGORIES):
        chunk = names[index * per_category : index * per_category + wanted]
        pools[category.main_category] = [name.upper() if rng.random() < 0.15 else name for name in chunk]
    return pools


def _new_asin(rng: random.Random, used: dict[str, Any]) -> str:
    while True:
        asin = "B0" + "".join(rng.choices(ASIN_ALPHABET, k=8))
        if asin not in used:
            return asin


def _build_catalog(rng: random.Random, n_products: int, official_texts: bool = False) -> _Catalog:
    themes = [(category, theme) for category in CATEGORIES for theme in category.themes]
    brands = _brand_pools(rng, n_products)
    base_price: dict[tuple[int, int], float] = {}
    for key, (category, theme) in enumerate(themes):
        low, high = category.price_range
        for position in range(len(theme.chain)):
            share = rng.uniform(0.55, 1.0) if position == 0 else rng.uniform(0.0, 0.6)
            base_price[key, position] = low * (high / low) ** share
    products: dict[str, dict[str, Any]] = {}
    items: dict[str, _Item] = {}
    series_by_theme: list[list[_Series]] = [[] for _ in themes]
    for key in itertools.cycle(range(len(themes))):
        if len(products) >= n_products:
            break
        category, theme = themes[key]
        series = _Series(
            theme_key=key,
            category=category,
            theme=theme,
            brand=rng.choice(brands[category.main_category]),
            line=rng.choice(LINE_NAMES),
            tier=_weighted(rng, (("budget", 0.35), ("mid", 0.4), ("premium", 0.25))),
            quality=rng.uniform(3.3, 4.9),
            popularity=math.exp(rng.gauss(4.0, 1.3)),
        )
        series_by_theme[key].append(series)
        for position, noun in enumerate(theme.chain):
            if len(products) >= n_products:
                break
            item = _make_item(rng, series, position, noun, base_price[key, position], products)
            if official_texts:
                _lengthen(item)
            series.items.append(item)
            items[item.asin] = item
            products[item.asin] = item.product
    cumulative: dict[tuple[int, str], list[float]] = {}
    by_theme_brand: dict[tuple[int, str], list[_Series]] = {}
    for key, series_list in enumerate(series_by_theme):
        for level in LEVELS:
            weights = [s.popularity**0.8 * TIER_FIT[level][s.tier] for s in series_list]
            cumulative[key, level] = list(itertools.accumulate(weights))
        for series in series_list:
            by_theme_brand.setdefault((key, series.brand), []).append(series)
    return _Catalog(products, items, themes, series_by_theme, cumulative, by_theme_brand, brands)


def _make_item(
    rng: random.Random, series: _Series, position: int, noun: str, base: float, used: dict[str, Any]
) -> _Item:
    category, theme = series.category, series.theme
    tier_factor = dict(PRICE_TIERS)[series.tier]
    price = max(1.99, math.floor(base * tier_factor * rng.uniform(0.85, 1.15)) + 0.99)
    noun_words = set(noun.lower().split())
    descriptor = rng.choice([d for d in theme.descriptors if not noun_words & set(d.lower().split())])
    material = rng.choice([m for m in theme.materials if not noun_words & set(m.lower().split())])
    variant = rng.choice(category.variants)
    size = rng.choice(THEME_SIZES.get(theme.name, category.sizes))
    asin = _new_asin(rng, used)
    brand, line = series.brand, series.line
    title = f"{brand} {line} {_capitalize(descriptor)} {_capitalize(noun)}, {_capitalize(material)}, {variant} - {size}"
    features = [
        f"{descriptor.upper()} DESIGN: this {noun} from {brand} is made of {material} for everyday use",
        f"{variant} {category.variant_key.lower()} in {size}; easy to match with the rest of your {theme.label}",
        f"Part of the {brand} {line} collection for your {theme.label}",
    ]
    if rng.random() < 0.6:
        features.append(f"{brand} satisfaction guarantee with friendly customer support")
    description = [
        f"The {brand} {line} {noun} brings {descriptor} {material} craftsmanship to your {theme.label}."
    ]
    if rng.random() < 0.5:
        description.append(f"Pair it with other {brand} {line} products to round out your {theme.label}.")
    details: dict[str, Any] = {
        "Brand": brand,
        category.variant_key: variant,
        "Material": _capitalize(material),
        category.size_key: size,
    }
    for key, options in category.detail_extras:
        if rng.random() < 0.7:
            details[key] = rng.choice(options)
    details["Model Name"] = f"{line} {rng.randint(100, 999)}"
    first_available = datetime.fromtimestamp(
        (FIRST_PURCHASE_MS - rng.randrange(0, 6 * 365 * DAY_MS)) / 1000, tz=UTC
    )
    details["Date First Available"] = f"{first_available:%B} {first_available.day}, {first_available.year}"
    product = {
        "main_category": category.main_category,
        "title": title,
        "average_rating": round(min(5.0, max(1.0, series.quality + rng.gauss(0.0, 0.15))), 1),
        "rating_number": max(1, int(series.popularity * rng.uniform(0.5, 1.5))),
        "features": features,
        "description": description,
        "price": f"{price:.2f}",
        "store": brand,
        "categories": [category.display, theme.subcategory, _capitalize(noun)],
        "details": details,
        "parent_asin": asin,
    }
    return _Item(asin, series, position, noun, descriptor, material, variant, size, price, product)


_CARE = ("wipe clean with a damp cloth", "hand wash recommended to keep it like new", "easy to clean and store",
         "dishwasher safe parts for quick cleanup", "store in a cool, dry place away from direct sunlight")
_GIFTS = ("birthdays, holidays and housewarmings", "Christmas, Mother's Day and Father's Day",
          "anniversaries, graduations and any special occasion")
_PROMISES = ("We stand behind every product we make", "Your satisfaction is our top priority",
             "Designed and tested by our team to last", "Thousands of happy customers already love it")


def _lengthen(item: _Item) -> None:
    """Give a product an Amazon-like listing (official-scale texts): more feature bullets, a longer description and
    the usual details.  Drawn from a stream of the product's own, so the rest of the data does not change."""
    rng = random.Random(f"text-{item.asin}")
    product, series = item.product, item.series
    brand, line, noun, theme = series.brand, series.line, item.noun, series.theme.label
    material, variant, size = item.material, item.variant, item.size
    bullets = [
        f"HIGH QUALITY MATERIAL: the {material} construction is durable, sturdy and built to last, so your {noun} "
        f"keeps working day after day without wearing out",
        f"EASY TO USE AND CARE FOR: {rng.choice(_CARE)}; the {variant.lower()} finish keeps its look after regular use "
        f"and fits right in with the rest of your {theme}",
        f"PERFECT GIFT IDEA: a thoughtful present for anyone who loves {theme}, great for {rng.choice(_GIFTS)}",
        f"WHAT YOU GET: 1 x {brand} {line} {noun} ({size}) and a user guide; if you have any question about your "
        f"order, please contact us and we will reply within 24 hours",
        f"{rng.choice(_PROMISES).upper()}: every {brand} product is checked before it ships, and we offer a "
        f"{rng.choice(('30-day', '60-day', '90-day', '1-year'))} money back guarantee",
    ]
    product["features"] = list(product["features"]) + rng.sample(bullets, rng.randint(2, 3))
    description = [
        f"Product Description: the {brand} {line} {noun} is made for people who want {theme} that simply works. "
        f"Its {material} body is light yet strong, and the {variant.lower()} color goes with any style.",
        f"Whether you use it every day or only now and then, this {noun} is easy to set up, easy to clean and ready "
        f"when you need it. {rng.choice(_PROMISES)}.",
    ]
    product["description"] = list(product["description"]) + description[: rng.randint(1, 2)]
    inches = sorted(round(rng.uniform(1.0, 24.0), 1) for _ in range(3))
    ounces = round(rng.uniform(1.0, 80.0), 1)
    details = dict(product["details"])
    details.update({
        "Product Dimensions": f"{inches[2]} x {inches[1]} x {inches[0]} inches; {ounces} Ounces",
        "Item Weight": f"{ounces} ounces",
        "Item model number": f"{line[:3].upper()}-{rng.randint(1000, 9999)}",
        "Manufacturer": brand,
        "Is Discontinued By Manufacturer": "No",
        "Best Sellers Rank": f"#{rng.randint(1_000, 900_000):,} in {series.category.display}",
    })
    product["details"] = details


# --- users --------------------------------------------------------------------------------------------------------


def _choose_series(rng: random.Random, catalog: _Catalog, theme_key: int, level: str) -> _Series:
    cumulative = catalog.cumulative[theme_key, level]
    index = bisect.bisect_right(cumulative, rng.random() * cumulative[-1])
    return catalog.series_by_theme[theme_key][min(index, len(cumulative) - 1)]


def _make_user(rng: random.Random, catalog: _Catalog, used_uids: set[str]) -> _User:
    while True:
        uid = "A" + rng.choice("EFG") + "".join(rng.choices(UID_ALPHABET, k=26))
        if uid not in used_uids:
            used_uids.add(uid)
            break
    sensitivity = rng.choices(LEVELS, weights=LEVEL_WEIGHTS["Price Sensitivity"])[0]
    nonempty = [key for key, series in enumerate(catalog.series_by_theme) if series]
    primary = rng.choice(nonempty)
    primary_category = catalog.themes[primary][0].main_category
    same_category = [
        k for k in nonempty if catalog.themes[k][0].main_category == primary_category and k != primary
    ]
    themes = [primary]
    for _ in range(rng.randint(1, 3)):
        pool = same_category if same_category and rng.random() < 0.5 else nonempty
        candidate = rng.choice(pool)
        if candidate not in themes:
            themes.append(candidate)
    theme_weights = [3.0] + [rng.uniform(0.8, 2.0) for _ in themes[1:]]

    interests: list[str] = []
    for key in themes:
        category, theme = catalog.themes[key]
        phrase = rng.choice(theme.interests + category.interests[:1])
        if phrase not in interests:
            interests.append(phrase)
    brands: list[str] = []
    for key in themes:
        for _ in range(rng.randint(1, 3)):
            brand = _choose_series(rng, catalog, key, sensitivity).brand
            if brand not in brands:
                brands.append(brand)
    if rng.random() < 0.5:
        other = rng.choice(CATEGORIES).main_category
        brand = rng.choice(catalog.brands_by_category[other])
        if brand not in brands:
            brands.append(brand)
    rng.shuffle(brands)

    tones: list[str] = [rng.choice(COMMON_TONES) if rng.random() < 0.85 else rng.choice(TONE_WORDS)]
    while len(tones) < rng.choice((2, 3, 3)):
        tone = rng.choice(COMMON_TONES) if rng.random() < 0.6 else rng.choice(TONE_WORDS)
        if tone not in tones:
            tones.append(tone)
    tone_text = ", ".join([tones[0]] + [t if rng.random() < 0.6 else t.lower() for t in tones[1:]])

    aspects: list[str] = []
    for _ in range(rng.randint(2, 4)):
        aspect = rng.choices(FOCUS_ASPECTS, weights=FOCUS_WEIGHTS)[0]
        if aspect not in aspects:
            aspects.append(aspect)

    profile = {
        "Gender": _weighted(rng, GENDERS),
        "Age": _weighted(rng, AGE_BANDS),
        "Occupation": _weighted(rng, OCCUPATIONS),
        "Price Sensitivity": sensitivity,
        "Shopping Interest": ", ".join(interests),
        "Brand Preference": ", ".join(brands),
        "Diversity Preference": rng.choices(LEVELS, weights=LEVEL_WEIGHTS["Diversity Preference"])[0],
        "Interaction Complexity": rng.choices(LEVELS, weights=LEVEL_WEIGHTS["Interaction Complexity"])[0],
        "Tone and Style": tone_text,
        "Item Reference": _weighted(rng, ITEM_REFERENCES),
        "Focus Aspect": ", ".join(aspects),
    }
    return _User(uid, profile, themes, theme_weights, brands, tones, aspects)


# --- purchases ----------------------------------------------------------------------------------------------------


def _purchase_sequence(
    rng: random.Random, user: _User, catalog: _Catalog, count: int, tail_types: list[str]
) -> list[_Item]:
    """The user's purchases in time order; a recommend target continues a series with :data:`RECOMMEND_CONTINUES`."""
    bought: set[str] = set()
    next_position: dict[int, tuple[_Series, int]] = {}  # theme -> (series in progress, next chain position)
    recent: list[_Series] = []  # series touched, most recent last
    sequence: list[_Item] = []
    tail_start = count - len(tail_types)
    # Most recommend targets are simply the user's next purchase, as in the official (real) histories, where the
    # next item is seldom predictable; a few continue a series the user is in.
    continues = {tail_start + offset for offset, kind in enumerate(tail_types)
                 if kind == "recommend" and rng.random() < RECOMMEND_CONTINUES}
    for index in range(count):
        item: _Item | None = None
        if index in continues:
            item = _continue_recent(recent, next_position, bought)
        elif (
            index + 1 in continues
            and _continue_recent(recent, next_position, bought) is None
        ):
            # the next purchase is a recommend target: give it a series to continue
            item = _fresh_series_start(rng, user, catalog, bought)
        target = index >= tail_start and tail_types[index - tail_start] == "recommend"
        if item is None and target and index not in continues:
            item = _fresh_series_start(rng, user, catalog, bought)  # a new interest, as real next purchases are
        if item is None and recent and not target and rng.random() < SESSION_CONTINUE:
            item = _continue_recent(recent[-1:], next_position, bought)
        if item is None:
            item = _next_item(rng, user, catalog, next_position, bought)
        if item is None:
            break
        sequence.append(item)
        bought.add(item.asin)
        next_position[item.series.theme_key] = (item.series, item.position + 1)
        if recent and recent[-1] is item.series:
            continue
        recent.append(item.series)
    return sequence


def _continue_recent(
    recent: list[_Series], next_position: dict[int, tuple[_Series, int]], bought: set[str]
) -> _Item | None:
    for series in reversed(recent):
        state = next_position.get(series.theme_key)
        if state is None or state[0] is not series:
            continue
        for item in series.items[state[1] :]:
            if item.asin not in bought:
                return item
    return None


def _fresh_series_start(rng: random.Random, user: _User, catalog: _Catalog, bought: set[str]) -> _Item | None:
    """The first item of a series in one of the user's themes with at least two items not bought yet."""
    level = user.profile["Price Sensitivity"]
    for _attempt in range(20):
        theme_key = rng.choices(user.themes, weights=user.theme_weights)[0]
        series = _choose_series(rng, catalog, theme_key, level)
        if len(series.items) >= 2 and not any(item.asin in bought for item in series.items[:2]):
            return series.items[0]
    return None


def _next_item(
    rng: random.Random,
    user: _User,
    catalog: _Catalog,
    next_position: dict[int, tuple[_Series, int]],
    bought: set[str],
) -> _Item | None:
    level = user.profile["Price Sensitivity"]
    stray = STRAY_PROBABILITY[user.profile["Diversity Preference"]]
    nonempty = [key for key, series in enumerate(catalog.series_by_theme) if series]
    for _attempt in range(12):
        if rng.random() < stray:
            theme_key = rng.choice(nonempty)
        else:
            theme_key = rng.choices(user.themes, weights=user.theme_weights)[0]
        state = next_position.get(theme_key)
        if state is not None and state[1] < len(state[0].items) and rng.random() < 0.7:
            candidate = state[0].items[state[1]]
            if candidate.asin not in bought:
                return candidate
        preferred = [s for brand in user.brands for s in catalog.by_theme_brand.get((theme_key, brand), [])]
        if preferred and rng.random() < 0.65:
            series = rng.choice(preferred)
        else:
            series = _choose_series(rng, catalog, theme_key, level)
        start = 0 if rng.random() < 0.7 else rng.randrange(len(series.items))
        for item in series.items[start:]:
            if item.asin not in bought:
                return item
    for item in catalog.items.values():  # tiny catalogues: anything not bought yet
        if item.asin not in bought:
            return item
    return None


# --- reviews and instructions -------------------------------------------------------------------------------------


def _make_review(
    rng: random.Random, user: _User, item: _Item, previous: _Item | None, timestamp: int
) -> dict[str, Any]:
    profile = user.profile
    shift = TIER_RATING[profile["Price Sensitivity"]][item.series.tier]
    if "Critical" in user.tones or "Disappointed" in user.tones:
        shift -= 0.4
    if "Enthusiastic" in user.tones:
        shift += 0.2
    rating = float(min(5, max(1, round(item.product["average_rating"] + shift + rng.gauss(0.0, 0.7)))))
    positive = rating >= 3.0
    facts = {
        "noun": noun_phrase(item.noun),
        "brand": item.series.brand,
        "price": item.product["price"],
        "avg": item.product["average_rating"],
        "count": item.product["rating_number"],
        "variant": item.variant,
    }
    tone = rng.choice(user.tones)
    sentences = [rng.choice(TONE_PHRASES[tone][0 if positive else 1]).format(**facts)]
    complexity = profile["Interaction Complexity"]
    n_aspects = {"Low": 1, "Medium": 2, "High": len(user.aspects)}[complexity]
    category = item.series.category.main_category
    aspects = [a for a in user.aspects if category in ASPECT_CATEGORIES.get(a, frozenset([category]))]
    pool = aspects or user.aspects  # a review speaks of some of the user's concerns, not always the same ones
    for aspect in rng.sample(pool, k=min(n_aspects, len(pool))):
        sentences.append(FOCUS_SENTENCES[aspect][0 if positive else 1].format(**facts))
    if complexity != "Low":
        reference = profile["Item Reference"].lower()
        if "purchase history" in reference and previous is not None:
            sentences.append(f"It goes well with the {previous.noun} I bought before.")
        elif "personal experience" in reference:
            sentences.append(f"I have used it for {rng.randint(2, 8)} weeks now.")
        else:
            sentences.append(
                f"The {item.series.brand} {item.series.line} {item.noun} "
                f"{'are' if item.noun in PLURAL_UNITS else 'is'} my pick from this brand."
            )
    if complexity == "High" or "Detailed" in user.tones:
        sentences.append(f"The {item.material} build in {item.variant} ({item.size}) matches the listing.")
    circumstances = rng.sample(REVIEW_CIRCUMSTANCES, k=rng.choice((1, 2, 2, 3)))
    sentences = _vary_review(user, item, timestamp, sentences, circumstances)
    if rating >= 5:
        title = rng.choice(("Five Stars", "Love it", f"Great {item.noun}", "Highly recommend"))
    elif rating >= 4:
        title = rng.choice(("Very good", "Does the job well", f"Solid {item.noun}"))
    elif rating >= 3:
        title = rng.choice(("It's okay", "Decent", "Could be better"))
    else:
        title = rng.choice(("Disappointed", "Not worth it", "Returned it"))
    return {
        "rating": rating,
        "title": title,
        "text": fix_articles(" ".join(sentences)),
        "parent_asin": item.asin,
        "timestamp": timestamp,
    }


def _vary_review(
    user: _User, item: _Item, timestamp: int, sentences: list[str], circumstances: list[str]
) -> list[str]:
    """The review's final sentences: the opening, the circumstances, and a varying share of the rest.

    Real reviews of one user differ far more than one template allows: some are a line long, most speak of this
    purchase (what it was for, which variant) rather than repeating the user's standing concerns, and boilerplate
    ("my pick from this brand") is the exception.  The choices come from their own generator, seeded by the
    purchase, so the main stream (and with it the catalogue, histories and instructions) is unchanged.
    """
    text_rng = random.Random(f"review-{user.uid}-{item.asin}-{timestamp}")
    opening, rest = sentences[0], sentences[1:]
    about_this = [
        f"I got it for my {item.series.theme.label}.",
        f"I went with the {item.variant.lower()} one.",
        f"The {item.descriptor} {item.material} finish is what sold me.",
        f"Size {item.size} was the right call." if item.size else f"I chose it over the other {item.noun}s.",
    ]
    complexity = user.profile["Interaction Complexity"]  # how often a review is short, how much of the rest it keeps
    short, keep = {"Low": (0.55, 0.05), "Medium": (0.35, 0.1), "High": (0.1, 0.3)}.get(complexity, (0.35, 0.1))
    if text_rng.random() < short:  # a one- or two-line review
        return [opening, *circumstances[: text_rng.choice((0, 1))]]
    kept = [s for s in rest if text_rng.random() < keep]
    body = circumstances + text_rng.sample(about_this, k=text_rng.choice((0, 1, 1))) + kept
    text_rng.shuffle(body)
    return [opening, *body]


def noun_phrase(noun: str) -> str:
    """How a sentence names one item: ``"pair of jeans"`` for plural nouns, else the noun itself."""
    unit = PLURAL_UNITS.get(noun.lower())
    return f"{unit} of {noun}" if unit else noun


def fix_articles(text: str) -> str:
    """``a`` before a lower-case vowel sound (a, e, i, o, "un") becomes ``an``."""
    return re.sub(r"\b([Aa]) (?=[aeio]|un)", r"\1n ", text)


def _article(item: _Item, first_word: str) -> str:
    if item.noun in PLURAL_UNITS or item.series.category.main_category in MASS_CATEGORIES:
        return "some"
    return "an" if first_word[:1].lower() in "aeiou" else "a"


def _make_instruction(
    rng: random.Random, user: _User, item: _Item, review: dict[str, Any], task_type: str
) -> str:
    profile = user.profile
    aspect = user.aspects[0].lower()
    if task_type == "search":
        opener_tone = next((tone for tone in user.tones if tone in SEARCH_OPENERS), None)
        opener = rng.choice(SEARCH_OPENERS[opener_tone]) if opener_tone else "I'm looking for"
        words = []
        if rng.random() < SEARCH_MENTION["descriptor"]:
            words.append(item.descriptor)
        if rng.random() < SEARCH_MENTION["variant"]:
            words.append(item.variant.lower())
        if rng.random() < SEARCH_MENTION["material"]:
            words.append(item.material)
        if rng.random() < SEARCH_MENTION["noun"]:
            words.append(item.noun)
            phrase = f"{_article(item, words[0])} {' '.join(words)}"
        else:  # implicit, as most official instructions are: what it is for, not what it is
            phrase = " ".join(["something", *words, "for my", item.series.theme.label])
        brand = item.series.brand
        preferred = brand in user.brands
        if rng.random() < SEARCH_MENTION["preferred brand" if preferred else "other brand"]:
            phrase += f" from {brand}"
            if rng.random() < SEARCH_MENTION["line"]:
                phrase += f", ideally the {item.series.line} line"
        sentences = [f"{opener} {phrase}."]
        if profile["Interaction Complexity"] != "Low":
            sentences.append(f"{aspect.capitalize()} matters a lot to me.")
        sensitivity = profile["Price Sensitivity"]
        if sensitivity == "High":
            sentences.append(f"Please keep it under ${math.ceil(item.price / 5) * 5}.")
        elif sensitivity == "Low" and rng.random() < 0.5:
            sentences.append("I don't mind paying more for something great.")
        return " ".join(sentences)
    if task_type == "recommend":
        request = rng.choice(RECOMMEND_REQUESTS).format(label=item.series.theme.label)
        if profile["Interaction Complexity"] == "Low":
            return request
        return f"{request} I care most about {aspect}."
    if review["rating"] >= 4:
        feeling = "I really liked it"
    elif review["rating"] >= 3:
        feeling = "It was okay, nothing special"
    else:
        feeling = "I was disappointed with it"
    hint = f"{feeling}, and I want to mention the {aspect}."
    return fix_articles(rng.choice(REVIEW_REQUESTS).format(noun=noun_phrase(item.noun), hint=hint))
