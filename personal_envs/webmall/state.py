"""Server-side state of the embedded shops: carts per session, placed orders, visited product pages.

The evaluator reads carts and orders from here (never from page text).  Every method is thread-safe because the
HTTP servers handle requests on their own threads.
"""

from __future__ import annotations

import secrets
import threading
from collections import defaultdict
from dataclasses import dataclass, field

from personal_envs.webmall.evaluator import Order


@dataclass
class ShopState:
    """Carts, orders and product-page visits of one shop."""

    index: int
    carts: dict[str, dict[str, int]] = field(default_factory=lambda: defaultdict(dict))
    orders: list[Order] = field(default_factory=list)
    visits: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def new_session(self) -> str:
        """A fresh, unguessable session id."""
        return secrets.token_urlsafe(16)

    def cart(self, session: str) -> dict[str, int]:
        """A copy of the cart of ``session`` (slug -> quantity)."""
        with self.lock:
            return dict(self.carts.get(session, {}))

    def add(self, session: str, slug: str, quantity: int) -> None:
        """Add ``quantity`` of ``slug`` to the session's cart."""
        with self.lock:
            cart = self.carts.setdefault(session, {})
            cart[slug] = min(999, cart.get(slug, 0) + quantity)

    def set_quantity(self, session: str, slug: str, quantity: int) -> None:
        """Set a line's quantity (0 removes it)."""
        with self.lock:
            cart = self.carts.setdefault(session, {})
            if quantity <= 0:
                cart.pop(slug, None)
            else:
                cart[slug] = min(999, quantity)

    def place_order(self, session: str, billing: dict[str, str]) -> int:
        """Turn the session's cart into an order; return its number (1-based)."""
        with self.lock:
            cart = self.carts.pop(session, {})
            self.orders.append(Order(self.index, tuple(f"/product/{slug}" for slug in cart), dict(billing)))
            return len(self.orders)

    def record_visit(self, slug: str) -> None:
        """Remember that a product page was served."""
        with self.lock:
            self.visits.append(slug)

    def carted_slugs(self) -> set[str]:
        """Slugs in any cart of this shop (one browser context per episode, so these are the episode's carts)."""
        with self.lock:
            return {slug for cart in self.carts.values() for slug in cart}

    def order_list(self) -> list[Order]:
        """Orders placed so far."""
        with self.lock:
            return list(self.orders)

    def visited_slugs(self) -> set[str]:
        """Product slugs whose pages were served."""
        with self.lock:
            return set(self.visits)

    def clear(self) -> None:
        """Forget every cart, order and visit (start of an episode)."""
        with self.lock:
            self.carts.clear()
            self.orders.clear()
            self.visits.clear()
