"""Simulation benchmark: planned fights played to the end with tactics on both sides.

For every ruleset: 4 vs 4 fights (its sample heroes against its monsters, each
list taken round to four) in this process, then the demo encounter (the demo's
two player characters against the ruleset's monsters) played 500 times over a
process pool of one worker and of two, the pools started before the clock (the
server keeps one running). Prints figures per ruleset, the machine's load, and
as its last line ``battles_per_s=<N>``: 4 vs 4 fights per second on one core.
Run: ``.venv/bin/python bench/sim.py [--fights N] [--demo N]``.
"""

from __future__ import annotations

import argparse
import gc
import multiprocessing
import os
import pathlib
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

from combat.engine.rulesets import RULESETS  # noqa: E402
from combat.engine.simulate import lineup, odds, play, run_parallel  # noqa: E402


def four(items: list) -> list:
    return [items[i % len(items)] for i in range(4)]


def four_vs_four(key: str):
    r = RULESETS[key]
    heroes = [(f"{n} {i}", s) for i, (n, s) in enumerate(four(list(r.heroes.items())))]
    monsters = [(f"{n} {i}", s) for i, (n, s) in enumerate(four(list(r.monsters.items())))]
    return lineup(key, heroes, monsters, width=12, height=8)


def demo(key: str):
    r = RULESETS[key]
    names = list(getattr(sys.modules[r.__module__], "DEMO_PARTY", ()))
    party = [(names[i] if i < len(names) else n, s) for i, (n, s) in enumerate(list(r.heroes.items())[:2])]
    return lineup(key, party, list(r.monsters.items()), width=12, height=8)


def warm(pool: ProcessPoolExecutor, workers: int) -> None:
    """Start every worker and load the engine in it (a pool beside the server is already warm)."""
    setup = demo(next(iter(RULESETS)))
    run_parallel(setup, range(workers * 2), pool=pool, chunk=1)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--fights", type=int, default=40, help="4 vs 4 fights per ruleset")
    ap.add_argument("--demo", type=int, default=500, help="fights of the demo encounter per pool")
    args = ap.parse_args()
    gc.freeze()
    total_fights, total_cpu = 0, 0.0
    for key in RULESETS:
        setup = four_vs_four(key)
        t0 = time.process_time()
        outcomes = [play(setup, seed) for seed in range(args.fights)]
        cpu = time.process_time() - t0
        total_fights += len(outcomes)
        total_cpu += cpu
        o = odds(outcomes)
        print(
            f"{key:14} 4v4 fights={len(outcomes)} battles_per_s={len(outcomes) / cpu:.1f} "
            f"actions_per_fight={statistics.mean(x.actions for x in outcomes):.0f} "
            f"median_rounds={o.median_rounds} party_win={o.win:.2f} draws={o.draws:.2f}"
        )
    ctx = multiprocessing.get_context("forkserver")
    timings: dict[int, dict[str, float]] = {}
    for workers in (1, 2):
        with ProcessPoolExecutor(max_workers=workers, mp_context=ctx) as pool:
            warm(pool, workers)
            timings[workers] = {}
            for key in RULESETS:
                setup = demo(key)
                t0 = time.perf_counter()
                outcomes = run_parallel(setup, range(args.demo), pool=pool)
                timings[workers][key] = time.perf_counter() - t0
                if workers == 2:
                    o = odds(outcomes)
                    print(
                        f"{key:14} demo {args.demo} fights: 1 worker {timings[1][key]:.2f} s, "
                        f"2 workers {timings[2][key]:.2f} s, speed-up x{timings[1][key] / timings[2][key]:.2f}; "
                        f"party_win={o.win:.2f} median_rounds={o.median_rounds}"
                    )
    worst = max(timings[2].values())
    print(
        f"cores={os.cpu_count()} load_average={' '.join(f'{x:.2f}' for x in os.getloadavg())} "
        f"demo_{args.demo}_worst_s_two_workers={worst:.2f}"
    )
    print(f"battles_per_s={total_fights / total_cpu:.1f}")


if __name__ == "__main__":
    main()
