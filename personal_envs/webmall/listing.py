"""What a shop's product listing shows: which products, in which order, on which page, and whether a search goes
straight to its one result.  The shop server renders a :class:`Listing`; a text renderer can compute the same page
without a browser.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from urllib.parse import quote_plus

from personal_envs.webmall import wp_search
from personal_envs.webmall.catalog import Product, Shop
from personal_envs.webmall.ordering import order_products, ordering_options, selected_option

#: Longest search query read (characters).
MAX_QUERY_CHARS = 200


@dataclass(frozen=True)
class Listing:
    """One page of a product listing.

    Attributes:
        products: The products shown on this page, in order.
        total: How many products the listing has over all pages.
        page: This page (1-based, clamped to the last page).
        pages: Number of pages.
        orderby: The ordering requested (``""``: the default).
        options: The ordering drop-down's options ``(value, label)``.
        selected: The option shown as selected.
        base: The first page's URL path with its query string (pagination links add ``/page/N/``).
        query: The search query ("" for a category or the shop page).
        redirect: On a search with a single result in a shop that redirects: that product.
    """

    products: tuple[Product, ...]
    total: int
    page: int
    pages: int
    orderby: str
    options: tuple[tuple[str, str], ...]
    selected: str
    base: str
    query: str = ""
    redirect: Product | None = None

    @property
    def form_action(self) -> str:
        """Where the ordering form is sent: the listing's first page, without its query string."""
        return self.base.partition("?")[0]

    @property
    def hidden_fields(self) -> tuple[tuple[str, str], ...]:
        """The ordering form's hidden fields: ``paged=1`` and the listing's own query arguments (WooCommerce's
        ``wc_query_string_form_fields``)."""
        fields: list[tuple[str, str]] = [("paged", "1")]
        if self.query:
            fields += [("s", self.query), ("post_type", "product")]
        return tuple(fields)


def _paged(products: Sequence[Product], page: int, per_page: int) -> tuple[tuple[Product, ...], int, int]:
    pages = max(1, -(-len(products) // per_page))
    page = max(1, min(page, pages))
    return tuple(products[(page - 1) * per_page: page * per_page]), page, pages


def _with_orderby(base: str, orderby: str) -> str:
    if not orderby:
        return base
    return f"{base}{'&' if '?' in base else '?'}orderby={quote_plus(orderby)}"


def catalog_listing(products: Sequence[Product], base: str, *, orderby: str = "", page: int = 1,
                    per_page: int = 12) -> Listing:
    """A category or the shop page: ``products`` ordered by ``orderby`` (WooCommerce's default: by title)."""
    ordered = order_products(products, orderby)
    shown, page, pages = _paged(ordered, page, per_page)
    return Listing(shown, len(ordered), page, pages, orderby, ordering_options(False),
                   selected_option(orderby, False), _with_orderby(base, orderby))


def search_listing(shop: Shop, query: str, *, orderby: str = "", page: int = 1, per_page: int = 12) -> Listing:
    """A product search: WordPress' matches ordered by relevance (or ``orderby``), and the redirect of a single
    result in a shop that redirects (WooCommerce's ``woocommerce_redirect_single_search_result``)."""
    query = query[:MAX_QUERY_CHARS]
    parsed = wp_search.parse_query(query)
    results = shop.search(query)  # relevance order
    groups = {p.slug: wp_search.relevance_group(parsed, *p.haystacks()) for p in results}
    ordered = order_products(results, orderby, search_rank=lambda p: groups[p.slug])
    shown, page, pages = _paged(ordered, page, per_page)
    redirect = ordered[0] if len(ordered) == 1 and shop.redirects_single_result else None
    base = _with_orderby(f"/?s={quote_plus(query)}&post_type=product", orderby)
    return Listing(shown, len(ordered), page, pages, orderby, ordering_options(True), selected_option(orderby, True),
                   base, query=query, redirect=redirect)
