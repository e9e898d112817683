"""Action Block (source: seeds/004). Grid of 5 ft squares, Strength and Speed Points.

Rules implemented (RULESETS.md, BLOCK-*): turn order by descending Maximum
Speed Points with 3d6 roll-offs, fixed for the battle; each Action Block
(round) every character gets one turn with at most one Offensive, one
Movement and one Verbal action and any Bonus actions; battle maxima of
Strength (minus equipment weight) and Speed (minus the armor's reduction),
restored at battle start, paid by every action and never below 0; passive
and active evasion; to-hit 2d6 (1d6 shotgun) + bonuses against Evasion,
crits on a base 12; damage against PDR (SDR for a Tesla); Unconscious at 0
HP, Dead when hurt while Unconscious; the GM's Insanity Roll prompt; Dodge,
Block stances, Shield Block and Obstruct Movement as reaction windows;
grapples; Cast, Echo and Activate Spell; charisma skills; PDR regeneration.
Arithmetic is in ``rules``, resolution in ``actions`` and ``spells``,
content (weapons, armors, defenses, modifiers, spells, skills, statuses,
heroes, monsters) in ``content``, options and sheet in ``sheet``.

Action kinds: ``attack {weapon, targets, modifiers?}``, ``grapple {targets}``,
``break_free {}``, ``move {to | path}``, ``cast_spell {spell, modifiers?}``,
``echo_spell {}``, ``activate_spell {targets}``, ``charisma {skill,
targets}``, ``release {}``, ``brace {}``, ``end_turn {}``.

Readings where the source is silent: when Speed and Strength Points come back
(``points_restore``) and whether every hit below Ghost Power asks for an
Insanity Roll (``insanity_every_hit``) are options; the other readings are the
``readings`` sentences the GM sees with the house rules. HP may go below 0
(BLOCK-HP-1: "reduced to 0 or less"): healing counts up from there.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from combat.engine.actions import ActionOption
from combat.engine.rulesets.action_block import actions as P
from combat.engine.rulesets.action_block import rules as R
from combat.engine.rulesets.action_block import spells as S
from combat.engine.rulesets.action_block.content import DEMO_PARTY, HEROES, KINDS, MONSTERS, STARTER
from combat.engine.rulesets.action_block.sheet import OPTIONS, SHEET
from combat.engine.rulesets.base import (
    HP_RESTORED,
    STATUSES_END,
    CarryOver,
    Ruleset,
    count_down_statuses,
    defined,
)

if TYPE_CHECKING:
    from combat.engine.actions import Refusal
    from combat.engine.context import Ctx
    from combat.engine.state import BattleState, Combatant, Decision

__all__ = ["DEMO_PARTY", "HEROES", "MONSTERS", "STARTER", "ActionBlock"]

SLOTS = ("offensive", "movement", "verbal")


# --- appliers --------------------------------------------------------------------------------
def apply_extra(state: BattleState, d: dict[str, Any]) -> None:
    state.combatants[d["combatant"]].extra.update(d["extra"])


def apply_resources(state: BattleState, d: dict[str, Any]) -> None:
    state.combatants[d["combatant"]].resources.update(d["resources"])


def apply_block_started(state: BattleState, d: dict[str, Any]) -> None:
    for c in state.combatants.values():
        c.extra.pop("shield_used", None)
        c.extra.pop("braced_block", None)


APPLIERS = {
    "stance.entered": apply_extra,
    "spell.cast": apply_extra,
    "spell.activated": apply_extra,
    "shield.used": apply_extra,
    "turn.prepared": apply_extra,
    "pdr.damaged": apply_resources,
    "points.drained": apply_resources,
    "block.started": apply_block_started,
}


class ActionBlock(Ruleset):
    """The Action Block rules as an engine plugin."""

    key = "action-block"
    name = "Action Block"
    board = "grid"
    source = "004_b1d5fda312bebd08.txt"
    options = OPTIONS
    sheet_schema = SHEET
    actions = {
        "attack": P.act_attack,
        "grapple": P.act_grapple,
        "break_free": P.act_break_free,
        "move": P.act_move,
        "cast_spell": S.act_cast,
        "echo_spell": S.act_echo,
        "activate_spell": S.act_activate,
        "charisma": S.act_charisma,
        "release": P.act_release,
        "brace": P.act_brace,
    }
    appliers = APPLIERS
    content = STARTER
    heroes, monsters = HEROES, MONSTERS
    content_check = staticmethod(P.clean_pack)
    content_kinds = KINDS
    readings = (
        "A Movement action costs 1 Speed Point and moves up to the sheet's Movement squares; a diagonal step "
        "counts 5 ft.",
        "Initiate Grapple costs 2 Speed and 2 Strength Points.",
        "The block stance lasts until the defender's next turn: no second block prompt while in it.",
        "The Insanity Roll is 2d6, shown to the GM, who rules on it (Insane is a status); a character without "
        "Ghost Power never makes one.",
        "Spells hit without a to-hit roll and are reduced by Spell Damage Reduction.",
        "The Charisma Rolls are 2d6 + Charisma, plus the skill's bonus on offense.",
        'Damage counts as "any damage" when it is above 0.',
        "A grapple blocks both sides' Movement actions and ends when either falls; a grappled character may try "
        "to Break Free as its Offensive action.",
        "Obstruct Movement is offered to able enemies within 5 ft of the mover, each at most once per move, and "
        "only on squares the mover may stop on.",
        "Echo Spell casts the last spell again with its modifiers, for the spell's own cost.",
        "An unarmored sheet may give its own Passive Evasion and Speed Point Reduction (named armor replaces "
        "them).",
    )
    carry_over = (
        CarryOver(
            "Speed and Strength Points",
            False,
            'The source: "Each character starts battle with their '
            '[Current Speed Points] and [Current Strength Points] restored."',
        ),
        HP_RESTORED,
        STATUSES_END,
    )

    # --- content (ENG-10) ----------------------------------------------------------------
    def check_sheet_content(self, state: BattleState, sheet: dict[str, Any]) -> str | None:
        return P.check_sheet(state, sheet)

    # --- combatants --------------------------------------------------------------------------
    def init_combatant(self, sheet: dict[str, Any]) -> dict[str, Any]:
        """Resources before the battle starts: the battle maxima (BLOCK-RES-1..3) and PDR."""
        hp = int(sheet.get("hp", 1))
        extra: dict[str, Any] = {}
        return {
            "hp": hp,
            "max_hp": hp,
            "extra": {},
            "resources": {
                "speed": R.battle_speed(extra, sheet),
                "strength": R.battle_strength(extra, sheet),
                "pdr": R.undamaged_pdr(extra, sheet),
                "offensive": 0,
                "movement": 0,
                "verbal": 0,
            },
        }

    def hp_fields(self, c: Combatant, hp: int) -> dict[str, Any]:
        """BLOCK-HP-2: the dead stay dead whatever their HP is set to."""
        return {"ko": hp <= 0} if c.alive else {}

    # --- flow ------------------------------------------------------------------------------------
    def on_battle_start(self, ctx: Ctx) -> None:
        """BLOCK-ORDER-1/2 and BLOCK-RES-3: turn order by Maximum Speed Points; points set to battle maxima."""
        state = ctx.state
        speeds = {cid: int(c.sheet.get("max_speed", 0)) for cid, c in state.combatants.items()}

        def roll_off(ids: list[str]) -> dict[str, int]:
            out = {}
            for cid in ids:
                out[cid] = ctx.roll("3d6", "turn order roll-off").total
                ctx.emit("initiative.rolloff", combatant=cid, total=out[cid], max_speed=speeds[cid])
            return out

        ctx.emit("order.set", order=R.turn_order(speeds, roll_off))
        self._restore(ctx, pdr=True)

    def _restore(self, ctx: Ctx, pdr: bool = False) -> None:
        state = ctx.state
        for c in state.combatants.values():
            res = {
                "speed": R.battle_speed(state.extra, c.sheet),
                "strength": R.battle_strength(state.extra, c.sheet),
            }
            if pdr:
                res["pdr"] = R.undamaged_pdr(state.extra, c.sheet)
            ctx.emit("resources.set", combatant=c.id, reason="battle maxima", resources=res)

    def on_round_start(self, ctx: Ctx) -> None:
        """A new Action Block: once-per-block uses and the shield's offensive use are forgotten."""
        ctx.emit("block.started", round=ctx.state.round)
        if ctx.state.round > 1 and ctx.state.options.get("points_restore") == "each_block":
            self._restore(ctx)

    def on_turn_start(self, ctx: Ctx, c: Combatant) -> None:
        """BLOCK-TURN-1 and BLOCK-PDR-1: fresh action types; reduced PDR regenerates 1; stances end."""
        res = dict.fromkeys(SLOTS, 1)
        full = R.undamaged_pdr(ctx.state.extra, c.sheet)
        if c.resources.get("pdr", 0) < full:
            res["pdr"] = c.resources.get("pdr", 0) + 1
        ctx.emit("resources.set", combatant=c.id, resources=res, reason="turn start")
        if c.extra.get("guard") or c.extra.get("brace"):
            ctx.emit("turn.prepared", combatant=c.id, extra={"guard": None, "brace": 0})

    def on_turn_end(self, ctx: Ctx, c: Combatant) -> None:
        """Timed statuses count down at the end of their bearer's turn."""

        def timed(key: str) -> bool:
            d = P.defn(ctx.state, "statuses", key)
            return d is None or bool(d["timed"])

        count_down_statuses(ctx, c, timed)

    def resume(self, ctx: Ctx, decision: Decision, choice: str) -> Refusal | None:
        """Continue the paused job with the answer: dodge, block, obstruct or the GM's insanity ruling."""
        job = dict(decision.resume)
        step = job.pop("step")
        state = ctx.state
        if step == "obstruct":
            o = state.combatants.get(job.pop("by"))
            if state.combatants.get(job["actor"]) is None:
                return None
            if choice == "obstruct" and o is not None:
                d = next(d for d in P.all_defs(state, "defenses").values() if d["kind"] == "obstruct")
                ctx.emit(
                    "movement.obstructed",
                    actor=o.id,
                    mover=job["actor"],
                    at=job["path"][job["at"]],
                    spend=P.spend(None, P.cost_of(d)),
                )
                return None
            job["asked"] = [*job["asked"], o.id if o else ""]
            P.run_move(ctx, job)
            return None
        t = state.combatants.get(job.get("t", ""))
        if step == "insanity":
            if choice == "insane" and t is not None and t.alive:
                ctx.emit(
                    "status.applied", combatant=t.id, status="insane", power=job.get("roll", 0), duration=1
                )
            job.pop("roll", None)
        elif step == "dodge":
            if choice == "dodge" and t is not None:
                d = defined(state, "defenses", "dodge")
                ctx.emit(
                    "dodge.declared", actor=t.id, against=job["actor"], spend=P.spend(None, P.cost_of(d))
                )
            if t is not None and P.roll_hit(ctx, job, dodged=choice == "dodge"):
                return None
        elif step == "block":
            if choice != "none" and t is not None:
                P.take_block(ctx, t, choice)
            if t is not None and P.roll_damage(ctx, job):
                return None
        if job["kind"] == "spell":
            S.run_spell(ctx, job)
        elif job["kind"] in ("attack", "grapple"):
            P.run_targets(ctx, job)
        return None

    # --- ENG-5 ---------------------------------------------------------------------------------------
    def legal_actions(self, state: BattleState, c: Combatant) -> list[ActionOption]:
        out: list[ActionOption] = []

        def add(
            kind: str,
            label: str,
            slot: str | None,
            cost: dict[str, int],
            targets: list[str] | None = None,
            squares: list[list[int]] | None = None,
            params: dict[str, Any] | None = None,
            why: str | None = None,
            came_from: dict[tuple[int, int], tuple[int, int]] | None = None,
        ) -> None:
            why = why or P.slot_gate(state, c, slot, cost)
            if why is None and targets is not None and not targets:
                why = "No target in range."
            if why is None and squares is not None and not squares:
                why = "Nowhere to move."
            out.append(
                ActionOption(
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
            )

        for key, w in R.weapons_of(state.extra, c.sheet):
            targets = P.attack_targets(state, c, P.weapon_range(w))
            add("attack", f"Attack: {w['name']}", "offensive", P.cost_of(w), targets, params={"weapon": key})
            family = "melee" if w["kind"] in R.MELEE_KINDS else "gun"
            for mkey in c.sheet.get("attack_modifiers", ()):
                m = P.defn(state, "attack_modifiers", mkey)
                if m and m["applies_to"] in ("any", family):
                    add(
                        "attack",
                        f"Attack: {w['name']} ({m['name']})",
                        "offensive",
                        P.cost_of(w, m),
                        targets,
                        params={"weapon": key, "modifiers": [mkey]},
                    )
        grapple_targets = [
            t
            for t in P.attack_targets(state, c, R.MELEE_RANGE_FT)
            if "grappled" not in state.combatants[t].statuses
        ]
        add(
            "grapple",
            "Initiate Grapple",
            "offensive",
            P.GRAPPLE_COST,
            grapple_targets,
            why="Already grappling." if "grappling" in c.statuses else None,
        )
        if "grappled" in c.statuses:
            add("break_free", "Break free", "offensive", P.BREAK_FREE_COST)
        came_from, ends = P.move_steps_for(state, c) if c.pos is not None else ({}, [])
        add("move", "Move", "movement", P.MOVE_COST, squares=[list(sq) for sq in ends], came_from=came_from)
        for key in c.sheet.get("abilities", ()):
            spell = P.defn(state, "spells", key)
            if spell is not None:
                add(
                    "cast_spell",
                    f"Cast Spell: {spell['name']}",
                    "verbal",
                    P.cost_of(spell),
                    params={"spell": key},
                )
                for mkey in c.sheet.get("spell_modifiers", ()):
                    m = P.defn(state, "spell_modifiers", mkey)
                    if m:
                        add(
                            "cast_spell",
                            f"Cast Spell: {spell['name']} ({m['name']})",
                            "verbal",
                            P.cost_of(spell, m),
                            params={"spell": key, "modifiers": [mkey]},
                        )
                continue
            skill = P.defn(state, "charisma_skills", key)
            if skill is not None:
                add(
                    "charisma",
                    f"Charisma: {skill['name']}",
                    "verbal",
                    P.cost_of(skill),
                    S.charisma_targets(state, c, skill),
                    params={"skill": key},
                )
        last = c.extra.get("last_spell")
        if last:
            spell = P.defn(state, "spells", last["spell"])
            if spell:
                add("echo_spell", f"Echo Spell: {spell['name']}", "verbal", P.cost_of(spell))
        reach = S.spell_reach(state, c)
        if reach is not None:
            spell, _, feet, _ = reach
            add(
                "activate_spell",
                f"Activate Spell: {spell['name']}",
                None,
                {},
                S.spell_targets(state, c, spell, feet),
            )
        if "grappling" in c.statuses:
            add("release", "Release grapple", None, {})
        add(
            "brace",
            "Brace (PDR +1, once per Action Block)",
            None,
            P.BRACE_COST,
            why="Brace is once per Action Block." if c.extra.get("braced_block") else None,
        )
        return out
