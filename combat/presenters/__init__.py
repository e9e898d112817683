"""What each region of the battle page shows to a viewer: the presenters.

Used alike by the first page render and the HTMX responses
(``combat.views``), a (re)connecting socket (``combat.consumers``) and the
live push (``combat.live``, which only decides who gets which rendered
region and sends it). A viewer sees the battle through a *visibility
class*: ``gm`` (exact values) or ``pl`` (what any player or observer may
see, ``view_for``), plus a player's own regions (action panel, prompt,
sheet). ``class_regions`` renders a change once per class and once per
controlling player; ``regions_for`` renders everything one viewer sees.

One module per region: ``board``, ``tokens`` (the board's tokens and the tracker's rows), ``log``,
``actions`` (the action panel), ``gm`` (the GM panel); ``render`` renders them all. The battle as
read for display, and the process caches, are ``combat.table``'s.
"""

from __future__ import annotations

from typing import Any

from django.utils.safestring import mark_safe

from combat.engine.core import Viewer
from combat.engine.rulesets import get_ruleset
from combat.engine.view import hidden_ids
from combat.outcome import notices
from combat.presenters.actions import options_for, share_options
from combat.presenters.board import map_context, rows_board
from combat.presenters.gm import gm_context
from combat.presenters.log import log_entries, log_memo
from combat.presenters.render import USER_REGIONS, render_own, render_regions
from combat.presenters.tokens import square_name, tokens_of
from combat.table import GM, LOG_WINDOW, PLAYER, Table, battle_urls, vclass_of

# Regions (partial names) each message carries; every one is a top-level element with an id.
SHARED_REGIONS = ("board", "tracker", "log", "seqmark")
GM_REGIONS = (*SHARED_REGIONS, "gm", *USER_REGIONS)


def shared_context(table: Table, vclass: str) -> dict[str, Any]:
    """Board, tracker and log as one visibility class sees them."""
    state = table.state
    is_gm = vclass == "gm"
    view = table.view(GM if is_gm else PLAYER, None)
    tokens = tokens_of(table, view, None)
    by_id = {t["id"]: t for t in tokens}
    order = [by_id[cid] for cid in state.order if cid in by_id]
    waiting = [t for t in tokens if t["id"] not in state.order]
    names = {cid: c.name for cid, c in state.combatants.items()}
    hidden = hidden_ids(state, Viewer(role=GM if is_gm else PLAYER))
    entries = log_entries(table.events, names, hidden, log_memo(table.battle.pk, vclass, names, hidden))
    ruleset = get_ruleset(state.ruleset)
    current = state.current()
    pending = state.pending
    placed = [t for t in tokens if t["pos"] is not None and t["alive"]]
    connected_users = sorted(
        {t["controller"] for t in tokens if t["controller"]}
        | {uid for uid, (role, _) in table.members.items() if role == GM}
    )
    return {
        "battle": table.battle,
        "battle_id": table.battle.pk,
        "urls": battle_urls(table.battle.pk),
        "seq": table.battle.seq,
        "version": table.battle.version,
        "state": state,
        "phase": state.phase,
        "round": state.round,
        "ruleset": ruleset,
        "board_kind": ruleset.board,
        "width": state.width,
        "height": state.height,
        "cols": range(state.width),
        "rows": range(state.height),
        "blocked": [list(b) for b in state.blocked],
        "tokens": tokens,
        "placed": placed,
        # The regions' lists of cached pieces, joined here: a template loop costs a node per piece.
        "placed_html": mark_safe("".join(t["html"] for t in placed)),  # noqa: S308 - our fragments
        "order": order,
        "waiting": waiting,
        "order_html": mark_safe("".join(t["row_html"] for t in (*order, *waiting))),  # noqa: S308
        "current": by_id.get(current.id) if current else None,
        # What a non-addressee may know of a reaction window: who decides and why, not the question.
        "pending": view.get("pending"),
        "pending_for": table.name_of(pending.controller) if pending else "",
        "result": state.result,
        "log": entries,
        "log_html": mark_safe("".join(e["html"] for e in entries)),  # noqa: S308 - our fragments
        "log_more": len(table.events) == LOG_WINDOW and table.events[-1][0] > 1,
        "log_oldest": table.events[-1][0] if table.events else 0,
        "is_gm": is_gm,
        "vclass": vclass,
        "presence_users": [(uid, table.name_of(uid)) for uid in connected_users],
        "rows_board": rows_board(tokens) if ruleset.board == "rows" else None,
        "map": map_context(table.battle, state.width, state.height),
        "col_names": [square_name(x, 0)[:-1] for x in range(state.width)],
    }


def user_context(table: Table, user_id: str | None, is_gm: bool) -> dict[str, Any]:
    """One viewer's own regions: the action panel, the prompt, the sheet."""
    state = table.state
    current = state.current()
    acting = None
    options: list[dict[str, Any]] = []
    if current is not None and state.pending is None and (is_gm or current.controller == user_id):
        acting = current
        options = options_for(table, current)
    pending = state.pending
    prompt = pending if pending is not None and (is_gm or pending.controller == user_id) else None
    mine = frozenset(
        cid for cid, c in state.combatants.items() if user_id is not None and c.controller == user_id
    )
    own = (
        tokens_of(
            table, table.view(GM if is_gm else PLAYER, None if is_gm else user_id, mine), user_id, set(mine)
        )
        if mine
        else []
    )
    if own:
        schema = get_ruleset(state.ruleset).sheet_schema
        for t in own:
            sheet = state.combatants[t["id"]].sheet
            # The compact sheet: the numbers of the ruleset's schema (lists of abilities are the action panel).
            t["stats"] = [(f.label, sheet[f.key]) for f in schema if f.kind == "int" and f.key in sheet][:8]
    names = {cid: c.name for cid, c in state.combatants.items()}
    return {
        "notices": notices(table.events, mine, names) if mine and not is_gm else [],
        "viewer_id": user_id,
        "acting": acting,
        "acting_mine": acting is not None and acting.controller == user_id,
        "options": options,
        "prompt": prompt,
        "prompt_who": names.get(prompt.combatant, "") if prompt else "",
        "own": own,
        "has_combatant": bool(own) or is_gm,
        "current_name": current.name if current else "",
    }


def context_for(
    table: Table, role: str, user_id: str | None, csrf_token: str | None = None
) -> dict[str, Any]:
    """The full context of one viewer (first render, HTMX response, reconnect).

    ``csrf_token``: the page's, for its forms' CSRF fields (a page works without scripts); pushed
    and HTMX renders go without (htmx sends the page's token in a header).
    """
    is_gm = role == GM
    ctx = shared_context(table, vclass_of(role))
    ctx.update(user_context(table, user_id, is_gm))
    if is_gm:
        ctx.update(gm_context(table))
    ctx["role"] = role
    if csrf_token:
        ctx["csrf_token"] = csrf_token
    share_options(table, ctx)
    return ctx


def regions_for(table: Table, role: str, user_id: str | None) -> str:
    """Every region as this viewer sees it (a reconnecting socket, an HTMX response)."""
    ctx = context_for(table, role, user_id)
    regions = GM_REGIONS if role == GM else (*SHARED_REGIONS, *USER_REGIONS)
    return render_regions(regions, ctx)


def class_regions(table: Table) -> dict[str, Any]:
    """Every region of a change, rendered once per visibility class and once per controlling player.

    ``gm``: board, tracker, log, GM panel, the GM's action panel and prompt;
    ``pl``: board, tracker, log as any player or observer may see them;
    ``users[<user id>]``: that player's own action panel, prompt and sheet.
    """
    gm_ctx = shared_context(table, "gm")
    gm_ctx.update(user_context(table, None, True))
    gm_ctx.update(gm_context(table))
    gm_ctx["role"] = GM
    share_options(table, gm_ctx)
    pl_ctx = shared_context(table, "pl")
    pl_ctx["role"] = PLAYER
    users = {}
    for uid in sorted(table.controllers()):
        ctx = dict(pl_ctx)
        ctx.update(user_context(table, uid, False))
        share_options(table, ctx)
        users[uid] = render_own(USER_REGIONS, ctx)
    return {
        "gm": render_own(GM_REGIONS, gm_ctx),
        "pl": render_regions(SHARED_REGIONS, pl_ctx),
        "users": users,
    }
