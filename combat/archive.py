"""Every battle kept: the campaign's list, a step-by-step replay, and battles as JSON files.

The stored event log is the truth (ENG-1): a replay folds its first N events
with the engine's ``replay``; an exported file carries the whole log (each
event with its dice) and the final state, and an import is accepted only
when replaying the file's log gives exactly that final state.

File format: ``{"format": "vtt-battle", "version": 1, "name", "ruleset",
"seed", "events": [{"type", "data"}...], "final": <state>}``.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from combat import services
from combat.engine.core import replay
from combat.engine.events import Event
from combat.engine.rulesets import UnknownRuleset, get_ruleset
from combat.engine.state import BattleState
from combat.models import Battle, BattleEvent
from vtt.jsonfile import MAX_BYTES, JsonRefused, load_json

log = logging.getLogger(__name__)

BATTLE_FORMAT = "vtt-battle"
BATTLE_VERSION = 1
MAX_EVENTS = 20_000
__all__ = ["MAX_BYTES", "export_battle", "import_battle", "battle_rows", "state_at"]


def outcome(state: dict[str, Any] | None, status: str) -> str:
    """The outcome in words: who won and why, or that it is still running."""
    result = (state or {}).get("result")
    if status != Battle.Status.ENDED or not isinstance(result, dict):
        return "Still running" if status == Battle.Status.ACTIVE else "Not started"
    winner = result.get("winner")
    side = {"party": "The party won", "enemy": "The enemies won"}.get(
        winner, "No winner" if not winner else f"{winner} won"
    )
    reason = result.get("reason")
    return f"{side}: {reason}" if isinstance(reason, str) and reason else side


def participants(snapshot: dict[str, Any] | None) -> list[str]:
    return [c.get("name", "?") for c in ((snapshot or {}).get("combatants") or {}).values()]


@dataclass
class BattleRow:
    battle: Battle
    date: Any
    participants: list[str]
    outcome: str


def battle_rows(campaign: Any) -> list[BattleRow]:
    """The campaign's battles, newest first: date, participants and outcome (one query)."""
    battles = Battle.objects.filter(campaign=campaign).order_by("-created", "-pk")
    return [BattleRow(b, b.created, participants(b.snapshot), outcome(b.snapshot, b.status)) for b in battles]


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
    """Rebuild an exported battle in ``campaign`` (``user``: its GM): accepted only when its log
    replays to its final state; ``combat.services`` keeps it."""
    try:
        data = load_json(raw)
    except JsonRefused as exc:
        return Imported(False, str(exc))
    if not isinstance(data, dict) or data.get("format") != BATTLE_FORMAT:
        return Imported(False, "This is not a battle file exported from a campaign.")
    unknown = sorted(set(data) - {"format", "version", "name", "ruleset", "seed", "events", "final"})
    if unknown:
        return Imported(False, f"The file has unknown parts: {', '.join(map(str, unknown))[:200]}.")
    if data.get("version") != BATTLE_VERSION:
        return Imported(False, "This battle file was written by another version and cannot be read.")
    try:
        ruleset = get_ruleset(data.get("ruleset"))
    except (UnknownRuleset, TypeError):
        return Imported(False, "This battle file names a ruleset this table does not have.")
    if ruleset.key != campaign.ruleset:
        return Imported(
            False,
            f"This battle was played with another ruleset; this campaign plays "
            f"{campaign.ruleset_class.name}.",
        )
    name = data.get("name")
    if not isinstance(name, str) or not name.strip() or len(name) > 120:
        return Imported(False, "The battle's name is missing or longer than 120 characters.")
    events = data.get("events")
    if not isinstance(events, list) or not events:
        return Imported(False, "The file has no event log.")
    if len(events) > MAX_EVENTS:
        return Imported(False, f"The log is too long (at most {MAX_EVENTS} events).")
    try:
        parsed = [Event.from_dict(e) for e in events]
        if parsed[0].data.get("ruleset") != ruleset.key:
            return Imported(False, "The log was started with another ruleset than the file says.")
        state = replay(parsed)
    except Exception:  # noqa: BLE001 - a hand-edited log may break the engine anywhere: refuse, never a 500
        log.info("battle import: the log does not replay", exc_info=True)
        return Imported(False, "The event log does not replay: the file is damaged or was edited.")
    if state.to_dict() != data.get("final"):
        return Imported(False, "Replaying the log does not give the file's final state: the file was edited.")
    if type(data.get("seed")) is not int or data["seed"] != state.seed:
        return Imported(False, "The file's seed does not match its log.")
    status = state.phase if state.phase in Battle.Status.values else Battle.Status.ACTIVE
    if status != Battle.Status.ENDED:
        return Imported(False, "Only an ended battle can be imported (this one was still running).")
    kept = services.store_imported_battle(campaign, user, name.strip(), state, parsed)
    if not kept.ok:
        return Imported(False, kept.reason)
    return Imported(True, battle=Battle.objects.get(pk=kept.battle_id))
