"""What the tactics know of a hidden foe, what they score a hit by, and the movement they use."""

from __future__ import annotations

import doctest

import pytest

from combat.engine import sight, simulate, tactics, worth
from combat.engine.actions import Action
from combat.engine.core import resolve
from combat.engine.dice import Dice
from combat.engine.rulesets.luck import HEROES as LUCK_HEROES
from combat.engine.rulesets.luck import MONSTERS as LUCK_MONSTERS
from combat.engine.rulesets.mist import HEROES as MIST_HEROES
from combat.engine.rulesets.mist import MONSTERS as MIST_MONSTERS
from combat.engine.tactics import Sight, tactics_for
from combat.engine.testing import Battle
from combat.engine.worth import expected_past, hit_worth


def mist_duel(knight_hp: int, goblin: dict | None = None, defense: int = 30) -> tuple[Battle, str, str]:
    b = Battle("mist", width=6, height=3)
    kay = b.add("Kay", "party", pos=(1, 1), **{**MIST_HEROES["Knight"], "hp": knight_hp, "defense": defense})
    gob = b.add("Goblin 2", "enemy", pos=(2, 1), kind="monster", **(goblin or MIST_MONSTERS["Goblin"]))
    return b, kay, gob


def test_a_stronger_party_never_believes_a_hidden_foe_tougher():
    # RULE: ODDS-KNOW-1
    believed = []
    for extra in (0, 8, 80):
        b, kay, gob = mist_duel(320 + extra)
        b.state.combatants[gob].hp = 60  # bloodied: the bar says under half
        sight = Sight(b.state, "party", full=False)
        believed.append((sight.max_hp(b.c(gob)), sight.hp(b.c(gob))))
    assert believed[0] == believed[1] == believed[2]
    assert believed[0][0] == 140.0  # the bestiary's Goblin, whoever the party is


def test_a_hidden_foe_is_reckoned_by_the_bestiary_of_its_kind_not_its_own_sheet():
    # RULE: ODDS-KNOW-1
    b, _, gob = mist_duel(320, {**MIST_MONSTERS["Goblin"], "hp": 500, "defense": 90})
    sight = Sight(b.state, "party", full=False)
    assert sight.max_hp(b.c(gob)) == 140.0
    assert sight.figures(b.c(gob))["defense"] == MIST_MONSTERS["Goblin"]["defense"]
    gm = Sight(b.state, "enemy", full=True)
    assert gm.max_hp(b.c(gob)) == 500.0 and gm.figures(b.c(gob))["defense"] == 90
    b.state.combatants[gob].name = "Shadow"  # no kind the bestiary knows: its average, no figures
    assert sight.figures(b.c(gob)) is None
    assert sight.max_hp(b.c(gob)) not in (500.0, float(b.c(next(iter(b.state.combatants))).max_hp))


def test_a_hit_is_worth_the_damage_past_the_defence_times_its_chance():
    # RULE: ODDS-HIT-1
    assert hit_worth("1d6", 0, 4) == 0.5  # rolls of 5 and 6 get through: 1 and 2 HP
    assert hit_worth("1d6", 0, 4, 0.5) == 0.25
    assert hit_worth("2d20+10", 0, 32) > 0  # its average 31 does not pass 32, yet high rolls do
    assert expected_past("1d8", 1, 0) == 5.5


def test_a_goblin_beside_a_foe_claws_when_the_hit_still_hurts():
    # RULE: ODDS-HIT-1
    b, kay, gob = mist_duel(320, defense=32)  # the claw's 2d20+10 averages 31: below DEF 32
    b.act("setup.start", dice=[1, 20])  # initiative: the goblin first
    assert b.state.current().id == gob
    choice = tactics_for(b.state).choose(b.state, "all")
    assert choice.action.kind == "ability" and choice.action.params["ability"] == "claw", choice
    assert choice.action.params["targets"] == [kay]


def test_a_fighter_two_squares_away_steps_in_with_its_first_blow():
    # RULE: ODDS-MOVE-1 LUCK-ACT-3
    b = Battle("luck", width=8, height=3)
    ayla = b.add("Ayla", "party", pos=(1, 1), **LUCK_HEROES["Fighter"])
    bear = b.add("Cave Bear", "enemy", pos=(3, 1), kind="monster", **LUCK_MONSTERS["Cave Bear"])
    b.act("setup.start", dice=[15, 1])  # Ayla first
    state = b.state
    first = tactics_for(state).choose(state, "side")
    step = first.action.params.get("to")
    assert first.action.kind == "ability" and step is not None, first  # a move would end beside it
    assert max(abs(step[0] - 3), abs(step[1] - 1)) == 1 and first.action.params["targets"] == [bear]
    assert "step" in first.reason
    out = resolve(state, first.action, Dice(3, state.seq))
    assert not hasattr(out, "reason"), out
    state = out[1]
    assert state.combatants[ayla].pos == step
    second = tactics_for(state).choose(state, "side", 1)
    assert second.action.kind == "ability" and second.action.params["targets"] == [bear], second
    assert Action("end_turn", ayla) != second.action


@pytest.mark.parametrize("module", [worth, sight, tactics, simulate], ids=lambda m: m.__name__)
def test_the_odds_modules_examples_run(module):
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0
