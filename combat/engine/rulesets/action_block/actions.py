"""Action Block resolution: attacks, grapples, movement, the reaction windows and the insanity prompt.

Each resolver validates everything before its first event (ENG-4). An
attack, grapple or movement that pauses for a reaction window (dodge,
block, obstruct; ENG-6) or the GM's insanity prompt keeps what is left to
do in a JSON ``job`` carried by the decision's ``resume``;
``ActionBlock.resume`` continues it with the answer. Spells and charisma
skills are in ``spells``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from combat.engine.actions import Refusal
from combat.engine.board import Square, chebyshev, chosen_path, steps_within
from combat.engine.rulesets.action_block import rules as R
from combat.engine.rulesets.action_block.content import validate_block_content
from combat.engine.rulesets.base import defined, definition, definitions

if TYPE_CHECKING:
    from combat.engine.actions import Action
    from combat.engine.context import Ctx
    from combat.engine.state import BattleState, Combatant

MOVE_COST = {"speed": 1, "strength": 0}  # a Movement action (the source gives no figure)
GRAPPLE_COST = {"speed": 2, "strength": 2}
BREAK_FREE_COST = {"speed": 1, "strength": 2}
BRACE_COST = {"speed": 0, "strength": 1}
BRACE_PDR = 1
SLOT_NAMES = {"offensive": "Offensive", "movement": "Movement", "verbal": "Verbal"}


# --- lookups ------------------------------------------------------------------------------
def defn(state: BattleState, kind: str, key: Any) -> dict[str, Any] | None:
    return definition(state, kind, key)


def all_defs(state: BattleState, kind: str) -> dict[str, dict[str, Any]]:
    return definitions(state, kind)


def check_sheet(state: BattleState, sheet: dict[str, Any]) -> str | None:
    """A sheet may only name defined content (its weapons, armor, abilities and modifiers)."""
    for field, kinds in (
        ("weapons", ("weapons",)),
        ("abilities", ("spells", "charisma_skills")),
        ("attack_modifiers", ("attack_modifiers",)),
        ("spell_modifiers", ("spell_modifiers",)),
    ):
        unknown = [k for k in sheet.get(field, ()) if all(defn(state, kd, k) is None for kd in kinds)]
        if unknown:
            return f"Unknown {field.replace('_', ' ')}: {', '.join(unknown)}."
    if sheet.get("armor") and defn(state, "armors", sheet["armor"]) is None:
        return f"Unknown armor: {sheet['armor']}."
    return None


def clean_pack(pack: Any) -> tuple[dict[str, Any], dict[str, list[str]]]:
    return validate_block_content(pack)


def cost_of(*defs: dict[str, Any]) -> dict[str, int]:
    return {
        "speed": sum(d.get("speed_cost", 0) for d in defs),
        "strength": sum(d.get("strength_cost", 0) for d in defs),
    }


def cost_gate(c: Combatant, cost: dict[str, int]) -> str | None:
    """BLOCK-RES-4: no action may take Speed or Strength Points below 0."""
    if cost.get("speed", 0) > c.resources.get("speed", 0):
        return f"Needs {cost['speed']} Speed Points ({c.resources.get('speed', 0)} left)."
    if cost.get("strength", 0) > c.resources.get("strength", 0):
        return f"Needs {cost['strength']} Strength Points ({c.resources.get('strength', 0)} left)."
    return None


def blocked_by(state: BattleState, c: Combatant, slot: str) -> str | None:
    for key in c.statuses:
        d = defn(state, "statuses", key)
        if d and slot in d["blocks"]:
            return str(d["name"])
    return None


def slot_gate(state: BattleState, c: Combatant, slot: str | None, cost: dict[str, int]) -> str | None:
    """BLOCK-TURN-1: one Offensive, Movement and Verbal action per turn; statuses; costs."""
    if slot is not None:
        if c.resources.get(slot, 0) < 1:
            return f"{SLOT_NAMES[slot]} action already used this turn."
        name = blocked_by(state, c, slot)
        if name:
            return f"{name}: no {SLOT_NAMES[slot]} action."
    return cost_gate(c, cost)


def spend(slot: str | None, cost: dict[str, int]) -> dict[str, int]:
    out = {k: v for k, v in cost.items() if v}
    if slot:
        out[slot] = 1
    return out


def in_range(a: Combatant, b: Combatant, feet: int) -> bool:
    """BLOCK-RANGE-1: within ``feet`` (5 ft squares, a diagonal step counts 5 ft)."""
    return a.pos is not None and b.pos is not None and chebyshev(a.pos, b.pos) <= R.squares(feet)


def weapon_range(w: dict[str, Any]) -> int:
    return R.MELEE_RANGE_FT if w["kind"] in R.MELEE_KINDS else w["range_ft"]


def attack_targets(state: BattleState, c: Combatant, feet: int) -> list[str]:
    return [t.id for t in state.combatants.values() if t.side != c.side and t.alive and in_range(c, t, feet)]


def pick_targets(
    state: BattleState, c: Combatant, raw: Any, allowed: list[str], most: int
) -> list[str] | Refusal:
    if not isinstance(raw, list) or not raw or not all(isinstance(x, str) for x in raw):
        return Refusal("Choose a target.")
    if len(set(raw)) != len(raw):
        return Refusal("Each target once.")
    if len(raw) > most:
        return Refusal(f"At most {most} target{'s' if most > 1 else ''}.")
    for tid in raw:
        if tid not in allowed:
            t = state.combatants.get(tid)
            return Refusal(f"{t.name} is not a valid target in range." if t else "No such target.")
    return list(raw)


def mods_for(
    state: BattleState, c: Combatant, raw: Any, kind: str, field: str
) -> list[tuple[str, dict[str, Any]]] | Refusal:
    if raw is None:
        raw = []
    if not isinstance(raw, list) or not all(isinstance(x, str) for x in raw) or len(set(raw)) != len(raw):
        return Refusal("Modifiers are a list of different names.")
    out = []
    for key in raw:
        d = defn(state, kind, key) if key in c.sheet.get(field, ()) else None
        if d is None:
            return Refusal(f"{c.name} has no modifier {key!r}.")
        out.append((key, d))
    return out


# --- attacks (BLOCK-HIT, BLOCK-CRIT, BLOCK-DMG, BLOCK-DEF, BLOCK-MOD) ---------------------------
def act_attack(ctx: Ctx, c: Combatant, action: Action) -> Refusal | None:
    state = ctx.state
    p = action.params
    key = p.get("weapon")
    w = defn(state, "weapons", key) if isinstance(key, str) and key in c.sheet.get("weapons", ()) else None
    if w is None:
        return Refusal(f"{c.name} has no such weapon.")
    mods = mods_for(state, c, p.get("modifiers"), "attack_modifiers", "attack_modifiers")
    if isinstance(mods, Refusal):
        return mods
    family = "melee" if w["kind"] in R.MELEE_KINDS else "gun"
    for _, m in mods:
        if m["applies_to"] not in ("any", family):
            return Refusal(f"{m['name']} is for {m['applies_to']} attacks.")
    cost = cost_of(w, *[m for _, m in mods])
    why = slot_gate(state, c, "offensive", cost)
    if why:
        return Refusal(why)
    most = 1 + sum(m["extra_targets"] for _, m in mods)
    targets = pick_targets(state, c, p.get("targets"), attack_targets(state, c, weapon_range(w)), most)
    if isinstance(targets, Refusal):
        return targets
    ctx.emit(
        "attack.declared",
        actor=c.id,
        weapon=key,
        name=w["name"],
        modifiers=[k for k, _ in mods],
        targets=targets,
        spend=spend("offensive", cost),
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
    why = slot_gate(state, c, "offensive", GRAPPLE_COST)
    if why:
        return Refusal(why)
    if "grappling" in c.statuses:
        return Refusal(f"{c.name} is already grappling.")
    allowed = [
        t
        for t in attack_targets(state, c, R.MELEE_RANGE_FT)
        if "grappled" not in state.combatants[t].statuses
    ]
    targets = pick_targets(state, c, action.params.get("targets"), allowed, 1)
    if isinstance(targets, Refusal):
        return targets
    ctx.emit("grapple.declared", actor=c.id, targets=targets, spend=spend("offensive", GRAPPLE_COST))
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
        dodge = defn(state, "defenses", "dodge")
        if t.able and dodge and dodge["kind"] == "dodge" and cost_gate(t, cost_of(dodge)) is None:
            passive, active = evasions(state, t)
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
                f"{actor.name} is about to {what} {t.name}. Dodge? (BLOCK-DEF-1)",
                options,
                default="dodge" if active > passive else "none",
                trigger=f"{actor.name}: {what}",
                resume={**job, "step": "dodge"},
            )
            return
        if roll_hit(ctx, job, dodged=False):
            return


def evasions(state: BattleState, t: Combatant) -> tuple[int, int]:
    return R.passive_evasion(state.extra, t.sheet), R.active_evasion(t.sheet)


def roll_hit(ctx: Ctx, job: dict[str, Any], dodged: bool) -> bool:
    """The to-hit roll against Evasion; True when paused (block window or insanity prompt)."""
    state = ctx.state
    actor, t = state.combatants[job["actor"]], state.combatants[job["t"]]
    passive, active = evasions(state, t)
    evasion = active if dodged else passive
    if job["kind"] == "grapple":
        base = ctx.roll("2d6", "to hit").total
        bonus = R.to_hit_bonus(actor.sheet, None)
        hit = R.is_hit(base + bonus, evasion)
        ctx.emit(
            "grapple.rolled",
            actor=actor.id,
            target=t.id,
            base=base,
            bonus=bonus,
            total=base + bonus,
            evasion=evasion,
            dodged=dodged,
            hit=hit,
        )
        if hit:
            ctx.emit(
                "status.applied", combatant=actor.id, status="grappling", power=0, duration=1, holds=t.id
            )
            ctx.emit("status.applied", combatant=t.id, status="grappled", power=0, duration=1, by=actor.id)
        return False
    w = defined(state, "weapons", job["weapon"])
    mods = [defined(state, "attack_modifiers", k) for k in job["mods"]]
    base = ctx.roll(R.base_to_hit_expr(w), "to hit").total
    bonus = R.to_hit_bonus(actor.sheet, w, mods)
    hit = R.is_hit(base + bonus, evasion)
    crit = R.is_crit(base, hit)
    ctx.emit(
        "attack.rolled",
        actor=actor.id,
        target=t.id,
        base=base,
        bonus=bonus,
        total=base + bonus,
        evasion=evasion,
        dodged=dodged,
        hit=hit,
        crit=crit,
    )
    if not hit:
        return False
    job = {**job, "crit": crit}
    options = block_options(state, t)
    if t.able and options and not t.extra.get("guard"):
        ctx.open_decision(
            t.id,
            f"{actor.name}'s {w['name']} hits {t.name}{' (critical)' if crit else ''}. "
            f"Block before the damage roll? (BLOCK-DEF-2)",
            options + [{"key": "none", "label": "No block"}],
            default="none",
            trigger=f"{actor.name}: {w['name']}",
            resume={**job, "step": "block"},
        )
        return True
    return roll_damage(ctx, job)


def block_options(state: BattleState, t: Combatant) -> list[dict[str, str]]:
    """BLOCK-DEF-2: affordable Block stances, each alone or with Shield Block when the shield is free."""
    defs = all_defs(state, "defenses")
    blocks = [(k, d) for k, d in defs.items() if d["kind"] == "block"]
    shield = shield_pdr(state, t)
    shields = [(k, d) for k, d in defs.items() if d["kind"] == "shield_block"] if shield is not None else []
    combos: list[list[tuple[str, dict[str, Any]]]] = [[b] for b in blocks] + [[s] for s in shields]
    combos += [[b, s] for b in blocks for s in shields]
    out = []
    for combo in combos:
        cost = cost_of(*[d for _, d in combo])
        if cost_gate(t, cost) is None:
            pdr = sum(d["pdr"] for _, d in combo) + (shield or 0) * sum(
                1 for _, d in combo if d["kind"] == "shield_block"
            )
            out.append(
                {
                    "key": "+".join(k for k, _ in combo),
                    "label": f"{' + '.join(d['name'] for _, d in combo)}: PDR +{pdr} "
                    f"({cost['speed']} Speed, {cost['strength']} Strength)",
                }
            )
    return out


def shield_pdr(state: BattleState, t: Combatant) -> int | None:
    """The shield's Shield Block bonus, or None without a shield or when it attacked this Action Block."""
    if t.extra.get("shield_used"):
        return None
    shields = [w for _, w in R.weapons_of(state.extra, t.sheet) if w["kind"] == "shield"]
    return max(w["shield_pdr"] for w in shields) if shields else None


def take_block(ctx: Ctx, t: Combatant, choice: str) -> None:
    state = ctx.state
    keys = choice.split("+")
    defs = [defined(state, "defenses", k) for k in keys]
    shield = shield_pdr(state, t) or 0
    pdr = sum(d["pdr"] + (shield if d["kind"] == "shield_block" else 0) for d in defs)
    ctx.emit(
        "stance.entered",
        combatant=t.id,
        actor=t.id,
        stance=choice,
        pdr=pdr,
        extra={"guard": {"stance": choice, "pdr": pdr}},
        spend=spend(None, cost_of(*defs)),
    )


def roll_damage(ctx: Ctx, job: dict[str, Any]) -> bool:
    """BLOCK-DMG-1/2, BLOCK-CRIT-1 and the Drill's PDR damage; True when paused for insanity."""
    state = ctx.state
    actor, t = state.combatants[job["actor"]], state.combatants[job["t"]]
    w = defined(state, "weapons", job["weapon"])
    mods = [defined(state, "attack_modifiers", k) for k in job["mods"]]
    base = ctx.roll(w["damage"], "damage").total
    bonus = R.damage_bonus(actor.sheet, w, mods)
    guard = (t.extra.get("guard") or {}).get("pdr", 0) + (t.extra.get("brace") or 0)
    kind, reduction = R.reduction_for(w["kind"], t.resources.get("pdr", 0), t.sheet, guard)
    amount = R.damage_dealt(base, bonus, reduction, job.get("crit", False))
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
            f"GM: rule on it (BLOCK-INS-1).",
            [{"key": "steady", "label": "No effect"}, {"key": "insane", "label": "Insane"}],
            default="steady",
            trigger=f"{actor.name}: damage",
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
    why = slot_gate(state, c, "offensive", BREAK_FREE_COST)
    if why:
        return Refusal(why)
    holder = state.combatants.get(c.statuses["grappled"].get("by", ""))
    r = ctx.roll("2d6", "break free").total
    bonus = R.to_hit_bonus(c.sheet, None)
    evasion = R.passive_evasion(state.extra, holder.sheet) if holder else 0
    ok = r + bonus >= evasion
    ctx.emit(
        "grapple.break_attempted",
        actor=c.id,
        base=r,
        bonus=bonus,
        total=r + bonus,
        evasion=evasion,
        freed=ok,
        spend=spend("offensive", BREAK_FREE_COST),
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
    why = cost_gate(c, BRACE_COST)
    if why:
        return Refusal(why)
    ctx.emit(
        "stance.entered",
        combatant=c.id,
        actor=c.id,
        stance="brace",
        pdr=BRACE_PDR,
        extra={"brace": BRACE_PDR, "braced_block": True},
        spend=spend(None, BRACE_COST),
    )
    return None


# --- movement and Obstruct Movement (BLOCK-MOVE-1) --------------------------------------------
def obstacles(state: BattleState, mover: Combatant) -> tuple[set[Square], set[Square]]:
    blocked = {(b[0], b[1]) for b in state.blocked}
    no_stop: set[Square] = set()
    for o in state.combatants.values():
        if o is mover or o.pos is None or not o.alive:
            continue
        (blocked if o.side != mover.side and not o.ko else no_stop).add((o.pos[0], o.pos[1]))
    return blocked, no_stop


def move_squares(c: Combatant) -> int:
    return int(c.sheet.get("movement", 6))


def act_move(ctx: Ctx, c: Combatant, action: Action) -> Refusal | None:
    state = ctx.state
    why = slot_gate(state, c, "movement", MOVE_COST)
    if why:
        return Refusal(why)
    allowance = move_squares(c)
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
    ctx.emit("movement.started", actor=c.id, path=[list(s) for s in path], spend=spend("movement", MOVE_COST))
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
    obstruct = next((d for d in all_defs(state, "defenses").values() if d["kind"] == "obstruct"), None)
    path = job["path"]
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
                or cost_gate(o, cost_of(obstruct)) is not None
            ):
                continue
            _step_to(ctx, job, idx)
            job["at"] = idx
            ctx.open_decision(
                o.id,
                f"{mover.name} is moving within {o.name}'s Melee Range. Obstruct Movement? (BLOCK-MOVE-1)",
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
            )
            return
    _step_to(ctx, job, len(path) - 1)


# --- movement squares for ENG-5 ---------------------------------------------------------------------
def move_steps_for(state: BattleState, c: Combatant) -> tuple[dict[Square, Square], list[Square]]:
    """Where ``c`` can move and how (``board.steps_within``: the board's preview)."""
    blocked, no_stop = obstacles(state, c)
    return steps_within(c.square, move_squares(c), state.width, state.height, blocked, no_stop)
