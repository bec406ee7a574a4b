"""The official WebMall evaluator's rules: a table of hand-built submissions scored by our evaluator and by the
official formulas re-derived here from the official code (its URL regex and normaliser read from the anchors with
``ast``, the set metrics of ``summarize_study.py`` written out), plus the page checks on the shops' own markup."""

from __future__ import annotations

import ast
import csv
import io
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urljoin

import pytest

from personal_envs.webmall.catalog import load_catalog
from personal_envs.webmall.evaluator import aggregate, parse_submission, score_string
from personal_envs.webmall.layouts import layout_for
from personal_envs.webmall.listing import catalog_listing
from personal_envs.webmall.official_eval import (
    OfficialEpisode,
    PageSummary,
    build_checklist,
    cart_may_show,
    check_cart,
    check_checkout,
    extract_submitted_urls,
    official_normalize_url,
    stored_wrong_solutions,
    study_metrics,
    task_type,
)
from personal_envs.webmall.official_html import parse_html, parsed_page

A = "http://127.0.0.1:8081"
B = "http://127.0.0.1:8082"
L = "http://localhost:8083"
SOLUTION = "http://127.0.0.1:8085"
X = f"{A}/product/asus-rog-strix-b550-f"
Y = f"{B}/product/corsair-rm850x-850w"
Z = f"{L}/product/logitech-mx-keys"

#: (name, submission, expected answers): the table of hand-built submissions.
CASES: list[tuple[str, str, list[str]]] = [
    ("exact", X, [X]),
    ("trailing slash", X + "/", [X]),
    ("https", X.replace("http://", "https://"), [X]),
    ("no scheme", X.removeprefix("http://"), [X]),
    ("query string", X + "?attribute_color=black", [X]),
    ("fragment", X + "#reviews", [X]),
    ("host case (name)", Z.replace("localhost", "LocalHost"), [Z]),
    ("scheme case", X.replace("http://", "HTTP://"), [X]),
    ("percent escape", X.replace("b550-f", "b550%2Df"), [X]),
    ("comma-joined", f"{X},{Y}", [X, Y]),
    ("comma and space", f"{X}, {Y}", [X, Y]),
    ("### joined", f"{X}###{Y}", [X, Y]),
    ("### with spaces", f"{X} ### {Y}", [X, Y]),
    ("newline joined", f"{X}\n{Y}", [X, Y]),
    ("reversed order", f"{Y}###{X}", [X, Y]),
    ("one of two", X, [X, Y]),
    ("right and wrong", f"{X}###{A}/product/other-board", [X]),
    ("extra non-product URL", f"{X}###{SOLUTION}/", [X]),
    ("extra shop home", f"{X}###{B}", [X]),
    ("parentheses", f"({X})", [X]),
    ("trailing period", f"The offer is {X}.", [X]),
    ("label", f"Offer1: {X}", [X]),
    ("markdown link", f"[board]({X})", [X]),
    ("angle brackets", f"<{X}>", [X]),
    ("quotes", f"'{X}'", [X]),
    ("duplicate", f"{X}###{X}/", [X]),
    ("upper-case path", X.upper().replace("HTTP://", "http://"), [X]),
    ("dotted word in text", f"Found it.Thanks {X}", [X]),
    ("glued prefix", f"url:{X}", [X]),
    ("wrong shop", X.replace("8081", "8082"), [X]),
    ("Done", "Done", [X]),
    ("nothing found text", "No offer fits the requirements", [X]),
    ("pipe in a wrong URL", f"{X}###{A}/product/a|b", [X]),
    ("comma in a wrong URL", f"{X}###{A}/product/a,b###{B}/product/c", [X]),
]


def _official_pieces(anchors: Path) -> tuple[re.Pattern[str], Callable[[str], str]]:
    """``URL_RE`` and ``Evaluator._normalize_url`` taken from the official evaluator module with ``ast``."""
    source = (anchors / "webmall/official/browsergym_webmall/browsergym/webmall/src/browsergym/webmall/evaluator.py"
              ).read_text()
    tree = ast.parse(source)
    namespace: dict[str, Any] = {"re": re}
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "URL_RE" for t in node.targets):
            exec(compile(ast.Module([node], []), "official", "exec"), namespace)  # noqa: S102 - official constant
        if isinstance(node, ast.ClassDef) and node.name == "Evaluator":
            for item in node.body:
                if isinstance(item, ast.FunctionDef) and item.name == "_normalize_url":
                    item.decorator_list = []
                    exec(compile(ast.Module([item], []), "official", "exec"), namespace)  # noqa: S102
    normalize = namespace["_normalize_url"]
    return namespace["URL_RE"], lambda url: normalize(None, url)


def _reference(pattern: re.Pattern[str], normalize: Callable[[str], str], text: str,
               answers: list[str]) -> tuple[set[str], set[str]]:
    """The official rules for a string task: benchmark and model sets as summarize_study.py builds them."""
    final = text.strip()
    submitted = [m.group(0) for m in pattern.finditer(final.replace("###", "\n"))] if final else []
    wanted = {normalize(url): f"answer{i}" for i, url in enumerate(answers, 1)}
    flagged: set[str] = set()
    wrong: set[str] = set()
    spelled = {normalize(url): url for url in submitted}
    wrong_in_order: list[str] = []
    for norm, original in spelled.items():
        if norm in wanted and wanted[norm] not in flagged:
            flagged.add(wanted[norm])
        else:
            wrong_in_order.append(original)
    # task_logs_extractor.py writes penalties.csv with an f-string; summarize_study.py reads it back with csv
    stored = io.StringIO("experiment_id,task_id,penalty,wrong_solutions\n"
                         f"exp,task,None,{'|'.join(wrong_in_order)}\n")
    for row in csv.DictReader(stored):
        if row.get("wrong_solutions", ""):
            wrong.update(row["wrong_solutions"].split("|"))
    return set(wanted.values()), flagged | wrong


def _ours(text: str, answers: list[str]) -> tuple[set[str], set[str]]:
    episode = OfficialEpisode("Webmall_Find_Specific_Product_Task1", "string", tuple(answers))
    verdict = episode.validate(SOLUTION + "/", "", submitted=text)
    assert verdict.done == bool(text.strip())
    return episode.solution_sets()


def _metrics(sets: tuple[set[str], set[str]]) -> dict[str, float]:
    benchmark, model = sets
    both = len(benchmark & model)
    p = both / len(model) if model else 0.0
    r = both / len(benchmark) if benchmark else 0.0
    return {"completed": float(benchmark == model), "precision": p, "recall": r,
            "f1": 2 * p * r / (p + r) if p + r else 0.0}


def test_submission_table_scores_as_the_official_formulas(anchors_dir: Path) -> None:
    pattern, normalize = _official_pieces(anchors_dir)
    assert len(CASES) >= 25
    official_rows, our_rows, strict_rows, differ_from_strict = [], [], [], []
    for name, text, answers in CASES:
        reference = _metrics(_reference(pattern, normalize, text, answers))
        ours = _metrics(_ours(text, answers))
        assert ours == pytest.approx(reference), name
        strict = score_string(parse_submission(text), answers)
        strict_row = {"completed": float(strict.completed), "precision": strict.precision, "recall": strict.recall,
                      "f1": strict.f1}
        official_rows.append(reference)
        our_rows.append(ours)
        strict_rows.append(strict_row)
        if strict_row != pytest.approx(reference):
            differ_from_strict.append(name)
    ours_total = aggregate(our_rows)
    official_total = aggregate(official_rows)
    assert ours_total == pytest.approx(official_total)
    # the stricter option stays available and does differ where the issue says it does
    for name in ("query string", "fragment", "host case (name)", "percent escape", "comma-joined",
                 "extra non-product URL", "parentheses"):
        assert name in differ_from_strict, name
    print(f"\n{len(CASES)} submissions; {len(differ_from_strict)} score differently under scoring='strict': "
          f"{differ_from_strict}; macro F1 official {official_total['F1']:.3f}, strict {aggregate(strict_rows)['F1']:.3f}")


def test_the_stored_wrong_answers_are_split_on_pipes_as_the_official_analysis_reads_them() -> None:
    episode = OfficialEpisode("Webmall_Find_Specific_Product_Task1", "string", (X,))
    episode.validate(SOLUTION + "/", "", submitted=f"{X}###{A}/product/a|b")
    assert episode.last_wrong == [f"{A}/product/a|b"]
    benchmark, model = episode.solution_sets()
    assert model == {"answer1", f"{A}/product/a", "b"} and episode.metrics()["precision"] == pytest.approx(1 / 3)
    assert stored_wrong_solutions([f"{A}/product/a,b", f"{B}/product/c"]) == [f"{A}/product/a"]  # cut at the comma
    assert stored_wrong_solutions([]) == []
    # carts' wrong slugs are not stored for the penalty-free types
    cart = OfficialEpisode("Webmall_Add_To_Cart_Task1", "cart", (X,))
    cart.last_wrong = ["x|y"]
    assert cart.solution_sets()[1] == set()


def test_a_long_submission_is_read_whole(anchors_dir: Path) -> None:
    pattern, _ = _official_pieces(anchors_dir)
    text = "notes " * 30_000 + f"{A}/product/a.b###{X}/ (end)"
    assert len(text) > 180_000
    assert extract_submitted_urls(text) == [m.group(0) for m in pattern.finditer(text.replace("###", "\n"))]
    assert extract_submitted_urls(text)[-1] == X  # the regex ends at a word boundary
    # a whitespace-free run is read up to MAX_URL_RUN_CHARS: the official regex is quadratic there
    assert extract_submitted_urls("a." * 500_000 + " " + X) == [X]


def test_normalisation_quirks() -> None:
    # lstrip of character sets: "https://shop..." loses "s" and "h" too, alike on both sides
    assert official_normalize_url("https://shop.example/product/x/") == "op.example/product/x"
    assert official_normalize_url("http://shop.example/product/x") == "op.example/product/x"
    assert official_normalize_url("HTTP://127.0.0.1:1/product/x") != official_normalize_url("http://127.0.0.1:1/product/x")
    assert extract_submitted_urls(f"{X}/###({Y}).") == [X, Y]
    assert extract_submitted_urls(f"{X},{Y}") == [f"{X},{Y}"]
    assert task_type("webmall.Webmall_Checkout_Task7") == "Webmall_Checkout_Task"


def test_checklist_weights_follow_the_official_groups() -> None:
    cps = build_checklist([X, Y], "checkout")
    assert [c.id for c in cps] == ["answer1", "answer2", "visit_product_page_1", "visit_product_page_2", "cart1", "cart2"]
    assert sum(c.weight for c in cps if c.id.startswith("answer")) == pytest.approx(0.8)
    assert sum(c.weight for c in cps) == pytest.approx(1.0)
    assert [c.type for c in build_checklist([X], "string")] == ["string", "url"]


def _shop_pages() -> tuple[Any, Any]:
    catalog = load_catalog(None)
    shop = catalog.shop(1)
    return layout_for(shop), shop.products[0]


def _carts(cps: list[Any]) -> list[Any]:
    return [cp for cp in cps if cp.type == "cart"]


def test_cart_flags_on_the_shops_markup() -> None:
    layout, product = _shop_pages()
    url = f"{A}{product.path}"
    page_url = url + "/"
    confirmation = layout.document("p", layout.product_page(product, "added"), cart_count=1)
    plain = layout.document("p", layout.product_page(product, ""), cart_count=0)
    cps = _carts(build_checklist([url], "cart"))
    assert check_cart(page_url, parse_html(plain), cps) == (0.0, [])
    score, wrong = check_cart(page_url, parse_html(confirmation), cps)
    assert score == pytest.approx(0.8) and wrong == [] and cps[0].flag
    # seen again with the checkpoint already flagged: the official checker lists it as a wrong product
    assert check_cart(page_url, parse_html(confirmation), cps) == (0.0, [product.slug])
    cart = layout.document("c", layout.cart_page([(product, 1)], ""), cart_count=1)
    cps = _carts(build_checklist([url], "cart"))
    assert check_cart(f"{A}/cart/", parse_html(cart), cps)[0] == pytest.approx(0.8)
    cps = _carts(build_checklist([url], "cart"))
    assert check_cart(f"{B}/cart/", parse_html(cart), cps) == (0.0, [product.slug])  # another shop's cart
    listing = layout.document("l", layout.listing("Shop", catalog_listing([product], "/shop/")), cart_count=1)
    cps = _carts(build_checklist([url], "cart"))
    assert check_cart(f"{A}/shop/", parse_html(listing), cps)[0] == 0.0
    added = listing.replace("ajax_add_to_cart\"", "ajax_add_to_cart added\"", 1).replace(
        "</a></li>", '</a><a href="/cart/" class="added_to_cart wc-forward" title="View cart">View cart</a></li>', 1)
    assert check_cart(f"{A}/shop/", parse_html(added), cps)[0] == pytest.approx(0.8)


def test_a_page_without_the_products_slug_is_not_parsed_and_scores_as_if_it_were() -> None:
    """The evaluator skips parsing a page that cannot show a cart confirmation; on the shops' pages that skip
    agrees with :func:`check_cart` on the parsed page."""
    layout, product = _shop_pages()
    other = load_catalog().shop(1).products[1]
    url = f"{A}{product.path}"
    listed = layout.document("l", layout.listing("Shop", catalog_listing([other, product], "/shop/")), cart_count=1)
    added = listed.replace("ajax_add_to_cart\"", "ajax_add_to_cart added\"").replace(
        "</a></li>", '</a><a href="/cart/" class="added_to_cart wc-forward" title="View cart">View cart</a></li>')
    pages = {  # URL -> (markup, whether the page may show the product added)
        f"{A}{other.path}/": (layout.document("p", layout.product_page(other, "added"), cart_count=1), False),
        f"{A}{product.path}/": (layout.document("p", layout.product_page(product, "added"), cart_count=1), True),
        f"{A}{product.path}/?plain": (layout.document("p", layout.product_page(product, ""), cart_count=1), False),
        f"{A}/cart/": (layout.document("c", layout.cart_page([(other, 1)], ""), cart_count=1), False),
        f"{A}/cart/?both": (layout.document("c", layout.cart_page([(other, 1), (product, 1)], ""), cart_count=2),
                            True),
        f"{A}/shop/": (layout.document("l", layout.listing("Shop", catalog_listing([other], "/shop/")),
                                       cart_count=1), False),
        f"{A}/shop/?listed": (listed, False),  # the product is linked, but nothing says it was added
        f"{A}/shop/?added": (added, True),
    }
    for page_url, (markup, expected) in pages.items():
        cps = _carts(build_checklist([url], "cart"))
        may = cart_may_show(page_url, markup, cps)
        assert may == expected, page_url
        found = check_cart(page_url, parse_html(markup), cps)
        assert may or found == (0.0, []), page_url  # a page not parsed scores as it would parsed
        assert found[0] == pytest.approx(0.8 if expected else 0.0), page_url
    pages = {page_url: markup for page_url, (markup, _) in pages.items()}
    episode = OfficialEpisode("Webmall_Add_To_Cart_Task1", "cart", (url,))
    parsed_page.cache_clear()
    assert episode.validate(f"{A}/shop/", pages[f"{A}/shop/"]).score == 0.0
    assert parsed_page.cache_info().misses == 0  # not parsed
    assert episode.validate(f"{A}{product.path}/", pages[f"{A}{product.path}/"]).score > 0
    assert parsed_page.cache_info().misses == 1
    # given the page's class names, a page without a confirmation is not even serialized
    serialized: list[str] = []

    def serialize(markup: str) -> Callable[[], str]:
        return lambda: serialized.append(markup) or markup

    for page_url, markup in pages.items():
        episode = OfficialEpisode("Webmall_Add_To_Cart_Task1", "cart", (url,))
        verdict = episode.validate(page_url, serialize(markup), summary=lambda markup=markup: _summary(markup))
        again = OfficialEpisode("Webmall_Add_To_Cart_Task1", "cart", (url,)).validate(page_url, markup)
        assert verdict.score == again.score
    assert len(serialized) == 3  # only the pages that do confirm it: serialized to be parsed


def _summary(markup: str) -> PageSummary:
    """The class names and link targets of the page parsed from ``markup``."""
    nodes = list(parse_html(markup).iter())
    return PageSummary(frozenset(name for node in nodes for name in node.classes),
                       frozenset(node.attrs["href"] for node in nodes if node.tag == "a" and "href" in node.attrs))


def _no_markup() -> str:
    raise AssertionError("the page was serialized")


def test_pages_of_a_random_walk_skipped_by_the_filter_score_as_parsed() -> None:
    """On every page of a seeded random walk through the text-mode shops (biased to add products to the cart), for
    every product the page links: when :func:`cart_may_show` skips the page, :func:`check_cart` on the parsed page
    finds nothing either, with the markup or with the page's :class:`PageSummary` (class names and links); and the
    filter lets through the pages that do confirm an added product."""
    import gymnasium as gym
    import numpy as np

    import personal_envs  # noqa: F401 - registers the envs
    from personal_envs.textmode.parity import random_web_action

    env: Any = gym.make("WebMall-v0", data_dir="shipped", render="text")
    rng = np.random.default_rng(5)
    origins = list(env.unwrapped.origins.values())[:4]
    skipped = confirmed = 0
    try:
        obs, _ = env.reset(seed=5)
        for _ in range(150):
            adds = re.findall(r"\[(\w+)\] (?:button|link) '[^']*[Cc]art[^']*'", obs["axtree"])
            action = ({"name": "click", "arguments": {"bid": adds[int(rng.integers(len(adds)))]}}
                      if adds and rng.random() < 0.5 else random_web_action(obs["axtree"], origins, rng))
            obs, _, terminated, truncated, _ = env.step(action)
            session = env.unwrapped.world.session
            page_url, markup = session.page.url, session.page.html()
            links = {urljoin(page_url, href).rstrip("/") for href in re.findall(r'href="([^"]*/product/[^"]+)"', markup)}
            doc = parse_html(markup)
            summary = PageSummary(*session.page.class_names_and_links())
            assert summary == _summary(markup)  # the DOM's, equal to those of the page parsed from its markup
            for link in sorted(links):
                may = cart_may_show(page_url, markup, _carts(build_checklist([link], "cart")))
                may_summary = cart_may_show(page_url, _no_markup, _carts(build_checklist([link], "cart")), summary)
                score, wrong = check_cart(page_url, doc, _carts(build_checklist([link], "cart")))
                assert may or (score, wrong) == (0.0, []), (page_url, link)
                assert may_summary or (score, wrong) == (0.0, []), (page_url, link)
                assert may_summary <= may  # links only: no less strict than the markup
                skipped += not may
                confirmed += score > 0
            if terminated or truncated:
                obs, _ = env.reset()
    finally:
        env.close()
    assert skipped > 150 and confirmed > 20, (skipped, confirmed)


DETAILS = {"name": "Jessica Morgan", "street": "Maple Avenue", "house_number": "742", "zip": "60614",
           "city": "Chicago", "state": "IL", "country": "USA", "email": "jessica.morgan@yahoo.com"}


def test_checkout_reads_the_order_received_page_as_the_official_one() -> None:
    layout, product = _shop_pages()
    url = f"{A}{product.path}"
    billing = {"first_name": "Jessica", "last_name": "Morgan", "address_1": "742 Maple Avenue", "city": "Chicago",
               "state": "IL", "postcode": "60614-1234", "country": "US", "email": "jessica.morgan@yahoo.com"}
    page = f"{A}/checkout/order-received/1/"

    def run(values: dict[str, str], at: str = page) -> float:
        cps = build_checklist([url], "checkout")
        html = layout.document("o", layout.order_received_page(1, [product], values), cart_count=0)
        return check_checkout(at, parse_html(html), cps, DETAILS)[0]

    assert run(billing) == pytest.approx(0.8)  # ZIP+4 contains the ZIP: passes
    assert run(billing, at=f"{A}/checkout/") == 0.0
    assert run({**billing, "email": "other@example.com"}) == 0.0
    assert run({**billing, "address_1": "742 Oak Street"}) == 0.0
    assert run({**billing, "state": "CA"}) == 0.0
    other = layout.document("o", layout.order_received_page(1, [layout.shop.products[1]], billing), cart_count=0)
    cps = build_checklist([url], "checkout")
    assert check_checkout(page, parse_html(other), cps, DETAILS) == (0.0, [layout.shop.products[1].slug])


def test_summarize_study_aggregation() -> None:
    pairs = [({"answer1"}, {"answer1"}), ({"answer1", "answer2"}, {"answer1", "x"}), ({"answer1"}, set())]
    result = study_metrics(pairs)
    assert result["CR"] == pytest.approx(1 / 3)
    assert result["P"] == pytest.approx((1 + 0.5 + 0) / 3) and result["R"] == pytest.approx((1 + 0.5 + 0) / 3)
    assert result["F1"] == pytest.approx(0.5)


def test_penalty_free_task_types_ignore_wrong_solutions() -> None:
    cart = OfficialEpisode("Webmall_Add_To_Cart_Task2", "cart", (X,))
    cart.validate(SOLUTION + "/", "", submitted=f"{Y}")
    assert cart.solution_sets() == ({"answer1"}, set())
    substitutes = OfficialEpisode("Webmall_Find_Substitutes_Task1", "cart", (X,))
    substitutes.validate(SOLUTION + "/", "", submitted=X)  # a URL on a cart-typed task: a wrong solution
    assert substitutes.solution_sets() == ({"answer1"}, {X})
    assert substitutes.metrics()["completed"] == 0.0 and substitutes.metrics()["precision"] == 0.0


def test_done_message_ends_the_episode() -> None:
    episode = OfficialEpisode("Webmall_Find_Specific_Product_Task1", "string", (X,))
    assert not episode.validate(A + "/", "", last_message="I am still looking").done
    assert episode.validate(A + "/", "", last_message="Done: nothing fits").done
