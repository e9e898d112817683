"""The log region: the battle's newest events in words, with their dice, as one visibility class may see them."""

from __future__ import annotations

from typing import Any

from combat.caches import LOGS
from combat.engine.core import Viewer
from combat.engine.log import describe
from combat.engine.told import Teller
from combat.presenters import memo
from combat.presenters.render import LOG_ENTRY, fragment, joined
from combat.snapshot import LOG_WINDOW, LogRow, Table
from vtt.models import Role

Memo = dict[int, tuple[dict[str, Any], dict[str, Any] | None]]


def log_entries(events: list[LogRow], teller: Teller, memo: Memo | None = None) -> list[dict[str, Any]]:
    """Log entries (newest first) with their rendered HTML, one per event seq, each told as the viewer
    may be told it at its own seq (``teller``: the engine's ``told``; an event about a combatant they
    could not know of then is left out, and stays out once it is seen).

    An entry is keyed by its event's seq: a seq met again is not told again. ``memo`` (from
    ``log_memo``): seq -> (the row's data object, its entry) of the same window told before by a
    teller of the same ``key``; an entry is reused only for the very data object it was described from
    (held, so its id is not reused), so a window read anew (another process wrote, an undo put another
    event at that seq) is described anew.
    """
    out = []
    kept: Memo = {}
    for seq, etype, data in events:
        if seq in kept:
            continue
        hit = memo.get(seq) if memo is not None else None
        if hit is not None and hit[0] is data:
            e = hit[1]
        else:
            told = teller.at(seq)
            shown = told.event(etype, data)
            e = None if shown is None else describe(seq, etype, shown, dict(told.names), told.hidden)
            if e is None or (not e["text"] and not e["rolls"]):
                e = None
            else:
                e["text"] = told.sentence(e["text"])
                e["html"] = fragment(LOG_ENTRY, {"e": e})
        kept[seq] = (data, e)
        if e is not None:
            out.append(e)
    if memo is not None:
        memo.clear()
        memo.update(kept)
    return out


def log_memo(battle_id: int, vclass: str, teller: Teller) -> Memo:
    """The described entries of a battle's log window for one class, while the teller's key holds.

    The window's rows (``WINDOWS``) keep their data objects from one change to the next, so after a
    change only the new events are described; a re-read window (another process wrote, an undo)
    brings new objects, and they are described anew.
    """
    cached = LOGS.get((battle_id, vclass))
    if cached is None or cached[0] != teller.key:
        cached = LOGS[(battle_id, vclass)] = (teller.key, {})
    return cached[1]


def class_teller(table: Table, vclass: str) -> Teller:
    """What each seq's line may tell a visibility class (``gm``, or any player or observer), once per change."""
    viewer = Viewer(role=Role.GM if vclass == "gm" else Role.PLAYER)
    return memo.once(table, ("teller", vclass), lambda: Teller(table.state, viewer))


def context(table: Table, vclass: str) -> dict[str, Any]:
    """The log window's entries as one visibility class may read them, and whether older ones exist."""
    teller = class_teller(table, vclass)
    memo = log_memo(table.battle.pk, vclass, teller)
    entries = log_entries(table.events, teller, memo)
    return {
        "log_html": joined([e["html"] for e in entries]),
        "log_more": len(table.events) == LOG_WINDOW and table.events[-1][0] > 1,
    }
