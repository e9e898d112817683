"""Applying events: the one place a battle's state changes (ENG-1), deterministic, without dice.

``apply_event`` folds one event into a state in place: the generic events here (``APPLIERS``), a
ruleset's own through ``Ruleset.appliers``; any event may carry what its actor ``spend``s.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from combat.engine import veil
from combat.engine.events import Event
from combat.engine.fog import apply_fog, apply_hidden
from combat.engine.house import apply_house_rule
from combat.engine.rulesets.base import Ruleset
from combat.engine.state import BattleState, Combatant, Decision, copy_json, status_fields


def _c(state: BattleState, data: dict[str, Any], key: str = "combatant") -> Combatant:
    return state.combatants[data[key]]


def _added(state: BattleState, d: dict[str, Any]) -> None:
    c = Combatant.from_dict(d["combatant"])
    state.combatants[c.id] = c
    state.extra["next_id"] = max(state.extra.get("next_id", 1), int(c.id[1:]) + 1)
    if state.phase == "active":
        state.order.append(c.id)


def _removed(state: BattleState, d: dict[str, Any]) -> None:
    cid = d["combatant"]
    state.combatants.pop(cid, None)
    while cid in state.order:  # every slot: a combatant may hold two in a round (a held turn)
        i = state.order.index(cid)
        state.order.pop(i)
        if i < state.turn:
            state.turn -= 1


def _placed(state: BattleState, d: dict[str, Any]) -> None:
    c = _c(state, d)
    if "pos" in d:
        c.pos = list(d["pos"]) if d["pos"] is not None else None
    if "row" in d:
        c.row = d["row"]


def _order(state: BattleState, d: dict[str, Any]) -> None:
    state.order = list(d["order"])
    state.turn = d.get("turn", 0)


def _started(state: BattleState, d: dict[str, Any]) -> None:
    state.phase = "active"


def _round(state: BattleState, d: dict[str, Any]) -> None:
    state.round = d["round"]


def _turn(state: BattleState, d: dict[str, Any]) -> None:
    state.turn = d["index"]


def _resources(state: BattleState, d: dict[str, Any]) -> None:
    _c(state, d).resources.update(d["resources"])


def _vitals(c: Combatant, d: dict[str, Any]) -> None:
    c.hp = d["hp"]
    if "ko" in d:
        c.ko = d["ko"]
    if "alive" in d:
        c.alive = d["alive"]


def _hp(state: BattleState, d: dict[str, Any]) -> None:
    _vitals(_c(state, d), d)


def _target_hp(state: BattleState, d: dict[str, Any]) -> None:
    _vitals(_c(state, d, "target"), d)


_STATUS_META = frozenset(("combatant", "status", "rolls", "rolled", "actor", "spend", "source_name", "act"))


def _status_applied(state: BattleState, d: dict[str, Any]) -> None:
    fields = {k: v for k, v in d.items() if k not in _STATUS_META}
    _c(state, d).statuses[d["status"]] = status_fields(fields, state.combatants)


def _status_removed(state: BattleState, d: dict[str, Any]) -> None:
    _c(state, d).statuses.pop(d["status"], None)


def _status_updated(state: BattleState, d: dict[str, Any]) -> None:
    _c(state, d).statuses[d["status"]].update(d["fields"])


def _moved(state: BattleState, d: dict[str, Any]) -> None:
    _c(state, d).pos = list(d["to"])


def _row(state: BattleState, d: dict[str, Any]) -> None:
    _c(state, d).row = d["row"]


_UPDATABLE = frozenset(("hp", "max_hp", "alive", "ko", "row", "pos", "name", "side", "controller", "sheet"))


def _updated(state: BattleState, d: dict[str, Any]) -> None:
    c = _c(state, d)
    for key, value in d.get("set", {}).items():
        if key in _UPDATABLE:
            setattr(c, key, copy_json(value))
    c.extra.update(copy_json(d.get("extra", {})))


def _battle_extra(state: BattleState, d: dict[str, Any]) -> None:
    # A copy: the state changes later (Paradigm's queue grows) and must never change the event it came from.
    state.extra.update(copy_json(d["set"]))


def _opened(state: BattleState, d: dict[str, Any]) -> None:
    state.pending = Decision.from_dict(d["decision"])


def _answered(state: BattleState, d: dict[str, Any]) -> None:
    state.pending = None


def _ended(state: BattleState, d: dict[str, Any]) -> None:
    state.phase = "ended"
    state.pending = None
    state.result = d["result"]


APPLIERS: dict[str, Callable[[BattleState, dict[str, Any]], None]] = {
    "combatant.added": _added,
    "combatant.removed": _removed,
    "combatant.placed": _placed,
    "combatant.updated": _updated,
    "order.set": _order,
    "battle.started": _started,
    "round.started": _round,
    "turn.started": _turn,
    "resources.set": _resources,
    "hp.set": _hp,
    "damage.dealt": _target_hp,
    "healed": _target_hp,
    "status.applied": _status_applied,
    "status.removed": _status_removed,
    "status.updated": _status_updated,
    "moved": _moved,
    "row.changed": _row,
    "battle.extra": _battle_extra,
    "decision.opened": _opened,
    "decision.answered": _answered,
    "battle.ended": _ended,
    "fog.changed": apply_fog,
    "combatant.hidden": apply_hidden,
    "house_rule.changed": apply_house_rule,
}


def apply_event(state: BattleState, event: Event, rules: Ruleset) -> None:
    """Fold one event into ``state`` in place (the single place state changes)."""
    data = event.data
    fn = APPLIERS.get(event.type)
    if fn is not None:
        fn(state, data)
    else:
        applier = rules.appliers.get(event.type)
        if applier is not None:
            applier(state, data)
    spend = data.get("spend")
    if spend:
        res = state.combatants[data["actor"]].resources
        for key, amount in spend.items():
            res[key] = res.get(key, 0) - amount
    state.seq += 1
    veil.note(state, event.type)
