"""The outcome line by the board: what the latest action did, as one visibility class may read it.

Every seat sees it, the GM's included, and it stays until the next action: the first render, every
push (whole or as elements: ``changes``) and an HTMX reply carry it as the ``outcome`` partial of
``combat/battle.html``. Its words are ``combat.outcome.watch_line`` of the latest action's events as
the engine tells that class of them (``watch_line_for``): "Mira: Hit! Goblin is hurt — 1d8 [7] + 1 (Sword)
= 8." for the players, the same with the damage for the GM, nothing of a turn in the fog. The one who
acted reads their own line in the messages instead (the page hides this one while it shows theirs).
"""

from __future__ import annotations

from typing import Any

from combat.engine.view import Viewer
from combat.outcome import last_action, watch_line_for
from combat.presenters import memo, render
from combat.snapshot import Table
from vtt.models import Role

OUTCOME = f"{render.TEMPLATE}#outcome"


def line(table: Table, vclass: str) -> dict[str, Any]:
    """The line of the latest action for a class: its words and the seq it tells of, once per change."""

    def make() -> dict[str, Any]:
        # Set-up is the GM's own business (their replies say what it did): the line starts with the battle.
        rows = last_action(table.events) if table.state.phase != "setup" else []
        viewer = Viewer(role=Role.GM if vclass == "gm" else Role.PLAYER)
        said = watch_line_for([(etype, data) for _, etype, data in rows], table.state, viewer) if rows else ""
        return {"seq": table.battle.seq, "text": said}

    made: dict[str, Any] = memo.once(table, ("outcome", vclass), make)
    return made


def context(table: Table, vclass: str) -> dict[str, Any]:
    """What the ``outcome`` partial receives."""
    return {"outcome": line(table, vclass)}


def piece(table: Table, vclass: str) -> str:
    """The line as a pushed element (``hx-swap-oob``), from the cache when the same words were rendered."""
    return render.fragment(OUTCOME, context(table, vclass))
