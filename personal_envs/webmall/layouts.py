"""HTML of the four shops: four visibly different layouts over the same routes.

* E-Store Athletes (``storefront``): light theme, header search and cart, a horizontal main menu, left sidebar with
  the top-level categories, product grid with add-to-cart buttons.
* TechTalk (``dark``): dark theme, left sidebar with search and two levels of the tree, list rows, tabbed product
  page.
* CamelCases (``market``): orange bar with a category drop-down beside the search box, breadcrumbs, three-column
  cards.
* Hardware Cafe (``cafe``): serif, narrow centred column, results as table-like rows, categories on a browse page
  and in the footer, product facts as a definition list.

Every layout prints WooCommerce's classic template markup (``ul.products > li.product`` with the AJAX add-to-cart
link, ``form.cart``, ``.woocommerce-message``, the short description beside the price, the description tab, the
cart table, the order-received table and address, ``/page/N/`` pagination), so the official evaluator's selectors
find the same elements as on the official shops.  All text is escaped; forms carry labels so the accessibility tree
names every field.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape
from urllib.parse import quote_plus

from personal_envs.webmall.catalog import CategoryNode, Product, Shop
from personal_envs.webmall.listing import Listing

#: Countries offered by the checkout form (value, label).
COUNTRIES: tuple[tuple[str, str], ...] = (
    ("", "Select a country / region…"), ("US", "United States (US)"), ("DE", "Germany"), ("GB", "United Kingdom (UK)"),
    ("FR", "France"), ("AT", "Austria"), ("CH", "Switzerland"), ("NL", "Netherlands"), ("CA", "Canada"),
)

BILLING_FIELDS: tuple[tuple[str, str, bool], ...] = (
    ("first_name", "First name", True), ("last_name", "Last name", True), ("company", "Company name (optional)", False),
    ("address_1", "Street address (house number and street name)", True),
    ("address_2", "Apartment, suite, unit, etc. (optional)", False), ("city", "Town / City", True),
    ("state", "State / County", True), ("postcode", "ZIP Code", True), ("phone", "Phone (optional)", False),
    ("email", "Email address", True),
)
PAYMENT_FIELDS: tuple[tuple[str, str], ...] = (
    ("card_number", "Card number"), ("card_expiry", "Expiry date (MM/YY)"), ("card_cvc", "Card code (CVC)"),
)


#: A grey placeholder for product images (the official shops' photos are not part of the product data).
PLACEHOLDER_IMAGE = ("data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' width='300' height='300'%3E"
                     "%3Crect width='300' height='300' fill='%23ddd'/%3E%3C/svg%3E")
#: In-place add to cart on listings (WooCommerce's add-to-cart.js behaviour): post, then a "View cart" link.
AJAX_SCRIPT = (
    "document.addEventListener('click',function(ev){var b=ev.target.closest&&ev.target.closest('.ajax_add_to_cart');"
    "if(!b)return;ev.preventDefault();b.classList.add('loading');var f=new URLSearchParams();"
    "f.set('product',b.getAttribute('data-product_slug'));f.set('quantity','1');"
    "fetch('/cart/add?ajax=1',{method:'POST',body:f,credentials:'same-origin'}).then(function(r){return r.json()})"
    ".then(function(d){b.classList.remove('loading');b.classList.add('added');"
    "if(!b.parentNode.querySelector('.added_to_cart')){var a=document.createElement('a');a.href='/cart/';"
    "a.className='added_to_cart wc-forward';a.title='View cart';a.textContent='View cart';b.after(a);}"
    "document.querySelectorAll('.cart-contents-count').forEach(function(c){c.textContent=d.count;});});});"
    # WooCommerce's woocommerce.js: choosing an ordering sends its form
    "document.addEventListener('change',function(ev){var s=ev.target;"
    "if(s.matches&&s.matches('.woocommerce-ordering select.orderby')){s.form.submit();}});"
)


#: Escaped texts by text (the shops print the same names, prices and labels on page after page).
_ESCAPED: dict[str, str] = {}


def e(text: object) -> str:
    """HTML-escape anything."""
    raw = text if isinstance(text, str) else str(text)
    escaped = _ESCAPED.get(raw)
    if escaped is None:
        if len(_ESCAPED) >= 65536:
            _ESCAPED.clear()
        escaped = _ESCAPED[raw] = escape(raw, quote=True)
    return escaped


class Layout:
    """Base layout: page pieces shared by all shops; subclasses change the frame, the listing and the CSS."""

    key = "base"
    per_page = 12
    add_label = "Add to cart"
    css = ""

    def __init__(self, shop: Shop) -> None:
        self.shop = shop

    # ---------------------------------------------------------------------------------------------- basics
    def price(self, value: float) -> str:
        """The shop's price format.  E-Store Athletes shows "249,99 €" (paper figure, trajectories); CamelCases and
        Hardware Cafe export prices with a decimal comma as E-Store Athletes does, so they share its format (the
        thousands dot is an estimate); TechTalk (``DarkLayout``) overrides it."""
        whole = f"{value:,.2f}".replace(",", "\0").replace(".", ",").replace("\0", ".")
        return f"{whole} €"

    def price_html(self, product: Product) -> str:
        if product.sale_price is not None and product.sale_price < product.regular_price:
            return (f'<span class="price"><del>{e(self.price(product.regular_price))}</del> '
                    f'<ins>{e(self.price(product.price))}</ins></span>')
        return f'<span class="price">{e(self.price(product.price))}</span>'

    def search_form(self, query: str) -> str:
        return (f'<form role="search" method="get" action="/" class="search">'
                f'<label for="s">Search products</label>'
                f'<input type="search" id="s" name="s" value="{e(query)}" placeholder="Search products…">'
                f'<button type="submit">Search</button></form>')

    def cart_link(self, count: int) -> str:
        return f'<a class="cart-contents" href="/cart/">Cart (<span class="cart-contents-count">{count}</span>)</a>'

    def tree(self, node: CategoryNode, depth: int = 0, max_depth: int = 9) -> str:
        if not node.children or depth >= max_depth:
            return ""
        items = []
        for child in sorted(node.children.values(), key=lambda n: n.name.lower()):
            count = len(child.all_product_slugs())
            items.append(f'<li><a href="{e(child.url_path)}">{e(child.name)}</a> <small>({count})</small>'
                         f"{self.tree(child, depth + 1, max_depth)}</li>")
        return f"<ul>{''.join(items)}</ul>"

    def add_form(self, product: Product, with_quantity: bool = True) -> str:
        """WooCommerce's single-product ``form.cart``: quantity and the add-to-cart button, posted to the page."""
        quantity = (f'<div class="quantity"><label class="screen-reader-text" for="qty-{e(product.slug)}">'
                    f"{e(product.name)} quantity</label>"
                    f'<input type="number" id="qty-{e(product.slug)}" class="input-text qty text" name="quantity" '
                    f'value="1" min="1" max="99"></div>'
                    if with_quantity else '<input type="hidden" name="quantity" value="1">')
        return (f'<form class="cart" method="post" action="{e(product.path)}/">'
                f'<input type="hidden" name="product" value="{e(product.slug)}">{quantity}'
                f'<button type="submit" name="add-to-cart" value="{e(product.slug)}" '
                f'class="single_add_to_cart_button button alt">{e(self.add_label)}</button></form>')

    def loop_add_link(self, product: Product) -> str:
        """The listing's AJAX add-to-cart link (``a.add_to_cart_button.ajax_add_to_cart``)."""
        return (f'<a href="?add-to-cart={e(product.slug)}" data-quantity="1" data-product_slug="{e(product.slug)}" '
                f'class="button product_type_simple add_to_cart_button ajax_add_to_cart" '
                f'aria-label="Add to cart: “{e(product.name)}”" rel="nofollow">{e(self.add_label)}</a>')

    def image(self, product: Product, css_class: str) -> str:
        """A placeholder image carrying the product image's alt text (the product name)."""
        return f'<img class="{css_class}" src="{PLACEHOLDER_IMAGE}" alt="{e(product.name)}" width="300" height="300">'

    def loop_item(self, product: Product, extra: str = "") -> str:
        """One ``li.product`` of a WooCommerce product loop."""
        return (f'<li class="product type-product"><a href="{e(product.path)}/" '
                f'class="woocommerce-LoopProduct-link woocommerce-loop-product__link">'
                f'{self.image(product, "attachment-woocommerce_thumbnail")}'
                f'<h2 class="woocommerce-loop-product__title">{e(product.name)}</h2>{self.price_html(product)}</a>'
                f"{extra}{self.loop_add_link(product)}</li>")

    def added_message(self, product: Product) -> str:
        """WooCommerce's add-to-cart confirmation (``.woocommerce-message`` with "View cart")."""
        return (f'<div class="woocommerce-notices-wrapper"><div class="woocommerce-message" role="alert">'
                f'<a href="/cart/" tabindex="1" class="button wc-forward">View cart</a> '
                f"“{e(product.name)}” has been added to your cart.</div></div>")

    def short_description_html(self, product: Product) -> str:
        """The short description beside the price (``woocommerce-product-details__short-description``)."""
        if not product.short_description:
            return ""
        lines = "".join(f"<p>{e(line)}</p>" for line in product.short_description.splitlines())
        return f'<div class="woocommerce-product-details__short-description">{lines}</div>'

    def tabs_html(self, product: Product, heading: str = "Description") -> str:
        """The description tab (WooCommerce's ``woocommerce-tabs``), the whole description in it."""
        return (f'<div class="woocommerce-tabs wc-tabs-wrapper"><ul class="tabs wc-tabs" role="tablist">'
                f'<li class="description_tab active" role="tab"><a href="#tab-description">{e(heading)}</a></li></ul>'
                f'<div class="woocommerce-Tabs-panel woocommerce-Tabs-panel--description panel entry-content '
                f'wc-tab" id="tab-description" role="tabpanel"><h2>{e(heading)}</h2>'
                f"{self.description_html(product)}</div></div>")

    def product_meta(self, product: Product) -> str:
        """SKU and categories (``product_meta``)."""
        return (f'<div class="product_meta"><span class="sku_wrapper">SKU: <span class="sku">'
                f"{e(product.sku or 'N/A')}</span></span> <span class=\"posted_in\">{self.category_links(product)}"
                f"</span></div>")

    def pagination(self, page: int, pages: int, base: str) -> str:
        """WooCommerce's ``/page/N/`` pagination (``base`` is the first page's path, with any query string)."""
        if pages <= 1:
            return ""
        links = []
        if page > 1:
            links.append(f'<li><a class="prev page-numbers" href="{e(page_url(base, page - 1))}">←</a></li>')
        for number in range(1, pages + 1):
            if number == page:
                links.append(f'<li><span aria-current="page" class="page-numbers current">{number}</span></li>')
            elif number in (1, pages) or abs(number - page) <= 2:
                links.append(f'<li><a class="page-numbers" href="{e(page_url(base, number))}">{number}</a></li>')
            elif abs(number - page) == 3:
                links.append('<li><span class="page-numbers dots">…</span></li>')
        if page < pages:
            links.append(f'<li><a class="next page-numbers" href="{e(page_url(base, page + 1))}">→</a></li>')
        return f'<nav class="woocommerce-pagination" aria-label="Product Pagination"><ul class="page-numbers">' \
               f'{"".join(links)}</ul></nav>'

    def breadcrumbs(self, product: Product) -> str:
        if not product.categories:
            return ""
        parts = ['<a href="/">Home</a>']
        slugs: list[str] = []
        node = self.shop.root
        for name in product.categories[0]:
            child = next((c for c in node.children.values() if c.name == name), None)
            if child is None:
                break
            node = child
            slugs.append(child.slug)
            parts.append(f'<a href="{e(child.url_path)}">{e(name)}</a>')
        parts.append(e(product.name))
        return f'<nav class="breadcrumbs" aria-label="Breadcrumb">{" / ".join(parts)}</nav>'

    def description_html(self, product: Product) -> str:
        return "".join(f"<p>{e(line)}</p>" for line in product.description.splitlines())

    def category_links(self, product: Product) -> str:
        links = []
        for path in product.categories:
            node = self.shop.root
            for name in path:
                node = next((c for c in node.children.values() if c.name == name), node)
            links.append(f'<a href="{e(node.url_path)}">{e(" > ".join(path))}</a>')
        return "Categories: " + ", ".join(links)

    # --------------------------------------------------------------------------------------------- frames
    def document(self, title: str, body: str, *, cart_count: int, query: str = "") -> str:
        return (f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>{e(title)} – '
                f'{e(self.shop.name)}</title><style>{self.css}</style></head>'
                f'<body class="woocommerce layout-{self.key}">{self.frame(body, cart_count=cart_count, query=query)}'
                f"<script>{AJAX_SCRIPT}</script></body></html>")

    def frame(self, body: str, *, cart_count: int, query: str) -> str:
        raise NotImplementedError

    def listing(self, heading: str, listing: Listing, subcategories: Sequence[CategoryNode] = ()) -> str:
        """A product archive: heading, subcategories, result count, WooCommerce's ordering drop-down, the products
        and the pagination of :class:`~personal_envs.webmall.listing.Listing` (which decides what it shows)."""
        sub = ""
        if subcategories:
            sub = "<nav class=\"subcategories\" aria-label=\"Subcategories\"><ul>" + "".join(
                f'<li><a href="{e(c.url_path)}">{e(c.name)}</a></li>' for c in subcategories) + "</ul></nav>"
        products = listing.products
        if not products:
            items = '<p class="woocommerce-info woocommerce-no-products-found">No products were found matching your selection.</p>'
        else:
            items = self.items(products)
        shown = (f'<p class="woocommerce-result-count">{result_count(listing.page, self.per_page, listing.total)}</p>'
                 if products else "")
        ordering = self.ordering_form(listing) if products and listing.options else ""
        return (f'<h1 class="woocommerce-products-header__title page-title">{e(heading)}</h1>{sub}{shown}{ordering}'
                f"{items}{self.pagination(listing.page, listing.pages, listing.base)}")

    def ordering_form(self, listing: Listing) -> str:
        """WooCommerce's ``form.woocommerce-ordering``: the ``select.orderby`` drop-down (sent on change) and its
        hidden fields."""
        options = "".join(f'<option value="{e(value)}"{" selected" if value == listing.selected else ""}>'
                          f"{e(label)}</option>" for value, label in listing.options)
        hidden = "".join(f'<input type="hidden" name="{e(name)}" value="{e(value)}">'
                         for name, value in listing.hidden_fields)
        return (f'<form class="woocommerce-ordering" method="get" action="{e(listing.form_action)}">'
                f'<select name="orderby" class="orderby" aria-label="Shop order">{options}</select>{hidden}</form>')

    def items(self, products: Sequence[Product]) -> str:
        raise NotImplementedError

    def product_page(self, product: Product, notice: str) -> str:
        raise NotImplementedError

    # ---------------------------------------------------------------------------------- cart and checkout
    def cart_page(self, lines: Sequence[tuple[Product, int]], notice: str) -> str:
        note = (f'<div class="woocommerce-notices-wrapper"><div class="woocommerce-message" role="alert">{e(notice)}'
                "</div></div>" if notice else "")
        if not lines:
            return (f"<h1>Cart</h1>{note}<p>Your cart is currently empty.</p>"
                    f'<p><a href="/shop/">Return to shop</a></p>')
        rows = []
        total = 0.0
        for product, quantity in lines:
            subtotal = product.price * quantity
            total += subtotal
            rows.append(
                f'<tr class="woocommerce-cart-form__cart-item cart_item"><td class="product-name" data-title="Product">'
                f'<a href="{e(product.path)}/">{e(product.name)}</a></td>'
                f'<td class="product-price" data-title="Price">{e(self.price(product.price))}</td>'
                f'<td><form method="post" action="/cart/update"><input type="hidden" name="product" '
                f'value="{e(product.slug)}"><label>Quantity <input type="number" name="quantity" value="{quantity}" '
                f'min="0" max="99"></label><button type="submit">Update</button></form></td>'
                f"<td>{e(self.price(subtotal))}</td>"
                f'<td><form method="post" action="/cart/update"><input type="hidden" name="product" '
                f'value="{e(product.slug)}"><input type="hidden" name="quantity" value="0">'
                f'<button type="submit" aria-label="Remove {e(product.name)}">Remove</button></form></td></tr>')
        return (f"<h1>Cart</h1>{note}<table class=\"shop_table shop_table_responsive cart woocommerce-cart-form__contents\"><thead><tr><th>Product</th><th>Price</th>"
                f"<th>Quantity</th><th>Subtotal</th><th></th></tr></thead><tbody>{''.join(rows)}</tbody></table>"
                f'<p class="total">Total: <strong>{e(self.price(total))}</strong></p>'
                f'<p><a class="button checkout-button" href="/checkout/">Proceed to checkout</a></p>')

    def checkout_page(self, lines: Sequence[tuple[Product, int]], values: dict[str, str], errors: Sequence[str]) -> str:
        if not lines:
            return "<h1>Checkout</h1><p>Your cart is empty, so there is nothing to check out.</p>" \
                   '<p><a href="/shop/">Return to shop</a></p>'
        error_html = ""
        if errors:
            error_html = '<ul class="errors" role="alert">' + "".join(f"<li>{e(x)}</li>" for x in errors) + "</ul>"
        fields = []
        for name, label, required in BILLING_FIELDS:
            star = " *" if required else ""
            fields.append(f'<p><label for="billing_{name}">{e(label)}{star}</label>'
                          f'<input type="text" id="billing_{name}" name="billing_{name}" '
                          f'value="{e(values.get("billing_" + name, ""))}"></p>')
            if name == "company":
                options = "".join(
                    f'<option value="{code}"{" selected" if values.get("billing_country") == code else ""}>'
                    f"{e(label_)}</option>" for code, label_ in COUNTRIES)
                fields.append(f'<p><label for="billing_country">Country / Region *</label>'
                              f'<select id="billing_country" name="billing_country">{options}</select></p>')
        payment = "".join(
            f'<p><label for="{name}">{e(label)} *</label><input type="text" id="{name}" name="{name}" '
            f'value="{e(values.get(name, ""))}" autocomplete="off"></p>' for name, label in PAYMENT_FIELDS)
        summary = "".join(f"<li>{e(p.name)} × {q} — {e(self.price(p.price * q))}</li>" for p, q in lines)
        total = sum(p.price * q for p, q in lines)
        return (f"<h1>Checkout</h1>{error_html}<form method=\"post\" action=\"/checkout/\" class=\"checkout\">"
                f"<fieldset><legend>Billing details</legend>{''.join(fields)}</fieldset>"
                f"<fieldset><legend>Your order</legend><ul>{summary}</ul><p>Total: {e(self.price(total))}</p></fieldset>"
                f"<fieldset><legend>Payment: Credit card</legend>{payment}</fieldset>"
                f'<button type="submit" name="place_order">Place order</button></form>')

    def order_received_page(self, number: int, products: Sequence[Product], billing: dict[str, str]) -> str:
        """The classic order-received page: order table and the customer's billing address."""
        rows = "".join(
            f'<tr class="woocommerce-table__line-item order_item"><td class="woocommerce-table__product-name '
            f'product-name"><a href="{e(p.path)}/">{e(p.name)}</a> <strong class="product-quantity">× 1</strong>'
            f'</td><td class="woocommerce-table__product-total product-total">{e(self.price(p.price))}</td></tr>'
            for p in products)
        total = sum(p.price for p in products)
        address = "<br>".join(e(line) for line in (
            f"{billing.get('first_name', '')} {billing.get('last_name', '')}", billing.get("company", ""),
            billing.get("address_1", ""), billing.get("address_2", ""),
            f"{billing.get('city', '')}, {billing.get('state', '')} {billing.get('postcode', '')}",
            dict(COUNTRIES).get(billing.get("country", ""), billing.get("country", ""))) if line.strip(" ,"))
        # WooCommerce prints phone and e-mail as <p> inside the <address>; here they are lines of it, which reads the
        # same to the official checks (text) and keeps both AX-tree backends in agreement
        contact = "".join(f"<br>{e(billing[key])}" for key in ("phone", "email") if billing.get(key))
        return (f'<div class="woocommerce-order"><p class="woocommerce-notice woocommerce-notice--success '
                f'woocommerce-thankyou-order-received">Thank you. Your order has been received.</p>'
                f'<ul class="woocommerce-order-overview order_details"><li class="woocommerce-order-overview__order '
                f'order">Order number: <strong>{number}</strong></li><li class="woocommerce-order-overview__total '
                f'total">Total: <strong>{e(self.price(total))}</strong></li></ul>'
                f'<section class="woocommerce-order-details"><h2 class="woocommerce-order-details__title">Order '
                f'details</h2><table class="woocommerce-table woocommerce-table--order-details shop_table '
                f'order_details"><thead><tr><th class="woocommerce-table__product-name product-name">Product</th>'
                f'<th class="woocommerce-table__product-table product-total">Total</th></tr></thead>'
                f"<tbody>{rows}</tbody></table></section>"
                f'<section class="woocommerce-customer-details"><h2 class="woocommerce-column__title">Billing '
                f"address</h2><address>{address}{contact}</address></section></div>")


class StorefrontLayout(Layout):
    key = "storefront"
    per_page = 12
    css = ("body{font-family:Helvetica,Arial,sans-serif;margin:0;background:#fafafa;color:#222}"
           "header{display:flex;align-items:center;gap:24px;padding:14px 24px;background:#fff;border-bottom:3px solid #2a6ebb}"
           ".logo{font-size:26px;font-weight:bold;color:#2a6ebb;text-decoration:none}"
           ".topnav{background:#2a6ebb;padding:6px 24px}.topnav a{color:#fff;margin-right:18px;text-decoration:none}"
           ".wrap{display:flex;gap:24px;padding:20px 24px}aside{width:230px;font-size:14px}main{flex:1}"
           ".grid{display:grid;grid-template-columns:repeat(4,1fr);gap:16px}.card{background:#fff;padding:12px;border:1px solid #ddd}"
           ".card h2{font-size:15px;margin:4px 0}.thumb{height:90px;background:#dbe7f5;margin-bottom:8px}.price{color:#2a6ebb;font-weight:bold}"
           ".summary-wrap{display:flex;gap:30px}ul.products{list-style:none;padding:0}"
           "ul.grid{display:grid;grid-template-columns:repeat(4,1fr);gap:16px}ul.grid li{background:#fff;padding:12px;"
           "border:1px solid #ddd}ul.grid img{width:100%;height:90px;object-fit:cover}")

    def frame(self, body: str, *, cart_count: int, query: str) -> str:
        return (f'<header><a class="logo" href="/">{e(self.shop.name)}</a>{self.search_form(query)}'
                f"{self.cart_link(cart_count)}</header>"
                f'<nav class="topnav" aria-label="Main"><a href="/">Home</a><a href="/shop/">All products</a>'
                f'<a href="/categories/">All categories</a><a href="/checkout/">Checkout</a></nav>'
                f'<div class="wrap"><aside><h2>Product categories</h2>{self.tree(self.shop.root, max_depth=1)}</aside>'
                f"<main>{body}</main></div><footer><p>{e(self.shop.name)} — sports &amp; tech since 2011</p></footer>")

    def items(self, products: Sequence[Product]) -> str:
        return f'<ul class="products columns-4 grid">{"".join(self.loop_item(p) for p in products)}</ul>'

    def product_page(self, product: Product, notice: str) -> str:
        note = self.added_message(product) if notice else ""
        return (f"{self.breadcrumbs(product)}{note}<div class=\"product type-product summary-wrap\">"
                f'<div class="woocommerce-product-gallery">{self.image(product, "wp-post-image")}</div>'
                f'<div class="summary entry-summary"><h1 class="product_title entry-title">{e(product.name)}</h1>'
                f'<p class="price">{self.price_html(product)}</p>{self.short_description_html(product)}'
                f"{self.add_form(product)}{self.product_meta(product)}</div></div>{self.tabs_html(product)}")


class DarkLayout(Layout):
    key = "dark"
    per_page = 20
    css = ("body{font-family:Verdana,sans-serif;margin:0;background:#15171c;color:#e6e6e6;display:flex}"
           "a{color:#7fd1ff}nav.side{width:270px;background:#0d0e12;padding:18px;min-height:100vh;font-size:13px}"
           ".brand{font-size:22px;color:#9cff7f;font-family:monospace}main{flex:1;padding:22px 32px}"
           ".row{display:flex;justify-content:space-between;border-bottom:1px solid #333;padding:10px 0}"
           ".price{color:#9cff7f;font-weight:bold;font-size:18px}.tabs h2{border-bottom:2px solid #9cff7f;display:inline-block}"
           "button{background:#9cff7f;border:0;padding:6px 12px}ul.list{list-style:none;padding:0}"
           "ul.list li{display:flex;gap:14px;align-items:center;border-bottom:1px solid #333;padding:10px 0}"
           "ul.list img{width:48px;height:48px}.woocommerce-product-gallery img{width:200px;height:200px}")

    def price(self, value: float) -> str:
        """TechTalk: "€4490.00" (paper figure: symbol first, decimal point, no thousands separator)."""
        return f"€{value:.2f}"

    def frame(self, body: str, *, cart_count: int, query: str) -> str:
        return (f'<nav class="side" aria-label="Shop navigation"><a class="brand" href="/">{e(self.shop.name)}</a>'
                f"<p>{self.cart_link(cart_count)} · <a href=\"/shop/\">Browse all</a></p>{self.search_form(query)}"
                f"<h2>Categories</h2>{self.tree(self.shop.root, max_depth=2)}</nav><main>{body}"
                f"<footer><small>{e(self.shop.name)} · talk tech to us</small></footer></main>")

    def items(self, products: Sequence[Product]) -> str:
        return f'<ul class="products columns-1 list">{"".join(self.loop_item(p) for p in products)}</ul>'

    def product_page(self, product: Product, notice: str) -> str:
        note = self.added_message(product) if notice else ""
        return (f'{note}<div class="product type-product"><h1 class="product_title entry-title">{e(product.name)}</h1>'
                f'<p class="price">{self.price_html(product)} <small>incl. VAT</small></p>'
                f"{self.short_description_html(product)}{self.add_form(product)}"
                f'<div class="woocommerce-product-gallery">{self.image(product, "wp-post-image")}</div>'
                f"{self.tabs_html(product)}{self.product_meta(product)}<p>Brand: {e(product.brand or 'n/a')}</p></div>")


class MarketLayout(Layout):
    key = "market"
    per_page = 15
    css = ("body{font-family:Georgia,serif;margin:0;background:#fff8f0;color:#3b2a1a}"
           ".bar{background:#e87722;padding:10px 20px;display:flex;gap:16px;align-items:center}"
           ".bar a{color:#fff}.title{font-size:30px;color:#fff;font-weight:bold;text-decoration:none}"
           "main{padding:16px 40px}.cards{display:grid;grid-template-columns:repeat(3,1fr);gap:20px}"
           ".card{border:2px solid #e87722;border-radius:10px;padding:14px;background:#fff}"
           ".price{font-size:20px;color:#b4530f}.buy{background:#fff1e0;padding:12px;border-radius:8px}"
           "ul.cards{list-style:none;padding:0;display:grid;grid-template-columns:repeat(3,1fr);gap:20px}"
           "ul.cards li{border:2px solid #e87722;border-radius:10px;padding:14px;background:#fff}"
           "ul.cards img{width:100%;height:120px}.woocommerce-product-gallery img{width:260px;height:260px}")

    def frame(self, body: str, *, cart_count: int, query: str) -> str:
        options = "".join(f'<option value="{e(c.url_path)}">{e(c.name)}</option>'
                          for c in sorted(self.shop.root.children.values(), key=lambda n: n.name.lower()))
        return (f'<div class="bar"><a class="title" href="/">{e(self.shop.name)}</a>'
                f'<form method="get" action="/go" class="category-jump"><label for="cat">Department</label>'
                f'<select id="cat" name="to">{options}</select><button type="submit">Go</button></form>'
                f"{self.search_form(query)}{self.cart_link(cart_count)}</div>"
                f"<main>{body}</main><footer><p>{e(self.shop.name)} — cases, cables and more. "
                f'<a href="/categories/">All departments</a></p></footer>')

    def items(self, products: Sequence[Product]) -> str:
        return f'<ul class="products columns-3 cards">{"".join(self.loop_item(p) for p in products)}</ul>'

    def product_page(self, product: Product, notice: str) -> str:
        note = self.added_message(product) if notice else ""
        return (f"{self.breadcrumbs(product)}{note}<div class=\"product type-product\">"
                f'<h1 class="product_title entry-title">{e(product.name)}</h1>'
                f'<div class="woocommerce-product-gallery">{self.image(product, "wp-post-image")}</div>'
                f'<div class="summary entry-summary buy"><p class="price">{self.price_html(product)}</p>'
                f"{self.short_description_html(product)}{self.add_form(product)}{self.product_meta(product)}</div>"
                f'{self.tabs_html(product, "About this item")}</div>')


class CafeLayout(Layout):
    key = "cafe"
    per_page = 25
    css = ("body{font-family:'Times New Roman',serif;max-width:860px;margin:0 auto;background:#f3efe6;color:#2b2118}"
           "header{text-align:center;padding:20px;border-bottom:1px double #6b4f3a}h1{font-variant:small-caps}"
           "table{width:100%;border-collapse:collapse}td,th{border-bottom:1px dotted #6b4f3a;padding:6px}"
           ".price{font-weight:bold}dl{display:grid;grid-template-columns:160px 1fr}footer{margin-top:40px;font-size:13px}"
           "ul.table-like{list-style:none;padding:0}ul.table-like li{border-bottom:1px dotted #6b4f3a;padding:6px}"
           "ul.table-like img{width:40px;height:40px;vertical-align:middle}.woocommerce-product-gallery img{width:160px;height:160px}")

    def frame(self, body: str, *, cart_count: int, query: str) -> str:
        top = " · ".join(f'<a href="{e(c.url_path)}">{e(c.name)}</a>'
                         for c in sorted(self.shop.root.children.values(), key=lambda n: n.name.lower()))
        return (f'<header><a href="/"><strong>☕ {e(self.shop.name)}</strong></a><p>{self.search_form(query)}</p>'
                f'<p><a href="/categories/">Browse categories</a> · <a href="/shop/">All products</a> · '
                f"{self.cart_link(cart_count)}</p></header><main>{body}</main>"
                f'<footer><nav aria-label="Footer categories">{top}</nav></footer>')

    def items(self, products: Sequence[Product]) -> str:
        return f'<ul class="products columns-1 table-like">{"".join(self.loop_item(p) for p in products)}</ul>'

    def product_page(self, product: Product, notice: str) -> str:
        note = self.added_message(product) if notice else ""
        return (f'{note}<div class="product type-product"><h1 class="product_title entry-title">{e(product.name)}</h1>'
                f"<dl><dt>Price</dt><dd><p class=\"price\">{self.price_html(product)}</p></dd>"
                f"<dt>Brand</dt><dd>{e(product.brand or '—')}</dd></dl>{self.short_description_html(product)}"
                f"{self.add_form(product)}{self.product_meta(product)}"
                f'<div class="woocommerce-product-gallery">{self.image(product, "wp-post-image")}</div>'
                f'{self.tabs_html(product, "Details")}</div>')


LAYOUTS: tuple[type[Layout], ...] = (StorefrontLayout, DarkLayout, MarketLayout, CafeLayout)


def layout_for(shop: Shop) -> Layout:
    """The layout of shop 1..4."""
    return LAYOUTS[(shop.index - 1) % len(LAYOUTS)](shop)


def search_url(query: str) -> str:
    """The search results URL path for ``query``."""
    return f"/?s={quote_plus(query)}"


def page_url(base: str, number: int) -> str:
    """``base`` (``/shop/``, ``/product-category/x/`` or ``/?s=q``) at page ``number`` (``/page/N/``)."""
    path, _, query = base.partition("?")
    path = path.rstrip("/")
    url = f"{path}/page/{number}/" if number > 1 else f"{path}/"
    return f"{url}?{query}" if query else url


def result_count(page: int, per_page: int, total: int) -> str:
    """WooCommerce's result count line."""
    if total == 1:
        return "Showing the single result"
    if total <= per_page:
        return f"Showing all {total} results"
    first = (page - 1) * per_page + 1
    last = min(total, page * per_page)
    return f"Showing {first}–{last} of {total} results"
