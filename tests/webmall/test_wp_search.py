"""WordPress search semantics of the embedded shops."""

from __future__ import annotations

from personal_envs.webmall.catalog import Catalog
from personal_envs.webmall.wp_search import parse_query, search


def test_stop_words_and_single_letters_are_dropped() -> None:
    parsed = parse_query("the case for a Ryzen 5 CPU")
    assert parsed.include == ("case", "ryzen", "5", "cpu")  # single digits stay, single letters go
    assert parse_query('"liquid cooler" -rgb').include == ("liquid cooler",)
    assert parse_query('"liquid cooler" -rgb').exclude == ("rgb",)
    assert parse_query("the a of").include == ("the a of",)  # nothing left: the whole query is one term
    assert parse_query(" ".join(f"w{i}" for i in range(12))).include == (" ".join(f"w{i}" for i in range(12)),)


def test_and_of_like_terms_over_title_excerpt_and_content() -> None:
    products = [("ryzen 7 cpu", "fast"), ("intel core", "ryzen compatible board"), ("ryzen case", ""),
                ("cooler", "ryzen 7 ready")]
    assert search("Ryzen 7", products) == [0, 3]  # both terms needed; title phrase first, then content phrase
    assert search("ryz", products) == [0, 1, 2, 3]  # LIKE %term%: substrings match
    assert search("ryzen -case", products) == [0, 1, 3]
    assert search("the of", products) == []


def test_shop_search_uses_the_excerpt(official_catalog: Catalog) -> None:
    shop = official_catalog.shop(1)
    product, word = next((p, w.lower()) for p in shop.products for w in p.short_description.split()
                         if w.isalpha() and len(w) > 6 and w.lower() not in p.description.lower()
                         and w.lower() not in p.name.lower())
    assert product in shop.search(word)  # found through the short description (the excerpt) alone
    assert shop.search("the") == [p for p in shop.products if "the" in p.name.lower()
                                  or "the" in (p.short_description + " " + p.description).lower()]
