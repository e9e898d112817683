"""The prompt region: a reaction window's question, for the one who answers it (or the GM)."""

from __future__ import annotations

from typing import Any

from combat.engine.core import Viewer
from combat.engine.view import unseen_ids, words_for
from combat.snapshot import Table
from vtt.models import Role


def context(table: Table, user_id: str | None, is_gm: bool) -> dict[str, Any]:
    """The open question this viewer answers, if any, and whose it is (its words name no one the
    viewer may not know of: ``words_for``)."""
    pending = table.state.pending
    prompt = pending if pending is not None and (is_gm or pending.controller == user_id) else None
    if prompt is not None and not is_gm:
        prompt = words_for(
            prompt, table.state, unseen_ids(table.state, Viewer(role=Role.PLAYER, user_id=user_id))
        )
    who = table.state.combatants.get(prompt.combatant) if prompt is not None else None
    # Whoever answers is told for whom: the GM may answer any, a player may play several characters.
    return {"prompt": prompt, "prompt_for": who.name if who is not None else ""}


def resting(ctx: dict[str, Any]) -> dict[str, Any] | None:
    """All the prompt receives while it asks nothing (cached by it); None while it holds a question."""
    return None if ctx["prompt"] is not None else {"prompt": None}
