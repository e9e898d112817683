"""Property tests: random Mist & Rampart battles keep the engine's and the rules' invariants.

Random sequences of legal actions (rampart reactions and GM overrides
included) never break HP, LP, MP, slot or movement bounds, never leave two
living tokens on one square, only the current actor or the addressee of a
pending decision may act, and replaying the log rebuilds exactly the
incrementally applied state (also for every shorter prefix: undo).
"""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from combat.engine.rulesets.mist.content import HEROES, MONSTERS, STARTER
from combat.engine.rulesets.mist.rules import can_act
from tests.engine.properties import (
    build_battle,
    gm_action,
    play_out,
    play_random,
    random_battles,
    random_roster,
    starter_roster,
)

SHEETS = [*HEROES.values(), *MONSTERS.values()]
WIDTH, HEIGHT, WALL = 8, 6, [4, 2]

stat_tweaks = st.fixed_dictionaries(
    {
        "hp": st.integers(1, 300),
        "lp": st.integers(1, 3),
        "mp_gain": st.integers(0, 4),
        "initiative": st.integers(-3, 5),
        "speed": st.integers(0, 3),
        "movement": st.integers(0, 6),
        "action_slots": st.integers(1, 4),
        "rampart": st.integers(0, 2),
        "heavy_armor": st.booleans(),
        "defense": st.integers(0, 40),
        "evasion": st.integers(0, 120),
        "conscious_at_ko": st.booleans(),
    }
)
fighter = st.tuples(st.sampled_from(SHEETS), stat_tweaks, st.booleans()).map(
    lambda t: ({**t[0], **t[1]}, t[2])
)


def _check_invariants(state, log):
    assert state.seq == len(log)  # contiguous: one seq per event, none skipped
    squares = []
    for c in state.combatants.values():
        r = c.resources
        assert 0 <= c.hp <= c.max_hp, (c.name, c.hp, c.max_hp)
        assert c.ko == (c.hp <= 0)  # MIST-KO-1
        assert 0 <= r["lp"] <= c.sheet["lp"] and c.alive == (r["lp"] > 0)  # MIST-KO-2/3
        assert r["mp"] >= 0 and r["move"] >= 0 and 0 <= r["slots"] <= c.sheet["action_slots"]
        for s in c.statuses.values():
            assert s["duration"] >= 1
        if c.alive and c.pos is not None:
            assert c.pos not in state.blocked
            squares.append(tuple(c.pos))
    if state.pending is None:
        assert len(squares) == len(set(squares)), squares  # MIST-MOVE-3: nobody ends on another
    if state.phase == "active" and state.pending is None:
        assert state.current() is not None and can_act(state.current())


def _gm_action(state, rng):
    return gm_action(
        state, rng, STARTER["statuses"], lambda r: {"to": [r.randrange(WIDTH), r.randrange(HEIGHT)]}
    )


@random_battles(
    fighter,
    {
        "initiative_die": st.sampled_from(["1d20", "1d10", "2d6", "1d100"]),
        "disengage_type": st.sampled_from(["simple", "static"]),
        "accuracy_adds_d100": st.booleans(),
        "weakness_multiplier": st.integers(1, 5),
        "npc_reactions": st.sampled_from(["auto", "ask"]),
    },
    max_steps=150,
    max_examples=40,
)
def test_random_mist_battles_keep_invariants_and_replay(party, enemies, seed, options, steps):
    # RULE: ENG-1
    # RULE: ENG-8
    # RULE: MIST-RAMP-3
    rng = random.Random(seed)
    roster = random_roster(party, enemies, lambda i: [0, i], lambda i: [WIDTH - 1, HEIGHT - 1 - i])
    log, state = build_battle("mist", options, seed, WIDTH, HEIGHT, roster, [WALL])
    play_random(
        state,
        log,
        rng,
        seed,
        steps,
        check=_check_invariants,
        gm=_gm_action,
        gm_rate=0.06,
        end_turn_weight=0.1,
    )


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**31))
def test_whole_mist_battles_with_the_starter_party_replay_identically(seed):
    # RULE: ENG-1
    rng = random.Random(seed)
    log, state = build_battle(
        "mist", {}, seed, 12, 10, starter_roster(HEROES, MONSTERS, 11), [[6, 4], [6, 5]]
    )
    play_out(state, log, rng, seed, 400, _check_invariants)
