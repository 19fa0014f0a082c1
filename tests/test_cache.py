"""The process caches: LRU by count, and per-store caches that keep only the latest generation."""

from __future__ import annotations

from prooftext.cache import BoundedCache, GenerationCache


def test_bounded_cache_drops_the_least_recently_used_entry() -> None:
    cache: BoundedCache[str, int] = BoundedCache(2)
    cache.put("a", 1)
    cache.put("b", 2)
    assert cache.get("a") == 1
    cache.put("c", 3)
    assert (cache.get("a"), cache.get("b"), cache.get("c")) == (1, None, 3)


def test_a_new_generation_forgets_the_old_one() -> None:
    cache: GenerationCache[str, int] = GenerationCache(10)
    cache.put("store", 1, "k", 1)
    assert cache.get("store", 1, "k") == 1
    cache.put("store", 2, "k", 2)
    assert cache.get("store", 1, "k") is None
    assert cache.get("store", 2, "k") == 2


def test_stores_are_kept_apart_and_bounded_in_number() -> None:
    cache: GenerationCache[str, int] = GenerationCache(10, stores=2)
    for store in ("a", "b", "c"):
        cache.put(store, 1, "k", ord(store))
    assert cache.get("a", 1, "k") is None
    assert (cache.get("b", 1, "k"), cache.get("c", 1, "k")) == (ord("b"), ord("c"))


def test_weight_bounds_a_store_and_an_oversized_value_is_not_kept() -> None:
    cache: GenerationCache[str, str] = GenerationCache(5, weight=len)
    cache.put("s", 1, "x", "abc")
    cache.put("s", 1, "y", "cd")
    cache.put("s", 1, "z", "e")  # total 6 > 5: the oldest entry goes
    assert (cache.get("s", 1, "x"), cache.get("s", 1, "y"), cache.get("s", 1, "z")) == (None, "cd", "e")
    cache.put("s", 1, "big", "abcdef")
    assert cache.get("s", 1, "big") is None and cache.get("s", 1, "y") == "cd"
