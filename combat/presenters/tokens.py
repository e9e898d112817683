"""The tokens of a battle as a visibility class sees them: the board's tokens and the tracker's rows.

``token_of`` turns one combatant of a view (``view_for``) into the values every region reads of it;
``tokens_of`` adds each token's two pieces, rendered from exactly what their templates show: ``html``
(the board's token, ``combat/token.html``) and ``row_html`` (the tracker's row,
``combat/tracker_row.html``).
"""

from __future__ import annotations

from typing import Any

from combat.engine.words import square_name
from combat.presenters import memo
from combat.presenters.render import TOKEN, TRACKER_ROW, fragment
from combat.snapshot import Table

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


def _label(c: dict[str, Any], name: str, side: str, statuses: list[dict[str, Any]], acting: bool) -> str:
    """What a screen reader says of a token: "Goblin 2, enemy, wounded, at C4": who, which side, how
    hurt, where, its statuses (colour is never the only sign)."""
    health = HEALTH_WORDS.get(c.get("hp_bucket") or "", "")
    if c.get("ko") and health != "down":
        health = "knocked out"
    label = f"{name}, {side}"
    if health:
        label += f", {health}"
    if c.get("hp") is not None:
        label += f", HP {c['hp']} of {c.get('max_hp')}"
    pos = c.get("pos")
    if pos:
        label += f", at {square_name(pos[0], pos[1])}"
    return label + "".join(f", {s['name']}" for s in statuses) + (", acting now" if acting else "")


def _pct(c: dict[str, Any]) -> int | None:
    """The health bar's fill in percent, when the view gives a ratio."""
    ratio = c.get("hp_ratio")
    return max(0, min(100, round(100 * ratio))) if isinstance(ratio, int | float) else None


def _on_board(
    c: dict[str, Any], cid: str, base: dict[str, Any], flags: dict[str, bool], face: Any
) -> dict[str, Any]:
    """All the board's token shows: ``base`` (name, side, position, statuses...) and ``flags`` (acting...)."""
    name, side, pos, statuses = base["name"], base["side"], base["pos"], base["statuses"]
    hidden = flags["hidden"]
    return {
        "id": cid,
        "name": name,
        "initials": _initials(name),
        "side": side,
        "classes": (" acting" if flags["acting"] else "")
        + (" reacting" if flags["reacting"] else "")
        + (" ko" if base["ko"] else "")
        + (" veiled" if hidden else ""),
        "health": c.get("hp_bucket") or "",
        "face": face,
        "pos": pos,
        "col": pos[0] + 1 if pos else None,
        "line": pos[1] + 1 if pos else None,
        "controller": base["controller"],
        "label": _label(c, name, side, statuses, flags["acting"])
        + (", hidden from players" if hidden else ""),
        "pct": _pct(c),
        "badges": [s["name"] for s in statuses],
    }


def token_of(table: Table, cid: str, c: dict[str, Any]) -> dict[str, Any]:
    """Combatant ``cid`` as a view shows it (``c``: its entry in ``view_for``), in values only.

    ``on_board``: all the board's token shows; ``in_tracker``: all the tracker's row shows.
    """
    state = table.state
    current, pending = state.acting(), state.pending
    # Who controls a token is table knowledge (the tracker shows it), not a secret.
    real = state.combatants.get(cid)
    controller = real.controller if real is not None else None
    face = table.faces.get(real.character_id) if real is not None and real.character_id else None
    statuses = [
        {"name": name, "power": s.get("power"), "duration": s.get("duration")}
        for name, s in (c.get("statuses") or {}).items()
    ]
    flags = {
        "acting": current is not None and current.id == cid,
        "reacting": pending is not None and pending.combatant == cid,
        "hidden": bool((c.get("extra") or {}).get("hidden")),  # only the GM's view holds it
    }
    base = {
        "id": cid,
        "name": c.get("name", cid),
        "side": c.get("side", "party"),
        "controller": controller,
        "controller_name": table.name_of(controller),
        "hp": c.get("hp"),
        "max_hp": c.get("max_hp"),
        "pos": c.get("pos"),
        "row": c.get("row"),
        "statuses": statuses,
        "alive": c.get("alive", True),
        "ko": c.get("ko", False),
        "resources": c.get("resources") or {},
    }
    tracker_keys = ("id", "name", "side", "alive", "ko", "controller", "controller_name")
    return {
        **base,
        "on_board": _on_board(c, cid, base, flags, face),
        "in_tracker": {**{k: base[k] for k in tracker_keys}, "acting": flags["acting"]},
    }


def class_token(table: Table, vclass: str, cid: str, c: dict[str, Any]) -> dict[str, Any]:
    """``token_of`` as a visibility class's page shows it: the GM's tokens open a menu."""
    t = token_of(table, cid, c)
    t["on_board"]["menu"] = vclass == "gm"
    return t


def tokens_of(table: Table, vclass: str) -> list[dict[str, Any]]:
    """Every combatant a visibility class sees, as ``token_of`` with its two pieces rendered
    (``html``: the board's token, ``row_html``: the tracker's row); computed once per change."""

    def make() -> list[dict[str, Any]]:
        tokens = []
        for cid, c in memo.class_view(table, vclass).get("combatants", {}).items():
            t = class_token(table, vclass, cid, c)
            t["html"] = fragment(TOKEN, {"t": t["on_board"], "oob": False})
            t["row_html"] = fragment(TRACKER_ROW, {"t": t["in_tracker"], "oob": False, "n": 0})
            tokens.append(t)
        return tokens

    tokens: list[dict[str, Any]] = memo.once(table, ("tokens", vclass), make)
    return tokens
