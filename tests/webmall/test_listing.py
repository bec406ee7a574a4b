"""Listings as WooCommerce builds them: the catalog ordering (``orderby`` and its drop-down), the search order, and
each shop's single-result redirect (the paper's trajectory: E-Store Athletes lists its one hit, CamelCases opens
it), in the shop model and in real Chromium."""

from __future__ import annotations

import re
from pathlib import Path

from personal_envs.webmall.catalog import Catalog
from personal_envs.webmall.env import WebMallEnv
from personal_envs.webmall.listing import catalog_listing, search_listing
from personal_envs.webmall.ordering import CATALOG_ORDERBY, collation_key, order_products, ordering_options

#: The search of the official agent prompt (``examples/task_message.txt`` of WebMall v1.0).
KINGSTON = "Kingston 1TB NV2 M.2 NVMe SSD"


def test_the_orderings_of_woocommerce(official_catalog: Catalog) -> None:
    products = official_catalog.shop(2).products
    cheap = order_products(products, "price")
    assert [(p.price, p.post_id) for p in cheap] == sorted((p.price, p.post_id) for p in products)
    dear = order_products(products, "price-desc")
    assert [(p.price, p.post_id) for p in dear] == sorted(((p.price, p.post_id) for p in products), reverse=True)
    newest = [p.post_id for p in order_products(products, "date")]
    assert newest == sorted(newest, reverse=True)
    # no sales and no reviews in the data: popularity and rating fall back on product_id DESC
    assert order_products(products, "popularity") == order_products(products, "rating") == order_products(products,
                                                                                                        "date")
    titles = [collation_key(p.name) for p in order_products(products, "")]  # Default sorting: menu_order, title
    assert titles == sorted(titles) and order_products(products, "menu_order") == order_products(products, "")
    assert order_products(products, "no-such-order") == order_products(products, "date")  # WordPress' default
    assert collation_key("éclair") < collation_key("Eclairs") < collation_key("ecran")  # accents and case ignored
    assert collation_key("(new) x") < collation_key("1 x") < collation_key("a x")  # punctuation, digits, letters


def test_the_drop_down_and_the_pages(official_catalog: Catalog) -> None:
    shop = official_catalog.shop(1)
    listing = catalog_listing(shop.products, "/shop/", orderby="price", page=2, per_page=12)
    assert [label for _, label in listing.options] == [label for _, label in CATALOG_ORDERBY]
    assert listing.options[0] == ("menu_order", "Default sorting") and listing.selected == "price"
    assert listing.base == "/shop/?orderby=price" and listing.page == 2 and len(listing.products) == 12
    assert listing.products == tuple(order_products(shop.products, "price")[12:24])
    search = search_listing(shop, "ssd", orderby="", per_page=12)
    assert [value for value, _ in search.options] == ["relevance", "popularity", "rating", "date", "price",
                                                      "price-desc"]
    assert search.selected == "relevance" and ("s", "ssd") in search.hidden_fields
    assert search_listing(shop, "ssd", orderby="bogus").selected == "relevance"
    assert ordering_options(False)[0][1] == "Default sorting"


def test_single_result_redirect_per_shop(official_catalog: Catalog) -> None:
    athletes, camel = official_catalog.shop(1), official_catalog.shop(3)
    listed = search_listing(athletes, KINGSTON)
    assert listed.total == 1 and listed.redirect is None  # the paper's trajectory: a results page
    opened = search_listing(camel, KINGSTON)
    assert opened.total == 1 and opened.redirect is not None and "kingston" in opened.redirect.slug


def _bid(axtree: str, role: str, name: str) -> str:
    found = re.search(rf"\[(\w+)\] {role} '{re.escape(name)}'", axtree)
    assert found, (role, name, axtree[:3000])
    return found.group(1)


def test_sorting_and_redirects_in_the_browser(webmall_dir: Path) -> None:
    env = WebMallEnv(data_dir=webmall_dir)
    try:
        env.reset(options={"task_index": 0})
        shop = env.catalog.shop(2)
        node = max(shop.root.children.values(), key=lambda n: len(n.all_product_slugs()))
        origin = env.cluster.shop_origins[1]
        obs, *_ = env.step(f"goto('{origin}{node.url_path}')")
        assert "combobox 'Shop order'" in obs["axtree"] and "option 'Default sorting', selected=True" in obs["axtree"]
        obs, *_ = env.step(f"select_option('{_bid(obs['axtree'], 'combobox', 'Shop order')}', "
                           "'Sort by price: low to high')")
        assert obs["last_action_error"] == "" and "orderby=price" in obs["url"], obs["url"]
        assert "option 'Sort by price: low to high', selected=True" in obs["axtree"]
        in_category = [shop.by_slug[s] for s in node.all_product_slugs()]
        cheapest = order_products(in_category, "price")[0]
        first = re.search(r"heading '([^']+)'", obs["axtree"].split("combobox 'Shop order'", 1)[1])
        assert first is not None and first.group(1) == cheapest.name
        # a search keeps its query when sorted
        obs, *_ = env.step(f"goto('{origin}/?s=ssd&post_type=product')")
        obs, *_ = env.step(f"select_option('{_bid(obs['axtree'], 'combobox', 'Shop order')}', "
                           "'Sort by price: high to low')")
        assert "s=ssd" in obs["url"] and "orderby=price-desc" in obs["url"], obs["url"]
        # the paper's one-hit search: E-Store Athletes lists it, CamelCases opens it
        obs, *_ = env.step(f"goto('{env.cluster.shop_origins[0]}/?s={KINGSTON.replace(' ', '+')}&post_type=product')")
        assert "/?s=" in obs["url"] and "Showing the single result" in obs["axtree"]
        obs, *_ = env.step(f"goto('{env.cluster.shop_origins[2]}/?s={KINGSTON.replace(' ', '+')}&post_type=product')")
        assert "/product/kingston-1tb-nv2" in obs["url"]
    finally:
        env.close()
