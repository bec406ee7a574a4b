"""A stand-in for one WooCommerce shop, run inside a test container (standard library only).

Its content comes from the volume the test restored from a backup tarball: ``/srv/shop/shop.json`` with the shop's
title, its cart markup (``"classic"``: the cart rows are in the HTML, as WooCommerce's shortcode cart renders them;
``"block"``: the page holds an empty cart block that a script fills from the Store API, as WooCommerce's block cart
does, so the raw HTML names no cart item) and its products.  Pages use WooCommerce's class names for what the
official evaluator reads: cart rows, the add-to-cart notice, the order-received table and the customer details.
Cart pages also list cross-sells, which are not in the cart and must not be counted.
"""

from __future__ import annotations

import html
import itertools
import json
import sys
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

with open(sys.argv[1] if len(sys.argv) > 1 else "/srv/shop/shop.json", encoding="utf-8") as shop_file:
    SHOP = json.load(shop_file)
BY_SLUG = {p["slug"]: p for p in SHOP["products"]}
CARTS: dict[str, list[str]] = {}
ORDERS: dict[str, dict] = {}
ORDER_IDS = itertools.count(1001)
FIELDS = [("billing_first_name", "First name"), ("billing_last_name", "Last name"),
          ("billing_address_1", "Street address"), ("billing_city", "Town / City"),
          ("billing_state", "State / County"), ("billing_postcode", "ZIP Code"), ("billing_email", "Email address"),
          ("card_number", "Card number"), ("card_expiry", "Expiry date"), ("card_cvc", "Card code")]


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args: object) -> None:
        pass

    # ------------------------------------------------------------------ helpers
    def origin(self) -> str:
        return f"http://{self.headers.get('Host', 'localhost')}"

    def session(self) -> tuple[str, bool]:
        for part in (self.headers.get("Cookie") or "").split(";"):
            key, _, value = part.strip().partition("=")
            if key == "wp_woocommerce_session" and value:
                return value, False
        return uuid.uuid4().hex, True

    def link(self, product: dict) -> str:
        return f"{self.origin()}/product/{product['slug']}/"

    def send(self, body: str, status: int = 200, ctype: str = "text/html; charset=utf-8",
             headers: dict[str, str] | None = None) -> None:
        data = body.encode("utf-8")
        sid, new = self.session()
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        if new:
            self.send_header("Set-Cookie", f"wp_woocommerce_session={sid}; Path=/")
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(data)

    def page(self, title: str, body: str) -> str:
        return (f"<!DOCTYPE html><html><head><title>{html.escape(title)} - {html.escape(SHOP['title'])}</title></head>"
                f"<body class='woocommerce'><header><a href='{self.origin()}/'>{html.escape(SHOP['title'])}</a> "
                f"<a href='{self.origin()}/cart/'>Cart</a> <a href='{self.origin()}/checkout/'>Checkout</a></header>"
                f"<main>{body}</main></body></html>")

    def cross_sells(self, cart: list[str]) -> str:
        others = [p for p in SHOP["products"] if p["slug"] not in cart][:2]
        items = "".join(f"<li class='product'><a href='{self.link(p)}'>{html.escape(p['name'])}</a></li>"
                        for p in others)
        return f"<div class='cross-sells'><h2>You may be interested in</h2><ul class='products'>{items}</ul></div>"

    # ------------------------------------------------------------------ routes
    def do_GET(self) -> None:  # noqa: N802
        path = urlparse(self.path).path
        sid, _ = self.session()
        cart = CARTS.setdefault(sid, [])
        if path == "/":
            items = "".join(f"<li class='product'><a href='{self.link(p)}'>{html.escape(p['name'])}</a></li>"
                            for p in SHOP["products"])
            self.send(self.page("Shop", f"<ul class='products'>{items}</ul>"))
        elif path.startswith("/product/") and path.strip("/").split("/")[-1] in BY_SLUG:
            self.send(self.product_page(BY_SLUG[path.strip("/").split("/")[-1]], added=False))
        elif path == "/cart/":
            self.send(self.cart_page(cart))
        elif path == "/wp-json/wc/store/v1/cart":
            items = [{"id": BY_SLUG[s]["id"], "name": BY_SLUG[s]["name"], "permalink": self.link(BY_SLUG[s])}
                     for s in cart]
            self.send(json.dumps({"items": items, "items_count": len(items)}), ctype="application/json")
        elif path == "/checkout/":
            inputs = "".join(f"<p><label for='{name}'>{label}</label><input id='{name}' name='{name}' type='text'></p>"
                             for name, label in FIELDS)
            country = ("<p><label for='billing_country'>Country / Region</label><select id='billing_country' "
                       "name='billing_country'><option value=''>Select a country</option><option value='US'>United "
                       "States (US)</option><option value='DE'>Germany</option></select></p>")
            self.send(self.page("Checkout", f"<form class='checkout woocommerce-checkout' method='post' "
                                            f"action='/checkout/'>{inputs}{country}<button type='submit' "
                                            f"name='woocommerce_checkout_place_order'>Place order</button></form>"))
        elif path.startswith("/checkout/order-received/"):
            order = ORDERS.get(path.rstrip("/").split("/")[-1])
            self.send(self.order_page(order) if order else self.page("Not found", "<p>No such order</p>"),
                      200 if order else 404)
        else:
            self.send(self.page("Not found", "<p>Page not found</p>"), 404)

    def do_POST(self) -> None:  # noqa: N802
        length = int(self.headers.get("Content-Length") or 0)
        form = {k: v[0] for k, v in parse_qs(self.rfile.read(length).decode("utf-8")).items()}
        path = urlparse(self.path).path
        sid, _ = self.session()
        cart = CARTS.setdefault(sid, [])
        slug = path.strip("/").split("/")[-1]
        if path.startswith("/product/") and slug in BY_SLUG and "add-to-cart" in form:
            if slug not in cart:
                cart.append(slug)
            self.send(self.product_page(BY_SLUG[slug], added=True))
        elif path == "/checkout/" and cart:
            number = str(next(ORDER_IDS))
            ORDERS[number] = {"items": list(cart), "form": form}
            CARTS[sid] = []
            self.send("", 302, headers={"Location": f"{self.origin()}/checkout/order-received/{number}/?key=wc_order_"
                                                    f"{uuid.uuid4().hex[:12]}"})
        else:
            self.send(self.page("Error", "<ul class='woocommerce-error'><li>Your cart is empty.</li></ul>"), 400)

    # ------------------------------------------------------------------ pages
    def product_page(self, product: dict, added: bool) -> str:
        notice = (f"<div class='woocommerce-message' role='alert'><a href='{self.origin()}/cart/' class='button "
                  f"wc-forward'>View cart</a> “{html.escape(product['name'])}” has been added to your cart.</div>"
                  if added else "")
        return self.page(product["name"], f"{notice}<div class='product'><h1 class='product_title entry-title'>"
                                          f"{html.escape(product['name'])}</h1><p class='price'>${product['price']:.2f}"
                                          f"</p><form class='cart' method='post' action='{self.link(product)}'>"
                                          f"<button type='submit' name='add-to-cart' value='{product['id']}' "
                                          f"class='single_add_to_cart_button button alt'>Add to cart</button></form>"
                                          f"</div>")

    def cart_page(self, cart: list[str]) -> str:
        if SHOP["cart"] == "block":
            script = ("<script>fetch('/wp-json/wc/store/v1/cart',{credentials:'same-origin'}).then(r=>r.json())"
                      ".then(c=>{const root=document.querySelector('.wp-block-woocommerce-cart');"
                      "if(!c.items.length){root.innerHTML='<p class=\"wc-block-cart__empty-cart__title\">Your cart is "
                      "currently empty!</p>';return;}"
                      "root.innerHTML='<table class=\"wc-block-cart-items\"><tbody>'+c.items.map(i=>"
                      "'<tr class=\"wc-block-cart-items__row\"><td class=\"wc-block-cart-item__product\"><a class="
                      "\"wc-block-components-product-name\" href=\"'+i.permalink+'\">'+i.name+'</a></td></tr>')"
                      ".join('')+'</tbody></table>';root.classList.add('is-loaded');});</script>")
            body = ("<div class='wp-block-woocommerce-cart alignwide is-loading' data-block-name='woocommerce/cart'>"
                    f"</div>{self.cross_sells(cart)}{script}")
            return self.page("Cart", body)
        if not cart:
            return self.page("Cart", f"<p class='cart-empty woocommerce-info'>Your cart is currently empty.</p>"
                                     f"{self.cross_sells(cart)}")
        rows = "".join(f"<tr class='woocommerce-cart-form__cart-item cart_item'><td class='product-name' "
                       f"data-title='Product'><a href='{self.link(BY_SLUG[s])}'>{html.escape(BY_SLUG[s]['name'])}</a>"
                       f"</td></tr>" for s in cart)
        return self.page("Cart", f"<form class='woocommerce-cart-form'><table class='shop_table cart'><tbody>{rows}"
                                 f"</tbody></table></form>{self.cross_sells(cart)}")

    def order_page(self, order: dict) -> str:
        form = order["form"]
        rows = "".join(f"<tr class='woocommerce-table__line-item order_item'><td class='woocommerce-table__product-name "
                       f"product-name'><a href='{self.link(BY_SLUG[s])}'>{html.escape(BY_SLUG[s]['name'])}</a></td></tr>"
                       for s in order["items"])
        country = {"US": "United States (US)", "DE": "Germany"}.get(form.get("billing_country", ""), "")
        address = "<br>".join(html.escape(x) for x in (
            f"{form.get('billing_first_name', '')} {form.get('billing_last_name', '')}",
            form.get("billing_address_1", ""),
            f"{form.get('billing_city', '')}, {form.get('billing_state', '')} {form.get('billing_postcode', '')}",
            country))
        return self.page("Order received", "<p class='woocommerce-notice woocommerce-thankyou-order-received'>Thank "
                         "you. Your order has been received.</p><table class='woocommerce-table woocommerce-table--"
                         f"order-details shop_table order_details'><tbody>{rows}</tbody></table><section class="
                         f"'woocommerce-customer-details'><address>{address}<p class='woocommerce-customer-details--"
                         f"email'>{html.escape(form.get('billing_email', ''))}</p></address></section>"
                         f"{self.cross_sells(order['items'])}")


if __name__ == "__main__":
    ThreadingHTTPServer(("0.0.0.0", 8080), Handler).serve_forever()
