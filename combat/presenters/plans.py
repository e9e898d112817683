"""The plan menu by a tapped token or square: what the viewer's acting combatant can do there this turn.

A tap on an enemy shows the actions that reach it, each with its plan (``combat.engine.plans``): the
steps to post one after another, the squares walked and the area covered, for the page to draw on
the board; one Confirm plays the chosen plan. A tap on an ally shows heals and helps, a tap on an
empty square the move there. Only the viewer who acts now gets plans: the GM for the combatant whose
turn it is, a player for their own; a player's plans are worked out on the battle as they may know
it (nobody in fog), as their options are. The menu is rendered when asked (``combat/plan_menu.html``),
never pushed. While the GM plays a monster or NPC, the GM's menu of a token begins with what it can
do to that token (``in_token_menu``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from combat.engine import fog
from combat.engine.board import METRICS
from combat.engine.context import rules_for
from combat.engine.plans import Plan, plans_on, plans_to
from combat.engine.state import BattleState, Combatant
from combat.engine.tactics import gm_may_leave
from combat.engine.view import Viewer, unseen_ids
from combat.engine.words import square_name
from combat.presenters.memo import battle_urls
from combat.presenters.render import render_one
from combat.snapshot import Table
from combat.templatetags.battle_tags import cost_text, tojson_single_quoted
from vtt.models import Role


@dataclass
class Menu:
    """What the plan menu shows: ``status`` is the HTTP status of the answer (200, or 404 for a tap on
    nobody the viewer may see), ``context`` what ``combat/plan_menu.html`` renders."""

    status: int
    context: dict[str, Any] = field(default_factory=dict)


def parse_square(raw: str | None, state: BattleState) -> tuple[int, int] | None:
    """``"x,y"`` as a square of the board, or None when it is not one."""
    parts = (raw or "").split(",")
    if len(parts) != 2 or not all(p.isascii() and p.isdigit() and len(p) <= 3 for p in parts):
        return None
    x, y = int(parts[0]), int(parts[1])
    return (x, y) if x < state.width and y < state.height else None


def _acting_for(state: BattleState, role: str, user_id: str | None) -> Combatant | None:
    """The combatant the viewer acts for now: the GM for whoever's turn it is, a player for their own."""
    c = state.current()
    if state.phase != "active" or state.pending is not None or c is None:
        return None
    return c if role == Role.GM or c.controller == user_id else None


def _waiting(state: BattleState) -> str:
    if state.phase != "active":
        return "The battle is not running."
    if state.pending is not None:
        return "A question waits for an answer first."
    return "It is not your turn."


def plan_dict(p: Plan, target: str | None, square: tuple[int, int] | None) -> dict[str, Any]:
    """One plan as the menu shows it; ``data`` is what the page draws and posts (JSON for an attribute)."""
    data = {
        "steps": [{"kind": a.kind, "params": a.params} for a in p.steps],
        "path": [list(s) for s in p.path],
        "area": [list(s) for s in p.area],
        "target": target,
        "square": list(square) if square else None,
        "label": p.label,
    }
    return {
        "label": p.label,
        "how": p.how,
        "cost": cost_text(p.cost) if p.available else "",
        "available": p.available,
        "reason": p.reason,
        "data": tojson_single_quoted(data) if p.available else "",
    }


def menu(table: Table, role: str, user_id: str | None, target: str | None, at: str | None) -> Menu:
    """The plan menu of a tap on the combatant ``target`` or on the square ``at`` (``"x,y"``)."""
    state = table.state
    viewer = Viewer(role=Role.GM) if role == Role.GM else Viewer(role=Role.PLAYER, user_id=user_id)
    unseen = unseen_ids(state, viewer)
    known = fog.without(state, unseen) if unseen else state
    square = parse_square(at, state) if at is not None else None
    if at is not None and square is None:
        return Menu(400, {"message": "That square is not on the board."})
    if square is not None and target is None:
        someone = known.occupant(square)
        target = someone.id if someone is not None else None
    t = known.combatants.get(target) if target else None
    if target and t is None:
        return Menu(404, {"message": "Nobody you can see stands there."})
    ctx: dict[str, Any] = {
        "urls": battle_urls(table.battle.pk),
        "seq": table.battle.seq,
        "target": t.id if t else "",
        "square": square,
        "square_name": square_name(*square) if square else "",
        "title": t.name if t else (square_name(*square) if square else ""),
        "is_gm": role == Role.GM,
    }
    if t is not None and t.pos is not None:
        ctx["square"], ctx["square_name"] = tuple(t.pos), square_name(*t.pos)
    c = _acting_for(state, role, user_id)
    if c is None:
        return Menu(200, {**ctx, "message": _waiting(state)})
    found = plans_on(known, c.id, t.id) if t is not None else plans_to(known, c.id, square or (0, 0))
    ctx.update(
        actor=c.id,
        actor_name=c.name,
        plans=[plan_dict(p, t.id if t else None, None if t else square) for p in found],
        away=_away(known, c, t, square),
    )
    ctx["can_act"] = any(p.available for p in found)
    if not ctx["can_act"]:
        what = t.name if t else ctx["square_name"]
        ctx["message"] = f"Nothing {c.name} can do reaches {what} this turn." if found == [] else ""
    return Menu(200, ctx)


def _away(state: BattleState, c: Combatant, t: Combatant | None, square: tuple[int, int] | None) -> str:
    """Where the tap is, seen from the actor: "3 squares away", "you", a row."""
    if t is not None and t.id == c.id:
        return "you"
    if t is not None and t.pos is None:
        return f"{t.row or 'front'} row"
    where = t.pos if t is not None else square
    if where is None or c.pos is None:
        return ""
    d = METRICS[rules_for(state).metric(state)](c.pos, where)
    return f"{d} square{'s' if d != 1 else ''} away"


#: Where the GM's menu of a token (``combat/token_menu.html``) takes the plans of the turn.
PLANS_MARK = "<!--plans-->"
TEMPLATE = "combat/plan_menu.html"


def in_token_menu(html: str, table: Table, cid: str) -> str:
    """The GM's menu of the token ``cid`` with, at its top, what the monster or NPC whose turn it is can
    do to it (to itself: only when something is available), each with its plan; else the menu as it is."""
    c = _acting_for(table.state, Role.GM, None)
    section = ""
    if c is not None and gm_may_leave(c):
        found = menu(table, Role.GM, None, cid, None)
        shown = found.context.get("can_act") or (cid != c.id and found.context.get("plans"))
        if found.status == 200 and shown:
            section = render_one(TEMPLATE, {**found.context, "embedded": True})
    return html.replace(PLANS_MARK, section, 1)
