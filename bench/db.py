"""Services benchmark: accepted actions through ``combat.services`` on a real database.

Plays seeded random D20 Luck actions (each submitted by the combatant's
controller, with expected_seq and a client token) in a throw-away database:
SQLite by default, PostgreSQL when ``DATABASE_URL`` is set (a separate
``bench_*`` database, dropped afterwards). Prints where the time goes
(engine vs. the rest: lock, insert, update, commit) on a short and a long
log, and as its last line
``service_ms_p50=<A> service_ms_p95=<B> queries_per_action=<Q> long_log_p50_ms=<C>``.
Run: ``.venv/bin/python bench/db.py [--actions N]``.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import random
import statistics
import sys
import tempfile
import time
import uuid

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "vtt.settings")
os.environ.setdefault("PYTEST_VERSION", "bench")  # quiet the development SECRET_KEY warning

import django  # noqa: E402
from django.conf import settings  # noqa: E402

BENCH_DIR = tempfile.mkdtemp(prefix="vtt-bench-")
django.setup()

from django.contrib.auth import get_user_model  # noqa: E402
from django.db import connection, reset_queries  # noqa: E402

connection.settings_dict["TEST"]["NAME"] = (
    os.path.join(BENCH_DIR, "bench.sqlite3") if connection.vendor == "sqlite" else f"bench_vtt_{os.getpid()}"
)
from django.test.utils import CaptureQueriesContext, setup_test_environment  # noqa: E402

from combat import services  # noqa: E402
from combat.engine.autoplay import random_action  # noqa: E402
from combat.engine.core import resolve  # noqa: E402
from combat.engine.dice import Dice  # noqa: E402
from combat.engine.rulesets.luck.content import HEROES, MONSTERS  # noqa: E402
from combat.models import Battle  # noqa: E402
from vtt.models import Campaign, Character, Membership, Role  # noqa: E402


def cast():
    User = get_user_model()
    gm = User.objects.create_user("bench-gm")
    campaign = Campaign.objects.create(name="Bench", ruleset="luck", owner=gm)
    Membership.objects.create(campaign=campaign, user=gm, role=Role.GM)
    players = {}
    for i, (name, sheet) in enumerate(HEROES.items()):
        user = User.objects.create_user(f"bench-p{i}")
        Membership.objects.create(campaign=campaign, user=user, role=Role.PLAYER)
        players[str(user.pk)] = user
        Character.objects.create(campaign=campaign, owner=user, name=name, sheet=sheet)
    return gm, campaign, players


def new_battle(gm, campaign, seed: int) -> int:
    bid = services.create_battle(campaign, gm, f"Bench {seed}", 12, 8, seed=seed).battle_id
    for y, character in enumerate(Character.objects.filter(campaign=campaign)):
        assert services.add_combatant(bid, gm, character, pos=[1, 1 + 2 * y]).ok
    for y, (name, sheet) in enumerate(MONSTERS.items()):
        monster = {"name": name, "side": "enemy", "kind": "monster", "sheet": sheet}
        assert services.add_combatant(bid, gm, params=monster, pos=[10, 2 + 3 * y]).ok
    assert services.start_battle(bid, gm).ok
    return bid


def play(
    bid: int,
    gm,
    players,
    rng: random.Random,
    actions: int,
    timings: list[float],
    engine: list[float],
    queries: list[int],
) -> None:
    for _ in range(actions):
        battle = Battle.objects.get(pk=bid)
        state = services.load_state(battle)
        action = random_action(state, rng)
        if action is None:  # the battle ended: heal everyone and go on
            services.undo(bid, gm, battle.seq)
            continue
        controller = state.combatants[action.actor].controller if action.actor else None
        user = players.get(controller, gm)
        reset_queries()
        t0 = time.perf_counter()
        resolve(state, action, Dice(battle.seed, battle.seq))
        t1 = time.perf_counter()
        with CaptureQueriesContext(connection) as ctx:
            result = services.submit_action(bid, user, action, battle.seq, uuid.uuid4().hex)
        t2 = time.perf_counter()
        assert result.ok, result.reason
        engine.append(t1 - t0)
        timings.append(t2 - t1)
        queries.append(len(ctx.captured_queries))


def grow(bid: int, gm, size: int) -> None:
    battle = Battle.objects.get(pk=bid)
    target = next(iter(services.load_state(battle).combatants))
    while Battle.objects.get(pk=bid).seq < size:
        assert services.gm_override(
            bid, gm, {"kind": "gm.set_hp", "params": {"combatant": target, "hp": 5}}
        ).ok


def ms(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=100)[int(q) - 1] * 1000 if len(values) > 1 else values[0] * 1000


def without_live() -> object:
    """Disconnect the live push from the commands' ``battle_written``; returns what to restore."""
    from combat.command_base import battle_written
    from combat.live import PUSH_RECEIVER

    battle_written.disconnect(dispatch_uid=PUSH_RECEIVER)
    return PUSH_RECEIVER


def restore_live(saved: object) -> None:
    from combat import live
    from combat.command_base import battle_written

    battle_written.connect(live.on_battle_written, dispatch_uid=live.PUSH_RECEIVER)


def sqlite_wal(sender, connection, **kwargs) -> None:
    if connection.vendor == "sqlite":
        with connection.cursor() as cursor:
            cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute("PRAGMA synchronous=NORMAL")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--actions", type=int, default=300)
    parser.add_argument("--wal", action="store_true", help="SQLite: journal_mode=WAL, synchronous=NORMAL")
    args = parser.parse_args()
    if args.wal:
        from django.db.backends.signals import connection_created

        connection_created.connect(sqlite_wal)
    setup_test_environment()
    settings.DEBUG = True  # let CaptureQueriesContext see queries
    old_name = connection.creation.create_test_db(verbosity=0, autoclobber=True)
    try:
        gm, campaign, players = cast()
        rng = random.Random(1)
        saved = without_live()
        short_t, short_e, short_q = [], [], []
        bid = new_battle(gm, campaign, 1)
        play(bid, gm, players, rng, args.actions, short_t, short_e, short_q)
        long_bid = new_battle(gm, campaign, 2)
        grow(long_bid, gm, 2000)
        long_t, long_e, long_q = [], [], []
        play(long_bid, gm, players, rng, max(50, args.actions // 3), long_t, long_e, long_q)
        restore_live(saved)
        live_t: list[float] = []
        try:
            import combat.live  # noqa: F401
        except ImportError:
            pass
        else:
            play(new_battle(gm, campaign, 3), gm, players, rng, max(50, args.actions // 3), live_t, [], [])
        journal = ""
        if connection.vendor == "sqlite":
            with connection.cursor() as cursor:
                journal = " journal_mode=" + cursor.execute("PRAGMA journal_mode").fetchone()[0]
        print(
            f"database: {connection.vendor}{journal}; {len(short_t)} accepted actions on a fresh battle, "
            f"{len(long_t)} on a battle with a 2000+ event log (live hook off)"
        )
        for label, t, e in (("fresh log", short_t, short_e), ("2000-event log", long_t, long_e)):
            print(
                f"  {label:15} service p50 {ms(t, 50):6.2f} ms  p95 {ms(t, 95):6.2f} ms  "
                f"(engine alone p50 {ms(e, 50):5.2f} ms)"
            )
        print(
            f"  queries per action: min {min(short_q + long_q)} max {max(short_q + long_q)} "
            "(BEGIN, lock+role+token SELECT, INSERT events, UPDATE battle, COMMIT)"
        )
        if live_t:
            print(
                f"  with combat.live.battle_changed on commit: p50 {ms(live_t, 50):6.2f} ms  "
                f"p95 {ms(live_t, 95):6.2f} ms"
            )
        print(
            f"service_ms_p50={ms(short_t, 50):.2f} service_ms_p95={ms(short_t, 95):.2f} "
            f"queries_per_action={max(short_q + long_q)} long_log_p50_ms={ms(long_t, 50):.2f}"
        )
    finally:
        connection.creation.destroy_test_db(old_name, verbosity=0)


if __name__ == "__main__":
    main()
