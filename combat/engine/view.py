"""What each viewer may see of a battle (per-viewer projection).

The GM sees everything. A player sees their own combatants in full, their
side's sheets, and enemies as the GM allows: with ``hide_enemy_hp`` only a
health ratio and bucket, never the exact numbers or the sheet. Observers see
what a player without combatants sees. A pending reaction window shows its
choices only to its addressee and the GM; its private ``resume`` data only
to the GM.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from combat.engine.state import BattleState, Combatant

BUCKETS = ((1.0, "unhurt"), (0.5, "wounded"), (0.25, "bloodied"), (0.0, "critical"))


@dataclass(frozen=True)
class Viewer:
    """Who is looking: ``role`` is ``"gm"``, ``"player"`` or ``"observer"``; ``user_id`` a string or None."""

    role: str = "observer"
    user_id: str | None = None


def hp_bucket(hp: int, max_hp: int) -> str:
    """A coarse health word: unhurt, wounded, bloodied, critical, down."""
    if hp <= 0:
        return "down"
    ratio = hp / max_hp if max_hp else 0
    for limit, word in BUCKETS:
        if ratio >= limit:
            return word
    return "critical"


def _combatant_view(c: Combatant, full: bool, show_hp: bool, mine: bool) -> dict[str, Any]:
    d: dict[str, Any] = {
        "id": c.id, "name": c.name, "side": c.side, "kind": c.kind, "pos": list(c.pos) if c.pos else None,
        "row": c.row, "alive": c.alive, "ko": c.ko, "mine": mine,
        "statuses": {k: dict(v) for k, v in c.statuses.items()} if full else {k: {} for k in c.statuses},
        "hp_ratio": round(c.hp / c.max_hp, 2) if c.max_hp else 0.0,
        "hp_bucket": hp_bucket(c.hp, c.max_hp),
    }
    if show_hp:
        d["hp"], d["max_hp"] = c.hp, c.max_hp
    else:
        d["hp"] = d["max_hp"] = None
    if full:
        d["controller"] = c.controller
        d["character_id"] = c.character_id
        d["sheet"] = c.sheet
        d["resources"] = dict(c.resources)
        d["extra"] = c.extra
    return d


def view_for(state: BattleState, viewer: Viewer) -> dict[str, Any]:
    """A JSON-safe dict of what ``viewer`` may see (templates render only this)."""
    gm = viewer.role == "gm"
    uid = viewer.user_id if viewer.role == "player" else None
    hide = bool(state.options.get("hide_enemy_hp", True))
    my_sides = {c.side for c in state.combatants.values() if uid is not None and c.controller == uid}
    friendly = my_sides or {"party"}
    combatants = {}
    for cid, c in state.combatants.items():
        mine = uid is not None and c.controller == uid
        ally = c.side in friendly
        full = gm or mine or (ally and viewer.role == "player")
        combatants[cid] = _combatant_view(c, full, gm or ally or not hide, mine)
    current = state.current()
    pending = None
    if state.pending is not None:
        p = state.pending
        addressed = gm or (uid is not None and not p.gm_only and p.controller == uid)
        pending = {"id": p.id, "combatant": p.combatant, "trigger": p.trigger, "mine": addressed and not gm,
                   "prompt": p.prompt if addressed else "Waiting for a reaction.",
                   "options": [dict(o) for o in p.options] if addressed else [],
                   "default": p.default if addressed else None}
        if gm:
            pending["resume"] = p.resume
            pending["controller"] = p.controller
    return {
        "ruleset": state.ruleset, "phase": state.phase, "round": state.round, "seq": state.seq,
        "width": state.width, "height": state.height, "blocked": [list(b) for b in state.blocked],
        "order": list(state.order), "turn": state.turn, "current": current.id if current else None,
        "combatants": combatants, "pending": pending, "result": state.result,
        "options": dict(state.options) if gm else {"hide_enemy_hp": hide},
    }


_HP_KEYS = ("hp", "amount", "raw", "rolled", "reduced")


def event_for(event, state: BattleState, viewer: Viewer) -> dict[str, Any] | None:
    """An event as ``viewer`` may read it in the combat log (a dict), or None when hidden.

    Dice stay visible (ENG-2: the log shows them). For players, when
    ``hide_enemy_hp`` is on, exact HP and damage numbers about enemies are
    removed; a reaction window's private ``resume`` data is GM-only.
    """
    d = event.to_dict()
    if viewer.role == "gm":
        return d
    data = dict(d["data"])
    if event.type == "decision.opened":
        data["decision"] = {k: v for k, v in data["decision"].items() if k != "resume"}
    if state.options.get("hide_enemy_hp", True):
        uid = viewer.user_id if viewer.role == "player" else None
        sides = {c.side for c in state.combatants.values() if uid is not None and c.controller == uid} or {"party"}
        who = state.combatants.get(data.get("target") or data.get("combatant") or "")
        if who is not None and who.side not in sides:
            for key in _HP_KEYS:
                data.pop(key, None)
            if event.type in ("damage.dealt", "healed", "damage.rolled"):
                data.pop("rolls", None)
    d["data"] = data
    return d
