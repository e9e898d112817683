"""The simulator's own rules: when a fight is called a draw."""

from __future__ import annotations

import pytest

from combat.engine import simulate
from combat.engine.actions import Action
from combat.engine.simulate import STALL_ROUNDS, lineup, play
from combat.engine.tactics import tactics_for

SHEET = {"hp": 60, "initiative": 0, "armor": 0, "movement": 5, "weapons": ["sword"], "abilities": []}


@pytest.fixture
def strike_in_round_six(monkeypatch):
    """Both sides end every turn at once, except the last turn of round 6: the tactics play it (two
    blows, then the end of the turn). Returns the HP of everyone summed before each step of that turn."""
    seen: list[int] = []

    def policy(state, policy, sees, steps, rng):
        c = state.current()
        if state.round == 6 and state.turn == len(state.order) - 1:
            seen.append(sum(x.hp for x in state.combatants.values()))
            choice = tactics_for(state).choose(state, sees, steps)
            return choice.action if choice else None
        return Action("end_turn", c.id) if c is not None else None

    monkeypatch.setattr(simulate, "_policy_action", policy)
    return seen


def test_a_fight_is_no_draw_right_after_a_hit(strike_in_round_six):
    # RULE: ODDS-DRAW-1
    setup = lineup("luck", [("Ayla", SHEET)], [("Bear", SHEET)], width=2, height=1)
    struck = 0
    for seed in range(8):
        strike_in_round_six.clear()
        out = play(setup, seed)
        assert out.winner is None  # nobody falls from one turn of blows
        assert len(strike_in_round_six) == 3  # two blows and the end of the turn were played
        if min(strike_in_round_six) < 120:  # a blow landed in the last turn of round 6
            struck += 1
            assert out.rounds == 6 + STALL_ROUNDS, (seed, out.rounds)
        else:
            assert out.rounds == 1 + STALL_ROUNDS, (seed, out.rounds)  # quiet since the start
    assert struck, "no seed landed a blow in round 6"
