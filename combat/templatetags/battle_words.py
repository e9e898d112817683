"""The combat log in words: one sentence per event, with its dice.

``describe(seq, type, data, names, hidden)`` turns an engine event into a
log entry. What a viewer may read is decided by the engine
(``combat.engine.view.filter_event``, with ``hidden`` from ``hidden_ids``):
callers pass the filtered data, and a sentence whose number was taken out
is said without it ("Goblin takes fire damage."). Unknown event types get a
generic sentence built only from harmless fields.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from combat.engine.rulesets import UnknownRuleset, get_ruleset

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
    amount = d.get("amount")
    detail = f" ({raw} rolled)" if isinstance(raw, int) and isinstance(amount, int) and raw != amount else ""
    ko = " and falls" if d.get("ko") and target not in hidden else ""
    amount = f" {amount}" if isinstance(amount, int) else ""
    return f"{_who(names, target)} takes{amount}{kind} damage{detail}{_hp_note(d, target, hidden)}{ko}."


def _targets(names: Names, targets: Any) -> str:
    if isinstance(targets, list) and targets:
        return " on " + ", ".join(_who(names, t) for t in targets)
    return ""


def _used(d: dict[str, Any]) -> str:
    """What an event says was used, in words: ``weapon: "long_sword"`` -> ``"long sword"``; logs stored
    before name it ``ability: "weapon:long_sword"``."""
    for field in ("ability", "weapon", "item"):
        key = d.get(field)
        if isinstance(key, str) and key:
            return _words(key.partition(":")[2] or key)
    return ""


def _ability(d: dict[str, Any], names: Names, hidden: set[str]) -> str:
    what = d.get("name") or _used(d) or "an ability"
    return f"{_who(names, d.get('actor'))} uses {what}{_targets(names, d.get('targets'))}."


def _luck(d: dict[str, Any], names: Names, hidden: set[str]) -> str:
    outcome = {"miss": "a miss", "hit": "a hit", "crit": "a critical hit"}.get(
        str(d.get("outcome")), "rolled"
    )
    if d.get("auto"):
        return f"{_who(names, d.get('actor'))} reaches {_who(names, d.get('target'))}: {outcome}, no roll needed."
    total = f"{d['total']}, " if isinstance(d.get("total"), int) else ""
    return f"Luck roll against {_who(names, d.get('target'))}: {total}{outcome}."


def _healed(d: dict[str, Any], names: Names, hidden: set[str]) -> str:
    target = d.get("target")
    if not isinstance(d.get("amount"), int):
        return f"{_who(names, target)} is healed."
    return f"{_who(names, target)} heals {d['amount']}{_hp_note(d, target, hidden)}."


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
    if target in hidden or not isinstance(d.get("hp"), int):
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
    if target in hidden or not res:
        return f"The GM adjusts {_who(names, target)}'s resources."
    text = ", ".join(f"{k} {v}" for k, v in res.items())
    return f"The GM sets {_who(names, target)}'s {text}."


def _status(d: dict[str, Any], names: Names, hidden: set[str]) -> str:
    bits = [
        f"power {d['power']}" if isinstance(d.get("power"), int) else "",
        f"{d['duration']} rounds" if isinstance(d.get("duration"), int) else "",
    ]
    extra = ", ".join(b for b in bits if b)
    by = "The GM gives " if d.get("by") == "gm" else ""
    who = _who(names, d.get("combatant"))
    if by:
        return f"{by}{who} {_words(d.get('status')).title() or 'a status'}" + (
            f" ({extra})." if extra else "."
        )
    return f"{who} gets {_words(d.get('status')).title() or 'a status'}" + (f" ({extra})." if extra else ".")


def _decision(d: dict[str, Any], names: Names, hidden: set[str]) -> str:
    dec = d.get("decision") if isinstance(d.get("decision"), dict) else {}
    who = _who(names, dec.get("combatant"))
    trigger = dec.get("trigger") or ""
    # The prompt itself is for its addressee and the GM only (view_for); the log just says who decides.
    return f"Waiting for {who}'s reaction" + (f" to {trigger}" if trigger else "") + "."


def _answered(d: dict[str, Any], names: Names, hidden: set[str]) -> str:
    by = {"gm": " (answered by the GM)", "policy": " (automatic)"}.get(str(d.get("by")), "")
    return f"{_who(names, d.get('combatant'))} chooses {_words(d.get('choice')) or '?'}{by}."


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


def _created(d: dict[str, Any], names: Names, hidden: set[str]) -> str:
    try:
        rows = get_ruleset(str(d.get("ruleset"))).board == "rows"
    except UnknownRuleset:
        rows = False
    if rows:
        return "Battle created: each side has a front and a back row."
    return f"Battle created on a board of {d.get('width')} by {d.get('height')} squares."


def _words(value: Any) -> str:
    """A key in words: ``"black_mage"`` -> ``"black mage"``."""
    return str(value).replace("_", " ") if value not in (None, "") else ""


def _attack(d: dict[str, Any], names: Names, hidden: set[str]) -> str:
    who = _who(names, d.get("actor"))
    targets = d.get("targets") if isinstance(d.get("targets"), list) else []
    with_what = f" with {d['name']}" if isinstance(d.get("name"), str) and d.get("name") else ""
    if targets:
        return f"{who} attacks {', '.join(_who(names, t) for t in targets)}{with_what}."
    return f"{who} attacks{with_what}."


def _attack_rolled(d: dict[str, Any], names: Names, hidden: set[str]) -> str:
    who = _who(names, d.get("actor"))
    target = _who(names, d.get("target"))
    if d.get("dodged"):
        return f"{target} dodges {who}'s attack."
    if d.get("crit"):
        return f"{who} lands a critical hit on {target}!"
    return f"{who} hits {target}." if d.get("hit") else f"{who} misses {target}."


def _phase(d: dict[str, Any], names: Names, hidden: set[str]) -> str:
    phase = _words(d.get("phase")) or "next"
    return f"The {phase} phase begins."


WORDS: dict[str, Callable[[dict[str, Any], Names, set[str]], str]] = {
    "battle.created": _created,
    "attack.declared": _attack,
    "attack.rolled": _attack_rolled,
    "grapple.rolled": lambda d, n, h: (
        f"{_who(n, d.get('actor'))} grabs {_who(n, d.get('target'))}."
        if d.get("hit")
        else f"{_who(n, d.get('actor'))} fails to grab {_who(n, d.get('target'))}."
    ),
    "grapple.declared": lambda d, n, h: (
        f"{_who(n, d.get('actor'))} tries to grapple{_targets(n, d.get('targets'))}."
    ),
    "grapple.released": lambda d, n, h: f"{_who(n, d.get('actor'))} lets go.",
    "grapple.break_attempted": lambda d, n, h: (
        f"{_who(n, d.get('actor'))} breaks free."
        if d.get("freed")
        else f"{_who(n, d.get('actor'))} fails to break free."
    ),
    "phase.started": _phase,
    "block.started": lambda d, n, h: f"Block {d.get('round', '?')} begins.",
    "stance.entered": lambda d, n, h: (
        f"{_who(n, d.get('combatant'))} takes a {_words(d.get('stance')) or 'defensive'} stance."
    ),
    "spell.cast": lambda d, n, h: (
        f"{_who(n, d.get('actor'))} starts casting {d.get('name') or _words(d.get('spell'))}."
    ),
    "spell.activated": lambda d, n, h: (
        f"{_who(n, d.get('actor'))}'s {_words(d.get('spell')) or 'spell'} takes effect{_targets(n, d.get('targets'))}."
    ),
    "side.advanced": lambda d, n, h: f"The {_words(d.get('side'))} side steps up to the front row.",
    "shield.used": lambda d, n, h: f"{_who(n, d.get('combatant'))} strikes with a shield.",
    "save.rolled": lambda d, n, h: (
        f"{_who(n, d.get('combatant'))} resists {_words(d.get('status')) or 'the effect'}."
        if d.get("avoided")
        else f"{_who(n, d.get('combatant'))} fails to resist {_words(d.get('status')) or 'the effect'}."
    ),
    "rampart.toggled": lambda d, n, h: (
        f"{_who(n, d.get('combatant'))} " + ("raises a rampart." if d.get("on") else "lowers the rampart.")
    ),
    "points.drained": lambda d, n, h: (
        f"{_who(n, d.get('combatant'))} loses {_words(d.get('resource')) or 'points'}."
    ),
    "pdr.damaged": lambda d, n, h: f"{_who(n, d.get('combatant'))}'s armor is damaged.",
    "object.used": lambda d, n, h: (
        f"{_who(n, d.get('actor'))} "
        + ("finishes using " if d.get("done") else "works on ")
        + f"{d.get('name') or _words(d.get('object'))}."
    ),
    "movement.started": lambda d, n, h: f"{_who(n, d.get('actor'))} starts moving.",
    "movement.obstructed": lambda d, n, h: (
        f"{_who(n, d.get('actor'))} blocks {_who(n, d.get('mover'))}'s way."
    ),
    "move.stopped": lambda d, n, h: f"{_who(n, d.get('combatant'))} is stopped at {_square(d.get('at'))}.",
    "move.doubled": lambda d, n, h: f"{_who(n, d.get('actor'))} moves twice as far this turn.",
    "lp.lost": lambda d, n, h: f"{_who(n, d.get('target'))} loses a life point.",
    "job.switched": lambda d, n, h: f"{_who(n, d.get('combatant'))} switches to {_words(d.get('job'))}.",
    "item.used": lambda d, n, h: (
        f"{_who(n, d.get('actor'))} uses {d.get('name') or _words(d.get('item'))}{_targets(n, d.get('targets'))}."
    ),
    "flee.declared": lambda d, n, h: f"{_who(n, d.get('actor'))} tries to flee.",
    "combatant.fled": lambda d, n, h: f"{_who(n, d.get('combatant'))} flees the battle.",
    "equipment.swapped": lambda d, n, h: f"{_who(n, d.get('actor'))} equips {_words(d.get('equip'))}.",
    "eidolon.upkeep": lambda d, n, h: f"{_who(n, d.get('actor'))} keeps the eidolon going.",
    "eidolon.summoned": lambda d, n, h: (
        f"{_who(n, d.get('actor'))} summons {d.get('name') or _words(d.get('eidolon'))}!"
    ),
    "eidolon.dismissed": lambda d, n, h: f"{_who(n, d.get('combatant'))} leaves.",
    "effect.queued": lambda d, n, h: (
        f"{_who(n, d.get('actor'))} prepares {d.get('name') or _words(d.get('ability'))}: it takes effect later."
    ),
    "dodge.declared": lambda d, n, h: f"{_who(n, d.get('actor'))} tries to dodge.",
    "charisma.used": lambda d, n, h: (
        f"{_who(n, d.get('actor'))} uses {d.get('name') or _words(d.get('skill'))}{_targets(n, d.get('targets'))}."
    ),
    "charisma.rolled": lambda d, n, h: (
        f"{_who(n, d.get('target'))} " + ("is swayed." if d.get("success") else "is not impressed.")
    ),
    "ap.held": lambda d, n, h: f"{_who(n, d.get('actor'))} waits to act after {_who(n, d.get('after'))}.",
    "combatant.added": _added,
    "combatant.placed": _placed,
    "combatant.removed": lambda d, n, h: f"{_who(n, d.get('combatant'))} leaves the battle.",
    "combatant.updated": lambda d, n, h: f"{_who(n, d.get('combatant'))} changes.",
    "battle.started": lambda d, n, h: "The battle begins.",
    "initiative.rolled": lambda d, n, h: (
        f"{_who(n, d.get('combatant'))} rolls initiative"
        + (f": {d['total']}" if isinstance(d.get("total"), int) else "")
        + "."
    ),
    "initiative.rolloff": lambda d, n, h: (
        f"{_who(n, d.get('combatant'))} rolls off a tie"
        + (f": {d['total']}" if isinstance(d.get("total"), int) else "")
        + "."
    ),
    "order.set": lambda d, n, h: "Turn order: " + ", ".join(_who(n, c) for c in d.get("order", [])) + ".",
    "round.started": lambda d, n, h: f"Round {d.get('round', '?')} begins.",
    "round.ended": lambda d, n, h: f"Round {d.get('round', '?')} ends.",
    "turn.started": lambda d, n, h: f"{_who(n, d.get('combatant'))}'s turn.",
    "turn.ended": lambda d, n, h: (
        f"{_who(n, d.get('combatant'))} ends the turn"
        + (f" ({_words(d['reason'])})." if isinstance(d.get("reason"), str) else ".")
    ),
    "turn.skipped": lambda d, n, h: f"The GM skips {_who(n, d.get('combatant'))}'s turn.",
    "moved": _moved,
    "row.changed": lambda d, n, h: f"{_who(n, d.get('combatant'))} moves to the {d.get('row', '?')} row.",
    "damage.dealt": _damage,
    "healed": _healed,
    "hp.set": _gm_set_hp,
    "resources.set": _resources,
    "status.applied": _status,
    "status.removed": lambda d, n, h: (
        f"{_who(n, d.get('combatant'))} is no longer {_words(d.get('status'))}"
        + (f" ({_words(d['reason'])})." if isinstance(d.get("reason"), str) else ".")
    ),
    "status.updated": lambda d, n, h: "",
    "decision.opened": _decision,
    "decision.answered": _answered,
    "dice.rolled": lambda d, n, h: "Dice are rolled.",
    "ability.used": _ability,
    "luck.rolled": _luck,
    "ability.missed": lambda d, n, h: f"{_who(n, d.get('actor'))} misses {_who(n, d.get('target'))}.",
    "damage.rolled": lambda d, n, h: (
        f"{_who(n, d.get('actor'))} rolls"
        + (f" {d['raw']}" if isinstance(d.get("raw"), int) else "")
        + " damage"
        + (" (critical)" if d.get("crit") else "")
        + "."
    ),
    "interrupt.used": lambda d, n, h: (
        f"{_who(n, d.get('actor'))} interrupts {_who(n, d.get('against'))} with {d.get('name') or d.get('ability')}."
    ),
    "status.resisted": lambda d, n, h: f"{_who(n, d.get('target'))} resists {d.get('status', 'the status')}.",
    "status.kept": lambda d, n, h: (
        f"{_who(n, d.get('target'))} keeps the stronger {d.get('status', 'status')}"
        + (f" (power {d['power']})." if isinstance(d.get("power"), int) else ".")
    ),
    "recover.failed": lambda d, n, h: (
        f"{_who(n, d.get('combatant'))} fails to recover from {d.get('status', 'a status')}."
    ),
    "turn.prepared": lambda d, n, h: "",
    "battle.extra": lambda d, n, h: "",
    "battle.ended": _ended,
}


def _generic(etype: str, d: dict[str, Any], names: Names) -> str:
    """An event without its own sentence: who, then what happened in words ("Kai: spell cast.")."""
    what = etype.replace(".", " ").replace("_", " ")
    who = next((d.get(k) for k in ("actor", "combatant") if isinstance(d.get(k), str)), None)
    target = d.get("target") if isinstance(d.get("target"), str) else None
    text = (f"{_who(names, who)}: " if who else "") + what
    if target:
        text += f" ({_who(names, target)})"
    return text[:1].upper() + text[1:] + "."


def describe(
    seq: int, etype: str, data: dict[str, Any], names: Names, hidden: frozenset[str] | set[str]
) -> dict[str, Any]:
    """One log entry: words and dice. Never prints an HP that ``hidden`` protects."""
    data = data if isinstance(data, dict) else {}
    words = WORDS.get(etype)
    text = words(data, names, hidden) if words else _generic(etype, data, names)
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
