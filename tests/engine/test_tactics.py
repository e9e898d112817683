"""Tactics: legal, deterministic, end their fights, beat the random policy, and see only what they may."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from combat.engine.actions import Action
from combat.engine.rulesets import RULESETS
from combat.engine.simulate import ROUND_CAP, lineup, play, run_plans
from combat.engine.state import BattleState
from combat.engine.tactics import tactics_for
from tests.engine.suites import fits_an_option

KEYS = sorted(RULESETS)


def cast(key: str) -> list[tuple[str, dict]]:
    r = RULESETS[key]
    return [(n, s) for n, s in r.heroes.items()] + [(n, s) for n, s in r.monsters.items()]


def demo_party(key: str) -> list[tuple[str, dict]]:
    """The demo's two player characters' sheets (the first two heroes of the ruleset)."""
    return list(RULESETS[key].heroes.items())[:2]


@pytest.mark.parametrize("key", KEYS)
@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), seed=st.integers(0, 2**31), rival=st.sampled_from(["tactics", "random"]))
def test_tactics_only_choose_legal_actions_and_every_fight_ends_within_the_cap(key, data, seed, rival):
    # RULE: ENG-5
    pool = cast(key)
    party = data.draw(st.lists(st.sampled_from(pool), min_size=1, max_size=3))
    enemies = data.draw(st.lists(st.sampled_from(pool), min_size=1, max_size=3))
    setup = lineup(key, party, [(f"{n} (foe)", s) for n, s in enemies], width=10, height=8)
    seen = []

    def watch(state, action, policy):
        if policy == "tactics":
            assert fits_an_option(state, action), (action, state.current())
            seen.append(action.kind)

    out = play(setup, seed, {"enemy": rival}, watch=watch)
    assert out.refused == 0
    assert out.rounds <= ROUND_CAP
    assert seen  # the tactics played


@pytest.mark.parametrize("key", KEYS)
def test_tactics_are_deterministic_under_the_seed(key):
    setup = lineup(key, demo_party(key), demo_party(key))
    assert play(setup, 11).to_dict() == play(setup, 11).to_dict()
    state = play_until_turn(setup, 5)
    first = tactics_for(state).choose(state)
    assert first == tactics_for(state).choose(state.clone())


def play_until_turn(setup: BattleState, seed: int) -> BattleState:
    from combat.engine.core import resolve
    from combat.engine.dice import Dice

    out = resolve(setup, Action("setup.start"), Dice(seed, setup.seq))
    assert not isinstance(out, type(None)) and not hasattr(out, "reason")
    return out[1]


@pytest.fixture(scope="module")
def mirror_matches(sim_pool):
    """The demo party against itself, per ruleset: 100 fights with tactics for the party and the random
    policy for the GM's side, 100 the other way round; every ruleset's fights played together over the
    shared pool (it stays busy to the end), once for the module."""
    plans = []
    for key in KEYS:
        setup = lineup(key, demo_party(key), demo_party(key))
        plans += [(setup, range(100), {"enemy": "random"}), (setup, range(100, 200), {"party": "random"})]
    out = run_plans(plans, pool=sim_pool)
    return {key: (out[2 * i], out[2 * i + 1]) for i, key in enumerate(KEYS)}


@pytest.mark.parametrize("key", KEYS)
def test_tactics_beat_the_random_policy_in_200_mirror_matches(key, mirror_matches):
    """The tactics side wins at least 75 % of the 200 mirror matches (see ``mirror_matches``)."""
    first, swapped = mirror_matches[key]
    wins = sum(o.winner == "party" for o in first) + sum(o.winner == "enemy" for o in swapped)
    assert len(first) + len(swapped) == 200
    assert all(o.refused == 0 for o in first + swapped)
    assert wins / 200 >= 0.75, wins
