"""Mist & Rampart's options that take working out (ENG-5): a move to every free square in reach,
disengage, and an ability with its targets, squares and areas; each with what it costs and why it
is not open. ``actions.legal_actions`` lists them with the rest."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from combat.engine.actions import ActionOption
from combat.engine.board import Square, square_key, steps_within, within
from combat.engine.rulesets.mist.rules import (
    gate,
    move_problem,
    slot_cost,
    target_problem,
    turn_flags,
)

if TYPE_CHECKING:
    from combat.engine.state import BattleState, Combatant


def move_option(
    state: BattleState, c: Combatant, walls: set[Square], allies: set[Square], enemies: set[Square]
) -> ActionOption:
    """A move of up to the squares left, to every free square in reach (no diagonal steps)."""
    assert c.pos is not None
    left = c.resources.get("move", 0)
    reason = move_problem(state, c)
    came_from, ends = (
        ({}, [])
        if reason
        else steps_within(
            (c.pos[0], c.pos[1]), left, state.width, state.height, walls | enemies, allies, diagonal=False
        )
    )
    if not reason and not ends:
        reason = "No free square in reach."
    return ActionOption(
        "move",
        f"Move (up to {left})",
        {"move": 1},
        squares=[list(s) for s in ends],
        available=not reason,
        reason=reason,
        came_from=came_from,
    )


def disengage_option(state: BattleState, c: Combatant) -> ActionOption:
    dis_type = state.options.get("disengage_type", "simple")
    cost = slot_cost(c, dis_type, 1)
    why = (
        "Already disengaged this turn."
        if turn_flags(c).get("disengaged")
        else gate(state, c, dis_type, 1, 0, spell=False)
    )
    return ActionOption(
        "disengage",
        "Disengage",
        {"slots": cost if isinstance(cost, int) else 0},
        available=not why,
        reason=why or "",
    )


def ability_option(
    state: BattleState,
    c: Combatant,
    key: str,
    a: dict[str, Any],
    stuck: str | None,
    walls: set[Square],
    allies: set[Square],
    enemies: set[Square],
) -> ActionOption:
    cost = slot_cost(c, a["type"], a["cost"])
    why = gate(state, c, a["type"], a["cost"], a["mp"], spell=a["spell"])
    if not why and a["leap"]:
        why = move_problem(state, c, leap=True)
    targets: list[str] = []
    squares: list[list[int]] = []
    if not why and c.pos is not None:
        if a["target"] == "square":
            taken = walls | allies | enemies
            squares = [
                list(s)
                for s in within(c.pos, a["range"], state.width, state.height, "manhattan")
                if not (a["leap"] and (s in taken or list(s) == c.pos))
            ]
        else:
            targets = [t.id for t in state.combatants.values() if target_problem(state, c, t, a) is None]
        if not targets and not squares:
            why = "No target in range."
    areas = (
        {
            square_key(s): [list(q) for q in within(s, a["area"], state.width, state.height, "manhattan")]
            for s in squares
        }
        if a["target"] == "square" and a["area"] > 0
        else {}
    )
    label = a["name"] + (f" ({a['mp']} MP)" if a["mp"] else "")
    price = {"slots": cost if isinstance(cost, int) else 0, **({"mp": a["mp"]} if a["mp"] else {})}
    return ActionOption(
        "ability",
        label,
        price,
        targets=targets,
        squares=squares,
        available=not why,
        reason=why or "",
        params={"ability": key},
        areas=areas,
    )
