"""Every process cache of the battle's display, in one leaf module (cachetools only).

The loader's (``combat.table``): ``MEMBERS`` and ``FACES`` (TTL 5 s, 10,000 campaigns: user id ->
(role, name); character id -> token picture URL) and ``WINDOWS`` (LRU, 2,000 battles: the newest
``LOG_WINDOW`` events of a battle, so the push after a write reads nothing).

The presenters' (``combat.presenters``): ``FRAGMENTS`` (LRU, 20,000: the HTML of small pieces and of a
viewer's own regions, keyed by their whole context), ``LOGS`` (the described entries of a battle's log
window per class), ``LAYOUTS`` and ``SENT`` (which elements a class's page holds at a version, and the
keys of the pieces it shows), ``URLS`` (reversed endpoints) and ``TEMPLATES`` (compiled templates).

``clear_caches`` empties them all (tests: database ids repeat).
"""

from __future__ import annotations

from typing import Any

from cachetools import LRUCache, TTLCache

LogRow = tuple[int, str, dict[str, Any]]  # (seq, type, data) of a stored event

FRAGMENTS: LRUCache[Any, str] = LRUCache(maxsize=20_000)  # plain str: untracked by the collector
MEMBERS: TTLCache[int, dict[str, tuple[str, str]]] = TTLCache(maxsize=10_000, ttl=5.0)
FACES: TTLCache[int, dict[int, str]] = TTLCache(maxsize=10_000, ttl=5.0)
WINDOWS: LRUCache[int, tuple[int, int, list[LogRow]]] = LRUCache(maxsize=2_000)
URLS: LRUCache[int, dict[str, str]] = LRUCache(maxsize=10_000)
# (battle, class) -> (what its lines depend on: ``Teller.key``, seq -> (the event's data, its entry or None))
LOGS: LRUCache[tuple[int, str], tuple[tuple[Any, ...], dict[int, Any]]] = LRUCache(maxsize=4_000)
TEMPLATES: LRUCache[str, Any] = LRUCache(maxsize=256)
# (battle, class) -> (version, the layout of that class's page at it): ``combat.presenters.changes``.
LAYOUTS: LRUCache[tuple[int, str], tuple[int, tuple[Any, ...], tuple[Any, ...]]] = LRUCache(maxsize=4_000)
# (battle, class) -> (version, element id -> the key of the context of the piece the page shows).
SENT: LRUCache[tuple[int, str], tuple[int, dict[str, bytes]]] = LRUCache(maxsize=6_000)


def clear_caches() -> None:
    """Empty every process cache of the battle's display (tests: database ids repeat)."""
    for cache in (FRAGMENTS, MEMBERS, FACES, WINDOWS, URLS, TEMPLATES, LOGS, LAYOUTS, SENT):
        cache.clear()
