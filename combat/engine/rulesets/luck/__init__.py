"""D20 Luck (source: seeds/002). Grid board, 2 standard actions per turn.

Rules implemented (docs/RULESETS.md, LUCK-*): initiative 1d20 + score with
tie-breaks; 2 standard actions; a move of up to Movement squares costs 1;
an ability may include a free 1-square step (``to``); a Luck Roll (1d20
+ luck bonus) against hostile targets, automatic hits on friendly ones;
miss 1-5 / hit / crit 20 (abilities may widen); crits multiply damage dice
and bonuses (Crit Damage); armor against physical, resist against magical;
healing unreduced; statuses roll against a defense, power = difference,
no self-stacking, durations, Recover; one interrupt per turn cycle, as a
reaction window (Parry).

The package has the modules every ruleset has (``rulesets/README.md``):
``sheet`` (options and sheet), ``content`` (the starter pack as data),
``rules`` (what content means for a combatant), ``actions`` (the resolvers,
the dispatch table, ``resume`` and the options of ENG-5), ``events`` (its
events, their sentences and appliers).

Where the source is silent: Slow's rounding is the ``slow_rounding`` option
and squares are counted with the ``grid_metric`` option; the other readings
are the ``readings`` sentences the GM sees with the house rules.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from combat.engine.rulesets.base import (
    HP_RESTORED,
    CarryOver,
    Ruleset,
    count_down_statuses,
    definition,
    roll_initiative,
)
from combat.engine.rulesets.luck import actions, content, events, sheet, tactics
from combat.engine.rulesets.luck.content import (
    DEMO_PARTY,
    HEROES,
    MONSTERS,
)
from combat.engine.rulesets.luck.rules import ACTIONS_PER_TURN, free_steps, items_left
from combat.engine.rulesets.wiring import wired

if TYPE_CHECKING:
    from combat.engine.context import Ctx
    from combat.engine.state import BattleState, Combatant

__all__ = ["DEMO_PARTY", "HEROES", "MONSTERS", "Luck"]


@wired(sheet, content, actions, events, tactics, check=content.validate_luck_content)
class Luck(Ruleset):
    key = "luck"
    name = "D20 Luck"
    summary = "Classic d20 skirmish on a grid: two actions a turn, luck rolls to hit."
    board = "grid"
    source = "002_25917d096fedcdff.txt"
    plan_steps = staticmethod(free_steps)
    grid_metric = "chebyshev"
    readings = (
        "A character at 0 HP is knocked out: it cannot act, and healing brings it back up.",
        "Recover may be used even while a status forbids actions (it is how one escapes Stun); it costs 1 "
        "standard action.",
        "A status counts down at the end of each of its bearer's own turns.",
    )
    carry_over = (
        HP_RESTORED,
        CarryOver(
            "Items",
            True,
            "An item used in battle is used up: the sheet keeps only what is left.",
            "items",
        ),
        CarryOver(
            "Statuses",
            False,
            "A status lasts its duration within a battle; what is left of it ends with the battle.",
        ),
    )

    # --- between battles ----------------------------------------------------------
    def carried_value(self, state: BattleState, c: Combatant, rule: CarryOver) -> Any:
        """Items: the sheet's list without one entry per use made in the battle."""
        if rule.field != "items":
            return None
        used = dict(c.extra.get("items_used", {}))
        left = []
        for key in c.sheet.get("items", ()):
            if used.get(key, 0) > 0:
                used[key] -= 1
            else:
                left.append(key)
        return left

    def stock(self, state: BattleState, c: Combatant) -> dict[str, tuple[int, int | None]]:
        """Items left of each kind brought (actions and the interrupt come back every turn)."""
        brought = list(c.sheet.get("items", ()))
        out: dict[str, tuple[int, int | None]] = {}
        for key in dict.fromkeys(brought):
            d = definition(state, "items", key)
            out[d["name"] if d else key] = (items_left(c, key), brought.count(key))
        return out

    def used_in_battle(self, state: BattleState, c: Combatant) -> list[str]:
        out = []
        for key, n in c.extra.get("items_used", {}).items():
            if n:
                d = definition(state, "items", key)
                out.append(f"{d['name'] if d else key} x{n}")
        return out

    # --- combatants and flow -------------------------------------------------------
    def init_combatant(self, sheet: dict[str, Any]) -> dict[str, Any]:
        hp = int(sheet.get("hp", 1))
        return {
            "hp": hp,
            "max_hp": hp,
            "resources": {"actions": ACTIONS_PER_TURN, "interrupt": 1},
            "extra": {},
        }

    def on_battle_start(self, ctx: Ctx) -> None:
        """LUCK-INIT-1/2: 1d20 + initiative score, ties by the higher score, then roll-offs."""
        order = roll_initiative(
            ctx, list(ctx.state.combatants), lambda c: "1d20", lambda c: int(c.sheet.get("initiative", 0))
        )
        ctx.emit("order.set", order=order)

    def on_round_start(self, ctx: Ctx) -> None:
        if ctx.state.options.get("interrupt_window") == "round":
            for c in ctx.state.combatants.values():
                if c.resources.get("interrupt", 0) < 1:
                    ctx.emit("resources.set", combatant=c.id, resources={"interrupt": 1})

    def on_turn_start(self, ctx: Ctx, c: Combatant) -> None:
        res = {"actions": ACTIONS_PER_TURN}
        if ctx.state.options.get("interrupt_window", "own_turn_cycle") == "own_turn_cycle":
            res["interrupt"] = 1
        ctx.emit("resources.set", combatant=c.id, resources=res)

    def on_turn_end(self, ctx: Ctx, c: Combatant) -> None:
        """LUCK-STAT-2: statuses tick down at the end of their bearer's turn and expire at 0."""
        count_down_statuses(ctx, c)
