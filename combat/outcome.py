"""What just happened, in a sentence: the actor's outcome line and a player's "you were hit" notice.

``outcome_text(events, names, hidden)`` sums up one accepted action for the
person who took it ("Hit! 8 damage to Goblin — 1d8 [7] + 1 (Sword) = 8"); ``notices``
tells a player what the last action did to their own combatants. Both use
only what that viewer may be told: callers pass events as the engine tells
them (``told.Told.event``), ``notices`` asks it itself (``Told.felt``), and a
number taken out is not said. How an event counts (a hit, a miss, a critical hit, damage)
is what its type's description says (``EventType.verdict`` and ``hurts``),
whichever ruleset owns it.
"""

from __future__ import annotations

from collections.abc import Set as AbstractSet
from typing import Any

from combat.engine.log import describe
from combat.engine.rulesets import event_type
from combat.engine.told import Teller

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
    """One line for the actor, built only from the events of that action as they ended: hit or miss, the
    damage each target took after every reaction (none: "Grul takes no damage"), healing with its full
    dice, statuses, who fell, and a question still open. Nothing is said of what a roll was expected to
    do before the reactions resolved."""
    headline = ""
    parts: list[str] = []
    dice = ""
    fallback = ""
    actor = next((d.get("actor") for _, d in events if isinstance(d, dict) and d.get("actor")), None)
    waiting = ""
    for etype, data in events:
        d = data if isinstance(data, dict) else {}
        entry = describe(0, etype, d, names, hidden)
        dice = _dice(entry) or dice
        verdict = _verdict(etype, d)
        if verdict == "crit":
            headline = "Critical hit!"
        elif verdict == "miss" and not headline:
            headline = "Miss."
        elif verdict == "hit" and not headline:
            headline = "Hit!"
        if _hurts(etype):
            target: Any = d.get("target")  # JSON of the log: any type, looked up as is
            if not headline or headline == "Miss.":
                headline = "Hit!"
            name = names.get(target, "someone")
            amount = d.get("amount")
            # A hidden enemy's damage taken, next to the dice, would tell its armour: say only whether it was
            # hurt (the engine's filter_event has taken the amount out and left ``zero``).
            if amount == 0 or (not isinstance(amount, int) and d.get("zero")):
                part = f"{name} takes no damage"
            elif target in hidden or not isinstance(amount, int):
                part = f"{name} is hurt"
            else:
                part = f"{amount} damage to {name}"
            parts.append(part + (f" — {dice}" if dice else ""))
            dice = ""
            if d.get("ko") and target not in hidden:
                parts.append(f"{name} falls")
        elif etype == "healed":
            target = d.get("target")
            amount = d.get("amount")
            if amount == 0 or (not isinstance(amount, int) and d.get("zero")):
                part = f"{names.get(target, 'someone')} gains no HP"
            else:
                part = f"{names.get(target, 'someone')} heals" + (
                    f" {amount}" if isinstance(amount, int) else ""
                )
            parts.append(part + (f" — {dice}" if dice else ""))
            dice = ""
        elif etype == "status.applied":
            parts.append(entry["text"].rstrip("."))
        elif etype == "decision.opened":
            waiting = entry["text"].rstrip(".")
        elif etype == "decision.answered":
            waiting = ""  # what the answer did follows in its own events
        elif etype not in QUIET and entry["text"]:
            reaction = isinstance(d.get("actor"), str) and d.get("actor") != actor
            if reaction:  # someone else's answer within the action: a parry, an interrupt
                parts.append(entry["text"].rstrip("."))
            elif not fallback:
                fallback = entry["text"].rstrip(".")
    if waiting:
        parts.append(waiting)
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
    events_newest_first: list[tuple[int, str, dict[str, Any]]], mine: AbstractSet[str], teller: Teller
) -> list[dict[str, Any]]:
    """What the latest action did to the viewer's own combatants: hits and statuses (their own numbers
    only), each as the viewer feels it at its seq (``Told.felt``: a hit from someone they may not know
    of names no one)."""
    out = []
    for seq, etype, data in last_action(events_newest_first):
        told = teller.at(seq)
        d = told.felt(etype, data, mine)
        if d is None:
            continue
        names = told.names
        if _hurts(etype):
            who = names.get(d["target"], "Your character")
            actor: Any = d.get("actor")
            by = names.get(actor, "") if actor not in told.unseen else ""
            hp = f" (HP {d['hp']})" if isinstance(d.get("hp"), int) else ""
            text = f"{who} is hit{' by ' + by if by else ''}: {d.get('amount', 0)} damage{hp}."
            if d.get("ko"):
                text += f" {who} falls!"
            out.append({"seq": seq, "text": text})
        elif etype == "status.applied":
            who = names.get(d["combatant"], "Your character")
            status = str(d.get("status", "a status")).replace("_", " ").title()
            out.append({"seq": seq, "text": f"{who} gets {status}."})
    return out
