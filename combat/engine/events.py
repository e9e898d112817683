"""Events: what happened. A battle's state is the fold of its events (ENG-1).

An ``Event`` is a type name and a JSON-safe ``data`` dict. Dice used by the
step that produced it are in ``data["rolls"]`` as ``Roll`` dicts and, in one
line, in ``data["rolled"]`` (expression, faces, total) (ENG-2). Templates
turn events into words; the engine never writes prose into them beyond short
labels.

The vocabulary, the same in every ruleset: ``actor`` is who acts, ``target``
one combatant an action affects and ``targets`` several (always a list),
``combatant`` the one whose own state a bookkeeping event changes (turns,
statuses, resources, moves); ``status``, ``item``, ``weapon``, ``ability``,
``spell`` name content by key; squares are ``[x, y]`` lists (``to``, ``at``,
``path``). ``EVENT_FIELDS`` below is the single reference of every event
type's fields; ``event_problems`` checks an event against it.

>>> e = Event("damage.dealt", {"target": "c2", "amount": 3, "hp": 7})
>>> Event.from_dict(e.to_dict()) == e
True
"""

# No ``from __future__ import annotations`` here: the TypedDicts' Required markers must be real objects.
from dataclasses import dataclass, field
from types import UnionType
from typing import Any, Required, TypedDict, Union, get_args, get_origin, get_type_hints


@dataclass(frozen=True)
class Event:
    """One fact of the battle log. ``type`` is dotted (``"turn.started"``), ``data`` is JSON-safe."""

    type: str
    data: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"type": self.type, "data": self.data}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "Event":
        if not isinstance(d, dict) or not isinstance(d.get("type"), str):
            raise ValueError("An event needs a string 'type'.")
        data = d.get("data") or {}
        if not isinstance(data, dict):
            raise ValueError("An event's 'data' must be an object.")
        return cls(d["type"], data)

    @property
    def rolls(self) -> list[dict[str, Any]]:
        """The dice recorded in this event (possibly empty)."""
        rolls: list[dict[str, Any]] = self.data.get("rolls", [])
        return rolls


# --- the fields of every event type ------------------------------------------------------------


class RollData(TypedDict):
    """One roll as recorded (``Roll.to_dict``)."""

    expr: str
    faces: list[int]
    total: int
    purpose: str


class Rolled(TypedDict):
    """Every roll of an event in one line: ``{"expression": "1d20 + 2d6", "faces": [14, 3, 5], "total": 22}``."""

    expression: str
    faces: list[int]
    total: int


class Recorded(TypedDict, total=False):
    """Fields any event may carry: its dice, the resources its actor spends, the action it begins."""

    rolls: list[RollData]
    rolled: Rolled
    spend: dict[str, int]
    act: str


class AbilityMissed(Recorded, total=False):
    """``ability.missed``: what missed is named like the action's parameters (one of ``ability``, ``weapon``,
    ``item``; logs stored before name a weapon or item ``ability: "weapon:sword"``)."""

    ability: str
    actor: Required[str]
    item: str
    target: Required[str]
    weapon: str


class AbilityUsed(Recorded, total=False):
    """``ability.used``: what is used is named like the action's parameters (one of ``ability``, ``weapon``,
    ``item``; D20 Luck logs stored before name a weapon or item ``ability: "weapon:sword"``)."""

    ability: str
    action_type: str
    actor: Required[str]
    disengage: bool
    item: str
    name: Required[str]
    reaction: bool
    square: list[int]
    targets: list[str]
    weapon: str


class ApHeld(Recorded, total=False):
    """``ap.held``."""

    actor: Required[str]
    after: Required[str]
    round: Required[int]


class AttackDeclared(Recorded, total=False):
    """``attack.declared``."""

    actor: Required[str]
    modifiers: list[str]
    name: str
    targets: Required[list[str]]
    weapon: str


class AttackMissed(Recorded, total=False):
    """``attack.missed``."""

    actor: str
    target: Required[str]


class AttackRolled(Recorded, total=False):
    """``attack.rolled``."""

    accuracy: int
    actor: Required[str]
    base: int
    bonus: int
    crit: bool
    dodged: bool
    evasion: Required[int]
    hit: Required[bool]
    roll: int | None
    target: Required[str]
    total: int


class BattleCreated(Recorded, total=False):
    """``battle.created``."""

    blocked: Required[list[list[int]]]
    height: Required[int]
    options: Required[dict[str, Any]]
    ruleset: Required[str]
    seed: Required[int]
    width: Required[int]


class BattleEnded(Recorded, total=False):
    """``battle.ended``."""

    result: Required[dict[str, Any]]


class BattleExtra(Recorded, total=False):
    """``battle.extra``."""

    set: Required[dict[str, Any]]


class BattleStarted(Recorded, total=False):
    """``battle.started``."""

    pass


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


class CombatantAdded(Recorded, total=False):
    """``combatant.added``."""

    combatant: Required[dict[str, Any]]


class CombatantFled(Recorded, total=False):
    """``combatant.fled``."""

    combatant: Required[str]


class CombatantPlaced(Recorded, total=False):
    """``combatant.placed``."""

    combatant: Required[str]
    pos: list[int]
    row: str


class CombatantRemoved(Recorded, total=False):
    """``combatant.removed``."""

    combatant: Required[str]
    reason: Required[str]


class CombatantUpdated(Recorded, total=False):
    """``combatant.updated``."""

    combatant: Required[str]
    set: dict[str, Any]
    extra: dict[str, Any]


class DamageDealt(Recorded, total=False):
    """``damage.dealt``.

    What caused it is named like the action parameters (Paradigm: ``ability``, ``item`` or ``object``, a status's
    own ``status``, a basic attack's ``weapon``); logs stored before carry it as ``source: "item:ether"``.
    """

    ability: str
    actor: Required[str | None]
    alive: bool
    amount: Required[int]
    base: int
    bonus: int
    crit: bool
    damage_type: str
    defense: int
    effect: int
    element: str
    hp: Required[int]
    item: str
    kind: str
    ko: Required[bool]
    object: str
    raw: int
    reduced: int
    reduced_by: str
    reduction: int
    spell: str
    status: str
    target: Required[str]
    weapon: str


class DamageRolled(Recorded, total=False):
    """``damage.rolled``."""

    actor: Required[str]
    crit: Required[bool]
    raw: Required[int]
    target: Required[str]
    times: Required[int]


class DecisionAnswered(Recorded, total=False):
    """``decision.answered``."""

    by: Required[str]
    choice: Required[str]
    combatant: Required[str]
    decision: Required[str]


class DecisionOpened(Recorded, total=False):
    """``decision.opened``."""

    decision: Required[dict[str, Any]]


class DiceRolled(Recorded, total=False):
    """``dice.rolled``."""

    pass


class DodgeDeclared(Recorded, total=False):
    """``dodge.declared``."""

    actor: Required[str]
    against: Required[str]


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


class Healed(Recorded, total=False):
    """``healed``.

    What caused it is named like the action parameters (Paradigm: ``ability``, ``item`` or ``object``, a status's
    own ``status``, a basic attack's ``weapon``); logs stored before carry it as ``source: "item:ether"``.
    """

    ability: str
    actor: Required[str | None]
    amount: Required[int]
    base: int
    effect: int
    hp: Required[int]
    item: str
    ko: Required[bool]
    object: str
    raw: int
    status: str
    target: Required[str]
    weapon: str


class HpSet(Recorded, total=False):
    """``hp.set``."""

    by: Required[str]
    combatant: Required[str]
    hp: Required[int]
    ko: bool


class InitiativeRolled(Recorded, total=False):
    """``initiative.rolled``."""

    bonus: Required[int]
    combatant: Required[str]
    speed: int
    total: Required[int]


class InitiativeRolloff(Recorded, total=False):
    """``initiative.rolloff``."""

    combatant: Required[str]
    total: Required[int]


class InterruptUsed(Recorded, total=False):
    """``interrupt.used``."""

    ability: Required[str]
    actor: Required[str]
    against: Required[str]
    name: Required[str]
    reduces: Required[int]


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


class LpLost(Recorded, total=False):
    """``lp.lost``."""

    actor: Required[str]
    alive: Required[bool]
    amount: Required[int]
    damage_type: Required[str]
    element: Required[str]
    lp: Required[int]
    raw: Required[int]
    target: Required[str]


class LuckRolled(Recorded, total=False):
    """``luck.rolled``."""

    actor: Required[str]
    auto: bool
    bonus: int
    outcome: Required[str]
    roll: int
    target: Required[str]
    total: int


class MoveDoubled(Recorded, total=False):
    """``move.doubled``."""

    actor: Required[str]
    gain: Required[int]
    move: Required[int]


class MoveStopped(Recorded, total=False):
    """``move.stopped``."""

    at: Required[list[int]]
    combatant: Required[str]


class Moved(Recorded, total=False):
    """``moved``."""

    actor: str
    by: str
    combatant: Required[str]
    path: Required[list[list[int]]]
    to: Required[list[int]]


class MovementObstructed(Recorded, total=False):
    """``movement.obstructed``."""

    actor: Required[str]
    at: Required[list[int]]
    mover: Required[str]


class MovementStarted(Recorded, total=False):
    """``movement.started``."""

    actor: Required[str]
    path: Required[list[list[int]]]


class ObjectUsed(Recorded, total=False):
    """``object.used``."""

    actor: Required[str]
    done: Required[bool]
    name: Required[str]
    object: Required[str]
    progress: Required[int]


class OrderSet(Recorded, total=False):
    """``order.set``."""

    order: Required[list[str]]
    turn: int


class PdrDamaged(Recorded, total=False):
    """``pdr.damaged``."""

    by: Required[str]
    combatant: Required[str]
    resources: Required[dict[str, int]]


class PhaseStarted(Recorded, total=False):
    """``phase.started``."""

    phase: Required[str]
    round: Required[int]


class PointsDrained(Recorded, total=False):
    """``points.drained``."""

    actor: Required[str]
    combatant: Required[str]
    resource: Required[str]
    resources: Required[dict[str, int]]


class RampartToggled(Recorded, total=False):
    """``rampart.toggled``."""

    combatant: Required[str]
    on: Required[bool]
    range: Required[int]


class RecoverFailed(Recorded, total=False):
    """``recover.failed``."""

    combatant: Required[str]
    power: Required[int]
    roll: Required[int]
    status: Required[str]


class ResourcesSet(Recorded, total=False):
    """``resources.set``.

    What caused it is named like the action parameters (Paradigm: ``ability``, ``item`` or ``object``, a status's
    own ``status``, a basic attack's ``weapon``); logs stored before carry it as ``source: "item:ether"``.
    """

    ability: str
    combatant: Required[str]
    gain: int
    item: str
    object: str
    reason: str
    resources: Required[dict[str, int]]


class RoundEnded(Recorded, total=False):
    """``round.ended``."""

    round: Required[int]


class RoundStarted(Recorded, total=False):
    """``round.started``."""

    round: Required[int]


class RowChanged(Recorded, total=False):
    """``row.changed``."""

    actor: str
    by: str
    combatant: Required[str]
    reason: str
    row: Required[str]


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


class ShieldUsed(Recorded, total=False):
    """``shield.used``."""

    combatant: Required[str]
    extra: Required[dict[str, Any]]


class SideAdvanced(Recorded, total=False):
    """``side.advanced``."""

    onto: Required[str]
    side: Required[str]


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


class StatusApplied(Recorded, total=False):
    """``status.applied``.

    What caused it is named like the action parameters (Paradigm: ``ability``, ``item`` or ``object``, a status's
    own ``status``, a basic attack's ``weapon``); logs stored before carry it as ``source: "item:ether"``.
    """

    ability: str
    by: str  # who applied it: a combatant id, or "gm" (old logs: by_id, by_combatant, source)
    combatant: Required[str]
    defense: int
    duration: Required[int]
    holds: str
    item: str
    object: str
    power: Required[int]
    status: Required[str]
    value: int


class StatusKept(Recorded, total=False):
    """``status.kept``."""

    actor: Required[str]
    offered: Required[int]
    power: Required[int]
    status: Required[str]
    target: Required[str]


class StatusRemoved(Recorded, total=False):
    """``status.removed``.

    What caused it is named like the action parameters (Paradigm: ``ability``, ``item`` or ``object``, a status's
    own ``status``, a basic attack's ``weapon``); logs stored before carry it as ``source: "item:ether"``.
    """

    ability: str
    combatant: Required[str]
    item: str
    object: str
    power: int
    reason: Required[str]
    roll: int
    status: Required[str]


class StatusResisted(Recorded, total=False):
    """``status.resisted``."""

    actor: Required[str]
    defense: Required[int]
    status: Required[str]
    target: Required[str]
    value: Required[int]


class StatusUpdated(Recorded, total=False):
    """``status.updated``."""

    combatant: Required[str]
    fields: Required[dict[str, Any]]
    status: Required[str]


class TurnEnded(Recorded, total=False):
    """``turn.ended``."""

    combatant: Required[str]
    reason: str


class TurnPrepared(Recorded, total=False):
    """``turn.prepared``."""

    ap: int
    combatant: Required[str]
    extra: dict[str, Any]
    held: bool
    move: int
    round: int
    slots: int


class TurnSkipped(Recorded, total=False):
    """``turn.skipped``."""

    by: Required[str]
    combatant: Required[str]


class TurnStarted(Recorded, total=False):
    """``turn.started``."""

    combatant: Required[str]
    index: Required[int]
    round: Required[int]


#: The fields of every event type: the single reference the log, the tests and new rulesets follow.
EVENT_FIELDS: dict[str, type] = {
    "ability.missed": AbilityMissed,
    "ability.used": AbilityUsed,
    "ap.held": ApHeld,
    "attack.declared": AttackDeclared,
    "attack.missed": AttackMissed,
    "attack.rolled": AttackRolled,
    "battle.created": BattleCreated,
    "battle.ended": BattleEnded,
    "battle.extra": BattleExtra,
    "battle.started": BattleStarted,
    "block.started": BlockStarted,
    "charisma.rolled": CharismaRolled,
    "charisma.used": CharismaUsed,
    "combatant.added": CombatantAdded,
    "combatant.fled": CombatantFled,
    "combatant.placed": CombatantPlaced,
    "combatant.removed": CombatantRemoved,
    "combatant.updated": CombatantUpdated,
    "damage.dealt": DamageDealt,
    "damage.rolled": DamageRolled,
    "decision.answered": DecisionAnswered,
    "decision.opened": DecisionOpened,
    "dice.rolled": DiceRolled,
    "dodge.declared": DodgeDeclared,
    "effect.queued": EffectQueued,
    "eidolon.dismissed": EidolonDismissed,
    "eidolon.summoned": EidolonSummoned,
    "eidolon.upkeep": EidolonUpkeep,
    "equipment.swapped": EquipmentSwapped,
    "flee.declared": FleeDeclared,
    "grapple.break_attempted": GrappleBreakAttempted,
    "grapple.declared": GrappleDeclared,
    "grapple.released": GrappleReleased,
    "grapple.rolled": GrappleRolled,
    "healed": Healed,
    "hp.set": HpSet,
    "initiative.rolled": InitiativeRolled,
    "initiative.rolloff": InitiativeRolloff,
    "interrupt.used": InterruptUsed,
    "item.used": ItemUsed,
    "job.switched": JobSwitched,
    "lp.lost": LpLost,
    "luck.rolled": LuckRolled,
    "move.doubled": MoveDoubled,
    "move.stopped": MoveStopped,
    "moved": Moved,
    "movement.obstructed": MovementObstructed,
    "movement.started": MovementStarted,
    "object.used": ObjectUsed,
    "order.set": OrderSet,
    "pdr.damaged": PdrDamaged,
    "phase.started": PhaseStarted,
    "points.drained": PointsDrained,
    "rampart.toggled": RampartToggled,
    "recover.failed": RecoverFailed,
    "resources.set": ResourcesSet,
    "round.ended": RoundEnded,
    "round.started": RoundStarted,
    "row.changed": RowChanged,
    "save.rolled": SaveRolled,
    "shield.used": ShieldUsed,
    "side.advanced": SideAdvanced,
    "spell.activated": SpellActivated,
    "spell.cast": SpellCast,
    "stance.entered": StanceEntered,
    "status.applied": StatusApplied,
    "status.kept": StatusKept,
    "status.removed": StatusRemoved,
    "status.resisted": StatusResisted,
    "status.updated": StatusUpdated,
    "turn.ended": TurnEnded,
    "turn.prepared": TurnPrepared,
    "turn.skipped": TurnSkipped,
    "turn.started": TurnStarted,
}


def _fits(value: Any, hint: Any) -> bool:
    origin = get_origin(hint)
    if hint is Any:
        return True
    if hint is None or hint is type(None):
        return value is None
    if origin is Union or origin is UnionType:
        return any(_fits(value, h) for h in get_args(hint))
    if origin in (list, dict):
        if not isinstance(value, origin):
            return False
        args = get_args(hint)
        if origin is list:
            return all(_fits(v, args[0]) for v in value) if args else True
        return all(_fits(v, args[1]) for v in value.values()) if args else True
    if isinstance(hint, type) and issubclass(hint, dict):  # a TypedDict
        return isinstance(value, dict) and not typed_problems(hint, value, "")
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, hint)


def typed_problems(
    spec: Any, data: dict[str, Any], where: str, unknown: str = "not a field of this event"
) -> list[str]:
    """What in ``data`` departs from the TypedDict ``spec`` (also used for actions' parameters)."""
    hints = get_type_hints(spec)
    out = [f"{where}{key}: missing" for key in sorted(spec.__required_keys__) if key not in data]
    for key, value in data.items():
        if key not in hints:
            out.append(f"{where}{key}: {unknown}")
        elif not _fits(value, hints[key]):
            out.append(f"{where}{key}: {value!r} is not {hints[key]}")
    return out


#: Event types naming exactly one of these (what was used, like the ``ability`` action's parameters).
EVENT_ONE_OF: dict[str, tuple[str, ...]] = {
    "ability.used": ("ability", "weapon", "item"),
    "ability.missed": ("ability", "weapon", "item"),
}


def event_problems(event: Event) -> list[str]:
    """What in ``event`` departs from ``EVENT_FIELDS`` (an empty list when it fits).

    >>> event_problems(Event("turn.started", {"combatant": "c1", "index": 0, "round": 1}))
    []
    >>> event_problems(Event("turn.started", {"who": "c1", "index": 0, "round": 1}))
    ['combatant: missing', 'who: not a field of this event']
    """
    spec = EVENT_FIELDS.get(event.type)
    if spec is None:
        return [f"unknown event type {event.type!r}"]
    out = typed_problems(spec, event.data, "")
    names = EVENT_ONE_OF.get(event.type)
    if names and sum(name in event.data for name in names) != 1:
        out.append(f"exactly one of {', '.join(names)}")
    return out
