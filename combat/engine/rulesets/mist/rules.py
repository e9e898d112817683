"""Mist & Rampart rules: arithmetic of numbers, squares and sheets, then what the state allows.

Nothing here rolls dice or emits events; ``actions`` rolls, then asks these
functions what the faces mean and what a combatant may do now. Range and area
shapes are the board's (``board.manhattan``, ``board.within(..., "manhattan")``).
That keeps every rule checkable in one line:

>>> reduced_damage(100, defence=20)
80
>>> save_avoids(60, stat=40, against=100), save_avoids(59, stat=40, against=100)
(True, False)
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from combat.engine.board import Square, manhattan
from combat.engine.rulesets.base import blocked_by, definitions
from combat.engine.words import count

if TYPE_CHECKING:
    from combat.engine.state import BattleState, Combatant

MP_PER_INITIATIVE = 5


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


# --- reading the state ---------------------------------------------------------------------


def stat(state: BattleState, c: Combatant, key: str) -> int:
    """A sheet value plus the changes of the combatant's statuses (Blind: accuracy -50...)."""
    value = int(c.sheet.get(key, 0) or 0)
    if c.statuses:
        defs = definitions(state, "statuses")
        for skey in c.statuses:
            d = defs.get(skey)
            if d:
                value += int(d.get(key, 0) or 0)
    return value


def rampart_range(c: Combatant) -> int:
    """MIST-RAMP-1: the sheet's Rampart N; heavy armor grants Rampart 1 when the sheet names none."""
    n = int(c.sheet.get("rampart", 0) or 0)
    return n if n > 0 else (1 if c.sheet.get("heavy_armor") else 0)


def turn_flags(c: Combatant) -> dict[str, Any]:
    return c.extra.get("turn") or {}


def can_act(c: Combatant) -> bool:
    """Alive, and conscious: not KO, or KO with a trait that keeps them conscious (MIST-KO-1)."""
    return c.alive and (not c.ko or bool(c.sheet.get("conscious_at_ko")))


def movement(state: BattleState, c: Combatant) -> int:
    return max(0, stat(state, c, "movement"))


def terrain(state: BattleState, c: Combatant) -> tuple[set[Square], set[Square], set[Square]]:
    """(walls, squares of living allies, squares of living enemies) as seen by mover ``c``."""
    walls = {(b[0], b[1]) for b in state.blocked}
    allies: set[Square] = set()
    enemies: set[Square] = set()
    for o in state.combatants.values():
        if o.alive and o.pos is not None and o.id != c.id:
            (allies if o.side == c.side else enemies).add((o.pos[0], o.pos[1]))
    return walls, allies, enemies


# --- what is allowed now (shared by resolvers and legal_actions) ---------------------------


def move_problem(state: BattleState, c: Combatant, leap: bool = False) -> str:
    """Why ``c`` cannot move now ('' when it can). A leap needs the whole, untouched move."""
    if c.pos is None:
        return f"{c.name} is not on the board."
    status = blocked_by(state, c, "movement")
    if status:
        return f"{c.name} cannot move ({status})."
    t = turn_flags(c)
    if t.get("move_action"):
        return "The move action is used up this turn."
    left = c.resources.get("move", 0)
    if leap:
        if left < t.get("move_total", 0):
            return "A move action needs the turn's whole move; some of it is spent."
        return ""
    if left <= 0:
        return "No movement left this turn."
    return ""


def double_move_problem(state: BattleState, c: Combatant) -> str:
    """MIST-MOVE-2: all slots for double movement, only if no slot was spent yet."""
    t = turn_flags(c)
    if t.get("spent"):
        return "Only before spending any action slot."
    if c.resources.get("slots", 0) <= 0:
        return "No action slots to spend."
    if blocked_by(state, c, "actions"):
        return f"{c.name} cannot act ({blocked_by(state, c, 'actions')})."
    return (
        move_problem(state, c, leap=False)
        if c.resources.get("move", 0) > 0
        else (move_problem(state, c, leap=True))
    )


def slot_cost(c: Combatant, kind: str, cost: int) -> int | str:
    """Slots an action of ``kind`` costs now (MIST-TYPE-1..5), or why it cannot be taken."""
    t = turn_flags(c)
    if kind == "move":
        return 0
    if kind == "simple":
        return 1 if t.get("simple") else 0
    if kind == "static" and t.get("static"):
        return "Only one static action per turn."
    return cost


def gate(state: BattleState, c: Combatant, kind: str, cost: int, mp: int, spell: bool) -> str | None:
    """Why an action of this type and cost cannot be taken now, or None (slots, MP, statuses)."""
    status = blocked_by(state, c, "actions")
    if status:
        return f"{c.name} cannot act ({status})."
    if spell:
        status = blocked_by(state, c, "spells")
        if status:
            return f"{c.name} cannot cast spells ({status})."
    slots = slot_cost(c, kind, cost)
    if isinstance(slots, str):
        return slots
    have = c.resources.get("slots", 0)
    if slots > have:
        return f"Needs {count(slots, 'action slot')}; {have} left."
    if mp > c.resources.get("mp", 0):
        return f"Needs {mp} MP; {c.name} has {c.resources.get('mp', 0)}."
    if kind == "move":
        return move_problem(state, c, leap=True) or None
    return None


def target_problem(
    state: BattleState, c: Combatant, t: Combatant, a: dict[str, Any], check_range: bool = True
) -> str | None:
    """Why ``t`` is not a valid single target of ability ``a`` used by ``c`` (None when valid)."""
    if not t.alive:
        return f"{t.name} is dead."
    want = a["target"]
    if want == "self" and t.id != c.id:
        return "This ability targets its user."
    if want == "enemy" and t.side == c.side:
        return "Choose an enemy."
    if want == "ally" and t.side != c.side:
        return "Choose an ally."
    if t.pos is None or c.pos is None:
        return f"{t.name} is not on the board."
    if check_range and manhattan(c.pos, t.pos) > a["range"]:
        return f"{t.name} is out of range ({manhattan(c.pos, t.pos)} > {a['range']})."
    return None
