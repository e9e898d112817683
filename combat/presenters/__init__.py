"""What each region of the battle page shows to a viewer: the presenters.

Used alike by the first page render and the HTMX responses (``combat.views``), a (re)connecting
socket (``combat.consumers``) and the live push (``combat.live``, which only decides who gets which
rendered region and sends it). A viewer sees the battle through a *visibility class*: ``gm`` (exact
values) or ``pl`` (what any player or observer may see, ``view_for``), plus a player's own regions
(action panel, prompt, sheet). ``class_regions`` renders a change once per class and once per
controlling player; ``regions_for`` renders everything one viewer sees.

One module per region, each building what its partial of ``combat/battle.html`` shows besides the
``frame`` (the battle, its seq and version, phase, round, board and URLs):

- ``board``: the tokens on the grid or in the rows, the map; ``tokens``: each token's values and its
  two pieces (the board's token, the tracker's row);
- ``tracker``: round, who acts, who must answer, the order, who is at the table;
- ``log``: the log window in words; ``outcome``: the line by the board of what the latest action did;
- ``actions``: the action panel; ``prompt``: a reaction window's question; ``sheet``: a player's own
  combatants; these three are a viewer's own regions (``OWN_REGIONS``);
- ``gm``: the GM panel; ``house_rules``: the battle's house rules, which the GM changes in play.

``render`` renders them all and caches pieces by the whole context they receive. The battle as read
for display, and the process caches, are ``combat.table``'s.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from combat.engine.rulesets import get_ruleset
from combat.presenters import actions, board, gm, house_rules, log, outcome, prompt, render, sheet, tracker
from combat.presenters.memo import battle_urls
from combat.presenters.tokens import tokens_of
from combat.snapshot import Table, vclass_of
from vtt.models import Role

# A viewer id no combatant has as controller: what an observer, or a player with no combatant, sees.
WATCHER = "watcher"
# Regions (partial names) each message carries; every one is a top-level element with an id.
SHARED_REGIONS = ("board", "tracker", "log", "outcome", "seqmark")
USER_REGIONS = ("actions", "prompt", "sheet")
# The GM's: besides, the GM panel, the header's "End battle" (gone once the battle is over) and the
# battle's house rules.
GM_REGIONS = (*SHARED_REGIONS, "gm", "gm_head", house_rules.REGION, *USER_REGIONS)
# A viewer's own regions, each with the whole context its partial receives while it holds no form:
# most changes are someone else's turn, and a waiting player's panel, empty prompt and unchanged
# sheet then come from the cache instead of three renders.
OWN_REGIONS: dict[str, Callable[[dict[str, Any]], dict[str, Any] | None]] = {
    "actions": actions.resting,
    "prompt": prompt.resting,
    "sheet": sheet.resting,
}


def frame(table: Table, vclass: str) -> dict[str, Any]:
    """What every region of the page may read: the battle, where it stands, its board and URLs."""
    state = table.state
    ruleset = get_ruleset(state.ruleset)
    return {
        "battle": table.battle,
        "battle_id": table.battle.pk,
        "urls": battle_urls(table.battle.pk),
        "seq": table.battle.seq,
        "version": table.battle.version,
        "phase": state.phase,
        "round": state.round,
        "ruleset": ruleset,
        "board_kind": ruleset.board,
        "width": state.width,
        "height": state.height,
        "is_gm": vclass == "gm",
    }


def shared_context(table: Table, vclass: str) -> dict[str, Any]:
    """Board, tracker and log as one visibility class sees them."""
    tokens = tokens_of(table, vclass)
    ctx = frame(table, vclass)
    ctx.update(board.context(table, tokens, ctx["board_kind"], vclass))
    ctx.update(tracker.context(table, tokens, vclass))
    ctx.update(log.context(table, vclass))
    ctx.update(outcome.context(table, vclass))
    return ctx


def user_context(table: Table, user_id: str | None, is_gm: bool) -> dict[str, Any]:
    """One viewer's own regions: the action panel, the prompt, the sheet."""
    ctx = actions.context(table, user_id, is_gm)
    ctx.update(prompt.context(table, user_id, is_gm))
    ctx.update(sheet.context(table, user_id, is_gm))
    return ctx


def context_for(
    table: Table, role: str, user_id: str | None, csrf_token: str | None = None
) -> dict[str, Any]:
    """The full context of one viewer (first render, HTMX response, reconnect).

    ``csrf_token``: the page's, for its forms' CSRF fields (a page works without scripts); pushed
    and HTMX renders go without (htmx sends the page's token in a header).
    """
    is_gm = role == Role.GM
    ctx = shared_context(table, vclass_of(role))
    ctx.update(user_context(table, user_id, is_gm))
    if is_gm:
        ctx.update(gm.context(table))
        ctx.update(house_rules.context(table))
    ctx["role"] = role
    if csrf_token:
        ctx["csrf_token"] = csrf_token
    actions.share_options(table, ctx)
    return ctx


def render_own(regions: tuple[str, ...], ctx: dict[str, Any]) -> str:
    """Like ``render.render_regions``, with a viewer's own regions from the cache while they hold no form."""
    return "".join(
        render.render_region(region, ctx, OWN_REGIONS[region](ctx) if region in OWN_REGIONS else None)
        for region in regions
    )


def regions_for(table: Table, role: str, user_id: str | None) -> str:
    """Every region as this viewer sees it (a reconnecting socket, an HTMX response)."""
    ctx = context_for(table, role, user_id)
    regions = GM_REGIONS if role == Role.GM else (*SHARED_REGIONS, *USER_REGIONS)
    return render.render_regions(regions, ctx)


def class_regions(table: Table) -> dict[str, Any]:
    """Every region of a change, rendered once per visibility class and once per controlling player.

    ``gm``: board, tracker, log, GM panel, the GM's action panel and prompt;
    ``pl``: board, tracker, log as any player or observer may see them;
    ``users[<user id>]``: that player's own action panel, prompt and sheet;
    ``watch``: the same regions of an observer or a player who controls no combatant.
    """
    gm_ctx = shared_context(table, "gm")
    gm_ctx.update(user_context(table, None, True))
    gm_ctx.update(gm.context(table))
    gm_ctx.update(house_rules.context(table))
    gm_ctx["role"] = Role.GM
    actions.share_options(table, gm_ctx)
    pl_ctx = shared_context(table, "pl")
    pl_ctx["role"] = Role.PLAYER
    users = {}
    for uid in sorted(table.controllers()):
        ctx = dict(pl_ctx)
        ctx.update(user_context(table, uid, False))
        actions.share_options(table, ctx)
        users[uid] = render_own(USER_REGIONS, ctx)
    # Observers and players with no combatant: the same own regions for all of them (from the cache).
    watch = dict(pl_ctx)
    watch.update(user_context(table, WATCHER, False))
    from combat.presenters.changes import remember

    remember(table)  # the next change may push only the elements it touches
    return {
        "gm": render_own(GM_REGIONS, gm_ctx),
        "pl": render.render_regions(SHARED_REGIONS, pl_ctx),
        "users": users,
        "watch": render_own(USER_REGIONS, watch),
    }
