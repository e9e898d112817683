"""The board region: where the tokens stand (a grid or a rows board) over the battle's map."""

from __future__ import annotations

from typing import Any

from combat.engine import fog
from combat.engine.rulesets import get_ruleset
from combat.models import Battle
from combat.presenters import memo
from combat.presenters.render import joined
from combat.snapshot import Table


def context(table: Table, tokens: list[dict[str, Any]], board_kind: str, vclass: str) -> dict[str, Any]:
    """What the board shows besides the frame (``tokens``: ``tokens_of`` the viewer's class): the
    tokens on a grid (joined once) or in the rows of a rows board, the blocked squares and the fog as
    the class may see them, the map, and how the ruler counts squares (the battle's metric)."""
    state = table.state
    view = memo.class_view(table, vclass)
    placed = [t["html"] for t in tokens if t["pos"] is not None and t["alive"]]
    return {
        "placed_html": joined(placed),
        "rows_board": rows_board(tokens) if board_kind == "rows" else None,
        "blocked": view["blocked"],
        "fog": fog_areas(view["fog"]),
        "metric": get_ruleset(state.ruleset).metric(state) if board_kind == "grid" else "",
        "map": map_context(table.battle, state.width, state.height),
    }


def fog_areas(fog_rows: list[str] | None) -> list[tuple[int, int, int, int]]:
    """The fog as few rectangles as the board draws them: (column, width, row, height), 1-based like the
    CSS grid; a run of fogged squares in a row joins the same run of the row above it."""
    if not fog_rows:
        return []
    done: list[list[int]] = []
    open_runs: dict[tuple[int, int], list[int]] = {}
    for y, row in enumerate(fog_rows):
        runs: dict[tuple[int, int], list[int]] = {}
        x = 0
        while x < len(row):
            if row[x] != fog.FOG:
                x += 1
                continue
            start = x
            while x < len(row) and row[x] == fog.FOG:
                x += 1
            key = (start, x - start)
            area = open_runs.pop(key, None)
            if area is None:
                area = [start + 1, x - start, y + 1, 0]
                done.append(area)
            area[3] += 1
            runs[key] = area
        open_runs = runs
    return [(a[0], a[1], a[2], a[3]) for a in done]


def map_context(battle: Battle, width: int, height: int) -> dict[str, Any] | None:
    """Where the battle's picture lies under the board, in squares (the board's CSS draws it at --cell)."""
    item = battle.map if battle.map_id else None
    if item is None or not item.width or not item.height:
        return None
    if battle.grid_cols:
        per_square = item.width / battle.grid_cols  # image pixels in one square
        geometry = (
            item.width / per_square,
            item.height / per_square,
            -battle.grid_offset_x / per_square,
            -battle.grid_offset_y / per_square,
        )
    else:  # stretched over the whole board
        geometry = (width, height, 0, 0)
    w, h, x, y = (round(v, 3) for v in geometry)
    return {
        "url": item.url,
        "name": item.name,
        "w": w,
        "h": h,
        "x": x,
        "y": y,
        "px_w": item.width,
        "px_h": item.height,
    }


def rows_board(tokens: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A rows board: each side's front and back rows, enemies on top."""
    sides = []
    for side in ("enemy", "party"):
        rows = (
            [("back", "Back row"), ("front", "Front row")]
            if side == "enemy"
            else [("front", "Front row"), ("back", "Back row")]
        )
        sides.append(
            {
                "side": side,
                "rows": [
                    {
                        "key": key,
                        "label": label,
                        "tokens": [t for t in tokens if t["side"] == side and t["row"] == key and t["alive"]],
                    }
                    for key, label in rows
                ],
            }
        )
    return sides
