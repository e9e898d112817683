"""The action panel: the acting combatant's options for the viewers who act for it, or why a viewer waits.

The options are the engine's ``legal_actions``, made once per change; each option's form is a piece
of its own (``combat/action_opt.html``), cached by what it shows and shared by the GM and the acting
player (``share_options``): it holds no seq and no client token, which the page adds when it sends it.
"""

from __future__ import annotations

import re
from typing import Any

from django.utils.html import format_html
from django.utils.safestring import mark_safe

from combat.engine import fog
from combat.engine.actions import ActionOption
from combat.engine.core import Viewer, legal_actions
from combat.engine.plans import option_key, reach_hints
from combat.engine.state import BattleState, Combatant
from combat.engine.view import next_seen, unseen_ids
from combat.presenters import memo, render
from combat.presenters.sheet import own_tokens
from combat.snapshot import Table
from combat.templatetags.battle_tags import tojson_single_quoted
from vtt.models import Role

# The option forms' indentation, one space between two tags instead (what a browser shows is the same;
# attribute values hold no ">": they are escaped): a third of the panel's bytes, pushed on every change.
BETWEEN_TAGS = re.compile(r">\s+<")


def context(table: Table, user_id: str | None, is_gm: bool) -> dict[str, Any]:
    """Who this viewer acts for now (the GM for anyone, a player for their own combatant) and its
    options; else what the panel says while they wait."""
    state = table.state
    current = state.current()
    unseen = unseen_ids(state, Viewer(role=Role.GM) if is_gm else Viewer(role=Role.PLAYER, user_id=user_id))
    acting = None
    options: list[dict[str, Any]] = []
    if current is not None and state.pending is None and (is_gm or current.controller == user_id):
        acting = current
        options = options_for(table, current, unseen)
    turn_left = ""
    if acting is not None and is_gm and tactics_stopped(table, acting):
        options = end_turn_first(table, acting, options)
        turn_left = f"The tactics stopped for an answer: {acting.name}'s turn goes on. End it, or act with what is left:"
    current_name = acting_name(state, unseen)
    has_combatant = bool(own_tokens(table, user_id, is_gm)) or is_gm
    return {
        "waiting": _waiting(state, current_name, user_id, is_gm, unseen),
        # The panel says "Waiting for <name>'s turn.": the name is an element of its own
        # (``waiting-for``), which a change of turn fills for every player at once
        # (``changes._shared``); a player's panel that says something else keeps it hidden.
        "waiting_turn": acting is None
        and not is_gm
        and state.phase == "active"
        and has_combatant
        and state.pending is None
        and bool(current_name),
        "acting": acting,
        # "Your turn" is a player's: the GM acts for everyone ("Acting for ..."), on the page as in pushes.
        "acting_mine": acting is not None and not is_gm and acting.controller == user_id,
        "options": options,
        "turn_left": turn_left,
        "unseen": unseen,
        "has_combatant": has_combatant,
        "current_name": current_name,
    }


def tactics_stopped(table: Table, acting: Combatant) -> bool:
    """The tactics played part of ``acting``'s turn and stopped (for an answer), and the turn goes on: the
    GM has it to finish (the log window since the turn began holds one of their steps)."""
    for _, etype, data in table.events:
        if etype == "turn.started":
            return False
        if etype == "tactics.chose" and isinstance(data, dict) and data.get("actor") == acting.id:
            return True
    return False


def end_turn_first(table: Table, acting: Combatant, options: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The same options with "End turn" first (one list per change: the panel's forms are made once per list)."""

    def make() -> list[dict[str, Any]]:
        return sorted(options, key=lambda o: o["kind"] != "end_turn")

    first: list[dict[str, Any]] = memo.once(table, ("end-turn-first", acting.id, id(options)), make)
    return first


def acting_name(state: BattleState, unseen: frozenset[str]) -> str:
    """Whose turn it is, as a viewer who may not know of ``unseen`` says it: while one of those takes
    its turn, the one they see whose turn comes next (a hidden turn tells them nothing of itself)."""
    current = state.current()
    if current is None:
        return ""
    if current.id not in unseen:
        return current.name
    up = next_seen(state, unseen)
    return state.combatants[up].name if up is not None else ""


def resting(ctx: dict[str, Any]) -> dict[str, Any] | None:
    """All the panel receives while it holds no form (cached by it); None while it does (a player
    who acts, and the GM, whose panel may hold the start form)."""
    if ctx["acting"] is not None or ctx["is_gm"]:
        return None
    return {
        "acting": None,
        "phase": ctx["phase"],
        "has_combatant": ctx["has_combatant"],
        "current_name": ctx["current_name"],
        "waiting": ctx["waiting"],
        "waiting_turn": ctx["waiting_turn"],
        "is_gm": False,
    }


def _waiting(
    state: BattleState, current_name: str, user_id: str | None, is_gm: bool, unseen: frozenset[str]
) -> str:
    """What the panel says while this viewer has nothing to do: whose choice or whose turn it is."""
    pending = state.pending
    if pending is not None:
        if is_gm or (not pending.gm_only and pending.controller == user_id):
            return "Choose your answer above first."
        who = state.combatants.get(pending.combatant)
        name = who.name if who is not None and who.id not in unseen else "someone"
        return f"Waiting for {name} to choose."
    return f"Waiting for {current_name}'s turn." if current_name else "Waiting."


def options_for(
    table: Table, combatant: Combatant, unseen: frozenset[str] = frozenset()
) -> list[dict[str, Any]]:
    """The acting combatant's options, computed once per change (the GM's and its player's panels show
    the same, unless fog hides someone from the player: ``unseen``, left out of what they are offered;
    the engine refuses what runs into one when it is tried)."""

    def make() -> list[dict[str, Any]]:
        state = fog.without(table.state, unseen) if unseen else table.state
        found = legal_actions(state, combatant.id)
        hints = reach_hints(state, combatant.id, found)
        out = [option_dict(o, state, combatant, hints.get(option_key(o.kind, o.params))) for o in found]
        # What may be done now first (a move is never below a column of greyed attacks); then the
        # greyed ones, each saying how to make it available where a plan on the board would.
        return sorted(out, key=lambda d: not d["available"])

    options: list[dict[str, Any]] = memo.once(table, ("options", combatant.id, unseen), make)
    return options


def option_dict(
    option: ActionOption, state: BattleState, actor: Combatant, hint: str | None = None
) -> dict[str, Any]:
    """``hint``: how to make a greyed option available (``plans.reach_hints``), said instead of its reason."""
    # The option's own lists, not ``to_dict``'s copies: a render only reads them, and the options
    # are made anew for every change (copying a move's paths was ~3 % of an action's CPU).
    d: dict[str, Any] = {
        "kind": option.kind,
        "label": option.label,
        "cost": option.cost,
        "targets": option.targets,
        "squares": option.squares,
        "available": option.available,
        "reason": hint or option.reason,
        "params": option.params,
    }
    d["needs_target"] = bool(d["targets"])
    d["needs_square"] = bool(d["squares"]) and not d["targets"]
    d["target_choices"] = [
        (cid, state.combatants[cid].name) for cid in d["targets"] if cid in state.combatants
    ]
    # What battle.js needs to highlight targets and squares and to preview a move's path or an area's
    # squares: the geometry comes from the engine's options ("x,y" -> squares), the browser computes none.
    d["pick"] = {
        "kind": d["kind"],
        "targets": d["targets"],
        "squares": d["squares"],
        # A move's path to each square, as the square before each square it passes (flat numbers:
        # a fraction of the bytes of whole paths, and nothing to escape in the form's attribute).
        "via": [n for sq, prev in option.came_from.items() for n in (*sq, *prev)],
        "areas": option.areas,
    }
    steps = step_map(option, state.width, state.height)
    if steps is not None:  # the same squares and paths in a character per square of the board
        d["pick"].update(squares=[], via=[], steps=steps, w=state.width)
    d["pick"] = {k: v for k, v in d["pick"].items() if v or k == "kind"}  # battle.js takes none as empty
    return d


# The square before a square, one step away, as one letter: "abc" above it (left to right), "d" and "f"
# beside it, "ghi" below it; lower case where the move may end, upper case where it only passes.
STEP_LETTERS = "abcdefghi"


def step_map(option: ActionOption, width: int, height: int) -> str | None:
    """A move's squares and paths as one string, a character per square of the board, row by row:
    ``.`` where the move does not go, else the letter of the square before it (``STEP_LETTERS``). A
    16 x 12 board takes 192 characters, where the squares and the flat paths took 2-4 KB. None when
    some step is not to a neighbouring square, or a square the move may end on has no path."""
    came = option.came_from
    if not came or not width or not height or any(sq not in came for sq in map(tuple, option.squares)):
        return None
    ends = {tuple(sq) for sq in option.squares}
    cells = ["."] * (width * height)
    for (x, y), (px, py) in came.items():
        dx, dy = px - x, py - y
        if not (0 <= x < width and 0 <= y < height) or max(abs(dx), abs(dy)) != 1:
            return None
        letter = STEP_LETTERS[(dy + 1) * 3 + dx + 1]
        cells[y * width + x] = letter if (x, y) in ends else letter.upper()
    return "".join(cells)


# What an option's form reads of the option (``combat/action_opt.html``): its cache key holds no more.
FORM_KEYS = (
    "kind",
    "label",
    "cost",
    "available",
    "reason",
    "params",
    "needs_target",
    "needs_square",
    "target_choices",
    "pick",
)
# The options' box: every form in it posts into the messages, for the actor, with the page's seq; one
# at a time (``hx-sync="this:drop"``): a second tap while one is on its way is dropped. htmx would
# otherwise queue it and send it once the first is answered, with the seq the push has just brought
# and, from battle.js, a new client token: a second action, with or without scripts.
OPTS_OPEN = (
    '<div class="opts" hx-target="#battle-messages" hx-include="#battle-seq" hx-sync="this:drop"'
    " hx-vals='{}'>"
)


def form_context(option: dict[str, Any], n: int, act: str) -> dict[str, Any]:
    """What the form of the ``n``-th option (from 1) receives: the same from one change to the next
    while the option is the same, whoever acts (no seq, no client token, no actor: the page adds
    them when it is sent, the actor from the options' box)."""
    return {
        "o": {k: option[k] for k in FORM_KEYS},
        "n": n,
        "act": act,
        "full": False,
        "oob": False,
    }


def option_form(ctx: dict[str, Any]) -> str:
    """One option's form, from the cache when an earlier change rendered the same."""
    try:
        return render.fragment(render.ACTION_OPT, ctx)
    except ValueError:  # a value no key holds: render it
        return render.render_one(render.ACTION_OPT, ctx)


def share_options(table: Table, ctx: dict[str, Any]) -> None:
    """The acting combatant's option forms (``opts_html``) for a viewer who acts for it.

    Pushed and HTMX renders: each form from the cache of pieces, keyed by what it shows, so the GM's
    panel and the acting player's, and the same option from one change to the next, render once. The
    page's first render (it has the CSRF token) posts without scripts too: its forms carry the CSRF
    field, the seq and a fresh client token each.

    With htmx and without battle.js a pushed form posts no client token: a fresh one per post needs
    code (an ``hx-vals`` "js:" expression is evaluated, which the CSP's script-src without
    'unsafe-eval' and htmx's ``allowEval: false`` forbid), and one rendered into the box would be
    sent again with the next, different action (the element pushes keep the box), which the token
    check would take for a repeat. A double tap stays single without it: the second post carries the
    page's seq, stale once the first is in, and the box drops it while the first is on its way.
    """
    acting = ctx.get("acting")
    if acting is None:
        return
    act = ctx["urls"]["act"]
    csrf = ctx.get("csrf_token")
    forms = []
    for n, option in enumerate(ctx["options"], start=1):
        form = form_context(option, n, act)
        if csrf:
            full = dict(form, full=True, csrf_token=csrf, seq=ctx["seq"], actor=acting.id)
            forms.append(render.render_one(render.ACTION_OPT, full))
        else:
            forms.append(option_form(form))
    box = format_html(OPTS_OPEN, tojson_single_quoted({"actor": acting.id}))
    ctx["opts_html"] = mark_safe(box + " ".join(forms) + "</div>")  # noqa: S308 - our template's output
