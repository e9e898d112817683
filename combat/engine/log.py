"""The combat log: one entry per event, its sentence and its dice.

``describe(seq, type, data, names, hidden)`` turns an engine event into a
log entry. The sentence is the one registered with the event's type
(``rulesets.event_type``: the generic events', or the ruleset's that owns
it); an unknown type gets a generic sentence built only from harmless
fields. What a viewer may read is decided by the engine
(``view.filter_event``, with ``hidden`` from ``view.hidden_ids``): callers
pass the filtered data, and a sentence whose number was taken out is said
without it ("Goblin takes fire damage.").

>>> describe(3, "round.started", {"round": 2}, {}, set())["text"]
'Round 2 begins.'
"""

from __future__ import annotations

from collections.abc import Set as AbstractSet
from typing import Any

from combat.engine.rulesets import event_type
from combat.engine.words import Names, generic


def describe(
    seq: int, etype: str, data: dict[str, Any], names: Names, hidden: AbstractSet[str]
) -> dict[str, Any]:
    """One log entry: words and dice. Never prints an HP that ``hidden`` protects.

    Each roll is said as the engine recorded it (``Roll.to_dict``), whole: its dice and faces, each
    flat amount the rules added with what it comes from, a multiplier, and the total the rules went
    on with; nothing is worked out here, so everyone who may see a roll sees the same one.
    """
    data = data if isinstance(data, dict) else {}
    spec = event_type(etype)
    text = spec.words(data, names, hidden) if spec is not None else generic(etype, data, names)
    rolls = [shown_roll(r) for r in data.get("rolls") or [] if isinstance(r, dict)]
    return {"seq": seq, "type": etype, "text": text, "rolls": rolls}


def shown_roll(roll: dict[str, Any]) -> dict[str, Any]:
    """A recorded roll for people to read: ``{"purpose", "text", "total"}``.

    >>> shown_roll({"expr": "1d8", "faces": [5], "total": 5, "purpose": "damage",
    ...             "adds": [{"value": 1, "from": "Sword"}], "result": 6})
    {'purpose': 'damage', 'text': '1d8 [5] + 1 (Sword)', 'total': 6}
    >>> shown_roll({"expr": "1d8", "faces": [7], "total": 7, "purpose": "damage", "adds": [],
    ...             "times": 2, "times_why": "critical hit", "result": 14})["text"]
    '1d8 [7] × 2 (critical hit)'
    """
    faces = ", ".join(str(f) for f in roll.get("faces") or [])
    text = f"{roll.get('expr', '')} [{faces}]"
    for add in roll.get("adds") or []:
        if isinstance(add, dict) and isinstance(add.get("value"), int):
            value, why = add["value"], add.get("from") or ""
            text += f" {'+' if value >= 0 else '−'} {abs(value)}" + (f" ({why})" if why else "")
    times = roll.get("times")
    if isinstance(times, int) and times != 1:
        text = (f"({text})" if roll.get("adds") else text) + f" × {times}"
        text += f" ({roll['times_why']})" if roll.get("times_why") else ""
    total = roll.get("result", roll.get("total", ""))
    return {"purpose": str(roll.get("purpose", "")), "text": text, "total": total}
