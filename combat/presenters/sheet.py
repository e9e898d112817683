"""The sheet region: a viewer's own combatants (HP, resources, the sheet's numbers, statuses) and
what the last action did to them."""

from __future__ import annotations

from typing import Any

from combat.engine.core import Viewer
from combat.engine.rulesets import get_ruleset
from combat.engine.told import Teller
from combat.outcome import notices
from combat.presenters import memo
from combat.presenters.tokens import token_of
from combat.snapshot import Table
from vtt.models import Role

STATS = 8  # numbers of the sheet shown (lists of abilities are the action panel)


def controlled(table: Table, user_id: str | None) -> frozenset[str]:
    """The ids of the combatants ``user_id`` controls."""
    if user_id is None:
        return frozenset()
    return frozenset(cid for cid, c in table.state.combatants.items() if c.controller == user_id)


def own_tokens(table: Table, user_id: str | None, is_gm: bool) -> list[dict[str, Any]]:
    """The combatants ``user_id`` controls, as their role sees them (``token_of``); once per change."""

    def make() -> list[dict[str, Any]]:
        mine = controlled(table, user_id)
        if not mine:
            return []
        view = memo.view(table, Role.GM if is_gm else Role.PLAYER, None if is_gm else user_id, mine)
        return [token_of(table, cid, c) for cid, c in view.get("combatants", {}).items() if cid in mine]

    own: list[dict[str, Any]] = memo.once(table, ("own", user_id, is_gm), make)
    return own


def context(table: Table, user_id: str | None, is_gm: bool) -> dict[str, Any]:
    """The sheet's cards (all they show, nothing else) and a player's notices."""
    state = table.state
    own = own_tokens(table, user_id, is_gm)
    schema = get_ruleset(state.ruleset).sheet_schema if own else ()
    cards = []
    for t in own:
        sheet = state.combatants[t["id"]].sheet
        cards.append(
            {
                "name": t["name"],
                "hp": t["hp"],
                "max_hp": t["max_hp"],
                "resources": t["resources"],
                "stats": [(f.label, sheet[f.key]) for f in schema if f.kind == "int" and f.key in sheet][
                    :STATS
                ],
                "statuses": t["statuses"],
            }
        )
    mine = controlled(table, user_id)
    told = notices(table.events, mine, teller(table, user_id)) if mine and not is_gm else []
    return {"own": cards, "notices": told}


def teller(table: Table, user_id: str | None) -> Teller:
    """What each seq may tell this player (``told.Teller``), once per change."""
    return memo.once(
        table, ("teller", "user", user_id), lambda: Teller(table.state, Viewer(Role.PLAYER, user_id))
    )


def resting(ctx: dict[str, Any]) -> dict[str, Any]:
    """All the sheet receives (it holds no form: always cached by it)."""
    return {"own": ctx["own"], "notices": ctx["notices"]}
