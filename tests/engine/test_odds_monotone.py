"""More HP or more damage for the party never lowers its win chance beyond noise (ODDS-MONO-1).

Set-ups of every ruleset: a sample hero (its HP scaled so that the fight is close) against one of the
ruleset's monsters, enemy HP hidden from the party. Each is played FIGHTS times as
it is, with the party's HP raised, and with its damage raised, on the same seeds; the stronger
party's share of wins may fall below the first by no more than 3 standard errors of the paired
difference.
"""

from __future__ import annotations

import math

import pytest

from combat.engine.rulesets import RULESETS
from combat.engine.simulate import lineup, run_plans

FIGHTS = 100
MORE_HP = 0.3  # the party's HP, 30 % more
MORE_DAMAGE = {  # a sheet figure that adds to every hit the party deals (or, in D20 Luck, lands it)
    "mist": ("attack", 8),
    "paradigm": ("attack_bonus", 2),
    "luck": ("luck_bonus", 3),
    "action-block": ("damage_bonus", 2),
}


# (ruleset, sample hero, its HP scaled by, sample monster): close fights, by trial
SETUPS = [
    ("action-block", "Duelist", 1.0, "Drill Automaton"),
    ("luck", "Ranger", 1.5, "Cave Bear"),
    ("mist", "Mage", 2.2, "Iron Golem"),
    ("mist", "Cleric", 0.6, "Goblin"),
    ("paradigm", "Mage", 0.6, "Ogre"),
]
IDS = [f"{k}-{h}-{m}" for k, h, _, m in SETUPS]


def variants(key: str, name: str, scale: float, foe: str) -> list:
    """The set-up as it is, with the party's HP raised, and with its damage raised."""
    r = RULESETS[key]
    hero = {**r.heroes[name], "hp": max(4, round(r.heroes[name]["hp"] * scale))}
    stat, step = MORE_DAMAGE[key]
    stronger = [{**hero, "hp": round(hero["hp"] * (1 + MORE_HP))}, {**hero, stat: hero.get(stat, 0) + step}]
    options = r.default_options() | {"hide_enemy_hp": True}
    return [
        lineup(key, [(name, v)], [(f"{foe} 1", r.monsters[foe])], 8, 6, options) for v in [hero, *stronger]
    ]


@pytest.fixture(scope="module")
def played(sim_pool):
    plans = [(s, range(FIGHTS), None) for setup in SETUPS for s in variants(*setup)]
    out = run_plans(plans, pool=sim_pool)
    return {name: out[3 * i : 3 * i + 3] for i, name in enumerate(IDS)}


@pytest.mark.parametrize("name", IDS)
def test_more_hp_or_more_damage_never_lowers_the_party_win_chance_beyond_noise(name, played):
    # RULE: ODDS-MONO-1 ODDS-KNOW-1
    base, *stronger = played[name]
    won = [o.winner == "party" for o in base]
    for variant in stronger:
        diffs = [int(o.winner == "party") - int(w) for o, w in zip(variant, won, strict=True)]
        mean = sum(diffs) / len(diffs)
        var = sum((d - mean) ** 2 for d in diffs) / (len(diffs) - 1)
        se = max(math.sqrt(var / len(diffs)), 1 / len(diffs))
        assert mean >= -3 * se, (name, sum(won) / len(won), mean, se)
