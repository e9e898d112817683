"""What each region of the battle page shows to a viewer: the presenters.

Used alike by the first page render and the HTMX responses
(``combat.views``), a (re)connecting socket (``combat.consumers``) and the
live push (``combat.live``, which only decides who gets which rendered
region and sends it). A viewer sees the battle through a *visibility
class*: ``gm`` (exact values) or ``pl`` (what any player or observer may
see, ``view_for``), plus a player's own regions (action panel, prompt,
sheet). ``class_regions`` renders a change once per class and once per
controlling player; ``regions_for`` renders everything one viewer sees.

Caches (cachetools, per process; ``clear_caches`` empties them):

- ``FRAGMENTS`` (LRU, 20,000 entries): the HTML of small pieces (a token, a
  tracker row, a log entry, a GM row, the GM's forms) keyed by everything
  they show, so a key always renders the same bytes on every process;
- ``MEMBERS`` (TTL 5 s, 10,000 campaigns): user id -> (role, name); only
  names and who gets a per-user push depend on it, access is checked
  elsewhere on every request and socket;
- ``FACES`` (TTL 5 s, 10,000 campaigns): character id -> token picture URL
  (``forget_faces`` drops a campaign's at once when a portrait changes);
- ``WINDOWS`` (LRU, 2,000 battles): the newest ``LOG_WINDOW`` events of a
  battle, so the push after a write reads nothing (see ``load_table``);
- ``LOGS`` (LRU, 4,000 battle and class pairs): the described entries of a battle's log window
  (``_log_memo``), so a change describes only its new events;
- ``URLS`` (LRU, 10,000 battles) and ``TEMPLATES`` (LRU, 256): reversed
  endpoints and compiled partials.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from cachetools import LRUCache, TTLCache
from django.template import Context, engines
from django.template.loader import get_template
from django.urls import reverse
from django.utils.safestring import SafeString, mark_safe

from combat.engine.actions import ActionOption
from combat.engine.core import Viewer, legal_actions, view_for
from combat.engine.events import Event
from combat.engine.log import describe
from combat.engine.rulesets import get_ruleset
from combat.engine.rulesets.base import Ruleset, status_name
from combat.engine.state import BattleState, Combatant
from combat.engine.view import filter_event, hidden_ids
from combat.models import Battle, BattleEvent
from combat.outcome import notices
from combat.templatetags.battle_tags import TOKEN_SLOT, fresh_token_values
from vtt.models import Character, Membership, media_url

GM, PLAYER = "gm", "player"
LOG_WINDOW = 30
TEMPLATE = "combat/battle.html"
# The pieces rendered on every change that alters them, as Jinja2 templates (``combat.jinja``).
TOKEN, TRACKER_ROW, GM_ROW, LOG_ENTRY, ACTION_OPTS = (
    f"combat/{name}.html" for name in ("token", "tracker_row", "gm_row", "log_entry", "action_opts")
)
JINJA = frozenset({TOKEN, TRACKER_ROW, GM_ROW, LOG_ENTRY, ACTION_OPTS})
# Regions (partial names) each message carries; every one is a top-level element with an id.
SHARED_REGIONS = ("board", "tracker", "log", "seqmark")
GM_REGIONS = (*SHARED_REGIONS, "gm", "actions", "prompt", "sheet")
USER_REGIONS = ("actions", "prompt", "sheet")
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

FRAGMENTS: LRUCache[Any, SafeString] = LRUCache(maxsize=20_000)
MEMBERS: TTLCache[int, dict[str, tuple[str, str]]] = TTLCache(maxsize=10_000, ttl=5.0)
FACES: TTLCache[int, dict[int, str]] = TTLCache(maxsize=10_000, ttl=5.0)
WINDOWS: LRUCache[int, tuple[int, int, list[tuple[int, str, dict[str, Any]]]]] = LRUCache(maxsize=2_000)
URLS: LRUCache[int, dict[str, str]] = LRUCache(maxsize=10_000)
LOGS: LRUCache[tuple[int, str], tuple[dict[str, str], frozenset[str], dict[int, Any]]] = LRUCache(
    maxsize=4_000
)
TEMPLATES: LRUCache[str, Any] = LRUCache(maxsize=256)


def clear_caches() -> None:
    """Empty every cache of this module (tests: database ids repeat)."""
    for cache in (FRAGMENTS, MEMBERS, FACES, WINDOWS, URLS, TEMPLATES, LOGS):
        cache.clear()


def vclass_of(role: str) -> str:
    """The visibility class of a role: "gm" or "pl" (players and observers)."""
    return "gm" if role == GM else "pl"


@dataclass
class Table:
    """Everything a render needs, read once per change."""

    battle: Battle
    state: BattleState
    events: list[tuple[int, str, dict[str, Any]]]  # newest first
    members: dict[str, tuple[str, str]]  # user id -> (role, username)
    faces: dict[int, str] = field(default_factory=dict)  # character id -> token picture URL
    _views: dict[Any, dict[str, Any]] = field(default_factory=dict)
    _options: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    _opts_html: dict[Any, str] = field(default_factory=dict)

    @property
    def hide_enemy_hp(self) -> bool:
        return bool(self.state.options.get("hide_enemy_hp", True))

    def view(self, role: str, user_id: str | None, only: frozenset[str] | None = None) -> dict[str, Any]:
        """What ``role``/``user_id`` sees (of the combatants ``only``, when given), computed once."""
        key = (role, user_id, only)
        if key not in self._views:
            self._views[key] = view_for(self.state, Viewer(role=role, user_id=user_id), only)
        return self._views[key]

    def options_for(self, combatant: Any) -> list[dict[str, Any]]:
        """The acting combatant's options, computed once per change (the GM's and its player's panels show the same)."""
        options = self._options.get(combatant.id)
        if options is None:
            options = self._options[combatant.id] = [
                _option_dict(o, self.state, combatant) for o in legal_actions(self.state, combatant.id)
            ]
        return options

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


def load_table(
    battle_id: int,
    battle: Battle | None = None,
    *,
    state: BattleState | None = None,
    new_events: list[Event] | None = None,
) -> Table | None:
    """A battle ready to render.

    From the database: the battle row (unless given), the latest ``LOG_WINDOW``
    events, the members and token pictures (cached). After a write the
    service passes what it holds: the row it locked and updated, the state
    after the action and the events it appended; the log window then comes
    from ``WINDOWS`` (this process's previous window plus the new events) and
    nothing is read, unless another process wrote in between (the window's
    version does not join on).
    """
    if battle is None:
        battle = Battle.objects.select_related("map").filter(pk=battle_id).first()
        if battle is None:
            return None
    rows = _window(battle, new_events)
    if state is None:
        state = BattleState.from_dict(battle.snapshot)
    return Table(battle, state, rows, members_of(battle.campaign_id), faces_of(battle.campaign_id))


def _window(battle: Battle, new_events: list[Event] | None) -> list[tuple[int, str, dict[str, Any]]]:
    """The newest ``LOG_WINDOW`` events (newest first), read only when this process's copy is behind.

    The copy is keyed by the battle's version, not its seq: after an undo on another process and a
    new action, the seq can be back where this copy was taken with other events behind it.
    """
    seq, version = battle.seq, battle.version
    cached = WINDOWS.get(battle.pk)
    if cached is not None and cached[0] == version and cached[1] == seq:
        return cached[2]
    if new_events and cached is not None and cached[0] == version - 1 and cached[1] == seq - len(new_events):
        first = seq - len(new_events) + 1
        # The stored form (JSON): what a read of the rows would give.
        fresh = [(first + i, e.type, json.loads(json.dumps(e.data))) for i, e in enumerate(new_events)]
        rows = (fresh[::-1] + cached[2])[:LOG_WINDOW]
    else:
        rows = list(
            BattleEvent.objects.filter(battle_id=battle.pk)
            .order_by("-seq")
            .values_list("seq", "type", "data")[:LOG_WINDOW]
        )
    WINDOWS[battle.pk] = (version, seq, rows)
    return rows


def members_of(campaign_id: int) -> dict[str, tuple[str, str]]:
    """user id -> (role, username) of a campaign, cached briefly: every action of a table needs it.

    Only names and who gets a per-user push depend on it; access is checked
    on every request and socket against the database.
    """
    members = MEMBERS.get(campaign_id)
    if members is None:
        members = MEMBERS[campaign_id] = {
            str(uid): (role, name)
            for uid, role, name in Membership.objects.filter(campaign_id=campaign_id).values_list(
                "user_id", "role", "user__username"
            )
        }
    return members


def faces_of(campaign_id: int) -> dict[int, str]:
    """character id -> URL of its round token picture, cached like ``members_of``.

    ``forget_faces`` drops the entry when a portrait changes in this process; other
    processes show the new picture within the cache's 5 s.
    """
    faces: dict[int, str] | None = FACES.get(campaign_id)
    if faces is not None:
        return faces
    faces = FACES[campaign_id] = {
        pk: media_url(name)
        for pk, name in Character.objects.filter(campaign_id=campaign_id)
        .exclude(portrait_token="")
        .values_list("pk", "portrait_token")
    }
    return faces


def forget_faces(campaign_id: int) -> None:
    FACES.pop(campaign_id, None)


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


def _map_context(battle: Battle, width: int, height: int) -> dict[str, Any] | None:
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


# ---------------------------------------------------------------- fragments


def fragment(template: str, key: Any, ctx: dict[str, Any]) -> SafeString:
    """The HTML of a small piece, rendered once per key (the key is everything the piece shows)."""
    full_key = (template, key)
    html: SafeString | None = FRAGMENTS.get(full_key)
    if html is None:
        html = FRAGMENTS[full_key] = mark_safe(render_one(template, ctx))  # noqa: S308 - our template
    return html


def log_entries(
    events: list[tuple[int, str, dict[str, Any]]],
    names: dict[str, str],
    hidden: frozenset[str] | set[str],
    memo: dict[int, tuple[dict[str, Any], dict[str, Any] | None]] | None = None,
) -> list[dict[str, Any]]:
    """Log entries (newest first) with their rendered HTML; ``hidden`` from the engine's ``hidden_ids``.

    ``memo`` (from ``_log_memo``): the entries of the same event rows described before with the
    same names and hidden combatants, by the row's data object (held, so its id is not reused).
    """
    out = []
    kept: dict[int, tuple[dict[str, Any], dict[str, Any] | None]] = {}
    for seq, etype, data in events:
        hit = memo.get(id(data)) if memo is not None else None
        if hit is not None and hit[0] is data:
            e = hit[1]
        else:
            e = describe(seq, etype, filter_event(etype, data, hidden), names, hidden)
            if not e["text"] and not e["rolls"]:
                e = None
            else:
                key = (seq, e["text"], tuple(tuple(r.values()) for r in e["rolls"]))
                e["html"] = fragment(LOG_ENTRY, key, {"e": e})
        kept[id(data)] = (data, e)
        if e is not None:
            out.append(e)
    if memo is not None:
        memo.clear()
        memo.update(kept)
    return out


def _log_memo(
    battle_id: int, vclass: str, names: dict[str, str], hidden: frozenset[str] | set[str]
) -> dict[int, tuple[dict[str, Any], dict[str, Any] | None]]:
    """The described entries of a battle's log window for one class, while names and hidden hold.

    The window's rows (``WINDOWS``) keep their data objects from one change to the next, so after a
    change only the new events are described; a re-read window (another process wrote, an undo)
    brings new objects, and they are described anew.
    """
    cached = LOGS.get((battle_id, vclass))
    if cached is None or cached[0] != names or cached[1] != hidden:
        cached = LOGS[(battle_id, vclass)] = (dict(names), frozenset(hidden), {})
    return cached[2]


def battle_urls(battle_id: int) -> dict[str, str]:
    """The battle's endpoints (reversing costs more than rendering a region: kept per battle)."""
    urls: dict[str, str] | None = URLS.get(battle_id)
    if urls is None:
        urls = URLS[battle_id] = {
            name: reverse(f"battle_{name}", args=[battle_id])
            for name in ("act", "start", "undo", "add", "log")
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


def _tokens(
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
    hidden = hidden_ids(state, Viewer(role=GM if is_gm else PLAYER))
    entries = log_entries(table.events, names, hidden, _log_memo(table.battle.pk, vclass, names, hidden))
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
        "rows_board": _rows(tokens) if ruleset.board == "rows" else None,
        "map": _map_context(table.battle, state.width, state.height),
        "col_names": [square_name(x, 0)[:-1] for x in range(state.width)],
    }


def _rows(tokens: list[dict[str, Any]]) -> list[dict[str, Any]]:
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


def _option_dict(option: ActionOption, state: BattleState, actor: Combatant) -> dict[str, Any]:
    # The option's own lists, not ``to_dict``'s copies: a render only reads them, and the options
    # are made anew for every change (copying a move's paths was ~3 % of an action's CPU).
    d: dict[str, Any] = {
        "kind": option.kind,
        "label": option.label,
        "cost": option.cost,
        "targets": option.targets,
        "squares": option.squares,
        "available": option.available,
        "reason": option.reason,
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
    return d


def user_context(table: Table, user_id: str | None, is_gm: bool) -> dict[str, Any]:
    """One viewer's own regions: the action panel, the prompt, the sheet."""
    state = table.state
    current = state.current()
    acting = None
    options: list[dict[str, Any]] = []
    if current is not None and state.pending is None and (is_gm or current.controller == user_id):
        acting = current
        options = table.options_for(current)
    pending = state.pending
    prompt = pending if pending is not None and (is_gm or pending.controller == user_id) else None
    mine = frozenset(
        cid for cid, c in state.combatants.items() if user_id is not None and c.controller == user_id
    )
    own = (
        _tokens(
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
        row: dict[str, Any] = {
            "id": cid,
            "name": c.name,
            "hp": c.hp,
            "max_hp": c.max_hp,
            "pos": c.pos,
            "row": c.row,
            "statuses": sorted(c.statuses),
            "side": c.side,
        }
        key = (
            cid,
            c.name,
            c.hp,
            c.max_hp,
            tuple(c.pos) if c.pos else None,
            c.row,
            tuple(row["statuses"]),
            c.side,
            ruleset.board,
        )
        row["row_html"] = fragment(GM_ROW, key, {"c": row, "board_kind": ruleset.board})
        rows.append(row)
    ctx: dict[str, Any] = {
        "all_combatants": rows,
        "gm_rows_html": mark_safe("".join(r["row_html"] for r in rows)),  # noqa: S308 - our fragments
        "known_statuses": sorted(statuses | (ruleset.status_keys(state) or set())),
        "status_choices": _status_choices(ruleset, state, statuses),
        "known_resources": sorted(resources),
        "gm_quick": GM_QUICK,
        "gm_forms": GM_FORMS,
        "urls": battle_urls(table.battle.pk),
        "width": state.width,
        "height": state.height,
    }
    forms_key = (
        table.battle.pk,
        tuple((c["id"], c["name"]) for c in ctx["all_combatants"]),
        state.width,
        state.height,
        tuple(ctx["known_statuses"]),
        tuple(ctx["known_resources"]),
        tuple(ctx["status_choices"]),
    )
    ctx["gm_forms_html"] = fragment(f"{TEMPLATE}#gm_forms", forms_key, ctx)
    return ctx


def _status_choices(ruleset: type[Ruleset], state: BattleState, present: set[str]) -> list[tuple[str, str]]:
    """(key, name) of every status the GM may give: the ruleset's (and the battle's content), by name."""
    keys = ruleset.status_keys(state) or set()
    return sorted(((k, status_name(state, k)) for k in keys | present), key=lambda kv: kv[1])


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


# ---------------------------------------------------------------- rendering


def _template(name: str) -> Any:
    """A Jinja2 piece (``JINJA``), a template ("combat/x.html") or a partial of the battle page ("board")."""
    tpl = TEMPLATES.get(name)
    if tpl is None:
        if name in JINJA:
            tpl = TEMPLATES[name] = engines["jinja2"].env.get_template(name)  # type: ignore[attr-defined]
        else:
            tpl = TEMPLATES[name] = get_template(
                name if name.endswith(".html") or "#" in name else f"{TEMPLATE}#{name}"
            )
    return tpl


def render_one(name: str, ctx: dict[str, Any]) -> str:
    """One template or partial, with localisation off: a number renders as ``str(n)``.

    That is what the en-us locale without thousand separators renders too (a test holds it),
    without Django's per-number format lookup (``number_format`` asks the active language of
    the thread every time: ~100 numbers per change, ~10-30 us each, a few ms per action).
    Jinja2 pieces render numbers as ``str(n)`` anyway.
    """
    tpl = _template(name)
    if name in JINJA:
        out: str = tpl.render(ctx)
        return out
    html: str = tpl.template.render(Context(ctx, autoescape=tpl.backend.engine.autoescape, use_l10n=False))
    return html


def render(regions: tuple[str, ...], ctx: dict[str, Any]) -> str:
    """Concatenated regions; each is one element with an id, swapped out of band."""
    return "".join(render_one(region, ctx) for region in regions)


def _own_region_key(region: str, ctx: dict[str, Any]) -> Any:
    """What a viewer's own region shows, as a cache key; None when it must render (it holds a form).

    Forms carry the battle's seq and a fresh client token, so an action panel with options and a
    prompt with a question always render. Everything else a player's own regions show is in the key
    (``tests/engine/test_push_renders.py`` renders both ways in random battles and compares): most
    changes are someone else's turn, and a waiting player's panel, empty prompt and unchanged sheet
    are then cache hits instead of three renders.
    """
    if region == "actions":
        if ctx["acting"] is not None or ctx["is_gm"]:
            return None
        return (ctx["phase"], bool(ctx["has_combatant"]), ctx["current_name"])
    if region == "prompt":
        return None if ctx["prompt"] is not None else ()
    if region == "sheet":
        return (
            tuple((n["seq"], n["text"]) for n in ctx["notices"]),
            tuple(
                (
                    t["name"],
                    t["hp"],
                    t["max_hp"],
                    tuple(t["resources"].items()),
                    tuple(t.get("stats") or ()),
                    tuple((s["name"], s["power"], s["duration"]) for s in t["statuses"]),
                )
                for t in ctx["own"]
            ),
        )
    return None


def fresh_tokens(html: str) -> str:
    """A shared render's forms, each with a fresh client token of its own."""
    parts = html.split(TOKEN_SLOT)
    out = [parts[0]]
    for token, part in zip(fresh_token_values(len(parts) - 1), parts[1:], strict=True):
        out += (token, part)
    return "".join(out)


def share_options(table: Table, ctx: dict[str, Any]) -> None:
    """The acting combatant's option forms, rendered once per change for every viewer who acts for it.

    The GM's action panel and the acting player's show the same forms (same options, actor and
    seq); they are rendered once with token slots, and each viewer's copy gets fresh tokens.
    """
    acting = ctx.get("acting")
    if acting is None:
        return
    key = (acting.id, ctx["seq"], ctx.get("csrf_token"))
    html = table._opts_html.get(key)
    if html is None:
        html = table._opts_html[key] = render_one(ACTION_OPTS, {**ctx, "client_token_slot": True})
    ctx["opts_html"] = mark_safe(fresh_tokens(html))  # noqa: S308 - our template's output


def render_own(regions: tuple[str, ...], ctx: dict[str, Any]) -> str:
    """Like ``render``, with a viewer's own regions taken from the cache when they hold no form."""
    out = []
    for region in regions:
        key = _own_region_key(region, ctx) if region in USER_REGIONS else None
        if key is None:
            out.append(render_one(region, ctx))
            continue
        try:
            out.append(fragment(f"{TEMPLATE}#{region}", key, ctx))
        except TypeError:  # a value of the key cannot be hashed (a list in a sheet): render it
            out.append(render_one(region, ctx))
    return "".join(out)


def regions_for(table: Table, role: str, user_id: str | None) -> str:
    """Every region as this viewer sees it (a reconnecting socket, an HTMX response)."""
    ctx = context_for(table, role, user_id)
    regions = GM_REGIONS if role == GM else (*SHARED_REGIONS, *USER_REGIONS)
    return render(regions, ctx)


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
    return {"gm": render_own(GM_REGIONS, gm_ctx), "pl": render(SHARED_REGIONS, pl_ctx), "users": users}
