"""Mist & Rampart (source: seeds/000). Grid board, action slots, MP, ramparts.

Every round starts with MP gain and a fresh initiative roll (MIST-INIT-1,
MIST-MP-1). A turn has action slots and one free move that may be split;
actions are typed (move, simple, static, chain, finisher). Enemies leaving
or crossing an active rampart open a reaction window for its holder
(MIST-RAMP-*). The arithmetic lives in ``rules``, the content (abilities, statuses,
monsters, heroes) in ``content``, options and sheet in ``sheet``; action
resolution is in ``actions``.

Action kinds: ``move {path | to}``, ``double_move {}``, ``ability {ability,
targets | square}``, ``disengage {}``, ``rampart {on}``, ``end_turn {}``.

Where the source is silent: who rolls initiative (``initiative_rolls``) and
how often a rampart attacks one move (``rampart_attacks``) are options; the
other readings are the ``readings`` sentences the GM sees with the house rules.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from combat.engine.board import Square, square_key, steps_within, within
from combat.engine.rulesets.base import (
    HP_RESTORED,
    STATUSES_END,
    CarryOver,
    Ruleset,
    count_down_statuses,
    definitions,
)
from combat.engine.rulesets.mist import actions as mist_play
from combat.engine.rulesets.mist.actions import (
    MP_PER_INITIATIVE,
    blocked_by,
    can_act,
    movement,
    rampart_range,
    stat,
    turn_flags,
)
from combat.engine.rulesets.mist.content import (
    DEMO_PARTY,
    HEROES,
    KINDS,
    MONSTERS,
    STARTER,
    validate_mist_content,
)
from combat.engine.rulesets.mist.rules import initiative_order, resistance_errors
from combat.engine.rulesets.mist.sheet import OPTIONS, SHEET

if TYPE_CHECKING:
    from combat.engine.actions import ActionOption
    from combat.engine.context import Ctx
    from combat.engine.state import BattleState, Combatant

__all__ = ["DEMO_PARTY", "HEROES", "MONSTERS", "STARTER", "Mist"]


# --- appliers (event -> state, no dice) ---------------------------------------------------
def apply_turn_prepared(state: BattleState, d: dict[str, Any]) -> None:
    c = state.combatants[d["combatant"]]
    c.resources["slots"] = d["slots"]
    c.resources["move"] = d["move"]
    c.extra["turn"] = {
        "simple": False,
        "static": False,
        "move_action": False,
        "spent": False,
        "disengaged": False,
        "move_total": d["move"],
    }


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


def apply_move_doubled(state: BattleState, d: dict[str, Any]) -> None:
    c = state.combatants[d["actor"]]
    c.resources["move"] = d["move"]
    t = c.extra.setdefault("turn", {})
    t["spent"] = True
    t["move_total"] = t.get("move_total", 0) + d["gain"]


def apply_rampart_toggled(state: BattleState, d: dict[str, Any]) -> None:
    state.combatants[d["combatant"]].extra["rampart_on"] = bool(d["on"])


def apply_lp_lost(state: BattleState, d: dict[str, Any]) -> None:
    c = state.combatants[d["target"]]
    c.resources["lp"] = d["lp"]
    c.alive = d["alive"]


APPLIERS = {
    "turn.prepared": apply_turn_prepared,
    "ability.used": apply_ability_used,
    "move.doubled": apply_move_doubled,
    "rampart.toggled": apply_rampart_toggled,
    "lp.lost": apply_lp_lost,
}


class Mist(Ruleset):
    """The Mist & Rampart rules as an engine plugin."""

    key = "mist"
    name = "Mist & Rampart"
    board = "grid"
    source = "000_6696e0bb94cf9e52.txt"
    options = OPTIONS
    sheet_schema = SHEET
    actions = {
        "move": mist_play.act_move,
        "double_move": mist_play.act_double_move,
        "ability": mist_play.act_ability,
        "disengage": mist_play.act_disengage,
        "rampart": mist_play.act_rampart,
    }
    resume = staticmethod(mist_play.resume)
    grid_metric = "manhattan"
    appliers = APPLIERS
    content = STARTER
    heroes, monsters = HEROES, MONSTERS
    content_check = staticmethod(validate_mist_content)
    content_kinds = KINDS
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
            'The source: "If a character\'s LP reaches 0, they are Dead." It gives no way to '
            "win LP back: LP lost stays lost until the GM changes the sheet.",
            "lp_lost",
        ),
        CarryOver(
            "MP", False, 'The source: "Under normal circumstances, a character will begin combat with 0 MP."'
        ),
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

    def check_sheet_content(self, state: BattleState, sheet: dict[str, Any]) -> str | None:
        known = definitions(state, "abilities")
        unknown = [a for a in sheet.get("abilities", []) if a not in known]
        return f"Unknown abilities: {', '.join(unknown)}." if unknown else None

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
        ctx.emit(
            "turn.prepared",
            combatant=c.id,
            slots=int(c.sheet.get("action_slots", 3)),
            move=movement(ctx.state, c),
        )

    def on_turn_end(self, ctx: Ctx, c: Combatant) -> None:
        """Statuses count down at the end of their bearer's turn."""
        count_down_statuses(ctx, c)

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
            came_from, ends = (
                ({}, [])
                if reason
                else steps_within(
                    (c.pos[0], c.pos[1]),
                    left,
                    state.width,
                    state.height,
                    walls | enemies,
                    allies,
                    diagonal=False,
                )
            )
            if not reason and not ends:
                reason = "No free square in reach."
            opts.append(
                ActionOption(
                    "move",
                    f"Move (up to {left})",
                    {"move": 1},
                    squares=[list(s) for s in ends],
                    available=not reason,
                    reason=reason,
                    came_from=came_from,
                )
            )
        why = mist_play.double_move_problem(state, c)
        opts.append(
            ActionOption(
                "double_move", "Double move (all slots)", {"slots": slots}, available=not why, reason=why
            )
        )
        dis_type = state.options.get("disengage_type", "simple")
        cost = mist_play.slot_cost(c, dis_type, 1)
        dis_why = (
            "Already disengaged this turn."
            if t.get("disengaged")
            else mist_play.gate(state, c, dis_type, 1, 0, spell=False)
        )
        opts.append(
            ActionOption(
                "disengage",
                "Disengage",
                {"slots": cost if isinstance(cost, int) else 0},
                available=not dis_why,
                reason=dis_why or "",
            )
        )
        n = rampart_range(c)
        if n:
            on = bool(c.extra.get("rampart_on"))
            opts.append(
                ActionOption(
                    "rampart", f"Rampart {n}: turn {'off' if on else 'on'}", {}, params={"on": not on}
                )
            )
        defs = definitions(state, "abilities")
        for key in c.sheet.get("abilities", []):
            a = defs.get(key)
            if a is None:
                continue
            opts.append(self._ability_option(state, c, key, a, stuck, walls, allies, enemies))
        return opts

    def _ability_option(
        self,
        state: BattleState,
        c: Combatant,
        key: str,
        a: dict[str, Any],
        stuck: str | None,
        walls: set[Square],
        allies: set[Square],
        enemies: set[Square],
    ) -> ActionOption:
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
                squares = [
                    list(s)
                    for s in within(c.pos, a["range"], state.width, state.height, "manhattan")
                    if not (a["leap"] and (s in taken or list(s) == c.pos))
                ]
            else:
                targets = [
                    t.id
                    for t in state.combatants.values()
                    if mist_play.target_problem(state, c, t, a) is None
                ]
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
