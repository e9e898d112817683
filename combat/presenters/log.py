"""The log region: the battle's newest events in words, with their dice, as one visibility class may see them."""

from __future__ import annotations

from typing import Any

from combat.engine.core import Viewer
from combat.engine.log import describe
from combat.engine.view import event_data_for, hidden_ids, unseen_ids
from combat.presenters.render import LOG_ENTRY, fragment, joined
from combat.table import LOG_WINDOW, LOGS, LogRow, Table
from vtt.models import Role


def log_entries(
    events: list[LogRow],
    names: dict[str, str],
    hidden: frozenset[str] | set[str],
    memo: dict[int, tuple[dict[str, Any], dict[str, Any] | None]] | None = None,
    unseen: frozenset[str] = frozenset(),
) -> list[dict[str, Any]]:
    """Log entries (newest first) with their rendered HTML, one per event seq; ``hidden`` and ``unseen``
    from the engine's ``hidden_ids`` and ``unseen_ids`` (an event about a combatant in fog is left out).

    An entry is keyed by its event's seq: a seq met again is not told again. ``memo`` (from
    ``log_memo``): seq -> (the row's data object, its entry) of the same window described before with
    the same names, hidden and unseen combatants; an entry is reused only for the very data object it was
    described from (held, so its id is not reused), so a window read anew (another process wrote, an
    undo put another event at that seq) is described anew.
    """
    out = []
    kept: dict[int, tuple[dict[str, Any], dict[str, Any] | None]] = {}
    for seq, etype, data in events:
        if seq in kept:
            continue
        hit = memo.get(seq) if memo is not None else None
        if hit is not None and hit[0] is data:
            e = hit[1]
        else:
            shown = event_data_for(etype, data, hidden, unseen)
            e = None if shown is None else describe(seq, etype, shown, names, hidden)
            if e is None or (not e["text"] and not e["rolls"]):
                e = None
            else:
                e["html"] = fragment(LOG_ENTRY, {"e": e})
        kept[seq] = (data, e)
        if e is not None:
            out.append(e)
    if memo is not None:
        memo.clear()
        memo.update(kept)
    return out


def log_memo(
    battle_id: int,
    vclass: str,
    names: dict[str, str],
    hidden: frozenset[str] | set[str],
    unseen: frozenset[str] = frozenset(),
) -> dict[int, tuple[dict[str, Any], dict[str, Any] | None]]:
    """The described entries of a battle's log window for one class, while names, hidden and unseen hold.

    The window's rows (``WINDOWS``) keep their data objects from one change to the next, so after a
    change only the new events are described; a re-read window (another process wrote, an undo)
    brings new objects, and they are described anew.
    """
    cached = LOGS.get((battle_id, vclass))
    if cached is None or cached[0] != names or cached[1] != hidden or cached[2] != unseen:
        cached = LOGS[(battle_id, vclass)] = (dict(names), frozenset(hidden), unseen, {})
    return cached[3]


def context(table: Table, vclass: str) -> dict[str, Any]:
    """The log window's entries as one visibility class may read them, and whether older ones exist."""
    state = table.state
    names = {cid: c.name for cid, c in state.combatants.items()}
    viewer = Viewer(role=Role.GM if vclass == "gm" else Role.PLAYER)
    hidden, unseen = hidden_ids(state, viewer), unseen_ids(state, viewer)
    memo = log_memo(table.battle.pk, vclass, names, hidden, unseen)
    entries = log_entries(table.events, names, hidden, memo, unseen)
    return {
        "log_html": joined([e["html"] for e in entries]),
        "log_more": len(table.events) == LOG_WINDOW and table.events[-1][0] > 1,
    }
