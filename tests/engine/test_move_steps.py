"""A move's geometry as the square before each square it passes (``board.steps_within``).

Following ``came_from`` back from any square a mover can end on gives the very path the whole-path
search gives (same breadth-first order, same tie-breaking), on any board, with or without diagonal
steps, walls, and squares one may pass but not stop on; and what the browser gets for it is a
fraction of the bytes.
"""

from __future__ import annotations

import json

from django.utils.html import escape
from hypothesis import given, settings
from hypothesis import strategies as st

from combat.engine.board import Square, _adjacency, path_to, paths_within, steps_within


def whole_paths(start, max_steps, width, height, blocked, no_stop, diagonal) -> dict[Square, list[Square]]:
    """The search the board made before: a whole path to each end square, built for every square."""
    adjacent = _adjacency(width, height, diagonal)
    parent: dict[Square, Square | None] = {start: None}
    frontier = [start]
    for _ in range(max(0, max_steps)):
        nxt_level = []
        for here in frontier:
            for sq in adjacent[here]:
                if sq not in parent and sq not in blocked:
                    parent[sq] = here
                    nxt_level.append(sq)
        frontier = nxt_level
    out: dict[Square, list[Square]] = {}
    for sq in parent:
        if sq == start or sq in no_stop:
            continue
        path = [sq]
        while (prev := parent[path[-1]]) is not None:
            path.append(prev)
        out[sq] = path[::-1]
    return out


@st.composite
def boards(draw):
    width, height = draw(st.integers(1, 12)), draw(st.integers(1, 12))
    squares = st.tuples(st.integers(0, width - 1), st.integers(0, height - 1))
    start = draw(squares)
    blocked = draw(st.sets(squares, max_size=width * height // 3)) - {start}
    no_stop = draw(st.sets(squares, max_size=width * height // 4)) - {start}
    return start, draw(st.integers(0, 8)), width, height, blocked, no_stop, draw(st.booleans())


@settings(max_examples=300, deadline=None)
@given(boards())
def test_following_came_from_back_gives_the_whole_path_search_exactly(board):
    # RULE: ENG-5
    came_from, ends = steps_within(*board)
    expected = whole_paths(*board)
    assert ends == sorted(expected)
    assert {end: path_to(came_from, end) for end in ends} == expected
    assert paths_within(*board) == expected


def test_the_move_option_sends_a_fraction_of_the_bytes_of_whole_paths():
    # RULE: ENG-5
    from combat.engine.rulesets.luck import HEROES
    from combat.engine.testing import Battle
    from combat.presenters.actions import option_dict

    b = Battle("luck", width=16, height=12)
    a = b.add("Mira", "party", pos=(7, 6), **HEROES["Fighter"])
    b.add("Goblin", "enemy", pos=(15, 11), kind="monster", hp=10)
    b.act("setup.start", dice=[15, 3])
    move = next(o for o in b.options(a) if o.kind == "move")
    pick = option_dict(move, b.state, b.state.combatants[a])["pick"]
    assert "paths" not in pick and "via" not in pick and "squares" not in pick
    # One character a square of the board, row by row: the letter of the square before it on its path
    # (upper case where the move only passes), as battle.js reads it back.
    steps, width = pick["steps"], pick["w"]
    assert len(steps) == 16 * 12 and width == 16
    back, ends = {}, []
    for i, ch in enumerate(steps):
        if ch == ".":
            continue
        k = "abcdefghi".index(ch.lower())
        x, y = i % width, i // width
        back[(x, y)] = (x + k % 3 - 1, y + k // 3 - 1)
        if ch.islower():
            ends.append([x, y])
    assert back == move.came_from and sorted(ends) == sorted(map(list, move.squares))
    for key, path in move.paths.items():  # the browser reads the same paths back
        end = tuple(int(n) for n in key.split(","))
        assert path_to(back, end) == [tuple(sq) for sq in path]
    # What the form's attribute carries (HTML-escaped JSON): under a tenth of the whole paths.
    assert len(escape(json.dumps(pick))) * 10 < len(escape(json.dumps(move.paths)))
