"""The embedded shops over real HTTP (urllib), without a browser."""

from __future__ import annotations

import http.cookiejar
import re
import socket
import threading
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator

import pytest

from personal_envs.webmall.catalog import Catalog
from personal_envs.webmall.generator import generate_tasks
from personal_envs.webmall.server import ShopCluster

BILLING = {
    "billing_first_name": "Jessica", "billing_last_name": "Morgan", "billing_country": "US",
    "billing_address_1": "742 Maple Avenue", "billing_city": "Chicago", "billing_state": "IL",
    "billing_postcode": "60614", "billing_email": "jessica.morgan@yahoo.com",
    "card_number": "4242 4242 4242 4242", "card_expiry": "12/28", "card_cvc": "123",
}


@pytest.fixture()
def cluster(shipped_catalog: Catalog) -> Iterator[ShopCluster]:
    shops = ShopCluster(shipped_catalog)
    yield shops
    shops.close()


def _opener() -> urllib.request.OpenerDirector:
    return urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))


def _get(opener: urllib.request.OpenerDirector, url: str) -> tuple[int, str, str]:
    try:
        with opener.open(url, timeout=10) as response:
            return response.status, response.geturl(), response.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, url, exc.read().decode()


def _post(opener: urllib.request.OpenerDirector, url: str, data: dict[str, str]) -> tuple[int, str, str]:
    body = urllib.parse.urlencode(data).encode()
    try:
        with opener.open(url, data=body, timeout=10) as response:
            return response.status, response.geturl(), response.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, url, exc.read().decode()


def test_routes_and_layouts(cluster: ShopCluster, shipped_catalog: Catalog) -> None:
    opener = _opener()
    homes = [_get(opener, origin + "/")[2] for origin in cluster.shop_origins]
    assert len({re.search(r'class="woocommerce layout-(\w+)"', h).group(1) for h in homes}) == 4  # type: ignore[union-attr]
    product = shipped_catalog.shop(2).products[3]
    status, _, html = _get(opener, cluster.shop_origins[1] + product.path + "/")
    assert status == 200 and "Add to cart" in html and product.slug in html
    assert _get(opener, cluster.shop_origins[1] + product.path)[0] == 200  # no trailing slash
    status, _, html = _get(opener, cluster.shop_origins[1] + "/?s=" + urllib.parse.quote(product.name.split(",")[0]))
    assert status == 200 and product.path in html
    node = next(iter(shipped_catalog.shop(3).root.children.values()))
    status, _, html = _get(opener, cluster.shop_origins[2] + node.url_path)
    assert status == 200 and 'class="product type-product"' in html and "add_to_cart_button" in html
    assert _get(opener, cluster.shop_origins[0] + "/product/does-not-exist/")[0] == 404
    assert _get(opener, cluster.shop_origins[0] + "/product-category/nope/")[0] == 404
    status, _, html = _get(opener, cluster.solution_origin + "/")
    assert status == 200 and "Submit Final Result" in html
    assert not any(origin in html for origin in cluster.shop_origins)  # the official page names no shop


def test_cart_and_checkout_state(cluster: ShopCluster, shipped_catalog: Catalog) -> None:
    opener, other = _opener(), _opener()
    product = shipped_catalog.shop(1).products[0]
    origin = cluster.shop_origins[0]
    status, url, html = _post(opener, origin + "/cart/add", {"product": product.slug, "quantity": "2"})
    assert status == 200 and url.endswith("?added=1") and "has been added to your cart" in html
    assert cluster.states[0].carted_slugs() == {product.slug}
    assert "Your cart is currently empty" in _get(other, origin + "/cart/")[2]  # carts are per session
    assert product.name.split(",")[0] in _get(opener, origin + "/cart/")[2]
    status, _, html = _post(opener, origin + "/checkout/", {**BILLING, "billing_email": "nope"})
    assert "Billing email address is not valid" in html and cluster.states[0].order_list() == []
    status, url, html = _post(opener, origin + "/checkout/", {**BILLING, "card_number": "12"})
    assert "card number is not valid" in html
    status, url, html = _post(opener, origin + "/checkout/", BILLING)
    assert "/checkout/order-received/1/" in url and "Your order has been received" in html
    orders = cluster.states[0].order_list()
    assert len(orders) == 1 and orders[0].product_paths == (product.path,)
    assert orders[0].billing["postcode"] == "60614"
    assert cluster.states[0].carted_slugs() == set()  # the order emptied the cart
    cluster.reset_state()
    assert cluster.states[0].order_list() == []


def test_bad_requests_do_not_break_the_server(cluster: ShopCluster) -> None:
    origin = cluster.shop_origins[0]
    opener = _opener()
    assert _post(opener, origin + "/cart/add", {"product": "../../etc/passwd"})[0] == 400
    assert _post(opener, origin + "/cart/update", {"product": "x", "quantity": "lots"})[0] == 200
    assert _get(opener, origin + "/?s=" + "a" * 5000)[0] == 200
    assert _get(opener, origin + "/shop/?page=-7")[0] == 200
    assert _get(opener, origin + "/shop/page/99999999999/")[0] == 200
    request = urllib.request.Request(origin + "/", headers={"Cookie": "wm_session_1=\"; ;;=\x7f"})
    assert urllib.request.urlopen(request, timeout=10).status == 200
    with socket.create_connection(("127.0.0.1", int(origin.rsplit(":", 1)[1])), timeout=10) as raw:
        raw.sendall(b"POST /submit HTTP/1.0\r\nContent-Length: 99999999\r\n\r\n")
        assert b"413" in raw.recv(200)
    assert _get(opener, cluster.solution_origin + "/../../etc/passwd")[0] == 404
    assert _get(opener, origin + "/")[0] == 200  # still serving


def test_solution_page_is_served_and_takes_nothing_by_post(cluster: ShopCluster) -> None:
    opener = _opener()
    status, _, html = _get(opener, cluster.solution_origin + "/")
    assert status == 200 and 'id="submittedResult"' in html and "Submit Final Result" in html
    assert "<a " not in html  # as the official page: no link to any shop
    assert _post(opener, cluster.solution_origin + "/submit", {"solution": "Done"})[0] == 405


def test_no_page_exposes_an_answer_set(cluster: ShopCluster, shipped_catalog: Catalog) -> None:
    """Crawl everything reachable from the solution page and the shops' home pages: no page lists a task's answers
    across shops."""
    tasks = generate_tasks(shipped_catalog)
    origins = {f"URL_{i}": o for i, o in enumerate(cluster.shop_origins, 1)} | {"URL_5": cluster.solution_origin}
    answer_sets = [set(t.expected_urls(origins)) for t in tasks]
    multi_shop = [s for s in answer_sets if len({u.rsplit("/product/", 1)[0] for u in s}) > 1]
    assert multi_shop
    opener = _opener()
    allowed = tuple([*cluster.shop_origins, cluster.solution_origin])
    queue = [cluster.solution_origin + "/", *(origin + "/" for origin in cluster.shop_origins)]
    seen, pages = set(), 0
    while queue and pages < 1500:
        url = queue.pop()
        if url in seen:
            continue
        seen.add(url)
        status, _, html = _get(opener, url)
        pages += 1
        origin = next(o for o in allowed if url.startswith(o))
        links = {urllib.parse.urljoin(url, h) for h in re.findall(r'href="([^"#]+)"', html) if "add-to-cart" not in h}
        absolute = {link.split("?added")[0] for link in links}
        for answers in multi_shop:
            assert not answers <= absolute, f"{url} links every answer of a task"
        for word in ("correct_answer", "expected", "answer key", "task_sets"):
            assert word not in html.lower()
        queue.extend(link for link in absolute if link.startswith(allowed) and link not in seen)
        if url.startswith(cluster.solution_origin):
            assert "/product/" not in html
        del origin
    assert pages > 150  # the crawl reached the product pages
    for path in ("/tasks", "/answers", "/api/tasks", "/task_sets.json", "/.env", "/admin"):
        for origin in allowed:
            assert _get(opener, origin + path)[0] == 404


def test_close_stops_every_thread(shipped_catalog: Catalog) -> None:
    before = {t.name for t in threading.enumerate()}
    shops = ShopCluster(shipped_catalog)
    port = int(shops.shop_origins[0].rsplit(":", 1)[1])
    shops.close()
    shops.close()
    leftover = {t.name for t in threading.enumerate()} - before
    assert not any(name.startswith("webmall-") for name in leftover)
    with pytest.raises(OSError), socket.create_connection(("127.0.0.1", port), timeout=2):
        pass


def test_a_page_answered_again_shows_the_cart_and_records_the_visit(cluster: ShopCluster,
                                                                      shipped_catalog: Catalog) -> None:
    """The shops answer a repeated GET from the page they made before: the same page while nothing changed, the
    new cart count once the cart changed, a product visit recorded each time, an order's page only once it exists."""
    opener = _opener()
    origin = cluster.shop_origins[0]
    product = shipped_catalog.shop(1).products[0]
    assert _get(opener, origin + "/")[0] == 200  # the session cookie
    first = _get(opener, origin + "/shop/")[2]
    assert _get(opener, origin + "/shop/")[2] == first
    count = re.compile(r'cart-contents-count[^>]*>(\d+)<')
    assert count.findall(first) and set(count.findall(first)) == {"0"}
    _post(opener, origin + "/cart/add", {"product": product.slug, "quantity": "2"})
    after = _get(opener, origin + "/shop/")[2]
    assert set(count.findall(after)) == {"2"}
    visits = len(cluster.states[0].visits)
    page = _get(opener, origin + product.path + "/")[2]
    assert _get(opener, origin + product.path + "/")[2] == page
    assert cluster.states[0].visits[visits:] == [product.slug, product.slug]
    other = shipped_catalog.shop(1).products[1]
    with_body = urllib.request.Request(origin + "/shop/", data=f"add-to-cart={other.slug}".encode(), method="GET")
    opener.open(with_body, timeout=10).read()  # a GET's body fields count as arguments: not answered from the kept page
    assert other.slug in cluster.states[0].carted_slugs()
    assert _get(opener, origin + "/checkout/order-received/1/")[0] == 404
    _post(opener, origin + "/checkout/", BILLING)
    assert _get(opener, origin + "/checkout/order-received/1/")[0] == 200
    assert set(count.findall(_get(opener, origin + "/shop/")[2])) == {"0"}  # the order emptied the cart
