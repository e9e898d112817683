"""Every roll of an imported battle made again from the battle's seed and the rules.

``combat.import_check`` rolls each recorded roll again from the seed (faces and dice totals), but a
roll's flat bonuses (``adds``: a weapon's +1, a blessing) and the totals built on them come from the
sheets and the rules, and a luck or initiative total from what the rules do with the dice. So each
action of the log whose events hold rolls is played again: from the state before it, with the dice
the table rolled it with (``Dice(seed, events before it)``), the action is rebuilt from what the log
says it was (its kind, who acted, the question answered, the targets and squares its events name)
and resolved by the engine. Its events must be exactly the recorded ones; where they differ, the
first field that differs is named. An action that rolled and that no rebuilt action gives is
refused: a record whose rolls cannot be made again is not a record of this table.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from itertools import combinations
from typing import Any

from combat.engine.actions import Action, Refusal, chosen_params
from combat.engine.context import apply_event, rules_for
from combat.engine.core import legal_actions, replay, resolve
from combat.engine.dice import Dice
from combat.engine.events import Event
from combat.engine.state import BattleState

# Actions without parameters: the kind (and who acts now) says all.
_BARE = ("setup.start", "end_turn", "gm.skip_turn", "gm.tactics", "gm.end_battle")
_MAX_CANDIDATES = 400  # actions tried for one logged action (far above any real turn's choices)
_MAX_TRIES = 60_000  # actions tried for a whole log: a file built to cost minutes is refused sooner


def rolls_problem(events: list[Event], seed: int) -> str | None:
    """Why the rolls of ``events`` (a whole log, ``battle.created`` first) are not the ones the seed and
    the rules give, naming the event and the field; None when every action replays as logged."""
    state = replay(events[:1])
    rules = rules_for(state)
    tries = [0]
    for start, end in _actions(events):
        part = events[start:end]
        if any(e.data.get("rolls") for e in part):
            problem = _derive(state, part, seed, start, tries)
            if problem:
                return problem
        for event in part:
            apply_event(state, event, rules)
    return None


def _actions(events: list[Event]) -> Iterator[tuple[int, int]]:
    """``(start, end)`` of each action after the creation: an action's first event is marked ``act``."""
    starts = [i for i, e in enumerate(events) if i and "act" in e.data]
    if len(events) > 1 and (not starts or starts[0] != 1):
        starts.insert(0, 1)
    for n, start in enumerate(starts):
        yield start, starts[n + 1] if n + 1 < len(starts) else len(events)


def _plain(events: list[Event]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = json.loads(json.dumps([e.to_dict() for e in events]))
    return out


def _derive(state: BattleState, part: list[Event], seed: int, start: int, tries: list[int]) -> str | None:
    """None when some action rebuilt from ``part`` gives exactly its events, else what differs."""
    logged = _plain(part)
    kind = part[0].data.get("act")
    nearest: list[dict[str, Any]] | None = None
    for n, action in enumerate(_candidates(state, kind, part)):
        if n >= _MAX_CANDIDATES:
            break
        tries[0] += 1
        if tries[0] > _MAX_TRIES:
            return "The log has too many actions to check its rolls: it cannot be imported."
        out = resolve(state, action, Dice(seed, start))
        if isinstance(out, Refusal):
            continue
        made = _plain(out[0])
        if made == logged:
            return None
        if nearest is None and [e["type"] for e in made] == [e["type"] for e in logged]:
            nearest = made
    if nearest is None:
        first = part[0]
        return (
            f"The file was edited: event {start + 1} ({first.type}): its rolls are not what any action "
            "of the rules gives from the battle's seed."
        )
    for i, (made_event, logged_event) in enumerate(zip(nearest, logged, strict=True)):
        where = _difference(made_event["data"], logged_event["data"], "")
        if where is not None:
            return (
                f"The file was edited: event {start + i + 1} ({logged_event['type']}): {where} is not "
                "what the battle's seed and the rules give."
            )
    return None  # pragma: no cover - equal events were returned above


def _difference(made: Any, logged: Any, path: str) -> str | None:
    """The path of the first field where ``logged`` differs from ``made`` (``rolls[0].adds``)."""
    if isinstance(made, dict) and isinstance(logged, dict):
        for key in sorted(set(made) | set(logged), key=str):
            if key not in made or key not in logged:
                return f"{path}.{key}".lstrip(".")
            where = _difference(made[key], logged[key], f"{path}.{key}")
            if where is not None:
                return where
        return None
    if isinstance(made, list) and isinstance(logged, list) and made and logged:
        if len(made) != len(logged):
            return path.lstrip(".")
        for i, (a, b) in enumerate(zip(made, logged, strict=True)):
            where = _difference(a, b, f"{path}[{i}]")
            if where is not None:
                return where
        return None
    return None if made == logged and type(made) is type(logged) else path.lstrip(".") or "the event"


def _named(part: list[Event]) -> tuple[list[str], list[list[int]]]:
    """The combatants and squares an action's events name, in order (its targets are among them)."""
    ids: list[str] = []
    squares: list[list[int]] = []

    def walk(value: Any) -> None:
        if isinstance(value, dict):
            for v in value.values():
                walk(v)
        elif isinstance(value, list):
            if len(value) == 2 and all(type(v) is int for v in value):
                if value not in squares:
                    squares.append(list(value))
            else:
                for v in value:
                    walk(v)
        elif isinstance(value, str) and value not in ids and value.startswith("c") and value[1:].isdigit():
            ids.append(value)

    for event in part:
        walk(event.data)
    return ids, squares


def _candidates(state: BattleState, kind: Any, part: list[Event]) -> Iterator[Action]:
    """The actions the log may have recorded: built from the kind and what its events name."""
    if not isinstance(kind, str):
        return
    current = state.current()
    if kind in _BARE:
        yield Action(kind, current.id if current is not None and kind == "end_turn" else None)
        if current is not None and kind != "end_turn":
            yield Action(kind, current.id)
        return
    pending = state.pending
    if kind == "answer" and pending is not None:
        for choice in pending.options:
            yield Action("answer", pending.combatant, {"decision": pending.id, "choice": choice["key"]})
        return
    if current is None:
        return
    ids, squares = _named(part)
    # Targets and steps out of reach before a step are greyed out in the options: every option of the
    # kind is tried, with the combatants and squares the action's events name.
    # The targets: any few of the named, in the order the events name them (an actor may aim at itself).
    target_sets = [list(c) for n in range(1, min(len(ids), 4) + 1) for c in combinations(ids[:6], n)]
    for option in legal_actions(state, current.id):
        if option.kind != kind:
            continue
        yield Action(kind, current.id, dict(option.params))
        for targets in target_sets:
            yield Action(kind, current.id, chosen_params(kind, option.params, targets))
        # The squares its events name first (a move's end); an area's centre is named by none.
        named = [s for s in squares if s in option.squares]
        for square in [*named, *(s for s in option.squares if s not in named)]:
            yield Action(kind, current.id, chosen_params(kind, option.params, None, square))
        for targets in target_sets:  # a step the action allows before it (``to``)
            for step in squares:
                yield Action(kind, current.id, {**chosen_params(kind, option.params, targets), "to": step})
