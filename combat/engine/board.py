"""Board geometry: square grids (distance, range and area shapes, paths) and rows.

Squares are ``(x, y)`` with ``0 <= x < width``, ``0 <= y < height``.
Two metrics: ``chebyshev`` (a diagonal step counts 1) and ``manhattan``
(cardinal steps only; MIST-RANGE-1).

>>> chebyshev((0, 0), (2, 1)), manhattan((0, 0), (2, 1))
(2, 3)
>>> find_path((0, 0), (2, 0), 3, 1, blocked={(1, 0)})
>>> find_path((0, 0), (2, 0), 3, 2, blocked={(1, 0)})
[(0, 0), (1, 1), (2, 0)]
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Iterator
from collections.abc import Set as AbstractSet
from typing import Any

from combat.engine.words import count

Square = tuple[int, int]
ROWS = ("front", "back")
ORTHOGONAL = ((1, 0), (-1, 0), (0, 1), (0, -1))
DIAGONAL = ((1, 1), (1, -1), (-1, 1), (-1, -1))
MAX_BOARD = 100


def chebyshev(a: Iterable[int], b: Iterable[int]) -> int:
    """Grid distance where a diagonal step counts 1."""
    ax, ay = a
    bx, by = b
    return max(abs(ax - bx), abs(ay - by))


def manhattan(a: Iterable[int], b: Iterable[int]) -> int:
    """Grid distance in cardinal steps."""
    ax, ay = a
    bx, by = b
    return abs(ax - bx) + abs(ay - by)


METRICS: dict[str, Callable[[Iterable[int], Iterable[int]], int]] = {
    "chebyshev": chebyshev,
    "manhattan": manhattan,
}


def distance(a: Iterable[int], b: Iterable[int], metric: str = "chebyshev") -> int:
    return METRICS[metric](a, b)


def in_bounds(sq: Iterable[int], width: int, height: int) -> bool:
    x, y = sq
    return 0 <= x < width and 0 <= y < height


def as_square(value: object, width: int, height: int) -> Square | None:
    """Parse untrusted ``[x, y]`` into a square on the board, or None."""
    if not isinstance(value, list | tuple) or len(value) != 2:
        return None
    x, y = value
    if type(x) is not int or type(y) is not int or not in_bounds((x, y), width, height):
        return None
    return (x, y)


def neighbours(sq: Square, width: int, height: int, diagonal: bool = True) -> list[Square]:
    x, y = sq
    steps = ORTHOGONAL + DIAGONAL if diagonal else ORTHOGONAL
    return [(x + dx, y + dy) for dx, dy in steps if 0 <= x + dx < width and 0 <= y + dy < height]


def within(
    origin: Iterable[int], radius: int, width: int, height: int, metric: str = "chebyshev"
) -> list[Square]:
    """Every square at distance <= radius of origin (a range, or a burst area; MIST-AOE-1 with manhattan)."""
    ox, oy = origin
    dist = METRICS[metric]
    out = []
    for y in range(max(0, oy - radius), min(height, oy + radius + 1)):
        for x in range(max(0, ox - radius), min(width, ox + radius + 1)):
            if dist((ox, oy), (x, y)) <= radius:
                out.append((x, y))
    return out


def line(a: Iterable[int], b: Iterable[int]) -> list[Square]:
    """Squares of a straight line from a to b (Bresenham), both ends included."""
    x0, y0 = a
    x1, y1 = b
    dx, dy = abs(x1 - x0), -abs(y1 - y0)
    sx, sy = (1 if x0 < x1 else -1), (1 if y0 < y1 else -1)
    err = dx + dy
    out = []
    for _ in range(2 * MAX_BOARD + 2):
        out.append((x0, y0))
        if x0 == x1 and y0 == y1:
            break
        e2 = 2 * err
        if e2 >= dy:
            err += dy
            x0 += sx
        if e2 <= dx:
            err += dx
            y0 += sy
    return out


def area(
    shape: str,
    origin: Iterable[int],
    size: int,
    width: int,
    height: int,
    metric: str = "chebyshev",
    toward: Iterable[int] | None = None,
) -> list[Square]:
    """Squares of an area: ``burst`` (within size of origin), ``single``, ``line`` (size squares toward)."""
    if shape == "single" or size <= 0:
        ox, oy = origin
        return [(ox, oy)]
    if shape == "burst":
        return within(origin, size, width, height, metric)
    if shape == "line":
        if toward is None:
            ox, oy = origin
            return [(ox, oy)]
        return [sq for sq in line(origin, toward)[1 : size + 1] if in_bounds(sq, width, height)]
    raise ValueError(f"Unknown area shape {shape!r}")


_ADJACENCY: dict[tuple[int, int, bool], dict[Square, list[Square]]] = {}


def _adjacency(width: int, height: int, diagonal: bool) -> dict[Square, list[Square]]:
    """Neighbour lists of every square of a board size (cached: boards are few)."""
    key = (width, height, diagonal)
    table = _ADJACENCY.get(key)
    if table is None:
        table = {
            (x, y): neighbours((x, y), width, height, diagonal) for y in range(height) for x in range(width)
        }
        if len(_ADJACENCY) < 64:
            _ADJACENCY[key] = table
    return table


def reachable(
    start: Square,
    max_steps: int,
    width: int,
    height: int,
    blocked: AbstractSet[Square] = frozenset(),
    no_stop: AbstractSet[Square] = frozenset(),
    diagonal: bool = True,
) -> dict[Square, int]:
    """Squares a mover can end on within ``max_steps`` (BFS), with their step count.

    ``blocked`` squares can be neither crossed nor entered (walls, enemies);
    ``no_stop`` squares can be crossed but not ended on (allies).
    """
    seen = {sq: d for d, sq, _ in _levels(start, max_steps, _adjacency(width, height, diagonal), blocked)}
    for sq in no_stop:
        seen.pop(sq, None)
    return seen


def _levels(
    start: Square, max_steps: int, adjacent: dict[Square, list[Square]], blocked: AbstractSet[Square]
) -> Iterator[tuple[int, Square, Square]]:
    """Breadth first from ``start``, level by level (each level one more step) up to ``max_steps``: each
    square reached once as (its step count, the square, the square before it), never through ``blocked``."""
    reached = {start}
    frontier = [start]
    for d in range(1, max(0, max_steps) + 1):
        nxt_level = []
        for here in frontier:
            for sq in adjacent[here]:
                if sq not in reached and sq not in blocked:
                    reached.add(sq)
                    nxt_level.append(sq)
                    yield d, sq, here
        frontier = nxt_level


def steps_within(
    start: Square,
    max_steps: int,
    width: int,
    height: int,
    blocked: AbstractSet[Square] = frozenset(),
    no_stop: AbstractSet[Square] = frozenset(),
    diagonal: bool = True,
) -> tuple[dict[Square, Square], list[Square]]:
    """Where a mover can go and how: (came_from, ends).

    ``came_from`` maps every square reached within ``max_steps`` (the start left out, squares one
    may pass but not stop on kept) to the square before it on a shortest path; ``ends`` are the
    squares a mover can end on, sorted. Walking ``came_from`` back from an end to the start gives
    its path (``path_to``): the board's move preview, so the browser does no path finding.
    """
    adjacent = _adjacency(width, height, diagonal)
    came_from = {sq: here for _, sq, here in _levels(start, max_steps, adjacent, blocked)}
    return came_from, sorted(sq for sq in came_from if sq not in no_stop)


def path_to(came_from: dict[Square, Square], end: Square) -> list[Square]:
    """The path (start included) that ``came_from`` (from ``steps_within``) takes to ``end``."""
    path = [end]
    while (prev := came_from.get(path[-1])) is not None:
        path.append(prev)
    return path[::-1]


def paths_within(
    start: Square,
    max_steps: int,
    width: int,
    height: int,
    blocked: AbstractSet[Square] = frozenset(),
    no_stop: AbstractSet[Square] = frozenset(),
    diagonal: bool = True,
) -> dict[Square, list[Square]]:
    """Like ``reachable``, with a shortest path (start included) to each square a mover can end on."""
    came_from, ends = steps_within(start, max_steps, width, height, blocked, no_stop, diagonal)
    return {sq: path_to(came_from, sq) for sq in ends}


def square_key(sq: Iterable[int]) -> str:
    """``"x,y"``: how the options key squares (``ActionOption.paths`` and ``areas``)."""
    x, y = sq
    return f"{x},{y}"


def find_path(
    start: Square,
    goal: Square,
    width: int,
    height: int,
    blocked: AbstractSet[Square] = frozenset(),
    max_steps: int | None = None,
    diagonal: bool = True,
) -> list[Square] | None:
    """Shortest path start..goal (both included) avoiding ``blocked``, or None (BFS, bounded by the board)."""
    if start == goal:
        return [start]
    if goal in blocked or not in_bounds(goal, width, height):
        return None
    adjacent = _adjacency(width, height, diagonal)
    prev: dict[Square, Square | None] = {start: None}
    frontier = deque([(start, 0)])
    while frontier:
        sq, d = frontier.popleft()
        if max_steps is not None and d >= max_steps:
            continue
        for nxt in adjacent[sq]:
            if nxt in prev or nxt in blocked:
                continue
            prev[nxt] = sq
            if nxt == goal:
                path = [nxt]
                node: Square | None = sq
                while node is not None:
                    path.append(node)
                    node = prev[node]
                return path[::-1]
            frontier.append((nxt, d + 1))
    return None


def valid_path(
    path: list[Square],
    width: int,
    height: int,
    blocked: AbstractSet[Square] = frozenset(),
    diagonal: bool = True,
) -> str | None:
    """Why a client-given path is invalid (each step adjacent, on the board, not blocked), or None."""
    steps = {(dx, dy) for dx, dy in (ORTHOGONAL + DIAGONAL if diagonal else ORTHOGONAL)}
    for a, b in zip(path, path[1:], strict=False):
        if (b[0] - a[0], b[1] - a[1]) not in steps:
            return "Each step must go to a neighbouring square."
        if not in_bounds(b, width, height):
            return "The path leaves the board."
        if b in blocked:
            return "The path is blocked."
    return None


def other_row(row: str) -> str:
    """The other row of the same side (rows boards: PARA-ACT-MOVE)."""
    return "back" if row == "front" else "front"


def chosen_path(
    params: dict[str, Any],
    start: Square,
    width: int,
    height: int,
    blocked: set[Square],
    no_stop: set[Square],
    allowance: int,
    diagonal: bool = True,
    max_len: int | None = None,
) -> list[Square] | str:
    """The path a move action asks for, or why it cannot be taken (a message for the player).

    ``params`` holds either a client ``path`` (a list of squares, checked step by
    step; the start is put in front when missing; at most ``max_len`` squares when
    given) or a goal ``to`` (shortest path within ``allowance``). The path must take
    1 to ``allowance`` steps and not end on a ``no_stop`` square.
    """
    if "path" in params:
        raw = params.get("path")
        if not isinstance(raw, list) or not raw or (max_len is not None and len(raw) > max_len):
            return "Give the path as a list of squares."
        squares = [as_square(sq, width, height) for sq in raw]
        path = [sq for sq in squares if sq is not None]
        if len(path) != len(squares):
            return "That square is not on the board."
        if path[0] != start:
            path.insert(0, start)
        why = valid_path(path, width, height, blocked, diagonal)
        if why:
            return why
    else:
        goal = as_square(params.get("to"), width, height)
        if goal is None:
            return "That square is not on the board."
        found = find_path(start, goal, width, height, blocked, allowance, diagonal)
        if found is None:
            return f"No path of at most {count(allowance, 'square')} to there."
        path = found
    steps = len(path) - 1
    if steps < 1:
        return "Choose a square to move to."
    if steps > allowance:
        return f"Too far: {count(steps, 'square')}, at most {allowance}."
    if path[-1] in no_stop:
        return "Someone already stands there."
    return path


def facing_lines(
    width: int, height: int, counts: tuple[int, int], gap: int, taken: AbstractSet[Square] = frozenset()
) -> tuple[list[Square], list[Square]]:
    """Squares for two sides facing each other across the middle of the board, ``gap`` squares apart.

    ``counts``: how many stand on each side (the party on the left, the enemies on the right). With
    ``gap`` the shortest move of everyone in the battle, each can reach the other line with one move
    and stop next to a foe (one square to spare, for a cardinal step sideways). Each side stands in a
    column, its members on the rows around the middle (every other row when they fit), further columns
    behind it when there are more of them than rows; ``taken`` squares (walls, people) are passed by
    for the nearest free one.

    >>> facing_lines(12, 10, (1, 2), 4)
    ([(3, 5)], [(7, 5), (7, 6)])
    """
    dx = max(1, min(gap, width - 1))
    left = max(0, (width - dx - 1) // 2)
    right = min(width - 1, left + dx)
    used: set[Square] = set(taken)
    most = max(counts) if counts else 0
    step = 2 if 2 * most - 1 <= height else 1
    middle = height // 2
    rows = [middle]
    for k in range(1, height):
        for y in (middle - k * step, middle + k * step):
            if 0 <= y < height and y not in rows:
                rows.append(y)
    rows += [y for y in range(height) if y not in rows]
    # The larger side's members beyond the other's count stand between the other's rows first (a
    # step from a foe's row), then further out.
    fewer = min(counts) if counts else 0
    between = [
        y + d for y in rows[:fewer] for d in (1, -1) if 0 <= y + d < height and y + d not in rows[:fewer]
    ]
    more = (
        rows[:fewer]
        + list(dict.fromkeys(between))
        + [y for y in rows if y not in rows[:fewer] and y not in between]
    )

    def line(n: int, column: int, back: int) -> list[Square]:
        order = more if n > fewer else rows
        out: list[Square] = []
        for i in range(n):
            x = column + back * (i // height)
            want = (max(0, min(width - 1, x)), order[i % height])
            sq = nearest_free(want, width, height, used, back)
            if sq is None:
                break
            used.add(sq)
            out.append(sq)
        return out

    return line(counts[0], left, -1), line(counts[1], right, 1)


def nearest_free(
    want: Square, width: int, height: int, used: AbstractSet[Square], back: int = -1
) -> Square | None:
    """``want`` if free, else the free square nearest to it (behind it first: ``back`` is -1 or 1)."""
    if want not in used and in_bounds(want, width, height):
        return want
    best: tuple[tuple[int, int, int], Square] | None = None
    for x in range(width):
        for y in range(height):
            if (x, y) in used:
                continue
            key = (chebyshev(want, (x, y)), 0 if (x - want[0]) * back >= 0 else 1, abs(y - want[1]))
            if best is None or key < best[0]:
                best = (key, (x, y))
    return best[1] if best else None
