"""What the WebMall pages' scripts do, for the text mode (:mod:`personal_envs.textmode`).

The browser runs the pages' own JavaScript; the text mode runs these instead, over the same server handlers:

* the shops' in-place "Add to cart" on listings (:data:`~personal_envs.webmall.layouts.AJAX_SCRIPT`): the link
  posts ``/cart/add?ajax=1``, gets the class ``added``, a "View cart" link after it, and every cart count shows the
  new number;
* the shops' ordering drop-down: choosing an order sends its form (WooCommerce's ``woocommerce.js``);
* the solution page (:mod:`~personal_envs.webmall.solution_page`): "Submit Final Result" writes the trimmed text into
  the result box and disables the field and the button; an empty text does nothing.
"""

from __future__ import annotations

from urllib.parse import urlencode, urljoin

from personal_envs.textmode.dom import Element
from personal_envs.textmode.page_script import PageScript
from personal_envs.textmode.session import TextPage, TextSession, json_body
from personal_envs.webmall.solution_page import BUTTON_ID, FIELD_ID, RESULT_ID


class ShopScript(PageScript):
    """The shops' listing script (in-place add to cart, ordering drop-down)."""

    def __init__(self, shop_origins: list[str]) -> None:
        self.origins = tuple(origin.rstrip("/") for origin in shop_origins)

    def applies(self, page: TextPage) -> bool:
        return page.url.startswith(self.origins)

    def on_click(self, session: TextSession, page: TextPage, target: Element) -> bool:
        button = target.closest(lambda e: "ajax_add_to_cart" in e.classes)
        if button is None:
            return False
        body = urlencode({"product": button.attrs.get("data-product_slug", ""), "quantity": "1"}).encode()
        try:
            _, response = session.fetch("POST", urljoin(page.url, "/cart/add?ajax=1"), body)
        except ConnectionError:
            button.add_class("loading")
            page.modified()
            return True
        data = json_body(response)
        if not isinstance(data, dict):  # the browser's script stops at a reply that is not JSON
            button.add_class("loading")
            page.modified()
            return True
        button.add_class("added")
        parent = button.parent
        if parent is not None and parent.find(lambda e: "added_to_cart" in e.classes) is None:
            link = Element("a", {"href": "/cart/", "class": "added_to_cart wc-forward", "title": "View cart"})
            link.set_text("View cart")
            parent.insert_after(link, button)
        for counter in page.document.find_all(lambda e: "cart-contents-count" in e.classes):
            counter.set_text(str(data.get("count", "")))
        page.modified()
        return True

    def on_change(self, session: TextSession, page: TextPage, target: Element) -> None:
        if target.tag == "select" and "orderby" in target.classes:
            form = target.form
            if form is not None and "woocommerce-ordering" in form.classes:
                session.submit(form)


class SolutionScript(PageScript):
    """The solution page's in-place submission."""

    def __init__(self, solution_origin: str) -> None:
        self.origin = solution_origin.rstrip("/")

    def applies(self, page: TextPage) -> bool:
        return page.url.rstrip("/") == self.origin

    def listeners(self, page: TextPage) -> list[Element]:
        button = page.document.get_element_by_id(BUTTON_ID)
        return [button] if button is not None else []

    def on_click(self, session: TextSession, page: TextPage, target: Element) -> bool:
        button = target.closest(lambda e: e.attrs.get("id") == BUTTON_ID)
        if button is None:
            return False
        document = page.document
        field = document.get_element_by_id(FIELD_ID)
        shown = document.get_element_by_id(RESULT_ID)
        if field is None or shown is None:
            return False
        value = field.value.strip()
        if value:
            shown.set_text(value)
            field.set_attr("disabled", "")
            button.set_attr("disabled", "")
            page.modified()
        return False


def submitted_text(page: TextPage | None) -> str:
    """What the solution page shows as submitted (stripped; "" if none), as :func:`read_submission` reads it."""
    if page is None:
        return ""
    shown = page.document.get_element_by_id(RESULT_ID)
    return shown.text_content.strip() if shown is not None else ""
