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

import re
from collections.abc import Set as AbstractSet
from typing import Any

from combat.engine.rulesets import event_type
from combat.engine.words import Names, generic


def describe(
    seq: int, etype: str, data: dict[str, Any], names: Names, hidden: AbstractSet[str]
) -> dict[str, Any]:
    """One log entry: words and dice. Never prints an HP that ``hidden`` protects."""
    data = data if isinstance(data, dict) else {}
    spec = event_type(etype)
    text = spec.words(data, names, hidden) if spec is not None else generic(etype, data, names)
    raw_rolls = [r for r in data.get("rolls") or [] if isinstance(r, dict)]
    bonus = added_bonus(data, raw_rolls)
    rolls = []
    for roll in raw_rolls:
        faces = ", ".join(str(f) for f in roll.get("faces") or [])
        expr, total = str(roll.get("expr", "")), roll.get("total", "")
        if bonus and roll.get("purpose") in BONUS_PURPOSES and isinstance(total, int):
            # The flat bonus the rules add to this roll belongs to its formula: "1d8+1 [7]+1 = 8";
            # a constant already in the dice ("2d20+10") is spelled out too: "[8, 19]+10+10".
            shown = _constant(expr, roll) + f"{bonus:+d}"
            expr, total = f"{expr}{bonus:+d}", total + bonus
            rolls.append(
                {
                    "expr": expr,
                    "faces": faces,
                    "bonus": shown,
                    "total": total,
                    "purpose": str(roll.get("purpose", "")),
                }
            )
            continue
        rolls.append(
            {
                "expr": expr,
                "faces": faces,
                "bonus": "",
                "total": total,
                "purpose": str(roll.get("purpose", "")),
            }
        )
    return {"seq": seq, "type": etype, "text": text, "rolls": rolls}


BONUS_PURPOSES = frozenset({"damage", "healing", "spell effect", "interrupt"})
_SIMPLE = re.compile(r"^\d*d\d+(?:\s*[+-]\s*\d+)*$")


def _constant(expr: str, roll: dict[str, Any]) -> str:
    """The constant a plain sum of dice adds ("2d20+10": "+10"), as shown after its faces; "" otherwise."""
    faces = roll.get("faces") or []
    if not _SIMPLE.match(expr.replace(" ", "")) or not all(isinstance(f, int) for f in faces):
        return ""
    extra = int(roll.get("total", 0)) - sum(faces)
    return f"{extra:+d}" if extra else ""


def added_bonus(data: dict[str, Any], rolls: list[dict[str, Any]]) -> int:
    """The flat amount the rules added to each damage or healing roll of an event (0 when none or unknown).

    Events say it as ``bonus`` next to the rolled ``base``, or as a ``raw``
    total of every roll plus its bonus.
    """
    mine = [r for r in rolls if r.get("purpose") in BONUS_PURPOSES and isinstance(r.get("total"), int)]
    if not mine:
        return 0
    if isinstance(data.get("bonus"), int) and isinstance(data.get("base"), int) and len(mine) == 1:
        return data["bonus"] if data["base"] == mine[0]["total"] else 0
    whole = data.get("raw")
    if not isinstance(whole, int) or isinstance(whole, bool):
        return 0
    extra = whole - sum(r["total"] for r in mine)
    return extra // len(mine) if extra % len(mine) == 0 else 0
