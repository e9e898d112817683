"""Paradigm Rows (source: seeds/001 and seeds/003). Front and back rows per side.

Rounds of three phases (PARA-ROUND-1): the Action Phase (turns in
initiative order, PARA-INIT-1), the Effect Phase (PARA-EFF-1, advancing
PARA-ADV-1/2, fleeing characters leave) and the Paradigm Phase (job
switches, antagonists first: PARA-JOB-1/2); round 1 starts with an extra
Paradigm Phase. Turns spend AP by tier (PARA-AP-1/2) on the actions of
PARA-ACT-*; eidolons follow PARA-EID-1..5. The package has the modules every
ruleset has (``rulesets/README.md``): rules reading the state in ``rules``,
actions, ``resume`` and the options of ENG-5 in ``actions``, its events in
``events``, content (ENG-10) in ``content``, options and sheet in ``sheet``;
and two of its own: what an effect does in ``effects``, the phases in ``phases``.

Action kinds: ``attack {targets}``, ``ability {ability, targets?}``,
``item {item, targets?}``, ``change_row {}``, ``hold {targets}``,
``interact {object}``, ``swap {slot, equip}``, ``flee {}``, ``summon {}``,
``end_turn {}``.

Readings where the source is silent are the house-rule options and the
``readings`` sentences the GM sees with the house rules.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from combat.engine.dice import check_expr
from combat.engine.rulesets.base import (
    HP_RESTORED,
    STATUSES_END,
    CarryOver,
    Ruleset,
    definition,
    roll_initiative,
)
from combat.engine.rulesets.paradigm import actions, content, events, phases, sheet, tactics
from combat.engine.rulesets.paradigm.content import (
    DEMO_PARTY,
    HEROES,
    MONSTERS,
    STARTER,
)
from combat.engine.rulesets.paradigm.rules import able, ap_per_turn, inventory, job_key, shielded
from combat.engine.rulesets.wiring import wired

if TYPE_CHECKING:
    from combat.engine.context import Ctx
    from combat.engine.state import BattleState, Combatant

__all__ = ["DEMO_PARTY", "HEROES", "MONSTERS", "STARTER", "Paradigm"]


@wired(sheet, content, actions, events, tactics, check=content.validate_paradigm_content)
class Paradigm(Ruleset):
    """The Paradigm Rows rules as an engine plugin."""

    key = "paradigm"
    name = "Paradigm Rows"
    summary = "No map: two rows a side, action points, roles switched each round."
    board = "rows"
    source = "001_0762b94f804b6465.txt"
    plan_moves = ("change_row",)  # PARA-ACT-MOVE: a move is a change of row
    readings = (
        "A character at 0 HP is down: no turns, and healing brings them back up.",
        "A status lasts its duration in Effect Phases; Stun leaves only End Turn.",
        "Ability damage adds the user's attack bonus (physical) or magic bonus, and is reduced by DEF or MDEF.",
        "A status ability always lands.",
        "The party inventory is every item the side's characters brought.",
        "An eidolon takes a turn right after its summoner's; the summoner's own turn, and every ally's, is "
        "skipped while it is out.",
        "The eidolon's upkeep is paid automatically when the summoner has the Anima.",
        "A complex interaction needs a full turn's AP each time.",
        "A held turn is an extra place in the order, removed once used.",
    )
    carry_over = (
        CarryOver(
            "Anima",
            True,
            "Anima left at the end of a battle carries to the next one, unless the house rule "
            '"Anima after a battle" brings it back to the sheet\'s Anima.',
            "anima",
        ),
        HP_RESTORED,
        STATUSES_END,
    )

    # --- between battles -----------------------------------------------------------------
    def after_battle(self, state: BattleState, c: Combatant) -> list[tuple[CarryOver, Any]]:
        """Anima carries or is restored by the ``anima_after_battle`` house rule."""
        carry = state.options.get("anima_after_battle", "carry") == "carry"
        anima = CarryOver("Anima", carry, self.carry_over[0].why, "anima")
        value = int(c.resources.get("anima", 0)) if carry else int(c.sheet.get("anima", 0))
        return [(anima, value), *((rule, None) for rule in self.carry_over[1:])]

    # --- sheets and content (ENG-10) -------------------------------------------------------
    @classmethod
    def validate_sheet(cls, data: Any) -> tuple[dict[str, Any], dict[str, list[str]]]:
        clean, errors = cls.sheet_schema.validate(data)
        if "weapon_damage" in clean:
            msg = check_expr(clean["weapon_damage"])
            if msg:
                errors.setdefault("weapon_damage", []).append(msg)
        return clean, errors

    def check_sheet_content(self, state: BattleState, sheet: dict[str, Any]) -> str | None:
        """Every content a sheet names must be defined; a job may be written by its name ("Black Mage")."""
        jobs = {"job": job_key(sheet.get("job")), "jobs": [job_key(j) for j in sheet.get("jobs", ())]}
        return super().check_sheet_content(state, {**sheet, **jobs})

    # --- combatants and flow -----------------------------------------------------------------
    def init_combatant(self, sheet: dict[str, Any]) -> dict[str, Any]:
        hp = int(sheet.get("hp", 1))
        return {
            "hp": hp,
            "max_hp": hp,
            "resources": {"ap": 0, "anima": int(sheet.get("anima", 0))},
            "extra": {
                "job": job_key(sheet.get("job")),
                "weapon": sheet.get("weapon", ""),
                "accessory": sheet.get("accessory", ""),
                "gear": list(sheet.get("gear", ())),
            },
        }

    def stock(self, state: BattleState, c: Combatant) -> dict[str, tuple[int, int | None]]:
        """Anima, for a character who has any (AP come back each turn)."""
        top = int(c.sheet.get("anima", 0))
        return {"Anima": (int(c.resources.get("anima", 0)), top)} if top > 0 else {}

    def side_stock(self, state: BattleState, side: str) -> dict[str, tuple[int, int | None]]:
        """The side's shared items, each kind brought with how many are left (PARA-ACT-ITEM)."""
        brought: dict[str, int] = {}
        for c in state.combatants.values():
            if c.side == side:
                for key in c.sheet.get("items", ()):
                    brought[key] = brought.get(key, 0) + 1
        left = inventory(state, side)
        out: dict[str, tuple[int, int | None]] = {}
        for key, n in sorted(brought.items()):
            d = definition(state, "items", key)
            out[d["name"] if d else key] = (left.get(key, 0), n)
        return out

    def can_take_turn(self, state: BattleState, c: Combatant) -> bool:
        """Able, not fleeing, and not waiting behind an ally's eidolon (PARA-EID-1)."""
        return able(c) and not c.extra.get("fleeing") and not shielded(state, c)

    def check_victory(self, state: BattleState) -> dict[str, Any] | None:
        """ENG-9; PARA-ACT-FLEE: when every player character has fled, the battle ends without XP."""
        pcs = [c for c in state.combatants.values() if c.side == "party" and c.kind == "pc"]
        if pcs and all(c.extra.get("fled") for c in pcs):
            return {
                "winner": None,
                "reason": "Every player character fled: no XP or items.",
                "by": "rules",
                "fled": True,
                "xp": False,
            }
        able_sides = {c.side for c in state.combatants.values() if able(c)}
        if len(able_sides) > 1:
            return None
        winner = next(iter(able_sides), None)
        reason = f"Only the {winner} side can still act." if winner else "No one can act."
        return {"winner": winner, "reason": reason, "by": "rules"}

    def on_battle_start(self, ctx: Ctx) -> None:
        """PARA-INIT-1: initiative die + bonus, ties by the higher bonus, then roll-offs."""
        die = ctx.state.options.get("initiative_die", "1d20")
        order = roll_initiative(
            ctx, list(ctx.state.combatants), lambda c: die, lambda c: int(c.sheet.get("initiative", 0))
        )
        ctx.emit("order.set", order=order)

    def on_round_start(self, ctx: Ctx) -> None:
        phases.round_start(ctx)

    def on_round_end(self, ctx: Ctx) -> None:
        phases.round_end(ctx)

    def on_turn_start(self, ctx: Ctx, c: Combatant) -> None:
        """PARA-AP-1 (AP by tier), a held turn's 1 AP (PARA-ACT-HOLD), an eidolon's first AP (PARA-EID-2)."""
        state = ctx.state
        held = c.extra.get("turn_round") == state.round
        carry = c.extra.get("carry_ap")
        ap = 1 if held else carry if carry is not None else ap_per_turn(c.sheet)
        ctx.emit("turn.prepared", combatant=c.id, ap=ap, held=held, round=state.round)
        if ap <= 0:
            ctx.end_turn()

    def on_turn_end(self, ctx: Ctx, c: Combatant) -> None:
        """PARA-ACT-END: remaining AP is lost; a used held-turn slot leaves the order."""
        state = ctx.state
        if c.resources.get("ap", 0) > 0:
            ctx.emit("resources.set", combatant=c.id, resources={"ap": 0}, reason="turn ended")
        i = state.turn
        if c.extra.get("held_turn") and 0 < i < len(state.order) and c.id in state.order[:i]:
            order = state.order[:i] + state.order[i + 1 :]
            ctx.emit("order.set", order=order, turn=i - 1)
