"""Mist & Rampart arithmetic: pure functions of numbers, squares and sheets.

Nothing here rolls dice or touches a battle; ``mist.py`` rolls, then asks these
functions what the faces mean. That keeps every rule checkable in one line:

>>> reduced_damage(100, defence=20)
80
>>> save_avoids(60, stat=40, against=100), save_avoids(59, stat=40, against=100)
(True, False)
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence

Square = tuple[int, int]


# --- range and area (MIST-RANGE-1, MIST-AOE-1) --------------------------------------------------

def manhattan(a: Sequence[int], b: Sequence[int]) -> int:
    """Cardinal steps between two squares: range 1 is the four neighbours, range 2 adds diagonals."""
    return abs(a[0] - b[0]) + abs(a[1] - b[1])


def area_squares(origin: Sequence[int], size: int, width: int, height: int) -> list[Square]:
    """Every on-board square within Manhattan distance ``size`` of ``origin`` (origin included)."""
    ox, oy = origin[0], origin[1]
    out: list[Square] = []
    for dy in range(-size, size + 1):
        span = size - abs(dy)
        for dx in range(-span, span + 1):
            x, y = ox + dx, oy + dy
            if 0 <= x < width and 0 <= y < height:
                out.append((x, y))
    return out


# --- accuracy, damage, saves (MIST-HIT-1, MIST-DMG-1/2, MIST-SAVE-1) ------------------------------

def accuracy_hits(roll: int | None, accuracy: int, evasion: int) -> bool:
    """The check (1d100 + Accuracy, or Accuracy alone when ``roll`` is None) meets Evasion."""
    return (roll or 0) + accuracy >= evasion


def parse_resistances(text: str | Mapping[str, int] | None) -> dict[str, int]:
    """``"fire:10, ice:5"`` -> ``{"fire": 10, "ice": 5}``; malformed pieces are ignored."""
    if isinstance(text, Mapping):
        return {str(k).strip().lower(): int(v) for k, v in text.items()}
    out: dict[str, int] = {}
    for piece in (text or "").split(","):
        name, _, amount = piece.partition(":")
        name = name.strip().lower()
        try:
            value = int(amount.strip())
        except ValueError:
            continue
        if name:
            out[name] = value
    return out


def parse_weaknesses(text: str | Iterable[str] | None) -> set[str]:
    """``"fire, holy"`` -> ``{"fire", "holy"}``."""
    items = text.split(",") if isinstance(text, str) else (text or ())
    return {item.strip().lower() for item in items if item and item.strip()}


def resistance_errors(text: str) -> list[str]:
    """Messages for a malformed resistance string (sheet validation)."""
    errors = []
    for piece in (text or "").split(","):
        if not piece.strip():
            continue
        name, sep, amount = piece.partition(":")
        if not sep or not name.strip():
            errors.append(f"{piece.strip()!r}: write element:amount, e.g. fire:10.")
            continue
        try:
            int(amount.strip())
        except ValueError:
            errors.append(f"{piece.strip()!r}: the amount must be a whole number.")
    return errors


def reduced_damage(amount: int, defence: int = 0, resistance: int = 0, *, irreducible: bool = False,
                   weak: bool = False, weakness_multiplier: int = 2) -> int:
    """Damage after DEF/MDF and the element's resistance (1:1), then weakness (after reduction).

    Never below 0. Irreducible damage ignores defence and resistance but a
    weakness still multiplies it.
    """
    dealt = amount if irreducible else amount - defence - resistance
    dealt = max(0, dealt)
    if weak:
        dealt *= weakness_multiplier
    return dealt


def damage_against(sheet: Mapping, amount: int, kind: str, element: str = "", *, irreducible: bool = False,
                   weakness_multiplier: int = 2) -> int:
    """``reduced_damage`` reading DEF (physical) or MDF (magical) and the element from a sheet."""
    defence = int(sheet.get("magic_defense" if kind == "magical" else "defense", 0) or 0)
    element = (element or "").lower()
    resistance = parse_resistances(sheet.get("resistances")).get(element, 0) if element else 0
    weak = bool(element) and element in parse_weaknesses(sheet.get("weaknesses"))
    return reduced_damage(amount, defence, resistance, irreducible=irreducible, weak=weak,
                          weakness_multiplier=weakness_multiplier)


def save_avoids(roll: int, stat: int, against: int) -> bool:
    """Saving throw: 1d100 + RES/SPI meets or exceeds the source's DEX/MND."""
    return roll + stat >= against


# --- initiative (MIST-INIT-1/2) -----------------------------------------------------------------

def initiative_order(totals: Mapping[str, int], speeds: Mapping[str, int],
                     roll_off: Callable[[list[str]], Mapping[str, int]], max_rounds: int = 50) -> list[str]:
    """Highest total first; ties by higher Speed; still tied: ``roll_off(ids)`` until resolved.

    ``roll_off`` returns a fresh roll per id. After ``max_rounds`` roll-offs
    that keep tying (only scripted dice can do that) the id order decides.
    """
    groups: dict[tuple[int, int], list[str]] = {}
    for cid, total in totals.items():
        groups.setdefault((total, speeds.get(cid, 0)), []).append(cid)
    order: list[str] = []
    for key in sorted(groups, reverse=True):
        order.extend(_resolve_tie(sorted(groups[key]), roll_off, max_rounds))
    return order


def _resolve_tie(ids: list[str], roll_off: Callable[[list[str]], Mapping[str, int]], budget: int) -> list[str]:
    if len(ids) < 2:
        return ids
    if budget <= 0:
        return ids
    rolls = roll_off(ids)
    buckets: dict[int, list[str]] = {}
    for cid in ids:
        buckets.setdefault(rolls[cid], []).append(cid)
    out: list[str] = []
    for value in sorted(buckets, reverse=True):
        out.extend(_resolve_tie(buckets[value], roll_off, budget - 1))
    return out


# --- movement and ramparts (MIST-MOVE-3, MIST-RAMP-1/2) -----------------------------------------

def path_problem(path: Sequence[Sequence[int]], start: Sequence[int], *, width: int, height: int,
                 blocked: set[Square], allies: set[Square], enemies: set[Square]) -> str:
    """Why a path of cardinal steps from ``start`` is illegal ('' when legal).

    The path lists the squares entered, not the start. Allies may be passed
    through but not stopped on; enemies neither; blocked squares never.
    """
    if not path:
        return "The path is empty."
    prev = (start[0], start[1])
    for i, step in enumerate(path):
        sq = (step[0], step[1])
        if manhattan(prev, sq) != 1:
            return f"Step {i + 1} to {list(sq)} is not one cardinal step."
        if not (0 <= sq[0] < width and 0 <= sq[1] < height):
            return f"Square {list(sq)} is off the board."
        if sq in blocked:
            return f"Square {list(sq)} is blocked."
        if sq in enemies:
            return f"Square {list(sq)} holds an enemy: you cannot pass through it."
        prev = sq
    if prev in allies:
        return f"Square {list(prev)} holds an ally: you may pass through but not stop there."
    return ""


def shortest_path(start: Sequence[int], goal: Sequence[int], *, width: int, height: int, limit: int,
                  blocked: set[Square], allies: set[Square], enemies: set[Square]) -> list[Square] | None:
    """A shortest legal path (breadth first, at most ``limit`` steps), or None."""
    start_sq, goal_sq = (start[0], start[1]), (goal[0], goal[1])
    if start_sq == goal_sq or goal_sq in allies or goal_sq in enemies or goal_sq in blocked:
        return None
    if manhattan(start_sq, goal_sq) > limit:
        return None
    came: dict[Square, Square] = {start_sq: start_sq}
    frontier = [start_sq]
    for _ in range(limit):
        nxt: list[Square] = []
        for x, y in frontier:
            for sq in ((x, y - 1), (x + 1, y), (x, y + 1), (x - 1, y)):
                if sq in came or not (0 <= sq[0] < width and 0 <= sq[1] < height):
                    continue
                if sq in blocked or sq in enemies:
                    continue
                came[sq] = (x, y)
                if sq == goal_sq:
                    out = [sq]
                    while came[out[-1]] != start_sq:
                        out.append(came[out[-1]])
                    return out[::-1]
                nxt.append(sq)
        frontier = nxt
        if not frontier:
            break
    return None


def reachable(start: Sequence[int], *, width: int, height: int, limit: int, blocked: set[Square],
              allies: set[Square], enemies: set[Square]) -> list[Square]:
    """Squares a mover may end on within ``limit`` steps (for legal_actions)."""
    start_sq = (start[0], start[1])
    seen = {start_sq}
    frontier = [start_sq]
    for _ in range(limit):
        nxt = []
        for x, y in frontier:
            for sq in ((x, y - 1), (x + 1, y), (x, y + 1), (x - 1, y)):
                if sq in seen or not (0 <= sq[0] < width and 0 <= sq[1] < height):
                    continue
                if sq in blocked or sq in enemies:
                    continue
                seen.add(sq)
                nxt.append(sq)
        frontier = nxt
    return sorted(sq for sq in seen if sq != start_sq and sq not in allies)


def rampart_provocations(start: Sequence[int], path: Sequence[Sequence[int]],
                         zones: Mapping[str, int], holders: Mapping[str, Sequence[int]],
                         already: Iterable[str] = ()) -> list[tuple[int, str]]:
    """Where a move provokes rampart attacks: ``[(index of the square left, holder id), ...]``.

    ``zones`` maps each active enemy rampart holder to its range N; a square is
    inside the rampart when within Manhattan N of the holder (not the holder's
    own square). Leaving such a square (the start, or one passed through
    without stopping) provokes; each holder attacks at most once per move.
    Index 0 is the start square, index i the i-th square entered.
    """
    squares = [tuple(start)] + [tuple(s) for s in path[:-1]]
    done = set(already)
    out: list[tuple[int, str]] = []
    for index, sq in enumerate(squares):
        for holder in sorted(zones):
            if holder in done:
                continue
            if 0 < manhattan(sq, holders[holder]) <= zones[holder]:
                done.add(holder)
                out.append((index, holder))
    return out
