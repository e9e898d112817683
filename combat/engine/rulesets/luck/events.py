"""D20 Luck's events: their fields, their sentences in the log, and how they change the state.

``EVENTS`` (registered as ``Luck.events``) holds the types only D20 Luck emits
and the fields it adds to generic ones; ``APPLIERS`` folds those that change
the state.
"""

# No ``from __future__ import annotations`` here: the TypedDicts' Required markers must be real objects.
from collections.abc import Set as AbstractSet
from typing import Any, Required

from combat.engine.events import (
    GENERIC_EVENTS,
    DamageDealt,
    EventType,
    Moved,
    Recorded,
    StatusApplied,
    StatusRemoved,
)
from combat.engine.state import BattleState
from combat.engine.words import Names, who

# --- fields ------------------------------------------------------------------------------------


class AbilityMissed(Recorded, total=False):
    """``ability.missed``: what missed is named like the action's parameters (one of ``ability``, ``weapon``,
    ``item``; logs stored before name a weapon or item ``ability: "weapon:sword"``)."""

    ability: str
    actor: Required[str]
    item: str
    target: Required[str]
    weapon: str


class DamageRolled(Recorded, total=False):
    """``damage.rolled``: the damage dice before defences, ``times`` rolled (a crit rolls them again)."""

    actor: Required[str]
    crit: Required[bool]
    raw: Required[int]
    target: Required[str]
    times: Required[int]


class LuckRolled(Recorded, total=False):
    """``luck.rolled``: the Luck Roll against a target (``auto``: a friendly target, no roll)."""

    actor: Required[str]
    auto: bool
    bonus: int
    outcome: Required[str]
    roll: int
    target: Required[str]
    total: int


class InterruptUsed(Recorded, total=False):
    """``interrupt.used``."""

    ability: Required[str]
    actor: Required[str]
    against: Required[str]
    name: Required[str]
    reduces: Required[int]


class RecoverFailed(Recorded, total=False):
    """``recover.failed``."""

    combatant: Required[str]
    power: Required[int]
    roll: Required[int]
    status: Required[str]


class StatusKept(Recorded, total=False):
    """``status.kept``: the target keeps its stronger status of the same kind."""

    actor: Required[str]
    offered: Required[int]
    power: Required[int]
    status: Required[str]
    target: Required[str]


class StatusResisted(Recorded, total=False):
    """``status.resisted``."""

    actor: Required[str]
    defense: Required[int]
    status: Required[str]
    target: Required[str]
    value: Required[int]


class LuckDamageDealt(DamageDealt, total=False):
    """``damage.dealt``: the ``defense`` (Armor or Resist) and what an interrupt ``reduced``."""

    defense: int
    reduced: int


class LuckMoved(Moved, total=False):
    """``moved``: ``free`` for the 1-square step an ability may include."""

    free: bool


class LuckStatusApplied(StatusApplied, total=False):
    """``status.applied``: the status roll's ``value`` against the target's ``defense``."""

    defense: int
    value: int


class LuckStatusRemoved(StatusRemoved, total=False):
    """``status.removed``: a Recover's ``roll`` against the status's ``power``."""

    power: int
    roll: int


# --- sentences ---------------------------------------------------------------------------------


def luck_rolled(d: dict[str, Any], names: Names, hidden: AbstractSet[str]) -> str:
    if d.get("auto"):
        return ""  # a friendly target needs no roll: the heal or status that follows says what happened
    actor, target = who(names, d.get("actor")), who(names, d.get("target"))
    total = f" (luck roll {d['total']})" if isinstance(d.get("total"), int) else ""
    what = {"miss": f"misses {target}", "crit": f"lands a critical hit on {target}"}.get(
        str(d.get("outcome")), f"hits {target}"
    )
    return f"{actor} {what}{total}."


def damage_rolled(d: dict[str, Any], names: Names, hidden: AbstractSet[str]) -> str:
    raw = f" {d['raw']}" if isinstance(d.get("raw"), int) else ""
    crit = " (critical)" if d.get("crit") else ""
    return f"{who(names, d.get('actor'))} rolls{raw} damage{crit}."


def interrupt_used(d: dict[str, Any], names: Names, hidden: AbstractSet[str]) -> str:
    with_what = d.get("name") or d.get("ability")
    return f"{who(names, d.get('actor'))} interrupts {who(names, d.get('against'))} with {with_what}."


def status_kept(d: dict[str, Any], names: Names, hidden: AbstractSet[str]) -> str:
    power = f" (power {d['power']})." if isinstance(d.get("power"), int) else "."
    return f"{who(names, d.get('target'))} keeps the stronger {d.get('status', 'status')}{power}"


def _luck_verdict(d: dict[str, Any]) -> str:
    return {"miss": "miss", "crit": "crit"}.get(str(d.get("outcome")), "")


EVENTS: dict[str, EventType] = {
    "ability.missed": EventType(
        AbilityMissed,
        lambda d, n, h: f"{who(n, d.get('actor'))} misses {who(n, d.get('target'))}.",
        one_of=("ability", "weapon", "item"),
        verdict=lambda d: "miss",
    ),
    "damage.rolled": EventType(DamageRolled, damage_rolled, changes=True),
    "interrupt.used": EventType(InterruptUsed, interrupt_used),
    "luck.rolled": EventType(LuckRolled, luck_rolled, verdict=_luck_verdict),
    "recover.failed": EventType(
        RecoverFailed,
        lambda d, n, h: f"{who(n, d.get('combatant'))} fails to recover from {d.get('status', 'a status')}.",
    ),
    "status.kept": EventType(StatusKept, status_kept, changes=True),
    "status.resisted": EventType(
        StatusResisted, lambda d, n, h: f"{who(n, d.get('target'))} resists {d.get('status', 'the status')}."
    ),
    "damage.dealt": GENERIC_EVENTS["damage.dealt"].extended(LuckDamageDealt),
    "moved": GENERIC_EVENTS["moved"].extended(LuckMoved),
    "status.applied": GENERIC_EVENTS["status.applied"].extended(LuckStatusApplied),
    "status.removed": GENERIC_EVENTS["status.removed"].extended(LuckStatusRemoved),
}


# --- appliers ----------------------------------------------------------------------------------


def apply_ability_used(state: BattleState, data: dict[str, Any]) -> None:
    """An item used is gone from what the combatant has left (``items_used``)."""
    item = data.get("item")
    if item:
        used = state.combatants[data["actor"]].extra.setdefault("items_used", {})
        used[item] = used.get(item, 0) + 1


APPLIERS = {"ability.used": apply_ability_used}
