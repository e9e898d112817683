"""Action Block (source: seeds/004). Grid of 5 ft squares, Strength and Speed Points.

Rules implemented (docs/RULESETS.md, BLOCK-*): turn order by descending Maximum
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
The package has the modules every ruleset has (``rulesets/README.md``): the
rules in ``rules``, the dispatch table, ``resume`` and the options of ENG-5 in
``actions``, its events in ``events``, content (weapons, armors, defenses,
modifiers, spells, skills, statuses, heroes, monsters) in ``content``, options
and sheet in ``sheet``; and two of its own: the resolution of attacks,
grapples and moves in ``attacks``, of spells and charisma in ``spells``.

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

from combat.engine.rulesets.action_block import actions, content, events, rules, sheet, tactics
from combat.engine.rulesets.action_block.content import (
    DEMO_PARTY,
    HEROES,
    MONSTERS,
    STARTER,
)
from combat.engine.rulesets.base import (
    HP_RESTORED,
    STATUSES_END,
    CarryOver,
    Ruleset,
    count_down_statuses,
    definition,
)
from combat.engine.rulesets.wiring import wired

if TYPE_CHECKING:
    from combat.engine.context import Ctx
    from combat.engine.state import BattleState, Combatant

__all__ = ["DEMO_PARTY", "HEROES", "MONSTERS", "STARTER", "ActionBlock"]

SLOTS = ("offensive", "movement", "verbal")


@wired(sheet, content, actions, events, tactics, check=content.validate_block_content)
class ActionBlock(Ruleset):
    """The Action Block rules as an engine plugin."""

    key = "action-block"
    name = "Action Block"
    summary = "Modern action on 5 ft squares: guns, spells, dodges and blocks."
    unattended = {"insanity": "off"}  # the Insanity Roll is a prompt only the GM answers
    board = "grid"
    source = "004_b1d5fda312bebd08.txt"
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
            "Every battle starts with Speed and Strength Points back to full.",
        ),
        HP_RESTORED,
        STATUSES_END,
    )

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
                "speed": rules.battle_speed(extra, sheet),
                "strength": rules.battle_strength(extra, sheet),
                "pdr": rules.undamaged_pdr(extra, sheet),
                "offensive": 0,
                "movement": 0,
                "verbal": 0,
            },
        }

    def stock(self, state: BattleState, c: Combatant) -> dict[str, tuple[int, int | None]]:
        """Speed and Strength Points: a battle's pools (the action types come back each turn), unless
        the house rule gives them back at every Action Block."""
        if state.options.get("points_restore") == "each_block":
            return {}
        return {
            "Speed Points": (
                int(c.resources.get("speed", 0)),
                rules.battle_speed(state.extra, c.sheet),
            ),
            "Strength Points": (
                int(c.resources.get("strength", 0)),
                rules.battle_strength(state.extra, c.sheet),
            ),
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

        ctx.emit("order.set", order=rules.turn_order(speeds, roll_off))
        self._restore(ctx, pdr=True)

    def _restore(self, ctx: Ctx, pdr: bool = False) -> None:
        state = ctx.state
        for c in state.combatants.values():
            res = {
                "speed": rules.battle_speed(state.extra, c.sheet),
                "strength": rules.battle_strength(state.extra, c.sheet),
            }
            if pdr:
                res["pdr"] = rules.undamaged_pdr(state.extra, c.sheet)
            ctx.emit("resources.set", combatant=c.id, reason="battle maxima", resources=res)

    def on_round_start(self, ctx: Ctx) -> None:
        """A new Action Block: once-per-block uses and the shield's offensive use are forgotten."""
        ctx.emit("block.started", round=ctx.state.round)
        if ctx.state.round > 1 and ctx.state.options.get("points_restore") == "each_block":
            self._restore(ctx)

    def on_turn_start(self, ctx: Ctx, c: Combatant) -> None:
        """BLOCK-TURN-1 and BLOCK-PDR-1: fresh action types; reduced PDR regenerates 1; stances end."""
        res = dict.fromkeys(SLOTS, 1)
        full = rules.undamaged_pdr(ctx.state.extra, c.sheet)
        if c.resources.get("pdr", 0) < full:
            res["pdr"] = c.resources.get("pdr", 0) + 1
        ctx.emit("resources.set", combatant=c.id, resources=res, reason="turn start")
        if c.extra.get("guard") or c.extra.get("brace"):
            ctx.emit("turn.prepared", combatant=c.id, extra={"guard": None, "brace": 0})

    def on_turn_end(self, ctx: Ctx, c: Combatant) -> None:
        """Timed statuses count down at the end of their bearer's turn."""

        def timed(key: str) -> bool:
            d = definition(ctx.state, "statuses", key)
            return d is None or bool(d["timed"])

        count_down_statuses(ctx, c, timed)
