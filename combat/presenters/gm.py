"""The GM panel: exact values of every combatant, the quick actions and the override forms."""

from __future__ import annotations

from typing import Any

from django.utils.safestring import mark_safe

from combat.engine.rulesets import get_ruleset
from combat.engine.rulesets.base import Ruleset, status_name
from combat.engine.state import BattleState
from combat.presenters.render import GM_ROW, TEMPLATE, fragment
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


def gm_context(table: Table) -> dict[str, Any]:
    """The GM panel: exact values of every combatant, and the override forms (cached by what they list)."""
    state = table.state
    statuses: set[str] = set()
    resources: set[str] = set()
    for c in state.combatants.values():
        statuses.update(c.statuses)
        resources.update(c.resources)
    ruleset = get_ruleset(state.ruleset)
    rows = []
    for cid, c in state.combatants.items():
        row: dict[str, Any] = {
            "id": cid,
            "name": c.name,
            "hp": c.hp,
            "max_hp": c.max_hp,
            "pos": c.pos,
            "row": c.row,
            "statuses": sorted(c.statuses),
            "side": c.side,
        }
        key = (
            cid,
            c.name,
            c.hp,
            c.max_hp,
            tuple(c.pos) if c.pos else None,
            c.row,
            tuple(row["statuses"]),
            c.side,
            ruleset.board,
        )
        row["row_html"] = fragment(GM_ROW, key, {"c": row, "board_kind": ruleset.board})
        rows.append(row)
    ctx: dict[str, Any] = {
        "all_combatants": rows,
        "gm_rows_html": mark_safe("".join(r["row_html"] for r in rows)),  # noqa: S308 - our fragments
        "known_statuses": sorted(statuses | (ruleset.status_keys(state) or set())),
        "status_choices": status_choices(ruleset, state, statuses),
        "known_resources": sorted(resources),
        "gm_quick": GM_QUICK,
        "gm_forms": GM_FORMS,
        "urls": battle_urls(table.battle.pk),
        "width": state.width,
        "height": state.height,
    }
    forms_key = (
        table.battle.pk,
        tuple((c["id"], c["name"]) for c in ctx["all_combatants"]),
        state.width,
        state.height,
        tuple(ctx["known_statuses"]),
        tuple(ctx["known_resources"]),
        tuple(ctx["status_choices"]),
    )
    ctx["gm_forms_html"] = fragment(f"{TEMPLATE}#gm_forms", forms_key, ctx)
    return ctx


def status_choices(ruleset: type[Ruleset], state: BattleState, present: set[str]) -> list[tuple[str, str]]:
    """(key, name) of every status the GM may give: the ruleset's (and the battle's content), by name."""
    keys = ruleset.status_keys(state) or set()
    return sorted(((k, status_name(state, k)) for k in keys | present), key=lambda kv: kv[1])
