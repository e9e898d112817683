"""The combat log in words: one sentence per event, with its dice.

``describe(seq, type, data, names, hidden)`` turns an engine event into a
log entry. ``hidden`` holds the ids of combatants whose exact HP this viewer
may not see (enemies when the campaign hides enemy HP): numbers that would
reveal their HP are left out for that viewer. Unknown event types get a
generic sentence built only from harmless fields.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Names = dict[str, str]
# Fields that may reveal a combatant's exact HP (or other GM-only numbers).
SECRET_FIELDS = frozenset({"hp", "max_hp", "value", "before", "after", "sheet", "resume", "old", "new"})


def _who(names: Names, cid: Any) -> str:
    if isinstance(cid, str):
        return names.get(cid, cid)
    return "someone"


def _square(pos: Any) -> str:
    if isinstance(pos, list | tuple) and len(pos) == 2:
        return f"({pos[0] + 1}, {pos[1] + 1})"
    return ""


def _hp_note(data: dict[str, Any], target: Any, hidden: set[str]) -> str:
    hp = data.get("hp")
    if not isinstance(hp, int) or target in hidden:
        return ""
    return f" (HP {hp})"


def _damage(d: dict[str, Any], names: Names, hidden: set[str]) -> str:
    target = d.get("target")
    kind = d.get("damage_type") or d.get("kind") or ""
    kind = f" {kind}" if isinstance(kind, str) and kind else ""
    raw = d.get("raw")
    detail = f" ({raw} rolled)" if isinstance(raw, int) and raw != d.get("amount") else ""
    ko = " and falls" if d.get("ko") and target not in hidden else ""
    return f"{_who(names, target)} takes {d.get('amount', 0)}{kind} damage{detail}{_hp_note(d, target, hidden)}{ko}."


def _targets(names: Names, targets: Any) -> str:
    if isinstance(targets, list) and targets:
        return " on " + ", ".join(_who(names, t) for t in targets)
    return ""


def _ability(d: dict[str, Any], names: Names, hidden: set[str]) -> str:
    what = d.get("name") or d.get("ability") or "an ability"
    return f"{_who(names, d.get('actor'))} uses {what}{_targets(names, d.get('targets'))}."


def _luck(d: dict[str, Any], names: Names, hidden: set[str]) -> str:
    outcome = {"miss": "a miss", "hit": "a hit", "crit": "a critical hit"}.get(str(d.get("outcome")), "rolled")
    if d.get("auto"):
        return f"{_who(names, d.get('actor'))} reaches {_who(names, d.get('target'))}: {outcome}, no roll needed."
    total = d.get("total")
    return f"Luck roll against {_who(names, d.get('target'))}: {total}, {outcome}."


def _healed(d: dict[str, Any], names: Names, hidden: set[str]) -> str:
    target = d.get("target")
    return f"{_who(names, target)} heals {d.get('amount', 0)}{_hp_note(d, target, hidden)}."


def _moved(d: dict[str, Any], names: Names, hidden: set[str]) -> str:
    who = _who(names, d.get("combatant") or d.get("actor"))
    path = d.get("path")
    to = d.get("to") or (path[-1] if isinstance(path, list) and path else None) or d.get("pos")
    if d.get("row"):
        return f"{who} moves to the {d['row']} row."
    return f"{who} moves to {_square(to)}."


def _gm_set_hp(d: dict[str, Any], names: Names, hidden: set[str]) -> str:
    target = d.get("combatant") or d.get("target")
    by = "The GM sets" if d.get("by") == "gm" else "Set"
    if target in hidden:
        return f"{by.replace('sets', 'adjusts').replace('Set', 'Adjusted')} {_who(names, target)}'s HP."
    return f"{by} {_who(names, target)}'s HP to {d.get('hp', '?')}."


def _added(d: dict[str, Any], names: Names, hidden: set[str]) -> str:
    made = d.get("combatant")
    name = made.get("name", "Someone") if isinstance(made, dict) else _who(names, made)
    side = made.get("side", "") if isinstance(made, dict) else ""
    return f"{name} joins the battle" + (f" ({side})." if side else ".")


def _placed(d: dict[str, Any], names: Names, hidden: set[str]) -> str:
    who = _who(names, d.get("combatant"))
    if d.get("row"):
        return f"{who} takes the {d['row']} row."
    if d.get("pos") is None:
        return f"{who} is taken off the board."
    return f"{who} is placed at {_square(d.get('pos'))}."


def _resources(d: dict[str, Any], names: Names, hidden: set[str]) -> str:
    target = d.get("combatant")
    res = d.get("resources") if isinstance(d.get("resources"), dict) else {}
    if d.get("by") != "gm":
        return ""  # bookkeeping (actions spent, refreshed): not worth a line
    if target in hidden:
        return f"The GM adjusts {_who(names, target)}'s resources."
    text = ", ".join(f"{k} {v}" for k, v in res.items())
    return f"The GM sets {_who(names, target)}'s {text}."


def _status(d: dict[str, Any], names: Names, hidden: set[str]) -> str:
    bits = [f"power {d['power']}" if isinstance(d.get("power"), int) else "",
            f"{d['duration']} rounds" if isinstance(d.get("duration"), int) else ""]
    extra = ", ".join(b for b in bits if b)
    by = "The GM gives " if d.get("by") == "gm" else ""
    who = _who(names, d.get("combatant"))
    if by:
        return f"{by}{who} {d.get('status', 'a status')}" + (f" ({extra})." if extra else ".")
    return f"{who} is affected by {d.get('status', 'a status')}" + (f" ({extra})." if extra else ".")


def _decision(d: dict[str, Any], names: Names, hidden: set[str]) -> str:
    dec = d.get("decision") if isinstance(d.get("decision"), dict) else {}
    who = _who(names, dec.get("combatant"))
    trigger = dec.get("trigger") or ""
    # The prompt itself is for its addressee and the GM only (view_for); the log just says who decides.
    return f"Waiting for {who}'s reaction" + (f" to {trigger}" if trigger else "") + "."


def _answered(d: dict[str, Any], names: Names, hidden: set[str]) -> str:
    by = {"gm": " (answered by the GM)", "policy": " (automatic)"}.get(str(d.get("by")), "")
    return f"{_who(names, d.get('combatant'))} chooses {d.get('choice', '?')}{by}."


def _ended(d: dict[str, Any], names: Names, hidden: set[str]) -> str:
    result = d.get("result") if isinstance(d.get("result"), dict) else {}
    winner = result.get("winner")
    reason = result.get("reason")
    text = "The battle is over"
    if winner:
        text += f": the {winner} side wins"
    if reason:
        text += f" ({reason})"
    return text + "."


WORDS: dict[str, Callable[[dict[str, Any], Names, set[str]], str]] = {
    "battle.created": lambda d, n, h: f"Battle created on a {d.get('width')}x{d.get('height')} board.",
    "combatant.added": _added,
    "combatant.placed": _placed,
    "combatant.removed": lambda d, n, h: f"{_who(n, d.get('combatant'))} leaves the battle.",
    "combatant.updated": lambda d, n, h: f"{_who(n, d.get('combatant'))} changes.",
    "battle.started": lambda d, n, h: "The battle begins.",
    "initiative.rolled": lambda d, n, h: (
        f"{_who(n, d.get('combatant'))} rolls initiative"
        + (f": {d['total']}" if isinstance(d.get("total"), int) else "") + "."
    ),
    "initiative.rolloff": lambda d, n, h: (
        f"{_who(n, d.get('combatant'))} rolls off a tie"
        + (f": {d['total']}" if isinstance(d.get("total"), int) else "") + "."
    ),
    "order.set": lambda d, n, h: "Turn order: " + ", ".join(_who(n, c) for c in d.get("order", [])) + ".",
    "round.started": lambda d, n, h: f"Round {d.get('round', '?')} begins.",
    "round.ended": lambda d, n, h: f"Round {d.get('round', '?')} ends.",
    "turn.started": lambda d, n, h: f"{_who(n, d.get('combatant'))}'s turn.",
    "turn.ended": lambda d, n, h: f"{_who(n, d.get('combatant'))} ends the turn"
    + (f" ({d['reason']})." if isinstance(d.get("reason"), str) else "."),
    "turn.skipped": lambda d, n, h: f"The GM skips {_who(n, d.get('combatant'))}'s turn.",
    "moved": _moved,
    "row.changed": lambda d, n, h: f"{_who(n, d.get('combatant'))} moves to the {d.get('row', '?')} row.",
    "damage.dealt": _damage,
    "healed": _healed,
    "hp.set": _gm_set_hp,
    "resources.set": _resources,
    "status.applied": _status,
    "status.removed": lambda d, n, h: f"{_who(n, d.get('combatant'))} is no longer {d.get('status', '')}"
    + (f" ({d['reason']})." if isinstance(d.get("reason"), str) else "."),
    "status.updated": lambda d, n, h: f"{_who(n, d.get('combatant'))}'s {d.get('status', 'status')} changes.",
    "decision.opened": _decision,
    "decision.answered": _answered,
    "dice.rolled": lambda d, n, h: "Dice rolled.",
    "ability.used": _ability,
    "luck.rolled": _luck,
    "ability.missed": lambda d, n, h: f"{_who(n, d.get('actor'))} misses {_who(n, d.get('target'))}.",
    "damage.rolled": lambda d, n, h: f"Damage roll: {d.get('raw', '?')}" + (" (critical)" if d.get("crit") else "") + ".",
    "interrupt.used": lambda d, n, h: (
        f"{_who(n, d.get('actor'))} interrupts {_who(n, d.get('against'))} with {d.get('name') or d.get('ability')}."),
    "status.resisted": lambda d, n, h: f"{_who(n, d.get('target'))} resists {d.get('status', 'the status')}.",
    "status.kept": lambda d, n, h: (
        f"{_who(n, d.get('target'))} keeps the stronger {d.get('status', 'status')} (power {d.get('power', '?')})."),
    "recover.failed": lambda d, n, h: (
        f"{_who(n, d.get('combatant'))} fails to recover from {d.get('status', 'a status')}."),
    "turn.prepared": lambda d, n, h: "",
    "battle.extra": lambda d, n, h: "",
    "battle.ended": _ended,
}


def _generic(etype: str, d: dict[str, Any], names: Names) -> str:
    words = etype.replace(".", " ").replace("_", " ")
    bits = []
    for key in ("actor", "combatant", "target", "ability", "status", "choice", "result", "outcome"):
        value = d.get(key)
        if value is None or key in SECRET_FIELDS:
            continue
        if key in ("actor", "combatant", "target"):
            value = _who(names, value)
        if isinstance(value, str | int):
            bits.append(f"{key.replace('_', ' ')}: {value}")
    return words[:1].upper() + words[1:] + (f" ({'; '.join(bits)})" if bits else "") + "."


def describe(seq: int, etype: str, data: dict[str, Any], names: Names, hidden: set[str]) -> dict[str, Any]:
    """One log entry: words and dice. Never prints an HP that ``hidden`` protects."""
    data = data if isinstance(data, dict) else {}
    words = WORDS.get(etype)
    text = words(data, names, hidden) if words else _generic(etype, data, names)
    rolls = []
    for roll in data.get("rolls") or []:
        if isinstance(roll, dict):
            faces = roll.get("faces") or []
            rolls.append({
                "expr": str(roll.get("expr", "")),
                "faces": ", ".join(str(f) for f in faces),
                "total": roll.get("total", ""),
                "purpose": str(roll.get("purpose", "")),
            })
    return {"seq": seq, "type": etype, "text": text, "rolls": rolls}
