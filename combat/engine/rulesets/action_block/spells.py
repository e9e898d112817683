"""Action Block spells (BLOCK-SPELL-1/2) and charisma skills (BLOCK-CHA-1).

Cast Spell and Echo Spell are Verbal actions entering the Spell Casting
stance; Activate Spell is a Bonus action resolving the stance's spell on
each target in turn (a damaging spell may pause for the GM's insanity
prompt, so it runs as a resumable ``job`` like an attack).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from combat.engine.actions import Refusal
from combat.engine.rulesets.action_block import rules
from combat.engine.rulesets.action_block.attacks import deal
from combat.engine.rulesets.base import defined, definition

if TYPE_CHECKING:
    from combat.engine.actions import Action
    from combat.engine.context import Ctx
    from combat.engine.state import Combatant


def _cast(ctx: Ctx, c: Combatant, key: Any, raw_mods: Any, echo: bool) -> Refusal | None:
    state = ctx.state
    spell = (
        definition(state, "spells", key)
        if isinstance(key, str) and key in c.sheet.get("abilities", ())
        else None
    )
    if spell is None:
        return Refusal(f"{c.name} knows no such spell.")
    mods = rules.mods_for(state, c, raw_mods, "spell_modifiers", "spell_modifiers")
    if isinstance(mods, Refusal):
        return mods
    cost = rules.cost_of(spell) if echo else rules.cost_of(spell, *[m for _, m in mods])
    why = rules.slot_gate(state, c, "verbal", cost)
    if why:
        return Refusal(why)
    casting = {"spell": key, "mods": [k for k, _ in mods]}
    ctx.emit(
        "spell.cast",
        actor=c.id,
        combatant=c.id,
        spell=key,
        name=spell["name"],
        modifiers=casting["mods"],
        echo=echo,
        extra={"casting": casting, "last_spell": casting},
        spend=rules.spend("verbal", cost),
    )
    return None


def act_cast(ctx: Ctx, c: Combatant, action: Action) -> Refusal | None:
    """Cast Spell (Verbal): enter the Spell Casting stance with the chosen Spell Casting Modifiers."""
    return _cast(ctx, c, action.params.get("spell"), action.params.get("modifiers"), echo=False)


def act_echo(ctx: Ctx, c: Combatant, action: Action) -> Refusal | None:
    """Echo Spell (Verbal): cast the last spell again with its modifiers, paying only the spell's cost."""
    last = c.extra.get("last_spell")
    if not last:
        return Refusal("No spell to echo yet.")
    return _cast(ctx, c, last["spell"], last["mods"], echo=True)


def act_activate(ctx: Ctx, c: Combatant, action: Action) -> Refusal | None:
    """Activate Spell (Bonus): the spell's effect on each target, leaving the Spell Casting stance."""
    state = ctx.state
    reach = rules.spell_reach(state, c)
    if reach is None:
        return Refusal("Cast a spell first (Spell Casting stance).")
    spell, _, feet, most = reach
    targets = rules.pick_targets(
        state, c, action.params.get("targets"), rules.spell_targets(state, c, spell, feet), most
    )
    if isinstance(targets, Refusal):
        return targets
    casting = c.extra["casting"]
    ctx.emit(
        "spell.activated",
        actor=c.id,
        combatant=c.id,
        spell=casting["spell"],
        targets=targets,
        extra={"casting": None},
    )
    run_spell(
        ctx,
        {
            "kind": "spell",
            "actor": c.id,
            "spell": casting["spell"],
            "mods": casting["mods"],
            "targets": targets,
            "i": 0,
        },
    )
    return None


def run_spell(ctx: Ctx, job: dict[str, Any]) -> None:
    state = ctx.state
    actor = state.combatants[job["actor"]]
    spell = defined(state, "spells", job["spell"])
    mods = [m for m in (definition(state, "spell_modifiers", k) for k in job["mods"]) if m]
    while job["i"] < len(job["targets"]):
        t = state.combatants.get(job["targets"][job["i"]])
        job["i"] += 1
        if t is None or not t.alive:
            continue
        job["t"] = t.id
        r = ctx.roll(spell["base"], "spell effect", adds=rules.spell_parts(actor.sheet, mods))
        base, effect = r.total, r.result
        if spell["effect"] == "heal":
            hp = min(t.max_hp, t.hp + max(0, effect))
            ctx.emit(
                "healed",
                actor=actor.id,
                target=t.id,
                base=base,
                effect=effect,
                amount=hp - t.hp,
                hp=hp,
                ko=hp <= 0,
            )
            continue
        reduction = int(t.sheet.get("sdr", 0)) + int(t.sheet.get("sdr_boost", 0))
        amount = max(0, effect - reduction)
        if deal(
            ctx,
            actor,
            t,
            amount,
            job,
            base=base,
            effect=effect,
            reduction=reduction,
            reduced_by="sdr",
            spell=job["spell"],
        ):
            return


def _charm(ctx: Ctx, c: Combatant, t: Combatant, skill: dict[str, Any]) -> None:
    """One target's Defensive Charisma Roll against ``c``'s offensive one; on a success, the skill's effect."""
    off = ctx.roll(
        "2d6",
        "offensive charisma roll",
        adds=[(int(c.sheet.get("charisma", 0)), "Charisma"), (skill["bonus"], skill["name"])],
    ).result
    dfn = ctx.roll(
        "2d6", "defensive charisma roll", adds=[(int(t.sheet.get("charisma", 0)), "Charisma")]
    ).result
    ok = off >= dfn
    ctx.emit("charisma.rolled", actor=c.id, target=t.id, offensive=off, defensive=dfn, success=ok)
    if not ok:
        return
    if skill["effect"] == "status":
        ctx.emit(
            "status.applied",
            combatant=t.id,
            status=skill["status"],
            power=0,
            duration=skill["duration"],
            by=c.id,
        )
    else:
        res = skill["effect"]
        ctx.emit(
            "points.drained",
            combatant=t.id,
            actor=c.id,
            resource=res,
            resources={res: max(0, t.resources.get(res, 0) - skill["amount"])},
        )


def act_charisma(ctx: Ctx, c: Combatant, action: Action) -> Refusal | None:
    """BLOCK-CHA-1: Offensive Charisma Roll against each target's Defensive Charisma Roll."""
    state = ctx.state
    key = action.params.get("skill")
    skill = (
        definition(state, "charisma_skills", key)
        if isinstance(key, str) and key in c.sheet.get("abilities", ())
        else None
    )
    if skill is None:
        return Refusal(f"{c.name} has no such charisma skill.")
    cost = rules.cost_of(skill)
    why = rules.slot_gate(state, c, "verbal", cost)
    if why:
        return Refusal(why)
    targets = rules.pick_targets(
        state, c, action.params.get("targets"), rules.charisma_targets(state, c, skill), skill["max_targets"]
    )
    if isinstance(targets, Refusal):
        return targets
    ctx.emit(
        "charisma.used",
        actor=c.id,
        skill=key,
        name=skill["name"],
        targets=targets,
        spend=rules.spend("verbal", cost),
    )
    for tid in targets:
        _charm(ctx, c, state.combatants[tid], skill)
    return None
