"""Actions: what a participant asks for. Untrusted input is validated here.

>>> Action.from_dict({"kind": "end_turn", "actor": "c1"})
Action(kind='end_turn', actor='c1', params={})
>>> Action.from_dict({"kind": 3})
Refusal(reason='Unknown action.')
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

MAX_PARAMS_BYTES = 20_000


@dataclass(frozen=True)
class Refusal:
    """Why an action was refused (ENG-4). Human readable; nothing changed."""

    reason: str

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
            return Refusal("Malformed action.")
        kind = payload.get("kind")
        if not isinstance(kind, str) or not kind or len(kind) > 64:
            return Refusal("Unknown action.")
        actor = payload.get("actor")
        if actor is not None and (not isinstance(actor, str) or len(actor) > 64):
            return Refusal("Malformed actor.")
        params = payload.get("params", {})
        if params is None:
            params = {}
        if not isinstance(params, dict):
            return Refusal("Malformed action parameters.")
        try:
            size = len(json.dumps(params))
        except (TypeError, ValueError):
            return Refusal("Malformed action parameters.")
        if size > MAX_PARAMS_BYTES:
            return Refusal("Action parameters are too large.")
        return cls(kind, actor, params)


@dataclass(frozen=True)
class ActionOption:
    """One entry of ``legal_actions`` (ENG-5): a button, greyed out with ``reason`` when unavailable.

    ``cost`` maps resource names to amounts (``{"actions": 1}``), ``targets``
    lists valid combatant ids, ``squares`` valid board squares, ``params``
    the fixed parameters to send back with the action (e.g. ``{"ability": "slash"}``).
    """

    kind: str
    label: str
    cost: dict[str, int] = field(default_factory=dict)
    targets: list[str] = field(default_factory=list)
    squares: list[list[int]] = field(default_factory=list)
    available: bool = True
    reason: str = ""
    params: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "label": self.label,
            "cost": dict(self.cost),
            "targets": list(self.targets),
            "squares": [list(s) for s in self.squares],
            "available": self.available,
            "reason": self.reason,
            "params": dict(self.params),
        }
