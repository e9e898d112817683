"""Paradigm's options that take working out (ENG-5): each ability with its targets (a heal only on the
hurt), and the swaps of weapon and accessory; ``actions.legal_actions`` lists them with the rest."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from combat.engine.actions import ActionOption
from combat.engine.rulesets.base import definition
from combat.engine.rulesets.paradigm.rules import ability_keys, area_targets, gate, single_targets

if TYPE_CHECKING:
    from combat.engine.state import BattleState, Combatant

EQUIP_SLOTS = {"weapon": "weapons", "accessory": "accessories"}


def ability_options(state: BattleState, c: Combatant) -> list[ActionOption]:
    opts = []
    for key in ability_keys(state, c):
        a = definition(state, "abilities", key)
        if a is None:
            continue
        why = gate(state, c, a["cost"], "abilities") or (gate(state, c, 0, "melee") if a["melee"] else None)
        targets = [] if why else targets_for(state, c, a)
        targets, why = worth_it(state, a, targets, why)
        area = a["target"] in ("all_enemies", "all_allies")
        if not why and not targets:
            why = "No one to target."
        opts.append(opt("ability", a["name"], a["cost"], [] if area else targets, why, ability=key))
    return opts


def swap_options(state: BattleState, c: Combatant) -> list[ActionOption]:
    why = gate(state, c, 1)
    opts = []
    for slot, kind in EQUIP_SLOTS.items():
        current = definition(state, kind, c.extra.get(slot))
        if current:
            opts.append(opt("swap", f"Put away {current['name']}", 1, [], why, slot=slot, equip=""))
        for key in dict.fromkeys(c.extra.get("gear", ())):
            d = definition(state, kind, key)
            if d:
                opts.append(opt("swap", f"Equip {d['name']}", 1, [], why, slot=slot, equip=key))
    return opts


def worth_it(
    state: BattleState, eff: dict[str, Any], targets: list[str], why: str | None
) -> tuple[list[str], str | None]:
    """A heal on one target that would do nothing is offered greyed, with why: only the hurt are targets."""
    if why or eff.get("type") != "heal" or eff["target"] in ("all_enemies", "all_allies") or not targets:
        return targets, why
    hurt = [t for t in targets if state.combatants[t].hp < state.combatants[t].max_hp]
    return hurt, None if hurt else "Everyone in reach is at full HP."


def targets_for(state: BattleState, c: Combatant, eff: dict[str, Any]) -> list[str]:
    mode = eff["target"]
    if mode in ("all_enemies", "all_allies"):
        return area_targets(state, c, mode, eff["type"], eff.get("melee", False))
    return single_targets(state, c, mode, eff["type"], eff.get("melee", False))


def opt(kind: str, label: str, cost: int, targets: list[str], why: str | None, **params: Any) -> ActionOption:
    return ActionOption(
        kind, label, {"ap": cost} if cost else {}, list(targets), [], not why, why or "", params
    )
