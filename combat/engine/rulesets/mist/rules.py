"""Mist & Rampart arithmetic: pure functions of numbers, squares and sheets.

Nothing here rolls dice or touches a battle; ``mist_play`` rolls, then asks
these functions what the faces mean. Range and area shapes are the board's
(``board.manhattan``, ``board.within(..., "manhattan")``). That keeps every rule checkable in one line:

>>> reduced_damage(100, defence=20)
80
>>> save_avoids(60, stat=40, against=100), save_avoids(59, stat=40, against=100)
(True, False)
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from combat.engine.board import manhattan

Square = tuple[int, int]


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


def reduced_damage(
    amount: int,
    defence: int = 0,
    resistance: int = 0,
    *,
    irreducible: bool = False,
    weak: bool = False,
    weakness_multiplier: int = 2,
) -> int:
    """Damage after DEF/MDF and the element's resistance (1:1), then weakness (after reduction).

    Never below 0. Irreducible damage ignores defence and resistance but a
    weakness still multiplies it.
    """
    dealt = amount if irreducible else amount - defence - resistance
    dealt = max(0, dealt)
    if weak:
        dealt *= weakness_multiplier
    return dealt


def damage_against(
    sheet: Mapping[str, Any],
    amount: int,
    kind: str,
    element: str = "",
    *,
    irreducible: bool = False,
    weakness_multiplier: int = 2,
) -> int:
    """``reduced_damage`` reading DEF (physical) or MDF (magical) and the element from a sheet."""
    defence = int(sheet.get("magic_defense" if kind == "magical" else "defense", 0) or 0)
    element = (element or "").lower()
    resistance = parse_resistances(sheet.get("resistances")).get(element, 0) if element else 0
    weak = bool(element) and element in parse_weaknesses(sheet.get("weaknesses"))
    return reduced_damage(
        amount,
        defence,
        resistance,
        irreducible=irreducible,
        weak=weak,
        weakness_multiplier=weakness_multiplier,
    )


def save_avoids(roll: int, stat: int, against: int) -> bool:
    """Saving throw: 1d100 + RES/SPI meets or exceeds the source's DEX/MND."""
    return roll + stat >= against


# --- initiative (MIST-INIT-1/2) -----------------------------------------------------------------


def initiative_order(
    totals: Mapping[str, int],
    speeds: Mapping[str, int],
    roll_off: Callable[[list[str]], Mapping[str, int]],
    max_rounds: int = 50,
) -> list[str]:
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


def _resolve_tie(
    ids: list[str], roll_off: Callable[[list[str]], Mapping[str, int]], budget: int
) -> list[str]:
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


def path_problem(
    path: Sequence[Sequence[int]],
    start: Sequence[int],
    *,
    width: int,
    height: int,
    blocked: set[Square],
    allies: set[Square],
    enemies: set[Square],
) -> str:
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


def rampart_provocations(
    start: Sequence[int],
    path: Sequence[Sequence[int]],
    zones: Mapping[str, int],
    holders: Mapping[str, Sequence[int]],
    already: Iterable[str] = (),
    once: bool = True,
) -> list[tuple[int, str]]:
    """Where a move provokes rampart attacks: ``[(index of the square left, holder id), ...]``.

    ``zones`` maps each active enemy rampart holder to its range N; a square is
    inside the rampart when within Manhattan N of the holder (not the holder's
    own square). Leaving such a square (the start, or one passed through
    without stopping) provokes; with ``once`` each holder attacks at most once
    per move (``already``: those who did), else at each square left
    (``already``: those who had their chance at the start square).
    Index 0 is the start square, index i the i-th square entered.
    """
    squares = [tuple(start)] + [tuple(s) for s in path[:-1]]
    done = set(already)
    out: list[tuple[int, str]] = []
    for index, sq in enumerate(squares):
        for holder in sorted(zones):
            if holder in done and (once or index == 0):
                continue
            if 0 < manhattan(sq, holders[holder]) <= zones[holder]:
                if once:
                    done.add(holder)
                out.append((index, holder))
    return out
