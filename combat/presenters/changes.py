"""A change pushed as the elements it touched, by id: htmx out-of-band swaps instead of whole regions.

What a change touched is read from its events (``touched``): every combatant they name (an actor, a
target, the combatant of a turn or a status, the one a reaction window waits for), and the new log
lines. Each visibility class gets, rendered once:

- the tokens and tracker rows of the combatants named (``tok-<id>``, ``trk-<id>``), the tracker's
  head (round, who acts, who must answer: ``tracker-head``), the new log lines added at the top of
  the log (``afterbegin:#log-entries``; newest first, as the page shows them) and the lines that left
  the log's window removed (``delete``), the "Older entries" link, the line by the board of what the
  action did (``outcome``), the seq mark;
- the GM: besides, the quick action of a monster's turn when it changed (``gm-tactics``), the GM's action panel
  (only the option forms that changed while the actor and its options are the same: ``_panel``) and
  prompt (a token's menu is not pushed: the page fetches it when it opens, ``gm.menu_html``);
- each controlling player: their action panel (as the GM's) when their turn begins, goes on or ends,
  or a reaction window opens or closes, their prompt, and their sheet when it shows a combatant the
  change named or a notice of the change before; a waiting panel's "Waiting for X's turn." takes the
  new name from the players' class part (``waiting-for``), one element for all of them.

Some changes alter the page's layout, not only its elements: a combatant added, removed, placed or
moved between rows, the turn order, the fog, a new phase. ``FULL_TYPES`` lists the events that do;
and the layout each class saw (which tokens stand on the board and in which order, the tracker's
order: ``layout``) is kept per battle and version, so a change whose layout differs
from the one of the version before it, or whose version before is not known here, is pushed whole
(``class_regions``), as are writes without events (an undo, a new map). A page that missed a change
(it sees a version other than the one a change applies to) asks for the whole table.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.utils.html import format_html

from combat.caches import LAYOUTS, SENT
from combat.engine.core import Viewer
from combat.engine.events import Event
from combat.engine.rulesets import get_ruleset
from combat.engine.view import unseen_ids
from combat.outcome import notices
from combat.presenters import actions, memo, outcome, prompt, render, sheet
from combat.presenters.actions import BETWEEN_TAGS
from combat.presenters.gm import tactics_label
from combat.presenters.log import class_teller, log_entries, log_memo
from combat.presenters.render import TOKEN, TRACKER_ROW, fragment, joined
from combat.presenters.tokens import class_token
from combat.presenters.tracker import chooser
from combat.snapshot import LOG_WINDOW, Table
from vtt.models import Role

ACT_RES = f"{render.TEMPLATE}#act_res"  # the acting combatant's resources line
GM_TACTICS = f"{render.TEMPLATE}#gm_tactics"  # the GM's quick action of a monster's turn

# Generic events that change the page's layout (or everything in it): their change is pushed whole. A
# ruleset's own events (a summoned combatant, a side that advances) are caught by the layout they leave.
FULL_TYPES = frozenset(
    {
        "battle.created",
        "battle.started",
        "battle.ended",
        "battle.extra",
        "combatant.added",
        "combatant.removed",
        "combatant.updated",
        "combatant.placed",
        "fog.changed",
        "house_rule.changed",
        "initiative.rolled",
        "initiative.rolloff",
        "order.set",
        "row.changed",
    }
)


def touched(events: Iterable[Event], combatants: Iterable[str]) -> set[str]:
    """Every combatant the events name, in any field (a status's target, a decision's combatant...)."""
    ids = set(combatants)
    out: set[str] = set()

    def walk(value: Any) -> None:
        if isinstance(value, str):
            if value in ids:
                out.add(value)
        elif isinstance(value, dict):
            for v in value.values():
                walk(v)
        elif isinstance(value, list | tuple):
            for v in value:
                walk(v)

    for event in events:
        walk(event.data)
    return out


def layout(table: Table, vclass: str) -> tuple[Any, ...]:
    """What a class's page holds besides the elements' own content: which tokens stand on the board and
    where a rows board keeps them, the tracker's order and who is at the table, the GM's rows, the fog."""
    state = table.state
    view = memo.class_view(table, vclass)
    seen = view.get("combatants", {})
    if state.width and get_ruleset(state.ruleset).board == "grid":
        board = tuple(cid for cid, c in seen.items() if c.get("alive", True) and c.get("pos") is not None)
    else:
        board = tuple((cid, c.get("side"), c.get("row")) for cid, c in seen.items() if c.get("alive", True))
    order = tuple(cid for cid in state.order if cid in seen) + tuple(
        cid for cid in seen if cid not in state.order
    )
    at_table = {c.controller for cid, c in state.combatants.items() if cid in seen and c.controller}
    at_table |= {uid for uid, (role, _) in table.members.items() if role == Role.GM}
    people = tuple((uid, table.name_of(uid)) for uid in sorted(at_table))
    gm_ids = tuple(state.combatants) if vclass == "gm" else ()
    fog = tuple(view.get("fog") or ())
    return (state.phase, board, order, people, gm_ids, fog, len(view.get("blocked") or ()))


def turn_of(table: Table, vclass: str) -> tuple[Any, ...]:
    """Where the battle stands as the tracker's head says it to a class: the round, who acts, the
    reaction window it sees, the result. A change of it sends the head and every viewer's own panel."""
    state = table.state
    current = state.acting()
    return (
        state.round,
        current.id if current is not None else None,
        repr(memo.class_view(table, vclass).get("pending")),
        repr(state.result),
    )


def remember(table: Table) -> None:
    """Keep each class's layout and turn as the whole table shows them, at this version (the next
    change compares with them)."""
    battle = table.battle
    for vclass in ("gm", "pl"):
        LAYOUTS[(battle.pk, vclass)] = (battle.version, layout(table, vclass), turn_of(table, vclass))
    for part in ("gm", "pl"):
        SENT[(battle.pk, part)] = (battle.version, {})  # the whole table: every piece as rendered now


def _marker(base: int, version: int) -> str:
    """What a delta frame starts with: the version it applies to and the one it brings (battle.js reads
    it; a comment is no element, so htmx swaps nothing for it)."""
    return format_html("<!--delta {} {}-->", base, version)


def _token(table: Table, vclass: str, cid: str) -> dict[str, Any] | None:
    c = memo.class_view(table, vclass).get("combatants", {}).get(cid)
    return None if c is None else class_token(table, vclass, cid, c)


def _log(table: Table, vclass: str, new: int) -> str | None:
    """The new lines at the top of the log and the lines that left its window removed; None when the
    lines before are not known here, or the "Older entries" link appears (the whole log then goes)."""
    seq = table.battle.seq
    before = seq - new
    if (before > LOG_WINDOW) != (seq > LOG_WINDOW):
        return None  # the "Older entries" link appears
    teller = class_teller(table, vclass)
    memo = log_memo(table.battle.pk, vclass, teller)
    first_before = max(1, before - LOG_WINDOW + 1)
    first_now = max(1, seq - LOG_WINDOW + 1)
    window_before = range(first_before, before + 1)
    if any(s not in memo for s in window_before):
        return None
    gone = [s for s in range(first_before, first_now) if memo[s][1] is not None]
    entries = log_entries(table.events, teller, memo)
    fresh = [e["html"] for e in entries if e["seq"] > before]
    # The lines that left the window, in one element: htmx deletes every element its selector names.
    out = format_html('<i hx-swap-oob="delete:{}"></i>', ",".join(f"#log-{s}" for s in gone)) if gone else ""
    if fresh:
        out += format_html('<ol hx-swap-oob="afterbegin:#log-entries">{}</ol>', joined(fresh))
    return out


def _shared(
    table: Table,
    vclass: str,
    frame: dict[str, Any],
    named: set[str],
    shape: tuple[Any, ...],
    new: int,
    turned: bool,
    sent: dict[str, bytes],
) -> str | None:
    """The tracker's head (when the turn changed), named tokens and rows, the log's new lines, as
    ``vclass`` sees them."""
    state = table.state
    log_html = _log(table, vclass, new)
    if log_html is None:
        return None
    on_board = {entry if isinstance(entry, str) else entry[0] for entry in shape[1]}
    parts = []
    current = state.acting()
    head = (
        {}
        if not turned
        else dict(
            frame,
            oob=True,
            current=_token(table, vclass, current.id) if current is not None else None,
            next_up=_token(table, vclass, memo.class_view(table, vclass).get("next") or ""),
            pending=memo.class_view(table, vclass).get("pending"),
            pending_for=chooser(table, vclass),
            result=state.result,
        )
    )
    if turned:
        parts.append(render.render_one("tracker_head", head))
        if vclass == "pl":  # every player's panel names whose turn it is in this one element
            name = actions.acting_name(state, unseen_ids(state, Viewer(role=Role.PLAYER)))
            parts.append(format_html('<span id="waiting-for" hx-swap-oob="innerHTML">{}</span>', name))
    for cid in sorted(named):
        t = _token(table, vclass, cid)
        if t is None:
            continue
        if cid in on_board:
            parts.append(_piece(sent, f"tok-{cid}", TOKEN, {"t": t["on_board"], "oob": True}))
        for n in range(shape[2].count(cid)):
            parts.append(
                _piece(sent, f"trk-{cid}-{n}", TRACKER_ROW, {"t": t["in_tracker"], "oob": True, "n": n})
            )
    parts.append(log_html)
    parts.append(outcome.piece(table, vclass))
    return "".join(parts)


def _sent(table: Table, vclass: str) -> dict[str, bytes]:
    """What this class's page shows of the pieces pushed since its last whole table (element id ->
    the key of the context it was rendered from), carried to this change's version."""
    battle = table.battle
    before = SENT.get((battle.pk, vclass))
    known = before[1] if before is not None and before[0] == battle.version - 1 else {}
    SENT[(battle.pk, vclass)] = (battle.version, known)
    return known


def _piece(sent: dict[str, bytes], ident: str, template: str, ctx: dict[str, Any]) -> str:
    """A piece the change's events name, unless the page shows it from the very same context already
    (a combatant named by an attack that missed: its token is what it was)."""
    key = render.freeze(ctx)
    if sent.get(ident) == key:
        return ""
    sent[ident] = key
    return fragment(template, ctx)


def _own(
    table: Table,
    frame: dict[str, Any],
    uid: str | None,
    is_gm: bool,
    named: set[str],
    new: int,
    turned: bool,
    asked: bool,
    before: str | None = None,
) -> str:
    """A viewer's own regions the change touched: the action panel and prompt of whoever acts or
    answers now, and of whoever acted before (``before``: the combatant who acted at the version
    before); a player's sheet when it shows a combatant the change named, or a notice of the change
    before."""
    from combat.presenters import render_own

    state = table.state
    regions: list[str] = []
    if is_gm:
        regions = ["actions", "prompt"] if asked or state.pending is not None else ["actions"]
    else:
        mine = sheet.controlled(table, uid)
        current, pending = state.current(), state.pending
        # A player's panel changes when their turn begins or ends, or a reaction window opens or
        # closes; a waiting panel's name of whose turn it is comes with the class's part
        # (``_shared``), unless this player sees the table from another side than the party's.
        own_side = all(state.combatants[cid].side == "party" for cid in mine)
        if (
            (current is not None and current.id in mine)
            or before in mine
            or (turned and (asked or not own_side or (current is None) != (before is None)))
        ):
            regions.append("actions")
        if asked or (pending is not None and pending.combatant in mine):
            regions.append("prompt")
        if mine & named or (mine and notices(table.events[new:], mine, sheet.teller(table, uid))):
            regions.append("sheet")
    if not regions:
        return ""
    ctx = dict(frame)
    if "actions" in regions or "prompt" in regions:
        ctx.update(actions.context(table, uid, is_gm))
        ctx.update(prompt.context(table, uid, is_gm))
    if "sheet" in regions:
        ctx.update(sheet.context(table, uid, is_gm))
    panel = ""
    if "actions" in regions and ctx["acting"] is not None:
        regions.remove("actions")
        panel = _panel(table, ctx, "gm-acts" if is_gm else f"acts-{uid}")
    return panel + render_own(tuple(regions), ctx)


def _names(table: Table) -> dict[str, str]:
    """Every combatant's name, once per change."""
    return memo.once(table, "names", lambda: {cid: c.name for cid, c in table.state.combatants.items()})


def _panel(table: Table, ctx: dict[str, Any], part: str) -> str:
    """The action panel of a viewer who acts: while it shows the same actor and the same options (by
    label) as the page, only the option forms and the resources line whose render changed; else the
    whole panel."""
    from combat.presenters import render_own

    acting, options = ctx["acting"], ctx["options"]
    shape = (
        acting.id,
        acting.name,
        ctx["acting_mine"],
        ctx["round"],
        bool(acting.resources),
        tuple((o["kind"], o["label"]) for o in options),
        ctx.get("turn_left", ""),
    )
    sent = _sent(table, part)
    act = ctx["urls"]["act"]
    res = {"acting": {"resources": dict(acting.resources)}, "oob": True}

    def made() -> tuple[list[dict[str, Any]], dict[str, bytes] | None]:
        """The forms and their keys, once per change for the GM's panel and the acting player's (the
        same options list: ``options_for``'s, held by the table)."""
        forms = [actions.form_context(o, n, act) for n, o in enumerate(options, start=1)]
        try:
            keys = {f"opt-{n}": render.freeze(dict(f, oob=True)) for n, f in enumerate(forms, start=1)}
            keys["act-res"] = render.freeze(res)
        except ValueError:  # a value no key holds
            return forms, None
        return forms, keys

    forms, known = memo.once(table, ("forms", acting.id, id(options), act), made)
    if known is None:  # the whole panel, and nothing known of it
        sent.clear()
        actions.share_options(table, ctx)
        return render_own(("actions",), ctx)
    keys = dict(known)
    if sent.get("actions") != repr(shape).encode():
        sent.clear()
        sent.update(keys, actions=repr(shape).encode())
        actions.share_options(table, ctx)
        return render_own(("actions",), ctx)
    out: list[str] = []
    if acting.resources and sent.get("act-res") != keys["act-res"]:
        out.append(render.fragment(ACT_RES, res))
    for n, f in enumerate(forms, start=1):
        if sent.get(f"opt-{n}") != keys[f"opt-{n}"]:
            out.append(actions.option_form(dict(f, oob=True)))
    sent.update(keys)
    return " ".join(out)


def delta(table: Table, events: list[Event]) -> dict[str, Any] | None:
    """The elements a change touched, per class and per controlling player; None when it goes whole."""
    from combat.presenters import frame as frame_of

    battle, state = table.battle, table.state
    if state.phase != "active" or any(e.type in FULL_TYPES for e in events):
        return None
    layouts = {vclass: layout(table, vclass) for vclass in ("gm", "pl")}
    turns = {vclass: turn_of(table, vclass) for vclass in ("gm", "pl")}
    turned, asked, acted = {}, {}, {}
    for vclass, shape in layouts.items():
        before = LAYOUTS.get((battle.pk, vclass))
        if before is None or before[:2] != (battle.version - 1, shape):
            return None
        turned[vclass] = before[2] != turns[vclass]
        asked[vclass] = before[2][2] != turns[vclass][2]  # the reaction window
        acted[vclass] = before[2][1]  # who acted at the version before
    named = touched(events, state.combatants)
    new = len(events)
    gm_frame = frame_of(table, "gm")
    pl_frame = frame_of(table, "pl")
    gm_sent = _sent(table, "gm")
    gm_shared = _shared(table, "gm", gm_frame, named, layouts["gm"], new, turned["gm"], gm_sent)
    pl_shared = _shared(table, "pl", pl_frame, named, layouts["pl"], new, turned["pl"], _sent(table, "pl"))
    if gm_shared is None or pl_shared is None:
        return None
    for vclass, shape in layouts.items():
        LAYOUTS[(battle.pk, vclass)] = (battle.version, shape, turns[vclass])
    marker = _marker(battle.version - 1, battle.version)
    # The GM panel: the quick action of a monster's turn, when it changed (the others never change).
    tactics = {"gm_tactics": tactics_label(state), "urls": {"act": gm_frame["urls"]["act"]}, "oob": True}
    gm_panel = _piece(gm_sent, "gm-tactics", GM_TACTICS, tactics)
    gm_own = _own(table, dict(gm_frame, role=Role.GM), None, True, named, new, turned["gm"], asked["gm"])
    users = {
        uid: tight(
            _own(
                table,
                dict(pl_frame, role=Role.PLAYER),
                uid,
                False,
                named,
                new,
                turned["pl"],
                asked["pl"],
                acted["pl"],
            )
        )
        for uid in sorted(table.controllers())
    }
    mark = seqmark(battle.seq, battle.version)
    return {
        "base": battle.version - 1,
        "gm": marker + tight(gm_shared + gm_panel + gm_own) + mark,
        "pl": marker + tight(pl_shared) + mark,
        "users": users,
    }


# The page's seq mark (the ``seqmark`` partial of combat/battle.html), written out: every change
# pushes it to both classes, and a template render of it cost as much as a token's.
SEQMARK = (
    '<input type="hidden" id="battle-seq" hx-swap-oob="true" data-seq="{}" data-version="{}" '
    'name="page_seq" value="{}">'
)


def seqmark(seq: int, version: int) -> str:
    """The seq mark as the ``seqmark`` partial renders it (a test holds both the same)."""
    return format_html(SEQMARK, seq, version, seq)


def tight(html: str) -> str:
    """Indentation between two tags as one space: what a browser shows is the same (no pushed element
    is preformatted, and attribute values hold no ">": they are escaped)."""
    return BETWEEN_TAGS.sub("> <", html)
