"""Action Block's events: their fields, their sentences in the log, and how they change the state.

``EVENTS`` (registered as ``ActionBlock.events``) holds the types only Action
Block emits and the fields it adds to generic ones; ``APPLIERS`` folds those
that change the state.
"""

# No ``from __future__ import annotations`` here: the TypedDicts' Required markers must be real objects.
from collections.abc import Set as AbstractSet
from typing import Any, Required

from combat.engine.events import (
    GENERIC_EVENTS,
    AttackDeclared,
    AttackRolled,
    DamageDealt,
    EventType,
    Healed,
    InitiativeRolloff,
    Recorded,
    StatusApplied,
    TurnPrepared,
)
from combat.engine.state import BattleState
from combat.engine.words import Names, on_targets, spoken, who

# --- fields ------------------------------------------------------------------------------------


class BlockStarted(Recorded, total=False):
    """``block.started``."""

    round: Required[int]


class CharismaRolled(Recorded, total=False):
    """``charisma.rolled``."""

    actor: Required[str]
    defensive: Required[int]
    offensive: Required[int]
    success: Required[bool]
    target: Required[str]


class CharismaUsed(Recorded, total=False):
    """``charisma.used``."""

    actor: Required[str]
    name: Required[str]
    skill: Required[str]
    targets: Required[list[str]]


class DodgeDeclared(Recorded, total=False):
    """``dodge.declared``."""

    actor: Required[str]
    against: Required[str]


class GrappleBreakAttempted(Recorded, total=False):
    """``grapple.break_attempted``."""

    actor: Required[str]
    base: Required[int]
    bonus: Required[int]
    evasion: Required[int]
    freed: Required[bool]
    total: Required[int]


class GrappleDeclared(Recorded, total=False):
    """``grapple.declared``."""

    actor: Required[str]
    targets: Required[list[str]]


class GrappleReleased(Recorded, total=False):
    """``grapple.released``."""

    actor: Required[str]


class GrappleRolled(Recorded, total=False):
    """``grapple.rolled``."""

    actor: Required[str]
    base: Required[int]
    bonus: Required[int]
    dodged: Required[bool]
    evasion: Required[int]
    hit: Required[bool]
    target: Required[str]
    total: Required[int]


class MovementObstructed(Recorded, total=False):
    """``movement.obstructed``."""

    actor: Required[str]
    at: Required[list[int]]
    mover: Required[str]


class MovementStarted(Recorded, total=False):
    """``movement.started``."""

    actor: Required[str]
    path: Required[list[list[int]]]


class PdrDamaged(Recorded, total=False):
    """``pdr.damaged``."""

    by: Required[str]
    combatant: Required[str]
    resources: Required[dict[str, int]]


class PointsDrained(Recorded, total=False):
    """``points.drained``."""

    actor: Required[str]
    combatant: Required[str]
    resource: Required[str]
    resources: Required[dict[str, int]]


class ShieldUsed(Recorded, total=False):
    """``shield.used``."""

    combatant: Required[str]
    extra: Required[dict[str, Any]]


class SpellActivated(Recorded, total=False):
    """``spell.activated``."""

    actor: Required[str]
    combatant: Required[str]
    extra: Required[dict[str, Any]]
    spell: Required[str]
    targets: Required[list[str]]


class SpellCast(Recorded, total=False):
    """``spell.cast``."""

    actor: Required[str]
    combatant: Required[str]
    echo: Required[bool]
    extra: Required[dict[str, Any]]
    modifiers: Required[list[str]]
    name: Required[str]
    spell: Required[str]


class StanceEntered(Recorded, total=False):
    """``stance.entered``."""

    actor: Required[str]
    combatant: Required[str]
    extra: Required[dict[str, Any]]
    pdr: Required[int]
    stance: Required[str]


class BlockAttackDeclared(AttackDeclared, total=False):
    """``attack.declared``: the attack ``modifiers`` used."""

    modifiers: list[str]


class BlockAttackRolled(AttackRolled, total=False):
    """``attack.rolled``: the 2d6 ``base`` + ``bonus`` (``total``) against the target's ``evasion``."""

    base: int
    bonus: int
    evasion: Required[int]
    total: int


class BlockDamageDealt(DamageDealt, total=False):
    """``damage.dealt``: rolled ``base`` + ``bonus`` (or a spell's ``effect``), less ``reduction`` (PDR or SDR,
    ``reduced_by``), doubled on a ``crit``."""

    base: int
    bonus: int
    crit: bool
    effect: int
    reduced_by: str
    reduction: int


class BlockHealed(Healed, total=False):
    """``healed``: a spell's rolled ``base`` and its ``effect`` with the caster's boosts."""

    base: int
    effect: int


class BlockInitiativeRolloff(InitiativeRolloff, total=False):
    """``initiative.rolloff``: the ``max_speed`` that tied."""

    max_speed: int


class BlockStatusApplied(StatusApplied, total=False):
    """``status.applied``: the combatant a grappler ``holds``."""

    holds: str


class BlockTurnPrepared(TurnPrepared, total=False):
    """``turn.prepared``: the stances that end as the turn starts (``extra``)."""

    extra: Required[dict[str, Any]]


# --- sentences ---------------------------------------------------------------------------------


def grapple_rolled(d: dict[str, Any], names: Names, hidden: AbstractSet[str]) -> str:
    actor, target = who(names, d.get("actor")), who(names, d.get("target"))
    return f"{actor} grabs {target}." if d.get("hit") else f"{actor} fails to grab {target}."


def grapple_break_attempted(d: dict[str, Any], names: Names, hidden: AbstractSet[str]) -> str:
    actor = who(names, d.get("actor"))
    return f"{actor} breaks free." if d.get("freed") else f"{actor} fails to break free."


def spell_activated(d: dict[str, Any], names: Names, hidden: AbstractSet[str]) -> str:
    spell = spoken(d.get("spell")) or "spell"
    return f"{who(names, d.get('actor'))}'s {spell} takes effect{on_targets(names, d.get('targets'))}."


def charisma_used(d: dict[str, Any], names: Names, hidden: AbstractSet[str]) -> str:
    what = d.get("name") or spoken(d.get("skill"))
    return f"{who(names, d.get('actor'))} uses {what}{on_targets(names, d.get('targets'))}."


def _grapple_verdict(d: dict[str, Any]) -> str:
    return "miss" if d.get("hit") is False else ""


EVENTS: dict[str, EventType] = {
    "block.started": EventType(BlockStarted, lambda d, n, h: f"Block {d.get('round', '?')} begins."),
    "charisma.rolled": EventType(
        CharismaRolled,
        lambda d, n, h: (
            f"{who(n, d.get('target'))} " + ("is swayed." if d.get("success") else "is not impressed.")
        ),
    ),
    "charisma.used": EventType(CharismaUsed, charisma_used),
    "dodge.declared": EventType(DodgeDeclared, lambda d, n, h: f"{who(n, d.get('actor'))} tries to dodge."),
    "grapple.break_attempted": EventType(GrappleBreakAttempted, grapple_break_attempted),
    "grapple.declared": EventType(
        GrappleDeclared,
        lambda d, n, h: f"{who(n, d.get('actor'))} tries to grapple{on_targets(n, d.get('targets'))}.",
    ),
    "grapple.released": EventType(GrappleReleased, lambda d, n, h: f"{who(n, d.get('actor'))} lets go."),
    "grapple.rolled": EventType(GrappleRolled, grapple_rolled, verdict=_grapple_verdict),
    "movement.obstructed": EventType(
        MovementObstructed, lambda d, n, h: f"{who(n, d.get('actor'))} blocks {who(n, d.get('mover'))}'s way."
    ),
    "movement.started": EventType(
        MovementStarted, lambda d, n, h: f"{who(n, d.get('actor'))} starts moving."
    ),
    "pdr.damaged": EventType(
        PdrDamaged, lambda d, n, h: f"{who(n, d.get('combatant'))}'s armor is damaged.", changes=True
    ),
    "points.drained": EventType(
        PointsDrained,
        lambda d, n, h: f"{who(n, d.get('combatant'))} loses {spoken(d.get('resource')) or 'points'}.",
        changes=True,
    ),
    "shield.used": EventType(
        ShieldUsed, lambda d, n, h: f"{who(n, d.get('combatant'))} strikes with a shield."
    ),
    "spell.activated": EventType(SpellActivated, spell_activated),
    "spell.cast": EventType(
        SpellCast,
        lambda d, n, h: f"{who(n, d.get('actor'))} starts casting {d.get('name') or spoken(d.get('spell'))}.",
    ),
    "stance.entered": EventType(
        StanceEntered,
        lambda d, n, h: (
            f"{who(n, d.get('combatant'))} takes a {spoken(d.get('stance')) or 'defensive'} stance."
        ),
    ),
    "attack.declared": GENERIC_EVENTS["attack.declared"].extended(BlockAttackDeclared),
    "attack.rolled": GENERIC_EVENTS["attack.rolled"].extended(BlockAttackRolled),
    "damage.dealt": GENERIC_EVENTS["damage.dealt"].extended(BlockDamageDealt),
    "healed": GENERIC_EVENTS["healed"].extended(BlockHealed),
    "initiative.rolloff": GENERIC_EVENTS["initiative.rolloff"].extended(BlockInitiativeRolloff),
    "status.applied": GENERIC_EVENTS["status.applied"].extended(BlockStatusApplied),
    "turn.prepared": GENERIC_EVENTS["turn.prepared"].extended(BlockTurnPrepared),
}


# --- appliers (event -> state, no dice) --------------------------------------------------------


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
