from pathlib import Path

from personal_envs.webmall.catalog import Catalog, html_to_text, load_catalog, parse_price
from personal_envs.webmall.shipped_catalog import write_csvs
from personal_envs.webmall.slugs import wordpress_slug


def test_parse_price() -> None:
    assert parse_price("139,99") == 139.99
    assert parse_price("240.97") == 240.97
    assert parse_price("1.299,00") == 1299.0
    assert parse_price("1,299.00") == 1299.0
    assert parse_price("") is None
    assert parse_price("n/a") is None


def test_html_to_text() -> None:
    assert html_to_text("<p>One &amp; two</p><ul><li>a</li><li>b</li></ul>") == "One & two\na\nb"


def test_official_catalog(official_catalog: Catalog) -> None:
    assert [len(s.products) for s in official_catalog.shops] == [1152, 1095, 1156, 1020]
    assert official_catalog.source == "official"
    shop = official_catalog.shop(4)
    assert "cases" in shop.root.children
    node = shop.category(["cases", "gaming", "pc-cases"])
    assert node is not None and len(node.all_product_slugs()) >= 60
    hits = official_catalog.shop(2).search("Ryzen 9 5900X")
    assert any(p.slug == "amd-ryzen-9-5900x-3-7-ghz-12-core" for p in hits)
    assert sum(p.price <= 0 for p in official_catalog.all_products()) == 15  # export rows priced 0 or empty


def test_shipped_catalog_is_deterministic_and_differs_per_shop(shipped_catalog: Catalog) -> None:
    again = load_catalog(None)
    assert [p.slug for p in shipped_catalog.all_products()] == [p.slug for p in again.all_products()]
    assert 150 <= sum(len(s.products) for s in shipped_catalog.shops) <= 300
    trees = [tuple(sorted(s.root.children)) for s in shipped_catalog.shops]
    assert len(set(trees)) == 4
    assert all(p.attributes.get("model") for p in shipped_catalog.all_products())


def test_category_product_lists_follow_a_renamed_slug() -> None:
    shop = load_catalog(None).shop(1)
    product = shop.products[0]
    old = product.slug
    categories = [shop.category([wordpress_slug(part) or "category" for part in path]) for path in product.categories]
    before = [node.all_product_slugs() for node in (shop.root, *categories) if node is not None]
    assert len(before) >= 2 and all(old in slugs for slugs in before)
    shop.rename_slug(old, "renamed-product")
    after = [node.all_product_slugs() for node in (shop.root, *categories) if node is not None]
    assert all("renamed-product" in slugs and old not in slugs for slugs in after)
    assert [len(slugs) for slugs in after] == [len(slugs) for slugs in before]


def test_shipped_catalog_exports_in_official_schema(tmp_path: Path) -> None:
    paths = write_csvs(tmp_path)
    exported = load_catalog(tmp_path)
    shipped = load_catalog(None)
    assert len(paths) == 4
    assert [p.slug for p in exported.all_products()] == [p.slug for p in shipped.all_products()]
    assert [p.price for p in exported.all_products()] == [p.price for p in shipped.all_products()]
