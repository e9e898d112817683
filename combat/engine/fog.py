"""Fog of war on grid boards: the GM covers the map and reveals it square by square (ENG-7 GM events).

The fog is ``state.extra["fog"]``: absent when the board has none, else one string per row of the
board, ``"#"`` a square in fog and ``"."`` a revealed one. ``gm.fog`` changes it with one
``fog.changed`` event (saved in the log and undone like any GM action):

- ``mode: "on"``: the whole board in fog (again); ``"off"``: no fog at all;
- ``mode: "reveal"`` or ``"hide"`` with ``rects: [[x0, y0, x1, y1], ...]``: those rectangles
  (corners included; a brush stroke is a run of small ones). Hiding on a board without fog covers
  those squares only: the GM draws fog where they want it, on a bare map.

What players may see of it is decided here and in ``view`` (like hidden HP): the revealed squares
of the map, and no combatant standing in fog that is not on their own side (``unseen``).

>>> from combat.engine.state import BattleState, Combatant
>>> s = BattleState("luck", {}, 1, width=4, height=2, phase="active")
>>> s.combatants["c1"] = Combatant("c1", "Goblin", side="enemy", pos=[3, 1])
>>> apply_fog(s, {"mode": "on"}); apply_fog(s, {"mode": "reveal", "rects": [[0, 0, 1, 1]]})
>>> s.extra["fog"], sorted(unseen(s, None))
(['..##', '..##'], ['c1'])
>>> apply_fog(s, {"mode": "reveal", "rects": [[3, 1, 3, 1]]}); sorted(unseen(s, None))
[]
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from combat.engine.actions import Action, Refusal
from combat.engine.state import BattleState

if TYPE_CHECKING:
    from combat.engine.context import Ctx

FOG, CLEAR = "#", "."
MODES = ("on", "off", "reveal", "hide")
MAX_RECTS = 400  # rectangles in one change (a long brush stroke)


def rows(state: BattleState) -> list[str] | None:
    """The fog, one string per row (``"#"`` in fog), or None when the board has none."""
    fog = state.extra.get("fog")
    return fog if isinstance(fog, list) else None


def fogged(state: BattleState, square: Iterable[int] | None) -> bool:
    """Whether ``square`` lies in fog (never, on a board without fog)."""
    fog = rows(state)
    if fog is None or square is None:
        return False
    x, y = square
    return 0 <= y < len(fog) and 0 <= x < len(fog[y]) and fog[y][x] == FOG


def begun(state: BattleState) -> bool:
    """Whether the battle has begun: it runs, or it ended after its start (one ended from its set-up
    never had a turn order)."""
    return state.phase == "active" or (state.phase == "ended" and bool(state.order))


def unseen(state: BattleState, viewer_id: str | None, gm: bool = False) -> frozenset[str]:
    """The combatants a player (``viewer_id``; None: any player or observer) may not know of: those
    not on a side the viewer plays that stand in fog or are hidden by the GM (``gm.hide``), and
    every one of them while the battle has not begun (the GM's set-up is no spoiler). The GM sees
    every one."""
    if gm:
        return frozenset()
    fog = rows(state)
    hidden = [c for c in state.combatants.values() if c.extra.get("hidden")]
    setting_up = not begun(state)
    if fog is None and not hidden and not setting_up:
        return frozenset()
    sides = {c.side for c in state.combatants.values() if viewer_id is not None and c.controller == viewer_id}
    sides = sides or {"party"}
    return frozenset(
        cid
        for cid, c in state.combatants.items()
        if c.side not in sides
        and (setting_up or c.extra.get("hidden") or (c.pos is not None and fogged(state, c.pos)))
    )


def apply_hidden(state: BattleState, d: dict[str, Any]) -> None:
    """Fold a ``combatant.hidden`` event into the state."""
    c = state.combatants.get(d["combatant"])
    if c is not None:
        if d.get("hidden"):
            c.extra["hidden"] = True
        else:
            c.extra.pop("hidden", None)


def _rects(raw: Any, width: int, height: int) -> list[list[int]] | Refusal:
    """Untrusted rectangles, as ``[x0, y0, x1, y1]`` with x0 <= x1 and y0 <= y1, all on the board."""
    if not isinstance(raw, list) or not raw or len(raw) > MAX_RECTS:
        return Refusal(f"Choose 1 to {MAX_RECTS} areas of the map.")
    out = []
    for rect in raw:
        if (
            not isinstance(rect, list | tuple)
            or len(rect) != 4
            or not all(type(n) is int for n in rect)
            or not all(0 <= rect[i] < (width if i % 2 == 0 else height) for i in range(4))
        ):
            return Refusal("That area is not on the board.")
        x0, y0, x1, y1 = rect
        out.append([min(x0, x1), min(y0, y1), max(x0, x1), max(y0, y1)])
    return out


def _painted(fog: list[str], rects: list[list[int]], mark: str) -> list[str]:
    grid = [list(row) for row in fog]
    for x0, y0, x1, y1 in rects:
        for y in range(y0, y1 + 1):
            grid[y][x0 : x1 + 1] = mark * (x1 - x0 + 1)
    return ["".join(row) for row in grid]


def gm_fog(ctx: Ctx, action: Action) -> Refusal | None:
    """``gm.fog``: cover the board, lift the fog, or reveal or hide rectangles of it (hiding needs no fog
    before: on a bare map it covers just those squares)."""
    state, params = ctx.state, action.params
    if ctx.rules.board != "grid":
        return Refusal("Fog of war needs a board of squares.")
    mode = params.get("mode")
    if mode not in MODES:
        return Refusal("Cover, lift, reveal or hide the fog.")
    fog = rows(state)
    if mode == "off":
        if fog is None:
            return Refusal("There is no fog to lift.")
        ctx.emit("fog.changed", mode="off")
        return None
    if mode == "on":
        if fog is not None and all(set(row) == {FOG} for row in fog):
            return Refusal("The whole map is already in fog.")
        ctx.emit("fog.changed", mode="on")
        return None
    if fog is None and mode == "reveal":
        return Refusal("Nothing is in fog: the players see the whole map. Hide an area first.")
    rects = _rects(params.get("rects"), state.width, state.height)
    if isinstance(rects, Refusal):
        return rects
    fog = fog if fog is not None else [CLEAR * state.width] * state.height
    if _painted(fog, rects, CLEAR if mode == "reveal" else FOG) == fog:
        return Refusal(
            "Those squares are already revealed." if mode == "reveal" else "Those squares are already in fog."
        )
    ctx.emit("fog.changed", mode=mode, rects=rects)
    return None


def apply_fog(state: BattleState, d: dict[str, Any]) -> None:
    """Fold a ``fog.changed`` event into the state."""
    mode = d["mode"]
    if mode == "off":
        state.extra.pop("fog", None)
    elif mode == "on":
        state.extra["fog"] = [FOG * state.width] * state.height
    else:  # on a board without fog, hiding starts from a clear map (a reveal there is refused)
        fog = rows(state) or [(CLEAR if mode == "hide" else FOG) * state.width] * state.height
        state.extra["fog"] = _painted(fog, d.get("rects", []), CLEAR if mode == "reveal" else FOG)


def without(state: BattleState, ids: frozenset[str]) -> BattleState:
    """A copy of the battle without these combatants: what a player who may not know of them is offered
    on their turn is worked out on it (the engine refuses what runs into one, when it is tried)."""
    seen = state.clone()
    for cid in ids:
        seen.combatants.pop(cid, None)
    seen.order = [cid for cid in state.order if cid not in ids]
    seen.turn = state.turn - sum(1 for cid in state.order[: state.turn] if cid in ids)
    return seen


# ---------------------------------------------------------------- what a player may read of an event

_DROP = object()


def _scrub(value: Any, ids: frozenset[str]) -> Any:
    if isinstance(value, str):
        return _DROP if value in ids else value
    if isinstance(value, list):
        return [v for v in (_scrub(item, ids) for item in value) if v is not _DROP]
    if isinstance(value, dict):
        if value.get("id") in ids:
            return _DROP
        out = {}
        for key, item in value.items():
            if key in ids:  # a table by combatant: that one's entry goes
                continue
            kept = _scrub(item, ids)
            if kept is _DROP:
                return _DROP
            out[key] = kept
        return out
    return value


def scrub(data: dict[str, Any], ids: frozenset[str]) -> dict[str, Any] | None:
    """An event's data without a combatant the viewer may not know of (``unseen``), or None when the
    event is about one: a field naming one drops the event, a list naming one loses that item."""
    if not ids:
        return data
    kept = _scrub(data, ids)
    return None if kept is _DROP else kept


def strip(value: Any, ids: frozenset[str]) -> Any:
    """``value`` (a seen combatant's statuses, its extra state) without mention of these combatants:
    an entry naming one goes, the rest stays ("grappled", without by whom)."""
    if not ids:
        return value
    if isinstance(value, list):
        return [strip(v, ids) for v in value if not (isinstance(v, str) and v in ids)]
    if isinstance(value, dict):
        return {
            k: strip(v, ids)
            for k, v in value.items()
            if k not in ids
            and not (isinstance(v, str) and v in ids)
            and not (isinstance(v, dict) and v.get("id") in ids)
        }
    return value


UNSEEN = "someone unseen"


@functools.lru_cache(maxsize=256)
def _names_pattern(names: tuple[str, ...]) -> re.Pattern[str]:
    """Any of these names as a whole word, the longest first ("Goblin 12" before "Goblin 1")."""
    ordered = sorted(names, key=len, reverse=True)
    return re.compile("|".join(rf"(?<!\w){re.escape(n)}(?!\w)" for n in ordered))


def named(text: str, names: Iterable[str], kept: Iterable[str] = ()) -> bool:
    """Whether ``text`` names one of ``names`` (not where it is part of a longer name in ``kept``)."""
    gone = {n for n in names if n} - set(kept)
    if not gone or not text:
        return False
    pattern = _names_pattern(tuple(sorted(gone | {k for k in kept if k})))
    return any(m.group(0) in gone for m in pattern.finditer(text))


def unnamed(text: str, names: Iterable[str], kept: Iterable[str] = ()) -> str:
    """``text`` (a prompt, a trigger: the ruleset's words) with these combatants' names taken out.

    ``kept``: the names of combatants the reader may know of: a name among them is never taken out,
    nor a longer one that holds a name taken out ("Goblin 12" stays while "Goblin 1" goes).

    >>> unnamed("Goblin 1 and Goblin 12 strike Ash.", ["Goblin 1"], ["Goblin 12", "Ash"])
    'someone unseen and Goblin 12 strike Ash.'
    """
    gone = {n for n in names if n} - set(kept)
    if not gone or not text:
        return text
    pattern = _names_pattern(tuple(sorted(gone | {k for k in kept if k})))
    return pattern.sub(lambda m: UNSEEN if m.group(0) in gone else m.group(0), text)
