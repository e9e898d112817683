"""What just happened, in a sentence: the outcome lines of an action and a player's "you were hit" notice.

``outcome_text(events, names, hidden)`` sums up one accepted action for the
person who took it ("Hit! 8 damage to Goblin — 1d8 [7] + 1 (Sword) = 8"); ``watch_line`` says the
same for every seat, naming who acted ("Mira: Hit! Goblin is hurt — ..."); ``notices`` tells a
player what the last action did to their own combatants. All of them use only what that viewer may
be told: events as the engine tells them (``told.Told.event``, through ``shown_to``; nothing about a
combatant the viewer may not know of), the finished line as it tells a sentence (``Told.sentence``),
``notices`` asks it itself (``Told.felt``), and a number taken out is not said. How an event counts (a hit, a miss, a critical hit,
damage) is what its type's description says (``EventType.verdict`` and ``hurts``), whichever ruleset
owns it. Several hits on one combatant are said once, with their total ("3 hits on Mira: 1 + 16 + 0
= 17 damage (HP 303)").
"""

from __future__ import annotations

from collections.abc import Iterable
from collections.abc import Set as AbstractSet
from typing import Any

from combat.engine.log import describe
from combat.engine.rulesets import event_type
from combat.engine.state import BattleState
from combat.engine.told import Teller, Told, told
from combat.engine.view import Viewer
from combat.engine.words import count

Shown = list[tuple[str, dict[str, Any]]]

QUIET = frozenset(
    {
        "turn.started",
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


def _told_events(
    events: Iterable[tuple[str, Any]], now: Told
) -> tuple[Shown, dict[str, str], frozenset[str]]:
    shown = [(t, now.event(t, d)) for t, d in events]
    names = {cid: name for cid, name in now.names.items() if cid not in now.unseen}
    return [(t, d) for t, d in shown if d is not None], names, now.hidden


def shown_to(
    events: Iterable[tuple[str, Any]], state: BattleState, viewer: Viewer
) -> tuple[Shown, dict[str, str], frozenset[str]]:
    """An action's events as ``viewer`` may be told them now (``Told.event``: an event about a combatant
    they may not know of is left out), the names they may read, and whose numbers are hidden."""
    return _told_events(events, told(state, viewer))


def outcome_for(events: Iterable[tuple[str, Any]], state: BattleState, viewer: Viewer) -> str:
    """The actor's outcome line, with only what ``viewer`` may be told: ``outcome_text``, or the action's
    first sentence in the log where that has nothing to say ("Mira ends the turn."), else "Done."."""
    now = told(state, viewer)
    shown, names, hidden = _told_events(events, now)
    return now.sentence(
        _or_first_sentence(outcome_text(shown, names, hidden), shown, names, hidden) or "Done."
    )


def watch_line_for(events: Iterable[tuple[str, Any]], state: BattleState, viewer: Viewer) -> str:
    """``watch_line`` of an action's events for ``viewer``, told as the engine tells them a sentence."""
    now = told(state, viewer)
    return now.sentence(watch_line(*_told_events(events, now)))


def _or_first_sentence(text: str, events: Shown, names: dict[str, str], hidden: AbstractSet[str]) -> str:
    """``text``, or where it says nothing ("Done."), the first sentence the log says of ``events``."""
    if text not in ("", "Done."):
        return text
    said = (describe(0, t, d, names, hidden)["text"] for t, d in events)
    return next((s for s in said if s), "")


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


def _zero(d: dict[str, Any]) -> bool:
    """The damage (or healing) came to nothing: 0, or the engine's ``zero`` where it took the amount out."""
    amount = d.get("amount")
    return amount == 0 or (not isinstance(amount, int) and bool(d.get("zero")))


def _hits(events: Shown) -> dict[str, list[dict[str, Any]]]:
    """Per target, the damage it took in the action (events that say how much, or whether it was 0)."""
    out: dict[str, list[dict[str, Any]]] = {}
    for etype, d in events:
        target = d.get("target")
        if _hurts(etype) and isinstance(target, str) and ("amount" in d or "zero" in d):
            out.setdefault(target, []).append(d)
    return out


def _hit_part(d: dict[str, Any], name: str, hidden: bool, dice: str) -> str:
    """One hit: "8 damage to Goblin", "Goblin takes no damage" or, for a hidden HP, "Goblin is hurt"."""
    amount = d.get("amount")
    if _zero(d):
        part = f"{name} takes no damage"
    elif hidden or not isinstance(amount, int):
        part = f"{name} is hurt"
    else:
        part = f"{amount} damage to {name}"
    return part + (f" — {dice}" if dice else "")


def _hits_part(hits: list[dict[str, Any]], name: str, hidden: bool) -> str:
    """Several hits on one combatant, said once with their total: "3 hits on Mira: 1 + 16 + 0 = 17
    damage (HP 303)"; for a hidden HP only whether they hurt: "Goblin is hurt (3 hits)"."""
    amounts = [d.get("amount") for d in hits]
    if all(_zero(d) for d in hits):
        return f"{name} takes no damage ({count(len(hits), 'hit')})"
    if hidden or not all(isinstance(a, int) for a in amounts):
        return f"{name} is hurt ({count(len(hits), 'hit')})"
    hp = hits[-1].get("hp")
    after = f" (HP {hp})" if isinstance(hp, int) else ""
    total = sum(a for a in amounts if isinstance(a, int))
    return f"{count(len(hits), 'hit')} on {name}: {' + '.join(map(str, amounts))} = {total} damage{after}"


def _healed_part(d: dict[str, Any], name: str, dice: str) -> str:
    amount = d.get("amount")
    if _zero(d):
        part = f"{name} gains no HP"
    else:
        part = f"{name} heals" + (f" {amount}" if isinstance(amount, int) else "")
    return part + (f" — {dice}" if dice else "")


def _actor(events: Shown) -> str | None:
    """Who acted: the first combatant an event names as its actor. An answer resumes someone else's
    action: its answerer's events are their reaction within it (a Parry), the actor is whoever goes on."""
    answerer = next((d.get("combatant") for t, d in events[:1] if t == "decision.answered"), None)
    actors = [d["actor"] for _, d in events if isinstance(d, dict) and isinstance(d.get("actor"), str)]
    return next((a for a in actors if a != answerer), None)


def _headline(headline: str, verdict: str, hurt: bool) -> str:
    if verdict == "crit":
        return "Critical hit!"
    if verdict == "miss" and not headline:
        return "Miss."
    if (verdict == "hit" and not headline) or (hurt and headline in ("", "Miss.")):
        return "Hit!"
    return headline


def outcome_text(events: Shown, names: dict[str, str], hidden: AbstractSet[str]) -> str:
    """One line for the actor, built only from the events of that action as they ended: hit or miss, the
    damage each target took after every reaction (none: "Grul takes no damage"; several hits: once, with
    their total), healing with its full dice, statuses, who fell, and a question still open. Nothing is
    said of what a roll was expected to do before the reactions resolved."""
    headline, dice, fallback, waiting, missed = "", "", "", "", ""
    parts: list[str] = []
    actor = _actor(events)
    hits = _hits(events)
    grouped: set[Any] = set()
    for etype, data in events:
        d = data if isinstance(data, dict) else {}
        entry = describe(0, etype, d, names, hidden)
        dice = _dice(entry) or dice
        hurt, verdict = _hurts(etype), _verdict(etype, d)
        headline = _headline(headline, verdict, hurt)
        target: Any = d.get("target")  # JSON of the log: any type, looked up as is
        name = names.get(target, "someone") if isinstance(target, str) else "someone"
        missed = missed or (name if verdict == "miss" and isinstance(target, str) else "")
        if hurt:
            several = isinstance(target, str) and len(hits.get(target, ())) > 1 and d in hits[target]
            if not several:
                parts.append(_hit_part(d, name, target in hidden, dice))
            elif target not in grouped:
                grouped.add(target)
                parts.append(_hits_part(hits[target], name, target in hidden))
            dice = ""
            if d.get("ko") and target not in hidden:
                parts.append(f"{name} falls")
        elif etype == "healed":
            parts.append(_healed_part(d, name, dice))
            dice = ""
        elif etype == "status.applied":
            parts.append(entry["text"].rstrip("."))
        elif etype == "decision.opened":
            waiting = entry["text"].rstrip(".")
        elif etype == "decision.answered":
            waiting = ""  # what the answer did follows in its own events
        elif etype not in QUIET and entry["text"]:
            if isinstance(d.get("actor"), str) and d.get("actor") != actor:
                parts.append(entry["text"].rstrip("."))  # someone else's answer within the action: a parry
            elif not fallback:
                fallback = entry["text"].rstrip(".")
    if waiting:
        parts.append(waiting)
    if not parts and headline == "Miss.":
        parts += [f"{missed} is not hit"] if missed else []
    elif not parts:
        parts.append(fallback or "Done")
    body = "; ".join(parts)
    return f"{headline} {body}.".strip() if body else headline


def watch_line(events: Shown, names: dict[str, str], hidden: AbstractSet[str]) -> str:
    """What one action did, for every seat (the GM's included), naming who acted: "Mira: Hit! Goblin is
    hurt — 1d8 [7] + 1 (Sword) = 8."; its first sentence in the log where the outcome has nothing to say
    ("Mira ends the turn."); "" when the viewer may read nothing of it (a turn in the fog)."""
    text = _or_first_sentence(outcome_text(events, names, hidden), events, names, hidden)
    actor = _actor(events)
    who = names.get(actor, "") if isinstance(actor, str) else ""
    if text and who and not text.startswith(who):
        return f"{who}: {text}"
    return text


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


def _hit_notice(target: str, hits: list[dict[str, Any]], names: dict[str, str]) -> str:
    """What the action's hits did to one of the player's combatants: "Kai is hit by Goblin: 5 damage
    (HP 15).", several once with their total: "Kai is hit 3 times by Goblin: 1 + 16 + 0 = 17 damage"."""
    who = names.get(target, "Your character")
    by = ", ".join(
        dict.fromkeys(names[a] for d in hits if isinstance(a := d.get("actor"), str) and a in names)
    )
    amounts = [d.get("amount", 0) for d in hits]
    hp = hits[-1].get("hp")
    after = f" (HP {hp})" if isinstance(hp, int) else ""
    by = f" by {by}" if by else ""
    if len(hits) == 1:
        text = f"{who} is hit{by}: {amounts[0]} damage{after}."
    else:
        total = sum(a for a in amounts if isinstance(a, int))
        sums = " + ".join(map(str, amounts))
        text = f"{who} is hit {count(len(hits), 'time')}{by}: {sums} = {total} damage{after}."
    return text + (f" {who} falls!" if any(d.get("ko") for d in hits) else "")


def notices(
    events_newest_first: list[tuple[int, str, dict[str, Any]]], mine: AbstractSet[str], teller: Teller
) -> list[dict[str, Any]]:
    """What the latest action did to the viewer's own combatants: hits (all of them, with their total)
    and statuses, their own numbers only, each as the viewer feels it at its seq (``Told.felt``: a hit
    from someone they may not know of names no one)."""
    out: list[dict[str, Any]] = []
    hits: dict[str, list[dict[str, Any]]] = {}
    at: dict[str, int] = {}  # where each combatant's hit notice stands among the notices
    for seq, etype, data in last_action(events_newest_first):
        told_then = teller.at(seq)
        d = told_then.felt(etype, data, mine)
        if d is None:
            continue
        names = dict(told_then.names)
        target = d.get("target")
        if _hurts(etype) and isinstance(target, str) and target in mine:
            if target not in at:
                at[target] = len(out)
                out.append({})
            hits.setdefault(target, []).append(d)
            out[at[target]] = {"seq": seq, "text": _hit_notice(target, hits[target], names)}
        elif etype == "status.applied" and d.get("combatant") in mine:
            who = names.get(d["combatant"], "Your character")
            status = str(d.get("status", "a status")).replace("_", " ").title()
            out.append({"seq": seq, "text": f"{who} gets {status}."})
    return out
