"""Mist & Rampart (source: seeds/000). Grid board, action slots, MP, ramparts.

Every round starts with MP gain and a fresh initiative roll (MIST-INIT-1,
MIST-MP-1). A turn has action slots and one free move that may be split;
actions are typed (move, simple, static, chain, finisher). Enemies leaving
or crossing an active rampart open a reaction window for its holder
(MIST-RAMP-*). The package has the modules every ruleset has
(``rulesets/README.md``): the rules in ``rules``, the content (abilities,
statuses, monsters, heroes) in ``content``, options and sheet in ``sheet``,
action resolution and the options of ENG-5 in ``actions``, its events in
``events``.

Action kinds: ``move {path | to}``, ``double_move {}``, ``ability {ability,
targets | square}``, ``disengage {}``, ``rampart {on}``, ``end_turn {}``.

Where the source is silent: who rolls initiative (``initiative_rolls``) and
how often a rampart attacks one move (``rampart_attacks``) are options; the
other readings are the ``readings`` sentences the GM sees with the house rules.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from combat.engine.rulesets.base import HP_RESTORED, STATUSES_END, CarryOver, Ruleset, count_down_statuses
from combat.engine.rulesets.mist import actions, content, events, sheet, tactics
from combat.engine.rulesets.mist.content import (
    DEMO_PARTY,
    HEROES,
    MONSTERS,
    STARTER,
)
from combat.engine.rulesets.mist.rules import (
    MP_PER_INITIATIVE,
    can_act,
    initiative_order,
    movement,
    resistance_errors,
    stat,
)
from combat.engine.rulesets.wiring import wired

if TYPE_CHECKING:
    from combat.engine.context import Ctx
    from combat.engine.state import BattleState, Combatant

__all__ = ["DEMO_PARTY", "HEROES", "MONSTERS", "STARTER", "Mist"]


@wired(sheet, content, actions, events, tactics, check=content.validate_mist_content)
class Mist(Ruleset):
    """The Mist & Rampart rules as an engine plugin."""

    key = "mist"
    name = "Mist & Rampart"
    summary = "Fantasy tactics on a grid: actions, magic points, guarding ramparts."
    board = "grid"
    source = "000_6696e0bb94cf9e52.txt"
    plan_boosts = ("double_move",)  # MIST-MOVE-2: spending every slot doubles the move
    grid_metric = "manhattan"
    readings = (
        "Every living combatant gains MP at the start of a round, knocked out or not.",
        "Heavy armor without a named Rampart grants Rampart 1.",
        "A rampart attack reaches anywhere in the rampart: the ability's own range is not checked.",
        "A move action (Leap) needs the turn's whole, untouched move.",
        "A hit reduced to 0 damage is no damage at all: a knocked-out character loses no LP from it.",
        "Healing a knocked-out character above 0 HP wakes them.",
        "A move to a square takes a shortest path that crosses no enemy rampart when one fits in the move left.",
    )
    carry_over = (
        CarryOver(
            "LP",
            True,
            "A character whose LP reaches 0 is dead. LP lost stays lost until the GM changes the sheet.",
            "lp_lost",
        ),
        CarryOver("MP", False, "Every battle starts at 0 MP."),
        HP_RESTORED,
        STATUSES_END,
    )

    # --- between battles --------------------------------------------------------------
    def carried_value(self, state: BattleState, c: Combatant, rule: CarryOver) -> Any:
        """LP: how many the character is short of its Max LP at the end of the battle."""
        if rule.field != "lp_lost":
            return None
        return max(0, int(c.sheet.get("lp", 1)) - int(c.resources.get("lp", 0)))

    # --- sheets and content (ENG-10) -------------------------------------------------
    @classmethod
    def validate_sheet(cls, data: Any) -> tuple[dict[str, Any], dict[str, list[str]]]:
        clean, errors = cls.sheet_schema.validate(data)
        if isinstance(data, dict) and isinstance(data.get("resistances"), str):
            problems = resistance_errors(data["resistances"])
            if problems:
                errors.setdefault("resistances", []).extend(problems)
        return clean, errors

    # --- combatants -------------------------------------------------------------------
    def init_combatant(self, sheet: dict[str, Any]) -> dict[str, Any]:
        """MIST-MP-1: combat starts with 0 MP; LP from the sheet, less what earlier battles took."""
        hp = int(sheet.get("hp", 1))
        lp = max(0, int(sheet.get("lp", 1)) - int(sheet.get("lp_lost", 0) or 0))
        return {
            "hp": hp,
            "max_hp": hp,
            "extra": {"rampart_on": False},
            "resources": {"mp": 0, "lp": lp, "slots": 0, "move": 0},
        }

    def stock(self, state: BattleState, c: Combatant) -> dict[str, tuple[int, int | None]]:
        """MP (gained each round, never refilled) and LP (action slots and the move come back each turn)."""
        return {
            "MP": (int(c.resources.get("mp", 0)), None),
            "LP": (int(c.resources.get("lp", 0)), int(c.sheet.get("lp", 1))),
        }

    def can_take_turn(self, state: BattleState, c: Combatant) -> bool:
        return can_act(c)

    def check_victory(self, state: BattleState) -> dict[str, Any] | None:
        able = {c.side for c in state.combatants.values() if can_act(c)}
        sides = {c.side for c in state.combatants.values()}
        if len(sides) < 2 or len(able) > 1:
            return None
        winner = next(iter(able), None)
        reason = f"Only the {winner} side can still act." if winner else "No one can act."
        return {"winner": winner, "reason": reason, "by": "rules"}

    # --- flow ------------------------------------------------------------------------------
    def on_battle_start(self, ctx: Ctx) -> None:
        """Nothing: initiative is rolled at the start of every round, the first included."""

    def on_round_start(self, ctx: Ctx) -> None:
        """MIST-MP-1 then MIST-INIT-1/2: MP gain, initiative die + bonus, ties by Speed then roll-offs."""
        state = ctx.state
        for c in state.combatants.values():
            if c.alive:
                gain = MP_PER_INITIATIVE + int(c.sheet.get("mp_gain", 0) or 0)
                ctx.emit(
                    "resources.set",
                    combatant=c.id,
                    resources={"mp": c.resources.get("mp", 0) + gain},
                    reason="mp gain",
                    gain=gain,
                )
        die = state.options.get("initiative_die", "1d20")
        totals: dict[str, int] = {}
        speeds: dict[str, int] = {}
        everyone = state.options.get("initiative_rolls") == "living"
        for c in state.combatants.values():
            if not (c.alive if everyone else can_act(c)):
                continue
            bonus = stat(state, c, "initiative")
            totals[c.id] = ctx.roll(die, "initiative", adds=[(bonus, "Initiative")]).result
            speeds[c.id] = int(c.sheet.get("speed", 0) or 0)
            ctx.emit("initiative.rolled", combatant=c.id, bonus=bonus, total=totals[c.id], speed=speeds[c.id])

        def roll_off(ids: list[str]) -> dict[str, int]:
            out = {}
            for cid in ids:
                out[cid] = ctx.roll("1d20", "initiative roll-off").total
                ctx.emit("initiative.rolloff", combatant=cid, total=out[cid])
            return out

        ctx.emit("order.set", order=initiative_order(totals, speeds, roll_off))

    def on_turn_start(self, ctx: Ctx, c: Combatant) -> None:
        """MIST-SLOT-1 / MIST-MOVE-1: fresh action slots and the free move."""
        ctx.emit(
            "turn.prepared",
            combatant=c.id,
            slots=int(c.sheet.get("action_slots", 3)),
            move=movement(ctx.state, c),
        )

    def on_turn_end(self, ctx: Ctx, c: Combatant) -> None:
        """Statuses count down at the end of their bearer's turn."""
        count_down_statuses(ctx, c)
