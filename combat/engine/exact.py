"""Exact win chances of simple fights, worked out from the rule texts (ODDS-EXACT-1): a check on the
simulator, which plays the same fights through the engine and the tactics.

A fight here is one against one, both standing in reach, each turn spent on plain attacks: A's
chance to win by dynamic programming over both sides' HP. An attack is a distribution of the damage
it deals (0: a miss, or a roll the defence stops), read from docs/RULESETS.md per ruleset
(``luck_attack``, ``mist_attack``, ``block_attack``); a turn is its attacks added up (``turn``); the
order of turns is fixed at the start (``fixed_order``: D20 Luck, Action Block) or rolled each round
(``rolled_order``: Mist & Rampart). No code of the engine is used: a wrong rule there shows here.

>>> sword = luck_attack("1d8", 1, armor=0, crit_times=2)
>>> round(sum(sword.values()), 9), sword[0]  # a miss on 1-5 of the d20
(1.0, 0.25)
>>> round(fixed_order(1, 1, turn(sword, 2), turn(sword, 2), a_first=1.0), 4)  # 0.9375 / (1 - 0.0625²)
0.9412
"""

from __future__ import annotations

from collections.abc import Iterable

from combat.engine.worth import distribution

Dist = dict[int, float]  # damage dealt -> its chance

__all__ = [
    "block_attack",
    "fixed_order",
    "luck_attack",
    "luck_first",
    "mist_attack",
    "mist_first",
    "rolled_order",
    "turn",
]


def _add(into: Dist, amount: int, p: float) -> None:
    into[amount] = into.get(amount, 0.0) + p


def _times(expr: str, n: int) -> Iterable[tuple[int, float]]:
    """The totals of ``n`` rolls of ``expr`` added up."""
    return distribution("+".join([expr] * n))


def luck_attack(
    dice: str, bonus: int, armor: int, crit_times: int, miss_max: int = 5, crit_min: int = 20
) -> Dist:
    """LUCK-HIT-3, LUCK-CRIT-1, LUCK-DMG-1: a d20 of ``miss_max`` or less misses, ``crit_min`` or more
    rolls the dice and adds the bonus ``crit_times`` times; the Armor comes off once."""
    out: Dist = {}
    miss, crit = miss_max / 20, (21 - crit_min) / 20
    _add(out, 0, miss)
    for total, p in distribution(dice):
        _add(out, max(0, total + bonus - armor), p * (1 - miss - crit))
    for total, p in _times(dice, crit_times):
        _add(out, max(0, total + crit_times * bonus - armor), p * crit)
    return out


def mist_attack(dice: str, attack: int, defence: int, accuracy: int, evasion: int) -> Dist:
    """MIST-HIT-1, MIST-DMG-1: 1d100 + Accuracy meets Evasion to hit; the roll plus Attack less DEF."""
    hit = min(1.0, max(0.0, (101 - (evasion - accuracy)) / 100))
    out: Dist = {0: 1 - hit}
    for total, p in distribution(dice):
        _add(out, max(0, total + attack - defence), p * hit)
    return out


def block_attack(dice: str, bonus: int, pdr: int, to_hit: int, evasion: int) -> Dist:
    """BLOCK-HIT-1/2, BLOCK-CRIT-1, BLOCK-DMG-1: 2d6 + To Hit meets Evasion; a 12 that hits doubles
    the roll, the bonus and the reduction; damage at least 0."""
    out: Dist = {}
    for base, p in distribution("2d6"):
        if base + to_hit < evasion:
            _add(out, 0, p)
            continue
        k = 2 if base == 12 else 1
        for total, q in distribution(dice):
            _add(out, max(0, k * (total + bonus - pdr)), p * q)
    return out


def turn(attack: Dist, n: int) -> Dist:
    """The damage of ``n`` attacks in one turn, added up (past the target's HP it no longer matters)."""
    out: Dist = {0: 1.0}
    for _ in range(n):
        nxt: Dist = {}
        for a, p in out.items():
            for b, q in attack.items():
                _add(nxt, a + b, p * q)
        out = nxt
    return out


def _first(a: int, b: int, tie_a: float) -> float:
    """The chance that 1d20 + ``a`` beats 1d20 + ``b``, a tie going to A with chance ``tie_a``."""
    win = sum(1 for x in range(1, 21) for y in range(1, 21) if x + a > y + b) / 400
    tie = sum(1 for x in range(1, 21) for y in range(1, 21) if x + a == y + b) / 400
    return win + tie * tie_a


def luck_first(init_a: int, init_b: int) -> float:
    """LUCK-INIT-1/2: 1d20 + initiative, ties to the higher bonus, else rolled again."""
    if init_a != init_b:
        return _first(init_a, init_b, 1.0 if init_a > init_b else 0.0)
    return 0.5


def mist_first(init_a: int, init_b: int, speed_a: int, speed_b: int) -> float:
    """MIST-INIT-1/2: each round 1d20 + initiative, ties to the higher Speed, else a roll-off."""
    return _first(init_a, init_b, 1.0 if speed_a > speed_b else 0.0 if speed_a < speed_b else 0.5)


def fixed_order(hp_a: int, hp_b: int, turn_a: Dist, turn_b: Dist, a_first: float) -> float:
    """A's chance to win when A and B take turns in an order set once (A first with chance
    ``a_first``), each turn dealing ``turn_a`` or ``turn_b``."""
    zero_a, zero_b = turn_a.get(0, 0.0), turn_b.get(0, 0.0)
    loop = 1 - zero_a * zero_b
    on_a: dict[tuple[int, int], float] = {}  # A to act
    on_b: dict[tuple[int, int], float] = {}
    for ha in range(1, hp_a + 1):
        for hb in range(1, hp_b + 1):
            s_a = sum(p * (1.0 if d >= hb else on_b[ha, hb - d]) for d, p in turn_a.items() if d > 0)
            s_b = sum(p * (0.0 if d >= ha else on_a[ha - d, hb]) for d, p in turn_b.items() if d > 0)
            on_a[ha, hb] = (s_a + zero_a * s_b) / loop
            on_b[ha, hb] = s_b + zero_b * on_a[ha, hb]
    return a_first * on_a[hp_a, hp_b] + (1 - a_first) * on_b[hp_a, hp_b]


def rolled_order(hp_a: int, hp_b: int, turn_a: Dist, turn_b: Dist, a_first: float) -> float:
    """A's chance to win when the order is rolled every round (A first with chance ``a_first``)."""
    zero = turn_a.get(0, 0.0) * turn_b.get(0, 0.0)
    v: dict[tuple[int, int], float] = {}
    for ha in range(1, hp_a + 1):
        for hb in range(1, hp_b + 1):
            a_then_b = b_then_a = 0.0
            for da, p in turn_a.items():
                for db, q in turn_b.items():
                    if da == 0 and db == 0:
                        continue
                    rest = 0.0 if db >= ha or da >= hb else v[ha - db, hb - da]
                    a_then_b += p * q * (1.0 if da >= hb else rest)
                    b_then_a += p * q * (0.0 if db >= ha else 1.0 if da >= hb else rest)
            v[ha, hb] = (a_first * a_then_b + (1 - a_first) * b_then_a) / (1 - zero)
    return v[hp_a, hp_b]
