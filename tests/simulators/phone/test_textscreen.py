"""The phone's text mode (:class:`TextScreen`) against the browser mode (real headless Chromium) on states built
directly on a :class:`Phone`: the same actions on both give the same hierarchy dump, byte for byte, and the same
phone state (issue 32: the Taodian cart bar, line breaks typed into a single-line field)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime

import pytest

from personal_envs.simulators.phone import Phone, PhoneSimulator
from personal_envs.simulators.phone.apps.shop import CartItem
from personal_envs.simulators.phone.textscreen import TextScreen, single_line_insertion
from personal_envs.simulators.phone.uixml import find_nodes, parse_ui_xml
from personal_envs.simulators.phone.walk import compare_dumps

#: Three-item carts (title, price): the cart tasks' size; totals of one to seven characters after "¥".
CARTS = {
    "small_total": [("Wireless earbuds", 299.0), ("Notebook set", 25.5), ("65W charger", 129.0)],
    "one_digit_total": [("Green tea", 1.0), ("Silicone case", 2.0), ("Steel bottle", 3.0)],
    "long_total": [("Wool coat", 1999.99), ("Running jacket", 2999.99), ("Linen shirt", 3999.99)],
}


@pytest.fixture(scope="module")
def sims() -> Iterator[tuple[PhoneSimulator, PhoneSimulator]]:
    browser, text = PhoneSimulator(), PhoneSimulator(TextScreen())
    yield browser, text
    browser.close()
    text.close()


def same_screen(sims: tuple[PhoneSimulator, PhoneSimulator]) -> str:
    """The dump both modes show (they must be equal)."""
    browser, text = (sim.observe(False)[1] for sim in sims)
    comparison = compare_dumps(browser, text)
    assert comparison.identical, comparison.examples
    assert browser == text
    return text


def both(sims: tuple[PhoneSimulator, PhoneSimulator], name: str, args: dict[str, object]) -> str:
    for sim in sims:
        sim.execute(name, args)
    return same_screen(sims)


def tap_node(sims: tuple[PhoneSimulator, PhoneSimulator], **criteria: str) -> str:
    found = find_nodes(parse_ui_xml(same_screen(sims)), **criteria)
    assert found, f"nothing matches {criteria}"
    x, y = found[0].center
    return both(sims, "click", {"x": x, "y": y})


def cart_phone(items: list[tuple[str, float]]) -> Phone:
    phone = Phone(now=datetime(2026, 2, 9, 9, 41))
    shop = phone.shop("taodian")
    for index, (title, price) in enumerate(items):
        shop.add_product(f"p{index}", title, price, "electronics", "sporty")
        shop.cart.append(CartItem(f"p{index}", 1))
    phone.open_app("Taodian")
    phone.push("cart")
    return phone


@pytest.mark.parametrize("cart", sorted(CARTS))
def test_cart_bar_with_delete_selected_matches_chromium(sims: tuple[PhoneSimulator, PhoneSimulator],
                                                        cart: str) -> None:
    """"Delete selected", the total and "Checkout" overflow the bar: the flex items shrink in proportion to their
    inner base sizes (the button's padding does not count), as in Chromium."""
    for sim in sims:
        sim.reset(cart_phone(CARTS[cart]))
    same_screen(sims)
    dump = tap_node(sims, rid="select_item")
    bar = find_nodes(parse_ui_xml(dump), rid="delete_selected_items")
    assert len(bar) == 1 and bar[0].text == "Delete selected"
    total = find_nodes(parse_ui_xml(dump), rid="cart_total")[0]
    assert bar[0].bounds[2] < total.bounds[0]  # side by side on one line
    dump = tap_node(sims, rid="select_item", text="Select")  # a second item selected: the bar stays
    assert len(find_nodes(parse_ui_xml(dump), rid="select_item", text="Selected")) == 2
    tap_node(sims, rid="delete_selected_items")
    for sim in sims:
        assert len(sim.phone.shop("taodian").cart) == 1


@pytest.mark.parametrize(("typed", "draft"), [("a\nb", "a b"), ("a\r\nb\n", "a b"), ("x\r\ry", "x  y"),
                                              ("line one\nline two", "line one line two"), ("\n", "")])
def test_line_break_typed_into_mattermost_compose_is_a_space(sims: tuple[PhoneSimulator, PhoneSimulator],
                                                             typed: str, draft: str) -> None:
    for sim in sims:
        sim.reset(Phone(now=datetime(2026, 2, 9, 9, 41)))
    both(sims, "open_app", {"app_name": "mattermost"})
    tap_node(sims, text="Town Square")
    tap_node(sims, rid="post_input")
    dump = both(sims, "input_text", {"text": typed})
    field = find_nodes(parse_ui_xml(dump), rid="post_input")[0]
    assert field.text == draft and field.focused
    for sim in sims:
        assert sim.phone.route is not None and sim.phone.route.fields.get("draft", "") == draft


def test_single_line_insertion_follows_blink() -> None:
    assert single_line_insertion("a\nb") == "a b"
    assert single_line_insertion("a\r\nb\r\n\n") == "a b"
    assert single_line_insertion("\r\n") == ""
    assert single_line_insertion("\na") == " a"
    assert single_line_insertion("no breaks") == "no breaks"
