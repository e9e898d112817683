"""Actions: what a participant asks for. Untrusted input is validated here.

>>> Action.from_dict({"kind": "end_turn", "actor": "c1"})
Action(kind='end_turn', actor='c1', params={})
>>> Action.from_dict({"kind": 3})
Refusal(reason='Unknown action.', code=<RefusalCode.BAD_INPUT: 'bad_input'>)
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

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


def loads_bounded(text: str, max_chars: int, max_depth: int = MAX_DEPTH) -> Any | Refusal:
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
    def from_dict(cls, payload: Any) -> Action | Refusal:
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
    the fixed parameters to send back with the action (e.g. ``{"ability": "slash"}``).
    The board's geometry comes from the rules, never from the browser:
    ``paths`` maps a square (``"x,y"``) to the path a move there takes,
    ``areas`` maps a square to the squares an area centred there covers.
    """

    kind: str
    label: str
    cost: dict[str, int] = field(default_factory=dict)
    targets: list[str] = field(default_factory=list)
    squares: list[list[int]] = field(default_factory=list)
    available: bool = True
    reason: str = ""
    params: dict[str, Any] = field(default_factory=dict)
    paths: dict[str, list[list[int]]] = field(default_factory=dict)
    areas: dict[str, list[list[int]]] = field(default_factory=dict)

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
