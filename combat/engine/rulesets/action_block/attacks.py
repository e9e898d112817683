"""Action Block resolution: attacks, grapples, movement, the reaction windows and the insanity prompt.

Each resolver validates everything before its first event (ENG-4). An
attack, grapple or movement that pauses for a reaction window (dodge,
block, obstruct; ENG-6) or the GM's insanity prompt keeps what is left to
do in a JSON ``job`` carried by the decision's ``resume``;
``actions.resume`` continues it with the answer. Spells and charisma
skills are in ``spells``, which deal damage with ``deal`` from here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from combat.engine.actions import Refusal
from combat.engine.board import chebyshev, chosen_path
from combat.engine.rulesets.action_block import rules
from combat.engine.rulesets.base import defined, definition, definitions, obstacles

if TYPE_CHECKING:
    from combat.engine.actions import Action
    from combat.engine.context import Ctx
    from combat.engine.state import BattleState, Combatant


# --- attacks (BLOCK-HIT, BLOCK-CRIT, BLOCK-DMG, BLOCK-DEF, BLOCK-MOD) ---------------------------
def act_attack(ctx: Ctx, c: Combatant, action: Action) -> Refusal | None:
    state = ctx.state
    p = action.params
    key = p.get("weapon")
    w = (
        definition(state, "weapons", key)
        if isinstance(key, str) and key in c.sheet.get("weapons", ())
        else None
    )
    if w is None:
        return Refusal(f"{c.name} has no such weapon.")
    mods = rules.mods_for(state, c, p.get("modifiers"), "attack_modifiers", "attack_modifiers")
    if isinstance(mods, Refusal):
        return mods
    family = "melee" if w["kind"] in rules.MELEE_KINDS else "gun"
    for _, m in mods:
        if m["applies_to"] not in ("any", family):
            return Refusal(f"{m['name']} is for {m['applies_to']} attacks.")
    cost = rules.cost_of(w, *[m for _, m in mods])
    why = rules.slot_gate(state, c, "offensive", cost)
    if why:
        return Refusal(why)
    most = 1 + sum(m["extra_targets"] for _, m in mods)
    targets = rules.pick_targets(
        state, c, p.get("targets"), rules.attack_targets(state, c, rules.weapon_range(w)), most
    )
    if isinstance(targets, Refusal):
        return targets
    ctx.emit(
        "attack.declared",
        actor=c.id,
        weapon=key,
        name=w["name"],
        modifiers=[k for k, _ in mods],
        targets=targets,
        spend=rules.spend("offensive", cost),
    )
    if w["kind"] == "shield":
        ctx.emit("shield.used", combatant=c.id, extra={"shield_used": True})
    run_targets(
        ctx,
        {
            "kind": "attack",
            "actor": c.id,
            "weapon": key,
            "mods": [k for k, _ in mods],
            "targets": targets,
            "i": 0,
        },
    )
    return None


def act_grapple(ctx: Ctx, c: Combatant, action: Action) -> Refusal | None:
    """BLOCK-GRAP-1: Initiate Grapple, an Offensive action at Melee Range."""
    state = ctx.state
    why = rules.slot_gate(state, c, "offensive", rules.GRAPPLE_COST)
    if why:
        return Refusal(why)
    if "grappling" in c.statuses:
        return Refusal(f"{c.name} is already grappling.")
    allowed = [
        t
        for t in rules.attack_targets(state, c, rules.MELEE_RANGE_FT)
        if "grappled" not in state.combatants[t].statuses
    ]
    targets = rules.pick_targets(state, c, action.params.get("targets"), allowed, 1)
    if isinstance(targets, Refusal):
        return targets
    ctx.emit(
        "grapple.declared", actor=c.id, targets=targets, spend=rules.spend("offensive", rules.GRAPPLE_COST)
    )
    run_targets(ctx, {"kind": "grapple", "actor": c.id, "targets": targets, "i": 0})
    return None


def run_targets(ctx: Ctx, job: dict[str, Any]) -> None:
    """Resolve an attack or grapple target by target (BLOCK-MOD-1); stops at a reaction window."""
    state = ctx.state
    while job["i"] < len(job["targets"]):
        t = state.combatants.get(job["targets"][job["i"]])
        job["i"] += 1
        actor = state.combatants.get(job["actor"])
        if t is None or actor is None or not t.alive or not actor.able:
            continue
        job["t"] = t.id
        dodge = definition(state, "defenses", "dodge")
        if t.able and dodge and dodge["kind"] == "dodge" and rules.cost_gate(t, rules.cost_of(dodge)) is None:
            passive, active = rules.evasions(state, t)
            what = "attack" if job["kind"] == "attack" else "grapple"
            options = [
                {
                    "key": "dodge",
                    "label": f"Dodge: Active Evasion {active} instead of Passive {passive} "
                    f"({dodge['speed_cost']} Speed, {dodge['strength_cost']} Strength)",
                },
                {"key": "none", "label": f"No dodge (Passive Evasion {passive})"},
            ]
            ctx.open_decision(
                t.id,
                f"{actor.name} is about to {what} {t.name}. Dodge?",
                options,
                default="dodge" if active > passive else "none",
                trigger=f"{actor.name}'s {what}",
                resume={**job, "step": "dodge"},
                about=f"whether to dodge {actor.name}'s {what}",
                usual="dodging makes it harder to hit"
                if active > passive
                else "dodging would not make it harder to hit",
            )
            return
        if roll_hit(ctx, job, dodged=False):
            return


def _roll_to_hit(
    ctx: Ctx,
    event: str,
    actor: Combatant,
    t: Combatant,
    expr: str,
    adds: list[tuple[int, str]],
    evasion: int,
    dodged: bool,
    crit: bool = False,
) -> tuple[int, bool]:
    """Roll ``expr`` to hit against Evasion and log it as ``event`` (an attack's also says whether it
    crits): the natural roll and whether it hit."""
    r = ctx.roll(expr, "to hit", adds=adds)
    base, bonus = r.total, r.result - r.total
    hit = rules.is_hit(base + bonus, evasion)
    fields = {"crit": rules.is_crit(base, hit)} if crit else {}
    ctx.emit(
        event,
        actor=actor.id,
        target=t.id,
        base=base,
        bonus=bonus,
        total=base + bonus,
        evasion=evasion,
        dodged=dodged,
        hit=hit,
        **fields,
    )
    return base, hit


def _roll_grapple(ctx: Ctx, actor: Combatant, t: Combatant, evasion: int, dodged: bool) -> None:
    """A grapple's roll against Evasion; on a hit the two hold each other."""
    base, hit = _roll_to_hit(
        ctx, "grapple.rolled", actor, t, "2d6", rules.to_hit_parts(actor.sheet, None), evasion, dodged
    )
    if hit:
        ctx.emit("status.applied", combatant=actor.id, status="grappling", power=0, duration=1, holds=t.id)
        ctx.emit("status.applied", combatant=t.id, status="grappled", power=0, duration=1, by=actor.id)


def roll_hit(ctx: Ctx, job: dict[str, Any], dodged: bool) -> bool:
    """The to-hit roll against Evasion; True when paused (block window or insanity prompt)."""
    state = ctx.state
    actor, t = state.combatants[job["actor"]], state.combatants[job["t"]]
    passive, active = rules.evasions(state, t)
    evasion = active if dodged else passive
    if job["kind"] == "grapple":
        _roll_grapple(ctx, actor, t, evasion, dodged)
        return False
    w = defined(state, "weapons", job["weapon"])
    mods = [defined(state, "attack_modifiers", k) for k in job["mods"]]
    expr, adds = rules.base_to_hit_expr(w), rules.to_hit_parts(actor.sheet, w, mods)
    base, hit = _roll_to_hit(ctx, "attack.rolled", actor, t, expr, adds, evasion, dodged, crit=True)
    crit = rules.is_crit(base, hit)
    if not hit:
        return False
    job = {**job, "crit": crit}
    options = rules.block_options(state, t)
    if t.able and options and not t.extra.get("guard"):
        ctx.open_decision(
            t.id,
            f"{actor.name}'s {w['name']} hits {t.name}{' (critical)' if crit else ''}. "
            f"Block before the damage roll?",
            options + [{"key": "none", "label": "No block"}],
            default="none",
            trigger=f"{actor.name}'s {w['name']}",
            resume={**job, "step": "block"},
            about=f"whether to block {actor.name}'s {w['name']}",
            usual="it keeps its points for its own attacks",
        )
        return True
    return roll_damage(ctx, job)


def take_block(ctx: Ctx, t: Combatant, choice: str) -> None:
    state = ctx.state
    keys = choice.split("+")
    defs = [defined(state, "defenses", k) for k in keys]
    shield = rules.shield_pdr(state, t) or 0
    pdr = sum(d["pdr"] + (shield if d["kind"] == "shield_block" else 0) for d in defs)
    ctx.emit(
        "stance.entered",
        combatant=t.id,
        actor=t.id,
        stance=choice,
        pdr=pdr,
        extra={"guard": {"stance": choice, "pdr": pdr}},
        spend=rules.spend(None, rules.cost_of(*defs)),
    )


def roll_damage(ctx: Ctx, job: dict[str, Any]) -> bool:
    """BLOCK-DMG-1/2, BLOCK-CRIT-1 and the Drill's PDR damage; True when paused for insanity."""
    state = ctx.state
    actor, t = state.combatants[job["actor"]], state.combatants[job["t"]]
    w = defined(state, "weapons", job["weapon"])
    mods = [defined(state, "attack_modifiers", k) for k in job["mods"]]
    crit = bool(job.get("crit", False))
    r = ctx.roll(
        w["damage"],
        "damage",
        adds=rules.damage_parts(actor.sheet, w, mods),
        times=2 if crit else 1,
        times_why="critical hit" if crit else "",
    )
    base = r.total
    bonus = r.result // r.times - base
    guard = (t.extra.get("guard") or {}).get("pdr", 0) + (t.extra.get("brace") or 0)
    kind, reduction = rules.reduction_for(w["kind"], t.resources.get("pdr", 0), t.sheet, guard)
    amount = rules.damage_dealt(base, bonus, reduction, job.get("crit", False))
    paused = deal(
        ctx,
        actor,
        t,
        amount,
        job,
        base=base,
        bonus=bonus,
        reduction=reduction,
        reduced_by=kind,
        crit=job.get("crit", False),
        weapon=job["weapon"],
    )
    if w["pdr_damage"] and t.alive and t.resources.get("pdr", 0) > 0:
        ctx.emit(
            "pdr.damaged",
            combatant=t.id,
            by=actor.id,
            resources={"pdr": max(0, t.resources["pdr"] - w["pdr_damage"])},
        )
    return paused


def deal(ctx: Ctx, actor: Combatant, t: Combatant, amount: int, job: dict[str, Any], **info: Any) -> bool:
    """BLOCK-HP-1/2 and BLOCK-INS-1: take HP (below 0 too), Unconscious at 0 or less, Dead when hurt while Unconscious."""
    old = t.hp
    was_down = t.ko
    hp = old - amount
    dead = was_down and amount > 0
    ctx.emit(
        "damage.dealt", actor=actor.id, target=t.id, amount=amount, hp=hp, ko=hp <= 0, alive=not dead, **info
    )
    if hp <= 0:
        end_grapples(ctx, t)
    gp = int(t.sheet.get("ghost_power", 0))
    every_hit = ctx.state.options.get("insanity_every_hit", True)
    crossed = gp > 0 and gp > hp and amount > 0 and (every_hit or old >= gp)
    if not dead and crossed and ctx.state.options.get("insanity", "gm_prompt") == "gm_prompt":
        r = ctx.roll("2d6", "insanity roll")
        ctx.open_decision(
            t.id,
            f"{t.name}'s HP fell to {hp}, below Ghost Power {gp}. Insanity Roll: {r.total}. "
            f"Does {t.name} go insane?",
            [{"key": "steady", "label": "No effect"}, {"key": "insane", "label": "Insane"}],
            default="steady",
            trigger=f"{actor.name}'s damage",
            about=f"whether {t.name} goes insane",
            gm_only=True,
            resume={**job, "step": "insanity", "roll": r.total},
        )
        return True
    return False


def end_grapples(ctx: Ctx, c: Combatant) -> None:
    """A grapple ends when either side of it falls Unconscious (or is released)."""
    state = ctx.state
    for key, other_key, field in (("grappling", "grappled", "holds"), ("grappled", "grappling", "by")):
        st = c.statuses.get(key)
        if st is None:
            continue
        ctx.emit("status.removed", combatant=c.id, status=key, reason="grapple ended")
        other = state.combatants.get(st.get(field, ""))
        if other is not None and other_key in other.statuses:
            ctx.emit("status.removed", combatant=other.id, status=other_key, reason="grapple ended")


def act_break_free(ctx: Ctx, c: Combatant, action: Action) -> Refusal | None:
    """Offensive: a grappled character's 2d6 + Grapple Accuracy Boost against the grappler's Passive Evasion."""
    state = ctx.state
    if "grappled" not in c.statuses:
        return Refusal(f"{c.name} is not grappled.")
    why = rules.slot_gate(state, c, "offensive", rules.BREAK_FREE_COST)
    if why:
        return Refusal(why)
    holder = state.combatants.get(c.statuses["grappled"].get("by", ""))
    roll = ctx.roll("2d6", "break free", adds=rules.to_hit_parts(c.sheet, None))
    r, bonus = roll.total, roll.result - roll.total
    evasion = rules.passive_evasion(state.extra, holder.sheet) if holder else 0
    ok = r + bonus >= evasion
    ctx.emit(
        "grapple.break_attempted",
        actor=c.id,
        base=r,
        bonus=bonus,
        total=r + bonus,
        evasion=evasion,
        freed=ok,
        spend=rules.spend("offensive", rules.BREAK_FREE_COST),
    )
    if ok:
        end_grapples(ctx, c)
    return None


def act_release(ctx: Ctx, c: Combatant, action: Action) -> Refusal | None:
    """Bonus action: let go of the grappled character."""
    if "grappling" not in c.statuses:
        return Refusal(f"{c.name} is not grappling anyone.")
    ctx.emit("grapple.released", actor=c.id)
    end_grapples(ctx, c)
    return None


def act_brace(ctx: Ctx, c: Combatant, action: Action) -> Refusal | None:
    """Bonus action, once per Action Block (BLOCK-TURN-3): PDR +1 until the start of one's next turn."""
    if c.extra.get("braced_block"):
        return Refusal("Brace is once per Action Block.")
    why = rules.cost_gate(c, rules.BRACE_COST)
    if why:
        return Refusal(why)
    ctx.emit(
        "stance.entered",
        combatant=c.id,
        actor=c.id,
        stance="brace",
        pdr=rules.BRACE_PDR,
        extra={"brace": rules.BRACE_PDR, "braced_block": True},
        spend=rules.spend(None, rules.BRACE_COST),
    )
    return None


# --- movement and Obstruct Movement (BLOCK-MOVE-1) --------------------------------------------


def act_move(ctx: Ctx, c: Combatant, action: Action) -> Refusal | None:
    state = ctx.state
    why = rules.slot_gate(state, c, "movement", rules.MOVE_COST)
    if why:
        return Refusal(why)
    allowance = rules.move_squares(c)
    blocked, no_stop = obstacles(state, c)
    path = chosen_path(
        action.params,
        c.square,
        state.width,
        state.height,
        blocked,
        no_stop,
        allowance,
        max_len=60,
    )
    if isinstance(path, str):
        return Refusal(path)
    ctx.emit(
        "movement.started",
        actor=c.id,
        path=[list(s) for s in path],
        spend=rules.spend("movement", rules.MOVE_COST),
    )
    run_move(
        ctx, {"kind": "move", "actor": c.id, "path": [list(s) for s in path], "at": 0, "done": 0, "asked": []}
    )
    return None


def _step_to(ctx: Ctx, job: dict[str, Any], index: int, **info: Any) -> None:
    if index > job["done"]:
        seg = job["path"][job["done"] : index + 1]
        ctx.emit("moved", combatant=job["actor"], path=seg, to=seg[-1], **info)
        job["done"] = index


def run_move(ctx: Ctx, job: dict[str, Any]) -> None:
    """Walk the path; before each step an able enemy within Melee Range may Obstruct (ENG-6).

    Each enemy is asked at most once per move, and only on squares the mover
    could stop on (not while crossing an ally).
    """
    state = ctx.state
    mover = state.combatants[job["actor"]]
    obstruct = next((d for d in definitions(state, "defenses").values() if d["kind"] == "obstruct"), None)
    path = job["path"] = _still_open(state, mover, job)
    for idx in range(job["at"], len(path) - 1):
        here = path[idx]
        other = state.occupant(here) if idx else None
        if other is not None and other is not mover:
            continue  # an obstructed move ends where it is: only where the mover may stand
        for o in state.combatants.values():
            if (
                o.side == mover.side
                or not o.able
                or o.pos is None
                or o.id in job["asked"]
                or obstruct is None
                or chebyshev(o.pos, here) > 1
                or rules.cost_gate(o, rules.cost_of(obstruct)) is not None
            ):
                continue
            _step_to(ctx, job, idx)
            job["at"] = idx
            ctx.open_decision(
                o.id,
                f"{mover.name} is moving within {o.name}'s Melee Range. Obstruct Movement?",
                [
                    {
                        "key": "obstruct",
                        "label": f"Obstruct Movement ({obstruct['speed_cost']} Speed, "
                        f"{obstruct['strength_cost']} Strength)",
                    },
                    {"key": "none", "label": "Let them pass"},
                ],
                default="obstruct",
                trigger=f"{mover.name}: movement",
                resume={**job, "step": "obstruct", "by": o.id},
                usual=f"it stands in {mover.name}'s way",
            )
            return
    _step_to(ctx, job, len(path) - 1)


def _still_open(state: BattleState, mover: Combatant, job: dict[str, Any]) -> list[list[int]]:
    """The rest of the move's path as far as the mover can still go: while the move waited on a
    question, the GM may have moved or placed a combatant, or a wall, on a square ahead. The mover
    then stops on the last square before the first one it can no longer cross, and not on an ally's
    (the squares a new move would be refused). A mover the GM moved away, or who can no longer act,
    goes no further. A move that was not paused keeps its whole path: it was checked when chosen."""
    blocked, no_stop = obstacles(state, mover)
    path, done = job["path"], job["done"]
    if not mover.able or mover.pos is None or list(mover.pos) != list(path[done]):
        return list(path[: done + 1])
    end = next((i - 1 for i in range(done + 1, len(path)) if tuple(path[i]) in blocked), len(path) - 1)
    while end > done and tuple(path[end]) in no_stop:
        end -= 1
    return list(path[: end + 1])


# --- movement squares for ENG-5 ---------------------------------------------------------------------
