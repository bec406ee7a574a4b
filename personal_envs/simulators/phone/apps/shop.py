"""Shopping apps (Taodian and jingdian): search, product options, cart, checkout with address and payment, orders."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING

from personal_envs.simulators.phone import ui
from personal_envs.simulators.phone.apps.base import AppError, Route
from personal_envs.simulators.phone.apps.commerce import (
    ACCOUNT_HOLDER,
    ACCOUNT_PHONE,
    DEFAULT_PAYMENT,
    PAYMENT_METHODS,
    CommerceApp,
)

if TYPE_CHECKING:
    from personal_envs.simulators.phone.phone import Phone

__all__ = ["ACCOUNT_HOLDER", "ACCOUNT_PHONE", "PAYMENT_METHODS", "CartItem", "JingdianApp", "Order", "Product", "ShopApp",
           "TaodianApp", "decode_options", "encode_options"]


@dataclass
class Product:
    """A catalogue item; ``options`` maps an option name (size, colour) to its values."""

    pid: str
    title: str
    price: float
    category: str
    style: str = ""
    options: dict[str, list[str]] = field(default_factory=dict)
    description: str = ""


@dataclass
class CartItem:
    """A product with chosen options and quantity."""

    pid: str
    quantity: int = 1
    options: dict[str, str] = field(default_factory=dict)


@dataclass
class Order:
    """A placed order."""

    oid: str
    items: list[CartItem]
    name: str
    phone: str
    address: str
    payment: str
    note: str
    total: float
    time: datetime


def encode_options(options: dict[str, str]) -> str:
    return ";".join(f"{k}={v}" for k, v in sorted(options.items()))


def decode_options(text: str) -> dict[str, str]:
    return dict(part.split("=", 1) for part in text.split(";") if "=" in part)


class ShopApp(CommerceApp):
    """Base shopping app; state: :attr:`catalog`, :attr:`cart`, :attr:`orders`."""

    accent = "#ff5000"

    def __init__(self, phone: Phone) -> None:
        super().__init__(phone)
        self.catalog: list[Product] = []
        self.cart: list[CartItem] = []
        self.orders: list[Order] = []
        #: Every cart deletion, as the official mall's callback records it: (deleted product ids, cart ids before).
        self.deletions: list[tuple[list[str], list[str]]] = []

    def add_product(self, pid: str, title: str, price: float, category: str, style: str = "",
                    options: dict[str, list[str]] | None = None, description: str = "") -> Product:
        product = Product(pid, title, price, category, style, dict(options or {}), description)
        self.catalog.append(product)
        return product

    def product(self, pid: str) -> Product | None:
        return next((p for p in self.catalog if p.pid == pid), None)

    def search(self, query: str) -> list[Product]:
        """Products whose title, category, style or description contains every word of ``query``."""
        words = query.lower().split()
        return [p for p in self.catalog
                if all(w in f"{p.title} {p.category} {p.style} {p.description}".lower() for w in words)]

    def _product_row(self, product: Product) -> str:
        return ui.row(product.title, product.description or product.category, act="product", arg=product.pid,
                      rid="product_item", right=f'<span class="price">¥{product.price:g}</span>')

    def render(self, route: Route) -> str:
        screen = route.screen
        cart_button = ui.icon_button("\u2637", f"Cart ({len(self.cart)})", "cart", rid="cart_button")
        if screen == "results":
            query = route.params.get("q", "")
            rows = "".join(self._product_row(p) for p in self.search(query)) or ui.empty(f"No results for {query}")
            return ui.header(f"“{query}”", actions=[cart_button], color=self.accent) + ui.scroll(rows)
        if screen == "product":
            return self._render_product(route, cart_button)
        if screen == "cart":
            cart_rows: list[str] = []
            total = 0.0
            for index, item in enumerate(self.cart):
                product = self.product(item.pid)
                if product is None:
                    continue
                total += product.price * item.quantity
                opts = ", ".join(f"{k}: {v}" for k, v in item.options.items())
                delete = ui.button("Delete", "remove", str(index), rid="delete_item", kind="secondary")
                chosen = str(index) in route.params.get("sel", "").split(",")
                delete = ui.button("Selected" if chosen else "Select", "select_item", str(index), rid="select_item",
                                   kind="primary" if chosen else "secondary") + delete
                kind = " · ".join(part for part in (product.category, product.style and f"{product.style} style") if part)
                cart_rows.append(ui.row(product.title, f"¥{product.price:g} × {item.quantity} · {kind}" + (f" · {opts}" if opts else ""),
                                   rid="cart_item", right=delete))
            body = "".join(cart_rows) or ui.empty("Your cart is empty")
            selected = ui.button("Delete selected", "delete_selected", rid="delete_selected_items", kind="danger") \
                if route.params.get("sel") else ""
            bar = ui.bottom(selected + ui.text(f"Total ¥{total:g}", rid="cart_total")
                            + ui.button("Checkout", "checkout_cart", rid="checkout_button"))
            return ui.header(f"Cart ({len(self.cart)})", color=self.accent) + ui.scroll(body) + (bar if self.cart else "")
        if screen == "checkout":
            return self._render_checkout(route)
        if screen == "orders":
            rows = "".join(
                ui.row(f"Order {o.oid}", f"{len(o.items)} item(s) · ¥{o.total:g} · {o.address}", rid="order_row")
                for o in reversed(self.orders)
            ) or ui.empty("No orders yet")
            return ui.header("My orders", color=self.accent) + ui.scroll(rows)
        categories = sorted({p.category for p in self.catalog})
        body = '<div class="urlbar">' + ui.field("q", route.fields.get("q", ""), "Search products", rid="search_input")
        body += ui.icon_button("\u2315", "Search", "search", rid="search_button") + "</div>"
        body += ui.chips([(c, c.title()) for c in categories], "", "category", rid_prefix="category")
        body += ui.section("Recommended") + "".join(self._product_row(p) for p in self.catalog[:8])
        actions = [cart_button, ui.icon_button("\u2630", "My orders", "orders", rid="orders_button")]
        return ui.header(self.label, back=False, actions=actions, color=self.accent) + ui.scroll(body)

    def _render_product(self, route: Route, cart_button: str) -> str:
        product = self.product(route.params.get("pid", ""))
        if product is None:
            return ui.not_found("Product", "Product")
        chosen = decode_options(route.params.get("opts", ""))
        body = ui.text(product.title, "big", rid="product_title")
        body += f'<div class="txt price" {ui.attrs(rid="product_price", cls="android.widget.TextView")}>¥{product.price:g}</div>'
        if product.description:
            body += ui.text(product.description, "muted", rid="product_description")
        for name, values in product.options.items():
            body += ui.section(name.title()) + ui.chips([(f"{name}={v}", v) for v in values],
                                                       f"{name}={chosen.get(name, '')}", "option", rid_prefix="option")
        quantity = route.params.get("qty", "1")
        body += ui.row("Quantity", "", rid="quantity", right=(
            f'<div class="stepper"><div class="sbtn" {ui.attrs("qty", "down", "quantity_down", "android.widget.ImageButton", "Decrease quantity")}>&#x2212;</div>'
            f'<div {ui.attrs(rid="quantity_value", cls="android.widget.TextView")}>{ui.e(quantity)}</div>'
            f'<div class="sbtn" {ui.attrs("qty", "up", "quantity_up", "android.widget.ImageButton", "Increase quantity")}>+</div></div>'))
        bar = ui.bottom(ui.button("Add to cart", "add_cart", rid="add_to_cart", kind="secondary")
                        + ui.button("Buy now", "buy_now", rid="buy_now"))
        return ui.header("", actions=[cart_button], color=self.accent) + ui.scroll(body) + bar

    def _render_checkout(self, route: Route) -> str:
        items = self._checkout_items(route)
        total = sum(p.price * i.quantity for i in items for p in [self.product(i.pid)] if p is not None)
        rows = "".join(
            ui.row(p.title, f"¥{p.price:g} × {i.quantity}" + (" · " + ", ".join(i.options.values()) if i.options else ""),
                   rid="checkout_item")
            for i in items for p in [self.product(i.pid)] if p is not None
        )
        body = self._delivery_form(route)
        body += ui.section("Items") + rows
        body += ui.field("note", route.fields.get("note", ""), "Note to seller (optional)", rid="order_note", label="Note")
        body += self._payment_choice(route)
        bar = ui.bottom(ui.text(f"Total ¥{total:g}", rid="order_total") + ui.button("Submit order", "submit",
                                                                                     rid="submit_order"))
        return ui.header("Confirm order", color=self.accent) + ui.scroll(body) + bar

    def _checkout_items(self, route: Route) -> list[CartItem]:
        if route.params.get("source") == "cart":
            return list(self.cart)
        return [CartItem(route.params.get("pid", ""), int(route.params.get("qty", "1")),
                         decode_options(route.params.get("opts", "")))]

    def handle(self, action: str, arg: str, route: Route) -> None:
        phone = self.phone
        if action == "search":
            self._search(route)
        elif action == "category":
            phone.push("results", q=arg)
        elif action == "product":
            phone.push("product", pid=arg, qty="1", opts="")
        elif action == "cart":
            phone.push("cart")
        elif action == "orders":
            phone.push("orders")
        elif action == "option":
            name, _, value = arg.partition("=")
            chosen = decode_options(route.params.get("opts", ""))
            chosen[name] = value
            route.params["opts"] = encode_options(chosen)
        elif action == "qty":
            quantity = int(route.params.get("qty", "1")) + (1 if arg == "up" else -1)
            route.params["qty"] = str(max(1, min(99, quantity)))
        elif action in ("add_cart", "buy_now"):
            product = self.product(route.params.get("pid", ""))
            if product is None:
                return
            chosen = decode_options(route.params.get("opts", ""))
            missing = [name for name in product.options if name not in chosen]
            if missing:
                raise AppError(f"Choose {', '.join(missing)} first")
            if action == "add_cart":
                self.cart.append(CartItem(product.pid, int(route.params.get("qty", "1")), chosen))
                phone.log(f"{self.key} cart add {product.pid}")
                phone.toast = "Added to cart"
            else:
                phone.push("checkout", source="buy", pid=product.pid, qty=route.params.get("qty", "1"),
                           opts=route.params.get("opts", ""), pay=DEFAULT_PAYMENT)
        elif action == "remove":
            index = int(arg) if arg.isdigit() else -1
            if 0 <= index < len(self.cart):
                before = [item.pid for item in self.cart]
                removed = self.cart.pop(index)
                self.deletions.append(([removed.pid], before))
                route.params["sel"] = ""
                phone.log(f"{self.key} cart remove {removed.pid}")
        elif action == "select_item":
            picked = {i for i in route.params.get("sel", "").split(",") if i} ^ {arg}
            route.params["sel"] = ",".join(sorted(picked, key=int))
        elif action == "delete_selected":
            marked = {int(i) for i in route.params.get("sel", "").split(",") if i.isdigit()}
            before = [item.pid for item in self.cart]
            gone = [item.pid for i, item in enumerate(self.cart) if i in marked]
            if not gone:
                raise AppError("Select items first")
            self.cart = [item for i, item in enumerate(self.cart) if i not in marked]
            self.deletions.append((gone, before))
            route.params["sel"] = ""
            phone.log(f"{self.key} cart remove {' '.join(gone)}")
        elif action == "checkout_cart":
            if not self.cart:
                raise AppError("Your cart is empty")
            phone.push("checkout", source="cart", pay=DEFAULT_PAYMENT)
        elif action == "pay":
            route.params["pay"] = arg
        elif action == "submit":
            self._submit(route)

    def _submit(self, route: Route) -> None:
        name, number, address = self._recipient(route)
        items = self._checkout_items(route)
        total = sum(p.price * i.quantity for i in items for p in [self.product(i.pid)] if p is not None)
        order = Order(self._new_order_id(), items, name, number, address, route.params.get("pay", DEFAULT_PAYMENT),
                      route.field("note"), total, self.phone.device.now)
        self.orders.append(order)
        if route.params.get("source") == "cart":
            self.cart.clear()
        self._order_placed(order.oid, f"{self.key} order {order.oid} {[i.pid for i in items]} total={total:g}")


class TaodianApp(ShopApp):
    """Taodian (淘店), an orange shopping app."""

    key = "taodian"
    label = "Taodian"
    package = "com.taodian.shop"
    glyph = "T"
    color = "#ff5000"
    aliases = ("淘店", "Tao Dian")
    accent = "#ff5000"


class JingdianApp(ShopApp):
    """jingdian (京店), a red shopping app."""

    key = "jingdian"
    label = "jingdian"
    package = "com.jingdian.shop"
    glyph = "J"
    color = "#e1251b"
    aliases = ("京店", "Jing Dian")
    accent = "#e1251b"
