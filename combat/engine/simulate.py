"""Play a planned fight many times: the odds of a battle before it starts (pure; workers call it).

``play(setup, seed)`` plays one fight from a battle still in set-up (its
combatants placed) to the end, or to ``ROUND_CAP`` rounds (a draw), with
``Dice(seed, seq)``: the same seed plays the same fight. Each side is played
by the tactics (``"tactics"``; the party reads only what its players see, the
GM's side everything) or by the random policy of ``autoplay`` (``"random"``).
``odds(outcomes)`` sums many fights up: the party's win chance, the median
number of rounds, and per party member the chance to go down and the HP and
stock left on average (what a fight spends and no turn gives back: MP, items...,
``Ruleset.stock``; per-turn resources say nothing about a fight's end).

>>> from combat.engine.testing import Battle
>>> from combat.engine.rulesets.luck import HEROES, MONSTERS
>>> b = Battle("luck", width=8, height=4)
>>> _ = b.add("Ayla", "party", pos=(0, 0), **HEROES["Fighter"])
>>> _ = b.add("Bear", "enemy", pos=(5, 0), kind="monster", **MONSTERS["Cave Bear"])
>>> play(b.state, 3) == play(b.state, 3)
True
"""

from __future__ import annotations

import multiprocessing
import os
import random
import statistics
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Executor, ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from typing import Any

from combat.engine.actions import Action, Refusal
from combat.engine.autoplay import random_action
from combat.engine.context import rules_for
from combat.engine.core import resolve
from combat.engine.dice import Dice
from combat.engine.state import BattleState
from combat.engine.tactics import tactics_for

ROUND_CAP = 40  # a fight still going after this many rounds is a draw
STALL_ROUNDS = 6  # and so is one where no one's HP has changed for this many rounds
MAX_ACTIONS = 4000  # and so is one that takes this many actions (a stalemate of moves)
POLICIES = ("tactics", "random")


@dataclass
class Outcome:
    """One fight: who won (None: a draw), in how many rounds, and the party as it ended."""

    winner: str | None
    rounds: int
    actions: int
    refused: int = 0  # actions a policy chose that the engine refused (a bug when above 0)
    party: dict[str, dict[str, Any]] = field(default_factory=dict)  # id -> name, down, hp, max_hp, stock
    shared: dict[str, list[int | None]] = field(default_factory=dict)  # the party's common stock

    def to_dict(self) -> dict[str, Any]:
        return {
            "winner": self.winner,
            "rounds": self.rounds,
            "actions": self.actions,
            "refused": self.refused,
            "party": self.party,
            "shared": self.shared,
        }


def _policy_action(
    state: BattleState, policy: str, sees: str, steps: int, rng: random.Random
) -> Action | None:
    if policy == "random":
        return random_action(state, rng)
    choice = tactics_for(state).choose(state, sees, steps)
    return choice.action if choice else None


def _hps(state: BattleState) -> tuple[int, ...]:
    return tuple(c.hp for c in state.combatants.values())


Watch = Callable[[BattleState, Action, str], None]


def play(
    setup: BattleState,
    seed: int,
    policies: dict[str, str] | None = None,
    round_cap: int = ROUND_CAP,
    watch: Watch | None = None,
) -> Outcome:
    """Play the battle set up in ``setup`` (phase ``setup``) once with ``seed``; see the module doc.

    ``watch(state, action, policy)`` sees every action before it is tried (tests check them).
    """
    chosen = {"party": "tactics", "enemy": "tactics", **(policies or {})}
    state = setup.clone()
    state.seed = seed
    out = resolve(state, Action("setup.start"), Dice(seed, state.seq))
    if isinstance(out, Refusal):
        raise ValueError(out.reason)
    state = out[1]
    rng = random.Random(seed)
    actions = refused = steps = 0
    turn_key: tuple[int, int] = (-1, -1)
    last_change, last_hp = state.round, _hps(state)
    while state.phase == "active" and state.round <= round_cap and actions < MAX_ACTIONS:
        if state.round - last_change >= STALL_ROUNDS:
            break  # the draw of STALL_ROUNDS: every change so far has been seen (after each action)
        pending = state.pending
        if pending is not None:
            who = state.combatants.get(pending.combatant)
            side = "enemy" if pending.gm_only or who is None else who.side
        else:
            current = state.current()
            if current is None:
                break
            side = current.side
            if (state.round, state.turn) != turn_key:
                turn_key, steps = (state.round, state.turn), 0
        policy = chosen.get(side, "tactics")
        action = _policy_action(state, policy, "all" if side != "party" else "side", steps, rng)
        if action is None:
            break
        if watch is not None:
            watch(state, action, policy)
        result = resolve(state, action, Dice(seed, state.seq))
        if isinstance(result, Refusal):
            refused += 1
            fallback = state.current()
            if pending is not None or fallback is None:
                break
            result = resolve(state, Action("end_turn", fallback.id), Dice(seed, state.seq))
            if isinstance(result, Refusal):
                break
        if _hps(result[1]) != last_hp:  # a change counts in the round it happened in
            last_change, last_hp = state.round, _hps(result[1])
        state = result[1]
        actions += 1
        if pending is None:
            steps += 1
    return _outcome(state, min(state.round, round_cap), actions, refused)


def _outcome(state: BattleState, rounds: int, actions: int, refused: int) -> Outcome:
    """The fight as it ended: who won, and the party's members and common stock."""
    winner = state.result.get("winner") if state.phase == "ended" and state.result else None
    rules = rules_for(state)
    party = {
        c.id: {
            "name": c.name,
            "down": not c.able,
            "hp": max(0, c.hp),
            "max_hp": c.max_hp,
            "stock": {k: list(v) for k, v in rules.stock(state, c).items()},
        }
        for c in state.combatants.values()
        if c.side == "party" and not c.extra.get("eidolon_of")
    }
    shared = {k: list(v) for k, v in rules.side_stock(state, "party").items()}
    return Outcome(winner, rounds, actions, refused, party, shared)


@dataclass
class Odds:
    """Many fights summed up (all figures for the party)."""

    fights: int
    win: float  # share of fights the party won, 0 to 1
    draws: float
    median_rounds: float
    members: list[dict[str, Any]]  # name, down (chance), hp (average left), max_hp, stock (averages)
    shared: list[dict[str, Any]] = field(default_factory=list)  # the party's common stock (averages)

    def to_dict(self) -> dict[str, Any]:
        return {
            "fights": self.fights,
            "win": self.win,
            "draws": self.draws,
            "median_rounds": self.median_rounds,
            "members": self.members,
            "shared": self.shared,
        }


def _average_stock(rows: Sequence[dict[str, list[int | None]]]) -> list[dict[str, Any]]:
    """Stock over many fights: ``[{"name", "left" (average), "full"}]`` in the order first met (a kind
    missing from a fight counts 0 there)."""
    names = list(dict.fromkeys(k for r in rows for k in r))
    out = []
    for name in names:
        full = next((r[name][1] for r in rows if name in r), None)
        left = sum(float(r[name][0] or 0) for r in rows if name in r) / len(rows)
        out.append({"name": name, "left": left, "full": full})
    return out


def odds(outcomes: Sequence[Outcome]) -> Odds:
    """Sum fights up (see ``Odds``); an empty list gives zeros."""
    n = len(outcomes)
    if not n:
        return Odds(0, 0.0, 0.0, 0.0, [])
    members: list[dict[str, Any]] = []
    for cid, first in outcomes[0].party.items():
        rows = [o.party[cid] for o in outcomes if cid in o.party]
        members.append(
            {
                "id": cid,
                "name": first["name"],
                "down": sum(r["down"] for r in rows) / len(rows),
                "hp": sum(r["hp"] for r in rows) / len(rows),
                "max_hp": first["max_hp"],
                "stock": _average_stock([r["stock"] for r in rows]),
            }
        )
    return Odds(
        n,
        sum(o.winner == "party" for o in outcomes) / n,
        sum(o.winner is None for o in outcomes) / n,
        float(statistics.median(o.rounds for o in outcomes)),
        members,
        _average_stock([o.shared for o in outcomes]),
    )


def run(
    setup: BattleState,
    seeds: Iterable[int],
    policies: dict[str, str] | None = None,
    progress: Callable[[int], bool | None] | None = None,
) -> list[Outcome]:
    """Play one fight per seed; ``progress(done)`` is called after each and may return False to stop."""
    out = []
    for seed in seeds:
        out.append(play(setup, seed, policies))
        if progress is not None and progress(len(out)) is False:
            break
    return out


def _chunk(setup: dict[str, Any], seeds: list[int], policies: dict[str, str] | None) -> list[Outcome]:
    state = BattleState.from_dict(setup)
    return [play(state, seed, policies) for seed in seeds]


Plan = tuple[BattleState, Sequence[int], "dict[str, str] | None"]  # a set-up, its seeds, its policies


def run_parallel(
    setup: BattleState,
    seeds: Sequence[int],
    policies: dict[str, str] | None = None,
    workers: int | None = None,
    progress: Callable[[int], bool | None] | None = None,
    pool: Executor | None = None,
    chunk: int = 20,
) -> list[Outcome]:
    """``run`` over a pool of processes (``pool``, else a new one of ``workers``, default: every core).

    Seeds go out in chunks; ``progress(done)`` is called as chunks come back and may return False
    to cancel the rest. The outcomes come back in the order of ``seeds``.
    """
    return run_plans([(setup, seeds, policies)], workers, progress, pool, chunk)[0]


def run_plans(
    plans: Sequence[Plan],
    workers: int | None = None,
    progress: Callable[[int], bool | None] | None = None,
    pool: Executor | None = None,
    chunk: int = 20,
) -> list[list[Outcome]]:
    """``run_parallel`` for several set-ups at once: every plan's chunks go out together, so the pool
    stays busy to the end (a warm ``pool`` shared by many plans pays its start-up once). The outcomes
    of each plan come back in the order of its seeds, the plans in their order."""
    parts = []
    for n, (setup, seeds, policies) in enumerate(plans):
        snapshot, seeds = setup.to_dict(), list(seeds)
        parts += [(n, i, snapshot, seeds[i : i + chunk], policies) for i in range(0, len(seeds), chunk)]
    own = pool is None
    executor = pool or ProcessPoolExecutor(
        max_workers=workers or os.cpu_count() or 1, mp_context=multiprocessing.get_context("forkserver")
    )
    done: dict[tuple[int, int], list[Outcome]] = {}
    try:
        futures = {executor.submit(_chunk, snap, part, pol): (n, i) for n, i, snap, part, pol in parts}
        count = 0
        for future in as_completed(futures):
            done[futures[future]] = future.result()
            count += len(done[futures[future]])
            if progress is not None and progress(count) is False:
                for f in futures:
                    f.cancel()
                break
    finally:
        if own:
            executor.shutdown(wait=True, cancel_futures=True)
    return [[o for (m, _), out in sorted(done.items()) if m == n for o in out] for n in range(len(plans))]


def lineup(
    ruleset: str,
    party: Sequence[tuple[str, dict[str, Any]]],
    enemies: Sequence[tuple[str, dict[str, Any]]],
    width: int = 12,
    height: int = 8,
    options: dict[str, Any] | None = None,
) -> BattleState:
    """A battle in set-up with ``(name, sheet)`` fighters: the party down the left edge, the enemies down
    the right (every other square), or alternately in the front and back rows on a rows board."""
    from combat.engine.core import new_battle_event, replay
    from combat.engine.rulesets import get_ruleset

    state = replay([new_battle_event(ruleset, options or {}, 1, width, height)])
    grid = get_ruleset(ruleset).board == "grid"
    for side, fighters, x in (("party", party, 0), ("enemy", enemies, width - 1)):
        for i, (name, sheet) in enumerate(fighters):
            params: dict[str, Any] = {
                "name": name,
                "side": side,
                "kind": "pc" if side == "party" else "monster",
                "sheet": sheet,
                "controller": str(i + 1) if side == "party" else None,
            }
            if grid:
                params["pos"] = [x, (2 * i) % height if 2 * i < height else (2 * i + 1) % height]
            else:
                params["row"] = "front" if i % 2 == 0 else "back"
            out = resolve(state, Action("setup.add_combatant", None, params), Dice(1, state.seq))
            if isinstance(out, Refusal):
                raise ValueError(out.reason)
            state = out[1]
    return state
