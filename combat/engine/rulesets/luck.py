"""D20 Luck (source: seeds/002). Grid board, 2 standard actions per turn."""

from __future__ import annotations

from typing import Any

from combat.engine.rulesets.base import Ruleset, roll_initiative
from combat.engine.schema import Field, SheetSchema


class Luck(Ruleset):
    key = "luck"
    name = "D20 Luck"
    board = "grid"
    source = "002_25917d096fedcdff.txt"
    options = (
        Field("interrupt_window", "Interrupt once per", "choice", default="own_turn_cycle",
              choices=("own_turn_cycle", "round"), help="LUCK-ACT-4: once between two of one's own turns."),
        Field("status_power", "Status power", "choice", default="difference", choices=("difference", "roll"),
              help="LUCK-STAT-1: power of an applied status."),
        Field("recover_rule", "Recover", "choice", default="d20_vs_power", choices=("d20_vs_power", "automatic"),
              help="LUCK-STAT-3: Recover rolls 1d20 and removes the status if it meets its power."),
    )
    sheet_schema = SheetSchema((
        Field("hp", "Max HP", "int", min=1, max=9999, default=20),
        Field("initiative", "Initiative score", "int", min=-20, max=50, default=0),
        Field("armor", "Armor", "int", min=0, max=999, default=0),
        Field("resist", "Resist", "int", min=0, max=999, default=0),
        Field("movement", "Movement (squares per move)", "int", min=0, max=50, default=5),
        Field("luck_bonus", "Luck roll bonus", "int", min=-10, max=10, default=0),
        Field("crit_damage", "Crit damage multiplier", "int", min=2, max=5, default=2),
        Field("abilities", "Abilities", "list", required=False, default=[]),
    ))

    def init_combatant(self, sheet: dict[str, Any]) -> dict[str, Any]:
        hp = int(sheet.get("hp", 1))
        return {"hp": hp, "max_hp": hp, "resources": {"actions": 2, "interrupt": 1}, "extra": {}}

    def on_battle_start(self, ctx) -> None:
        """LUCK-INIT-1/2: 1d20 + initiative score, ties by the higher score, then roll-offs."""
        order = roll_initiative(ctx, list(ctx.state.combatants), lambda c: "1d20",
                                lambda c: int(c.sheet.get("initiative", 0)))
        ctx.emit("order.set", order=order)

    def on_turn_start(self, ctx, c) -> None:
        ctx.emit("resources.set", combatant=c.id, resources={"actions": 2})
