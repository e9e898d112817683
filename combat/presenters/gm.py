"""The GM panel: the quick actions of the turn, and a menu on every token (``combat/token_menu.html``),
rendered when the GM opens it (``menu_html``; never pushed: a change would otherwise carry the menus
whose HP, statuses or turn it altered, 3-7 KB of the GM's push).

A token's menu holds what the GM may do to it, each one tap away: HP up or down by an amount, add or
remove a status, move it, hide it from the players or reveal it, remove it, and on its turn act for
it, let the tactics play it (a monster or NPC) or skip the turn: ``turn_entries`` lists the entries
about the combatant's turn.
"""

from __future__ import annotations

from typing import Any

from combat.engine.gm import may_hide
from combat.engine.rulesets import get_ruleset
from combat.engine.rulesets.base import Ruleset, status_name
from combat.engine.state import BattleState, Combatant
from combat.engine.tactics import gm_may_leave
from combat.presenters.memo import battle_urls
from combat.presenters.render import TOKEN_MENU, fragment
from combat.snapshot import Table

GM_QUICK = (("gm.skip_turn", "Skip this turn"),)


def turn_entries(state: BattleState, c: Combatant) -> list[dict[str, Any]]:
    """The menu's entries about ``c``'s turn, first in its menu. An entry either posts an action
    (``kind`` and its ``fields``) or is a button the page handles (``data``: its data attributes)."""
    current = state.current()
    if state.phase != "active" or current is None or current.id != c.id or state.pending is not None:
        return []
    tactics = (
        [
            {
                "key": "tactics",
                "label": f"Let the tactics act for {c.name}",
                "kind": "gm.tactics",
                "fields": [],
                "data": [],
            }
        ]
        if gm_may_leave(c)
        else []
    )
    return [
        *tactics,
        {
            "key": "act-for",
            "label": f"Act for {c.name}",
            "kind": "",
            "fields": [],
            "data": [("act-for", c.id)],
        },
        {"key": "skip", "label": "Skip this turn", "kind": "gm.skip_turn", "fields": [], "data": []},
    ]


def menu_context(
    state: BattleState, c: Combatant, board_kind: str, statuses: list[tuple[str, str]], act: str
) -> dict[str, Any]:
    """What one token's menu shows (it holds no client token: the page fills it when a form is sent)."""
    return {
        "c": {
            "id": c.id,
            "name": c.name,
            "side": c.side,
            "hp": c.hp,
            "max_hp": c.max_hp,
            "row": c.row,
            "hidden": bool(c.extra.get("hidden")),
            "may_hide": may_hide(c),
            "statuses": [[k, status_name(state, k)] for k in sorted(c.statuses)],
        },
        "phase": state.phase,
        "board_kind": board_kind,
        "statuses": [list(s) for s in statuses],
        "act": act,
        "turn_entries": turn_entries(state, c),
    }


def menu_html(table: Table, cid: str, csrf_token: str | None = None) -> str | None:
    """The menu of the token ``cid`` as the GM sees it now, its forms carrying ``csrf_token``; None when
    the battle has no such combatant."""
    state = table.state
    c = state.combatants.get(cid)
    if c is None:
        return None
    present: set[str] = set()
    for other in state.combatants.values():
        present.update(other.statuses)
    ruleset = get_ruleset(state.ruleset)
    choices = status_choices(ruleset, state, present)
    act = battle_urls(table.battle.pk)["act"]
    return fragment(
        TOKEN_MENU, dict(menu_context(state, c, ruleset.board, choices, act), csrf_token=csrf_token)
    )


def context(table: Table) -> dict[str, Any]:
    """The GM panel: the quick actions (a token's menu is fetched when it opens)."""
    state = table.state
    return {
        "all_combatants": [{"id": cid, "name": c.name} for cid, c in state.combatants.items()],
        "gm_quick": GM_QUICK,
        "gm_tactics": tactics_label(state),
    }


def tactics_label(state: BattleState) -> str:
    """The quick action "Let the tactics act for ..." while a monster or NPC has the turn and nothing
    waits; else "" (the other quick actions are always there: ``GM_QUICK``)."""
    c = state.current()
    if c is not None and state.pending is None and gm_may_leave(c):
        return f"Let the tactics act for {c.name}"
    return ""


def status_choices(ruleset: type[Ruleset], state: BattleState, present: set[str]) -> list[tuple[str, str]]:
    """(key, name) of every status the GM may give: the ruleset's (and the battle's content), by name."""
    keys = ruleset.status_keys(state) or set()
    return sorted(((k, status_name(state, k)) for k in keys | present), key=lambda kv: kv[1])
