"""Action Block: the dispatch table, the answers to reaction windows, and the options of ENG-5.

``ACTIONS`` maps action kinds to the resolvers of ``attacks`` and ``spells``;
``PARAMS`` names the parameters of Action Block's own kinds; ``resume``
continues a paused attack, grapple, move or spell with the answer (dodge,
block, obstruct, the GM's insanity ruling); ``legal_actions`` lists the
options.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypedDict

from combat.engine.actions import ActionOption, AttackParams, NoParams, Refusal, TargetsParams
from combat.engine.rulesets.action_block import attacks, rules, spells
from combat.engine.rulesets.base import defined, definition, definitions

if TYPE_CHECKING:
    from combat.engine.context import Ctx
    from combat.engine.state import BattleState, Combatant, Decision


def resume(ctx: Ctx, decision: Decision, choice: str) -> Refusal | None:
    """Continue the paused job with the answer: dodge, block, obstruct or the GM's insanity ruling."""
    job = dict(decision.resume)
    step = job.pop("step")
    state = ctx.state
    if step == "obstruct":
        o = state.combatants.get(job.pop("by"))
        if state.combatants.get(job["actor"]) is None:
            return None
        if choice == "obstruct" and o is not None:
            d = next(d for d in definitions(state, "defenses").values() if d["kind"] == "obstruct")
            ctx.emit(
                "movement.obstructed",
                actor=o.id,
                mover=job["actor"],
                at=job["path"][job["at"]],
                spend=rules.spend(None, rules.cost_of(d)),
            )
            return None
        job["asked"] = [*job["asked"], o.id if o else ""]
        attacks.run_move(ctx, job)
        return None
    t = state.combatants.get(job.get("t", ""))
    if step == "insanity":
        if choice == "insane" and t is not None and t.alive:
            ctx.emit("status.applied", combatant=t.id, status="insane", power=job.get("roll", 0), duration=1)
        job.pop("roll", None)
    elif step == "dodge":
        if choice == "dodge" and t is not None:
            d = defined(state, "defenses", "dodge")
            ctx.emit(
                "dodge.declared", actor=t.id, against=job["actor"], spend=rules.spend(None, rules.cost_of(d))
            )
        if t is not None and attacks.roll_hit(ctx, job, dodged=choice == "dodge"):
            return None
    elif step == "block":
        if choice != "none" and t is not None:
            attacks.take_block(ctx, t, choice)
        if t is not None and attacks.roll_damage(ctx, job):
            return None
    if job["kind"] == "spell":
        spells.run_spell(ctx, job)
    elif job["kind"] in ("attack", "grapple"):
        attacks.run_targets(ctx, job)
    return None


def legal_actions(state: BattleState, c: Combatant) -> list[ActionOption]:
    """ENG-5: attacks (with each modifier), grapples, the move, spells and charisma skills, brace."""
    came_from, ends = rules.move_steps_for(state, c) if c.pos is not None else ({}, [])
    move = _option(
        state,
        c,
        "move",
        "Move",
        "movement",
        rules.MOVE_COST,
        squares=[list(sq) for sq in ends],
        came_from=came_from,
    )
    out = [*_attack_options(state, c), move, *_verbal_options(state, c)]
    if "grappling" in c.statuses:
        out.append(_option(state, c, "release", "Release grapple", None, {}))
    braced = "Brace is once per Action Block." if c.extra.get("braced_block") else None
    out.append(
        _option(
            state, c, "brace", "Brace (PDR +1, once per Action Block)", None, rules.BRACE_COST, why=braced
        )
    )
    return out


def _option(
    state: BattleState,
    c: Combatant,
    kind: str,
    label: str,
    slot: str | None,
    cost: dict[str, int],
    targets: list[str] | None = None,
    squares: list[list[int]] | None = None,
    params: dict[str, Any] | None = None,
    why: str | None = None,
    came_from: dict[tuple[int, int], tuple[int, int]] | None = None,
) -> ActionOption:
    """One option of ``slot`` at ``cost``: greyed out with why (the slot, the points, no target, nowhere to go)."""
    why = why or rules.slot_gate(state, c, slot, cost)
    if why is None and targets is not None and not targets:
        why = "No target in range."
    if why is None and squares is not None and not squares:
        why = "Nowhere to move."
    return ActionOption(
        kind,
        label,
        {k: v for k, v in cost.items() if v},
        targets or [],
        squares or [],
        why is None,
        why or "",
        params or {},
        came_from=came_from or {},
    )


def _attack_options(state: BattleState, c: Combatant) -> list[ActionOption]:
    """The Offensive actions: each weapon, alone and with each attack modifier it takes, and the grapples."""
    out = []
    for key, w in rules.weapons_of(state.extra, c.sheet):
        targets = rules.attack_targets(state, c, rules.weapon_range(w))
        out.append(
            _option(
                state,
                c,
                "attack",
                f"Attack: {w['name']}",
                "offensive",
                rules.cost_of(w),
                targets,
                params={"weapon": key},
            )
        )
        family = "melee" if w["kind"] in rules.MELEE_KINDS else "gun"
        for mkey in c.sheet.get("attack_modifiers", ()):
            m = definition(state, "attack_modifiers", mkey)
            if m and m["applies_to"] in ("any", family):
                out.append(
                    _option(
                        state,
                        c,
                        "attack",
                        f"Attack: {w['name']} ({m['name']})",
                        "offensive",
                        rules.cost_of(w, m),
                        targets,
                        params={"weapon": key, "modifiers": [mkey]},
                    )
                )
    grapple_targets = [
        t
        for t in rules.attack_targets(state, c, rules.MELEE_RANGE_FT)
        if "grappled" not in state.combatants[t].statuses
    ]
    grappling = "Already grappling." if "grappling" in c.statuses else None
    out.append(
        _option(
            state,
            c,
            "grapple",
            "Initiate Grapple",
            "offensive",
            rules.GRAPPLE_COST,
            grapple_targets,
            why=grappling,
        )
    )
    if "grappled" in c.statuses:
        out.append(_option(state, c, "break_free", "Break free", "offensive", rules.BREAK_FREE_COST))
    return out


def _verbal_options(state: BattleState, c: Combatant) -> list[ActionOption]:
    """The Verbal actions (each spell, alone and with each casting modifier, each charisma skill, Echo Spell)
    and the Bonus Activate Spell."""
    out = []
    for key in c.sheet.get("abilities", ()):
        spell = definition(state, "spells", key)
        if spell is not None:
            out.append(
                _option(
                    state,
                    c,
                    "cast_spell",
                    f"Cast Spell: {spell['name']}",
                    "verbal",
                    rules.cost_of(spell),
                    params={"spell": key},
                )
            )
            for mkey in c.sheet.get("spell_modifiers", ()):
                m = definition(state, "spell_modifiers", mkey)
                if m:
                    out.append(
                        _option(
                            state,
                            c,
                            "cast_spell",
                            f"Cast Spell: {spell['name']} ({m['name']})",
                            "verbal",
                            rules.cost_of(spell, m),
                            params={"spell": key, "modifiers": [mkey]},
                        )
                    )
            continue
        skill = definition(state, "charisma_skills", key)
        if skill is not None:
            out.append(
                _option(
                    state,
                    c,
                    "charisma",
                    f"Charisma: {skill['name']}",
                    "verbal",
                    rules.cost_of(skill),
                    rules.charisma_targets(state, c, skill),
                    params={"skill": key},
                )
            )
    last = c.extra.get("last_spell")
    spell = definition(state, "spells", last["spell"]) if last else None
    if spell:
        out.append(
            _option(state, c, "echo_spell", f"Echo Spell: {spell['name']}", "verbal", rules.cost_of(spell))
        )
    reach = rules.spell_reach(state, c)
    if reach is not None:
        spell, _, feet, _ = reach
        targets = rules.spell_targets(state, c, spell, feet)
        out.append(_option(state, c, "activate_spell", f"Activate Spell: {spell['name']}", None, {}, targets))
    return out


class BlockAttackParams(AttackParams, total=False):
    """``attack``: also the attack ``modifiers`` chosen with the weapon."""

    modifiers: list[str]


# The required keys sit in a total base class: with postponed annotations, ``Required[...]`` is not seen.
class _Spell(TypedDict):
    spell: str


class SpellParams(_Spell, total=False):
    """``cast_spell``: the ``spell`` and its casting ``modifiers``."""

    modifiers: list[str]


class _Skill(TypedDict):
    skill: str


class CharismaParams(_Skill, total=False):
    """``charisma``: the charisma ``skill`` on its ``targets``."""

    targets: list[str]


ACTIONS = {
    "attack": attacks.act_attack,
    "grapple": attacks.act_grapple,
    "break_free": attacks.act_break_free,
    "move": attacks.act_move,
    "cast_spell": spells.act_cast,
    "echo_spell": spells.act_echo,
    "activate_spell": spells.act_activate,
    "charisma": spells.act_charisma,
    "release": attacks.act_release,
    "brace": attacks.act_brace,
}
PARAMS: dict[str, type] = {
    "attack": BlockAttackParams,
    "grapple": TargetsParams,
    "break_free": NoParams,
    "release": NoParams,
    "brace": NoParams,
    "cast_spell": SpellParams,
    "echo_spell": NoParams,
    "activate_spell": TargetsParams,
    "charisma": CharismaParams,
}
