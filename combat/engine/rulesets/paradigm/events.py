"""Paradigm Rows' events: their fields, their sentences in the log, and how they change the state.

``EVENTS`` (registered as ``Paradigm.events``) holds the types only Paradigm
Rows emits and the fields it adds to generic ones; ``APPLIERS`` folds those
that change the state.
"""

# No ``from __future__ import annotations`` here: the TypedDicts' Required markers must be real objects.
from collections.abc import Set as AbstractSet
from typing import Any, Required

from combat.engine.events import GENERIC_EVENTS, DamageDealt, EventType, Recorded, TurnPrepared
from combat.engine.state import BattleState
from combat.engine.words import Names, on_targets, spoken, who

# --- fields ------------------------------------------------------------------------------------


class ApHeld(Recorded, total=False):
    """``ap.held``."""

    actor: Required[str]
    after: Required[str]
    round: Required[int]


class CombatantFled(Recorded, total=False):
    """``combatant.fled``."""

    combatant: Required[str]


class EffectQueued(Recorded, total=False):
    """``effect.queued``."""

    ability: Required[str]
    actor: Required[str]
    name: Required[str]
    targets: Required[list[str]]


class EidolonDismissed(Recorded, total=False):
    """``eidolon.dismissed``."""

    combatant: Required[str]
    reason: Required[str]
    summoner: Required[str]


class EidolonSummoned(Recorded, total=False):
    """``eidolon.summoned``."""

    actor: Required[str]
    eidolon: Required[str]
    name: Required[str]


class EidolonUpkeep(Recorded, total=False):
    """``eidolon.upkeep``."""

    actor: Required[str]
    eidolon: Required[str]


class EquipmentSwapped(Recorded, total=False):
    """``equipment.swapped``."""

    actor: Required[str]
    equip: Required[str]
    slot: Required[str]
    stow: Required[str]


class FleeDeclared(Recorded, total=False):
    """``flee.declared``."""

    actor: Required[str]


class ItemUsed(Recorded, total=False):
    """``item.used``."""

    actor: Required[str]
    item: Required[str]
    name: Required[str]
    side: Required[str]
    targets: Required[list[str]]


class JobSwitched(Recorded, total=False):
    """``job.switched``."""

    combatant: Required[str]
    job: Required[str]
    previous: Required[str]


class ObjectUsed(Recorded, total=False):
    """``object.used``."""

    actor: Required[str]
    done: Required[bool]
    name: Required[str]
    needed: int
    object: Required[str]
    progress: Required[int]


class PhaseStarted(Recorded, total=False):
    """``phase.started``."""

    phase: Required[str]
    round: Required[int]


class SideAdvanced(Recorded, total=False):
    """``side.advanced``."""

    onto: Required[str]
    side: Required[str]


class ParadigmDamageDealt(DamageDealt, total=False):
    """``damage.dealt``: the target's DEF or MDEF (``defense``) taken off the ``raw`` total."""

    defense: int


class ParadigmTurnPrepared(TurnPrepared, total=False):
    """``turn.prepared``: the turn's ``ap``, the ``round``, and whether it is a ``held`` turn."""

    ap: Required[int]
    held: Required[bool]
    round: Required[int]


# --- sentences ---------------------------------------------------------------------------------


def object_used(d: dict[str, Any], names: Names, hidden: AbstractSet[str]) -> str:
    doing = "finishes using " if d.get("done") else "works on "
    return f"{who(names, d.get('actor'))} {doing}{d.get('name') or spoken(d.get('object'))}."


def item_used(d: dict[str, Any], names: Names, hidden: AbstractSet[str]) -> str:
    what = d.get("name") or spoken(d.get("item"))
    return f"{who(names, d.get('actor'))} uses {what}{on_targets(names, d.get('targets'))}."


def effect_queued(d: dict[str, Any], names: Names, hidden: AbstractSet[str]) -> str:
    what = d.get("name") or spoken(d.get("ability"))
    return f"{who(names, d.get('actor'))} prepares {what}: it takes effect later."


EVENTS: dict[str, EventType] = {
    "ap.held": EventType(
        ApHeld, lambda d, n, h: f"{who(n, d.get('actor'))} waits to act after {who(n, d.get('after'))}."
    ),
    "combatant.fled": EventType(
        CombatantFled, lambda d, n, h: f"{who(n, d.get('combatant'))} flees the battle."
    ),
    "effect.queued": EventType(EffectQueued, effect_queued),
    "eidolon.dismissed": EventType(EidolonDismissed, lambda d, n, h: f"{who(n, d.get('combatant'))} leaves."),
    "eidolon.summoned": EventType(
        EidolonSummoned,
        lambda d, n, h: f"{who(n, d.get('actor'))} summons {d.get('name') or spoken(d.get('eidolon'))}!",
    ),
    "eidolon.upkeep": EventType(
        EidolonUpkeep, lambda d, n, h: f"{who(n, d.get('actor'))} keeps the eidolon going."
    ),
    "equipment.swapped": EventType(
        EquipmentSwapped, lambda d, n, h: f"{who(n, d.get('actor'))} equips {spoken(d.get('equip'))}."
    ),
    "flee.declared": EventType(FleeDeclared, lambda d, n, h: f"{who(n, d.get('actor'))} tries to flee."),
    "item.used": EventType(ItemUsed, item_used),
    "job.switched": EventType(
        JobSwitched, lambda d, n, h: f"{who(n, d.get('combatant'))} switches to {spoken(d.get('job'))}."
    ),
    "object.used": EventType(ObjectUsed, object_used),
    "phase.started": EventType(
        PhaseStarted, lambda d, n, h: f"The {spoken(d.get('phase')) or 'next'} phase begins."
    ),
    "side.advanced": EventType(
        SideAdvanced, lambda d, n, h: f"The {spoken(d.get('side'))} side steps up to the front row."
    ),
    "damage.dealt": GENERIC_EVENTS["damage.dealt"].extended(ParadigmDamageDealt),
    "turn.prepared": GENERIC_EVENTS["turn.prepared"].extended(ParadigmTurnPrepared),
}


# --- appliers (event -> state, no dice) --------------------------------------------------------


def apply_turn_prepared(state: BattleState, d: dict[str, Any]) -> None:
    c = state.combatants[d["combatant"]]
    c.resources["ap"] = d["ap"]
    c.extra["turn_round"] = d["round"]
    c.extra["held_turn"] = d["held"]
    c.extra.pop("carry_ap", None)


def apply_item_used(state: BattleState, d: dict[str, Any]) -> None:
    used = state.extra.setdefault("items_used", {}).setdefault(d["side"], {})
    used[d["item"]] = used.get(d["item"], 0) + 1


def apply_effect_queued(state: BattleState, d: dict[str, Any]) -> None:
    q = state.extra.setdefault("queued", [])
    q.append({"actor": d["actor"], "ability": d["ability"], "targets": list(d["targets"])})


def apply_ap_held(state: BattleState, d: dict[str, Any]) -> None:
    c = state.combatants[d["actor"]]
    c.extra["held_round"] = d["round"]
    c.extra["hold_after"] = d["after"]


def apply_swapped(state: BattleState, d: dict[str, Any]) -> None:
    c = state.combatants[d["actor"]]
    gear = [g for g in c.extra.get("gear", []) if g != d["equip"]] if d["equip"] else list(c.extra["gear"])
    if d["stow"]:
        gear.append(d["stow"])
    c.extra["gear"] = gear
    c.extra[d["slot"]] = d["equip"]


def apply_flee_declared(state: BattleState, d: dict[str, Any]) -> None:
    state.combatants[d["actor"]].extra["fleeing"] = True


def apply_fled(state: BattleState, d: dict[str, Any]) -> None:
    state.combatants[d["combatant"]].extra["fled"] = True


def apply_job_switched(state: BattleState, d: dict[str, Any]) -> None:
    state.combatants[d["combatant"]].extra["job"] = d["job"]


def apply_object_used(state: BattleState, d: dict[str, Any]) -> None:
    objs = state.extra.setdefault("objects", {})
    o = objs.setdefault(d["object"], {"progress": 0, "done": 0})
    o["progress"] = d["progress"]
    if d["done"]:
        o["done"] += 1


APPLIERS = {
    "turn.prepared": apply_turn_prepared,
    "item.used": apply_item_used,
    "effect.queued": apply_effect_queued,
    "ap.held": apply_ap_held,
    "equipment.swapped": apply_swapped,
    "flee.declared": apply_flee_declared,
    "combatant.fled": apply_fled,
    "job.switched": apply_job_switched,
    "object.used": apply_object_used,
}
