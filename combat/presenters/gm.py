"""The GM panel: exact values of every combatant, the quick actions and the override forms."""

from __future__ import annotations

from typing import Any

from combat.engine.rulesets import get_ruleset
from combat.engine.rulesets.base import Ruleset, status_name
from combat.engine.state import BattleState
from combat.engine.tactics import gm_may_leave
from combat.presenters.render import GM_OVERRIDES, GM_ROW, fragment, joined
from combat.table import Table, battle_urls

GM_QUICK = (("gm.skip_turn", "Skip this turn"),)
# (kind, label, fields) of the GM override forms; combat.forms parses the same fields.
GM_FORMS = (
    ("gm.set_hp", "Set HP", ("combatant", "hp")),
    ("gm.set_resource", "Set a resource", ("combatant", "resource")),
    ("gm.add_status", "Add a status", ("combatant", "status", "power")),
    ("gm.remove_status", "Remove a status", ("combatant", "status")),
    ("gm.move", "Move a token", ("combatant", "square")),
    ("gm.remove_combatant", "Remove a combatant", ("combatant",)),
    ("gm.end_battle", "End the battle", ("reason",)),
)


def gm_rows(table: Table) -> list[dict[str, Any]]:
    """The exact values of every combatant, a row each (once per change)."""

    def make() -> list[dict[str, Any]]:
        return [
            {
                "id": cid,
                "name": c.name,
                "hp": c.hp,
                "max_hp": c.max_hp,
                "pos": c.pos,
                "row": c.row,
                "statuses": sorted(c.statuses),
                "side": c.side,
            }
            for cid, c in table.state.combatants.items()
        ]

    rows: list[dict[str, Any]] = table.once("gm_rows", make)
    return rows


def gm_forms(table: Table, rows: list[dict[str, Any]]) -> dict[str, Any]:
    """All the override forms show (they hold no client token: the page fills it when one is sent)."""
    state = table.state
    statuses: set[str] = set()
    resources: set[str] = set()
    for c in state.combatants.values():
        statuses.update(c.statuses)
        resources.update(c.resources)
    ruleset = get_ruleset(state.ruleset)
    return {
        "gm_forms": GM_FORMS,
        "all_combatants": [{"id": r["id"], "name": r["name"]} for r in rows],
        "status_choices": status_choices(ruleset, state, statuses),
        "known_statuses": sorted(statuses | (ruleset.status_keys(state) or set())),
        "known_resources": sorted(resources),
        "urls": battle_urls(table.battle.pk),
        "width": state.width,
        "height": state.height,
        "csrf_token": None,  # pushed and shared: htmx sends the page's token in a header
        "oob": False,
    }


def context(table: Table) -> dict[str, Any]:
    """The GM panel: exact values of every combatant (a row each), the quick actions, the override forms."""
    rows = gm_rows(table)
    board_kind = get_ruleset(table.state.ruleset).board
    return {
        "all_combatants": rows,
        "gm_rows_html": joined(
            [fragment(GM_ROW, {"c": r, "board_kind": board_kind, "oob": False}) for r in rows]
        ),
        "gm_quick": quick_actions(table.state),
        "gm_forms_html": fragment(GM_OVERRIDES, gm_forms(table, rows)),
    }


def quick_actions(state: BattleState) -> tuple[tuple[str, str], ...]:
    """The quick actions; "Let the tactics act" while a monster or NPC has the turn and nothing waits."""
    c = state.current()
    if c is not None and state.pending is None and gm_may_leave(c):
        return (("gm.tactics", f"Let the tactics act for {c.name}"), *GM_QUICK)
    return GM_QUICK


def status_choices(ruleset: type[Ruleset], state: BattleState, present: set[str]) -> list[tuple[str, str]]:
    """(key, name) of every status the GM may give: the ruleset's (and the battle's content), by name."""
    keys = ruleset.status_keys(state) or set()
    return sorted(((k, status_name(state, k)) for k in keys | present), key=lambda kv: kv[1])
