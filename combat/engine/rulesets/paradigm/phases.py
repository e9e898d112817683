"""Paradigm Rows phases: the Effect Phase, advancing, the Paradigm Phase, eidolon upkeep.

A round is the Action Phase (turns in initiative order), then the Effect
Phase and the Paradigm Phase, both run from the round-end hook; round 1
starts with an extra Paradigm Phase (PARA-ROUND-1). Phases that ask
someone (advance? switch job?) are an *agenda* of steps: a step that needs
an answer opens a reaction window whose ``resume`` carries the rest of the
agenda, so the core stops the round flow there and ``actions.resume`` goes on.

>>> [s["step"] for s in ROUND_END]
['effects', 'advance', 'paradigm']
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from combat.engine.rulesets.base import count_down_statuses, defined, definition
from combat.engine.rulesets.paradigm.effects import apply_effect, deal, dismiss, heal
from combat.engine.rulesets.paradigm.rules import (
    UPKEEP_ANIMA,
    able,
    front_empty,
    job_choices,
    present,
    side_able,
)

if TYPE_CHECKING:
    from combat.engine.context import Ctx
    from combat.engine.state import BattleState, Combatant

ROUND_END: tuple[dict[str, Any], ...] = ({"step": "effects"}, {"step": "advance"}, {"step": "paradigm"})
EFFECT_KINDS = ("damage", "healing", "statuses", "other")
OTHER_SIDE = {"party": "enemy", "enemy": "party"}


def run(ctx: Ctx, agenda: list[dict[str, Any]]) -> None:
    """Run steps in order; a step that opens a reaction window hands it the rest and stops here."""
    rules = ctx.rules
    while agenda and ctx.state.phase == "active":
        step = agenda.pop(0)
        if step["step"] != "effects" and rules.check_victory(ctx.state) is not None:
            return  # the battle is over: nobody is asked anything more
        if STEPS[step["step"]](ctx, step, agenda):
            return


def _ordered(state: BattleState) -> list[Combatant]:
    """Combatants in initiative order (each once), then any not in the order."""
    seen = dict.fromkeys(state.order)
    seen.update(dict.fromkeys(state.combatants))
    return [state.combatants[cid] for cid in seen if cid in state.combatants]


# --- the Effect Phase (PARA-EFF-1) ----------------------------------------------------------------


def effects(ctx: Ctx, step: dict[str, Any], agenda: list[dict[str, Any]]) -> bool:
    """Simultaneous effects: all damage first, then healing, then statuses, then everything else."""
    state = ctx.state
    queued = list(state.extra.get("queued") or [])
    ctx.emit("phase.started", phase="effect", round=state.round)
    if queued:
        ctx.emit("battle.extra", set={"queued": []})
    for kind in EFFECT_KINDS:
        if kind == "statuses":
            _tick_statuses(ctx)
        for q in queued:
            a = definition(ctx.state, "abilities", q["ability"])
            if a is None:
                continue
            for tid in q["targets"]:
                t = ctx.state.combatants.get(tid)
                if t is not None and present(t):
                    # Dice that cannot be rolled spoil this effect only (logged), never the phase.
                    actor = ctx.state.combatants.get(q["actor"])
                    cause = {"ability": q["ability"]}
                    ctx.attempt(
                        str(a.get("name") or q["ability"]), apply_effect, ctx, actor, t, a, cause, kind
                    )
        if kind in ("damage", "healing"):
            _status_ticks(ctx, kind)
        if kind == "other":
            for c in _ordered(ctx.state):
                if c.extra.get("fleeing") and not c.extra.get("fled"):
                    ctx.emit("combatant.fled", combatant=c.id)  # PARA-ACT-FLEE: leaves now
    return False


def _status_ticks(ctx: Ctx, kind: str) -> None:
    """Statuses that deal damage or heal each Effect Phase (Poison, Regen)."""
    field = "damage" if kind == "damage" else "healing"
    for c in _ordered(ctx.state):
        for skey in list(c.statuses):
            d = definition(ctx.state, "statuses", skey)
            t = ctx.state.combatants.get(c.id)
            if not d or not d.get(field) or t is None or not present(t):
                continue
            ctx.attempt(str(d.get("name") or skey), _tick, ctx, t, d[field], field, skey)


def _tick(ctx: Ctx, t: Combatant, dice: str, field: str, skey: str) -> None:
    r = ctx.roll(dice, field)
    if field == "damage":
        deal(ctx, None, t, r.total, 0, "status", {"status": skey})
    else:
        heal(ctx, None, t, r.total, {"status": skey})


def _tick_statuses(ctx: Ctx) -> None:
    """Statuses last a number of Effect Phases: count down, remove at 0."""
    for c in _ordered(ctx.state):
        count_down_statuses(ctx, c)


# --- advancing (PARA-ADV-1/2) -----------------------------------------------------------------------


def _leader(state: BattleState, side: str) -> Combatant | None:
    """Who answers for a side: its first able player character in initiative order, else its first able one."""
    members = [c for c in _ordered(state) if c.side == side and able(c)]
    pcs = [c for c in members if c.kind == "pc"]
    first = pcs or members
    return first[0] if first else None


def advance(ctx: Ctx, step: dict[str, Any], agenda: list[dict[str, Any]]) -> bool:
    """A side facing an empty enemy front row may advance; when both are empty, the players choose first."""
    state = ctx.state
    sides = [s for s in ("party", "enemy") if side_able(state, s)]
    if len(sides) < 2:
        return False
    only = step.get("side")
    candidates = [only] if only else [s for s in ("party", "enemy") if front_empty(state, OTHER_SIDE[s])]
    for i, side in enumerate(candidates):
        onto = OTHER_SIDE[side]
        if not front_empty(state, onto):
            continue
        leader = _leader(state, side)
        if leader is None:
            continue
        names = {"party": "the players", "enemy": "the enemies"}
        rest = [{"step": "advance", "side": s} for s in candidates[i + 1 :]] + agenda
        ctx.open_decision(
            leader.id,
            f"No one is left in the {onto} side's front row. Advance {names[side]} into it?",
            [
                {"key": "advance", "label": "Advance: they all count as front row"},
                {"key": "stay", "label": "Do not advance"},
            ],
            "advance",
            trigger="Effect Phase",
            resume={"phase": "advance", "side": side, "onto": onto, "agenda": rest},
            about=f"whether {names[side]} advance",
            usual="the way to the foe's front row is open",
        )
        return True
    return False


def advanced(ctx: Ctx, side: str, onto: str) -> None:
    ctx.emit("side.advanced", side=side, onto=onto)
    for c in _ordered(ctx.state):
        if c.side == onto and present(c) and c.row != "front":
            ctx.emit("row.changed", combatant=c.id, row="front", reason="advance")


# --- the Paradigm Phase (PARA-JOB-1/2) ---------------------------------------------------------------


def paradigm(ctx: Ctx, step: dict[str, Any], agenda: list[dict[str, Any]]) -> bool:
    """Antagonists first, then the players: each character with another job may switch."""
    state = ctx.state
    queue = step.get("queue")
    if queue is None:
        ctx.emit("phase.started", phase="paradigm", round=state.round)
        order = _ordered(state)
        queue = [c.id for c in order if c.side == "enemy"] + [c.id for c in order if c.side != "enemy"]
    for i, cid in enumerate(queue):
        c = state.combatants.get(cid)
        if c is None or not able(c) or c.extra.get("eidolon_of"):
            continue
        choices = job_choices(state, c)
        if not choices:
            continue
        current = definition(state, "jobs", c.extra.get("job"))
        options = [{"key": "keep", "label": f"Keep {current['name'] if current else 'no job'}"}]
        options += [
            {"key": f"job:{j}", "label": f"Switch to {defined(state, 'jobs', j)['name']}"} for j in choices
        ]
        rest = [{"step": "paradigm", "queue": queue[i + 1 :]}] + agenda
        ctx.open_decision(
            cid,
            "Switch job before your turn?",
            options,
            "keep",
            trigger="Paradigm Phase",
            resume={"phase": "job", "agenda": rest},
            about="whether to switch job",
            usual="it keeps to the job it has",
        )
        return True
    return False


STEPS = {"effects": effects, "advance": advance, "paradigm": paradigm}


# --- round hooks ------------------------------------------------------------------------------------


def round_start(ctx: Ctx) -> None:
    """Round 1: the extra Paradigm Phase. Later rounds: eidolon upkeep (PARA-EID-3)."""
    state = ctx.state
    if ctx.rules.check_victory(state) is not None:
        return
    if state.round <= 1:
        run(ctx, [{"step": "paradigm"}])
        return
    for e in [c for c in _ordered(state) if c.extra.get("eidolon_of")]:
        summoner = state.combatants.get(e.extra["eidolon_of"])
        if e.ko:
            dismiss(ctx, e, "defeated")
        elif summoner is None or not present(summoner) or summoner.resources.get("anima", 0) < UPKEEP_ANIMA:
            dismiss(ctx, e, "no anima")
        else:
            ctx.emit("eidolon.upkeep", actor=summoner.id, eidolon=e.id, spend={"anima": UPKEEP_ANIMA})


def round_end(ctx: Ctx) -> None:
    """Tidy held-turn slots, then the Effect Phase and the Paradigm Phase."""
    state = ctx.state
    order = list(dict.fromkeys(state.order))
    if order != state.order:
        ctx.emit("order.set", order=order, turn=len(order))
    run(ctx, [dict(s) for s in ROUND_END])
