"""What a battle file must be before it is imported: a record this table could have written itself.

An exported battle (``combat.archive.export_battle``) is JSON a person can
edit, so an import checks it as strictly as the battle was checked when it
was played, before anything is written (``check_battle_file``):

- the file: at most ``MAX_BYTES``, no NUL character anywhere, the known
  parts only, this campaign's ruleset, a name of at most 120 characters;
- the log: 1 to ``MAX_EVENTS`` events, each of a known type whose fields have
  the types its description gives (``GENERIC_EVENTS``, the ruleset's own
  ``events``; fields of older logs are let through);
- the creation: ``battle.created`` made again by ``new_battle_event`` gives
  the file's own values: the board (at most ``combat.engine.board.MAX_BOARD`` squares a side, whole
  numbers), the house rules and the content pack pass the ruleset's schemas
  (dice within ``check_expr``'s bounds);
- every combatant, whenever an event adds or changes one: a sheet the
  ruleset accepts, whole numbers for HP, resources on the board, at most
  ``MAX_COMBATANTS`` in the battle; a question asked has its options;
- the dice: every roll recorded is rolled again from the battle's seed as
  the table rolls them (``Dice(seed, seq before the action)``); a face or a
  total that differs is a forged record, refused; and every action that
  rolled is played again from the state before it (``combat.import_rolls``):
  each flat bonus from the sheets and rules, each total, luck and initiative
  roll must be what the engine gives, or the file is refused naming the field;
- the end: replaying the log gives exactly the file's final state, its seed,
  and an ended battle.

Each refusal says what is wrong in a person's words. ``combat.archive``
writes what passes.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from typing import Any, get_type_hints

from combat.engine import veil
from combat.engine.actions import has_nul
from combat.engine.context import apply_event, rules_for
from combat.engine.core import new_battle_event, replay
from combat.engine.dice import Dice, DiceError, Roll
from combat.engine.events import GENERIC_EVENTS, Event, typed_problems
from combat.engine.gm import MAX_COMBATANTS
from combat.engine.rulesets import UnknownRuleset, get_ruleset
from combat.engine.rulesets.base import Ruleset
from combat.engine.state import KINDS, PHASES, ROWS, SIDES, BattleState, Combatant, Decision, copy_json
from combat.import_rolls import rolls_problem
from vtt.jsonfile import MAX_BYTES, JsonRefused, load_json

log = logging.getLogger(__name__)

BATTLE_FORMAT = "vtt-battle"
BATTLE_VERSION = 1
MAX_EVENTS = 20_000
MAX_NUMBER = 1_000_000  # HP, resources: far beyond any sheet, far below what breaks a page
PARTS = {"format", "version", "name", "ruleset", "seed", "events", "final"}
_UNKNOWN = "\x00unknown field"  # typed_problems' note for a field the vocabulary does not list
_ID = re.compile(r"c[0-9]{1,6}")  # a combatant's id, as the engine numbers them
__all__ = ["MAX_BYTES", "MAX_EVENTS", "Checked", "check_battle_file"]


class Refused(ValueError):
    """The file cannot be imported; ``str()`` says why."""


@dataclass
class Checked:
    """A battle file that passed every check: what to write."""

    name: str
    ruleset: str
    events: list[Event]
    state: BattleState


def check_battle_file(ruleset_key: str, raw: bytes | str) -> Checked | str:
    """The checked battle of an exported file for a campaign of ``ruleset_key``, or why it is refused."""
    try:
        return _check(ruleset_key, raw)
    except Refused as exc:
        return str(exc)
    except Exception:  # noqa: BLE001 - a hand-edited file may break the engine anywhere: refuse, never a 500
        log.info("battle import: the file breaks the replay", exc_info=True)
        return "The event log does not replay: the file is damaged or was edited."


def _check(ruleset_key: str, raw: bytes | str) -> Checked:
    try:
        data = load_json(raw)
    except JsonRefused as exc:
        raise Refused(str(exc)) from None
    if not isinstance(data, dict) or data.get("format") != BATTLE_FORMAT:
        raise Refused("This is not a battle file exported from a campaign.")
    unknown = sorted(set(data) - PARTS)
    if unknown:
        raise Refused(f"The file has unknown parts: {', '.join(map(str, unknown))[:200]}.")
    if data.get("version") != BATTLE_VERSION:
        raise Refused("This battle file was written by another version and cannot be read.")
    if has_nul(data):
        raise Refused("The file holds a NUL character, which no battle has: it was edited.")
    try:
        key: Any = data.get("ruleset")  # anything the file holds; a wrong type is refused below
        ruleset = get_ruleset(key)
    except (UnknownRuleset, TypeError):
        raise Refused("This battle file names a ruleset this table does not have.") from None
    if ruleset.key != ruleset_key:
        raise Refused(
            f"This battle was played with another ruleset; this campaign plays {get_ruleset(ruleset_key).name}."
        )
    name = data.get("name")
    if not isinstance(name, str) or not name.strip() or len(name) > 120:
        raise Refused("The battle's name is missing or longer than 120 characters.")
    raw_events = data.get("events")
    if not isinstance(raw_events, list) or not raw_events:
        raise Refused("The file has no event log.")
    if len(raw_events) > MAX_EVENTS:
        raise Refused(f"The log is too long (at most {MAX_EVENTS} events).")
    events = [_event(i, e, ruleset) for i, e in enumerate(raw_events)]
    kept = [Event(e.type, copy_json(e.data)) for e in events]  # as in the file, whatever the replay does
    created = _created(events[0], ruleset)
    state = _replayed(events, created, ruleset)
    _dice(kept, created.data["seed"])
    problem = rolls_problem([Event(e.type, copy_json(e.data)) for e in kept], created.data["seed"])
    if problem:
        raise Refused(problem)
    if _final(state, data.get("final")) != data.get("final"):
        raise Refused("Replaying the log does not give the file's final state: the file was edited.")
    if type(data.get("seed")) is not int or data["seed"] != state.seed:
        raise Refused("The file's seed does not match its log.")
    if state.phase != "ended":
        raise Refused("Only an ended battle can be imported (this one was still running).")
    return Checked(name.strip(), ruleset.key, kept, state)


def _final(state: BattleState, final: Any) -> dict[str, Any]:
    """The replayed state as the file's final state was written: a file exported before states kept
    their past (``engine.veil``) has none of it."""
    out = state.to_dict()
    extra = final.get("extra") if isinstance(final, dict) else None
    if isinstance(extra, dict) and veil.KEY not in extra:
        out["extra"].pop(veil.KEY, None)
    return out


def _edited(index: int, event: Event | None, problem: str) -> Refused:
    what = f"event {index + 1}" + (f" ({event.type})" if event is not None else "")
    return Refused(f"The file was edited: {what}: {problem[:300]}")


def _event(index: int, raw: Any, ruleset: type[Ruleset]) -> Event:
    """One event of the log: a known type, its known fields of the right types."""
    if not isinstance(raw, dict) or set(raw) - {"type", "data"}:
        raise _edited(index, None, "not an event.")
    try:
        event = Event.from_dict(raw)
    except ValueError as exc:
        raise _edited(index, None, str(exc)) from None
    spec = ruleset.events.get(event.type) or GENERIC_EVENTS.get(event.type)
    if spec is None:
        raise _edited(index, event, "no battle has events of this type.")
    # Fields no longer written (logs stored before a rename) are let through; known ones must fit.
    problems = [
        p for p in typed_problems(spec.fields, event.data, "", unknown=_UNKNOWN) if not p.endswith(_UNKNOWN)
    ]
    if problems:
        raise _edited(index, event, "; ".join(problems) + ".")
    return event


def _created(event: Event, ruleset: type[Ruleset]) -> Event:
    """``battle.created`` as ``new_battle_event`` makes it from the file's values (the schemas of creation)."""
    if event.type != "battle.created":
        raise Refused("The log does not start with the battle's creation: the file was edited.")
    d: Any = event.data  # the file's JSON, checked by new_battle_event below
    if d.get("ruleset") != ruleset.key:
        raise Refused("The log was started with another ruleset than the file says.")
    try:
        made = new_battle_event(
            ruleset.key,
            d.get("options"),
            d.get("seed"),
            d.get("width"),
            d.get("height"),
            d.get("blocked") or (),
            d.get("content"),
        )
    except (TypeError, ValueError) as exc:
        raise _edited(0, event, str(exc)) from None
    for key in ("seed", "width", "height", "blocked", "content"):
        if made.data.get(key) != d.get(key) or type(made.data.get(key)) is not type(d.get(key)):
            raise _edited(0, event, f"{key} is not as the table writes it.")
    options = d.get("options")
    if not isinstance(options, dict) or any(
        k not in made.data["options"]
        or made.data["options"][k] != v
        or type(made.data["options"][k]) is not type(v)
        for k, v in options.items()
    ):
        raise _edited(0, event, "the house rules are not as the table writes them.")
    return event


def _replayed(events: list[Event], created: Event, ruleset: type[Ruleset]) -> BattleState:
    """Fold the log, checking every combatant an event adds or touches, and the state after each event."""
    state = replay([created])
    rules = rules_for(state)
    for i, event in enumerate(events[1:], start=1):
        _before(i, event, state, rules)
        apply_event(state, event, rules)
        if len(state.combatants) > MAX_COMBATANTS:
            raise _edited(i, event, f"a battle holds at most {MAX_COMBATANTS} combatants.")
        for cid in _touched(event):
            c = state.combatants.get(cid)
            problem = _combatant_problem(c, state) if c is not None else None
            if problem:
                raise _edited(i, event, problem)
        problem = _state_problem(state)
        if problem:
            raise _edited(i, event, problem)
    for c in state.combatants.values():
        problem = _combatant_problem(c, state) or _sheet_problem(c.sheet, rules)
        if problem:
            raise Refused(f"The file was edited: {c.name}: {problem}")
    return state


def _before(index: int, event: Event, state: BattleState, rules: Ruleset) -> None:
    """What an event brings into the state from outside its types: a combatant, a sheet, a question."""
    d = event.data
    for key in ("combatant", "target", "actor"):
        if isinstance(d.get(key), str) and d[key] not in state.combatants and event.type not in _NAMES_ANYONE:
            raise _edited(index, event, f"{key} names no one in the battle.")
    if event.type == "combatant.added":
        try:
            c = Combatant.from_dict(d["combatant"])
        except (KeyError, TypeError, ValueError, IndexError):
            raise _edited(index, event, "the combatant is malformed.") from None
        if not isinstance(c.id, str) or not _ID.fullmatch(c.id) or c.id in state.combatants:
            raise _edited(index, event, "the combatant is malformed.")
        problem = _sheet_problem(c.sheet, rules)
        if problem:
            raise _edited(index, event, f"{c.name if isinstance(c.name, str) else '?'}: {problem}")
    elif event.type == "combatant.updated":
        changes = d.get("set") or {}
        problem = _updated_problem(changes, rules)
        if problem:
            raise _edited(index, event, problem)
    elif event.type == "decision.opened":
        problem = _decision_problem(d["decision"], state)
        if problem:
            raise _edited(index, event, problem)
    elif event.type == "battle.extra":
        problem = _extra_problem(d["set"])
        if problem:
            raise _edited(index, event, problem)


# Events that may name a combatant no longer in the battle (removing one twice changes nothing).
_NAMES_ANYONE = frozenset({"combatant.removed"})

_UPDATE_TYPES: dict[str, tuple[type, ...]] = {
    "hp": (int,),
    "max_hp": (int,),
    "alive": (bool,),
    "ko": (bool,),
    "row": (str, type(None)),
    "pos": (list, type(None)),
    "name": (str,),
    "side": (str,),
    "controller": (str, type(None)),
    "sheet": (dict,),
}


def _updated_problem(changes: dict[str, Any], rules: Ruleset) -> str | None:
    for key, value in changes.items():
        kinds = _UPDATE_TYPES.get(key)
        if kinds is None:
            continue  # the applier ignores it
        if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds):
            return f"{key} has the wrong type."
    if "sheet" in changes:
        return _sheet_problem(changes["sheet"], rules)
    return None


def _sheet_problem(sheet: Any, rules: Ruleset) -> str | None:
    """A sheet the ruleset accepts, each value of the type it keeps (``"12"`` is no HP), or why not."""
    clean, errors = rules.validate_sheet(sheet)
    if errors:
        return "the sheet is not valid: " + "; ".join(
            f"{k}: {' '.join(v)}" for k, v in sorted(errors.items())
        )
    typed = [k for k, v in sheet.items() if k in clean and (clean[k] != v or type(clean[k]) is not type(v))]
    if typed:
        return f"the sheet's {', '.join(sorted(typed))} are not written as the table writes them."
    return None


def _int(value: Any, low: int, high: int) -> bool:
    return type(value) is int and low <= value <= high


def _combatant_problem(c: Combatant, state: BattleState) -> str | None:
    """What in a combatant no page could show (the sheet is checked where it enters)."""
    if not isinstance(c.name, str) or not c.name.strip() or len(c.name) > 80:
        return "a combatant's name is missing or too long."
    if c.side not in SIDES or c.kind not in KINDS:
        return f"{c.name}: unknown side or kind."
    if not (c.controller is None or (isinstance(c.controller, str) and len(c.controller) <= 40)):
        return f"{c.name}: malformed controller."
    if not (c.character_id is None or _int(c.character_id, 1, 2**63 - 1)):
        return f"{c.name}: malformed character."
    if not _int(c.max_hp, 1, MAX_NUMBER) or not _int(c.hp, -MAX_NUMBER, MAX_NUMBER):
        return f"{c.name}: HP must be whole numbers (max HP 1 to {MAX_NUMBER})."
    if not isinstance(c.alive, bool) or not isinstance(c.ko, bool):
        return f"{c.name}: malformed state."
    if not isinstance(c.resources, dict) or not all(
        isinstance(k, str) and _int(v, -MAX_NUMBER, MAX_NUMBER) for k, v in c.resources.items()
    ):
        return f"{c.name}: resources must be whole numbers."
    if not isinstance(c.statuses, dict) or not all(
        isinstance(k, str) and isinstance(v, dict) for k, v in c.statuses.items()
    ):
        return f"{c.name}: malformed statuses."
    if not isinstance(c.extra, dict) or not isinstance(c.sheet, dict):
        return f"{c.name}: malformed sheet."
    if c.row is not None and c.row not in ROWS:
        return f"{c.name}: unknown row."
    if c.pos is not None and not (
        isinstance(c.pos, list)
        and len(c.pos) == 2
        and _int(c.pos[0], 0, state.width - 1)
        and _int(c.pos[1], 0, state.height - 1)
    ):
        return f"{c.name}: stands off the board."
    return None


def _state_problem(state: BattleState) -> str | None:
    if state.phase not in PHASES:
        return "unknown phase."
    if not isinstance(state.order, list) or not all(c in state.combatants for c in state.order):
        return "the turn order names someone who is not in the battle."
    if not _int(state.turn, 0, MAX_NUMBER) or not _int(state.round, 0, MAX_NUMBER):
        return "the turn and round must be whole numbers."
    result = state.result
    if result is not None and not (
        isinstance(result, dict)
        and result.get("winner") in (*SIDES, None)
        and isinstance(result.get("reason", ""), str)
    ):
        return "malformed result."
    return None


def _decision_problem(raw: Any, state: BattleState) -> str | None:
    try:
        decision = Decision.from_dict(raw)
    except (KeyError, TypeError, ValueError):
        return "the question is malformed."
    texts = (decision.id, decision.combatant, decision.prompt, decision.default, decision.trigger)
    if not all(isinstance(t, str) for t in texts) or decision.combatant not in state.combatants:
        return "the question is malformed."
    if not (decision.controller is None or isinstance(decision.controller, str)):
        return "the question is malformed."
    if not decision.options or not all(
        set(o) == {"key", "label"} and all(isinstance(v, str) for v in o.values()) for o in decision.options
    ):
        return "the question's options are malformed."
    if decision.default not in decision.choice_keys():
        return "the question's default is not one of its options."
    return None


_FLOW_STEPS = ("turn_end", "round_end", "round_start", "turn")


def _extra_problem(values: dict[str, Any]) -> str | None:
    """The battle-wide values the rules keep (where the turn flow paused, Paradigm's queue)."""
    for key, value in values.items():
        if key == "flow":
            if value is not None and not (
                isinstance(value, dict)
                and set(value) - {"explained"} == {"at", "index"}
                and value.get("explained", True) is True
                and value["at"] in _FLOW_STEPS
                and _int(value["index"], 0, MAX_NUMBER)
            ):
                return "malformed turn flow."
        elif key == "queued":
            if value != []:
                return "malformed queue."
        else:
            return f"{key} is not a value the rules keep."
    return None


def _touched(event: Event) -> list[str]:
    d = event.data
    out = [d[k] for k in ("combatant", "target", "actor") if isinstance(d.get(k), str)]
    if isinstance(d.get("combatant"), dict):
        out.append(d["combatant"].get("id"))
    if isinstance(d.get("targets"), list):
        out += [t for t in d["targets"] if isinstance(t, str)]
    return out


def _dice(events: list[Event], seed: int) -> None:
    """Every recorded roll, rolled again from the seed as the table rolls it: ``Dice(seed, seq before)``.

    An action's events follow each other, its first one marked ``act``; its dice come from one roller
    salted with the number of events before it.
    """
    dice: Dice | None = None
    for i, event in enumerate(events):
        if i == 0 or "act" in event.data:
            dice = Dice(seed, i)
        rolls = event.data.get("rolls") or []
        if rolls and dice is None:
            raise _edited(i, event, "dice outside any action.")
        for recorded in rolls:
            try:
                again = dice.roll(recorded["expr"], recorded.get("purpose", "")) if dice else None
            except DiceError as exc:
                raise _edited(i, event, str(exc)) from None
            if again is None or again.faces != recorded["faces"] or again.total != recorded["total"]:
                raise _edited(i, event, "its dice are not the ones the battle's seed gives (forged rolls).")
            if "result" in recorded and _whole(recorded) != recorded["result"]:
                raise _edited(i, event, "a roll's total is not its dice with what was added to them.")
        rolled = event.data.get("rolled")
        if rolled is not None and rolled != _summary(rolls):
            raise _edited(i, event, "its dice summary does not match its rolls.")


def _whole(recorded: dict[str, Any]) -> int | None:
    """A recorded roll's total worked out from its dice, additions and multiplier (None when malformed)."""
    try:
        return Roll.from_dict(recorded).result
    except (KeyError, TypeError, ValueError):
        return None


def _summary(rolls: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "expression": " + ".join(r["expr"] for r in rolls),
        "faces": [f for r in rolls for f in r["faces"]],
        "total": sum(r["total"] for r in rolls),
    }


assert set(get_type_hints(Combatant)) >= set(_UPDATE_TYPES)  # every field an update may set is a Combatant's
