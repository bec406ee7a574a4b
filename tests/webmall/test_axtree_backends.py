"""The fast DOM-walk AX tree ("dom") shows an agent the same text as Chromium's own tree ("cdp") on WebMall.

Every page type of the four embedded shops is visited, including the states a task goes through (notice after
adding to the cart, filled cart and checkout, checkout errors, order received), plus the solution page.  The two
texts must be equal line for line: there are no known remaining differences on these pages.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterator

import pytest

from personal_envs.browser import BrowserSession
from personal_envs.browser.observation import PageObservation
from personal_envs.webmall.env import WebMallEnv

CHECKOUT_VALUES = {"Email address": "ada@example.com", "Card number": "4111 1111 1111 1111",
                   "Expiry date": "12/30", "Card code": "123"}


@pytest.fixture(scope="module")
def env() -> Iterator[WebMallEnv]:
    environment = WebMallEnv(data_dir="shipped")
    environment.reset(options={"task_index": 0})
    yield environment
    environment.close()


def assert_backends_agree(session: BrowserSession, what: str) -> PageObservation:
    """Observe the current page with both backends; return the DOM-walk observation."""
    backend = session.axtree_backend
    try:
        session.axtree_backend = "cdp"
        cdp = session.observe()
        session.axtree_backend = "dom"
        dom = session.observe()
    finally:
        session.axtree_backend = backend
    assert cdp.error == "" and dom.error == "", (what, cdp.error, dom.error)
    assert len(cdp.axtree.splitlines()) > 5 and "Page not found" not in cdp.title, f"{what}: no page\n{cdp.axtree}"
    diff = "\n".join(difflib.unified_diff(cdp.axtree.splitlines(), dom.axtree.splitlines(), "cdp", "dom",
                                          lineterm="", n=1))
    assert dom.axtree == cdp.axtree, f"{what} ({dom.url}): the backends differ\n{diff}"
    return dom


def bid_of(obs: PageObservation, role: str, name_start: str) -> str:
    matches = [e.bid for e in obs.elements.values() if e.role == role and e.name.startswith(name_start)]
    assert matches, f"no {role} named {name_start!r}\n{obs.axtree}"
    return matches[0]


def act(session: BrowserSession, action_type: str, **fields: object) -> None:
    assert session.execute({"action_type": action_type, **fields}) == ""


@pytest.mark.parametrize("shop_index", range(4))
def test_every_shop_page_type_reads_the_same_with_both_backends(env: WebMallEnv, shop_index: int) -> None:
    session = env.session
    assert session is not None
    origin, shop = env.cluster.shop_origins[shop_index], env.catalog.shops[shop_index]
    product = shop.products[5]
    category = next(iter(shop.root.children.values()))
    for what, path in [("home", "/"), ("product", product.path), ("search", "/?s=" + product.name.split()[0]),
                       ("search without results", "/?s=zzzqqq"), ("category", category.url_path),
                       ("shop", "/shop/"), ("shop page 2", "/shop/page/2/"), ("categories", "/categories/"),
                       ("empty cart", "/cart/"), ("empty checkout", "/checkout/")]:
        assert session.goto(origin + path) == ""
        assert_backends_agree(session, f"shop {shop_index} {what}")

    session.goto(origin + product.path)
    obs = assert_backends_agree(session, f"shop {shop_index} product")
    act(session, "click", bid=bid_of(obs, "button", "Add to"))
    assert_backends_agree(session, f"shop {shop_index} product after adding it to the cart")
    for what, path in [("cart", "/cart/"), ("checkout", "/checkout/")]:
        assert session.goto(origin + path) == ""
        obs = assert_backends_agree(session, f"shop {shop_index} {what} with one product")

    act(session, "click", bid=bid_of(obs, "button", "Place order"))
    obs = assert_backends_agree(session, f"shop {shop_index} checkout with errors")
    for element in list(obs.elements.values()):
        if element.role == "textbox" and "(optional)" not in element.name:
            value = next((v for k, v in CHECKOUT_VALUES.items() if element.name.startswith(k)), "Test")
            act(session, "fill", bid=element.bid, value=value)
    act(session, "select_option", bid=bid_of(obs, "combobox", "Country"), options=["Germany"])
    act(session, "click", bid=bid_of(session.observe(), "button", "Place order"))
    obs = assert_backends_agree(session, f"shop {shop_index} order received")
    assert "Order received" in obs.axtree


def test_solution_page_reads_the_same_with_both_backends(env: WebMallEnv) -> None:
    session = env.session
    assert session is not None
    assert session.goto(env.cluster.solution_origin + "/") == ""
    assert_backends_agree(session, "solution page")
