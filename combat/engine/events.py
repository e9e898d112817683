"""Events: what happened. A battle's state is the fold of its events (ENG-1).

An ``Event`` is a type name and a JSON-safe ``data`` dict. Dice used by the
step that produced it are in ``data["rolls"]`` as ``Roll`` dicts and, in one
line, in ``data["rolled"]`` (expression, faces, total) (ENG-2). The log turns
events into words (``log.describe``); the engine never writes prose into
them beyond short labels.

Every event type is described once, by an ``EventType``: its fields (a
TypedDict), its sentence in the log, and how the log and the outcome line
read it. The generic events (the ones the core emits and applies, and the
combat vocabulary several rulesets share) are ``GENERIC_EVENTS`` below; a
ruleset describes its own in its package's ``events.py`` and registers them
as ``Ruleset.events``, where it may also extend a generic type with fields
of its own (``GENERIC_EVENTS["damage.dealt"].extended(MyDamage)``).
``rulesets.event_type`` finds the description of any type.

The vocabulary, the same in every ruleset: ``actor`` is who acts, ``target``
one combatant an action affects and ``targets`` several (always a list),
``combatant`` the one whose own state a bookkeeping event changes (turns,
statuses, resources, moves); ``status``, ``item``, ``weapon``, ``ability``,
``spell`` name content by key; squares are ``[x, y]`` lists (``to``, ``at``,
``path``). ``event_problems`` checks an event against its description.

>>> e = Event("damage.dealt", {"target": "c2", "amount": 3, "hp": 7})
>>> Event.from_dict(e.to_dict()) == e
True
"""

# No ``from __future__ import annotations`` here: the TypedDicts' Required markers must be real objects.
import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Required, get_type_hints

from combat.engine import words
from combat.engine.event_fields import Caused, Recorded, typed_problems
from combat.engine.words import Words, silent

__all__ = ["Caused", "Recorded", "typed_problems"]  # besides what is defined here


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


@dataclass(frozen=True)
class EventType:
    """The description of one event type.

    ``fields``: a TypedDict of its data (``Recorded`` or a subclass). ``words``: its sentence in the log
    (``words.silent`` keeps it out). ``one_of``: fields of which it names exactly one. ``changes``: it
    changes its subject's numbers (HP, resources, statuses), so none of them is shown to a viewer from
    whom the subject's HP is hidden (``view.filter_event``). ``verdict(data)``: ``"hit"``, ``"miss"``,
    ``"crit"`` or ``""``, what the outcome line heads with. ``hurts``: it is damage to its ``target``, said
    like ``damage.dealt`` in the outcome line and the player's notice.
    """

    fields: type
    words: Words = silent
    one_of: tuple[str, ...] = ()
    changes: bool = False
    verdict: Callable[[dict[str, Any]], str] | None = None
    hurts: bool = False

    def extended(self, fields: type) -> "EventType":
        """The same type with a ruleset's ``fields`` (a subclass of this one's): its words and reading kept."""
        base, mine = get_type_hints(self.fields), get_type_hints(fields)
        required: frozenset[str] = getattr(self.fields, "__required_keys__", frozenset())
        extended: frozenset[str] = getattr(fields, "__required_keys__", frozenset())
        if any(mine.get(k) != v for k, v in base.items()) or not required <= extended:
            raise TypeError(f"{fields.__name__} must extend {self.fields.__name__}")
        return dataclasses.replace(self, fields=fields)


# --- the generic events ------------------------------------------------------------------------


class AbilityUsed(Recorded, total=False):
    """``ability.used``: what is used is named like the action's parameters (one of ``ability``, ``weapon``,
    ``item``; D20 Luck logs stored before name a weapon or item ``ability: "weapon:sword"``)."""

    ability: str
    actor: Required[str]
    item: str
    name: Required[str]
    targets: list[str]
    weapon: str


class AttackDeclared(Recorded, total=False):
    """``attack.declared``."""

    actor: Required[str]
    name: str
    targets: Required[list[str]]
    weapon: str


class AttackRolled(Recorded, total=False):
    """``attack.rolled``: whether it hit; ``crit`` and ``dodged`` where the rules have them."""

    actor: Required[str]
    crit: bool
    dodged: bool
    hit: Required[bool]
    target: Required[str]


class BattleCreated(Recorded, total=False):
    """``battle.created``."""

    blocked: Required[list[list[int]]]
    content: dict[str, Any]
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


class CombatantAdded(Recorded, total=False):
    """``combatant.added``."""

    by: str
    combatant: Required[dict[str, Any]]


class CombatantPlaced(Recorded, total=False):
    """``combatant.placed``."""

    combatant: Required[str]
    pos: list[int]
    row: str


class CombatantRemoved(Recorded, total=False):
    """``combatant.removed``: ``reason`` when the rules remove it, ``by: "gm"`` when the GM does."""

    by: str
    combatant: Required[str]
    reason: str


class CombatantUpdated(Recorded, total=False):
    """``combatant.updated``."""

    combatant: Required[str]
    set: dict[str, Any]
    extra: dict[str, Any]


class DamageDealt(Caused, total=False):
    """``damage.dealt``: ``damage_type`` says what kind (logs stored before name it ``kind``), ``raw`` the
    rolled total before defences."""

    actor: Required[str | None]
    alive: bool
    amount: Required[int]
    damage_type: str
    hp: Required[int]
    ko: Required[bool]
    raw: int
    status: str
    target: Required[str]


class DecisionAnswered(Recorded, total=False):
    """``decision.answered``."""

    by: Required[str]
    choice: Required[str]
    combatant: Required[str]
    decision: Required[str]
    label: str  # the chosen option in words
    reason: str  # why, in a player's words (an NPC's usual answer given at once)


class DecisionOpened(Recorded, total=False):
    """``decision.opened``."""

    decision: Required[dict[str, Any]]


class DiceRolled(Recorded, total=False):
    """``dice.rolled``."""

    pass


class Healed(Caused, total=False):
    """``healed``: ``raw`` is the rolled total before the maximum HP."""

    actor: Required[str | None]
    amount: Required[int]
    hp: Required[int]
    ko: Required[bool]
    raw: int
    status: str
    target: Required[str]


class FogChanged(Recorded, total=False):
    """``fog.changed``: the GM covered the board (``mode: "on"``), lifted the fog (``"off"``), or revealed or
    hid the rectangles ``rects`` (``[x0, y0, x1, y1]``, corners included; ``"reveal"``, ``"hide"``)."""

    mode: Required[str]
    rects: list[list[int]]


class CombatantHidden(Recorded, total=False):
    """``combatant.hidden``: the GM hid a combatant from the players (``hidden``) or revealed it."""

    by: Required[str]
    combatant: Required[str]
    hidden: Required[bool]


class HouseRuleChanged(Recorded, total=False):
    """``house_rule.changed``: the GM set one of the battle's house rules (``option``) to ``value`` in play;
    ``before`` the value it replaced, ``label`` and ``said`` the rule and its new value in words."""

    option: Required[str]
    value: Required[Any]
    before: Any
    label: Required[str]
    said: Required[str]
    by: Required[str]


class HpSet(Recorded, total=False):
    """``hp.set``."""

    alive: bool
    by: Required[str]
    combatant: Required[str]
    hp: Required[int]
    ko: bool


class InitiativeRolled(Recorded, total=False):
    """``initiative.rolled``."""

    bonus: Required[int]
    combatant: Required[str]
    total: Required[int]


class InitiativeRolloff(Recorded, total=False):
    """``initiative.rolloff``."""

    combatant: Required[str]
    total: Required[int]


class Moved(Recorded, total=False):
    """``moved``."""

    actor: str
    by: str
    combatant: Required[str]
    path: Required[list[list[int]]]
    to: Required[list[int]]


class OrderSet(Recorded, total=False):
    """``order.set``."""

    order: Required[list[str]]
    turn: int


class ResourcesSet(Caused, total=False):
    """``resources.set``: ``gain`` what was added, ``by: "gm"`` when the GM set them."""

    by: str
    combatant: Required[str]
    gain: int
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


class RulesFailed(Recorded, total=False):
    """``rules.failed``: a step of the rules whose content dice could not be rolled; ``what`` had no effect
    (``reason`` says why). Logged instead of the step, so the turn goes on."""

    reason: Required[str]
    what: Required[str]


class StatusApplied(Caused, total=False):
    """``status.applied``."""

    by: str  # who applied it: a combatant id, or "gm" (old logs: by_id, by_combatant, source)
    combatant: Required[str]
    duration: Required[int]
    power: Required[int]
    status: Required[str]


class StatusRemoved(Caused, total=False):
    """``status.removed``."""

    by: str
    combatant: Required[str]
    reason: str
    status: Required[str]


class StatusUpdated(Recorded, total=False):
    """``status.updated``."""

    combatant: Required[str]
    fields: Required[dict[str, Any]]
    status: Required[str]


class TacticsChose(Recorded, total=False):
    """``tactics.chose``: the rules' tactics act for a combatant the GM left to them (``gm.tactics``);
    ``reason`` is the tactics' one line of player words, ``action`` the kind of what follows."""

    actor: Required[str]
    reason: Required[str]
    action: str


class TurnEnded(Recorded, total=False):
    """``turn.ended``."""

    combatant: Required[str]
    reason: str
    explained: bool  # the line before (the tactics' reason) says why: no line of its own


class TurnPrepared(Recorded, total=False):
    """``turn.prepared``: a ruleset readies a combatant's turn (each ruleset adds the fields it needs)."""

    combatant: Required[str]


class TurnSkipped(Recorded, total=False):
    """``turn.skipped``."""

    by: Required[str]
    combatant: Required[str]


class TurnStarted(Recorded, total=False):
    """``turn.started``."""

    combatant: Required[str]
    index: Required[int]
    round: Required[int]


def _attack_verdict(d: dict[str, Any]) -> str:
    return "crit" if d.get("crit") else "miss" if d.get("hit") is False else ""


#: The generic events: the ones the core emits and applies, and the combat vocabulary rulesets share.
GENERIC_EVENTS: dict[str, EventType] = {
    "ability.used": EventType(AbilityUsed, words.ability_used, one_of=("ability", "weapon", "item")),
    "attack.declared": EventType(AttackDeclared, words.attack_declared),
    "attack.rolled": EventType(AttackRolled, words.attack_rolled, verdict=_attack_verdict),
    "battle.created": EventType(BattleCreated, words.battle_created),
    "battle.ended": EventType(BattleEnded, words.battle_ended),
    "battle.extra": EventType(BattleExtra),
    "battle.started": EventType(BattleStarted, lambda d, n, h: "The battle begins."),
    "combatant.added": EventType(CombatantAdded, words.combatant_added),
    "combatant.hidden": EventType(
        CombatantHidden,
        lambda d, n, h: (
            f"The GM {'hides' if d.get('hidden') else 'reveals'} {words.who(n, d.get('combatant'))}."
        ),
    ),
    "combatant.placed": EventType(CombatantPlaced, words.combatant_placed),
    "combatant.removed": EventType(
        CombatantRemoved, lambda d, n, h: f"{words.who(n, d.get('combatant'))} leaves the battle."
    ),
    "combatant.updated": EventType(
        CombatantUpdated, lambda d, n, h: f"{words.who(n, d.get('combatant'))} changes.", changes=True
    ),
    "damage.dealt": EventType(DamageDealt, words.damage_dealt, changes=True, hurts=True),
    "decision.answered": EventType(DecisionAnswered, words.decision_answered),
    "decision.opened": EventType(DecisionOpened, words.decision_opened),
    "dice.rolled": EventType(DiceRolled, lambda d, n, h: "Dice are rolled."),
    "fog.changed": EventType(FogChanged, words.fog_changed),
    "healed": EventType(Healed, words.healed, changes=True),
    "hp.set": EventType(HpSet, words.hp_set, changes=True),
    "house_rule.changed": EventType(HouseRuleChanged, words.house_rule_changed),
    "initiative.rolled": EventType(InitiativeRolled, words.initiative_rolled),
    "initiative.rolloff": EventType(InitiativeRolloff, words.initiative_rolloff),
    "moved": EventType(Moved, words.moved),
    "order.set": EventType(OrderSet, words.order_set),
    "resources.set": EventType(ResourcesSet, words.resources_set, changes=True),
    "round.ended": EventType(RoundEnded, lambda d, n, h: f"Round {d.get('round', '?')} ends."),
    "round.started": EventType(RoundStarted, lambda d, n, h: f"Round {d.get('round', '?')} begins."),
    "row.changed": EventType(
        RowChanged,
        lambda d, n, h: f"{words.who(n, d.get('combatant'))} moves to the {d.get('row', '?')} row.",
    ),
    "rules.failed": EventType(
        RulesFailed,
        lambda d, n, h: f"{d.get('what') or 'That'} had no effect. {d.get('reason') or ''}".strip(),
    ),
    "status.applied": EventType(StatusApplied, words.status_applied, changes=True),
    "status.removed": EventType(StatusRemoved, words.status_removed),
    "status.updated": EventType(StatusUpdated, changes=True),
    "tactics.chose": EventType(TacticsChose, words.tactics_chose),
    "turn.ended": EventType(TurnEnded, words.turn_ended),
    "turn.prepared": EventType(TurnPrepared),
    "turn.skipped": EventType(
        TurnSkipped, lambda d, n, h: f"The GM skips {words.who(n, d.get('combatant'))}'s turn."
    ),
    "turn.started": EventType(TurnStarted, lambda d, n, h: f"{words.who(n, d.get('combatant'))}'s turn."),
}


def event_problems(event: Event, own: Mapping[str, EventType] | None = None) -> list[str]:
    """What in ``event`` departs from its description (an empty list when it fits).

    ``own``: the event types of the battle's ruleset (``Ruleset.events``), which come before the
    generic ones.

    >>> event_problems(Event("turn.started", {"combatant": "c1", "index": 0, "round": 1}))
    []
    >>> event_problems(Event("turn.started", {"who": "c1", "index": 0, "round": 1}))
    ['combatant: missing', 'who: not a field of this event']
    """
    spec = (own or {}).get(event.type) or GENERIC_EVENTS.get(event.type)
    if spec is None:
        return [f"unknown event type {event.type!r}"]
    out = typed_problems(spec.fields, event.data, "")
    if spec.one_of and sum(name in event.data for name in spec.one_of) != 1:
        out.append(f"exactly one of {', '.join(spec.one_of)}")
    return out
