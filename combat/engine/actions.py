"""Actions: what a participant asks for. Untrusted input is validated here.

An ``Action`` is a kind, the acting combatant and a JSON-safe ``params`` dict.
Parameters are named the same way in every ruleset (the vocabulary of
``events.py`` where the two meet):

- ``targets``: the combatants an action is aimed at, always a list of ids
  (``["c2"]``), even for one target; ``combatant``: the one a setup or GM
  action changes.
- Content by key, one name per kind of content: ``ability``, ``weapon``,
  ``item``, ``spell``, ``skill`` (a charisma skill), ``status``, ``object``
  (a battlefield object), ``modifiers`` (a list of modifier keys), ``equip``
  (the weapon or accessory put in ``slot``; ``""`` puts it away).
- Squares are ``[x, y]`` lists: ``to`` is where the actor moves (a move's
  goal, D20 Luck's free step before an ability, a GM move), ``path`` the
  squares of a move step by step, ``square`` the square an ability is aimed
  at (an area's centre, a leap), ``pos`` where a combatant is placed (setup)
  and ``row`` its row on a rows board.

``ACTION_PARAMS`` below names the parameters of the generic action kinds
(turns, moves, abilities, attacks, setup and the GM); a ruleset names those
of its own kinds in ``Ruleset.params`` (and may extend a generic kind's with
a TypedDict subclass). ``param_problems`` checks parameters against them, and
``chosen_params`` builds what a client sends for an option of ENG-5.

>>> Action.from_dict({"kind": "end_turn", "actor": "c1"})
Action(kind='end_turn', actor='c1', params={})
>>> Action.from_dict({"kind": 3})
Refusal(reason='Unknown action.', code=<RefusalCode.BAD_INPUT: 'bad_input'>)
"""

# No ``from __future__ import annotations`` here: the TypedDicts' Required markers must be real objects.
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Required, TypedDict

from combat.engine.events import typed_problems

MAX_PARAMS_BYTES = 20_000
MAX_DEPTH = 8  # nesting of lists and objects in an action's params (the real ones use 2)


def nesting_depth(value: Any, limit: int = MAX_DEPTH) -> int:
    """How deeply lists and dicts nest in ``value``, counted without recursion; stops once past ``limit``."""
    deepest = 0
    stack = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list | tuple):
            depth += 1
            deepest = max(deepest, depth)
            if deepest > limit:
                return deepest
            stack.extend((child, depth) for child in (item.values() if isinstance(item, dict) else item))
    return deepest


def has_nul(value: Any) -> bool:
    """True when a NUL character hides in a JSON-like value's text (a key or a string), at any depth."""
    if isinstance(value, str):
        return "\x00" in value
    if isinstance(value, dict):
        return any(has_nul(k) or has_nul(v) for k, v in value.items())
    if isinstance(value, list | tuple):
        return any(has_nul(v) for v in value)
    return False


def text_depth(text: str, limit: int = MAX_DEPTH) -> int:
    """How deeply ``[`` and ``{`` nest in JSON text (strings skipped), without parsing it; stops past ``limit``."""
    depth = deepest = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            if depth > deepest:
                deepest = depth
                if deepest > limit:
                    return deepest
        elif ch in "]}":
            depth -= 1
    return deepest


def loads_bounded(text: str, max_chars: int, max_depth: int = MAX_DEPTH) -> "Any | Refusal":
    """Parse untrusted JSON text, or a Refusal when it is too long, too deeply nested or malformed."""
    if not isinstance(text, str) or len(text) > max_chars:
        return Refusal("That request is too large.", RefusalCode.BAD_INPUT)
    if text_depth(text, max_depth) > max_depth:
        return Refusal("That request is nested too deeply.", RefusalCode.BAD_INPUT)
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return Refusal("That request is malformed.", RefusalCode.BAD_INPUT)


class RefusalCode(StrEnum):
    """What kind of refusal: callers pick a response by code (an HTTP status...), never by the words."""

    STALE = "stale"  # the request was made against an older state of the battle
    NOT_YOURS = "not_yours"  # beyond the asker's role or characters
    NOT_FOUND = "not_found"  # no such battle (any more)
    NOT_YOUR_TURN = "not_your_turn"  # someone else acts now
    WAITING = "waiting"  # a reaction window waits for an answer
    OUT_OF_RANGE = "out_of_range"  # the target or square is too far
    NOT_ALLOWED = "not_allowed"  # the rules forbid it now (cost, status, phase...)
    BAD_INPUT = "bad_input"  # malformed or unknown input


@dataclass(frozen=True)
class Refusal:
    """Why an action was refused (ENG-4): human-readable ``reason`` and a ``code``; nothing changed.

    Two refusals are equal when their words are (the code is for callers that
    choose a response).
    """

    reason: str
    code: RefusalCode = field(default=RefusalCode.NOT_ALLOWED, compare=False)

    def __bool__(self) -> bool:  # a refusal is never a success
        return False


@dataclass(frozen=True)
class Action:
    """A request: ``kind`` (``"move"``, ``"ability"``, ``"gm.set_hp"``...), the acting combatant, params."""

    kind: str
    actor: str | None = None
    params: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "actor": self.actor, "params": self.params}

    @classmethod
    def from_dict(cls, payload: Any) -> "Action | Refusal":
        """Check the shape of untrusted JSON; return an Action or a Refusal with the reason."""
        if not isinstance(payload, dict):
            return Refusal("Malformed action.", RefusalCode.BAD_INPUT)
        kind = payload.get("kind")
        if not isinstance(kind, str) or not kind or len(kind) > 64:
            return Refusal("Unknown action.", RefusalCode.BAD_INPUT)
        actor = payload.get("actor")
        if actor is not None and (not isinstance(actor, str) or len(actor) > 64):
            return Refusal("Malformed actor.", RefusalCode.BAD_INPUT)
        params = payload.get("params", {})
        if params is None:
            params = {}
        if not isinstance(params, dict):
            return Refusal("Malformed action parameters.", RefusalCode.BAD_INPUT)
        if nesting_depth(params) > MAX_DEPTH:
            return Refusal("Action parameters are nested too deeply.", RefusalCode.BAD_INPUT)
        if has_nul(params):
            return Refusal("Text may not contain NUL characters.", RefusalCode.BAD_INPUT)
        try:
            size = len(json.dumps(params))
        except (TypeError, ValueError, RecursionError):
            return Refusal("Malformed action parameters.", RefusalCode.BAD_INPUT)
        if size > MAX_PARAMS_BYTES:
            return Refusal("Action parameters are too large.", RefusalCode.BAD_INPUT)
        return cls(kind, actor, params)


@dataclass(frozen=True)
class ActionOption:
    """One entry of ``legal_actions`` (ENG-5): a button, greyed out with ``reason`` when unavailable.

    ``cost`` maps resource names to amounts (``{"actions": 1}``), ``targets``
    lists valid combatant ids, ``squares`` valid board squares, ``params``
    the fixed parameters to send back with the action (e.g. ``{"ability": "slash"}``; a
    chosen target and square are added by ``chosen_params``).
    The board's geometry comes from the rules, never from the browser:
    ``came_from`` maps each square a move passes (``(x, y)``) to the square before it on the
    way (``board.steps_within``); ``paths`` follows it back to give the path a move to each of
    ``squares`` takes (``"x,y"`` -> squares, start included); ``areas`` maps a square to the
    squares an area centred there covers.
    """

    kind: str
    label: str
    cost: dict[str, int] = field(default_factory=dict)
    targets: list[str] = field(default_factory=list)
    squares: list[list[int]] = field(default_factory=list)
    available: bool = True
    reason: str = ""
    params: dict[str, Any] = field(default_factory=dict)
    came_from: dict[tuple[int, int], tuple[int, int]] = field(default_factory=dict)
    areas: dict[str, list[list[int]]] = field(default_factory=dict)

    @property
    def paths(self) -> dict[str, list[list[int]]]:
        """``"x,y"`` -> the path (start included) a move to that square takes."""
        out: dict[str, list[list[int]]] = {}
        if not self.came_from:
            return out
        for x, y in self.squares:
            here = (x, y)
            path = [[x, y]]
            while here in self.came_from:
                here = self.came_from[here]
                path.append([here[0], here[1]])
            out[f"{x},{y}"] = path[::-1]
        return out

    def to_dict(self) -> dict[str, Any]:
        geometry = {
            name: {k: [list(s) for s in v] for k, v in value.items()}
            for name, value in (("paths", self.paths), ("areas", self.areas))
            if value
        }
        return {
            "kind": self.kind,
            "label": self.label,
            "cost": dict(self.cost),
            "targets": list(self.targets),
            "squares": [list(s) for s in self.squares],
            "available": self.available,
            "reason": self.reason,
            "params": dict(self.params),
            **geometry,
        }


# --- the parameters of every action kind -------------------------------------------------------


class NoParams(TypedDict):
    """An action without parameters (``end_turn``, ``flee``, ``gm.skip_turn``...)."""


class AnswerParams(TypedDict, total=False):
    """``answer``: the pending question (``decision``, default: the one pending) and the option's key."""

    decision: str
    choice: Required[str]


class MoveParams(TypedDict, total=False):
    """``move``: the goal ``to`` (the shortest path there) or the whole ``path``; exactly one."""

    to: list[int]
    path: list[list[int]]


class AbilityParams(TypedDict, total=False):
    """``ability``: what is used (exactly one of ``ability``, ``weapon``, ``item``) and where:
    ``targets``, or ``square`` (area and leap abilities)."""

    ability: str
    weapon: str
    item: str
    targets: list[str]
    square: list[int]


class AttackParams(TypedDict, total=False):
    """``attack``: the ``targets``, with the ``weapon`` where the weapon is chosen."""

    weapon: str
    targets: list[str]


class TargetsParams(TypedDict, total=False):
    """Actions aimed at combatants and nothing else (Paradigm's ``hold``, Action Block's ``grapple``)."""

    targets: list[str]


class CombatantParams(TypedDict):
    """Setup and GM actions on one combatant (``setup.remove_combatant``, ``gm.remove_combatant``)."""

    combatant: str


class NewCombatantParams(TypedDict, total=False):
    """``setup.add_combatant`` and ``gm.add_combatant``: a combatant and where it stands."""

    name: Required[str]
    side: str
    kind: str
    controller: str | int | None
    character_id: int | None
    sheet: dict[str, Any]
    pos: list[int] | None
    row: str


class PlaceParams(TypedDict, total=False):
    """``setup.place``: put ``combatant`` at ``pos`` (grid) or in ``row`` (rows board)."""

    combatant: Required[str]
    pos: list[int] | None
    row: str


class GmMoveParams(TypedDict, total=False):
    """``gm.move``: move ``combatant`` ``to`` a square (grid) or to a ``row`` (rows board), ignoring the rules."""

    combatant: Required[str]
    to: list[int]
    row: str


class SetHpParams(TypedDict, total=False):
    """``gm.set_hp``: to ``hp``, or by ``delta`` (down when negative; kept from 0 to the maximum)."""

    combatant: Required[str]
    hp: int
    delta: int


class HideParams(TypedDict):
    """``gm.hide``: ``hidden`` true hides the combatant from the players, false reveals it."""

    combatant: str
    hidden: bool


class HouseRuleParams(TypedDict):
    """``gm.house_rule``: the battle's house rule ``option`` (a key of the ruleset's options) set to ``value``."""

    option: str
    value: Any


class SetResourceParams(TypedDict):
    """``gm.set_resource``: set ``resource`` of ``combatant`` to ``value``."""

    combatant: str
    resource: str
    value: int


class AddStatusParams(TypedDict, total=False):
    """``gm.add_status``: ``power`` and ``duration`` default to 1."""

    combatant: Required[str]
    status: Required[str]
    power: int
    duration: int


class RemoveStatusParams(TypedDict):
    """``gm.remove_status``."""

    combatant: str
    status: str


class EndBattleParams(TypedDict, total=False):
    """``gm.end_battle``: why, and the winning side (none: a draw)."""

    reason: str
    winner: str | None


class FogParams(TypedDict, total=False):
    """``gm.fog``: ``mode`` on (cover the board), off, reveal or hide; ``rects`` the areas revealed or hidden
    (``[x0, y0, x1, y1]``, corners included)."""

    mode: Required[str]
    rects: list[list[int]]


#: The parameters of the generic action kinds: the reference that the rulesets, the web layer and the
#: tests follow. A ruleset's own kinds are in its ``Ruleset.params``.
ACTION_PARAMS: dict[str, type] = {
    "end_turn": NoParams,
    "answer": AnswerParams,
    "move": MoveParams,
    "ability": AbilityParams,
    "attack": AttackParams,
    # setup and GM (ENG-7)
    "setup.add_combatant": NewCombatantParams,
    "setup.place": PlaceParams,
    "setup.remove_combatant": CombatantParams,
    "setup.start": NoParams,
    "gm.set_hp": SetHpParams,
    "gm.set_resource": SetResourceParams,
    "gm.add_status": AddStatusParams,
    "gm.remove_status": RemoveStatusParams,
    "gm.move": GmMoveParams,
    "gm.skip_turn": NoParams,
    "gm.add_combatant": NewCombatantParams,
    "gm.remove_combatant": CombatantParams,
    "gm.end_battle": EndBattleParams,
    "gm.fog": FogParams,
    "gm.tactics": NoParams,
    "gm.hide": HideParams,
    "gm.house_rule": HouseRuleParams,
}

#: Kinds whose parameters name exactly one of these.
ONE_OF: dict[str, tuple[str, ...]] = {"move": ("to", "path"), "ability": ("ability", "weapon", "item")}

#: Where a square picked on the board goes (``square`` unless named here).
PICKED_SQUARE: dict[str, str] = {"move": "to"}


def param_problems(kind: str, params: dict[str, Any], own: Mapping[str, type] | None = None) -> list[str]:
    """What in ``params`` departs from the parameters of ``kind`` (an empty list when they fit).

    ``own``: the parameters of the battle's ruleset (``Ruleset.params``), which come before
    ``ACTION_PARAMS``.

    >>> param_problems("ability", {"weapon": "sword", "targets": ["c2"]})
    []
    >>> param_problems("ability", {"ability": "weapon:sword", "targets": "c2", "step": [1, 1]})
    ["targets: 'c2' is not a list", 'step: not a parameter of this action']
    """
    spec = (own or {}).get(kind) or ACTION_PARAMS.get(kind)
    if spec is None:
        return [f"unknown action kind {kind!r}"]
    out = typed_problems(spec, params, "", "not a parameter of this action")
    names = ONE_OF.get(kind)
    if names and sum(name in params for name in names) != 1:
        out.append(f"exactly one of {', '.join(names)}")
    return out


def chosen_params(
    kind: str, params: dict[str, Any], targets: list[str] | None = None, square: list[int] | None = None
) -> dict[str, Any]:
    """What a client sends for an option: its fixed ``params`` plus the target(s) and the square picked.

    >>> chosen_params("ability", {"weapon": "sword"}, targets=["c2"])
    {'weapon': 'sword', 'targets': ['c2']}
    >>> chosen_params("move", {}, square=[3, 4])
    {'to': [3, 4]}
    """
    out = dict(params)
    if targets:
        out["targets"] = list(targets)
    if square is not None:
        out[PICKED_SQUARE.get(kind, "square")] = list(square)
    return out
