"""Plans: what the acting combatant may do to one combatant, or on one square, this turn, and the way there.

Target-first acting on the board: a player taps an enemy and sees the actions that reach it, each
with its plan drawn. ``plans_on(state, actor, target)`` lists, for every option of ENG-5 that can
reach ``target`` this turn, the engine actions that do it in order (a move first where the ruleset
grants one, then the action), the squares walked and the way there in a player's words;
``plans_to(state, actor, square)`` does the same for a square (a move there, an area or a leap
there). An option that would reach the target from nearer, but not this turn, comes greyed with why
("Grik is 9 squares away: too far this turn."). ``reach_hints`` gives the option list's greyed
options the same how-to ("Grik is 3 squares away: tap it to approach and strike.").

What a ruleset grants to get there comes from its hooks (``Ruleset.plan_moves``, ``plan_boosts``,
``plan_steps``); every plan offered has been played step by step with ``resolve`` on a copy of the
state, so the engine accepts it now. Nothing here is a rule of its own: the options and their
resolution are the ruleset's.

>>> from combat.engine.testing import Battle
>>> b = Battle("luck", width=10, height=3)
>>> mira = b.add("Mira", "party", pos=(0, 1), hp=20, movement=5, weapons=["sword"])
>>> grik = b.add("Grik", "enemy", pos=(7, 1), kind="monster", hp=10)
>>> _ = b.act("setup.start", dice=[20, 1])
>>> [(p.label, p.how) for p in plans_on(b.state, mira, grik)]
[('Sword', 'Move 5 squares to F2, then step to G2 as part of it.')]
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from combat.engine.actions import Action, ActionOption, Refusal, chosen_params
from combat.engine.board import METRICS, Square, neighbours
from combat.engine.context import rules_for
from combat.engine.core import legal_actions, resolve
from combat.engine.dice import Dice
from combat.engine.rulesets.base import Ruleset
from combat.engine.state import BattleState, Combatant
from combat.engine.words import square_name

__all__ = ["Plan", "option_key", "plans_on", "plans_to", "reach_hints"]

#: The squares a move may end on that a search tries, nearest the goal first: a tap's answer stays quick.
BUDGET = 24
#: Of the places a search stands on, how many also try the option's own step (D20 Luck's free step).
STEP_BUDGET = 4
#: Kinds that are no action on anyone or anywhere: never a plan.
NOT_PLANNED = ("end_turn", "answer")


@dataclass(frozen=True)
class Plan:
    """One way to use an option this turn.

    ``steps`` are the engine actions, posted one after another (each an ordinary action, undone one
    at a time); ``path`` the squares walked, start first (empty when the actor stays where it is);
    ``area`` the squares an area covers; ``how`` the way there in a player's words ("Move 3 squares
    to E5 first."). A greyed plan (``available`` false) has no steps and says why in ``reason``.
    """

    label: str
    key: str
    steps: tuple[Action, ...] = ()
    path: tuple[Square, ...] = ()
    area: tuple[Square, ...] = ()
    cost: dict[str, int] = field(default_factory=dict)
    how: str = ""
    available: bool = True
    reason: str = ""


def option_key(kind: str, params: dict[str, Any]) -> str:
    """What an option is, whoever and wherever it aims: its kind and fixed parameters (its targets,
    square and free step left out), the same before and after a move.

    >>> option_key("ability", {"weapon": "sword", "targets": ["c2"], "to": [1, 1]})
    "ability [('weapon', 'sword')]"
    """
    fixed = sorted((k, v) for k, v in params.items() if k not in ("targets", "square", "to", "path"))
    return f"{kind} {fixed!r}"


def _key(o: ActionOption) -> str:
    return option_key(o.kind, o.params)


@dataclass(frozen=True)
class _Spot:
    """A way to stand somewhere this turn: the steps taken to get there (none: where the actor is),
    the squares walked, how in words, the state after them and the actor's options there."""

    before: tuple[Action, ...]
    path: tuple[Square, ...]
    how: str
    state: BattleState
    options: list[ActionOption]


def _actor(state: BattleState, actor_id: str) -> Combatant | None:
    """The acting combatant, when ``actor_id`` acts now and nothing waits for an answer."""
    c = state.current()
    if state.phase != "active" or state.pending is not None or c is None or c.id != actor_id:
        return None
    return c


def _after(state: BattleState, action: Action, actor_id: str) -> BattleState | None:
    """The state once ``action`` is played, when the actor still acts then with nothing pending (a move
    that opens a reaction window or ends the turn leads nowhere a plan may go on from)."""
    out = resolve(state, action, Dice(state.seed, state.seq))
    if isinstance(out, Refusal):
        return None
    after = out[1]
    return after if _actor(after, actor_id) is not None else None


def _path(option: ActionOption, end: Sequence[int]) -> tuple[Square, ...]:
    """The squares a move option walks to ``end``, start first."""
    here: Square = (end[0], end[1])
    out = [here]
    while here in option.came_from and len(out) <= len(option.came_from):
        here = option.came_from[here]
        out.append(here)
    return tuple(reversed(out))


def _nearness(dist: Callable[[Any, Any], int], sq: Square, goal: Square | None) -> tuple[int, int]:
    """How near ``goal`` a square is: by the board's metric, then in a straight line (ties drawn true)."""
    if goal is None:
        return (0, 0)
    return (dist(sq, goal), (sq[0] - goal[0]) ** 2 + (sq[1] - goal[1]) ** 2)


def _walked(path: tuple[Square, ...]) -> str:
    n = len(path) - 1
    return f"move {n} square{'s' if n != 1 else ''} to {square_name(*path[-1])}"


def _moves_from(
    rules: Ruleset,
    state: BattleState,
    c: Combatant,
    goal: Square | None,
    budget: int,
    options: list[ActionOption],
) -> Iterator[tuple[Action, tuple[Square, ...], str, BattleState]]:
    """Each move ``c`` may make now (the kinds of ``rules.plan_moves`` among its ``options``), ending
    nearest ``goal`` first: the action, the squares walked, how in words and the state after it."""
    dist = METRICS[rules.metric(state)]
    for o in options:
        if o.kind not in rules.plan_moves or not o.available:
            continue
        if not o.squares:  # a move without a square (a change of row)
            action = Action(o.kind, c.id, chosen_params(o.kind, o.params))
            after = _after(state, action, c.id)
            if after is not None:
                yield action, (), o.label[:1].lower() + o.label[1:], after
            continue
        paths = {(sq[0], sq[1]): _path(o, sq) for sq in o.squares}
        ends = sorted(paths, key=lambda sq: (*_nearness(dist, sq, goal), len(paths[sq]), sq))
        for sq in ends[:budget]:
            action = Action(o.kind, c.id, chosen_params(o.kind, o.params, None, list(sq)))
            after = _after(state, action, c.id)
            if after is not None:
                yield action, paths[sq], _walked(paths[sq]), after


def _spots(
    state: BattleState, c: Combatant, goal: Square | None, budget: int, here: list[ActionOption]
) -> Iterator[_Spot]:
    """Where the actor may stand this turn: where it is (``here``: its options there), after each move
    (nearest ``goal`` first, at most ``budget``), then after a boost alone and after a boost and a move."""
    rules = rules_for(state)
    yield _Spot((), (), "", state, here)
    for action, path, how, after in _moves_from(rules, state, c, goal, budget, here):
        yield _Spot((action,), path, how, after, legal_actions(after, c.id))
    for o in here:
        if o.kind not in rules.plan_boosts or not o.available:
            continue
        boost = Action(o.kind, c.id, chosen_params(o.kind, o.params))
        boosted = _after(state, boost, c.id)
        if boosted is None:
            continue
        options = legal_actions(boosted, c.id)
        yield _Spot((boost,), (), o.label, boosted, options)
        for action, path, how, after in _moves_from(rules, boosted, c, goal, budget, options):
            yield _Spot((boost, action), path, f"{o.label}, then {how}", after, legal_actions(after, c.id))


def _standing(state: BattleState, c: Combatant, square: Square) -> list[ActionOption]:
    """The actor's options were it standing on ``square`` as it is now, nothing spent: what an option
    could reach from there."""
    moved = state.clone()
    moved.combatants[c.id].pos = [square[0], square[1]]
    return legal_actions(moved, c.id)


def _how(spot_how: str, step: Sequence[Square] = ()) -> str:
    """How a plan gets there, as a sentence ("" when it acts from where it stands)."""
    parts = [spot_how] if spot_how else []
    if step:
        parts.append(f"step to {square_name(*step[-1])} as part of it")
    if not parts:
        return ""
    text = ", then ".join(parts)
    return text[0].upper() + text[1:] + ("." if step else " first.")


Fits = Callable[[ActionOption], bool]
Aim = Callable[[ActionOption], dict[str, Any]]
Shape = Callable[[_Spot, ActionOption], tuple[tuple[Square, ...], tuple[Square, ...], str]]


def _own_steps(
    spot: _Spot,
    c: Combatant,
    o: ActionOption,
    fits: Fits,
    aim: Aim,
    seen: dict[Square, list[ActionOption]],
    goal: Square | None,
) -> Plan | None:
    """Option ``o`` from ``spot`` with one of its own steps (D20 Luck's free step) after which it fits;
    ``seen`` keeps the options standing on each square (one ``legal_actions`` a square). A step that
    brings the actor no nearer ``goal`` reaches nothing the option did not reach before it."""
    rules = rules_for(spot.state)
    me = spot.state.combatants[c.id]
    dist = METRICS[rules.metric(spot.state)]
    here = dist(me.pos, goal) if goal is not None and me.pos is not None else None
    for extra, walk in rules.plan_steps(spot.state, me, o):
        end = walk[-1]
        if here is not None and goal is not None and dist(end, goal) >= here:
            continue
        if end not in seen:
            seen[end] = _standing(spot.state, c, end)
        if any(_key(t) == _key(o) and t.available and fits(t) for t in seen[end]):
            action = Action(o.kind, c.id, {**aim(o), **extra})
            path = (spot.path or (walk[0],)) + tuple(walk[1:])
            return Plan(
                o.label, _key(o), (*spot.before, action), path, (), dict(o.cost), _how(spot.how, walk)
            )
    return None


def _best(
    state: BattleState,
    c: Combatant,
    goal: Square | None,
    fits: Fits,
    aim: Aim,
    budget: int = BUDGET,
    step_budget: int = STEP_BUDGET,
    shape: Shape | None = None,
    wanted: frozenset[str] = frozenset(),
    improve: bool = True,
    here: list[ActionOption] | None = None,
) -> dict[str, Plan]:
    """The plan of each option that fits from some place the actor may stand this turn: the fewest
    steps, then the shortest walk. The ``wanted`` options still without a one-step plan then try
    their own step from the first ``step_budget`` places (with ``improve``, also those whose plan
    takes more steps than that would). ``shape`` gives a plan its path, area and
    words (by default the walk to the place it acts from)."""
    best: dict[str, Plan] = {}
    near: list[_Spot] = []
    for spot in _spots(state, c, goal, budget, legal_actions(state, c.id) if here is None else here):
        if len(near) < step_budget:
            near.append(spot)
        for o in spot.options:
            if o.kind in NOT_PLANNED or not o.available or not fits(o):
                continue
            path, area, how = shape(spot, o) if shape else (spot.path, (), _how(spot.how))
            plan = Plan(
                o.label, _key(o), (*spot.before, Action(o.kind, c.id, aim(o))), path, area, dict(o.cost), how
            )
            old = best.get(plan.key)
            if old is None or (len(plan.steps), len(plan.path)) < (len(old.steps), len(old.path)):
                best[plan.key] = plan
    for spot in near:
        seen: dict[Square, list[ActionOption]] = {}
        for o in spot.options:
            key = _key(o)
            old = best.get(key)
            if key not in wanted or (
                old is not None and (not improve or len(old.steps) <= len(spot.before) + 1)
            ):
                continue
            stepped = _own_steps(spot, c, o, fits, aim, seen, goal)
            if stepped is not None:
                best[key] = stepped
    return best


def _plays(state: BattleState, steps: tuple[Action, ...], actor_id: str) -> bool:
    """Whether the engine accepts every step in turn (the last may open a reaction window)."""
    for i, action in enumerate(steps):
        if i == len(steps) - 1:
            return not isinstance(resolve(state, action, Dice(state.seed, state.seq)), Refusal)
        after = _after(state, action, actor_id)
        if after is None:
            return False
        state = after
    return True


def _in_order(best: dict[str, Plan], here: list[ActionOption]) -> list[Plan]:
    """The plans in the order of the option list (options that appear only after a move last)."""
    keys = [_key(o) for o in here]
    return sorted(best.values(), key=lambda p: keys.index(p.key) if p.key in keys else len(keys))


def _free_near(state: BattleState, target: Combatant, c: Combatant) -> Square | None:
    """A square next to ``target`` where the actor could stand (none free: None)."""
    if target.pos is None or c.pos is None:
        return None
    taken = {(o.pos[0], o.pos[1]) for o in state.combatants.values() if o.alive and o.pos and o.id != c.id}
    taken |= {(b[0], b[1]) for b in state.blocked}
    return next((sq for sq in neighbours(target.square, state.width, state.height) if sq not in taken), None)


def _aimed(
    state: BattleState, c: Combatant, t: Combatant, here: list[ActionOption]
) -> dict[str, tuple[str, bool]]:
    """The options that aim at ``t``'s kind (key -> its label, and whether it would reach ``t`` from a
    square next to it): those reaching ``t`` or another of its side now, and on a grid those that
    would reach it standing next to it."""
    out: dict[str, tuple[str, bool]] = {}
    for o in here:
        if o.kind in NOT_PLANNED or not o.available:
            continue
        others = [state.combatants[x] for x in o.targets if x in state.combatants and x != c.id]
        if t.id in o.targets or any(x.side == t.side for x in others):
            out[_key(o)] = (o.label, t.id in o.targets)
    near = _free_near(state, t, c)
    if near is not None:
        for o in _standing(state, c, near):
            if o.available and t.id in o.targets and o.kind not in NOT_PLANNED:
                out[_key(o)] = (o.label, True)
    return out


def _away(state: BattleState, c: Combatant, where: Sequence[int]) -> int:
    assert c.pos is not None
    return METRICS[rules_for(state).metric(state)](c.pos, where)


def _squares(n: int) -> str:
    return f"{n} square{'s' if n != 1 else ''}"


def _why_not(state: BattleState, c: Combatant, t: Combatant, o: ActionOption | None, near: bool) -> str:
    """Why an option that aims at ``t``'s kind has no plan on ``t`` this turn, in a player's words."""
    if near and c.pos is not None and t.pos is not None:
        return f"{t.name} is {_squares(_away(state, c, t.pos))} away: too far this turn."
    if o is not None:
        out = resolve(
            state, Action(o.kind, c.id, chosen_params(o.kind, o.params, [t.id])), Dice(state.seed, state.seq)
        )
        if isinstance(out, Refusal):
            return out.reason
    return f"Not on {t.name} this turn."


def plans_on(state: BattleState, actor_id: str, target_id: str, budget: int = BUDGET) -> list[Plan]:
    """What ``actor_id`` may do to ``target_id`` this turn: a plan per option that can reach it (the way
    there included), in the order of the option list, then the options that aim at its kind but cannot
    reach it this turn, greyed with why. Empty when ``actor_id`` does not act now or ``target_id`` is
    no combatant of the battle (``state``: the battle as the asker may know it)."""
    c = _actor(state, actor_id)
    t = state.combatants.get(target_id) if isinstance(target_id, str) else None
    if c is None or t is None or not t.alive:
        return []
    goal = t.square if t.pos is not None and c.pos is not None else None
    here = legal_actions(state, c.id)
    aimed = _aimed(state, c, t, here)
    best = _best(
        state,
        c,
        goal,
        lambda o: t.id in o.targets,
        lambda o: chosen_params(o.kind, o.params, [t.id]),
        budget,
        wanted=frozenset(aimed),
        here=here,
    )
    out = [p for p in _in_order(best, here) if _plays(state, p.steps, c.id)]
    done = {p.key for p in out}
    options = {_key(o): o for o in here}
    for key, (label, near) in aimed.items():
        if key not in done:
            out.append(
                Plan(label, key, available=False, reason=_why_not(state, c, t, options.get(key), near))
            )
    return out


def _move_shape(moves: tuple[str, ...], square: Square) -> Shape:
    """A square plan's path, area and words: a move walks there; an area covers its squares there."""

    def shape(spot: _Spot, o: ActionOption) -> tuple[tuple[Square, ...], tuple[Square, ...], str]:
        area = tuple((s[0], s[1]) for s in o.areas.get(f"{square[0]},{square[1]}", []))
        if o.kind not in moves or not o.squares:
            return spot.path, area, _how(spot.how)
        walk = _path(o, square)
        path = spot.path + walk[1:] if spot.path else walk
        how = _walked(walk)
        how = f"{spot.how}, then {how}" if spot.how else how
        return path, area, how[0].upper() + how[1:] + "."

    return shape


def plans_to(state: BattleState, actor_id: str, square: Sequence[int], budget: int = BUDGET) -> list[Plan]:
    """What ``actor_id`` may do on ``square`` this turn: move there (the path drawn), an area or a
    leap there. When no move gets there, the move comes greyed with why."""
    c = _actor(state, actor_id)
    if c is None or c.pos is None or len(square) != 2:
        return []
    sq: Square = (int(square[0]), int(square[1]))
    if not (0 <= sq[0] < state.width and 0 <= sq[1] < state.height):
        return []
    moves = rules_for(state).plan_moves

    def fits(o: ActionOption) -> bool:
        return list(sq) in o.squares

    here = legal_actions(state, c.id)
    best = _best(
        state,
        c,
        sq,
        fits,
        lambda o: chosen_params(o.kind, o.params, None, list(sq)),
        budget,
        shape=_move_shape(moves, sq),
        wanted=frozenset(_key(o) for o in here if o.squares and o.kind not in moves),
        here=here,
    )
    out = [p for p in _in_order(best, here) if _plays(state, p.steps, c.id)]
    if any(p.key.split(" ", 1)[0] in moves for p in out):
        return out
    for o in here:
        if o.kind in moves and o.squares is not None:
            why = (
                o.reason
                or f"{square_name(*sq)} is {_squares(_away(state, c, sq))} away: too far to move there this turn."
            )
            if o.available and state.occupant(sq) is not None:
                why = f"Someone stands on {square_name(*sq)}."
            elif o.available and list(sq) in [list(b) for b in state.blocked]:
                why = f"{square_name(*sq)} cannot be entered."
            out.append(Plan(o.label, _key(o), available=False, reason=why))
            break
    return out


#: Move ends a hint tries (the hint is worked out on every change of the acting combatant's turn).
HINT_BUDGET = 3


def reach_hints(state: BattleState, actor_id: str, options: list[ActionOption]) -> dict[str, str]:
    """How to make the greyed ``options`` that aim at a foe available, in a player's words, by option
    key: "Grik is 3 squares away: tap it to approach and strike." when a plan reaches the nearest foe
    this turn, "Grik is 9 squares away: too far this turn." when none does. Options greyed for
    another reason (no actions left, a status) keep theirs."""
    c = _actor(state, actor_id)
    greyed = {_key(o) for o in options if not o.available and o.kind not in NOT_PLANNED and not o.targets}
    if c is None or c.pos is None or not greyed:
        return {}
    foes = [t for t in state.combatants.values() if t.side != c.side and t.able and t.pos is not None]
    if not foes:
        return {}
    foe = min(foes, key=lambda t: (_away(state, c, t.pos or [0, 0]), t.id))
    near = _free_near(state, foe, c)
    if near is None:
        return {}
    wanted = {_key(o) for o in _standing(state, c, near) if o.available and foe.id in o.targets} & greyed
    if not wanted:
        return {}
    best = _best(
        state,
        c,
        foe.square,
        lambda o: foe.id in o.targets,
        lambda o: chosen_params(o.kind, o.params, [foe.id]),
        HINT_BUDGET,
        step_budget=1,
        wanted=frozenset(wanted),
        improve=False,
        here=options,
    )
    away = f"{foe.name} is {_squares(_away(state, c, foe.square))} away"
    return {
        key: f"{away}: tap it to approach and strike." if key in best else f"{away}: too far this turn."
        for key in wanted
    }
