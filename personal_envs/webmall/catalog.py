"""The four shops' product catalogs: loading the official WooCommerce exports or the catalog the project ships.

A :class:`Catalog` holds four :class:`Shop` objects (WebMall's shops 1..4).  Each shop indexes its products by slug,
builds its own category tree from the products' category paths (``"Cases > Gaming > PC Cases"``) and answers
keyword searches the way WooCommerce does (every term must occur in the title, short description or description;
title matches rank first).

:func:`load_catalog` reads ``webmall_1.csv`` .. ``webmall_4.csv`` (the official product exports) from a data
directory when one is given and holds them, and otherwise builds the project's own seeded catalog
(:mod:`personal_envs.webmall.shipped_catalog`) in the same schema.
"""

from __future__ import annotations

import csv
import html
import io
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from personal_envs.core.errors import InputError, reraise_as
from personal_envs.core.schema import decode_utf8, read_bytes, validate
from personal_envs.webmall import schema, wp_search
from personal_envs.webmall.slugs import unique_slugs, wordpress_slug

#: Shop names in the order of the official placeholders {{URL_1}}..{{URL_4}}.
SHOP_NAMES: tuple[str, str, str, str] = ("E-Store Athletes", "TechTalk", "CamelCases", "Hardware Cafe")

#: CSV columns the loader reads (a subset of WooCommerce's product export).
CSV_COLUMNS: tuple[str, ...] = (
    "ID", "Type", "SKU", "GTIN, UPC, EAN, or ISBN", "Name", "Published", "Short description", "Description",
    "In stock?", "Sale price", "Regular price", "Categories", "Global Category", "Tags", "Brands",
)

_BLOCK_TAGS = re.compile(r"</?(p|br|li|ul|ol|div|h[1-6]|tr|table)\b[^>]*>", re.IGNORECASE)
_ANY_TAG = re.compile(r"<[^>]*>")
_TERM = re.compile(r"[^\W_]+", re.UNICODE)


class CatalogError(InputError, RuntimeError):
    """The catalog files are missing or malformed; the message names the file and says what to do."""


def html_to_text(fragment: str) -> str:
    """Plain text of an HTML fragment (block tags become line breaks, entities are decoded)."""
    text = _BLOCK_TAGS.sub("\n", fragment)
    text = _ANY_TAG.sub("", text)
    text = html.unescape(text)
    lines = [" ".join(line.split()) for line in text.splitlines()]
    return "\n".join(line for line in lines if line)


def parse_price(raw: str) -> float | None:
    """A price from ``"139,99"``, ``"240.97"`` or ``"1.299,00"``; None when empty or unreadable."""
    text = raw.strip().replace(" ", "")
    if not text:
        return None
    if "," in text and "." in text:
        text = text.replace(".", "").replace(",", ".") if text.rfind(",") > text.rfind(".") else text.replace(",", "")
    else:
        text = text.replace(",", ".")
    try:
        return round(float(text), 2)
    except ValueError:
        return None


def search_terms(text: str) -> list[str]:
    """Lower-case word terms of a search query."""
    return [term.lower() for term in _TERM.findall(text)]


@dataclass
class Product:
    """One offer in one shop."""

    shop: int
    product_id: str
    name: str
    slug: str
    price: float
    regular_price: float
    sale_price: float | None
    categories: tuple[tuple[str, ...], ...]
    short_description: str
    description: str
    sku: str = ""
    brand: str = ""
    global_category: str = ""
    attributes: dict[str, Any] = field(default_factory=dict)

    @property
    def path(self) -> str:
        """Path of the product page on its shop, e.g. ``/product/amd-ryzen-9-5900x``."""
        return f"/product/{self.slug}"

    @property
    def post_id(self) -> int:
        """The product's WordPress post id (the export's ``ID``; it grows in import order, so it also orders by
        date); 0 when the id is not a number."""
        return int(self.product_id) if self.product_id.isdigit() else 0

    def haystacks(self) -> tuple[str, str, str]:
        """(title, excerpt, content) in lower case: the columns WordPress' search reads."""
        return self.name.lower(), self.short_description.lower(), self.description.lower()


@dataclass
class CategoryNode:
    """A node of a shop's category tree."""

    name: str
    slug: str
    path: tuple[str, ...]
    children: dict[str, CategoryNode] = field(default_factory=dict)
    product_slugs: list[str] = field(default_factory=list)
    #: :meth:`all_product_slugs` once computed (every page's category menu shows the counts); whoever changes
    #: ``product_slugs`` afterwards sets it back to None (:meth:`Shop.rename_slug`).
    all_slugs_kept: tuple[str, ...] | None = field(default=None, repr=False, compare=False)

    @property
    def url_path(self) -> str:
        """``/product-category/a/b/``."""
        return "/product-category/" + "/".join(self.path) + "/"

    def all_product_slugs(self) -> list[str]:
        """Products in this category and its descendants, in catalog order without duplicates."""
        if self.all_slugs_kept is None:
            seen: dict[str, None] = dict.fromkeys(self.product_slugs)
            for child in self.children.values():
                seen.update(dict.fromkeys(child.all_product_slugs()))
            self.all_slugs_kept = tuple(seen)
        return list(self.all_slugs_kept)


#: Whether a search with exactly one result sends the browser to that product's page (WooCommerce's default,
#: ``woocommerce_redirect_single_search_result``), per shop.  The paper's own trajectory
#: (``examples/task_message.txt`` of WebMall v1.0, the Kingston NV2 search) shows E-Store Athletes listing its one
#: hit on a results page and CamelCases opening the product page; TechTalk and Hardware Cafe had no hit there, so
#: they keep WooCommerce's default.
SINGLE_RESULT_REDIRECT: dict[int, bool] = {1: False, 2: True, 3: True, 4: True}


class Shop:
    """One shop's products, category tree and search index."""

    def __init__(self, index: int, name: str, products: Sequence[Product]) -> None:
        self.index = index
        self.name = name
        #: A search with one result redirects to the product (see :data:`SINGLE_RESULT_REDIRECT`).
        self.redirects_single_result = SINGLE_RESULT_REDIRECT.get(index, True)
        self.products: list[Product] = list(products)
        self.by_slug: dict[str, Product] = {p.slug: p for p in self.products}
        self.root = CategoryNode("All products", "", ())
        for product in self.products:
            for category_path in product.categories:
                node = self.root
                slugs: list[str] = []
                for part in category_path:
                    slug = wordpress_slug(part) or "category"
                    slugs.append(slug)
                    if slug not in node.children:
                        node.children[slug] = CategoryNode(part, slug, tuple(slugs))
                    node = node.children[slug]
                node.product_slugs.append(product.slug)
        self._haystacks = {p.slug: p.haystacks() for p in self.products}

    def category(self, slug_path: Sequence[str]) -> CategoryNode | None:
        """The category at ``/product-category/<slug_path>/``, or None."""
        node = self.root
        for slug in slug_path:
            child = node.children.get(slug)
            if child is None:
                return None
            node = child
        return node

    def search(self, query: str) -> list[Product]:
        """Products matching ``query`` as WordPress' search finds and orders them (:mod:`.wp_search`: relevance
        groups, newest first within a group)."""
        haystacks = [self._haystacks[p.slug] for p in self.products]
        ids = [p.post_id or i for i, p in enumerate(self.products)]
        return [self.products[i] for i in wp_search.search(query, haystacks, ids)]

    def rename_slug(self, old: str, new: str) -> None:
        """Give a product a different slug (used to reconcile answer URLs with the data)."""
        product = self.by_slug.pop(old)
        product.slug = new
        self.by_slug[new] = product
        self._haystacks[new] = self._haystacks.pop(old)
        stack = [self.root]
        while stack:
            node = stack.pop()
            node.product_slugs = [new if slug == old else slug for slug in node.product_slugs]
            node.all_slugs_kept = None
            stack.extend(node.children.values())


@dataclass
class Catalog:
    """The four shops and where their data came from (``"official"`` or ``"shipped"``)."""

    shops: tuple[Shop, Shop, Shop, Shop]
    source: str
    data_dir: Path | None = None
    slug_fixes: list[str] = field(default_factory=list)

    def shop(self, index: int) -> Shop:
        """Shop 1..4."""
        return self.shops[index - 1]

    def all_products(self) -> Iterable[Product]:
        """Every offer of every shop."""
        for shop in self.shops:
            yield from shop.products


def _split_categories(raw: str) -> tuple[tuple[str, ...], ...]:
    paths = []
    for entry in raw.split(","):
        parts = tuple(html.unescape(part.strip()) for part in entry.split(">") if part.strip())
        if parts:
            paths.append(parts)
    return tuple(paths) or (("Uncategorized",),)


def _export_text(value: str) -> str:
    """A description field of the export as the shop stores it: WooCommerce's importer turns ``\\n`` into line
    breaks."""
    return value.replace("\\n", "\n")


def products_from_rows(shop_index: int, rows: Sequence[Mapping[str, str]]) -> list[Product]:
    """Build products from WooCommerce export rows (unpublished rows are skipped)."""
    rows = [row for row in rows if row.get("Published", "1").strip() in ("1", "")]
    slugs = unique_slugs(row.get("Name", "") for row in rows)
    products = []
    for row, slug in zip(rows, slugs, strict=True):
        regular = parse_price(row.get("Regular price", ""))
        sale = parse_price(row.get("Sale price", ""))
        price = sale if sale is not None else regular
        products.append(
            Product(
                shop=shop_index,
                product_id=row.get("ID", "").strip() or slug,
                name=html.unescape(row.get("Name", "")).strip(),
                slug=slug,
                price=price if price is not None else 0.0,
                regular_price=regular if regular is not None else (price or 0.0),
                sale_price=sale,
                categories=_split_categories(row.get("Categories", "")),
                short_description=html_to_text(_export_text(row.get("Short description", ""))),
                description=html_to_text(_export_text(row.get("Description", ""))),
                sku=row.get("SKU", "").strip(),
                brand=row.get("Brands", "").strip(),
                global_category=row.get("Global Category", "").strip(),
            )
        )
    return products


def find_product_csvs(data_dir: Path) -> list[Path] | None:
    """``webmall_1.csv``..``webmall_4.csv`` in ``data_dir``, ``data_dir/product_data`` or ``data_dir/webmall/...``."""
    for base in (data_dir, data_dir / "product_data", data_dir / "webmall", data_dir / "webmall" / "product_data"):
        paths = [base / f"webmall_{i}.csv" for i in range(1, 5)]
        if all(path.is_file() for path in paths):
            return paths
    return None


def read_csv_rows(path: Path) -> list[dict[str, str]]:
    """Rows of a WooCommerce export as dicts (UTF-8, with or without BOM), each checked against
    :class:`~personal_envs.webmall.schema.CsvRow`.

    Raises:
        CatalogError: the file is unreadable, not UTF-8, not CSV, or a row breaks the schema (file, line and column
            named).
    """
    csv.field_size_limit(1 << 30)
    with reraise_as(CatalogError):
        text = decode_utf8(read_bytes(path, "product CSV"), str(path))
        try:
            rows = [schema.row_fields(row) for row in csv.DictReader(io.StringIO(text, newline=""))]
        except csv.Error as exc:
            raise CatalogError(f"{path}: not a readable CSV file ({exc})") from None
        for number, row in enumerate(rows, start=2):
            validate(schema.CsvRow, row, f"{path} line {number}")
    return rows


@lru_cache(maxsize=4)
def _load_official(data_dir: str) -> tuple[tuple[list[Product], ...], str]:
    paths = find_product_csvs(Path(data_dir))
    if paths is None:
        raise CatalogError(
            f"no webmall_1.csv..webmall_4.csv under {data_dir}; run 'personal-envs data fetch webmall' "
            "or pass data_dir=None to use the catalog the project ships"
        )
    return tuple(products_from_rows(i, read_csv_rows(path)) for i, path in enumerate(paths, 1)), str(paths[0].parent)


def load_catalog(data_dir: str | Path | None = None) -> Catalog:
    """The official catalog from ``data_dir`` when given, else the project's own seeded catalog.

    Each call returns fresh :class:`Shop` objects (cheap: the parsed rows are cached), so an env may rename slugs
    without affecting other envs.
    """
    if data_dir is not None:
        product_lists, found_in = _load_official(str(Path(data_dir).expanduser().resolve()))
        shops = tuple(
            Shop(i, SHOP_NAMES[i - 1], [_copy(p) for p in products]) for i, products in enumerate(product_lists, 1)
        )
        return Catalog(shops=shops, source="official", data_dir=Path(found_in))  # type: ignore[arg-type]
    from personal_envs.webmall.shipped_catalog import shipped_products

    lists = shipped_products()
    shops = tuple(Shop(i, SHOP_NAMES[i - 1], [_copy(p) for p in lists[i - 1]]) for i in range(1, 5))
    return Catalog(shops=shops, source="shipped")  # type: ignore[arg-type]


def _copy(product: Product) -> Product:
    return Product(**{**product.__dict__, "attributes": dict(product.attributes)})
