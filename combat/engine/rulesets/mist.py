"""Mist & Rampart (source: seeds/000). Grid board, action slots, MP, ramparts.

Every round starts with MP gain and a fresh initiative roll (MIST-INIT-1,
MIST-MP-1). A turn has action slots and one free move that may be split;
actions are typed (move, simple, static, chain, finisher). Enemies leaving
or crossing an active rampart open a reaction window for its holder
(MIST-RAMP-*). The arithmetic lives in ``mist_rules``, the content (abilities,
statuses, monsters, heroes) in ``mist_content``; action resolution is in
``mist_play``.

Action kinds: ``move {path | to}``, ``double_move {}``, ``ability {ability,
targets | square}``, ``disengage {}``, ``rampart {on}``, ``end_turn {}``.

Readings where the source is silent (besides the house-rule options):
only conscious combatants roll initiative, every living one gains MP; heavy
armor without a named Rampart N grants Rampart 1; a rampart attack reaches
anywhere in the rampart (the ability's own range is not checked) and each
holder attacks at most once per move; a move action (Leap) needs the turn's
whole, untouched move; a hit reduced to 0 is no damage instance (no LP lost);
healing above 0 HP lifts KO; ``move {to}`` prefers a shortest path that
crosses no enemy rampart when one fits in the remaining move.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from combat.engine.board import reachable, within
from combat.engine.rulesets import mist_play
from combat.engine.rulesets.base import Ruleset, count_down_statuses
from combat.engine.rulesets.mist_content import HEROES, MONSTERS, STARTER, validate_mist_content
from combat.engine.rulesets.mist_play import (
    MP_PER_INITIATIVE,
    blocked_by,
    can_act,
    movement,
    pack,
    rampart_range,
    stat,
    turn_flags,
)
from combat.engine.rulesets.mist_rules import initiative_order, resistance_errors
from combat.engine.schema import Field, SheetSchema

if TYPE_CHECKING:
    from combat.engine.actions import ActionOption, Refusal
    from combat.engine.context import Ctx
    from combat.engine.state import BattleState, Combatant, Decision

__all__ = ["HEROES", "MONSTERS", "STARTER", "Mist"]


class Mist(Ruleset):
    """The Mist & Rampart rules as an engine plugin."""

    key = "mist"
    name = "Mist & Rampart"
    board = "grid"
    source = "000_6696e0bb94cf9e52.txt"
    options = (
        Field("initiative_die", "Initiative die", "choice", default="1d20",
              choices=("1d20", "1d10", "2d6", "1d100"), help="MIST-INIT-1"),
        Field("disengage_type", "Disengage action type", "choice", default="simple",
              choices=("simple", "static"), help="MIST-RAMP-4"),
        Field("accuracy_adds_d100", "Accuracy check adds 1d100", "bool", default=True,
              help="MIST-HIT-1: off = Accuracy alone must meet Evasion."),
        Field("weakness_multiplier", "Weakness damage multiplier", "int", default=2, min=1, max=5,
              help="MIST-DMG-2: applied after reduction."),
    )
    sheet_schema = SheetSchema((
        Field("hp", "Max HP", "int", min=1, max=99999, default=100),
        Field("lp", "Max LP", "int", min=1, max=99, default=3),
        Field("mp_gain", "MP Gain", "int", min=0, max=99, default=0),
        Field("initiative", "Initiative bonus", "int", min=-50, max=100, default=0),
        Field("accuracy", "Accuracy", "int", min=-100, max=999, default=50),
        Field("evasion", "Evasion", "int", min=0, max=999, default=60),
        Field("defense", "DEF", "int", min=0, max=9999, default=10),
        Field("magic_defense", "MDF", "int", min=0, max=9999, default=10),
        Field("res", "RES", "int", min=0, max=999, default=30),
        Field("spi", "SPI", "int", min=0, max=999, default=30),
        Field("dex", "DEX", "int", min=0, max=999, default=30),
        Field("mnd", "MND", "int", min=0, max=999, default=30),
        Field("speed", "Speed", "int", min=0, max=999, default=10),
        Field("movement", "Movement", "int", min=0, max=50, default=4),
        Field("action_slots", "Action slots", "int", min=1, max=10, default=3),
        Field("heavy_armor", "Wears heavy armor", "bool", required=False, default=False),
        Field("rampart", "Rampart range (0 = none)", "int", min=0, max=10, default=0),
        Field("attack", "Physical damage bonus", "int", required=False, min=-999, max=999, default=0),
        Field("magic", "Magical damage and healing bonus", "int", required=False, min=-999, max=999, default=0),
        Field("conscious_at_ko", "Stays conscious when KO", "bool", required=False, default=False),
        Field("resistances", "Element resistances (element:amount, ...)", "str", required=False, default=""),
        Field("weaknesses", "Element weaknesses (comma separated)", "str", required=False, default=""),
        Field("abilities", "Abilities", "list", required=False, default=[]),
    ))
    actions = {
        "move": "act_move",
        "double_move": "act_double_move",
        "ability": "act_ability",
        "disengage": "act_disengage",
        "rampart": "act_rampart",
    }
    appliers = {
        "turn.prepared": "apply_turn_prepared",
        "ability.used": "apply_ability_used",
        "move.doubled": "apply_move_doubled",
        "rampart.toggled": "apply_rampart_toggled",
        "lp.lost": "apply_lp_lost",
    }
    content = STARTER
    content_check = staticmethod(validate_mist_content)

    # --- sheets and content (ENG-10) -------------------------------------------------
    @classmethod
    def validate_sheet(cls, data: Any) -> tuple[dict[str, Any], dict[str, list[str]]]:
        clean, errors = cls.sheet_schema.validate(data)
        if isinstance(data, dict) and isinstance(data.get("resistances"), str):
            problems = resistance_errors(data["resistances"])
            if problems:
                errors.setdefault("resistances", []).extend(problems)
        return clean, errors

    def check_sheet_content(self, state: BattleState, sheet: dict[str, Any]) -> str | None:
        known = pack(state)["abilities"]
        unknown = [a for a in sheet.get("abilities", []) if a not in known]
        return f"Unknown abilities: {', '.join(unknown)}." if unknown else None

    def status_keys(self, state: BattleState) -> set[str]:
        return set(pack(state)["statuses"])

    # --- combatants -------------------------------------------------------------------
    def init_combatant(self, sheet: dict[str, Any]) -> dict[str, Any]:
        """MIST-MP-1: combat starts with 0 MP; LP from the sheet."""
        hp = int(sheet.get("hp", 1))
        return {"hp": hp, "max_hp": hp, "extra": {"rampart_on": False},
                "resources": {"mp": 0, "lp": int(sheet.get("lp", 1)), "slots": 0, "move": 0}}

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
                ctx.emit("resources.set", combatant=c.id, resources={"mp": c.resources.get("mp", 0) + gain},
                         reason="mp gain", gain=gain)
        die = state.options.get("initiative_die", "1d20")
        totals: dict[str, int] = {}
        speeds: dict[str, int] = {}
        for c in state.combatants.values():
            if not can_act(c):
                continue
            bonus = stat(state, c, "initiative")
            totals[c.id] = ctx.roll(die, "initiative").total + bonus
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
        ctx.emit("turn.prepared", combatant=c.id, slots=int(c.sheet.get("action_slots", 3)),
                 move=movement(ctx.state, c))

    def on_turn_end(self, ctx: Ctx, c: Combatant) -> None:
        """Statuses count down at the end of their bearer's turn."""
        count_down_statuses(ctx, c)

    # --- appliers (event -> state, no dice) -------------------------------------------
    @staticmethod
    def apply_turn_prepared(state: BattleState, d: dict[str, Any]) -> None:
        c = state.combatants[d["combatant"]]
        c.resources["slots"] = d["slots"]
        c.resources["move"] = d["move"]
        c.extra["turn"] = {"simple": False, "static": False, "move_action": False, "spent": False,
                           "disengaged": False, "move_total": d["move"]}

    @staticmethod
    def apply_ability_used(state: BattleState, d: dict[str, Any]) -> None:
        if d.get("reaction"):
            return
        c = state.combatants[d["actor"]]
        t = c.extra.setdefault("turn", {})
        kind = d.get("action_type")
        if kind in ("simple", "static"):
            t[kind] = True
        elif kind == "move":
            t["move_action"] = True
        if d.get("spend", {}).get("slots"):
            t["spent"] = True
        if d.get("disengage"):
            t["disengaged"] = True

    @staticmethod
    def apply_move_doubled(state: BattleState, d: dict[str, Any]) -> None:
        c = state.combatants[d["actor"]]
        c.resources["move"] = d["move"]
        t = c.extra.setdefault("turn", {})
        t["spent"] = True
        t["move_total"] = t.get("move_total", 0) + d["gain"]

    @staticmethod
    def apply_rampart_toggled(state: BattleState, d: dict[str, Any]) -> None:
        state.combatants[d["combatant"]].extra["rampart_on"] = bool(d["on"])

    @staticmethod
    def apply_lp_lost(state: BattleState, d: dict[str, Any]) -> None:
        c = state.combatants[d["target"]]
        c.resources["lp"] = d["lp"]
        c.alive = d["alive"]

    # --- actions (resolution lives in mist_play) ----------------------------------------
    def act_move(self, ctx: Ctx, c: Combatant, action) -> Refusal | None:
        return mist_play.act_move(ctx, c, action)

    def act_double_move(self, ctx: Ctx, c: Combatant, action) -> Refusal | None:
        return mist_play.act_double_move(ctx, c, action)

    def act_ability(self, ctx: Ctx, c: Combatant, action) -> Refusal | None:
        return mist_play.act_ability(ctx, c, action)

    def act_disengage(self, ctx: Ctx, c: Combatant, action) -> Refusal | None:
        return mist_play.act_disengage(ctx, c, action)

    def act_rampart(self, ctx: Ctx, c: Combatant, action) -> Refusal | None:
        return mist_play.act_rampart(ctx, c, action)

    def resume(self, ctx: Ctx, decision: Decision, choice: str) -> Refusal | None:
        return mist_play.resume(ctx, decision, choice)

    # --- ENG-5 -------------------------------------------------------------------------------
    def legal_actions(self, state: BattleState, c: Combatant) -> list[ActionOption]:
        from combat.engine.actions import ActionOption

        opts: list[ActionOption] = []
        t = turn_flags(c)
        slots = c.resources.get("slots", 0)
        left = c.resources.get("move", 0)
        stuck = blocked_by(state, c, "movement")
        walls, allies, enemies = mist_play.obstacles(state, c)
        if c.pos is not None:
            reason = mist_play.move_problem(state, c)
            squares = [] if reason else sorted(reachable(tuple(c.pos), left, state.width, state.height,
                                                         walls | enemies, allies, diagonal=False))
            if not reason and not squares:
                reason = "No free square in reach."
            opts.append(ActionOption("move", f"Move (up to {left})", {"move": 1},
                                     squares=[list(s) for s in squares], available=not reason, reason=reason))
        why = mist_play.double_move_problem(state, c)
        opts.append(ActionOption("double_move", "Double move (all slots)", {"slots": slots},
                                 available=not why, reason=why))
        dis_type = state.options.get("disengage_type", "simple")
        cost = mist_play.slot_cost(c, dis_type, 1)
        why = ("Already disengaged this turn." if t.get("disengaged") else
               mist_play.gate(state, c, dis_type, 1, 0, spell=False))
        opts.append(ActionOption("disengage", "Disengage", {"slots": cost if isinstance(cost, int) else 0},
                                 available=not why, reason=why or ""))
        n = rampart_range(c)
        if n:
            on = bool(c.extra.get("rampart_on"))
            opts.append(ActionOption("rampart", f"Rampart {n}: turn {'off' if on else 'on'}", {},
                                     params={"on": not on}))
        defs = pack(state)["abilities"]
        for key in c.sheet.get("abilities", []):
            a = defs.get(key)
            if a is None:
                continue
            opts.append(self._ability_option(state, c, key, a, stuck, walls, allies, enemies))
        return opts

    def _ability_option(self, state: BattleState, c: Combatant, key: str, a: dict[str, Any], stuck: str | None,
                        walls: set, allies: set, enemies: set) -> ActionOption:
        from combat.engine.actions import ActionOption

        cost = mist_play.slot_cost(c, a["type"], a["cost"])
        why = mist_play.gate(state, c, a["type"], a["cost"], a["mp"], spell=a["spell"])
        if not why and a["leap"]:
            why = mist_play.move_problem(state, c, leap=True)
        targets: list[str] = []
        squares: list[list[int]] = []
        if not why and c.pos is not None:
            if a["target"] == "square":
                taken = walls | allies | enemies
                squares = [list(s) for s in within(c.pos, a["range"], state.width, state.height, "manhattan")
                           if not (a["leap"] and (s in taken or list(s) == c.pos))]
            else:
                targets = [t.id for t in state.combatants.values()
                           if mist_play.target_problem(state, c, t, a) is None]
            if not targets and not squares:
                why = "No target in range."
        label = a["name"] + (f" ({a['mp']} MP)" if a["mp"] else "")
        price = {"slots": cost if isinstance(cost, int) else 0, **({"mp": a["mp"]} if a["mp"] else {})}
        return ActionOption("ability", label, price,
                            targets=targets, squares=squares, available=not why, reason=why or "",
                            params={"ability": key})

