"""The simulator against exact win chances: one against one, plain attacks, both sides' figures varied.

Each fight is played FIGHTS times by the engine and the tactics on both sides; its exact chance comes
from ``combat.engine.exact`` (the rules' texts, worked out over HP). Every fight's share of wins must
land within 3 standard errors of it.
"""

from __future__ import annotations

import math

import pytest

from combat.engine import exact
from combat.engine.rulesets import RULESETS
from combat.engine.simulate import run_plans
from combat.engine.testing import Battle

FIGHTS = 200

MIST_CONTENT = {
    "abilities": {
        "jab": {"name": "Jab", "type": "chain", "cost": 1, "range": 1, "damage": "1d6"},
        "bite": {"name": "Bite", "type": "chain", "cost": 1, "range": 1, "damage": "1d10"},
    }
}
BLOCK_CONTENT = {
    "weapons": {
        "fist": {"name": "Fist", "kind": "melee", "damage": "1d6", "to_hit": 1, "damage_bonus": 0},
        "club": {"name": "Club", "kind": "melee", "damage": "2d4", "to_hit": 0, "damage_bonus": 1},
    }
}
LUCK_WEAPONS = {"sword": ("1d8", 1), "claws": ("2d4", 1)}  # the starter pack's
MIST_ABILITIES = {"jab": "1d6", "bite": "1d10"}
BLOCK_WEAPONS = {"fist": ("1d6", 1, 0), "club": ("2d4", 0, 1)}  # dice, to hit, damage bonus


def luck(hp: int, init: int, armor: int, weapon: str, crit: int = 2) -> dict:
    return {
        "hp": hp,
        "initiative": init,
        "armor": armor,
        "crit_damage": crit,
        "weapons": [weapon],
        "abilities": [],
    }


def mist(hp: int, acc: int, eva: int, defense: int, attack: int, init: int, speed: int, ability: str) -> dict:
    return {
        "hp": hp,
        "accuracy": acc,
        "evasion": eva,
        "defense": defense,
        "attack": attack,
        "initiative": init,
        "speed": speed,
        "abilities": [ability],
    }


def block(hp: int, speed: int, evasion: int, pdr: int, weapon: str) -> dict:
    # few points: Speed and Strength together never 6, what a block or dodge needs of the tactics;
    # the weapons cost none
    return {
        "hp": hp,
        "max_speed": speed,
        "max_strength": 1,
        "passive_evasion": evasion,
        "pdr": pdr,
        "ghost_power": 0,
        "weapons": [weapon],
    }


def luck_exact(a: dict, b: dict) -> float:
    def attack(x: dict, y: dict) -> exact.Dist:
        dice, bonus = LUCK_WEAPONS[x["weapons"][0]]
        return exact.turn(exact.luck_attack(dice, bonus, y["armor"], x["crit_damage"]), 2)  # LUCK-ACT-1

    first = exact.luck_first(a["initiative"], b["initiative"])
    return exact.fixed_order(a["hp"], b["hp"], attack(a, b), attack(b, a), first)


def mist_exact(a: dict, b: dict) -> float:
    def attack(x: dict, y: dict) -> exact.Dist:
        hit = exact.mist_attack(
            MIST_ABILITIES[x["abilities"][0]], x["attack"], y["defense"], x["accuracy"], y["evasion"]
        )
        return exact.turn(hit, 3)  # MIST-SLOT-1, MIST-TYPE-4: three slots of chain attacks

    first = exact.mist_first(a["initiative"], b["initiative"], a["speed"], b["speed"])
    return exact.rolled_order(a["hp"], b["hp"], attack(a, b), attack(b, a), first)


def block_exact(a: dict, b: dict) -> float:
    def attack(x: dict, y: dict) -> exact.Dist:
        dice, to_hit, bonus = BLOCK_WEAPONS[x["weapons"][0]]
        return exact.turn(exact.block_attack(dice, bonus, y["pdr"], to_hit, y["passive_evasion"]), 1)

    first = 1.0 if a["max_speed"] > b["max_speed"] else 0.0  # BLOCK-ORDER-1
    return exact.fixed_order(a["hp"], b["hp"], attack(a, b), attack(b, a), first)


# RULE: ODDS-EXACT-1 (each set-up below)
SETUPS = {
    "luck-sword-vs-claws": ("luck", None, luck(20, 2, 1, "sword"), luck(22, 0, 2, "claws", 3)),
    "luck-armored-vs-big": ("luck", None, luck(14, 0, 3, "sword"), luck(26, 1, 0, "claws")),
    "luck-even": ("luck", None, luck(18, 1, 1, "claws", 3), luck(18, 1, 1, "claws", 3)),
    "mist-jab-vs-bite": (
        "mist",
        MIST_CONTENT,
        mist(24, 50, 40, 1, 1, 2, 12, "jab"),
        mist(20, 45, 55, 0, 0, 0, 9, "bite"),
    ),
    "mist-tough-vs-quick": (
        "mist",
        MIST_CONTENT,
        mist(34, 40, 30, 2, 0, 0, 8, "jab"),
        mist(16, 60, 70, 0, 2, 3, 11, "bite"),
    ),
    "mist-even": (
        "mist",
        MIST_CONTENT,
        mist(22, 50, 50, 1, 1, 1, 10, "bite"),
        mist(22, 50, 50, 1, 1, 1, 10, "bite"),
    ),
    "block-fist-vs-club": (
        "action-block",
        BLOCK_CONTENT,
        block(14, 9, 7, 0, "fist"),
        block(16, 8, 8, 1, "club"),
    ),
    "block-slow-vs-hard": (
        "action-block",
        BLOCK_CONTENT,
        block(20, 6, 6, 0, "club"),
        block(12, 10, 9, 1, "fist"),
    ),
    "block-even": ("action-block", BLOCK_CONTENT, block(15, 4, 7, 0, "club"), block(15, 3, 7, 0, "club")),
}
EXACT = {"luck": luck_exact, "mist": mist_exact, "action-block": block_exact}


def duel(key: str, content: dict | None, a: dict, b: dict):
    battle = Battle(key, width=4, height=3, content=content)
    battle.add("Ann", "party", pos=(1, 1), **a)
    battle.add("Bo", "enemy", pos=(2, 1), kind="monster", **b)
    return battle.state


@pytest.fixture(scope="module")
def duels(sim_pool):
    names = list(SETUPS)
    plans = [(duel(*SETUPS[n]), range(FIGHTS), None) for n in names]
    return dict(zip(names, run_plans(plans, pool=sim_pool), strict=True))


@pytest.mark.parametrize("name", list(SETUPS))
def test_simple_fights_land_within_3_standard_errors_of_the_exact_win_chance(name, duels):
    # RULE: ODDS-EXACT-1
    key, _, a, b = SETUPS[name]
    assert RULESETS[key].board == "grid"
    p = EXACT[key](a, b)
    outcomes = duels[name]
    assert all(o.refused == 0 for o in outcomes)
    won = sum(o.winner == "party" for o in outcomes) / len(outcomes)
    se = math.sqrt(p * (1 - p) / len(outcomes))
    assert abs(won - p) <= 3 * se, (name, won, p, se)
