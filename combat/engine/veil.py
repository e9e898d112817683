"""When each combatant was out of the players' sight, and which house rules held: the battle's past, seq
by seq, for what a viewer may be told of an event (``view.told``).

A player may not know of a combatant of another side while it stands in fog, is hidden by the GM, or
while the battle is being set up (``fog.unseen``). What a player is told of an event is decided at
the event's seq, not now: a reveal shows the combatant from then on, and does not replay its hidden
past. So the state keeps, for every combatant that was ever out of sight, the seqs at which it went
out of sight and came back, ``state.extra["veil"] = {cid: [side, out, back, out, ...]}``, written as
each event is folded (``note``) and rebuilt by replay like the rest of the state (ENG-1). A change
of a house rule (``rules.changed``) keeps the value it replaced, so the rule in force at any seq is
known too (``options_at``).

A state stored before the veil was kept has none (``kept`` is False): what it may tell of its past
is decided as of now, as it was then.

>>> from combat.engine.state import BattleState, Combatant
>>> s = BattleState("luck", {}, 1, width=4, height=2, extra={"veil": {}}, seq=5)
>>> s.combatants["c1"] = Combatant("c1", "Goblin", side="enemy", pos=[3, 1])
>>> note(s); s.extra["veil"]
{'c1': ['enemy', 5]}
>>> s.phase, s.order, s.seq = "active", ["c1"], 9
>>> note(s); out_of_sight(s, 7), out_of_sight(s, 9)
(frozenset({'c1'}), frozenset())
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Collection
from typing import Any

from combat.engine import fog
from combat.engine.state import BattleState

KEY = "veil"
RULES = "rules_past"  # [[seq, option, value before], ...] of every house rule changed in play


def kept(state: BattleState) -> bool:
    """Whether the state keeps its veil (every battle made since it is kept)."""
    return isinstance(state.extra.get(KEY), dict)


def _now_out(state: BattleState) -> dict[str, str]:
    """Every combatant out of sight of the players of other sides now, with its side."""
    rows = fog.rows(state)
    setting_up = not fog.begun(state)
    return {
        cid: c.side
        for cid, c in state.combatants.items()
        if setting_up
        or c.extra.get("hidden")
        or (rows is not None and c.pos is not None and fog.fogged(state, c.pos))
    }


# Without fog, only these events change who is out of sight (the set-up's end and start, the GM's
# hiding, a combatant joining); with fog, any event that moves one may.
SIGHT = frozenset(
    {
        "battle.started",
        "battle.ended",
        "combatant.added",
        "combatant.hidden",
        "combatant.updated",
        "fog.changed",
    }
)


def note(state: BattleState, etype: str = "") -> None:
    """Write down who went out of sight or came back at ``state.seq``, after folding that seq's event
    (of type ``etype``: "" for any)."""
    veil = state.extra.get(KEY)
    if not isinstance(veil, dict) or (etype and etype not in SIGHT and fog.rows(state) is None):
        return
    now = _now_out(state)
    if not now and not veil:
        return
    for cid, side in now.items():
        flips = veil.get(cid)
        if flips is None:
            veil[cid] = [side, state.seq]
        elif len(flips) % 2:  # in sight until now
            flips.append(state.seq)
    for cid, flips in veil.items():
        if not len(flips) % 2 and cid not in now and cid in state.combatants:
            flips.append(state.seq)  # back in sight (one who left the battle stays as it was)


def _out(flips: list[Any], seq: int) -> bool:
    """Whether the combatant of ``flips`` was out of sight at ``seq``."""
    return bisect_right(flips, seq, 1) % 2 == 0


def out_of_sight(state: BattleState, seq: int, sides: Collection[str] = ()) -> frozenset[str]:
    """The combatants not on one of ``sides`` that were out of sight at ``seq`` (a kept veil only)."""
    veil = state.extra.get(KEY) or {}
    return frozenset(cid for cid, flips in veil.items() if flips[0] not in sides and _out(flips, seq))


def options_at(state: BattleState, seq: int) -> dict[str, Any]:
    """The house rules in force at ``seq``."""
    past = state.extra.get(RULES)
    if not past:
        return state.options
    options = dict(state.options)
    for at, key, before in reversed(past):
        if at <= seq:
            break
        options[key] = before
    return options
