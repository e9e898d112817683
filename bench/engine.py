"""Engine benchmark: seeded random battles of every playable ruleset, then a 1000-event rebuild.

Prints figures per ruleset and, as its last line,
``actions_per_s=<N> rebuild_1000_ms=<M>``: decided + applied actions per
second over all battles, and the time to replay a 1000-event log.
Run: ``.venv/bin/python bench/engine.py [--battles N]``.
"""

from __future__ import annotations

import argparse
import gc
import pathlib
import random
import statistics
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

from combat.engine.actions import Action, Refusal  # noqa: E402
from combat.engine.autoplay import random_action  # noqa: E402
from combat.engine.core import new_battle_event, replay, resolve  # noqa: E402
from combat.engine.dice import Dice  # noqa: E402
from combat.engine.rulesets import RULESETS  # noqa: E402

MAX_ACTIONS = 3000


def roster(key: str) -> list[tuple[str, str, dict]]:
    """(name, side, sheet) of each side for a ruleset: its sample characters if it has some."""
    module = sys.modules[RULESETS[key].__module__]
    heroes = getattr(module, "HEROES", None)
    monsters = getattr(module, "MONSTERS", None)
    if heroes and monsters:
        return [(n, "party", s) for n, s in heroes.items()] + [(n, "enemy", s) for n, s in monsters.items()]
    defaults = RULESETS[key].sheet_schema.defaults()
    return [(f"Hero {i}", "party", defaults) for i in range(3)] + [
        (f"Foe {i}", "enemy", defaults) for i in range(2)
    ]


def setup(key: str, seed: int):
    rules = RULESETS[key]
    log = [new_battle_event(key, {}, seed, 12, 10, [[6, 4], [6, 5]])]
    state = replay(log)
    count = {"party": 0, "enemy": 0}
    for i, (name, side, sheet) in enumerate(roster(key)):
        params = {
            "name": name,
            "side": side,
            "sheet": sheet,
            "controller": str(i) if side == "party" else None,
        }
        j = count[side]
        count[side] += 1
        if rules.board == "grid":
            params["pos"] = [
                (0 if side == "party" else 11) + (j // 5) * (1 if side == "party" else -1),
                2 * (j % 5),
            ]
        else:
            params["row"] = "front" if i % 2 == 0 else "back"
        events, state = resolve(state, Action("setup.add_combatant", None, params), Dice(seed, state.seq))
        log += events
    events, state = resolve(state, Action("setup.start"), Dice(seed, state.seq))
    log += events
    return log, state


REFUSED: dict[str, int] = {}


def play(key: str, seed: int) -> tuple[int, float, list]:
    """Play one random battle; return (actions, seconds spent deciding+applying, log)."""
    log, state = setup(key, seed)
    rng = random.Random(seed)
    actions = 0
    spent = 0.0
    for _ in range(MAX_ACTIONS):
        action = random_action(state, rng)
        if action is None:
            break
        t0 = time.perf_counter()
        out = resolve(state, action, Dice(seed, state.seq))
        spent += time.perf_counter() - t0
        if isinstance(out, Refusal):  # a legal action refused is a bug: report it, stop this battle
            REFUSED[key] = REFUSED.get(key, 0) + 1
            print(
                f"warning: {key} seed {seed}: legal action refused: {action} -> {out.reason}", file=sys.stderr
            )
            break
        events, state = out
        log += events
        actions += 1
    return actions, spent, log


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--battles", type=int, default=40)
    args = ap.parse_args()
    gc.freeze()
    playable = [k for k, r in RULESETS.items() if r.implements_actions()]
    total_actions, total_time = 0, 0.0
    longest: list = []
    for key in playable:
        n_actions, t_spent, rounds, events = 0, 0.0, [], 0
        for seed in range(args.battles):
            actions, spent, log = play(key, seed)
            n_actions += actions
            t_spent += spent
            events += len(log)
            rounds.append(replay(log).round)
            if len(log) > len(longest):
                longest = log
        total_actions += n_actions
        total_time += t_spent
        print(
            f"{key:14} battles={args.battles} actions={n_actions} events={events} "
            f"median_rounds={statistics.median(rounds)} actions_per_s={n_actions / t_spent:.0f} "
            f"us_per_action={1e6 * t_spent / n_actions:.1f} refused_legal={REFUSED.get(key, 0)}"
        )
    for seed in range(1000, 1200):  # find a battle long enough (bounded search)
        if len(longest) >= 1000:
            break
        _, _, extra = play(playable[0], seed)
        longest = extra if len(extra) > len(longest) else longest
    # The services rebuild from stored rows: JSON dicts, so time the dict -> Event conversion too.
    log1000 = [e.to_dict() for e in longest[:1000]]
    samples = []
    for _ in range(7):
        t0 = time.perf_counter()
        replay(log1000)
        samples.append(time.perf_counter() - t0)
    snapshot_ms = []
    state = replay(log1000)
    for _ in range(7):
        t0 = time.perf_counter()
        type(state).from_dict(state.to_dict())
        snapshot_ms.append(1000 * (time.perf_counter() - t0))
    rebuild_ms = 1000 * statistics.median(samples)
    print(
        f"rebuild of {len(log1000)} events: median {rebuild_ms:.2f} ms; snapshot round trip "
        f"{statistics.median(snapshot_ms):.3f} ms; playable rulesets: {', '.join(playable)}"
    )
    print(f"actions_per_s={total_actions / total_time:.0f} rebuild_1000_ms={rebuild_ms:.1f}")


if __name__ == "__main__":
    main()
