"""The pages a text session keeps, by ``(url, status, markup)``, least recently used first.

A load looks for an earlier page of its own URL (one whose markup differs in text only); the cache keeps the keys of
each URL apart, in the same order as all keys, so that search reads the pages of one URL instead of all of them.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterator
from typing import Generic, TypeVar

Value = TypeVar("Value")
#: ``(url, status, markup)``.
PageKey = tuple[str, int, str]


class PageCache(Generic[Value]):
    """At most ``capacity`` values by :data:`PageKey`; putting one more drops the least recently used."""

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self._values: OrderedDict[PageKey, Value] = OrderedDict()
        self._by_url: dict[str, OrderedDict[PageKey, None]] = {}

    def __len__(self) -> int:
        return len(self._values)

    def __iter__(self) -> Iterator[PageKey]:
        """The keys, least recently used first."""
        return iter(self._values)

    def get(self, key: PageKey) -> Value | None:
        """The value kept under ``key`` (its place in the order unchanged), or None."""
        return self._values.get(key)

    def touch(self, key: PageKey) -> None:
        """Make ``key`` the most recently used."""
        self._values.move_to_end(key)
        self._by_url[key[0]].move_to_end(key)

    def put(self, key: PageKey, value: Value) -> None:
        """Keep ``value`` under ``key`` as the most recently used, dropping the least recently used beyond the
        capacity."""
        self.remove(key)
        self._values[key] = value
        self._by_url.setdefault(key[0], OrderedDict())[key] = None
        while len(self._values) > self.capacity:
            self.remove(next(iter(self._values)))

    def remove(self, key: PageKey) -> None:
        """Forget ``key`` (nothing when it is not kept)."""
        self._values.pop(key, None)
        keys = self._by_url.get(key[0])
        if keys is not None:
            keys.pop(key, None)
            if not keys:
                del self._by_url[key[0]]

    def newest_first(self, url: str) -> list[tuple[PageKey, Value]]:
        """The keys of ``url`` with their values, most recently used first."""
        keys = self._by_url.get(url)
        if not keys:
            return []
        values = self._values
        return [(key, values[key]) for key in reversed(keys)]
