"""A small thread-safe LRU map: warm state shared by requests in one process (a server, an evaluation)."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class BoundedCache(Generic[K, V]):
    """At most ``size`` entries; the least recently used one goes first. Values must be immutable in use."""

    def __init__(self, size: int) -> None:
        self._size = size
        self._items: OrderedDict[K, V] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: K) -> V | None:
        with self._lock:
            value = self._items.get(key)
            if value is not None:
                self._items.move_to_end(key)
            return value

    def put(self, key: K, value: V) -> None:
        with self._lock:
            self._items[key] = value
            self._items.move_to_end(key)
            while len(self._items) > self._size:
                self._items.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()


class GenerationCache(Generic[K, V]):
    """Per-store caches that hold only the store's latest generation.

    Values derived from a whole index (term frequencies, node texts by row id) are valid for one generation
    of one store; keeping only the latest generation bounds memory when a server refreshes every second.
    ``weight`` measures a value (default 1); each store's entries stay within ``max_weight``.
    """

    def __init__(self, max_weight: int, weight: Callable[[V], int] | None = None, stores: int = 4) -> None:
        self._max_weight = max_weight
        self._weight = weight or (lambda _value: 1)
        self._stores = stores
        self._by_store: OrderedDict[str, tuple[int, OrderedDict[K, tuple[V, int]], list[int]]] = OrderedDict()
        self._lock = threading.Lock()

    def _current(self, store: str, generation: int) -> tuple[OrderedDict[K, tuple[V, int]], list[int]]:
        entry = self._by_store.get(store)
        if entry is None or entry[0] != generation:
            entry = (generation, OrderedDict(), [0])
            self._by_store[store] = entry
            while len(self._by_store) > self._stores:
                self._by_store.popitem(last=False)
        self._by_store.move_to_end(store)
        return entry[1], entry[2]

    def get(self, store: str, generation: int, key: K) -> V | None:
        with self._lock:
            entry = self._by_store.get(store)
            if entry is None or entry[0] != generation:
                return None
            item = entry[1].get(key)
            if item is None:
                return None
            entry[1].move_to_end(key)
            return item[0]

    def put(self, store: str, generation: int, key: K, value: V) -> None:
        weight = self._weight(value)
        if weight > self._max_weight:
            return
        with self._lock:
            items, total = self._current(store, generation)
            old = items.pop(key, None)
            total[0] += weight - (old[1] if old is not None else 0)
            items[key] = (value, weight)
            while total[0] > self._max_weight:
                _key, (_value, dropped) = items.popitem(last=False)
                total[0] -= dropped
