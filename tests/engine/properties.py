"""Shared harness for the engine's property tests (every ruleset).

Builds battles from roster parameters, plays random legal actions (and GM
overrides) while checking that deciding never mutates, that applying the
returned events one by one gives the returned state, that nobody but the one
allowed to act may act, and that replaying the log (also every shorter
prefix: undo) rebuilds exactly the incrementally applied state, and that every
accepted action's parameters fit ``ACTION_PARAMS`` and the ruleset's ``params``. Each
ruleset's test file passes its own invariants as ``check(state, log)``.
``random_battle`` plays one random battle of a ruleset's whole starter cast.
"""

from __future__ import annotations

import importlib
import json
import random
from collections.abc import Callable, Iterable
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from combat.engine.actions import Action, Refusal, param_problems
from combat.engine.autoplay import random_action
from combat.engine.core import apply, decide, legal_actions, new_battle_event, replay, resolve
from combat.engine.dice import Dice
from combat.engine.rulesets import RULESETS
from combat.engine.state import BattleState

NOT_ADDRESSED = "This question is not addressed to that combatant."
Check = Callable[[BattleState, list], None]


def random_battles(fighter, options: dict[str, Any], *, max_steps: int, max_examples: int):
    """Decorator for a random-battle property test ``test(party, enemies, seed, options, steps)``.

    1-3 fighters a side from ``fighter``, options drawn from the ``options`` strategies,
    10 to ``max_steps`` random steps; no deadline (whole battles are slow to shrink).
    """

    def wrap(test):
        return settings(
            max_examples=max_examples, deadline=None, suppress_health_check=[HealthCheck.too_slow]
        )(
            given(
                party=st.lists(fighter, min_size=1, max_size=3),
                enemies=st.lists(fighter, min_size=1, max_size=3),
                seed=st.integers(0, 2**31),
                options=st.fixed_dictionaries(options),
                steps=st.integers(10, max_steps),
            )(test)
        )

    return wrap


def build_battle(
    ruleset: str,
    options: dict[str, Any],
    seed: int,
    width: int,
    height: int,
    roster: Iterable[dict[str, Any]],
    blocked: Iterable = (),
) -> tuple[list, BattleState]:
    """A started battle: the log and state after adding every roster entry and ``setup.start``."""
    log = [new_battle_event(ruleset, options, seed, width, height, blocked)]
    state = replay(log)
    for params in roster:
        events, state = resolve(state, Action("setup.add_combatant", None, params), Dice(seed, state.seq))
        log += events
    events, state = resolve(state, Action("setup.start"), Dice(seed, state.seq))
    return log + events, state


def random_roster(party: list, enemies: list, party_pos, enemy_pos) -> list[dict[str, Any]]:
    """Roster parameters for hypothesis-drawn ``(sheet, is_pc)`` fighters placed by ``*_pos(i)``."""
    roster = [
        {
            "name": f"P{i}",
            "side": "party",
            "kind": "pc" if pc else "npc",
            "sheet": sheet,
            "controller": str(i) if pc else None,
            "pos": party_pos(i),
        }
        for i, (sheet, pc) in enumerate(party)
    ]
    return roster + [
        {"name": f"E{i}", "side": "enemy", "sheet": sheet, "pos": enemy_pos(i)}
        for i, (sheet, _) in enumerate(enemies)
    ]


def starter_roster(heroes: dict, monsters: dict, far_x: int) -> list[dict[str, Any]]:
    """The whole starter cast: heroes on the left edge, monsters at column ``far_x``, two rows apart."""
    cast = [(n, "party", s) for n, s in heroes.items()] + [(n, "enemy", s) for n, s in monsters.items()]
    return [
        {
            "name": name,
            "side": side,
            "sheet": sheet,
            "controller": str(i) if side == "party" else None,
            "pos": [0 if side == "party" else far_x, 2 * i],
        }
        for i, (name, side, sheet) in enumerate(cast)
    ]


def others_are_refused(
    state: BattleState,
    action: Action,
    rng: random.Random,
    *,
    message: str | None = NOT_ADDRESSED,
    current_waits: bool = False,
) -> None:
    """Someone other than the one allowed to act is refused, and nothing changes.

    ``message``: the exact refusal an intruder's answer gets (None: any refusal).
    ``current_waits``: while a question is pending, the current combatant may not end the turn either.
    """
    allowed = state.pending.combatant if state.pending else action.actor
    others = [cid for cid in state.combatants if cid != allowed]
    if not others:
        return
    intruder = rng.choice(others)
    before = state.to_dict()
    if state.pending:
        p = state.pending
        out = decide(state, Action("answer", intruder, {"decision": p.id, "choice": p.default}), Dice(0))
        if message is None:
            assert isinstance(out, Refusal)
        else:
            assert out == Refusal(message)
        if current_waits:
            assert isinstance(decide(state, Action("end_turn", state.current().id), Dice(0)), Refusal)
    else:
        assert isinstance(decide(state, Action("end_turn", intruder), Dice(0)), Refusal)
    assert legal_actions(state, intruder) == []
    assert state.to_dict() == before


def gm_action(
    state: BattleState,
    rng: random.Random,
    statuses: Iterable[str],
    move: Callable[[random.Random], dict[str, Any]],
    *,
    power: Callable[[random.Random], int] | None = None,
    cuts: tuple[float, float, float] = (0.4, 0.8, 0.9),
) -> Action:
    """A random GM override: set HP, add a status, skip the turn, or move (``move(rng)`` gives to/row)."""
    c = rng.choice(list(state.combatants.values()))
    roll = rng.random()
    if roll < cuts[0]:
        return Action("gm.set_hp", None, {"combatant": c.id, "hp": rng.randint(0, c.max_hp)})
    if roll < cuts[1]:
        params: dict[str, Any] = {"combatant": c.id, "status": rng.choice(sorted(statuses))}
        if power is not None:
            params["power"] = power(rng)
        params["duration"] = rng.randint(1, 3)
        return Action("gm.add_status", None, params)
    if roll < cuts[2] and state.pending is None:
        return Action("gm.skip_turn", None, {})
    return Action("gm.move", None, {"combatant": c.id, **move(rng)})


def play_random(
    state: BattleState,
    log: list,
    rng: random.Random,
    seed: int,
    steps: int,
    *,
    check: Check,
    gm: Callable[[BattleState, random.Random], Action],
    gm_rate: float,
    end_turn_weight: float = 0.15,
    refused: Callable[..., None] = others_are_refused,
    before_step: Callable[[BattleState, Action], None] | None = None,
) -> BattleState:
    """Play up to ``steps`` random actions (GM overrides at ``gm_rate``), checking every step and the replays."""
    snapshots = {len(log): state.to_dict()}
    check(state, log)
    for _ in range(steps):
        action = gm(state, rng) if rng.random() < gm_rate else random_action(state, rng, end_turn_weight)
        if action is None:
            break
        if action.kind != "answer" and not action.kind.startswith("gm."):
            refused(state, action, rng)
        if before_step is not None:
            before_step(state, action)
        before = state.to_dict()
        out = resolve(state, action, Dice(seed, state.seq))
        assert state.to_dict() == before  # deciding never mutates
        if isinstance(out, Refusal):
            assert action.kind.startswith("gm."), (action, out)  # legal actions are always accepted
            continue
        own = RULESETS[state.ruleset].params
        assert param_problems(action.kind, action.params, own) == [], action  # named as ACTION_PARAMS says
        events, new_state = out
        folded = state
        for e in events:
            folded = apply(folded, e)
        assert folded.to_dict() == new_state.to_dict()
        state = new_state
        log += events
        check(state, log)
        snapshots[len(log)] = state.to_dict()
    rebuilt = replay(json.loads(json.dumps([e.to_dict() for e in log])))
    assert rebuilt.to_dict() == state.to_dict()
    cut = rng.choice(sorted(snapshots))  # undo back to any earlier action boundary
    assert replay(log[:cut]).to_dict() == snapshots[cut]
    return state


def play_out(
    state: BattleState, log: list, rng: random.Random, seed: int, limit: int, check: Check
) -> BattleState:
    """Play random legal actions (every one accepted) until nobody can act or ``limit``; the log replays exactly."""
    for _ in range(limit):
        action = random_action(state, rng)
        if action is None:
            break
        out = resolve(state, action, Dice(seed, state.seq))
        assert not isinstance(out, Refusal), (action, out)
        assert param_problems(action.kind, action.params, RULESETS[state.ruleset].params) == [], action
        events, state = out
        log += events
        check(state, log)
    assert replay(log).to_dict() == state.to_dict()
    return state


def junk_actions(templates: dict[str, dict], words: list[str], extra_keys: Iterable[str]):
    """Strategy of ``(kind, params)``: each template's params with up to two keys replaced or added by junk.

    A template key ``kind:variant`` gives another template for ``kind``; templates without params (and
    ``nonsense``) get junk under any known parameter name.
    """
    values = st.recursive(
        st.none() | st.booleans() | st.integers(-5, 30) | st.text(max_size=8) | st.sampled_from(words),
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
        max_leaves=8,
    )
    param_keys = sorted({k for t in templates.values() for k in t} | set(extra_keys))
    return st.sampled_from(sorted(templates)).flatmap(
        lambda k: st.tuples(
            st.just(k.split(":")[0]),
            st.dictionaries(
                st.sampled_from(sorted(templates[k]))
                if templates[k] and k != "nonsense"
                else st.sampled_from(param_keys),
                values,
                max_size=2,
            ).map(lambda junk: {**templates[k], **junk}),
        )
    )


def accepted_or_refused_cleanly(
    state: BattleState, log: list, kind: str, actor: str | None, params: dict[str, Any]
) -> None:
    """Any input is refused without touching the state, or accepted with events that replay and serialise.

    ``actor == "current"`` stands for whoever may act now.
    """
    before = state.to_dict()
    if actor == "current":
        actor = state.pending.combatant if state.pending else state.current().id if state.current() else None
    out = resolve(state, Action(kind, actor, params), Dice(2))
    assert state.to_dict() == before
    if not isinstance(out, Refusal):
        assert replay(log + out[0]).to_dict() == out[1].to_dict()
        json.dumps([e.to_dict() for e in out[0]])


def _random_options(ruleset, rng: random.Random) -> dict:
    options = {}
    for f in ruleset.options:
        if f.kind == "bool":
            options[f.key] = rng.random() < 0.5
        elif f.kind == "choice":
            options[f.key] = rng.choice(list(f.choices))
    return options


def starter_battle(key: str, rng: random.Random, seed: int) -> tuple[list, BattleState]:
    """(log, state) of a started battle of a ruleset's whole starter cast, with random house rules:
    heroes on the left, monsters on the right (or random rows on a rows board)."""
    ruleset = RULESETS[key]
    content = importlib.import_module(ruleset.__module__ + ".content")
    roster = starter_roster(content.HEROES, content.MONSTERS, 9)
    for entry in roster:
        if ruleset.board == "rows":
            entry.pop("pos")
            entry["row"] = rng.choice(["front", "back"])
    return build_battle(key, _random_options(ruleset, rng), seed, 10, 2 * len(roster) + 1, roster)


def random_gm(state: BattleState) -> Callable[[BattleState, random.Random], Action]:
    """A random GM override for a battle of ``state``'s ruleset (its statuses, its board's moves)."""
    ruleset = RULESETS[state.ruleset]
    statuses = sorted(ruleset.status_keys(state) or ["stun"])
    if ruleset.board == "rows":
        return lambda s, g: gm_action(s, g, statuses, lambda r: {"row": r.choice(["front", "back"])})
    return lambda s, g: gm_action(
        s, g, statuses, lambda r: {"to": [r.randrange(s.width), r.randrange(s.height)]}
    )


def random_battle(key: str, seed: int, seen=None, steps: int = 120) -> list:
    """The log of a random battle of the whole starter cast (random legal actions, GM overrides now and then).

    ``seen(state, action, out)`` is called with every action submitted, before it, and its outcome.
    """
    rng = random.Random(seed)
    log, state = starter_battle(key, rng, seed)
    gm = random_gm(state)
    for _ in range(steps):
        if rng.random() < 0.1:
            action = gm(state, rng)
        else:
            action = random_action(state, rng)
        if action is None:
            break
        out = resolve(state, action, Dice(seed, state.seq))
        if seen is not None:
            seen(state, action, out)
        if not isinstance(out, Refusal):
            events, state = out
            log += events
    return log
