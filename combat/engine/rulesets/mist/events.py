"""Mist & Rampart's events: their fields, their sentences in the log, and how they change the state.

``EVENTS`` (registered as ``Mist.events``) holds the types only Mist & Rampart
emits and the fields it adds to generic ones; ``APPLIERS`` folds those that
change the state.
"""

# No ``from __future__ import annotations`` here: the TypedDicts' Required markers must be real objects.
from collections.abc import Set as AbstractSet
from typing import Any, Required

from combat.engine.events import (
    GENERIC_EVENTS,
    AbilityUsed,
    AttackRolled,
    DamageDealt,
    EventType,
    InitiativeRolled,
    Moved,
    Recorded,
    TurnPrepared,
)
from combat.engine.state import BattleState
from combat.engine.words import Names, spoken, square, who

# --- fields ------------------------------------------------------------------------------------


class LpLost(Recorded, total=False):
    """``lp.lost``: a hit on a knocked-out character costs a life point (MIST-KO-2); 0 LP is death."""

    actor: Required[str | None]
    alive: Required[bool]
    amount: Required[int]
    damage_type: Required[str]
    element: Required[str]
    lp: Required[int]
    raw: Required[int]
    target: Required[str]


class MoveDoubled(Recorded, total=False):
    """``move.doubled``."""

    actor: Required[str]
    gain: Required[int]
    move: Required[int]


class MoveStopped(Recorded, total=False):
    """``move.stopped``."""

    at: Required[list[int]]
    combatant: Required[str]


class RampartToggled(Recorded, total=False):
    """``rampart.toggled``."""

    combatant: Required[str]
    on: Required[bool]
    range: Required[int]


class SaveRolled(Recorded, total=False):
    """``save.rolled``."""

    against: Required[str]
    avoided: Required[bool]
    combatant: Required[str]
    roll: Required[int]
    stat: Required[str]
    status: Required[str]
    target_number: Required[int]
    value: Required[int]


class MistAbilityUsed(AbilityUsed, total=False):
    """``ability.used``: the ability's ``action_type`` (MIST-TYPE-*), a rampart ``reaction``, the ``square``
    aimed at, and whether it ``disengage``s."""

    action_type: str
    disengage: bool
    reaction: bool
    square: list[int]


class MistAttackRolled(AttackRolled, total=False):
    """``attack.rolled``: the d100 ``roll`` (None when the house rule leaves it out) + ``accuracy`` against
    ``evasion``."""

    accuracy: int
    evasion: Required[int]
    roll: int | None


class MistDamageDealt(DamageDealt, total=False):
    """``damage.dealt``: the ``element`` of the damage."""

    element: str


class MistInitiativeRolled(InitiativeRolled, total=False):
    """``initiative.rolled``: the ``speed`` that breaks ties."""

    speed: int


class MistMoved(Moved, total=False):
    """``moved``: the ``reason`` of a move the rules make (felled mid-move)."""

    reason: str


class MistTurnPrepared(TurnPrepared, total=False):
    """``turn.prepared``: the turn's action ``slots`` and free ``move``."""

    move: Required[int]
    slots: Required[int]


# --- sentences ---------------------------------------------------------------------------------


def save_rolled(d: dict[str, Any], names: Names, hidden: AbstractSet[str]) -> str:
    status = spoken(d.get("status")) or "the effect"
    if d.get("avoided"):
        return f"{who(names, d.get('combatant'))} resists {status}."
    return f"{who(names, d.get('combatant'))} fails to resist {status}."


def rampart_toggled(d: dict[str, Any], names: Names, hidden: AbstractSet[str]) -> str:
    return f"{who(names, d.get('combatant'))} " + (
        "raises a rampart." if d.get("on") else "lowers the rampart."
    )


EVENTS: dict[str, EventType] = {
    "lp.lost": EventType(
        LpLost, lambda d, n, h: f"{who(n, d.get('target'))} loses a life point.", changes=True, hurts=True
    ),
    "move.doubled": EventType(
        MoveDoubled, lambda d, n, h: f"{who(n, d.get('actor'))} moves twice as far this turn."
    ),
    "move.stopped": EventType(
        MoveStopped, lambda d, n, h: f"{who(n, d.get('combatant'))} is stopped at {square(d.get('at'))}."
    ),
    "rampart.toggled": EventType(RampartToggled, rampart_toggled),
    "save.rolled": EventType(SaveRolled, save_rolled),
    "ability.used": GENERIC_EVENTS["ability.used"].extended(MistAbilityUsed),
    "attack.rolled": GENERIC_EVENTS["attack.rolled"].extended(MistAttackRolled),
    "damage.dealt": GENERIC_EVENTS["damage.dealt"].extended(MistDamageDealt),
    "initiative.rolled": GENERIC_EVENTS["initiative.rolled"].extended(MistInitiativeRolled),
    "moved": GENERIC_EVENTS["moved"].extended(MistMoved),
    "turn.prepared": GENERIC_EVENTS["turn.prepared"].extended(MistTurnPrepared),
}


# --- appliers (event -> state, no dice) --------------------------------------------------------


def apply_turn_prepared(state: BattleState, d: dict[str, Any]) -> None:
    c = state.combatants[d["combatant"]]
    c.resources["slots"] = d["slots"]
    c.resources["move"] = d["move"]
    c.extra["turn"] = {
        "simple": False,
        "static": False,
        "move_action": False,
        "spent": False,
        "disengaged": False,
        "move_total": d["move"],
    }


def apply_ability_used(state: BattleState, d: dict[str, Any]) -> None:
    if d.get("reaction"):
        return
    c = state.combatants[d["actor"]]
    t = c.extra.setdefault("turn", {})
    kind = d.get("action_type")
    if kind in ("simple", "static"):
        t[kind] = True
    elif kind == "move":
        t["move_action"] = True
    if d.get("spend", {}).get("slots"):
        t["spent"] = True
    if d.get("disengage"):
        t["disengaged"] = True


def apply_move_doubled(state: BattleState, d: dict[str, Any]) -> None:
    c = state.combatants[d["actor"]]
    c.resources["move"] = d["move"]
    t = c.extra.setdefault("turn", {})
    t["spent"] = True
    t["move_total"] = t.get("move_total", 0) + d["gain"]


def apply_rampart_toggled(state: BattleState, d: dict[str, Any]) -> None:
    state.combatants[d["combatant"]].extra["rampart_on"] = bool(d["on"])


def apply_lp_lost(state: BattleState, d: dict[str, Any]) -> None:
    c = state.combatants[d["target"]]
    c.resources["lp"] = d["lp"]
    c.alive = d["alive"]


APPLIERS = {
    "turn.prepared": apply_turn_prepared,
    "ability.used": apply_ability_used,
    "move.doubled": apply_move_doubled,
    "rampart.toggled": apply_rampart_toggled,
    "lp.lost": apply_lp_lost,
}
