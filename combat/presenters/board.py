"""The board region: where the tokens stand (a grid or a rows board) over the battle's map."""

from __future__ import annotations

from typing import Any

from combat.models import Battle
from combat.presenters.render import joined
from combat.table import Table


def context(table: Table, tokens: list[dict[str, Any]], board_kind: str) -> dict[str, Any]:
    """What the board shows besides the frame (``tokens``: ``tokens_of`` the viewer's class): the
    tokens on a grid (joined once) or in the rows of a rows board, the blocked squares, the map."""
    state = table.state
    placed = [t["html"] for t in tokens if t["pos"] is not None and t["alive"]]
    return {
        "placed_html": joined(placed),
        "rows_board": rows_board(tokens) if board_kind == "rows" else None,
        "blocked": [list(b) for b in state.blocked],
        "map": map_context(table.battle, state.width, state.height),
    }


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
