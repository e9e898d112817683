"""What a hit is worth to the tactics: the HP it is expected to take past a defence, times its chance.

One idea for every ruleset (ODDS-HIT-1): ``hit_worth(dice, bonus, defence, chance)`` is the average
of ``dice + bonus - defence`` where a roll below the defence counts 0, times the chance that the hit
lands. A sum of dice and numbers ("2d20+10", "1d6+1d4-1") is worked out exactly; any other expression
the dice read from 400 rolls with fixed seeds (the same figures every time).

>>> hit_worth("1d6", 0, 4)
0.5
>>> hit_worth("2d20+10", 0, 32, 0.5)  # the average 31 is below 32, yet a hit still hurts
1.43
"""

from __future__ import annotations

import functools
import re
from collections import Counter

from combat.engine.dice import Dice, DiceError

__all__ = ["distribution", "expected", "expected_past", "hit_worth"]

_TERM = re.compile(r"\s*([+-])?\s*(?:(\d*)d(\d+)|(\d+))\s*")
SAMPLES = 400  # rolls of an expression that is more than a sum of dice and numbers


def _exact(expr: str) -> dict[int, float] | None:
    """The totals of a sum of ``NdM`` and numbers with their chances; None for anything else."""
    dist: dict[int, float] = {0: 1.0}
    pos = 0
    while pos < len(expr):
        m = _TERM.match(expr, pos)
        if m is None or m.end() == pos or (pos and not m.group(1)):
            return None
        sign = -1 if m.group(1) == "-" else 1
        if m.group(4) is not None:
            dist = {t + sign * int(m.group(4)): p for t, p in dist.items()}
        else:
            n, faces = int(m.group(2) or 1), int(m.group(3))
            if n > 20 or faces < 1 or faces > 100:
                return None
            for _ in range(n):
                nxt: dict[int, float] = {}
                for t, p in dist.items():
                    for f in range(1, faces + 1):
                        nxt[t + sign * f] = nxt.get(t + sign * f, 0.0) + p / faces
                dist = nxt
        pos = m.end()
    return dist


@functools.lru_cache(maxsize=512)
def distribution(expr: str) -> tuple[tuple[int, float], ...]:
    """The totals of ``expr`` with their chances, lowest first (none: it cannot be rolled)."""
    exact = _exact(expr) if expr.strip() else None
    if exact is not None:
        return tuple(sorted(exact.items()))
    try:
        totals = Counter(Dice(0, i).roll(expr, "estimate").total for i in range(SAMPLES))
    except DiceError:
        return ()
    return tuple((t, n / SAMPLES) for t, n in sorted(totals.items()))


@functools.lru_cache(maxsize=4096)
def expected_past(expr: str, bonus: float, reduction: float) -> float:
    """The average of ``expr + bonus - reduction`` where a roll below the reduction counts 0.

    >>> expected_past("1d6", 0, 4)
    0.5
    """
    rolls = distribution(expr) if expr else ((0, 1.0),)
    return round(sum(max(0.0, r + bonus - reduction) * p for r, p in rolls), 2)


def hit_worth(expr: str, bonus: float, defence: float, chance: float = 1.0) -> float:
    """The HP a hit of ``expr + bonus`` is expected to take past ``defence``, times the ``chance``
    that it lands (ODDS-HIT-1): what every ruleset's tactics score a hit by."""
    return round(expected_past(expr, bonus, defence) * chance, 2)


@functools.lru_cache(maxsize=512)
def expected(expr: str) -> float:
    """The average of a dice expression (``"2d6+1"`` -> 8.0), or 0 when it cannot be rolled; to the
    half point (steady across versions).

    >>> expected("2d6+1")
    8.0
    """
    return round(sum(r * p for r, p in distribution(expr)) * 2) / 2 if expr else 0.0
