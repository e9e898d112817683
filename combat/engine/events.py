"""Events: what happened. A battle's state is the fold of its events (ENG-1).

An ``Event`` is a type name and a JSON-safe ``data`` dict. Dice used by the
step that produced it are in ``data["rolls"]`` as ``Roll`` dicts (ENG-2).
Templates turn events into words; the engine never writes prose into them
beyond short labels.

>>> e = Event("damage.dealt", {"target": "c2", "amount": 3, "hp": 7})
>>> Event.from_dict(e.to_dict()) == e
True
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Event:
    """One fact of the battle log. ``type`` is dotted (``"turn.started"``), ``data`` is JSON-safe."""

    type: str
    data: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"type": self.type, "data": self.data}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Event:
        if not isinstance(d, dict) or not isinstance(d.get("type"), str):
            raise ValueError("An event needs a string 'type'.")
        data = d.get("data") or {}
        if not isinstance(data, dict):
            raise ValueError("An event's 'data' must be an object.")
        return cls(d["type"], data)

    @property
    def rolls(self) -> list[dict[str, Any]]:
        """The dice recorded in this event (possibly empty)."""
        return self.data.get("rolls", [])
