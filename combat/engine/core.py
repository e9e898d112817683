"""The engine's public API: decide, apply, replay, legal_actions, view_for.

A battle is a fold of events (ENG-1). ``decide`` checks an action against
the rules and returns the events it causes (or a ``Refusal``, ENG-4)
without touching the given state; ``apply`` folds an event into a state.

>>> from combat.engine.dice import ScriptedDice
>>> created = new_battle_event("luck", {}, seed=1, width=6, height=4)
>>> state = replay([created])
>>> events = decide(state, Action("setup.add_combatant", None, {
...     "name": "Ash", "side": "party", "sheet": {"hp": 10}, "pos": [0, 0]}), ScriptedDice([]))
>>> [e.type for e in events], state.combatants
(['combatant.added'], {})
>>> apply_all(state, events).combatants["c1"].hp
10
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from combat.engine.actions import Action, ActionOption, Refusal, RefusalCode
from combat.engine.board import MAX_BOARD, as_square
from combat.engine.context import Ctx, end_turn, finish, rules_for
from combat.engine.dice import DiceError, DiceRoller
from combat.engine.events import Event
from combat.engine.fold import apply_event
from combat.engine.gm import GM_ACTIONS, SETUP_ACTIONS
from combat.engine.rulesets import UnknownRuleset, get_ruleset
from combat.engine.rulesets.base import Resolver
from combat.engine.state import BattleState, Combatant
from combat.engine.view import Viewer, view_for

__all__ = [
    "Action",
    "ActionOption",
    "Event",
    "Refusal",
    "RefusalCode",
    "Viewer",
    "apply",
    "apply_all",
    "decide",
    "legal_actions",
    "new_battle_event",
    "replay",
    "resolve",
    "undo_cut",
    "view_for",
]


def new_battle_event(
    ruleset_key: str,
    options: dict[str, Any] | None,
    seed: int,
    width: int,
    height: int,
    blocked: Iterable[Iterable[int]] = (),
    content: dict[str, Any] | None = None,
) -> Event:
    """The ``battle.created`` event that starts every log.

    Options are validated against the ruleset (missing ones take defaults);
    ``content`` is an optional custom content pack (ENG-10) checked by the
    ruleset. Raises ``ValueError`` with a readable message on bad input.
    """
    try:
        rules = get_ruleset(ruleset_key)
    except UnknownRuleset as exc:
        raise ValueError(str(exc)) from None
    clean, errors = rules.validate_options(options or {})
    if errors:
        raise ValueError(
            "Invalid options: " + "; ".join(f"{k}: {' '.join(v)}" for k, v in sorted(errors.items()))
        )
    if (
        type(width) is not int
        or type(height) is not int
        or not (1 <= width <= MAX_BOARD and 1 <= height <= MAX_BOARD)
    ):
        raise ValueError(f"Board size must be 1 to {MAX_BOARD} squares a side.")
    squares = []
    for b in blocked:
        sq = as_square(list(b), width, height)
        if sq is None:
            raise ValueError(f"Blocked square {list(b)!r} is not on the board.")
        squares.append(list(sq))
    data = {
        "ruleset": ruleset_key,
        "options": clean,
        "seed": int(seed),
        "width": width,
        "height": height,
        "blocked": squares,
    }
    if content:
        plugin = rules()
        problems = plugin.validate_content(content)
        if problems:
            raise ValueError(
                "Invalid content: " + "; ".join(f"{k}: {' '.join(v)}" for k, v in sorted(problems.items()))
            )
        data["content"] = plugin.clean_content(content)
    return Event("battle.created", data)


def _state_from_created(event: Event) -> BattleState:
    d = event.data
    extra: dict[str, Any] = {"next_id": 1, "veil": {}}
    if d.get("content"):
        extra["content"] = d["content"]
    return BattleState(
        d["ruleset"],
        dict(d["options"]),
        d["seed"],
        d["width"],
        d["height"],
        [list(b) for b in d.get("blocked", [])],
        seq=1,
        extra=extra,
    )


def replay(events: Iterable[Event | dict[str, Any]]) -> BattleState:
    """Rebuild a battle from its whole log, starting with ``battle.created`` (ENG-1, ENG-8)."""
    it = iter(events)
    first = next(it, None)
    if first is None:
        raise ValueError("An empty log has no battle.")
    if isinstance(first, dict):
        first = Event.from_dict(first)
    if first.type != "battle.created":
        raise ValueError("A battle log starts with battle.created.")
    state = _state_from_created(first)
    rules = rules_for(state)
    for e in it:
        apply_event(state, Event.from_dict(e) if isinstance(e, dict) else e, rules)
    return state


def apply(state: BattleState, event: Event) -> BattleState:
    """Return the state after ``event``. The given state is left unchanged (deterministic, no dice)."""
    new = state.clone()
    apply_event(new, event, rules_for(new))
    return new


def apply_all(state: BattleState, events: Iterable[Event]) -> BattleState:
    """Return the state after all ``events`` (one copy, then folded in place)."""
    new = state.clone()
    rules = rules_for(new)
    for e in events:
        apply_event(new, e, rules)
    return new


def _check_turn(state: BattleState, action: Action) -> Refusal | None:
    if state.phase == "setup":
        return Refusal("The battle has not started yet.")
    if state.phase == "ended":
        return Refusal("The battle is over.")
    if state.pending is not None:
        who = state.combatants.get(state.pending.combatant)
        return Refusal(
            f"Waiting for {who.name if who else 'someone'} to answer first.",
            RefusalCode.WAITING,
        )
    current = state.current()
    if current is None:
        return Refusal("It is nobody's turn.")
    if action.actor != current.id:
        actor = state.combatants.get(action.actor) if action.actor else None
        name = actor.name if actor else "That combatant"
        return Refusal(f"It is not {name}'s turn (it is {current.name}'s).", RefusalCode.NOT_YOUR_TURN)
    return None


def _answer(ctx: Ctx, action: Action) -> Refusal | None:
    state = ctx.state
    pending = state.pending
    if pending is None:
        return Refusal("There is nothing to answer.")
    did = action.params.get("decision", pending.id)
    if did != pending.id:
        return Refusal("That question has already been answered.")
    if action.actor is not None and (action.actor != pending.combatant or pending.gm_only):
        return Refusal(
            "Only the GM answers this."
            if pending.gm_only
            else "This question is not addressed to that combatant."
        )
    choice = action.params.get("choice")
    if choice not in pending.choice_keys():
        return Refusal(f"Choose one of: {', '.join(pending.choice_keys())}.", RefusalCode.BAD_INPUT)
    return ctx.answer(pending.id, choice, by="gm" if action.actor is None else "controller", guarded=True)


def _end_turn(ctx: Ctx, action: Action) -> Refusal | None:
    end_turn(ctx)
    return None


def resolve(
    state: BattleState, given: Action | dict[str, Any], dice: DiceRoller
) -> tuple[list[Event], BattleState] | Refusal:
    """Like ``decide``, and also return the resulting state (saves re-applying the events)."""
    action = given if isinstance(given, Action) else Action.from_dict(given)
    if isinstance(action, Refusal):
        return action
    rules = rules_for(state)
    kind = action.kind
    handler: Callable[[Ctx, Action], Refusal | None]
    method: Resolver | None = None
    actor: Combatant | None = None
    if kind in SETUP_ACTIONS:
        if state.phase != "setup":
            return Refusal("The battle has already started.")
        handler = SETUP_ACTIONS[kind]
    elif kind in GM_ACTIONS:
        if state.phase == "ended":
            return Refusal("The battle is over.")
        handler = GM_ACTIONS[kind]
    elif kind == "answer":
        if state.phase != "active":
            return Refusal("The battle is not running.")
        handler = _answer
    else:
        refusal = _check_turn(state, action)
        if refusal is not None:
            return refusal
        method = rules.actions.get(kind)
        if method is None and kind != "end_turn":
            return Refusal("Unknown action.", RefusalCode.BAD_INPUT)
        actor = state.current()  # _check_turn refused every actor but the current one
    ctx = Ctx(state.clone(), dice, rules, origin=state)
    try:
        if actor is None:
            result = handler(ctx, action)
        elif method is not None:
            result = method(ctx, ctx.state.combatants[actor.id], action)
        else:
            result = _end_turn(ctx, action)
        if isinstance(result, Refusal):
            return result
        finish(ctx)
    except DiceError as exc:  # the action's own dice (content the checks missed): refused, nothing changes
        return Refusal(f"{exc} Nothing changed.")
    if ctx.events:  # mark where this action's events begin: undo may drop a whole action
        ctx.events[0].data["act"] = kind
    return ctx.events, ctx.state


def decide(state: BattleState, action: Action | dict[str, Any], dice: DiceRoller) -> list[Event] | Refusal:
    """The events ``action`` causes, or a ``Refusal`` with the reason (ENG-4). Never mutates ``state``.

    Who may submit is checked by the services (the user controls ``actor`` or
    is the GM); the engine refuses actions out of turn, unaffordable, out of
    range, blocked by a status, or malformed, and actions whose dice cannot be
    rolled. Ending a turn never fails on content: a hook of the turn flow whose
    dice cannot be rolled is logged (``rules.failed``) and the turn goes on.
    """
    out = resolve(state, action, dice)
    return out if isinstance(out, Refusal) else out[0]


def undo_cut(events: list[Event] | list[dict[str, Any]]) -> int:
    """Length of the log without the last whole action (ENG-8): ``replay(log[:undo_cut(log)])``.

    Every accepted action marks its first event with ``data["act"]``; undoing
    a whole action never leaves a half-finished turn. Never cuts
    ``battle.created`` (returns at least 1).
    """
    for i in range(len(events) - 1, 0, -1):
        e = events[i]
        data = e.data if isinstance(e, Event) else e.get("data", {})
        if "act" in data:
            return i
    return 1 if events else 0


def legal_actions(state: BattleState, actor_id: str | None) -> list[ActionOption]:
    """What ``actor_id`` may do now (ENG-5), unavailable options greyed with a reason.

    While a reaction window is open, its addressee gets one ``answer`` option
    per choice; out of turn, the list is empty.
    """
    if state.phase != "active":
        return []
    pending = state.pending
    if pending is not None:
        if actor_id != pending.combatant or pending.gm_only:
            return []
        return [
            ActionOption("answer", o["label"], params={"decision": pending.id, "choice": o["key"]})
            for o in pending.options
        ]
    current = state.current()
    if current is None or current.id != actor_id:
        return []
    options = rules_for(state).legal_actions(state, current)
    if not any(o.kind == "end_turn" for o in options):
        options.append(ActionOption("end_turn", "End turn"))
    return options
