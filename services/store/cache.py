"""A bounded least-recently-used map, the one cache of game states every process keeps."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class LruCache(Generic[K, V]):
    """At most ``size`` items; reading one makes it the most recent, adding one past the size drops the least
    recent. Thread-safe (the gateway reads it from a thread pool and its event loop)."""

    def __init__(self, size: int) -> None:
        self.size = size
        # An OrderedDict: evicting the oldest of a plain dict (next(iter(d))) scans the deleted slots: O(n).
        self._items: OrderedDict[K, V] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: K) -> V | None:
        """The item (now the most recent), or None."""
        with self._lock:
            item = self._items.get(key)
            if item is not None:
                self._items.move_to_end(key)
            return item

    def peek(self, key: K) -> V | None:
        """The item, without making it the most recent."""
        return self._items.get(key)

    def put(self, key: K, item: V) -> None:
        """Add or replace an item (the most recent now); the least recent go when over the size."""
        with self._lock:
            self._items[key] = item
            self._items.move_to_end(key)
            while len(self._items) > self.size:
                self._items.popitem(last=False)

    def put_if(self, key: K, item: V, better: Callable[[V], bool]) -> V:
        """Add ``item`` unless the cached one is preferred (``better(cached)`` true); returns the kept one."""
        with self._lock:
            current = self._items.get(key)
            kept = current if current is not None and better(current) else item
            self._items[key] = kept
            self._items.move_to_end(key)
            while len(self._items) > self.size:
                self._items.popitem(last=False)
            return kept

    def pop(self, key: K) -> V | None:
        """Remove an item; returns it (None if absent)."""
        with self._lock:
            return self._items.pop(key, None)

    def drop_where(self, condition: Callable[[K, V], bool]) -> int:
        """Remove every item for which ``condition(key, item)`` holds; returns how many."""
        with self._lock:
            gone = [k for k, v in self._items.items() if condition(k, v)]
            for k in gone:
                del self._items[k]
            return len(gone)

    def clear(self) -> None:
        """Remove everything."""
        with self._lock:
            self._items.clear()

    def __contains__(self, key: object) -> bool:
        return key in self._items

    def __len__(self) -> int:
        return len(self._items)

    def __iter__(self) -> Iterator[K]:
        return iter(list(self._items))

    def values(self) -> list[V]:
        """The items, least recent first (a copy)."""
        with self._lock:
            return list(self._items.values())
