"""WooCommerce's catalog ordering (``?orderby=``), as ``WC_Query::get_catalog_ordering_args`` turns it into SQL.

The ordering drop-down (``woocommerce_catalog_ordering``) offers "Default sorting" (``menu_order``), popularity,
average rating, latest (``date``), price low to high (``price``) and high to low (``price-desc``); on a search,
"Relevance" (``relevance``, the default there) replaces "Default sorting".  A value is ``name`` or ``name-order``.

* ``menu_order``: ``menu_order ASC, post_title ASC`` (every official product has position 0, so by title, in the
  database's collation: approximated by :func:`collation_key`).
* ``date``: ``post_date DESC, ID DESC``.  ``popularity``: ``total_sales DESC, product_id DESC``; ``rating``:
  ``average_rating DESC, rating_count DESC, product_id DESC``.  The shops have no sales or reviews in their data,
  so the three give newest first; the post id stands for the date (products were imported in id order).
* ``price``: ``min_price ASC, product_id ASC``; ``price-desc``: ``max_price DESC, product_id DESC`` (a product
  without a price counts as 0, as WooCommerce's lookup table stores it).
* ``relevance`` on a search: WordPress' search order (:mod:`.wp_search`), then newest first.
* ``title`` and ``id`` are read too; any other value leaves WordPress' default, newest first.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Any

from personal_envs.webmall.catalog import Product

#: The drop-down's options on a product archive (value, label), in WooCommerce's order.
CATALOG_ORDERBY: tuple[tuple[str, str], ...] = (
    ("menu_order", "Default sorting"),
    ("popularity", "Sort by popularity"),
    ("rating", "Sort by average rating"),
    ("date", "Sort by latest"),
    ("price", "Sort by price: low to high"),
    ("price-desc", "Sort by price: high to low"),
)
RELEVANCE: tuple[str, str] = ("relevance", "Relevance")


def ordering_options(is_search: bool) -> tuple[tuple[str, str], ...]:
    """The drop-down's options: on a search "Relevance" first and no "Default sorting"."""
    if is_search:
        return (RELEVANCE, *(option for option in CATALOG_ORDERBY if option[0] != "menu_order"))
    return CATALOG_ORDERBY


def selected_option(orderby: str, is_search: bool) -> str:
    """The option the drop-down shows as selected: the requested one when offered, else the first option."""
    options = [value for value, _ in ordering_options(is_search)]
    wanted = orderby or ("relevance" if is_search else "menu_order")
    return wanted if wanted in options else options[0]


@lru_cache(maxsize=8192)
def collation_key(text: str) -> tuple[tuple[int, str], ...]:
    """A sort key approximating MySQL's ``utf8mb4_unicode_*_ci`` collation: case and accents ignored, spaces and
    punctuation before digits before letters (kept for the catalog's names: every listing sorts by it)."""
    folded = "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c)).casefold()
    return tuple((2 if c.isalpha() else 1 if c.isdigit() else 0, c) for c in folded)


def _newest(product: Product) -> int:
    return -product.post_id


def order_products(products: Sequence[Product], orderby: str, search_rank: Callable[[Product], Any] | None = None,
                   ) -> list[Product]:
    """``products`` in the order WooCommerce lists them for ``orderby`` (``""``: the default; ``search_rank``
    gives a product's relevance group on a search, whose default is ``relevance``)."""
    value = orderby or ("relevance" if search_rank is not None else "menu_order")
    name, _, order = value.partition("-")
    descending = order.upper() == "DESC"
    if name == "relevance" and search_rank is not None:
        return sorted(products, key=lambda p: (search_rank(p), _newest(p)))
    if name == "menu_order":
        return sorted(products, key=lambda p: collation_key(p.name), reverse=descending)
    if name == "title":
        return sorted(products, key=lambda p: collation_key(p.name), reverse=descending)
    if name == "id":
        return sorted(products, key=lambda p: p.post_id, reverse=descending)
    if name == "price":
        if descending:
            return sorted(products, key=lambda p: (-p.price, _newest(p)))
        return sorted(products, key=lambda p: (p.price, p.post_id))
    if name == "date" and order.upper() == "ASC":
        return sorted(products, key=lambda p: p.post_id)
    return sorted(products, key=_newest)  # date, popularity, rating (no sales or reviews), anything else
