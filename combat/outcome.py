"""What just happened, in a sentence: the actor's outcome line and a player's "you were hit" notice.

``outcome_text(events, names, hidden)`` sums up one accepted action for the
person who took it ("Hit! 8 damage to Goblin — 1d8 [7] + 1 (Sword) = 8"); ``notices``
tells a player what the last action did to their own combatants. Both use
only what the log may show that viewer: callers pass events filtered by the
engine (``filter_event``; ``hidden`` from ``hidden_ids``), and a number taken
out is not said. How an event counts (a hit, a miss, a critical hit, damage)
is what its type's description says (``EventType.verdict`` and ``hurts``),
whichever ruleset owns it.
"""

from __future__ import annotations

from collections.abc import Set as AbstractSet
from typing import Any

from combat.engine.log import describe
from combat.engine.rulesets import event_type

QUIET = frozenset(
    {
        "turn.started",
        "turn.ended",
        "round.started",
        "round.ended",
        "resources.set",
        "order.set",
        "turn.prepared",
        "battle.extra",
        "status.updated",
        "initiative.rolled",
        "initiative.rolloff",
    }
)


def _dice(entry: dict[str, Any]) -> str:
    return ", ".join(
        f"{r['text']} = {r['total']}"
        for r in entry["rolls"]
        if r["purpose"] in ("damage", "healing", "spell effect")
    )


def _verdict(etype: str, d: dict[str, Any]) -> str:
    """``"hit"``, ``"miss"``, ``"crit"`` or ``""``: what the event's type says of it."""
    spec = event_type(etype)
    return spec.verdict(d) if spec is not None and spec.verdict is not None else ""


def _hurts(etype: str) -> bool:
    spec = event_type(etype)
    return spec is not None and spec.hurts


def outcome_text(
    events: list[tuple[str, dict[str, Any]]], names: dict[str, str], hidden: AbstractSet[str]
) -> str:
    """One line for the actor: hit or miss, damage and healing with their full dice, statuses, who fell."""
    headline = ""
    parts: list[str] = []
    dice = ""
    fallback = ""
    for etype, data in events:
        d = data if isinstance(data, dict) else {}
        entry = describe(0, etype, d, names, hidden)
        dice = _dice(entry) or dice
        verdict = _verdict(etype, d)
        if verdict == "crit":
            headline = "Critical hit!"
        elif verdict == "miss" and not headline:
            headline = "Miss."
        if _hurts(etype):
            target: Any = d.get("target")  # JSON of the log: any type, looked up as is
            if not headline or headline == "Miss.":
                headline = "Hit!"
            # A hidden enemy's damage taken, next to the dice, would tell its armour: say only that it was hurt
            # (the engine's filter_event has taken the amount out; ``hidden`` is the same decision).
            amount = d.get("amount")
            if target in hidden or not isinstance(amount, int):
                part = f"{names.get(target, 'someone')} is hurt"
            else:
                part = f"{amount} damage to {names.get(target, 'someone')}"
            parts.append(part + (f" — {dice}" if dice else ""))
            dice = ""
            if d.get("ko") and target not in hidden:
                parts.append(f"{names.get(target, 'someone')} falls")
        elif etype == "healed":
            target = d.get("target")
            amount = f" {d['amount']}" if isinstance(d.get("amount"), int) else ""
            parts.append(f"{names.get(target, 'someone')} heals{amount}" + (f" — {dice}" if dice else ""))
            dice = ""
        elif etype == "status.applied" or etype == "decision.opened":
            parts.append(entry["text"].rstrip("."))
        elif etype not in QUIET and not fallback and entry["text"]:
            fallback = entry["text"].rstrip(".")
    if not parts and headline != "Miss.":
        parts.append(fallback or "Done")
    body = "; ".join(parts)
    return f"{headline} {body}.".strip() if body else headline


def last_action(
    events_newest_first: list[tuple[int, str, dict[str, Any]]],
) -> list[tuple[int, str, dict[str, Any]]]:
    """The events of the latest action, oldest first (an action's first event carries ``act``)."""
    out = []
    for row in events_newest_first:
        out.append(row)
        if isinstance(row[2], dict) and "act" in row[2]:
            break
    else:
        return []
    return list(reversed(out))


def notices(
    events_newest_first: list[tuple[int, str, dict[str, Any]]], mine: AbstractSet[str], names: dict[str, str]
) -> list[dict[str, Any]]:
    """What the latest action did to the viewer's own combatants: hits and statuses (their own numbers only)."""
    out = []
    for seq, etype, data in last_action(events_newest_first):
        d = data if isinstance(data, dict) else {}
        if _hurts(etype) and d.get("target") in mine:
            who = names.get(d["target"], "Your character")
            actor: Any = d.get("actor")
            by = names.get(actor, "")
            hp = f" (HP {d['hp']})" if isinstance(d.get("hp"), int) else ""
            text = f"{who} is hit{' by ' + by if by else ''}: {d.get('amount', 0)} damage{hp}."
            if d.get("ko"):
                text += f" {who} falls!"
            out.append({"seq": seq, "text": text})
        elif etype == "status.applied" and d.get("combatant") in mine:
            who = names.get(d["combatant"], "Your character")
            status = str(d.get("status", "a status")).replace("_", " ").title()
            out.append({"seq": seq, "text": f"{who} gets {status}."})
    return out
