"""What each viewer may see of a battle (per-viewer projection).

The GM sees everything. A player sees their own combatants in full, their
side's sheets, and enemies as the GM allows. Observers see what a player
without combatants sees. A pending reaction window shows its choices only to
its addressee and the GM; its private ``resume`` data only to the GM.

Fog of war (``fog``) is decided here too: a player sees the fog's revealed squares of the map, its
blocked squares among them, and nothing of a combatant standing in fog that is not on their side
(``fog.unseen``): not in the combatants, the turn order, whose turn it is, a reaction window, a
prompt's words, the options of their own turn, nor the log (``event_data_for`` drops an event
about one). Once its square is revealed it is seen again from then on; what it did while unseen
stays untold (``told``: every sentence is decided at its own seq). Until the battle begins, every
combatant not on their side is unseen the same way: the set-up is no spoiler. While one they may not
know of takes its turn, a player is told whose turn comes next among those they see (``next``).

Hidden HP (the ``hide_enemy_hp`` option) is decided here and nowhere else:
``hidden_ids`` says whose numbers a viewer may not see, ``view_for`` gives
those combatants only a coarse state (unhurt, wounded, bloodied, down) and a
bar of that state's fixed width, and ``filter_event`` takes out of an event
about them every number that could reveal HP or armour (damage taken, the
rolled total beside it; what is left is only whether it was 0, ``zero``, as the coarse state tells, defence and evasion, override amounts, status power
and duration, and the damage or healing dice the hidden side rolls on
itself). Dice the viewer's side rolls stay visible (ENG-2). Every renderer
(board, tracker, log, outcome lines, pushes) reads only this output.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

from combat.engine import fog
from combat.engine.events import Event
from combat.engine.rulesets import event_type
from combat.engine.state import BattleState, Combatant, Decision
from combat.engine.words import plain_label

BUCKETS = ((1.0, "unhurt"), (0.5, "wounded"), (0.25, "bloodied"), (0.0, "critical"))
# What a viewer may know of hidden HP: a coarse state and a bar of that state's fixed width.
COARSE_BAR = {"unhurt": 1.0, "wounded": 0.75, "bloodied": 0.35, "down": 0.0}


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


def coarse_state(hp: int, max_hp: int) -> str:
    """Hidden HP as a player may know it: unhurt, wounded (half or more), bloodied (under half) or down."""
    if hp <= 0:
        return "down"
    if hp >= max_hp:
        return "unhurt"
    return "wounded" if 2 * hp >= max_hp else "bloodied"


def _combatant_view(
    c: Combatant, full: bool, show_hp: bool, mine: bool, unseen: frozenset[str] = frozenset()
) -> dict[str, Any]:
    d: dict[str, Any] = {
        "id": c.id,
        "name": c.name,
        "side": c.side,
        "kind": c.kind,
        "pos": list(c.pos) if c.pos else None,
        "row": c.row,
        "alive": c.alive,
        "ko": c.ko,
        "mine": mine,
        "statuses": fog.strip({k: dict(v) for k, v in c.statuses.items()}, unseen)
        if full
        else {k: {} for k in c.statuses},
    }
    if show_hp:
        d["hp"], d["max_hp"] = c.hp, c.max_hp
        d["hp_ratio"] = round(c.hp / c.max_hp, 2) if c.max_hp else 0.0
        d["hp_bucket"] = hp_bucket(c.hp, c.max_hp)
    else:
        d["hp"] = d["max_hp"] = None
        d["hp_bucket"] = coarse_state(c.hp, c.max_hp)
        d["hp_ratio"] = COARSE_BAR[d["hp_bucket"]]
    if full:
        d["controller"] = c.controller
        d["character_id"] = c.character_id
        d["sheet"] = c.sheet
        d["resources"] = dict(c.resources)
        d["extra"] = fog.strip(c.extra, unseen)
    return d


def _viewer_id(viewer: Viewer) -> str | None:
    return viewer.user_id if viewer.role == "player" else None


def viewer_sides(state: BattleState, viewer: Viewer) -> set[str]:
    """The sides ``viewer`` plays (those of the combatants they control), else the party's."""
    uid = _viewer_id(viewer)
    sides = {c.side for c in state.combatants.values() if uid is not None and c.controller == uid}
    return sides or {"party"}


def unseen_ids(state: BattleState, viewer: Viewer) -> frozenset[str]:
    """Combatants ``viewer`` may not know of at all: standing in fog, not on their side (``fog.unseen``)."""
    return fog.unseen(state, _viewer_id(viewer), viewer.role == "gm")


def words_for(decision: Decision, state: BattleState, unseen: frozenset[str]) -> Decision:
    """A reaction window's words (prompt, trigger, choices) without the names of combatants the
    viewer may not know of (``unseen_ids``): "Goblin attacks Bram" reads "someone unseen attacks Bram"."""
    if not unseen:
        return decision
    names, kept = _names(state, unseen), _names(state, frozenset(state.combatants) - unseen)
    shown = Decision.from_dict(decision.to_dict())
    shown.prompt = fog.unnamed(decision.prompt, names, kept)
    shown.trigger = fog.unnamed(decision.trigger, names, kept)
    shown.options = [{**o, "label": fog.unnamed(o.get("label", ""), names, kept)} for o in decision.options]
    return shown


def next_seen(state: BattleState, unseen: frozenset[str]) -> str | None:
    """While one the viewer may not know of takes its turn: whose turn comes next among those they see."""
    current = state.current()
    if current is None or current.id not in unseen or not state.order:
        return None
    n = len(state.order)
    for step in range(1, n + 1):
        cid = state.order[(state.turn + step) % n]
        c = state.combatants.get(cid)
        if cid not in unseen and c is not None and c.able:
            return cid
    return None


def view_for(state: BattleState, viewer: Viewer, only: Collection[str] | None = None) -> dict[str, Any]:
    """A JSON-safe dict of what ``viewer`` may see (templates render only this).

    ``only``: the combatants to describe (all when None); each is seen as in the whole view.
    """
    gm = viewer.role == "gm"
    uid = _viewer_id(viewer)
    hide = bool(state.options.get("hide_enemy_hp", True))
    my_sides = {c.side for c in state.combatants.values() if uid is not None and c.controller == uid}
    friendly = my_sides or {"party"}
    unseen = unseen_ids(state, viewer)
    combatants = {}
    for cid, c in state.combatants.items():
        if (only is not None and cid not in only) or cid in unseen:
            continue
        mine = uid is not None and c.controller == uid
        ally = c.side in friendly
        full = gm or mine or (ally and viewer.role == "player")
        combatants[cid] = _combatant_view(c, full, gm or ally or not hide, mine, unseen)
    current = state.current()
    pending: dict[str, Any] | None = None
    if state.pending is not None:
        p = state.pending
        addressed = gm or (uid is not None and not p.gm_only and p.controller == uid)
        shown = words_for(p, state, unseen)
        pending = {
            "id": p.id,
            "combatant": None if p.combatant in unseen else p.combatant,
            "trigger": shown.trigger,
            "mine": addressed and not gm,
            "prompt": shown.prompt if addressed else "Waiting for a reaction.",
            "options": [dict(o) for o in shown.options] if addressed else [],
            "default": p.default if addressed else None,
        }
        if gm:
            pending["resume"] = p.resume
            pending["controller"] = p.controller
    fog_rows = fog.rows(state)
    return {
        "ruleset": state.ruleset,
        "phase": state.phase,
        "round": state.round,
        "seq": state.seq,
        "width": state.width,
        "height": state.height,
        "blocked": [list(b) for b in state.blocked if gm or not fog.fogged(state, b)],
        "fog": list(fog_rows) if fog_rows is not None else None,
        "order": [cid for cid in state.order if cid not in unseen],
        "turn": state.turn,
        "current": current.id if current and current.id not in unseen else None,
        "next": next_seen(state, unseen),
        "combatants": combatants,
        "pending": pending,
        "result": state.result,
        "options": dict(state.options) if gm else {"hide_enemy_hp": hide},
    }


def _names(state: BattleState, ids: frozenset[str]) -> list[str]:
    return [state.combatants[cid].name for cid in ids if cid in state.combatants]


def hidden_ids(state: BattleState, viewer: Viewer, hide: bool | None = None) -> frozenset[str]:
    """Combatants whose exact HP (and the numbers that reveal it) ``viewer`` may not see; ``hide``: the
    house rule "Hide exact enemy HP" as it stood then (now when None)."""
    if hide is None:
        hide = bool(state.options.get("hide_enemy_hp", True))
    if viewer.role == "gm" or not hide:
        return frozenset()
    sides = viewer_sides(state, viewer)
    return frozenset(cid for cid, c in state.combatants.items() if c.side not in sides)


# Fields of an event about a hidden combatant that never carry a number about it: who, what, how it went.
SAFE_FIELDS = frozenset(
    {
        "actor",
        "source",
        "target",
        "targets",
        "combatant",
        "against",
        "mover",
        "after",
        "by",
        "by_combatant",  # who applied a status, in logs stored before ``by`` named it
        "by_id",
        "ability",
        "name",
        "weapon",
        "spell",
        "item",
        "object",
        "skill",
        "status",
        "stance",
        "job",
        "kind",
        "damage_type",
        "resource",
        "reason",
        "choice",
        "decision",
        "trigger",
        "outcome",
        "hit",
        "crit",
        "dodged",
        "avoided",
        "success",
        "freed",
        "ko",
        "alive",
        "auto",
        "on",
        "done",
        "row",
        "pos",
        "to",
        "path",
        "at",
        "act",
        "explained",
    }
)
# Numbers of an attack made against a hidden combatant that stay visible: the attacker's own dice.
ATTACK_NUMBERS = frozenset({"total", "roll"})
# Numbers of the dice the roller's side rolled (before the target's defences): they stay beside those dice,
# whose totals they repeat ("Mira rolls 3 damage." next to her roll's "= 3"), while the roller is seen.
ROLLED_NUMBERS = frozenset({"raw"})
# Dice that measure what happened to a hidden combatant (how much it lost or regained): shown only when
# the one who rolled them is not hidden (a hero's damage dice, without the damage taken, tell no armour).
HIDDEN_ROLLS = frozenset({"damage", "healing", "spell effect", "status", "interrupt"})


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def subject(data: dict[str, Any]) -> str | None:
    """The combatant an event befalls (its ``target``, else its ``combatant``), if it names one."""
    who = data.get("target") or data.get("combatant")
    if isinstance(who, dict):
        who = who.get("id")
    return who if isinstance(who, str) else None


def _applier(etype: str, data: dict[str, Any]) -> Any:
    """The combatant who applied a status (``by``; older logs: ``by_id``, ``by_combatant``), if one did."""
    if etype != "status.applied":
        return None
    by = data.get("by") or data.get("by_id") or data.get("by_combatant")
    return None if by == "gm" else by


def filter_event(
    etype: str, data: object, hidden: frozenset[str] | set[str], gm: bool = False
) -> dict[str, Any]:
    """An event's data as a viewer may read it; ``hidden`` from ``hidden_ids``. Never changes ``data``."""
    if not isinstance(data, dict):
        return {}
    if gm:
        return data
    if isinstance(data.get("decision"), dict) and "resume" in data["decision"]:
        data = {**data, "decision": {k: v for k, v in data["decision"].items() if k != "resume"}}
    subject_id = subject(data)
    if subject_id is None or subject_id not in hidden:
        return data
    roller = data.get("actor") or _applier(etype, data) or data.get("source")
    roller_seen = isinstance(roller, str) and roller not in hidden
    # An event that changes the subject's numbers (``EventType.changes``) shows none of them.
    spec = event_type(etype)
    changes = spec is not None and spec.changes
    out: dict[str, Any] = {}
    for key, value in data.items():
        if key == "act" and isinstance(value, dict):  # which action began here, not its amounts
            out[key] = {k: value[k] for k in ("kind", "actor") if k in value}
        elif key == "combatant" and isinstance(value, dict):
            out[key] = {k: value[k] for k in ("id", "name", "side", "kind") if k in value}
        elif key == "rolls" and isinstance(value, list):
            # The viewer's side's own dice stay (ENG-2); dice measuring the hidden side's own changes go.
            out[key] = [
                r
                for r in value
                if isinstance(r, dict) and (r.get("purpose") not in HIDDEN_ROLLS or roller_seen)
            ]
        elif key == "label" and isinstance(value, str):  # a chosen option, without its figures
            out[key] = plain_label(value)
        elif (
            (key in ATTACK_NUMBERS and not changes)
            or (key in ROLLED_NUMBERS and roller_seen)
            or (key in SAFE_FIELDS and not _number(value))
        ):
            out[key] = value
    if changes and _number(data.get("amount")):
        # Whether it changed anything at all is what the coarse state tells anyway: "takes no damage".
        out["zero"] = data["amount"] == 0
    return out


def event_data_for(
    etype: str, data: object, hidden: frozenset[str] | set[str], unseen: frozenset[str], gm: bool = False
) -> dict[str, Any] | None:
    """An event's data as a viewer may read it (``filter_event``), or None when it is about a combatant
    they may not know of (``unseen``: ``unseen_ids``)."""
    if not gm and unseen and isinstance(data, dict):
        kept = fog.scrub(data, unseen)
        if kept is None:
            return None
        data = kept
    return filter_event(etype, data, hidden, gm)


def event_for(
    event: Event, state: BattleState, viewer: Viewer, seq: int | None = None
) -> dict[str, Any] | None:
    """An event as ``viewer`` may read it in the combat log (a dict), or None when it is about a
    combatant the viewer could not know of at ``seq``, the event's (None: now; ``told``).

    Dice stay visible (ENG-2: the log shows them) except those that measure
    a hidden combatant's loss; see ``filter_event``.
    """
    from combat.engine.told import told  # what a viewer may be told builds on this module

    data = told(state, viewer, seq).event(event.type, event.data)
    return None if data is None else {"type": event.type, "data": data}
