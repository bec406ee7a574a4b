"""What a WebMall task runs on: the shop cluster, the episode's browser session, and what the episode has seen.

:class:`WebMallWorld` is the evidence the tasks score from: the shops' server state (carts, orders, product pages
served) for the embedded shops, and for external shops the pages seen in the browser (order-received pages are
kept with their HTML) and the cart pages read through the episode's browser context.  The env feeds it the pages
the browser shows (:meth:`WebMallWorld.track_page`) and the submission or the infeasible report.
"""

from __future__ import annotations

import contextlib
import re
from dataclasses import dataclass, field
from typing import Any

from personal_envs.browser import BrowserSession
from personal_envs.textmode.session import TextSession
from personal_envs.webmall.catalog import html_to_text
from personal_envs.webmall.evaluator import normalize_url, ordered_urls
from personal_envs.webmall.official_eval import OfficialEpisode
from personal_envs.webmall.official_html import parse_html
from personal_envs.webmall.server import ShopCluster

_PRODUCT_HREF = re.compile(r'href="(?:https?://[^/"]+)?(/product/[^"?#]+)')
_ORDER_RECEIVED = re.compile(r"/checkout/order-received/")
#: Billing details an external shop's order-received page must show for its order to count.
_ORDER_PAGE_KEYS = ("name", "street", "house_number", "zip", "email")


@dataclass
class WebMallWorld:
    """The shops, the browser session and the episode's evidence.

    Attributes:
        cluster: The four shops and the solution page (embedded, or the origins of external shops).
        session: The episode's browser session (the env opens it; ``None`` before the first reset).
        seen_urls: Every page the browser showed this episode (normalised).
        order_pages: ``(url, html)`` of the order-received pages seen on external shops.
        carted_ever: Every offer seen in a cart this episode (normalised), so that placing an order (which empties
            the cart) does not undo the running count of carted answers.
        submission: The text submitted on the solution page, if any.
        infeasible: True when the agent reported the task infeasible.
        scoring: ``"official"`` (the official evaluator's rules, :mod:`~personal_envs.webmall.official_eval`) or
            ``"strict"`` (the project's stricter rules over the shops' server state,
            :mod:`~personal_envs.webmall.evaluator`).
        official: The official checklist of the episode (updated by the env after every step).
    """

    cluster: ShopCluster
    session: BrowserSession | TextSession | None = None
    seen_urls: set[str] = field(default_factory=set)
    order_pages: list[tuple[str, str]] = field(default_factory=list)
    carted_ever: set[str] = field(default_factory=set)
    submission: str | None = None
    infeasible: bool = False
    scoring: str = "official"
    official: OfficialEpisode | None = None

    @property
    def origins(self) -> dict[str, str]:
        """Placeholder name -> origin (``URL_1``..``URL_5``)."""
        return self.cluster.origins()

    def reset(self) -> None:
        """Forget the previous episode: shop state, evidence, submission."""
        self.cluster.reset_state()
        self.seen_urls = set()
        self.order_pages = []
        self.carted_ever = set()
        self.submission = None
        self.infeasible = False
        self.official = None

    # --------------------------------------------------------------------------------------------- evidence
    def track_page(self, url: str) -> None:
        """Remember a page the browser showed (order confirmations of external shops keep their HTML)."""
        if not url:
            return
        self.seen_urls.add(normalize_url(url))
        if self.cluster.external and _ORDER_RECEIVED.search(url) and isinstance(self.session, BrowserSession):
            try:
                text = self.session.call(lambda page: page.content(), timeout=10.0)
            except Exception:  # noqa: BLE001 - a failed read only loses evidence for an external shop
                text = ""
            self.order_pages.append((url, str(text)))

    def visited_urls(self) -> set[str]:
        """Product pages the shops served this episode plus every page seen in the browser (normalised)."""
        served = {normalize_url(f"{origin}/product/{slug}")
                  for origin, state in zip(self.cluster.shop_origins, self.cluster.states, strict=True)
                  for slug in state.visited_slugs()}
        return served | self.seen_urls

    def carted_urls(self) -> set[str]:
        """Offers in the shops' carts now (normalised); external shops: read from their cart pages."""
        if self.cluster.external:
            urls = self._external_cart_urls()
        else:
            urls = {normalize_url(f"{origin}/product/{slug}")
                    for origin, state in zip(self.cluster.shop_origins, self.cluster.states, strict=True)
                    for slug in state.carted_slugs()}
        self.carted_ever |= urls
        return urls

    def ordered_urls(self, details: dict[str, str]) -> set[str]:
        """Offers of orders placed with the billing ``details`` (normalised)."""
        if not self.cluster.external:
            orders = [(origin, order)
                      for origin, state in zip(self.cluster.shop_origins, self.cluster.states, strict=True)
                      for order in state.order_list()]
            return {normalize_url(u) for u in ordered_urls(orders, details)}
        found: set[str] = set()
        for url, html in self.order_pages:
            text = " ".join(html_to_text(html).lower().split())
            origin = re.match(r"https?://[^/]+", url)
            if origin is None or not all(details.get(k, "").lower() in text for k in _ORDER_PAGE_KEYS):
                continue
            found.update(normalize_url(origin.group(0) + path) for path in order_item_paths(html))
        return found

    def _external_cart_urls(self) -> set[str]:
        """Read each external shop's cart as the official evaluator reads it: the rendered cart page's item rows.

        WooCommerce's block cart is filled by a script from the Store API, so the page's raw HTML names no item; the
        page is therefore rendered in a private browser context that carries the episode's cookies (the agent's tab
        and context are left alone), and the rows (classic ``tr.cart_item`` / ``td.product-name``, block
        ``tr.wc-block-cart-items__row``) are read from the DOM once the cart has rendered.  Cross-sells and other
        product links on the page are not cart items.
        """
        session = self.session
        urls: set[str] = set()
        if not isinstance(session, BrowserSession) or session.closed:
            return urls
        origins = list(self.cluster.shop_origins)
        try:
            pages = session.call(lambda page: rendered_cart_pages(page, origins), timeout=60.0)
        except Exception:  # noqa: BLE001 - an unusable browser has no cart to count
            return urls
        for origin, html in zip(origins, pages, strict=True):
            urls.update(normalize_url(origin.rstrip("/") + path) for path in cart_item_paths(html))
        return urls


#: What shows that a cart page has rendered: an item row or the empty-cart notice (classic or block).
_CART_RENDERED = ("tr.cart_item, td.product-name, tr.wc-block-cart-items__row, .cart-empty, "
                  ".wc-block-cart__empty-cart__title")


def rendered_cart_pages(page: Any, origins: list[str], timeout_ms: int = 10_000) -> list[str]:
    """The DOM of each origin's cart page after its scripts ran ("" for a shop that could not be read), rendered in
    one throw-away context that carries ``page``'s cookies (the agent's tab and context are left alone)."""
    context = page.context.browser.new_context()
    try:
        context.add_cookies(page.context.cookies())
        cart = context.new_page()
        pages = []
        for origin in origins:
            try:
                cart.goto(origin.rstrip("/") + "/cart/", wait_until="load", timeout=timeout_ms)
            except Exception:  # noqa: BLE001 - an unreachable shop has no cart to count
                pages.append("")
                continue
            with contextlib.suppress(Exception):  # a cart page without either marker is read as it is
                cart.wait_for_selector(_CART_RENDERED, state="attached", timeout=timeout_ms)
            pages.append(str(cart.content()))
        return pages
    finally:
        context.close()


def cart_item_paths(html: str) -> list[str]:
    """``/product/...`` paths of the cart's item rows, read as the official evaluator reads a cart page."""
    doc = parse_html(html)
    rows = doc.elements(lambda n: (n.tag == "tr" and bool({"wc-block-cart-items__row", "cart_item"} & n.classes))
                        or (n.tag == "td" and "product-name" in n.classes))
    paths = []
    for row in rows:
        link = row.first_link()
        found = _PRODUCT_HREF.search(f'href="{link.attrs.get("href", "")}"') if link is not None else None
        if found:
            paths.append(found.group(1))
    return paths


def order_item_paths(html: str) -> list[str]:
    """``/product/...`` paths of an order-received page's line items (classic or block confirmation), as the
    official evaluator reads them; other product links on the page (cross-sells, menus) do not count."""
    doc = parse_html(html)
    cells = doc.elements(lambda n: n.tag == "td" and bool(
        {"woocommerce-table__product-name", "wc-block-order-confirmation-totals__product"} & n.classes))
    paths = []
    for cell in cells:
        for link in cell.select("a"):
            found = _PRODUCT_HREF.search(f'href="{link.attrs.get("href", "")}"')
            if found:
                paths.append(found.group(1))
    return paths
