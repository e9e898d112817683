"""The odds of a planned fight: steady across seed sets, and right about lopsided fights."""

from __future__ import annotations

import pytest

from combat.engine.rulesets import RULESETS
from combat.engine.simulate import lineup, odds, run, run_plans

KEYS = sorted(RULESETS)


def weakest(sheets: dict) -> tuple[str, dict]:
    return min(sheets.items(), key=lambda kv: (kv[1].get("hp", 0), kv[0]))


def lopsided(key: str):
    """Four heroes against the ruleset's weakest monster, and its weakest hero against four monsters."""
    r = RULESETS[key]
    heroes = list(r.heroes.items())
    four = [(f"{n} {i}", s) for i, (n, s) in enumerate(heroes[i % len(heroes)] for i in range(4))]
    monsters = list(r.monsters.items())
    horde = [(f"{n} {i}", s) for i, (n, s) in enumerate(monsters[i % len(monsters)] for i in range(4))]
    return lineup(key, four, [weakest(r.monsters)]), lineup(key, [weakest(r.heroes)], horde)


@pytest.fixture(scope="module")
def played(sim_pool):
    """Every fight of this module's odds, played together over the shared pool (it stays busy to the
    end), once: the lopsided fights of each ruleset (60 each way), then an even match run twice, 500
    fights each with its own seeds (the demo party against itself in Paradigm Rows, the cheapest fights)."""
    plans = {}
    for key in KEYS:
        walkover, massacre = lopsided(key)
        plans[("walkover", key)] = (walkover, range(60), None)
        plans[("massacre", key)] = (massacre, range(60), None)
    party = list(RULESETS["paradigm"].heroes.items())[:2]
    even = lineup("paradigm", party, party)
    plans[("even", 1)] = (even, range(500), None)
    plans[("even", 2)] = (even, range(10_000, 10_500), None)
    return {
        name: odds(out)
        for name, out in zip(plans, run_plans(list(plans.values()), pool=sim_pool), strict=True)
    }


def test_two_runs_of_500_with_different_seeds_agree_within_5_points(played):
    first, second = played[("even", 1)], played[("even", 2)]
    assert first.fights == second.fights == 500
    assert 0.1 < first.win < 0.9  # a fight whose outcome is in doubt, or the check says little
    assert abs(first.win - second.win) <= 0.05, (first.win, second.win)


@pytest.mark.parametrize("key", KEYS)
def test_four_against_one_weak_monster_is_a_walkover_and_the_reverse_a_massacre(key, played):
    walkover, massacre = played[("walkover", key)], played[("massacre", key)]
    assert walkover.fights == massacre.fights == 60
    assert walkover.win >= 0.95, walkover.win
    assert massacre.win <= 0.05, massacre.win
    down = {m["name"]: m["down"] for m in massacre.members}
    assert list(down.values()) and all(0.0 <= v <= 1.0 for v in down.values())


# What a fight spends and no turn gives back, by ruleset; per-turn resources never show.
STOCK = {
    "mist": ({"MP", "LP"}, set()),
    "paradigm": ({"Anima"}, {"Potion", "Antidote", "Ether", "Bomb"}),
    "luck": ({"Healing Potion"}, set()),
    "action-block": ({"Speed Points", "Strength Points"}, set()),
}
PER_TURN = {"Actions", "Interrupt", "AP", "Slots", "Move", "Offensive", "Movement", "Verbal", "PDR"}


@pytest.mark.parametrize("key", KEYS)
def test_the_odds_average_only_what_a_fight_spends_and_no_turn_gives_back(key):
    heroes = list(RULESETS[key].heroes.items())[:2]
    result = odds(run(lineup(key, heroes, [weakest(RULESETS[key].monsters)]), range(8)))
    own, shared = STOCK[key]
    named = {s["name"] for m in result.members for s in m["stock"]}
    assert named == own and {s["name"] for s in result.shared} == shared, (named, result.shared)
    assert not {n.title() for n in named} & {p.title() for p in PER_TURN}
    for s in [s for m in result.members for s in m["stock"]] + result.shared:
        assert 0 <= s["left"] <= (s["full"] if s["full"] is not None else 999), s
