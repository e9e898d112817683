"""Pings and the shared ruler: a square pointed at for the whole table, a measure shown to it.

Nothing here is stored or decided by the rules: a battle socket reads its person's mark (``read``),
passes it to the battle's group signed by who made it (``signature``: their characters at the table,
in their colour) and every other page of the battle draws it for a few seconds (table-tools.js). A ping is a square; a ruler runs from one square to another, and each page
counts its squares with the battle's own metric (the engine's ``grid_metric``, on the board as
``data-metric``), so every page shows the engine's distance. Each socket may ping a few times in a
burst, then about once a second (``Bucket``); ruler updates beyond twenty a second are dropped.

>>> read({"type": "ping", "at": [2, 3]}, 10, 8)
{'kind': 'ping', 'at': [2, 3]}
>>> read({"type": "ping", "at": [12, 3]}, 10, 8) is None
True
>>> read({"type": "ruler", "from": [0, 0], "to": [3, 4]}, 10, 8)
{'kind': 'ruler', 'from': [0, 0], 'to': [3, 4]}
"""

from __future__ import annotations

import time
from typing import Any

from combat.engine.board import as_square

KINDS = ("ping", "ruler")
TOO_MANY_PINGS = "Too many pings: wait a moment before pinging again."
# Light colours (a dark label reads on each), one per member of a campaign in the order they joined it.
PALETTE = ("#ffbf47", "#8fd3ff", "#ff9fbf", "#a6e88f", "#cdb0ff", "#ffab73", "#72e4d6", "#f0e46a")


def colour(user_id: str, member_ids: Any) -> str:
    """A member's colour at the table: their place among the campaign's members (by account id), so each of
    up to eight people has their own and every page agrees.

    >>> colour("7", ["3", "7", "12"]), colour("99", ["3"])
    ('#8fd3ff', '#ffbf47')
    """
    ordered = sorted((str(m) for m in member_ids), key=lambda m: (len(m), m))
    return PALETTE[ordered.index(str(user_id)) % len(PALETTE)] if str(user_id) in ordered else PALETTE[0]


def signature(combatants: Any, user_id: str, fallback: str) -> str:
    """How a mark is signed: the names of the sender's characters at the table (those on the party's side
    the GM has not hidden: names every seat knows), else ``fallback`` (the sender's display name).

    >>> signature({"a": {"name": "Alia", "controller": "7", "side": "party"}}, "7", "ana0c61")
    'Alia'
    >>> signature({"g": {"name": "Grik", "controller": "7", "side": "enemy"}}, "7", "Ana")
    'Ana'
    """
    names = [
        str(c.get("name") or "")
        for c in (combatants.values() if isinstance(combatants, dict) else ())
        if isinstance(c, dict)
        and str(c.get("controller")) == str(user_id)
        and c.get("side") == "party"
        and not (c.get("extra") or {}).get("hidden")
    ]
    names = [n for n in names if n][:2]
    return " & ".join(names) if names else fallback


class Bucket:
    """A token bucket: ``burst`` at once, then one every ``every`` seconds."""

    def __init__(self, burst: int, every: float) -> None:
        self.burst, self.every = burst, every
        self.tokens = float(burst)
        self.at = time.monotonic()

    def take(self) -> bool:
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.at) / self.every)
        self.at = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True


def buckets() -> dict[str, Bucket]:
    """A socket's limits: pings (3 at once, then one a second), ruler updates (twenty a second)."""
    return {"ping": Bucket(3, 1.0), "ruler": Bucket(5, 0.05)}


def read(message: dict[str, Any], width: int, height: int) -> dict[str, Any] | None:
    """The mark a socket message asks to show (squares on this board), or None for anything else."""
    kind = message.get("type")
    if kind == "ping":
        at = as_square(message.get("at"), width, height)
        return None if at is None else {"kind": "ping", "at": list(at)}
    if kind == "ruler":
        if message.get("done") is True:
            return {"kind": "ruler", "done": True}
        start = as_square(message.get("from"), width, height)
        end = as_square(message.get("to"), width, height)
        if start is None or end is None:
            return None
        return {"kind": "ruler", "from": list(start), "to": list(end)}
    return None
