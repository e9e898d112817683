"""D20 Luck: resolution of its actions (move, ability) and its options (ENG-5).

The dispatch table ``ACTIONS`` maps action kinds to resolvers, ``PARAMS``
names the parameters D20 Luck adds; ``resume`` finishes a hit paused for an
interrupt (LUCK-ACT-4); ``legal_actions`` lists the options.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from combat.engine.actions import AbilityParams, Action, ActionOption, Refusal, RefusalCode
from combat.engine.board import as_square, chosen_path, distance, square_key, steps_within, within
from combat.engine.rulesets.base import (
    blocked_by,
    defined,
    definition,
    grid_metric_of,
    obstacles,
    status_name,
)
from combat.engine.rulesets.luck.rules import (
    ability_for,
    ability_gate,
    ability_refs,
    items_left,
    move_allowance,
    params_of,
    ref_in,
    ref_of,
    used_in,
    valid_target,
)

if TYPE_CHECKING:
    from combat.engine.context import Ctx
    from combat.engine.state import BattleState, Combatant, Decision


# --- actions ---------------------------------------------------------------------------
def act_move(ctx: Ctx, c: Combatant, action: Action) -> Refusal | None:
    """LUCK-ACT-2: move up to Movement squares for 1 standard action (``to`` or a ``path``)."""
    state = ctx.state
    name = blocked_by(state, c, "movement")
    if name:
        return Refusal(f"{name}: cannot move.")
    if c.resources.get("actions", 0) < 1:
        return Refusal("No actions left.")
    allowance = move_allowance(state, c)
    blocked, no_stop = obstacles(state, c)
    diagonal = grid_metric_of(state) == "chebyshev"
    path = chosen_path(
        action.params, c.square, state.width, state.height, blocked, no_stop, allowance, diagonal
    )
    if isinstance(path, str):
        return Refusal(path)
    ctx.emit(
        "moved",
        combatant=c.id,
        actor=c.id,
        path=[list(s) for s in path],
        to=list(path[-1]),
        spend={"actions": 1},
    )
    return None


def act_ability(ctx: Ctx, c: Combatant, action: Action) -> Refusal | None:
    """Use an ability, weapon or item: checks, optional 1-square step ``to`` (LUCK-ACT-3), then resolution."""
    state = ctx.state
    p = action.params
    ref = ref_of(p)
    if ref is None or (a := ability_for(state, c, ref)) is None:
        return Refusal(f"{c.name} has no such ability.")
    if a["type"] == "interrupt":
        return Refusal(f"{a['name']} is only used as a reaction to another's action.")
    item = ref[5:] if ref.startswith("item:") else None
    if item and items_left(c, item) < 1:
        return Refusal(f"No {a['name']} left.")
    why = ability_gate(state, c, a)
    if why:
        return Refusal(why)
    origin = c.square
    step = None
    if p.get("to") is not None:
        step = as_square(p.get("to"), state.width, state.height)
        if step is None:
            return Refusal("That square is not on the board.")
        name = blocked_by(state, c, "movement")
        if name:
            return Refusal(f"{name}: cannot move.")
        metric = grid_metric_of(state)
        blocked, no_stop = obstacles(state, c)
        if distance(origin, step, metric) != 1 or step in blocked or step in no_stop:
            return Refusal("The free step must go to a free neighbouring square.")
        origin = step
    if a["type"] == "recover":
        status = p.get("status")
        if not isinstance(status, str) or status not in c.statuses:
            return Refusal("Choose one of your statuses to recover from.")
        targets = [c.id]
    else:
        found = _targets(state, c, a, p, origin)
        if isinstance(found, Refusal):
            return found
        targets = found
    if step is not None:
        ctx.emit("moved", combatant=c.id, path=[list(c.square), list(step)], to=list(step), free=True)
    ctx.emit(
        "ability.used",
        actor=c.id,
        **params_of(ref),
        name=a["name"],
        targets=targets,
        spend={"actions": a["cost"]} if a["cost"] else {},
    )
    if a["type"] == "recover":
        _recover(ctx, c, p["status"])
    else:
        _resolve({"actor": c.id, **params_of(ref), "targets": targets, "i": 0}, ctx)
    return None


def _targets(
    state: BattleState, c: Combatant, a: dict[str, Any], p: dict[str, Any], origin: tuple[int, int]
) -> list[str] | Refusal:
    metric = grid_metric_of(state)
    if a["area"] > 0:
        sq = as_square(p.get("square"), state.width, state.height)
        if sq is None:
            return Refusal("Choose a square on the board for the area.")
        if distance(origin, sq, metric) > a["range"]:
            return Refusal("That square is out of range.", RefusalCode.OUT_OF_RANGE)
        area = set(within(sq, a["area"], state.width, state.height, metric))
        hit = [
            t.id
            for t in state.combatants.values()
            if t.pos is not None and (t.pos[0], t.pos[1]) in area and valid_target(state, c, t, a)
        ]
        if not hit:
            return Refusal("No valid target in that area.")
        return hit
    raw = p.get("targets")
    if a["target"] == "self" and not raw:
        raw = [c.id]
    if isinstance(raw, str):  # targets are a list of ids, even for one
        return Refusal("Not a valid target for that ability.")
    if not isinstance(raw, list) or len(raw) != 1:
        return Refusal("Choose one target.")
    t = state.combatants.get(raw[0]) if isinstance(raw[0], str) else None
    if t is None or not valid_target(state, c, t, a):
        return Refusal("Not a valid target for that ability.")
    if distance(origin, t.square, metric) > a["range"]:
        return Refusal(f"{t.name} is out of range.", RefusalCode.OUT_OF_RANGE)
    return [t.id]


# --- resolution (resumable across reaction windows) ----------------------------------------
def _resolve(job: dict[str, Any], ctx: Ctx) -> None:
    state = ctx.state
    actor = state.combatants.get(job["actor"])
    while actor is not None and job["i"] < len(job["targets"]):
        t = state.combatants.get(job["targets"][job["i"]])
        job["i"] += 1
        if t is None or not t.alive:
            continue
        a = ability_for(state, actor, ref_in(job) or "")
        if a is None:
            return
        paused = _resolve_target(ctx, actor, t, a, job)
        if paused:
            return


def _luck(ctx: Ctx, actor: Combatant, t: Combatant, a: dict[str, Any]) -> str:
    """LUCK-HIT-1..3: the Luck Roll against a hostile target; friendly targets are hit automatically."""
    if t.side == actor.side:
        ctx.emit("luck.rolled", actor=actor.id, target=t.id, outcome="hit", auto=True)
        return "hit"
    bonus = int(actor.sheet.get("luck_bonus", 0))
    r = ctx.roll("1d20", "luck roll", adds=[(bonus, "Luck bonus")])
    total = r.result
    outcome = "miss" if total <= a["miss_max"] else "crit" if total >= a["crit_min"] else "hit"
    ctx.emit(
        "luck.rolled", actor=actor.id, target=t.id, roll=r.total, bonus=bonus, total=total, outcome=outcome
    )
    return outcome


def _resolve_target(ctx: Ctx, actor: Combatant, t: Combatant, a: dict[str, Any], job: dict[str, Any]) -> bool:
    """Resolve the ability on one target; True when paused on a reaction window."""
    outcome = _luck(ctx, actor, t, a)
    if outcome == "miss":
        ctx.emit("ability.missed", actor=actor.id, target=t.id, **used_in(job))
        return False
    kind = a["type"]
    if kind == "heal":
        rolled = ctx.roll(a["dice"], "healing", adds=[(a["bonus"], a["name"])]).result
        hp = min(t.max_hp, t.hp + max(0, rolled))
        ctx.emit("healed", actor=actor.id, target=t.id, raw=rolled, amount=hp - t.hp, hp=hp, ko=hp <= 0)
        return False
    if kind == "status":
        _apply_status(ctx, actor, t, a)
        return False
    # physical or magical damage; LUCK-CRIT-1: a crit rolls the dice and adds the bonus N times.
    times = int(actor.sheet.get("crit_damage", 2)) if outcome == "crit" else 1
    raw = 0
    for _ in range(times):
        raw += ctx.roll(a["dice"], "damage", adds=[(a["bonus"], a["name"])]).result
    ctx.emit("damage.rolled", actor=actor.id, target=t.id, raw=raw, crit=outcome == "crit", times=times)
    if t.side != actor.side:
        reactions = _interrupts(ctx.state, t, kind)
        if reactions:
            options = [
                {"key": ref, "label": f"{d['name']} ({d['dice']}{d['bonus']:+d})"} for ref, d in reactions
            ]
            options.append({"key": "pass", "label": "Take the hit"})
            resume = {**job, "target": t.id, "raw": raw, "kind": kind}
            ctx.open_decision(
                t.id,
                f"{actor.name}'s {a['name']} is about to hit {t.name} for {raw} before armor. Interrupt it?",
                options,
                default=reactions[0][0],
                trigger=f"{actor.name}'s {a['name']}",
                resume=resume,
                about=f"whether to interrupt {actor.name}'s {a['name']}",
                usual="it softens the blow",
            )
            return True
    _deal(ctx, actor, t, raw, kind, reduced=0, used=used_in(job))
    return False


def _interrupts(state: BattleState, t: Combatant, kind: str) -> list[tuple[str, dict[str, Any]]]:
    """LUCK-ACT-4: interrupt abilities ``t`` may use now against an incoming ``kind`` hit."""
    if not t.able or t.resources.get("interrupt", 0) < 1:
        return []
    out = []
    for ref in t.sheet.get("abilities", ()):
        d = definition(state, "abilities", ref)
        if not d or d["type"] != "interrupt" or d["trigger"] not in (kind, "any"):
            continue
        gate = dict(d, cost=0)
        if ability_gate(state, t, gate) is None:
            out.append((ref, d))
    return out


def resume(ctx: Ctx, decision: Decision, choice: str) -> Refusal | None:
    """Finish a hit paused for an interrupt (LUCK-ACT-4): apply the reaction, deal the damage, go on."""
    job = dict(decision.resume)
    state = ctx.state
    actor, t = state.combatants.get(job["actor"]), state.combatants.get(job["target"])
    if actor is None or t is None:
        return None
    reduced = 0
    if choice != "pass":
        d = defined(state, "abilities", choice)
        reduced = max(0, ctx.roll(d["dice"], "interrupt", adds=[(d["bonus"], d["name"])]).result)
        ctx.emit(
            "interrupt.used",
            actor=t.id,
            ability=choice,
            name=d["name"],
            against=actor.id,
            reduces=reduced,
            spend={"interrupt": 1},
        )
    _deal(ctx, actor, t, job["raw"], job["kind"], reduced, used_in(job))
    _resolve(job, ctx)
    return None


def _deal(
    ctx: Ctx, actor: Combatant, t: Combatant, raw: int, kind: str, reduced: int, used: dict[str, str]
) -> None:
    """LUCK-DMG-1/2: the roll minus Armor (physical) or Resist (magical); only a positive rest is dealt.

    ``used``: the ``ability``, ``weapon`` or ``item`` that hit (``used_in``)."""
    defense_name = "armor" if kind == "physical" else "resist"
    defense = int(t.sheet.get(defense_name, 0))
    amount = max(0, raw - reduced - defense)
    hp = max(0, t.hp - amount)
    ctx.emit(
        "damage.dealt",
        actor=actor.id,
        target=t.id,
        **used,
        damage_type=kind,
        raw=raw,
        reduced=reduced,
        defense=defense,
        amount=amount,
        hp=hp,
        ko=hp <= 0,
    )
    if amount > 0:
        for key in list(t.statuses):
            d = definition(ctx.state, "statuses", key)
            if d and d["ends_on_damage"]:  # LUCK-STAT-7: damage wakes a sleeper
                ctx.emit("status.removed", combatant=t.id, status=key, reason="damaged")


def _apply_status(ctx: Ctx, actor: Combatant, t: Combatant, a: dict[str, Any]) -> None:
    """LUCK-STAT-1 and LUCK-STAT-4: roll against the defense; the difference is the power; keep the higher."""
    value = ctx.roll(a["dice"], "status", adds=[(a["bonus"], a["name"])]).result
    defense = int(t.sheet.get(a["defense"], 0))
    diff = value - defense
    status = a["status"]
    if diff < 1:
        ctx.emit("status.resisted", actor=actor.id, target=t.id, status=status, value=value, defense=defense)
        return
    power = diff if ctx.state.options.get("status_power", "difference") == "difference" else value
    old = t.statuses.get(status)
    if old is not None and old.get("power", 0) >= power:
        ctx.emit("status.kept", actor=actor.id, target=t.id, status=status, power=old["power"], offered=power)
        return
    ctx.emit(
        "status.applied",
        combatant=t.id,
        status=status,
        power=power,
        duration=a["duration"],
        by=actor.id,
        value=value,
        defense=defense,
    )


def _recover(ctx: Ctx, c: Combatant, status: str) -> None:
    """LUCK-STAT-3 and LUCK-STAT-5: end one chosen status; 1d20 must meet its power (or automatic)."""
    power = c.statuses[status].get("power", 0)
    if ctx.state.options.get("recover_rule", "d20_vs_power") == "automatic":
        ctx.emit("status.removed", combatant=c.id, status=status, reason="recovered")
        return
    r = ctx.roll("1d20", "recover")
    if r.total >= power:
        ctx.emit(
            "status.removed", combatant=c.id, status=status, reason="recovered", roll=r.total, power=power
        )
    else:
        ctx.emit("recover.failed", combatant=c.id, status=status, roll=r.total, power=power)


# --- ENG-5 ---------------------------------------------------------------------------------
def legal_actions(state: BattleState, c: Combatant) -> list[ActionOption]:
    """ENG-5: the move, then each weapon, ability and item of the sheet (Recover once per status)."""
    out = [_move_option(state, c)]
    for ref in ability_refs(c):
        a = ability_for(state, c, ref)
        if a is None or a["type"] == "interrupt":
            continue
        if a["type"] == "recover":
            out += _recover_options(state, c, ref, a)
        else:
            out.append(_ability_option(state, c, ref, a))
    return out


def _move_option(state: BattleState, c: Combatant) -> ActionOption:
    acts = c.resources.get("actions", 0)
    why = blocked_by(state, c, "movement")
    reason = f"{why}: cannot move." if why else ("No actions left." if acts < 1 else "")
    squares: list[list[int]] = []
    came_from: dict[tuple[int, int], tuple[int, int]] = {}
    if not reason and c.pos is not None:
        blocked, no_stop = obstacles(state, c)
        came_from, ends = steps_within(
            (c.pos[0], c.pos[1]),
            move_allowance(state, c),
            state.width,
            state.height,
            blocked,
            no_stop,
            grid_metric_of(state) == "chebyshev",
        )
        squares = [list(sq) for sq in ends]
        if not squares:
            reason = "Nowhere to move."
    return ActionOption("move", "Move", {"actions": 1}, [], squares, not reason, reason, came_from=came_from)


def _recover_options(state: BattleState, c: Combatant, ref: str, a: dict[str, Any]) -> list[ActionOption]:
    """Recover: one option per status to end (greyed out with none)."""
    cost = {"actions": a["cost"]}
    if not c.statuses:
        return [
            ActionOption(
                "ability", a["name"], cost, [], [], False, "No status to recover from.", params_of(ref)
            )
        ]
    out = []
    for key, st in c.statuses.items():
        gate = ability_gate(state, c, a)
        label = f"{a['name']}: {status_name(state, key)} (power {st.get('power', 0)})"
        out.append(
            ActionOption(
                "ability",
                label,
                cost,
                [c.id],
                [],
                gate is None,
                gate or "",
                {**params_of(ref), "status": key},
            )
        )
    return out


def _ability_option(state: BattleState, c: Combatant, ref: str, a: dict[str, Any]) -> ActionOption:
    """A weapon, ability or item: its targets in range, or the squares whose burst catches one."""
    metric = grid_metric_of(state)
    gate = ability_gate(state, c, a)
    label = a["name"]
    if ref.startswith("item:"):
        left = items_left(c, ref[5:])
        label = f"{a['name']} (x{left})"  # how many are left, as Paradigm Rows' item buttons say
        if left < 1:
            gate = f"No {a['name']} left."
    targets: list[str] = []
    squares: list[list[int]] = []
    areas: dict[str, list[list[int]]] = {}
    if a["area"] > 0:
        # squares in range whose burst catches at least one valid target
        found: set[tuple[int, int]] = set()
        for t in state.combatants.values():
            if valid_target(state, c, t, a):
                found.update(
                    sq
                    for sq in within(t.square, a["area"], state.width, state.height, metric)
                    if distance(c.square, sq, metric) <= a["range"]
                )
        squares = [list(sq) for sq in sorted(found)]
        areas = {
            square_key(sq): [list(s) for s in within(sq, a["area"], state.width, state.height, metric)]
            for sq in found
        }
    else:
        targets = [
            t.id
            for t in state.combatants.values()
            if valid_target(state, c, t, a) and distance(c.square, t.square, metric) <= a["range"]
        ]
    if a["type"] == "heal" and targets:
        # A heal that would do nothing is offered greyed, with why: nobody it reaches is hurt.
        hurt = [tid for tid in targets if state.combatants[tid].hp < state.combatants[tid].max_hp]
        if not hurt and gate is None:
            gate = "Everyone in reach is at full HP."
        targets = hurt
    if not targets and not squares and gate is None:
        gate = "No target in range."
    return ActionOption(
        "ability",
        label,
        {"actions": a["cost"]},
        targets,
        squares,
        gate is None,
        gate or "",
        params_of(ref),
        areas=areas,
    )


class LuckAbilityParams(AbilityParams, total=False):
    """``ability``: also ``to``, the free 1-square step before acting, and ``status``, the status a
    Recover ends."""

    to: list[int]
    status: str


ACTIONS = {"move": act_move, "ability": act_ability}
PARAMS: dict[str, type] = {"ability": LuckAbilityParams}
