"""The presenters' own memo: what one change's renders share, kept beside the snapshot, not in it.

A ``Table`` (``combat.snapshot``) is frozen; the views of it and the values the regions compute once
per change (a class's tokens, the acting combatant's options, the log's teller) live here, keyed by
the snapshot, and go with it. The presenters' process caches (``combat.caches``: fragments, logs,
layouts, endpoints) are theirs too; ``battle_urls`` reverses a battle's endpoints once.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Hashable
from typing import Any, TypeVar

from django.urls import reverse

from combat.caches import URLS
from combat.engine.core import Viewer, view_for
from combat.snapshot import Table
from vtt.models import Role

T = TypeVar("T")
_MEMOS: weakref.WeakKeyDictionary[Table, dict[Hashable, Any]] = weakref.WeakKeyDictionary()


def once(table: Table, key: Hashable, make: Callable[[], T]) -> T:
    """``make()``, computed once per change (per snapshot) for ``key``: the viewers of one change share it."""
    memo = _MEMOS.get(table)
    if memo is None:
        memo = _MEMOS[table] = {}
    if key not in memo:
        memo[key] = make()
    value: T = memo[key]
    return value


def view(table: Table, role: str, user_id: str | None, only: frozenset[str] | None = None) -> dict[str, Any]:
    """What ``role``/``user_id`` sees (of the combatants ``only``, when given), computed once."""
    return once(
        table,
        ("view", role, user_id, only),
        lambda: view_for(table.state, Viewer(role=role, user_id=user_id), only),
    )


def class_view(table: Table, vclass: str) -> dict[str, Any]:
    """What a visibility class sees ("gm": everything; "pl": any player or observer)."""
    return view(table, Role.GM if vclass == "gm" else Role.PLAYER, None)


def battle_urls(battle_id: int) -> dict[str, str]:
    """The battle's endpoints (reversing costs more than rendering a region: kept per battle)."""
    urls: dict[str, str] | None = URLS.get(battle_id)
    if urls is None:
        urls = URLS[battle_id] = {
            name: reverse(f"battle_{name}", args=[battle_id])
            for name in ("act", "start", "undo", "add", "log")
        }
        urls["menu"] = reverse("battle_menu", args=[battle_id, "-"])[:-1]  # + a combatant's id
        urls["plans"] = reverse("battle_plans", args=[battle_id])
    return urls
