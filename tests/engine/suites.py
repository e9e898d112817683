"""The suites every registered ruleset goes through, as functions of its key.

``tests/engine/test_every_ruleset.py`` runs them over the registry (a new ruleset is in them at the next
run, with no edit); ``tests/engine/test_ruleset_guide.py`` runs them on the grid ruleset that
docs/RULESET_GUIDE.md spells out, built from its code blocks.

- ``properties_hold``: random battles of the starter cast (random legal actions, GM overrides) keep
  the engine's invariants, the log replays (and undoes) to the state played, nobody else may act;
- ``tactics_play_fair``: the rules' tactics on both sides choose only offered options, end the fight
  within the round cap and play the same fight again under the same seed.
"""

from __future__ import annotations

import random
from functools import partial

from combat.engine.actions import Action
from combat.engine.core import legal_actions
from combat.engine.rulesets import RULESETS
from combat.engine.simulate import ROUND_CAP, lineup, play
from combat.engine.state import BattleState
from tests.engine.properties import others_are_refused, play_random, random_gm, starter_battle


def generic_invariants(state: BattleState, log: list) -> None:
    """What holds in every ruleset: one seq per event, HP within its bounds, an able current combatant."""
    assert state.seq == len(log)
    for c in state.combatants.values():
        assert c.hp <= c.max_hp, (c.name, c.hp, c.max_hp)
    if state.phase == "active" and state.pending is None and state.current() is not None:
        assert state.current().able or state.current().ko, state.current()


def properties_hold(key: str, seed: int, steps: int = 80) -> int:
    """Plays one random battle of ``key`` with every step checked; returns the events it logged."""
    rng = random.Random(seed)
    log, state = starter_battle(key, rng, seed)
    play_random(
        state,
        log,
        rng,
        seed,
        steps,
        check=generic_invariants,
        gm=random_gm(state),
        gm_rate=0.1,
        refused=partial(others_are_refused, message=None),
    )
    return len(log)


def fits_an_option(state: BattleState, action: Action) -> bool:
    """The action is one of ENG-5's available options with a target and a square it offers, or one
    of them taken after a step of its own (``Ruleset.plan_steps``: D20 Luck's free step)."""
    from combat.engine.context import rules_for

    step, c = action.params.get("to"), state.combatants.get(action.actor or "")
    if step is not None and c is not None and action.kind not in ("move", "double_move"):
        walks = [w for o in legal_actions(state, c.id) for _, w in rules_for(state).plan_steps(state, c, o)]
        if list(step) not in [list(w[-1]) for w in walks]:
            return False
        moved = state.clone()
        moved.combatants[c.id].pos = list(step)
        rest = {k: v for k, v in action.params.items() if k != "to"}
        return fits_an_option(moved, Action(action.kind, action.actor, rest))
    if action.kind == "answer":
        p = state.pending
        return p is not None and action.params.get("choice") in p.choice_keys()
    for o in legal_actions(state, action.actor):
        if o.kind != action.kind or not o.available:
            continue
        if any(action.params.get(k) != v for k, v in o.params.items()):
            continue
        targets = action.params.get("targets", [])
        if any(t not in o.targets for t in targets):
            continue
        square = action.params.get("to") or action.params.get("square")
        if square is not None and list(square) not in [list(s) for s in o.squares]:
            continue
        return True
    return False


def demo_party(key: str) -> list[tuple[str, dict]]:
    """The first two heroes of the ruleset (the demo's two player characters)."""
    return list(RULESETS[key].heroes.items())[:2]


def tactics_play_fair(key: str, seed: int) -> str:
    """The demo party against itself, the rules' tactics on both sides; returns the winner."""
    party = demo_party(key)
    assert party, f"{key} has no heroes to field"
    setup = lineup(key, party, [(f"{n} (foe)", s) for n, s in party])
    chosen: list[str] = []

    def watch(state: BattleState, action: Action, policy: str) -> None:
        assert fits_an_option(state, action), (action, state.current())
        chosen.append(action.kind)

    out = play(setup, seed, {}, watch=watch)
    assert out.refused == 0 and out.rounds <= ROUND_CAP, (out.refused, out.rounds)
    assert chosen, "the tactics never acted"
    assert play(setup, seed).to_dict() == out.to_dict()  # the same fight under the same seed
    return str(out.winner)
