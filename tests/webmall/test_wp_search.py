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
    products = [("ryzen 7 cpu", "fast", ""), ("intel core", "", "ryzen compatible board"), ("ryzen case", "", ""),
                ("cooler", "", "ryzen 7 ready")]
    assert search("Ryzen 7", products) == [0, 3]  # both terms needed; title phrase first, then content phrase
    assert search("ryz", products) == [2, 0, 3, 1]  # LIKE %term%: substrings; title matches first, newest first
    assert search("ryzen -case", products) == [0, 3, 1]
    assert search("the of", products) == []


def test_search_order_is_wordpress_search_orderby() -> None:
    """``parse_search_order`` of WP_Query, case by case (newest = highest post id first within a group)."""
    rows = [("usb cable", "", ""),            # 0: one token in the title
            ("hub", "usb cable inside", ""),  # 1: the sentence in the excerpt
            ("dock", "", "usb cable here"),   # 2: the sentence in the content
            ("cable usb", "", ""),            # 3: every word in the title, not the sentence
            ("cable", "", "with usb"),        # 4: one word in the title
            ("usb cable pro", "", "")]        # 5: the sentence in the title
    # single token: ORDER BY post_title LIKE '%usb%' DESC, post_date DESC
    assert search("usb", rows) == [5, 3, 0, 4, 2, 1]
    # several tokens: CASE 1 title sentence, 2 all words in title, 3 any word, 4 excerpt sentence, 5 content
    assert search("usb cable", rows) == [5, 0, 3, 4, 1, 2]
    assert parse_query("usb cable").tokens == 2
    # a stop word still counts as a token: "the usb" orders by CASE with one title term (no group 3)
    assert parse_query("the usb").tokens == 2 and parse_query("the usb").include == ("usb",)
    assert search("the usb", rows) == [5, 3, 0, 4, 2, 1]
    # an exclusion turns the sentence groups off
    assert search("usb cable -pro", rows) == [3, 0, 4, 2, 1]
    # seven or more terms: only the sentence groups order
    many = [("a1 b2 c3 d4 e5 f6 g7 x", "", ""), ("x", "", "a1 b2 c3 d4 e5 f6 g7")]
    assert search("a1 b2 c3 d4 e5 f6 g7", many) == [0, 1]
    assert search("a1 b2 c3 d4 e5 f6 g7", many, post_ids=[1, 2]) == [0, 1]
    # post ids decide within a group
    assert search("usb", [("usb a", "", ""), ("usb b", "", "")], post_ids=[10, 5]) == [0, 1]


def test_shop_search_uses_the_excerpt(official_catalog: Catalog) -> None:
    shop = official_catalog.shop(1)
    product, word = next((p, w.lower()) for p in shop.products for w in p.short_description.split()
                         if w.isalpha() and len(w) > 6 and w.lower() not in p.description.lower()
                         and w.lower() not in p.name.lower())
    assert product in shop.search(word)  # found through the short description (the excerpt) alone
    found = shop.search("the")
    assert {p.slug for p in found} == {p.slug for p in shop.products if "the" in p.name.lower()
                                       or "the" in (p.short_description + " " + p.description).lower()}
    titled = [p for p in found if "the" in p.name.lower()]
    assert found[:len(titled)] == sorted(titled, key=lambda p: -p.post_id)  # title matches first, newest first
