"""What to send to whom after a battle changes.

``combat.services`` calls ``battle_changed(battle_id, seq)`` once per commit.
It reads the battle once (snapshot, the latest log window, the members) and
renders each region of ``templates/combat/battle.html`` once per *visibility
class*: the GM view and the player view (``view_for``), plus each controlling
player's own regions. All of it travels as ONE group message to
``battle-<id>`` (one Redis publish per change: the pub/sub layer serialises
publishes, so eight of them cost eight round trips), and each consumer only
picks its bytes:

- ``gm``: board, tracker, log, GM panel, the GM's action panel and prompt;
- ``pl``: board, tracker, log as any player or observer may see them;
- ``users[<user id>]``: that player's own action panel, prompt and sheet.

A player's consumer never sends the ``gm`` part or another user's part.

The same context builders serve the first page render, the HTMX responses
and a reconnecting socket (``regions_for``).
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass, field
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.template.loader import get_template
from django.urls import reverse
from django.utils.safestring import SafeString, mark_safe

from combat.engine.core import Viewer, legal_actions, view_for
from combat.engine.rulesets import get_ruleset
from combat.engine.state import BattleState
from combat.models import Battle, BattleEvent
from combat.templatetags.battle_words import describe
from vtt.models import Membership

log = logging.getLogger(__name__)

GM, PLAYER = "gm", "player"
LOG_WINDOW = 30
TEMPLATE = "combat/battle.html"
# Regions (partial names) each message carries; every one is a top-level element with an id.
SHARED_REGIONS = ("board", "tracker", "log", "seqmark")
GM_REGIONS = (*SHARED_REGIONS, "gm", "actions", "prompt", "sheet")
USER_REGIONS = ("actions", "prompt", "sheet")
PUSH = "battle.push"
GM_QUICK = (("gm.skip_turn", "Skip this turn"),)
# (kind, label, fields) of the GM override forms; combat.forms parses the same fields.
GM_FORMS = (
    ("gm.set_hp", "Set HP", ("combatant", "hp")),
    ("gm.set_resource", "Set a resource", ("combatant", "resource")),
    ("gm.add_status", "Add a status", ("combatant", "status", "power")),
    ("gm.remove_status", "Remove a status", ("combatant", "status")),
    ("gm.move", "Move a token", ("combatant", "square")),
    ("gm.remove_combatant", "Remove a combatant", ("combatant",)),
    ("gm.end_battle", "End the battle", ("reason",)),
)


def battle_group(battle_id: int) -> str:
    """The group of every socket open on a battle."""
    return f"battle-{battle_id}"


def user_group(battle_id: int, user_id: Any) -> str:
    """The group of one user's sockets on a battle (their own panel, prompts, sheet)."""
    return f"battle-{battle_id}-u{user_id}"


def vclass_of(role: str) -> str:
    return "gm" if role == GM else "pl"


@dataclass
class Table:
    """Everything a render needs, read once per change."""

    battle: Battle
    state: BattleState
    events: list[tuple[int, str, dict[str, Any]]]  # newest first
    members: dict[str, tuple[str, str]]  # user id -> (role, username)
    _views: dict[Any, dict[str, Any]] = field(default_factory=dict)

    @property
    def hide_enemy_hp(self) -> bool:
        return bool(self.state.options.get("hide_enemy_hp", True))

    def view(self, role: str, user_id: str | None) -> dict[str, Any]:
        key = (role, user_id)
        if key not in self._views:
            self._views[key] = view_for(self.state, Viewer(role=role, user_id=user_id))
        return self._views[key]

    def controllers(self) -> set[str]:
        """Players (not GMs) who control a combatant: they get their own pushes."""
        return {
            c.controller
            for c in self.state.combatants.values()
            if c.controller is not None and self.members.get(c.controller, ("", ""))[0] == PLAYER
        }

    def name_of(self, user_id: str | None) -> str:
        if user_id is None:
            return "GM"
        return self.members.get(user_id, ("", "someone"))[1]


def load_table(battle_id: int, battle: Battle | None = None) -> Table | None:
    """Read a battle for rendering: three queries, whatever the log's length."""
    if battle is None:
        battle = Battle.objects.filter(pk=battle_id).first()
        if battle is None:
            return None
    rows = list(
        BattleEvent.objects.filter(battle_id=battle.pk)
        .order_by("-seq")
        .values_list("seq", "type", "data")[:LOG_WINDOW]
    )
    return Table(battle, BattleState.from_dict(battle.snapshot), rows, members_of(battle.campaign_id))


_members: dict[int, tuple[float, dict[str, tuple[str, str]]]] = {}
MEMBERS_TTL = 5.0  # seconds; a new member or role shows up on the table within this


def members_of(campaign_id: int) -> dict[str, tuple[str, str]]:
    """user id -> (role, username) of a campaign, cached briefly: every action of a table needs it.

    Only names and who gets a per-user push depend on it; access is checked
    on every request and socket against the database.
    """
    now = time.monotonic()
    hit = _members.get(campaign_id)
    if hit is not None and now - hit[0] < MEMBERS_TTL:
        return hit[1]
    members = {
        str(uid): (role, name)
        for uid, role, name in Membership.objects.filter(campaign_id=campaign_id).values_list(
            "user_id", "role", "user__username"
        )
    }
    if len(_members) > 10_000:
        _members.clear()
    _members[campaign_id] = (now, members)
    return members


# ---------------------------------------------------------------- fragments

# Rendered HTML of small pieces keyed by everything they show (a token, a log entry, the GM's
# forms): the same key always renders the same bytes, so the cache is safe in every process.
_fragments: dict[Any, SafeString] = {}
FRAGMENT_CACHE_SIZE = 20_000


def fragment(template: str, key: Any, ctx: dict[str, Any]) -> SafeString:
    full_key = (template, key)
    html = _fragments.get(full_key)
    if html is None:
        if len(_fragments) >= FRAGMENT_CACHE_SIZE:
            _fragments.clear()
        html = _fragments[full_key] = mark_safe(_template(template).render(ctx))  # noqa: S308 - our template
    return html


def log_entries(events: list[tuple[int, str, dict[str, Any]]], names: dict[str, str],
                hidden: set[str]) -> list[dict[str, Any]]:
    """Log entries (newest first) with their rendered HTML."""
    out = []
    for seq, etype, data in events:
        e = describe(seq, etype, data, names, hidden)
        if not e["text"] and not e["rolls"]:
            continue
        key = (seq, e["text"], tuple(tuple(r.values()) for r in e["rolls"]))
        e["html"] = fragment(f"{TEMPLATE}#log_entry", key, {"e": e})
        out.append(e)
    return out


_urls: dict[int, dict[str, str]] = {}


def battle_urls(battle_id: int) -> dict[str, str]:
    """The battle's endpoints (reversing costs more than rendering a region: kept per battle)."""
    urls = _urls.get(battle_id)
    if urls is None:
        if len(_urls) > 10_000:
            _urls.clear()
        urls = _urls[battle_id] = {
            name: reverse(f"battle_{name}", args=[battle_id]) for name in ("act", "start", "undo", "add", "log")
        }
    return urls


# ---------------------------------------------------------------- contexts


def _initials(name: str) -> str:
    words = [w for w in name.replace("-", " ").split() if w]
    if not words:
        return "?"
    if len(words) == 1:
        return words[0][:2].title()
    last = words[-1]
    return (words[0][0] + (last if last.isdigit() else last[0])).upper()[:3]


def _tokens(table: Table, view: dict[str, Any], viewer_id: str | None,
            only: set[str] | None = None) -> list[dict[str, Any]]:
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
        statuses = [
            {"name": name, "power": s.get("power"), "duration": s.get("duration")}
            for name, s in (c.get("statuses") or {}).items()
        ]
        name = c.get("name", cid)
        acting = current is not None and current.id == cid
        reacting = pending is not None and pending.combatant == cid
        pos = c.get("pos")
        label = f"{name}, {c.get('side', 'party')}"
        if hp is not None:
            label += f", HP {hp} of {max_hp}"
        elif pct is not None:
            label += f", health {c.get('hp_bucket') or str(pct) + '%'}"
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
            "classes": (" acting" if acting else "") + (" reacting" if reacting else "") + (" ko" if c.get("ko") else ""),
            "label": label,
            "mine": viewer_id is not None and controller == viewer_id,
            "resources": c.get("resources") or {},
        }
        key = (cid, name, token["side"], token["classes"], token["col"], token["line"], controller, label, pct,
               tuple(token["badges"]))
        token["html"] = fragment("combat/_token.html", key, {"t": token})
        row_key = (cid, name, token["side"], acting, token["alive"], token["ko"], controller, token["controller_name"])
        token["row_html"] = fragment(f"{TEMPLATE}#tracker_row", row_key, {"t": token})
        tokens.append(token)
    return tokens


def shared_context(table: Table, vclass: str) -> dict[str, Any]:
    """Board, tracker and log as one visibility class sees them."""
    state = table.state
    is_gm = vclass == "gm"
    view = table.view(GM if is_gm else PLAYER, None)
    tokens = _tokens(table, view, None)
    by_id = {t["id"]: t for t in tokens}
    order = [by_id[cid] for cid in state.order if cid in by_id]
    waiting = [t for t in tokens if t["id"] not in state.order]
    names = {cid: c.name for cid, c in state.combatants.items()}
    hidden = set()
    if not is_gm and table.hide_enemy_hp:
        hidden = {cid for cid, c in state.combatants.items() if c.side == "enemy"}
    entries = log_entries(table.events, names, hidden)
    ruleset = get_ruleset(state.ruleset)
    current = state.current()
    pending = state.pending
    connected_users = sorted({t["controller"] for t in tokens if t["controller"]} | {
        uid for uid, (role, _) in table.members.items() if role == GM
    })
    return {
        "battle": table.battle,
        "battle_id": table.battle.pk,
        "urls": battle_urls(table.battle.pk),
        "seq": table.battle.seq,
        "state": state,
        "phase": state.phase,
        "round": state.round,
        "ruleset": ruleset,
        "board_kind": ruleset.board,
        # Mist counts cardinal steps (MIST-RANGE-1); the others let a diagonal step count as one.
        "diagonal": state.options.get("grid_metric", "manhattan" if ruleset.key == "mist" else "chebyshev")
        == "chebyshev",
        "width": state.width,
        "height": state.height,
        "cols": range(state.width),
        "rows": range(state.height),
        "blocked": [list(b) for b in state.blocked],
        "tokens": tokens,
        "placed": [t for t in tokens if t["pos"] is not None and t["alive"]],
        "order": order,
        "waiting": waiting,
        "current": by_id.get(current.id) if current else None,
        # What a non-addressee may know of a reaction window: who decides and why, not the question.
        "pending": view.get("pending"),
        "pending_for": table.name_of(pending.controller) if pending else "",
        "result": state.result,
        "log": entries,
        "log_more": len(table.events) == LOG_WINDOW and table.events[-1][0] > 1,
        "log_oldest": table.events[-1][0] if table.events else 0,
        "is_gm": is_gm,
        "vclass": vclass,
        "presence_users": [(uid, table.name_of(uid)) for uid in connected_users],
        "rows_board": _rows(tokens) if ruleset.board == "rows" else None,
    }


def _rows(tokens: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A rows board: each side's front and back rows, enemies on top."""
    sides = []
    for side in ("enemy", "party"):
        rows = [("back", "Back row"), ("front", "Front row")] if side == "enemy" else [
            ("front", "Front row"), ("back", "Back row")]
        sides.append({
            "side": side,
            "rows": [
                {"key": key, "label": label,
                 "tokens": [t for t in tokens if t["side"] == side and t["row"] == key and t["alive"]]}
                for key, label in rows
            ],
        })
    return sides


def _option_dict(option: Any, state: BattleState, actor: Any) -> dict[str, Any]:
    d = option.to_dict()
    d["needs_target"] = bool(d["targets"])
    d["needs_square"] = bool(d["squares"]) and not d["targets"]
    d["target_choices"] = [
        (cid, state.combatants[cid].name) for cid in d["targets"] if cid in state.combatants
    ]
    # What battle.js needs to highlight targets, squares, an area's shape and preview a path.
    d["pick"] = {
        "kind": d["kind"],
        "targets": d["targets"],
        "squares": d["squares"],
        "from": actor.pos,
        "path": d["kind"] == "move",
        "area": _area_of(state, d["params"].get("ability")) if d["squares"] else 0,
    }
    return d


def _area_of(state: BattleState, ref: Any) -> int:
    """The radius of an area ability, from the content definitions (data, ENG-10), or 0."""
    if not isinstance(ref, str):
        return 0
    pack = getattr(get_ruleset(state.ruleset), "content", None) or {}
    custom = (state.extra.get("content") or {}).get("abilities") or {}
    definition = custom.get(ref) or (pack.get("abilities") or {}).get(ref) or {}
    area = definition.get("area", 0) if isinstance(definition, dict) else 0
    return area if isinstance(area, int) and 0 < area <= 20 else 0


def user_context(table: Table, user_id: str | None, is_gm: bool) -> dict[str, Any]:
    """One viewer's own regions: the action panel, the prompt, the sheet."""
    state = table.state
    current = state.current()
    acting = None
    options: list[dict[str, Any]] = []
    if current is not None and state.pending is None and (is_gm or current.controller == user_id):
        acting = current
        options = [_option_dict(o, state, current) for o in legal_actions(state, current.id)]
    pending = state.pending
    prompt = pending if pending is not None and (is_gm or pending.controller == user_id) else None
    mine = {cid for cid, c in state.combatants.items() if user_id is not None and c.controller == user_id}
    own = _tokens(table, table.view(GM if is_gm else PLAYER, None if is_gm else user_id), user_id, mine) if mine else []
    if own:
        schema = get_ruleset(state.ruleset).sheet_schema
        for t in own:
            sheet = state.combatants[t["id"]].sheet
            # The compact sheet: the numbers of the ruleset's schema (lists of abilities are the action panel).
            t["stats"] = [(f.label, sheet[f.key]) for f in schema if f.kind == "int" and f.key in sheet][:8]
    names = {cid: c.name for cid, c in state.combatants.items()}
    return {
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


def gm_context(table: Table) -> dict[str, Any]:
    """The GM panel: exact values of every combatant, and the override forms (cached by what they list)."""
    state = table.state
    statuses: set[str] = set()
    resources: set[str] = set()
    for c in state.combatants.values():
        statuses.update(c.statuses)
        resources.update(c.resources)
    ruleset = get_ruleset(state.ruleset)
    rows = []
    for cid, c in state.combatants.items():
        row = {"id": cid, "name": c.name, "hp": c.hp, "max_hp": c.max_hp, "pos": c.pos, "row": c.row,
               "statuses": sorted(c.statuses), "side": c.side}
        key = (cid, c.name, c.hp, c.max_hp, tuple(c.pos) if c.pos else None, c.row, tuple(row["statuses"]), c.side,
               ruleset.board)
        row["row_html"] = fragment(f"{TEMPLATE}#gm_row", key, {"c": row, "board_kind": ruleset.board})
        rows.append(row)
    ctx: dict[str, Any] = {
        "all_combatants": rows,
        "known_statuses": sorted(statuses | {"stun", "blind", "sleep", "slow", "silence", "disarm"}),
        "known_resources": sorted(resources),
        "gm_quick": GM_QUICK,
        "gm_forms": GM_FORMS,
        "urls": battle_urls(table.battle.pk),
        "width": state.width,
        "height": state.height,
    }
    key = (table.battle.pk, tuple((c["id"], c["name"]) for c in ctx["all_combatants"]), state.width, state.height,
           tuple(ctx["known_statuses"]), tuple(ctx["known_resources"]))
    ctx["gm_forms_html"] = fragment(f"{TEMPLATE}#gm_forms", key, ctx)
    return ctx


def context_for(table: Table, role: str, user_id: str | None) -> dict[str, Any]:
    """The full context of one viewer (first render, HTMX response, reconnect)."""
    is_gm = role == GM
    ctx = shared_context(table, vclass_of(role))
    ctx.update(user_context(table, user_id, is_gm))
    if is_gm:
        ctx.update(gm_context(table))
    ctx["role"] = role
    return ctx


# ---------------------------------------------------------------- rendering

_templates: dict[str, Any] = {}


def _template(name: str) -> Any:
    """A template ("combat/_token.html") or a partial of the battle page ("board")."""
    tpl = _templates.get(name)
    if tpl is None:
        tpl = _templates[name] = get_template(name if name.endswith(".html") or "#" in name else f"{TEMPLATE}#{name}")
    return tpl


def render(regions: tuple[str, ...], ctx: dict[str, Any]) -> str:
    """Concatenated regions; each is one element with an id, swapped out of band."""
    return "".join(_template(region).render(ctx) for region in regions)


def regions_for(table: Table, role: str, user_id: str | None) -> str:
    """Every region as this viewer sees it (a reconnecting socket, an HTMX response)."""
    ctx = context_for(table, role, user_id)
    regions = GM_REGIONS if role == GM else (*SHARED_REGIONS, *USER_REGIONS)
    return render(regions, ctx)


def message_for(table: Table) -> dict[str, Any]:
    """The group message of one change: one render per visibility class, one per controlling player."""
    gm_ctx = shared_context(table, "gm")
    gm_ctx.update(user_context(table, None, True))
    gm_ctx.update(gm_context(table))
    gm_ctx["role"] = GM
    pl_ctx = shared_context(table, "pl")
    pl_ctx["role"] = PLAYER
    users = {}
    for uid in sorted(table.controllers()):
        ctx = dict(pl_ctx)
        ctx.update(user_context(table, uid, False))
        users[uid] = render(USER_REGIONS, ctx)
    return {
        "type": PUSH,
        "seq": table.battle.seq,
        "gm": render(GM_REGIONS, gm_ctx),
        "pl": render(SHARED_REGIONS, pl_ctx),
        "users": users,
    }


async def _send(group: str, message: dict[str, Any]) -> None:
    layer = get_channel_layer()
    if layer is not None:
        await layer.group_send(group, message)


def battle_changed(battle_id: int, seq: int) -> None:
    """Services' on-commit hook: render the changed regions once per class and push them."""
    try:
        table = load_table(battle_id)
        if table is None:
            return
        message = message_for(table)
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            loop = None
        if loop is None:
            async_to_sync(_send)(battle_group(battle_id), message)
        else:  # called from a thread that runs an event loop: never block it
            loop.create_task(_send(battle_group(battle_id), message))
    except Exception:  # a failed push must never undo a committed action
        log.exception("live push for battle %s failed", battle_id)
