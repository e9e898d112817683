"""The tokens of a battle as a viewer sees them: on the board, in the tracker, on a player's sheet.

Each token carries its rendered pieces: ``html`` (the board's token) and ``row_html`` (the tracker's
row), cached by what they show.
"""

from __future__ import annotations

from typing import Any

from combat.presenters.render import TOKEN, TRACKER_ROW, fragment
from combat.table import Table

COLUMNS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def square_name(x: int, y: int) -> str:
    """The name of a square as players say it: column letters, row number ("C4", "AB12")."""
    letters = ""
    n = x + 1
    while n:
        n, r = divmod(n - 1, 26)
        letters = COLUMNS[r] + letters
    return f"{letters}{y + 1}"


HEALTH_WORDS = {
    "unhurt": "unhurt",
    "wounded": "wounded",
    "bloodied": "bloodied",
    "critical": "badly hurt",
    "down": "down",
}


def _initials(name: str) -> str:
    words = [w for w in name.replace("-", " ").split() if w]
    if not words:
        return "?"
    if len(words) == 1:
        return words[0][:2].title()
    last = words[-1]
    return (words[0][0] + (last if last.isdigit() else last[0])).upper()[:3]


def tokens_of(
    table: Table, view: dict[str, Any], viewer_id: str | None, only: set[str] | None = None
) -> list[dict[str, Any]]:
    state = table.state
    current = state.current()
    pending = state.pending
    tokens = []
    for cid, c in view.get("combatants", {}).items():
        if only is not None and cid not in only:
            continue
        hp, max_hp = c.get("hp"), c.get("max_hp")
        ratio = c.get("hp_ratio")
        pct = round(100 * ratio) if isinstance(ratio, int | float) else None
        if pct is not None:
            pct = max(0, min(100, pct))
        # Who controls a token is table knowledge (the tracker shows it), not a secret.
        real = state.combatants.get(cid)
        controller = real.controller if real is not None else None
        face = table.faces.get(real.character_id) if real is not None and real.character_id else None
        statuses = [
            {"name": name, "power": s.get("power"), "duration": s.get("duration")}
            for name, s in (c.get("statuses") or {}).items()
        ]
        name = c.get("name", cid)
        acting = current is not None and current.id == cid
        reacting = pending is not None and pending.combatant == cid
        pos = c.get("pos")
        health = HEALTH_WORDS.get(c.get("hp_bucket") or "", "")
        if c.get("ko") and health != "down":
            health = "knocked out"
        # "Goblin 2, enemy, wounded, at C4": who, which side, how hurt, where (colour is never the only sign).
        label = f"{name}, {c.get('side', 'party')}"
        if health:
            label += f", {health}"
        if hp is not None:
            label += f", HP {hp} of {max_hp}"
        if pos:
            label += f", at {square_name(pos[0], pos[1])}"
        label += "".join(f", {s['name']}" for s in statuses) + (", acting now" if acting else "")
        token = {
            "id": cid,
            "name": name,
            "initials": _initials(name),
            "side": c.get("side", "party"),
            "kind": c.get("kind", "pc"),
            "controller": controller,
            "controller_name": table.name_of(controller),
            "hp": hp,
            "max_hp": max_hp,
            "pct": pct,
            "pos": pos,
            "col": pos[0] + 1 if pos else None,
            "line": pos[1] + 1 if pos else None,
            "row": c.get("row"),
            "statuses": statuses,
            "badges": [s["name"][:2] for s in statuses],
            "alive": c.get("alive", True),
            "ko": c.get("ko", False),
            "acting": acting,
            "reacting": reacting,
            "classes": (" acting" if acting else "")
            + (" reacting" if reacting else "")
            + (" ko" if c.get("ko") else ""),
            "label": label,
            "face": face,
            "health": c.get("hp_bucket") or "",
            "square": square_name(pos[0], pos[1]) if pos else "",
            "mine": viewer_id is not None and controller == viewer_id,
            "resources": c.get("resources") or {},
        }
        key = (
            cid,
            name,
            token["side"],
            token["classes"],
            token["col"],
            token["line"],
            controller,
            label,
            pct,
            tuple(token["badges"]),
            face,
            token["health"],
        )
        token["html"] = fragment(TOKEN, key, {"t": token})
        row_key = (
            cid,
            name,
            token["side"],
            acting,
            token["alive"],
            token["ko"],
            controller,
            token["controller_name"],
        )
        token["row_html"] = fragment(TRACKER_ROW, row_key, {"t": token})
        tokens.append(token)
    return tokens
