"""The tracker region: the round, who acts and who must answer, the turn order, who is at the table."""

from __future__ import annotations

from typing import Any

from combat.presenters import memo
from combat.presenters.render import TRACKER_ROW, fragment, joined
from combat.snapshot import Table
from vtt.models import Role


def context(table: Table, tokens: list[dict[str, Any]], vclass: str) -> dict[str, Any]:
    """What the tracker shows besides the frame (``tokens``: ``tokens_of`` the viewer's class)."""
    state = table.state
    by_id = {t["id"]: t for t in tokens}
    order = [by_id[cid] for cid in state.order if cid in by_id]
    waiting = [t for t in tokens if t["id"] not in state.order]
    current = state.acting()  # nobody while a phase between turns waits for an answer
    at_table = {t["controller"] for t in tokens if t["controller"]}
    at_table |= {uid for uid, (role, _) in table.members.items() if role == Role.GM}
    rows = []
    times: dict[str, int] = {}
    for t in (*order, *waiting):
        # A combatant with two turns in the order has two rows: the second one's id says which.
        n = times[t["id"]] = times.get(t["id"], -1) + 1
        rows.append(
            t["row_html"] if not n else fragment(TRACKER_ROW, {"t": t["in_tracker"], "oob": False, "n": n})
        )
    view = memo.class_view(table, vclass)
    return {
        "order_html": joined(rows),
        "current": by_id.get(current.id) if current else None,
        # While one a player may not know of takes its turn: whose turn comes next among those they see.
        "next_up": by_id.get(view.get("next") or ""),
        # What a non-addressee may know of a reaction window: who decides and why, not the question.
        "pending": memo.class_view(table, vclass).get("pending"),
        "pending_for": chooser(table, vclass),
        "result": state.result,
        "presence_users": [(uid, table.name_of(uid)) for uid in sorted(at_table)],
    }


def chooser(table: Table, vclass: str) -> str:
    """Who must choose, as this class may know them: the combatant's name (else "someone")."""
    pending = memo.class_view(table, vclass).get("pending")
    if not pending:
        return ""
    c = table.state.combatants.get(pending.get("combatant") or "")
    return c.name if c is not None else "someone"
