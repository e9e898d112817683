"""Every battle kept: the campaign's list, a step-by-step replay, and battles as JSON files.

The stored event log is the truth (ENG-1): a replay folds its first N events
with the engine's ``replay``; an exported file carries the whole log (each
event with its dice) and the final state. An import is written only when
``combat.import_check`` finds the file a record this table could have
written (schemas, bounds, types, dice from the seed, the replay), and only
into a campaign its importer is the GM of.

File format: ``{"format": "vtt-battle", "version": 1, "name", "ruleset",
"seed", "events": [{"type", "data"}...], "final": <state>}``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from combat import services
from combat.engine import fog
from combat.engine.core import replay
from combat.engine.events import Event
from combat.engine.state import BattleState
from combat.import_check import BATTLE_FORMAT, BATTLE_VERSION, MAX_BYTES, MAX_EVENTS, check_battle_file
from combat.models import Battle, BattleEvent

__all__ = ["MAX_BYTES", "MAX_EVENTS", "export_battle", "import_battle", "battle_rows", "state_at"]


def outcome(state: dict[str, Any] | None, status: str) -> str:
    """The outcome in words: who won and why, or that it is still running."""
    result = (state or {}).get("result")
    if status != Battle.Status.ENDED or not isinstance(result, dict):
        return "Still running" if status == Battle.Status.ACTIVE else "Not started"
    winner: Any = result.get("winner")
    side = {"party": "The party won", "enemy": "The enemies won"}.get(
        winner, "No winner" if not winner else f"{winner} won"
    )
    reason = result.get("reason")
    return f"{side}: {reason}" if isinstance(reason, str) and reason else side


def participants(snapshot: dict[str, Any] | None, gm: bool = False) -> list[str]:
    """Who fights, as a member may read it: for players, nobody standing in the fog of war or hidden
    by the GM (``fog.unseen``); the GM sees everyone."""
    combatants = (snapshot or {}).get("combatants") or {}
    if gm:
        return [c.get("name", "?") for c in combatants.values()]
    state = BattleState.from_dict(snapshot or {})
    hidden = fog.unseen(state, None)
    return [c.name for cid, c in state.combatants.items() if cid not in hidden]


@dataclass
class BattleRow:
    battle: Battle
    date: Any
    participants: list[str]
    outcome: str


def battle_rows(campaign: Any, gm: bool = False) -> list[BattleRow]:
    """The campaign's battles, newest first: date, participants and outcome (one query).

    Players see only what has happened: no battle the GM is still setting up, and of the others
    only the combatants they may know of (``participants``)."""
    battles = Battle.objects.filter(campaign=campaign).order_by("-created", "-pk")
    if not gm:
        battles = battles.exclude(status=Battle.Status.SETUP)
    return [
        BattleRow(b, b.created, participants(b.snapshot, gm), outcome(b.snapshot, b.status)) for b in battles
    ]


def events_of(battle: Battle) -> list[Event]:
    rows = BattleEvent.objects.filter(battle_id=battle.pk).order_by("seq").values_list("type", "data")
    return [Event(t, d) for t, d in rows]


def state_at(events: list[Event], step: int) -> BattleState:
    """The battle after its first ``step`` events (at least the creation), by the engine's replay."""
    return replay(events[: max(1, min(step, len(events)))])


def export_battle(battle: Battle) -> dict[str, Any]:
    return {
        "format": BATTLE_FORMAT,
        "version": BATTLE_VERSION,
        "name": battle.name,
        "ruleset": battle.ruleset,
        "seed": battle.seed,
        "events": [e.to_dict() for e in events_of(battle)],
        "final": battle.snapshot,
    }


@dataclass
class Imported:
    ok: bool
    reason: str = ""
    battle: Battle | None = None


def import_battle(campaign: Any, raw: bytes | str, user: Any) -> Imported:
    """Rebuild an exported battle in ``campaign`` (its GM only) once ``check_battle_file`` accepts
    the file; ``combat.services`` keeps it."""
    checked = check_battle_file(campaign.ruleset, raw)
    if isinstance(checked, str):
        return Imported(False, checked)
    kept = services.store_imported_battle(campaign, user, checked.name, checked.state, checked.events)
    if not kept.ok:
        return Imported(False, kept.reason)
    assert kept.battle_id is not None  # a stored battle has its id
    return Imported(True, battle=Battle.objects.get(pk=kept.battle_id))
