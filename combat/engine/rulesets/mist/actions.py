"""Mist & Rampart action resolution: moves, abilities, ramparts, reaction windows, options.

Each ``act_*`` validates everything first and emits nothing when it refuses
(ENG-4). Moves that leave a square inside an enemy's active rampart pause
with a decision addressed to the rampart's holder (MIST-RAMP-2/3, ENG-6);
``resume`` resolves the chosen Chain 1 attack, then walks on.
``legal_actions`` lists the options (ENG-5), ``ACTIONS`` is the dispatch
table and ``PARAMS`` the parameters of Mist's own action kinds.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypedDict

from combat.engine.actions import ActionOption, NoParams, Refusal, RefusalCode
from combat.engine.board import Square, as_square, find_path, manhattan, within
from combat.engine.rulesets.base import blocked_by, definitions
from combat.engine.rulesets.mist.effects import effects
from combat.engine.rulesets.mist.options import ability_option, disengage_option, move_option
from combat.engine.rulesets.mist.rules import (
    can_act,
    double_move_problem,
    gate,
    move_problem,
    movement,
    path_problem,
    rampart_provocations,
    rampart_range,
    slot_cost,
    target_problem,
    terrain,
    turn_flags,
)
from combat.engine.words import count, square

if TYPE_CHECKING:
    from combat.engine.actions import Action
    from combat.engine.context import Ctx
    from combat.engine.state import BattleState, Combatant, Decision

MAX_PATH = 200


# --- moving, with rampart attacks ---------------------------------------------------------------


def _parse_path(state: BattleState, c: Combatant, p: dict[str, Any]) -> list[tuple[int, int]] | Refusal:
    walls, allies, enemies = terrain(state, c)
    start = c.square
    if p.get("path") is not None:
        raw = p["path"]
        if not isinstance(raw, list) or not raw or len(raw) > MAX_PATH:
            return Refusal("Give the path as a list of squares.")
        path = []
        for step in raw:
            sq = as_square(step, state.width, state.height)
            if sq is None:
                return Refusal(f"Square {step!r} is not on the board.")
            path.append(sq)
        if path[0] == start:
            path = path[1:]
    elif p.get("to") is not None:
        goal = as_square(p["to"], state.width, state.height)
        if goal is None:
            return Refusal("That square is not on the board.")
        found = _quiet_path(state, c, start, goal, walls | enemies)
        if found is None:
            return Refusal(f"{c.name} cannot reach that square this turn.")
        path = found[1:]
    else:
        return Refusal("Choose where to move.")
    problem = path_problem(
        path, start, width=state.width, height=state.height, blocked=walls, allies=allies, enemies=enemies
    )
    return Refusal(problem) if problem else path


def _quiet_path(
    state: BattleState, c: Combatant, start: tuple[int, int], goal: tuple[int, int], blocked: set[Square]
) -> list[tuple[int, int]] | None:
    """A shortest path to ``goal``, preferring one that crosses no enemy rampart square on the way."""
    limit = c.resources.get("move", 0)
    zones, holders = _zones(state, c) if not turn_flags(c).get("disengaged") else ({}, {})
    if zones:
        risky = {
            sq
            for hid, n in zones.items()
            for sq in within(holders[hid], n, state.width, state.height, "manhattan")
        }
        risky -= {start, goal}
        found = find_path(
            start, goal, state.width, state.height, blocked | risky, max_steps=limit, diagonal=False
        )
        if found is not None:
            return found
    return find_path(start, goal, state.width, state.height, blocked, max_steps=limit, diagonal=False)


def act_move(ctx: Ctx, c: Combatant, action: Action) -> Refusal | None:
    """MIST-MOVE-1/3: spend squares of the free move along a path of cardinal steps."""
    problem = move_problem(ctx.state, c)
    if problem:
        return Refusal(problem)
    path = _parse_path(ctx.state, c, action.params)
    if isinstance(path, Refusal):
        return path
    left = c.resources.get("move", 0)
    if len(path) > left:
        return Refusal(f"That is {count(len(path), 'square')}; {c.name} has {left} left this turn.")
    walk(ctx, c.id, [list(s) for s in path], [], spend=True)
    return None


def _zones(state: BattleState, mover: Combatant) -> tuple[dict[str, int], dict[str, list[int]]]:
    zones, holders = {}, {}
    for h in state.combatants.values():
        if h.side != mover.side and h.extra.get("rampart_on") and h.pos is not None and can_act(h):
            n = rampart_range(h)
            if n and not blocked_by(state, h, "actions"):
                zones[h.id], holders[h.id] = n, h.pos
    return zones, holders


def reaction_options(state: BattleState, holder: Combatant, mover: Combatant) -> list[dict[str, str]]:
    """MIST-RAMP-3: the holder's Chain 1 abilities usable against the mover (range is the rampart's)."""
    defs = definitions(state, "abilities")
    out = []
    for key in holder.sheet.get("abilities", []):
        a = defs.get(key)
        if (
            a is None
            or a["type"] != "chain"
            or a["cost"] != 1
            or a["target"] not in ("enemy", "any")
            or a["mp"] > holder.resources.get("mp", 0)
            or a["leap"]
        ):
            continue
        if a["spell"] and blocked_by(state, holder, "spells"):
            continue
        out.append({"key": key, "label": a["name"] + (f" ({a['mp']} MP)" if a["mp"] else "")})
    return out


def walk(ctx: Ctx, mover_id: str, path: list[list[int]], done: list[str], spend: bool) -> None:
    """Move along ``path``; pause at the first square whose leaving provokes a rampart attack."""
    state = ctx.state
    mover = state.combatants[mover_id]
    once = state.options.get("rampart_attacks", "once_per_move") == "once_per_move"
    provs: list[tuple[int, str]] | None = [] if turn_flags(mover).get("disengaged") else None
    if provs is None:
        zones, holders = _zones(state, mover)
        provs = rampart_provocations(mover.square, path, zones, holders, done, once) if zones else []
    incoming = list(done)
    for n, (index, hid) in enumerate(provs):
        holder = state.combatants[hid]
        options = reaction_options(state, holder, mover)
        # Who has had their chance: this move (once per move), or this square (every square).
        done = (
            done + [hid]
            if once
            else (incoming if index == 0 else []) + [h for i, h in provs[: n + 1] if i == index]
        )
        if not options:
            continue
        if index:
            _step(ctx, mover, path[:index], spend)
        at = list(mover.square)
        options.append({"key": "pass", "label": "Let them pass"})
        resume = {
            "type": "rampart",
            "mover": mover_id,
            "path": path[index:],
            "done": done,
            "spend": spend,
            "fallback": _fallback(state, mover, path[:index]),
        }
        ctx.open_decision(
            hid,
            f"{mover.name} is leaving your rampart at {square(at)}. Attack {mover.name}?",
            options,
            options[0]["key"],
            trigger=f"{mover.name} leaves {holder.name}'s rampart",
            resume=resume,
            about=f"whether to attack {mover.name} leaving the rampart",
            usual=f"{mover.name} walks out of its rampart",
        )
        return
    _step(ctx, mover, path, spend)


def _step(ctx: Ctx, mover: Combatant, path: list[list[int]], spend: bool) -> None:
    if not path:
        return
    data: dict[str, Any] = {"combatant": mover.id, "path": [list(mover.square)] + path, "to": list(path[-1])}
    if spend:
        data["actor"], data["spend"] = mover.id, {"move": len(path)}
    ctx.emit("moved", **data)


def _fallback(state: BattleState, mover: Combatant, walked: list[list[int]]) -> list[int]:
    """Where the mover stops if felled mid-move: the last square walked that no one else holds."""
    for sq in reversed([list(mover.square)] + walked):
        other = state.occupant(sq)
        if other is None or other.id == mover.id:
            return sq
    return list(mover.square)


def resume(ctx: Ctx, decision: Decision, choice: str) -> Refusal | None:
    """After a rampart reaction: resolve the chosen attack, then walk on if the mover still can."""
    r = decision.resume
    if r.get("type") != "rampart":
        return None
    state = ctx.state
    holder = state.combatants.get(decision.combatant)
    mover = state.combatants.get(r["mover"])
    if mover is None:
        return None
    if (
        holder is not None
        and can_act(holder)
        and choice != "pass"
        and any(o["key"] == choice for o in reaction_options(state, holder, mover))
    ):
        a = definitions(state, "abilities")[choice]
        ctx.emit(
            "ability.used",
            actor=holder.id,
            ability=choice,
            name=a["name"],
            action_type=a["type"],
            reaction=True,
            targets=[mover.id],
            **({"spend": {"mp": a["mp"]}} if a["mp"] else {}),
        )
        effects(ctx, holder, mover, a)
    mover = state.combatants[r["mover"]]
    if can_act(mover) and not blocked_by(state, mover, "movement"):
        walk(ctx, mover.id, r["path"], r["done"], r["spend"])
        return None
    if list(mover.square) != r["fallback"] and mover.alive:
        ctx.emit(
            "moved",
            combatant=mover.id,
            path=[list(mover.square), r["fallback"]],
            to=r["fallback"],
            reason="felled mid-move",
        )
    ctx.emit("move.stopped", combatant=mover.id, at=list(mover.square))
    return None


def act_double_move(ctx: Ctx, c: Combatant, action: Action) -> Refusal | None:
    """MIST-MOVE-2: spend every slot; the turn's movement doubles."""
    problem = double_move_problem(ctx.state, c)
    if problem:
        return Refusal(problem)
    gain = movement(ctx.state, c)
    ctx.emit(
        "move.doubled",
        actor=c.id,
        spend={"slots": c.resources["slots"]},
        gain=gain,
        move=c.resources.get("move", 0) + gain,
    )
    return None


def act_disengage(ctx: Ctx, c: Combatant, action: Action) -> Refusal | None:
    """MIST-RAMP-4: an innate action; its type (simple or static) is a house rule."""
    kind = ctx.state.options.get("disengage_type", "simple")
    if turn_flags(c).get("disengaged"):
        return Refusal("Already disengaged this turn.")
    problem = gate(ctx.state, c, kind, 1, 0, spell=False)
    if problem:
        return Refusal(problem)
    cost = slot_cost(c, kind, 1)
    ctx.emit(
        "ability.used",
        actor=c.id,
        ability="disengage",
        name="Disengage",
        action_type=kind,
        disengage=True,
        **({"spend": {"slots": cost}} if cost else {}),
    )
    return None


def act_rampart(ctx: Ctx, c: Combatant, action: Action) -> Refusal | None:
    """MIST-RAMP-1: toggle the rampart on or off; no slot cost."""
    n = rampart_range(c)
    if not n:
        return Refusal(f"{c.name} has no Rampart (it needs heavy armor or a job that grants it).")
    on = action.params.get("on", not c.extra.get("rampart_on"))
    if not isinstance(on, bool):
        return Refusal("Say on (true) or off (false).")
    if on == bool(c.extra.get("rampart_on")):
        return Refusal(f"The rampart is already {'on' if on else 'off'}.")
    ctx.emit("rampart.toggled", combatant=c.id, on=on, range=n)
    return None


# --- abilities --------------------------------------------------------------------------------------


def _chosen_targets(
    state: BattleState, c: Combatant, a: dict[str, Any], p: dict[str, Any]
) -> tuple[list[str], list[int] | None] | Refusal:
    if a["target"] == "square":
        sq = as_square(p.get("square"), state.width, state.height)
        if sq is None:
            return Refusal("Choose a square on the board.")
        if manhattan(c.square, sq) > a["range"]:
            return Refusal(
                f"That square is out of range ({manhattan(c.square, sq)} > {a['range']}).",
                RefusalCode.OUT_OF_RANGE,
            )
        if a["leap"]:
            walls, allies, enemies = terrain(state, c)
            if sq in walls or sq in allies or sq in enemies or list(sq) == c.pos:
                return Refusal("Leap to a free square.")
            return [], list(sq)
        area = within(sq, a["area"], state.width, state.height, "manhattan")
        hit = []
        for t in state.combatants.values():
            if not t.alive or t.pos is None or (t.pos[0], t.pos[1]) not in area:
                continue
            if a["affects"] == "all" or (a["affects"] == "enemies") == (t.side != c.side):
                hit.append(t.id)
        return hit, list(sq)
    if a["target"] == "self":
        return [c.id], None
    raw = p.get("targets")
    if not isinstance(raw, list) or len(raw) != 1 or not isinstance(raw[0], str):
        return Refusal("Choose one target.")
    target = state.combatants.get(raw[0])
    if target is None:
        return Refusal("No such combatant.")
    problem = target_problem(state, c, target, a)
    return Refusal(problem) if problem else ([target.id], None)


def act_ability(ctx: Ctx, c: Combatant, action: Action) -> Refusal | None:
    """Use an ability of the sheet: slot and MP costs by type (MIST-TYPE-*, MIST-MP-2), then its effects."""
    state = ctx.state
    key = action.params.get("ability")
    if not isinstance(key, str) or key not in c.sheet.get("abilities", []):
        return Refusal(f"{c.name} does not have that ability.")
    a = definitions(state, "abilities").get(key)
    if a is None:
        return Refusal("That ability is not defined in this battle.")
    if c.pos is None:
        return Refusal(f"{c.name} is not on the board.")
    problem = gate(state, c, a["type"], a["cost"], a["mp"], a["spell"])
    if problem:
        return Refusal(problem)
    chosen = _chosen_targets(state, c, a, action.params)
    if isinstance(chosen, Refusal):
        return chosen
    targets, square = chosen
    spend = {"slots": slot_cost(c, a["type"], a["cost"]), "mp": a["mp"]}
    if a["type"] == "move":
        spend["move"] = c.resources.get("move", 0)
    data: dict[str, Any] = {
        "actor": c.id,
        "ability": key,
        "name": a["name"],
        "action_type": a["type"],
        "targets": targets,
        "spend": {k: v for k, v in spend.items() if v},
    }
    if square is not None:
        data["square"] = square
    if a["disengage"]:
        data["disengage"] = True
    ctx.emit("ability.used", **data)
    if a["leap"] and square is not None:  # the content check makes every leap target a square
        walk(ctx, c.id, [square], [], spend=False)
        return None
    for tid in targets:
        t = state.combatants[tid]
        if t.alive:
            effects(ctx, c, t, a)
    if a["type"] == "finisher" and state.pending is None and state.current() is c:
        ctx.end_turn()  # MIST-TYPE-5: the turn ends at once, no movement after
    return None


# --- ENG-5 ------------------------------------------------------------------------------------


def legal_actions(state: BattleState, c: Combatant) -> list[ActionOption]:
    """ENG-5: the moves, the double move, disengage, the rampart switch and every ability of the sheet."""
    stuck = blocked_by(state, c, "movement")
    walls, allies, enemies = terrain(state, c)
    opts: list[ActionOption] = [] if c.pos is None else [move_option(state, c, walls, allies, enemies)]
    why = double_move_problem(state, c)
    slots = c.resources.get("slots", 0)
    opts.append(
        ActionOption(
            "double_move", "Double move (all slots)", {"slots": slots}, available=not why, reason=why
        )
    )
    opts.append(disengage_option(state, c))
    n = rampart_range(c)
    if n:
        on = bool(c.extra.get("rampart_on"))
        opts.append(
            ActionOption(
                "rampart",
                "Lower your rampart" if on else f"Raise a rampart ({count(n, 'square')} around you)",
                {},
                params={"on": not on},
            )
        )
    defs = definitions(state, "abilities")
    for key in c.sheet.get("abilities", []):
        a = defs.get(key)
        if a is None:
            continue
        opts.append(ability_option(state, c, key, a, stuck, walls, allies, enemies))
    return opts


class RampartParams(TypedDict, total=False):
    """``rampart``: turn it ``on`` (true) or off (false); default: the other way round."""

    on: bool


ACTIONS = {
    "move": act_move,
    "double_move": act_double_move,
    "ability": act_ability,
    "disengage": act_disengage,
    "rampart": act_rampart,
}
PARAMS: dict[str, type] = {"double_move": NoParams, "disengage": NoParams, "rampart": RampartParams}
