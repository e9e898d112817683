"""The action panel: the acting combatant's options, as forms shared by every viewer who acts for it."""

from __future__ import annotations

from typing import Any

from django.utils.safestring import mark_safe

from combat.engine.actions import ActionOption
from combat.engine.core import legal_actions
from combat.engine.state import BattleState, Combatant
from combat.presenters import render
from combat.table import Table
from combat.templatetags.battle_tags import TOKEN_SLOT, fresh_token_values


def options_for(table: Table, combatant: Any) -> list[dict[str, Any]]:
    """The acting combatant's options, computed once per change (the GM's and its player's panels show the same)."""
    options = table._options.get(combatant.id)
    if options is None:
        options = table._options[combatant.id] = [
            option_dict(o, table.state, combatant) for o in legal_actions(table.state, combatant.id)
        ]
    return options


def option_dict(option: ActionOption, state: BattleState, actor: Combatant) -> dict[str, Any]:
    # The option's own lists, not ``to_dict``'s copies: a render only reads them, and the options
    # are made anew for every change (copying a move's paths was ~3 % of an action's CPU).
    d: dict[str, Any] = {
        "kind": option.kind,
        "label": option.label,
        "cost": option.cost,
        "targets": option.targets,
        "squares": option.squares,
        "available": option.available,
        "reason": option.reason,
        "params": option.params,
    }
    d["needs_target"] = bool(d["targets"])
    d["needs_square"] = bool(d["squares"]) and not d["targets"]
    d["target_choices"] = [
        (cid, state.combatants[cid].name) for cid in d["targets"] if cid in state.combatants
    ]
    # What battle.js needs to highlight targets and squares and to preview a move's path or an area's
    # squares: the geometry comes from the engine's options ("x,y" -> squares), the browser computes none.
    d["pick"] = {
        "kind": d["kind"],
        "targets": d["targets"],
        "squares": d["squares"],
        # A move's path to each square, as the square before each square it passes (flat numbers:
        # a fraction of the bytes of whole paths, and nothing to escape in the form's attribute).
        "via": [n for sq, prev in option.came_from.items() for n in (*sq, *prev)],
        "areas": option.areas,
    }
    return d


def fresh_tokens(html: str) -> str:
    """A shared render's forms, each with a fresh client token of its own."""
    parts = html.split(TOKEN_SLOT)
    out = [parts[0]]
    for token, part in zip(fresh_token_values(len(parts) - 1), parts[1:], strict=True):
        out += (token, part)
    return "".join(out)


def share_options(table: Table, ctx: dict[str, Any]) -> None:
    """The acting combatant's option forms, rendered once per change for every viewer who acts for it.

    The GM's action panel and the acting player's show the same forms (same options, actor and
    seq); they are rendered once with token slots, and each viewer's copy gets fresh tokens.
    """
    acting = ctx.get("acting")
    if acting is None:
        return
    key = (acting.id, ctx["seq"], ctx.get("csrf_token"))
    html = table._opts_html.get(key)
    if html is None:
        html = table._opts_html[key] = render.render_one(
            render.ACTION_OPTS, {**ctx, "client_token_slot": True}
        )
    ctx["opts_html"] = mark_safe(fresh_tokens(html))  # noqa: S308 - our template's output
