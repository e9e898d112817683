"""The log's words: the helpers every sentence uses, and the sentences of the generic events.

A sentence is ``words(data, names, hidden) -> str``: ``data`` is the event's
data as the viewer may read it (``view.filter_event``), ``names`` maps
combatant ids to names, ``hidden`` holds the combatants whose numbers the
viewer may not see (``view.hidden_ids``). A sentence whose number was taken
out is said without it ("Goblin takes fire damage."); an empty sentence
keeps the event out of the log. Each event type's sentence is registered
with its fields: the generic ones in ``events.GENERIC_EVENTS`` (below), a
ruleset's own in its package's ``events.py``. ``log.describe`` picks it.

>>> who({"c1": "Ash"}, "c1"), spoken("black_mage"), square([2, 0])
('Ash', 'black mage', 'C1')
"""

from __future__ import annotations

from collections.abc import Callable
from collections.abc import Set as AbstractSet
from typing import Any, TypeAlias

Names: TypeAlias = dict[str, str]
#: ``words(data, names, hidden) -> sentence``.
Words: TypeAlias = Callable[[dict[str, Any], Names, AbstractSet[str]], str]


# --- helpers -----------------------------------------------------------------------------------


def who(names: Names, cid: Any) -> str:
    """A combatant's name ("someone" for what is not an id)."""
    if isinstance(cid, str):
        return names.get(cid, cid)
    return "someone"


COLUMNS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def square_name(x: int, y: int) -> str:
    """The name of a square as the board labels it: column letters, row number ("C4", "AB12")."""
    letters = ""
    n = x + 1
    while n:
        n, r = divmod(n - 1, 26)
        letters = COLUMNS[r] + letters
    return f"{letters}{y + 1}"


def square(pos: Any) -> str:
    """A square as the board labels it: ``[2, 0]`` -> ``"C1"`` ("" for what is not a square)."""
    if isinstance(pos, list | tuple) and len(pos) == 2 and all(isinstance(v, int) for v in pos):
        return square_name(pos[0], pos[1])
    return ""


def count(n: int, noun: str, plural: str = "") -> str:
    """A number and its noun, as many as it says: every "1 square" / "3 squares" of the table's words.

    >>> count(1, "square"), count(3, "square"), count(0, "slot"), count(2, "ally", "allies")
    ('1 square', '3 squares', '0 slots', '2 allies')
    """
    return f"{n} {noun if n == 1 else plural or noun + 's'}"


def hp_note(data: dict[str, Any], target: Any, hidden: AbstractSet[str]) -> str:
    """`` (HP 7)`` after a change to a combatant whose HP the viewer may see."""
    hp = data.get("hp")
    if not isinstance(hp, int) or target in hidden:
        return ""
    return f" (HP {hp})"


def on_targets(names: Names, targets: Any) -> str:
    """`` on Orc, Wolf`` for a list of targets ("" for none)."""
    if isinstance(targets, list) and targets:
        return " on " + ", ".join(who(names, t) for t in targets)
    return ""


def spoken(value: Any) -> str:
    """A key in words: ``"black_mage"`` -> ``"black mage"``."""
    return str(value).replace("_", " ") if value not in (None, "") else ""


def used(d: dict[str, Any]) -> str:
    """What an event says was used, in words: ``weapon: "long_sword"`` -> ``"long sword"``; logs stored
    before name it ``ability: "weapon:long_sword"``."""
    for field in ("ability", "weapon", "item"):
        key = d.get(field)
        if isinstance(key, str) and key:
            return spoken(key.partition(":")[2] or key)
    return ""


def silent(d: dict[str, Any], names: Names, hidden: AbstractSet[str]) -> str:
    """Bookkeeping that is not worth a line in the log."""
    return ""


def generic(etype: str, d: dict[str, Any], names: Names) -> str:
    """An event without its own sentence: who, then what happened in words ("Kai: spell cast.")."""
    what = etype.replace(".", " ").replace("_", " ")
    actor = next((d.get(k) for k in ("actor", "combatant") if isinstance(d.get(k), str)), None)
    target = d.get("target") if isinstance(d.get("target"), str) else None
    text = (f"{who(names, actor)}: " if actor else "") + what
    if target:
        text += f" ({who(names, target)})"
    return text[:1].upper() + text[1:] + "."


# --- the generic events ------------------------------------------------------------------------


def damage_dealt(d: dict[str, Any], names: Names, hidden: AbstractSet[str]) -> str:
    target = d.get("target")
    kind = d.get("damage_type") or d.get("kind") or ""  # ``kind`` in logs stored before
    kind = f" {kind}" if isinstance(kind, str) and kind else ""
    raw = d.get("raw")
    amount = d.get("amount")
    detail = f" ({raw} rolled)" if isinstance(raw, int) and isinstance(amount, int) and raw != amount else ""
    ko = " and falls" if d.get("ko") and target not in hidden else ""
    if amount == 0 or (not isinstance(amount, int) and d.get("zero")):
        return f"{who(names, target)} takes no{kind} damage{detail}{hp_note(d, target, hidden)}."
    amount = f" {amount}" if isinstance(amount, int) else ""
    return f"{who(names, target)} takes{amount}{kind} damage{detail}{hp_note(d, target, hidden)}{ko}."


def healed(d: dict[str, Any], names: Names, hidden: AbstractSet[str]) -> str:
    target = d.get("target")
    if not isinstance(d.get("amount"), int):
        return f"{who(names, target)} gains no HP." if d.get("zero") else f"{who(names, target)} is healed."
    return f"{who(names, target)} heals {d['amount']}{hp_note(d, target, hidden)}."


def ability_used(d: dict[str, Any], names: Names, hidden: AbstractSet[str]) -> str:
    what = d.get("name") or used(d) or "an ability"
    return f"{who(names, d.get('actor'))} uses {what}{on_targets(names, d.get('targets'))}."


def attack_declared(d: dict[str, Any], names: Names, hidden: AbstractSet[str]) -> str:
    actor = who(names, d.get("actor"))
    targets = d.get("targets") if isinstance(d.get("targets"), list) else []
    with_what = f" with {d['name']}" if isinstance(d.get("name"), str) and d.get("name") else ""
    if targets:
        return f"{actor} attacks {', '.join(who(names, t) for t in targets)}{with_what}."
    return f"{actor} attacks{with_what}."


def attack_rolled(d: dict[str, Any], names: Names, hidden: AbstractSet[str]) -> str:
    actor = who(names, d.get("actor"))
    target = who(names, d.get("target"))
    if d.get("dodged"):
        return f"{target} dodges {actor}'s attack."
    if d.get("crit"):
        return f"{actor} lands a critical hit on {target}!"
    return f"{actor} hits {target}." if d.get("hit") else f"{actor} misses {target}."


def moved(d: dict[str, Any], names: Names, hidden: AbstractSet[str]) -> str:
    mover = who(names, d.get("combatant") or d.get("actor"))
    path = d.get("path")
    to = d.get("to") or (path[-1] if isinstance(path, list) and path else None) or d.get("pos")
    if d.get("row"):
        return f"{mover} moves to the {d['row']} row."
    return f"{mover} moves to {square(to)}."


def hp_set(d: dict[str, Any], names: Names, hidden: AbstractSet[str]) -> str:
    target = d.get("combatant") or d.get("target")
    by = "The GM sets" if d.get("by") == "gm" else "Set"
    if target in hidden or not isinstance(d.get("hp"), int):
        return f"{by.replace('sets', 'adjusts').replace('Set', 'Adjusted')} {who(names, target)}'s HP."
    return f"{by} {who(names, target)}'s HP to {d.get('hp', '?')}."


def combatant_added(d: dict[str, Any], names: Names, hidden: AbstractSet[str]) -> str:
    made = d.get("combatant")
    name = made.get("name", "Someone") if isinstance(made, dict) else who(names, made)
    side = made.get("side", "") if isinstance(made, dict) else ""
    return f"{name} joins the battle" + (f" ({side})." if side else ".")


def combatant_placed(d: dict[str, Any], names: Names, hidden: AbstractSet[str]) -> str:
    placed = who(names, d.get("combatant"))
    if d.get("row"):
        return f"{placed} takes the {d['row']} row."
    if d.get("pos") is None:
        return f"{placed} is taken off the board."
    return f"{placed} is placed at {square(d.get('pos'))}."


def resources_set(d: dict[str, Any], names: Names, hidden: AbstractSet[str]) -> str:
    target = d.get("combatant")
    res = d.get("resources") if isinstance(d.get("resources"), dict) else {}
    if d.get("by") != "gm":
        return ""  # bookkeeping (actions spent, refreshed): not worth a line
    if target in hidden or not res:
        return f"The GM adjusts {who(names, target)}'s resources."
    text = ", ".join(f"{k} {v}" for k, v in res.items())
    return f"The GM sets {who(names, target)}'s {text}."


def status_applied(d: dict[str, Any], names: Names, hidden: AbstractSet[str]) -> str:
    bits = [
        f"power {d['power']}" if isinstance(d.get("power"), int) else "",
        count(d["duration"], "round") if isinstance(d.get("duration"), int) else "",
    ]
    extra = ", ".join(b for b in bits if b)
    by = "The GM gives " if d.get("by") == "gm" else ""
    bearer = who(names, d.get("combatant"))
    if by:
        return f"{by}{bearer} {spoken(d.get('status')).title() or 'a status'}" + (
            f" ({extra})." if extra else "."
        )
    return f"{bearer} gets {spoken(d.get('status')).title() or 'a status'}" + (
        f" ({extra})." if extra else "."
    )


def status_removed(d: dict[str, Any], names: Names, hidden: AbstractSet[str]) -> str:
    return f"{who(names, d.get('combatant'))} is no longer {spoken(d.get('status'))}" + (
        f" ({spoken(d['reason'])})." if isinstance(d.get("reason"), str) else "."
    )


def decision_opened(d: dict[str, Any], names: Names, hidden: AbstractSet[str]) -> str:
    dec: dict[str, Any] = d["decision"] if isinstance(d.get("decision"), dict) else {}
    # The question itself is for its addressee and the GM only (view_for); the log says who decides what.
    about = dec.get("about") or ""
    if about:
        return f"{who(names, dec.get('combatant'))} decides {about}."
    return f"{who(names, dec.get('combatant'))} has a choice to make."


def plain_label(label: str) -> str:
    """An option's label without its figures: what a player may read of a hidden combatant's choice.

    >>> plain_label("Dodge: Active Evasion 9 instead of Passive 7 (2 Speed, 0 Strength)")
    'Dodge'
    >>> plain_label("Parry (1d6+2)"), plain_label("Keep Knight")
    ('Parry', 'Keep Knight')
    """
    return label.split(":", 1)[0].split(" (", 1)[0].strip()


def decision_answered(d: dict[str, Any], names: Names, hidden: AbstractSet[str]) -> str:
    by = str(d.get("by"))
    if by == "tactics":
        return ""  # the tactics' own line (``tactics.chose``) gave the answer and its reason
    label = d.get("label") if isinstance(d.get("label"), str) and d.get("label") else spoken(d.get("choice"))
    name = who(names, d.get("combatant"))
    reason = d.get("reason")
    if by == "policy" and isinstance(reason, str) and reason:
        return f"{name} chooses {label or 'an answer'}: {reason}."
    return f"{name} chooses: {label or 'an answer'}{' (the GM answers)' if by == 'gm' else ''}."


def battle_ended(d: dict[str, Any], names: Names, hidden: AbstractSet[str]) -> str:
    result: dict[str, Any] = d["result"] if isinstance(d.get("result"), dict) else {}
    winner = result.get("winner")
    reason = result.get("reason")
    text = "The battle is over"
    if winner:
        text += f": the {winner} side wins"
    if reason:
        text += f" ({reason})"
    return text + "."


def battle_created(d: dict[str, Any], names: Names, hidden: AbstractSet[str]) -> str:
    from combat.engine.rulesets import UnknownRuleset, get_ruleset  # the registry imports this module's users

    try:
        rows = get_ruleset(str(d.get("ruleset"))).board == "rows"
    except UnknownRuleset:
        rows = False
    if rows:
        return "Battle created: each side has a front and a back row."
    return f"Battle created on a board of {d.get('width')} by {d.get('height')} squares."


FOG = {
    "on": "The GM covers the map in fog.",
    "off": "The GM lifts the fog.",
    "reveal": "The GM reveals part of the map.",
    "hide": "The GM hides part of the map.",
}


def fog_changed(d: dict[str, Any], names: Names, hidden: AbstractSet[str]) -> str:
    return FOG.get(d.get("mode", ""), "The GM changes the fog of war.")


def house_rule_changed(d: dict[str, Any], names: Names, hidden: AbstractSet[str]) -> str:
    """The GM changes a house rule in play: The GM turns on the house rule “Monsters act on their own”."""
    label, value = d.get("label") or spoken(d.get("option")), d.get("said") or spoken(d.get("value"))
    if d.get("value") is True or d.get("value") is False:
        return f"The GM turns {value} the house rule “{label}”."
    return f"The GM sets the house rule “{label}” to {value}."


def initiative_rolled(d: dict[str, Any], names: Names, hidden: AbstractSet[str]) -> str:
    total = f": {d['total']}" if isinstance(d.get("total"), int) else ""
    return f"{who(names, d.get('combatant'))} rolls initiative{total}."


def initiative_rolloff(d: dict[str, Any], names: Names, hidden: AbstractSet[str]) -> str:
    total = f": {d['total']}" if isinstance(d.get("total"), int) else ""
    return f"{who(names, d.get('combatant'))} rolls off a tie{total}."


def order_set(d: dict[str, Any], names: Names, hidden: AbstractSet[str]) -> str:
    return "Turn order: " + ", ".join(who(names, c) for c in d.get("order", [])) + "."


def tactics_chose(d: dict[str, Any], names: Names, hidden: AbstractSet[str]) -> str:
    """The rules' tactics act for a monster: their reason, as they gave it ("Grul attacks Mira: ...")."""
    reason = d.get("reason")
    return str(reason) if isinstance(reason, str) and reason else f"{who(names, d.get('actor'))} acts."


def turn_ended(d: dict[str, Any], names: Names, hidden: AbstractSet[str]) -> str:
    if d.get("explained") is True:
        return ""  # the tactics' line before ("Grul ends the turn: nothing in reach.") said it
    reason = f" ({spoken(d['reason'])})." if isinstance(d.get("reason"), str) else "."
    return f"{who(names, d.get('combatant'))} ends the turn{reason}"
