"""How well the tactics play, and the odds of the demo encounter, per ruleset.

For every ruleset: the tactics against random play in a mirror match (the demo's two heroes on both
sides) and in a 4 vs 4 fight (its sample heroes against its monsters, each list taken round to
four), once with the tactics on the party's side (seeing what the players see) and once on the GM's
side; then the demo encounter as ``seed_demo`` sets it up (the demo's two player characters against
the ruleset's first two monsters, facing each other on an 8 x 10 board) played with the tactics on
both sides. Each line gives the win rate with its standard error.
Run: ``.venv/bin/python bench/tactics.py [--fights N] [--demo N]``.
"""

from __future__ import annotations

import argparse
import math
import pathlib
import sys
from typing import Any

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

from combat.engine import board  # noqa: E402
from combat.engine.actions import Action, Refusal  # noqa: E402
from combat.engine.core import new_battle_event, replay, resolve  # noqa: E402
from combat.engine.dice import Dice  # noqa: E402
from combat.engine.rulesets import RULESETS  # noqa: E402
from combat.engine.simulate import lineup, odds, run_parallel  # noqa: E402
from combat.engine.state import BattleState  # noqa: E402

DEMO_BOARD = (8, 10)  # combat.demo.BOARD
DEMO_MONSTERS = 2  # combat.demo.MONSTERS


def four(items: list[Any]) -> list[Any]:
    return [items[i % len(items)] for i in range(4)]


def four_vs_four(key: str) -> BattleState:
    r = RULESETS[key]
    heroes = [(f"{n} {i}", s) for i, (n, s) in enumerate(four(list(r.heroes.items())))]
    monsters = [(f"{n} {i}", s) for i, (n, s) in enumerate(four(list(r.monsters.items())))]
    return lineup(key, heroes, monsters, width=12, height=8, options=r.default_options())


def _sheet(r: Any, values: dict[str, Any]) -> dict[str, Any]:
    sheet, errors = r.validate_sheet(r.sheet_schema.defaults() | dict(values))
    if errors:
        raise ValueError(f"{errors}")
    return dict(sheet)


def demo_encounter(key: str) -> BattleState:
    """The demo battle of ``seed_demo`` in set-up (its party, two monsters, the set-up's formation)."""
    r = RULESETS[key]
    names = list(getattr(sys.modules[r.__module__], "DEMO_PARTY", ()))
    heroes = list(r.heroes.values())
    party = [(name, _sheet(r, heroes[i] if i < len(heroes) else {})) for i, name in enumerate(names[:2])]
    foes = [(name, _sheet(r, v)) for name, v in list(r.monsters.items())[:DEMO_MONSTERS]]
    width, height = DEMO_BOARD
    state = replay([new_battle_event(key, r.default_options(), 1, width, height)])
    places: list[dict[str, Any]]
    if r.board == "rows":
        places = [{"row": r.starting_row(s)} for _, s in party + foes]
    else:
        gap = min(r.move_squares(s) for _, s in party + foes)
        left, right = board.facing_lines(width, height, (len(party), len(foes)), gap)
        places = [{"pos": list(sq)} for sq in left[: len(party)] + right[: len(foes)]]
    fighters = [("party", n, s) for n, s in party] + [("enemy", n, s) for n, s in foes]
    for (side, name, sheet), place in zip(fighters, places, strict=True):
        params = {
            "name": name,
            "side": side,
            "kind": "pc" if side == "party" else "monster",
            "sheet": sheet,
            "controller": "1" if side == "party" else None,
            **place,
        }
        out = resolve(state, Action("setup.add_combatant", None, params), Dice(1, state.seq))
        if isinstance(out, Refusal):
            raise ValueError(out.reason)
        state = out[1]
    return state


def rate(setup: BattleState, fights: int, policies: dict[str, str] | None, side: str) -> str:
    outcomes = run_parallel(setup, range(fights), policies, workers=2)
    wins = sum(o.winner == side for o in outcomes) / len(outcomes)
    draws = sum(o.winner is None for o in outcomes) / len(outcomes)
    se = math.sqrt(wins * (1 - wins) / len(outcomes))
    refused = sum(o.refused for o in outcomes)
    return f"win={wins:.3f}±{se:.3f} draws={draws:.3f} refused={refused}"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--fights", type=int, default=200, help="4 vs 4 fights per ruleset and side")
    ap.add_argument("--demo", type=int, default=1000, help="fights of the demo encounter per ruleset")
    args = ap.parse_args()
    for key in RULESETS:
        pair = list(RULESETS[key].heroes.items())[:2]
        mirror = lineup(key, pair, pair, options=RULESETS[key].default_options())
        party = rate(mirror, args.fights, {"party": "tactics", "enemy": "random"}, "party")
        enemy = rate(mirror, args.fights, {"party": "random", "enemy": "tactics"}, "enemy")
        print(f"{key:14} mirror match, tactics vs random: as party {party}; as GM {enemy}")
    for key in RULESETS:
        setup = four_vs_four(key)
        party = rate(setup, args.fights, {"party": "tactics", "enemy": "random"}, "party")
        enemy = rate(setup, args.fights, {"party": "random", "enemy": "tactics"}, "enemy")
        print(f"{key:14} 4v4, tactics vs random: as party {party}; as GM {enemy}")
    for key in RULESETS:
        outcomes = run_parallel(demo_encounter(key), range(args.demo), workers=2)
        o = odds(outcomes)
        se = math.sqrt(o.win * (1 - o.win) / o.fights)
        print(
            f"{key:14} demo encounter: party_win={o.win:.3f}±{se:.3f} draws={o.draws:.3f} "
            f"median_rounds={o.median_rounds} refused={sum(x.refused for x in outcomes)}"
        )


if __name__ == "__main__":
    main()
