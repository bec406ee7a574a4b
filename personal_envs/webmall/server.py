"""The embedded WebMall: four shops and the solution page, served over real HTTP on loopback.

:class:`ShopCluster` starts one :class:`~http.server.ThreadingHTTPServer` per shop plus one for the solution page,
each on ``127.0.0.1`` with an ephemeral port, and serves them from background threads.  Routes follow WooCommerce:
``/?s=<query>`` (search), ``/shop/``, ``/product-category/<path>/``, ``/product/<slug>/``, ``/cart/`` with
``POST /cart/add`` and ``POST /cart/update``, ``/checkout/`` (billing form, ``POST`` places the order) and
``/checkout/order-received/<n>/``.  Carts live on the server, keyed by a per-shop session cookie; the solution page
takes submissions in place, in the browser (the env reads them from the page).  Neither knows anything about tasks
or answers.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Sequence
from http.server import BaseHTTPRequestHandler
from typing import Any

from personal_envs.core.http import LoopbackServer, Request, Response, read_request, send_response
from personal_envs.core.http_guard import write_refusal
from personal_envs.webmall.catalog import Catalog, Product, Shop
from personal_envs.webmall.layouts import COUNTRIES, e, layout_for
from personal_envs.webmall.listing import Listing, catalog_listing, search_listing
from personal_envs.webmall.solution_page import PROJECT_TEXTS, SolutionTexts, render_solution_page
from personal_envs.webmall.state import ShopState

#: Largest request body accepted (bytes); larger bodies get 413.
MAX_BODY = 1 << 20
_REQUIRED_BILLING = ("first_name", "last_name", "address_1", "city", "state", "postcode", "email", "country")
#: Pages a shop keeps to answer the same GET again (see :meth:`ShopApp.handle`).
MAX_KEPT_PAGES = 128
_SESSION_ID = re.compile(r"[A-Za-z0-9_-]{8,64}")
_PRODUCT_PATH = re.compile(r"/product/([^/]+)/?")
_COUNTRY_CODES = {code for code, _ in COUNTRIES if code}


class App:
    """Base of the shop and solution apps: turns a :class:`Request` into a :class:`Response`."""

    def handle(self, request: Request) -> Response:
        raise NotImplementedError


def _page_number(raw: str) -> int:
    try:
        return max(1, min(10_000, int(raw)))
    except ValueError:
        return 1


class ShopApp(App):
    """One shop: routes, cart and checkout over a :class:`Shop` and its :class:`ShopState`."""

    def __init__(self, shop: Shop, state: ShopState, port_key: str) -> None:
        self.shop = shop
        self.state = state
        self.layout = layout_for(shop)
        self.cookie_name = f"wm_session_{port_key}"
        #: Responses to GETs by what they show (see :meth:`handle`), each with the product whose visit it records.
        self._kept: dict[tuple[object, ...], tuple[Response, str]] = {}

    # ------------------------------------------------------------------------------------------- helpers
    def _session(self, request: Request, response_headers: dict[str, str]) -> str:
        session = request.cookies.get(self.cookie_name, "")
        if not _SESSION_ID.fullmatch(session):
            session = self.state.new_session()
            response_headers["Set-Cookie"] = f"{self.cookie_name}={session}; Path=/; HttpOnly; SameSite=Lax"
        return session

    def _lines(self, session: str) -> list[tuple[Product, int]]:
        cart = self.state.cart(session)
        return [(self.shop.by_slug[slug], qty) for slug, qty in cart.items() if slug in self.shop.by_slug]

    def _page(self, title: str, body: str, session: str, headers: dict[str, str], query: str = "",
              status: int = 200) -> Response:
        count = sum(q for _, q in self._lines(session))
        html = self.layout.document(title, body, cart_count=count, query=query)
        return Response(html, status, headers=headers)

    def _catalog(self, heading: str, products: Sequence[Product], request: Request, base: str,
                 subcategories: Sequence[Any] = (), page: int = 1) -> str:
        """A category or the shop page, in the ``orderby`` the request asks for (:mod:`.listing`)."""
        listing = catalog_listing(products, base, orderby=request.arg("orderby")[:40], page=page,
                                  per_page=self.layout.per_page)
        return self.layout.listing(heading, listing, subcategories)

    # -------------------------------------------------------------------------------------------- routes
    def handle(self, request: Request) -> Response:
        """Answer one request.  A GET that changes nothing is answered again from the page made the last time the
        same URL was asked with the same cart (what such a page shows: the catalog, which does not change, the URL
        and the cart); a product page served so still records its visit.  Requests that change or read other
        state (posts, ``?add-to-cart=``, a new session, an order's page) are always handled."""
        key = self._kept_key(request)
        if key is None:
            return self._handle(request)
        kept = self._kept.get(key)
        if kept is not None:
            response, visited = kept
            if visited:
                self.state.record_visit(visited)
            return Response(response.body, response.status, response.content_type, dict(response.headers))
        response = self._handle(request)
        if response.status in (200, 404) and not response.headers:
            match = _PRODUCT_PATH.fullmatch(request.path)
            product = self.shop.by_slug.get(match.group(1).lower()) if match and response.status == 200 else None
            if len(self._kept) >= MAX_KEPT_PAGES:
                self._kept.clear()
            self._kept[key] = (response, product.slug if product is not None else "")
        return response

    def _kept_key(self, request: Request) -> tuple[object, ...] | None:
        """What a GET's page depends on, or None when the request must be handled (see :meth:`handle`)."""
        if request.method != "GET" or request.body or "add-to-cart" in request.query or \
                request.path.startswith("/checkout/order"):
            return None  # a body's fields count as arguments too (Request.arg)
        session = request.cookies.get(self.cookie_name, "")
        if not _SESSION_ID.fullmatch(session):
            return None
        query = tuple((name, tuple(values)) for name, values in request.query.items())
        return request.path, query, tuple(self.state.cart(session).items())

    def _handle(self, request: Request) -> Response:
        headers: dict[str, str] = {}
        session = self._session(request, headers)
        path = request.path
        if path == "/favicon.ico":
            return Response("", 204, headers=headers)
        added = ""
        if request.method == "GET" and request.arg("add-to-cart") in self.shop.by_slug:  # WooCommerce's GET fallback
            added = request.arg("add-to-cart")
            self.state.add(session, added, 1)
        page_match = re.fullmatch(r"(.*?)/page/(\d+)/?", path)  # WordPress pagination: <listing>/page/N/
        page = 1
        if page_match:
            path, page = (page_match.group(1) or "/"), _page_number(page_match.group(2))
        if request.arg("paged"):  # a query argument wins over the path (the ordering form sends paged=1)
            page = _page_number(request.arg("paged"))
        if request.method == "POST":
            if path == "/cart/add":
                return self._cart_add(request, session, headers)
            product_post = re.fullmatch(r"/product/([^/]+)/?", path)
            if product_post and request.field("add-to-cart"):
                return self._product_add(product_post.group(1), request, session, headers)
            if path == "/cart/update":
                return self._cart_update(request, session, headers)
            if path.rstrip("/") == "/checkout":
                return self._checkout_post(request, session, headers)
            return self._not_found(session, headers, status=405)
        if path == "/":
            query = request.arg("s").strip()
            if query:
                listing = search_listing(self.shop, query, orderby=request.arg("orderby")[:40], page=page,
                                         per_page=self.layout.per_page)
                if listing.redirect is not None and not added:  # this shop opens a single result's page
                    return Response.redirect(listing.redirect.path + "/", 302, headers)
                body = self.layout.listing(f"Search results: “{listing.query}”", listing)
                return self._page(f"Search results for {query[:80]}", self._added(added) + body, session, headers,
                                  query=listing.query)
            return self._home(request, session, headers, added)
        if path.rstrip("/") == "/shop":
            body = self._catalog("Shop", self.shop.products, request, "/shop/", page=page)
            return self._page("Shop", self._added(added) + body, session, headers)
        if path.rstrip("/") == "/categories":
            body = f"<h1>Product categories</h1>{self.layout.tree(self.shop.root)}"
            return self._page("Categories", body, session, headers)
        if path == "/go":
            target = request.arg("to")
            return Response.redirect(target if target.startswith("/product-category/") else "/", 303)
        match = _PRODUCT_PATH.fullmatch(path)
        if match:
            return self._product(match.group(1), request, session, headers, notice=bool(added))
        match = re.fullmatch(r"/product-category/(.+?)/?", path)
        if match:
            return self._category(match.group(1).split("/"), request, session, headers, page, added)
        if path.rstrip("/") == "/cart":
            notice = "Cart updated." if request.arg("updated") else ""
            return self._page("Cart", self.layout.cart_page(self._lines(session), notice), session, headers)
        if path.rstrip("/") == "/checkout":
            return self._page("Checkout", self.layout.checkout_page(self._lines(session), {}, []), session, headers)
        match = re.fullmatch(r"/checkout/order-received/(\d+)/?", path)
        if match:
            return self._order_received(int(match.group(1)), session, headers)
        return self._not_found(session, headers)

    def _added(self, slug: str) -> str:
        return self.layout.added_message(self.shop.by_slug[slug]) if slug else ""

    def _home(self, request: Request, session: str, headers: dict[str, str], added: str = "") -> Response:
        top = sorted(self.shop.root.children.values(), key=lambda n: n.name.lower())
        shown = tuple(self.shop.products[: self.layout.per_page])
        body = self.layout.listing(f"Welcome to {self.shop.name}", Listing(shown, len(shown), 1, 1, "", (), "",
                                                                             "/shop/"), top)
        body += '<p><a href="/shop/">Browse all products</a></p>'
        return self._page("Home", self._added(added) + body, session, headers)

    def _product(self, slug: str, request: Request, session: str, headers: dict[str, str],
                 notice: bool = False) -> Response:
        product = self.shop.by_slug.get(slug.lower())
        if product is None:
            return self._not_found(session, headers)
        self.state.record_visit(product.slug)
        body = self.layout.product_page(product, notice="added" if notice or request.arg("added") else "")
        return self._page(product.name, body, session, headers)

    def _product_add(self, slug: str, request: Request, session: str, headers: dict[str, str]) -> Response:
        """WooCommerce's single-product form posts to the product page, which then shows the confirmation."""
        product = self.shop.by_slug.get(slug.lower())
        if product is None:
            return self._not_found(session, headers)
        self.state.add(session, product.slug, min(_page_number(request.field("quantity", "1")), 99))
        return self._product(product.slug, request, session, headers, notice=True)

    def _category(self, slugs: list[str], request: Request, session: str, headers: dict[str, str],
                  page: int = 1, added: str = "") -> Response:
        node = self.shop.category([s.lower() for s in slugs if s])
        if node is None:
            return self._not_found(session, headers)
        products = [self.shop.by_slug[s] for s in node.all_product_slugs() if s in self.shop.by_slug]
        children = sorted(node.children.values(), key=lambda n: n.name.lower())
        body = self._catalog(node.name, products, request, node.url_path, children, page=page)
        return self._page(node.name, self._added(added) + body, session, headers)

    def _cart_add(self, request: Request, session: str, headers: dict[str, str]) -> Response:
        product = self.shop.by_slug.get(request.field("product"))
        if product is None:
            return self._not_found(session, headers, status=400, message="That product does not exist.")
        quantity = _page_number(request.field("quantity", "1"))
        self.state.add(session, product.slug, min(quantity, 99))
        if request.arg("ajax"):  # the listing's in-place add to cart
            return Response.json({"count": sum(q for _, q in self._lines(session))})
        return Response.redirect(f"{product.path}/?added=1", 303, headers)

    def _cart_update(self, request: Request, session: str, headers: dict[str, str]) -> Response:
        slug = request.field("product")
        try:
            quantity = max(0, min(99, int(request.field("quantity", "0"))))
        except ValueError:
            quantity = 0
        if slug in self.shop.by_slug:
            self.state.set_quantity(session, slug, quantity)
        return Response.redirect("/cart/?updated=1", 303, headers)

    def _checkout_post(self, request: Request, session: str, headers: dict[str, str]) -> Response:
        lines = self._lines(session)
        values = {key: request.field(key).strip()[:200] for key in request.form}
        if not lines:
            return self._page("Checkout", self.layout.checkout_page(lines, values, []), session, headers)
        billing = {key[len("billing_"):]: value for key, value in values.items() if key.startswith("billing_")}
        errors = [f"Billing {name.replace('_', ' ')} is a required field." for name in _REQUIRED_BILLING
                  if not billing.get(name)]
        if billing.get("country") and billing["country"] not in _COUNTRY_CODES:
            errors.append("Please select a valid country / region.")
        if billing.get("email") and not re.fullmatch(r"[^@\s]+@[^@\s]+\.[^@\s]+", billing["email"]):
            errors.append("Billing email address is not valid.")
        card = re.sub(r"[\s-]", "", values.get("card_number", ""))
        if not re.fullmatch(r"\d{12,19}", card):
            errors.append("The card number is not valid.")
        if not re.fullmatch(r"(0[1-9]|1[0-2])\s*/\s*\d{2}", values.get("card_expiry", "")):
            errors.append("The card expiry date is not valid (use MM/YY).")
        if not re.fullmatch(r"\d{3,4}", values.get("card_cvc", "")):
            errors.append("The card code is not valid.")
        if errors:
            return self._page("Checkout", self.layout.checkout_page(lines, values, errors), session, headers,
                              status=200)
        number = self.state.place_order(session, billing)
        return Response.redirect(f"/checkout/order-received/{number}/", 303, headers)

    def _order_received(self, number: int, session: str, headers: dict[str, str]) -> Response:
        orders = self.state.order_list()
        if not 1 <= number <= len(orders):
            return self._not_found(session, headers)
        order = orders[number - 1]
        products = [self.shop.by_slug[p.rsplit("/", 1)[-1]] for p in order.product_paths
                    if p.rsplit("/", 1)[-1] in self.shop.by_slug]
        body = self.layout.order_received_page(number, products, order.billing)
        return self._page("Order received", body, session, headers)

    def _not_found(self, session: str, headers: dict[str, str], status: int = 404,
                   message: str = "Oops! That page can’t be found.") -> Response:
        body = f'<h1>{e(message)}</h1><p><a href="/">Back to the shop</a></p>'
        return self._page("Page not found", body, session, headers, status=status)


class SolutionApp(App):
    """The solution page (:mod:`~personal_envs.webmall.solution_page`): the official page's structure, submitting in
    place (nothing is posted here)."""

    def __init__(self, texts: SolutionTexts = PROJECT_TEXTS) -> None:
        self.page = render_solution_page(texts)

    def handle(self, request: Request) -> Response:
        if request.path == "/" and request.method == "GET":
            return Response(self.page)
        if request.path == "/favicon.ico":
            return Response("", 204)
        return Response("<!DOCTYPE html><html><head><title>404 Not Found</title></head><body><h1>404 Not Found</h1>"
                        "</body></html>", 404 if request.method == "GET" else 405)


def _handler_for(app_getter: Callable[[], App]) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        server_version = "WebMall/1.0"
        timeout = 10

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - quiet server
            return

        def _respond(self, method: str) -> None:
            request = read_request(self, MAX_BODY)
            if request is None:
                return
            refusal = write_refusal(request.headers) if request.method == "POST" else ""
            if refusal:  # a page of another site posting into this shop's cart, checkout or answer box
                send_response(self, Response(f"<h1>Forbidden</h1><p>{e(refusal)}</p>", 403))
                return
            try:
                response = app_getter().handle(request)
            except Exception as exc:  # a page bug must not kill the server thread
                response = Response(f"<h1>Internal error</h1><p>{e(type(exc).__name__)}</p>", 500)
            send_response(self, response)

        def do_GET(self) -> None:  # noqa: N802 - http.server naming
            self._respond("GET")

        def do_HEAD(self) -> None:  # noqa: N802
            self._respond("GET")

        def do_POST(self) -> None:  # noqa: N802
            self._respond("POST")

    return Handler


class _Server:
    """One listening socket and its serving thread."""

    def __init__(self, host: str, app_getter: Callable[[], App], name: str) -> None:
        self._host, self._app_getter, self._name = host, app_getter, name
        self._server = LoopbackServer(_handler_for(app_getter), f"webmall-{name}-{{port}}", host=host, poll_interval=0.05)
        self.port = self._server.port
        self.origin = f"http://{host}:{self.port}"

    @property
    def running(self) -> bool:
        return self._server.running

    def restart(self) -> None:
        """Serve again on the same port (after :meth:`close` or a dead serving thread)."""
        self.close()
        self._server = LoopbackServer(_handler_for(self._app_getter), f"webmall-{self._name}-{{port}}",
                                      host=self._host, port=self.port, poll_interval=0.05)

    def close(self) -> None:
        self._server.close(timeout=5)


#: Origins of the four shops and the solution page in the text mode (names only: nothing listens on them).
TEXT_ORIGINS: tuple[str, ...] = (*(f"http://shop{i}.webmall.localhost" for i in range(1, 5)),
                                 "http://solution.webmall.localhost")


class ShopCluster:
    """The four embedded shops and the solution page of one env, each on its own loopback port.

    Args:
        catalog: Products of the four shops.
        host: Interface to bind (loopback by default).
        shop_origins: Origins of external shops (the original WooCommerce installs); when given, no shop server is
            started and only the solution page is served here.
        solution_texts: The solution page's words (the official page's when the data holds it).
        solution_origin: Origin of an external solution page (the official deployment's frontend); when given, no
            solution page is served here.
        serve: Listen on loopback (the browser mode).  ``False`` (the text mode): no socket and no thread; the
            shops and the solution page answer in-process through :meth:`sites` under the names
            :data:`TEXT_ORIGINS` gives them.
    """

    def __init__(self, catalog: Catalog, host: str = "127.0.0.1", shop_origins: Sequence[str] | None = None,
                 solution_texts: SolutionTexts = PROJECT_TEXTS, solution_origin: str | None = None,
                 serve: bool = True) -> None:
        self.catalog = catalog
        self.external = shop_origins is not None
        self.states = [ShopState(i) for i in range(1, 5)]
        self._servers: list[_Server] = []
        self.apps: list[ShopApp] = []
        self.solution_app: SolutionApp | None = None
        if not serve:
            if shop_origins is not None or solution_origin is not None:
                raise ValueError("the text mode serves the embedded shops only (no shop_urls)")
            for shop, state in zip(catalog.shops, self.states, strict=True):
                self.apps.append(ShopApp(shop, state, f"shop{shop.index}"))
            self.shop_origins = list(TEXT_ORIGINS[:4])
            self.solution_app = SolutionApp(solution_texts)
            self.solution_origin = TEXT_ORIGINS[4]
            self._all_servers = []
            return
        try:
            if shop_origins is None:
                for shop, state in zip(catalog.shops, self.states, strict=True):
                    holder: dict[str, App] = {}
                    server = _Server(host, functools.partial(holder.__getitem__, "app"), f"shop{shop.index}")
                    app = ShopApp(shop, state, str(server.port))
                    holder["app"] = app
                    self.apps.append(app)
                    self._servers.append(server)
                self.shop_origins = [server.origin for server in self._servers]
            else:
                if len(shop_origins) != 4:
                    raise ValueError(f"shop_urls needs the four shop origins, got {len(shop_origins)}")
                self.shop_origins = [origin.rstrip("/") for origin in shop_origins]
            if solution_origin is None:
                solution_app = self.solution_app = SolutionApp(solution_texts)
                solution = _Server(host, lambda: solution_app, "solution")
                self._servers.append(solution)
                solution_origin = solution.origin
        except BaseException:
            self.close()
            raise
        self.solution_origin = solution_origin.rstrip("/")
        self._all_servers = list(self._servers)

    def sites(self) -> dict[str, App]:
        """The embedded apps by origin (the shops and the solution page), for in-process requests."""
        sites: dict[str, App] = dict(zip(self.shop_origins, self.apps, strict=False)) if self.apps else {}
        if self.solution_app is not None:
            sites[self.solution_origin] = self.solution_app
        return sites

    def origins(self) -> dict[str, str]:
        """Placeholder values: ``URL_1``..``URL_4`` (shops) and ``URL_5`` (solution page)."""
        values = {f"URL_{i}": origin for i, origin in enumerate(self.shop_origins, 1)}
        values["URL_5"] = self.solution_origin
        return values

    def ensure_running(self) -> list[str]:
        """Restart, on their own ports, the servers that were stopped; returns the origins restarted."""
        restarted = []
        for server in self._all_servers:
            if not server.running:
                server.restart()
                restarted.append(server.origin)
        return restarted

    def reset_state(self) -> None:
        """Empty every cart, order list and visit log (start of an episode)."""
        for state in self.states:
            state.clear()

    def close(self) -> None:
        """Stop every server and join its thread (idempotent)."""
        servers, self._servers = self._servers, []
        for server in servers:
            server.close()
