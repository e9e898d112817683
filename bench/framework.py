"""Each framework replacement against Django's stock path, paired: the figure that keeps it or not.

A piece of this project that replaces what Django does with code of its own, for speed, keeps its
place only while it saves at least 0.5 ms of server CPU per action, or 5 % of an action's:

- ``handler`` (kept): ``vtt.handlers.OneThreadASGIHandler``; stock: ``django.core.handlers.asgi.ASGIHandler``;
- ``sql`` (kept): the action's three hand-written statements in ``combat.services`` (``_lock``,
  ``_insert_events``, ``_write``); stock: the ORM's annotated ``select_for_update``, ``bulk_create``
  and ``update``;
- ``access`` (kept): ``vtt.access.battle_access``'s one statement; stock: ``battle_access_orm`` (the
  session engine and the ORM). Not on the action's path but on a battle socket's, on connect and
  again every 15-30 s: its figure is per check.

The action is the live bench's (``bench/request.py``): D20 Luck, a GM, five players, three goblins,
a move or an end of turn POSTed as htmx does, through the whole ASGI application (handler,
middleware, view, service, the live push's render) in this one process, the channel layer in
memory. CPU time is the process's (``time.process_time``: every thread), per action. Each round runs
the project's path and each variant (one replacement switched back to Django's, the rest as the
project has them) back to back, starting each round with the next of them; a figure is the median
over rounds of the paired difference. The whole action varies by a millisecond or more from one
batch to the next (a move or an end of turn, what the board shows), more than ``sql`` can save: it is
also timed alone on the work one action gives them (ours and
Django's called the same way on the same rows), and that figure decides. Every line prints the load
average: the machine is shared.

    .venv/bin/python bench/framework.py [--rounds 15] [--actions 40] [--replacement NAME ...]

``--replacement NAME`` compares only NAME (one command per decision). ``--stock NAME`` (repeatable)
runs only the project's path with NAME on Django's stock side and prints its CPU per action.
``DATABASE_URL`` selects PostgreSQL, the deployed database, on which the decisions were taken
(docs/performance.md has the table). Never run two of these (or this and ``bench/request.py``) on one
database at once: each starts by deleting and re-creating the bench's table (``bench.live.setup_tables``).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import secrets
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "vtt.settings")
os.environ.setdefault("PYTEST_VERSION", "bench")  # quiet the development SECRET_KEY warning
os.environ.update(
    {"DEBUG": "0", "ALLOWED_HOSTS": "testserver", "SECURE_SSL_REDIRECT": "0", "LOG_LEVEL": "ERROR"}
)
os.environ.pop("REDIS_URL", None)  # the in-memory channel layer: this bench measures one process

from bench.live import ACTOR, next_action, session_for, setup_tables  # noqa: E402

ACTION_PATH = ("handler", "sql")
REPLACEMENTS = (*ACTION_PATH, "access")
KEEP_MS, KEEP_SHARE = 0.5, 0.05


def load_average() -> str:
    one, five, fifteen = os.getloadavg()
    return f"{one:.2f} {five:.2f} {fifteen:.2f}"


# ---------------------------------------------------------------- the stock paths


def orm_lock(battle_id: Any, user: Any, token: str | None = None) -> Any:
    """``combat.services._lock`` as the ORM writes it (the reference of ``tests/services/test_queries.py``)."""
    from django.db.models import Exists, OuterRef, Subquery

    from combat.models import Battle, BattleEvent
    from vtt.models import Membership

    try:
        pk = int(battle_id)
    except (TypeError, ValueError):
        return None
    if not 0 < pk < 2**63:
        return None
    user_id = user.pk if user is not None and getattr(user, "is_authenticated", False) else None
    roles = Membership.objects.filter(campaign_id=OuterRef("campaign_id"), user_id=user_id).values("role")[:1]
    rows = Battle.objects.select_for_update().filter(pk=pk).annotate(role=Subquery(roles))
    if token is not None:
        seen = BattleEvent.objects.filter(battle_id=OuterRef("pk"), client_token=token, actor_id=user_id)
        rows = rows.annotate(
            token_seen=Exists(seen),
            snapshot_seq=Subquery(Battle.objects.filter(pk=OuterRef("pk")).values("seq")),
        )
    return rows.first()


def orm_insert_events(rows: list[tuple[Any, ...]]) -> None:
    from combat.models import BattleEvent
    from combat.services import EVENT_COLUMNS, ROWS_PER_INSERT

    names = [f"{c}_id" if c in ("battle", "actor") else c for c in EVENT_COLUMNS]
    BattleEvent.objects.bulk_create(
        [BattleEvent(**dict(zip(names, row, strict=True))) for row in rows], batch_size=ROWS_PER_INSERT
    )


def orm_write(columns: tuple[str, ...], values: tuple[Any, ...]) -> None:
    from combat.models import Battle

    Battle.objects.filter(pk=values[-1]).update(**dict(zip(columns[:-1], values[:-1], strict=True)))


@contextmanager
def stock_sql() -> Iterator[None]:
    from combat import services

    saved = services._lock, services._insert_events, services._write
    services._lock, services._insert_events, services._write = orm_lock, orm_insert_events, orm_write  # type: ignore[assignment]
    try:
        yield
    finally:
        services._lock, services._insert_events, services._write = saved


@contextmanager
def nothing() -> Iterator[None]:
    yield


def build_app(switched: set[str]) -> Any:
    """The HTTP application with the named replacements switched back to Django's stock path."""
    from django.core.handlers.asgi import ASGIHandler

    from vtt.handlers import SERVER_LOOP, OneThreadASGIHandler

    if "handler" not in switched:
        return OneThreadASGIHandler()
    django_handler = ASGIHandler()

    async def app(scope: Any, receive: Any, send: Any) -> None:
        # The live push hands its publish to the server's loop either way (combat.live.publish).
        SERVER_LOOP.set(asyncio.get_running_loop())
        await django_handler(scope, receive, send)

    return app


# ---------------------------------------------------------------- the action loop


class Table:
    """The bench table, its seats' cookies, and the GM's latest frame (from the live push)."""

    def __init__(self) -> None:
        setup = setup_tables(1, 6)  # django.setup() first
        from django.conf import settings
        from django.contrib.auth import get_user_model

        from combat import live, presenters
        from combat.table import load_table
        from vtt.models import Role

        users = get_user_model().objects.filter(username__in=[setup["gm"], *setup["players"]])
        self.cookies: dict[str, tuple[bytes, str]] = {}
        for user in users:
            token = secrets.token_hex(16)
            cookie = (
                f"{settings.SESSION_COOKIE_NAME}={session_for(user)}; {settings.CSRF_COOKIE_NAME}={token}"
            )
            self.cookies[user.username] = (cookie.encode(), token)
        battle = setup["battles"][0]
        self.bid, self.owner, self.gm = battle["id"], battle["owner"], setup["gm"]
        table = load_table(self.bid)
        assert table is not None
        self.frame: dict[str, Any] = {
            "gm": presenters.regions_for(table, Role.GM, None),
            "seq": table.battle.seq,
        }
        self.rng = random.Random(7)

        async def record(group: str, message: dict[str, Any]) -> None:
            self.frame.update(gm=message["gm"], seq=message["seq"])

        live._send = record  # type: ignore[assignment]

    async def act(self, app: Any) -> None:
        actor = ACTOR.search(self.frame["gm"])
        assert actor is not None, "no one acts"
        cid = actor.group(1)
        cookie, token = self.cookies[self.owner.get(cid, self.gm)]
        seq = self.frame["seq"]
        body = urlencode(next_action(self.frame["gm"], cid, seq, self.rng)).encode()
        scope = {
            "type": "http",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "method": "POST",
            "scheme": "http",
            "path": f"/battles/{self.bid}/act",
            "raw_path": f"/battles/{self.bid}/act".encode(),
            "query_string": b"",
            "root_path": "",
            "headers": [
                (b"host", b"testserver"),
                (b"cookie", cookie),
                (b"x-csrftoken", token.encode()),
                (b"hx-request", b"true"),
                (b"x-vtt-live", b"1"),
                (b"content-type", b"application/x-www-form-urlencoded"),
                (b"content-length", str(len(body)).encode()),
            ],
            "client": ("127.0.0.1", 50000),
            "server": ("testserver", 80),
        }
        sent = False
        status: list[int] = []

        async def receive() -> dict[str, Any]:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}
            await asyncio.Event().wait()  # the client stays connected
            return {"type": "http.disconnect"}

        async def send(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                status.append(message["status"])

        await app(scope, receive, send)
        for _ in range(200):  # the push is handed to this loop: let it run
            if self.frame["seq"] > seq:
                break
            await asyncio.sleep(0)
        assert status == [200], status
        assert self.frame["seq"] > seq, "the action was not pushed"


async def cpu_per_action(table: Table, app: Any, switch: Callable[[], Any], actions: int) -> float:
    with switch():
        start = time.process_time()
        for _ in range(actions):
            await table.act(app)
        return 1000 * (time.process_time() - start) / actions


# ---------------------------------------------------------------- one action's share, alone
#
# The whole action varies by more than a millisecond from one batch to the next (a move or an end of
# turn, what the board shows): the three replacements that do a fixed piece of work per action are
# also timed on that piece alone, ours and Django's called the same way on the same rows.


def timed(work: Callable[[Any], Any], calls: int, prepare: Callable[[], Any] | None = None) -> float:
    """CPU ms per call of ``work``; what ``prepare`` makes for each call is made before the clock starts."""
    given = [prepare() if prepare else None for _ in range(calls)]
    start = time.process_time()
    for item in given:
        work(item)
    return 1000 * (time.process_time() - start) / calls


Piece = tuple[Callable[[Any], Any], Callable[[Any], Any], Callable[[], Any] | None]


def piece_work(table: Table) -> dict[str, Piece]:
    """Per replacement: (the replacement, Django's stock path), each doing what one action does with it."""
    from importlib import import_module

    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.db import transaction
    from django.utils import timezone

    from combat import services
    from combat.models import Battle

    gm = get_user_model().objects.get(username=table.gm)
    key = table.cookies[table.gm][0].decode().split(";")[0].split("=", 1)[1]

    battle = Battle.objects.get(pk=table.bid)
    events = [("bench.event", {"actor": "c1", "to": [3, 4]}), ("bench.event", {"turn": 2})]

    def action_sql(lock: Callable[..., Any], insert: Callable[..., Any], write: Callable[..., Any]) -> None:
        with transaction.atomic():
            row = lock(battle.pk, gm, "bench-token")
            assert row is not None and row.role == "gm", (row and row.role, lock.__name__)
            now = timezone.now()
            insert(
                [
                    (row.pk, row.seq + 1 + i, t, d, gm.pk, "bench-token", now)
                    for i, (t, d) in enumerate(events)
                ]
            )
            values = (row.snapshot, row.seq + len(events), row.status, row.version + 1, now, row.pk)
            write(services.BATTLE_WRITE, values)
            transaction.set_rollback(True)  # the table stays as it was

    store = import_module(settings.SESSION_ENGINE)  # the engine the project uses: the row above is in it
    assert store.SessionStore(key).exists(key)
    our_lock, our_insert, our_write = services._lock, services._insert_events, services._write
    return {
        "sql": (
            lambda _: action_sql(our_lock, our_insert, our_write),
            lambda _: action_sql(orm_lock, orm_insert_events, orm_write),
            None,
        ),
    }


def piece_rounds(piece: Piece, rounds: int, calls: int) -> tuple[list[float], list[float]]:
    ours, stock, prepare = piece
    timed(ours, calls, prepare), timed(stock, calls, prepare)  # warm-up
    mine: list[float] = []
    theirs: list[float] = []
    for i in range(rounds):
        pair = [(mine, ours), (theirs, stock)]
        for figures, work in pair if i % 2 == 0 else pair[::-1]:
            figures.append(timed(work, calls, prepare))
    return mine, theirs


# ---------------------------------------------------------------- the socket's access check


def access_ms(
    check: Callable[..., Any], users: list[Any], sessions: dict[int, str], bid: int, calls: int
) -> float:
    start = time.process_time()
    for i in range(calls):
        user = users[i % len(users)]
        assert check(user, bid, sessions[user.pk], check_session=True) is not None, (
            check.__name__,
            user.username,
        )
    return 1000 * (time.process_time() - start) / calls


def access_rounds(table: Table, rounds: int, calls: int) -> tuple[list[float], list[float]]:
    from django.contrib.auth import get_user_model

    from vtt.access import battle_access, battle_access_orm

    users = list(get_user_model().objects.filter(username__in=list(table.cookies)))
    sessions = {u.pk: table.cookies[u.username][0].decode().split(";")[0].split("=", 1)[1] for u in users}
    ours, stock = [], []
    access_ms(battle_access, users, sessions, table.bid, calls)  # warm-up
    access_ms(battle_access_orm, users, sessions, table.bid, calls)
    for _ in range(rounds):
        ours.append(access_ms(battle_access, users, sessions, table.bid, calls))
        stock.append(access_ms(battle_access_orm, users, sessions, table.bid, calls))
    return ours, stock


# ---------------------------------------------------------------- report


def decision(saved: float, action_ms: float | None) -> str:
    share = saved / action_ms if action_ms else 0.0
    return "keep" if saved >= KEEP_MS or share >= KEEP_SHARE else "revert"


def row(
    name: str,
    ours: list[float],
    stock: list[float],
    unit: str,
    action_ms: float | None = None,
    decides: bool = True,
) -> None:
    diffs = [s - o for o, s in zip(ours, stock, strict=True)]
    o, s, d = statistics.median(ours), statistics.median(stock), statistics.median(diffs)
    base = action_ms if unit == "action" and action_ms else s if unit == "action" else None
    share = f" = {100 * d / base:+.1f} % of an action" if base else ""
    print(
        f"{name:15} ours={o:.3f} stock={s:.3f} ms/{unit}  saved={d:+.3f} ms{share}"
        f"  pairs={' '.join(f'{x:+.2f}' for x in diffs)}  load={load_average()}"
        + (f"  -> {decision(d, base)}" if decides else "  (context: the piece alone decides)")
    )


async def compare(table: Table, args: argparse.Namespace) -> float | None:
    """The whole action, each variant against ours; returns ours's CPU per action (ms)."""
    if args.stock:
        app = build_app(set(args.stock))
        switch = stock_sql if "sql" in args.stock else nothing
        await cpu_per_action(table, app, switch, args.warmup)
        figures = [await cpu_per_action(table, app, switch, args.actions) for _ in range(args.rounds)]
        stock = ",".join(args.stock)
        print(f"stock={stock} cpu_ms_per_action={statistics.median(figures):.2f} load={load_average()}")
        return None
    wanted = [r for r in (args.replacement or REPLACEMENTS) if r in ACTION_PATH]
    variants: dict[str, tuple[Any, Callable[[], Any]]] = {"ours": (build_app(set()), nothing)}
    if not wanted:  # ours alone: the action's CPU, which the pieces' shares are of
        await cpu_per_action(table, *variants["ours"], args.warmup)
        return statistics.median(
            [await cpu_per_action(table, *variants["ours"], args.actions) for _ in range(3)]
        )
    for name in wanted:
        variants[name] = (build_app({name} - {"sql"}), stock_sql if name == "sql" else nothing)
    for app, switch in variants.values():
        await cpu_per_action(table, app, switch, args.warmup)
    figures: dict[str, list[float]] = {name: [] for name in variants}
    names = list(variants)
    for i in range(args.rounds):
        for name in names[i % len(names) :] + names[: i % len(names)]:  # each round starts elsewhere
            app, switch = variants[name]
            figures[name].append(await cpu_per_action(table, app, switch, args.actions))
    project = figures["ours"]
    for name in wanted:
        row(name, project, figures[name], "action", statistics.median(project), decides=name == "handler")
    return statistics.median(figures["ours"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--actions", type=int, default=40, help="actions per variant per round")
    parser.add_argument("--warmup", type=int, default=20, help="unmeasured actions per variant first")
    parser.add_argument("--access-calls", type=int, default=200, help="access checks per round")
    parser.add_argument("--piece-calls", type=int, default=300, help="calls of one piece per round")
    parser.add_argument("--replacement", action="append", choices=REPLACEMENTS, help="compare only these")
    parser.add_argument(
        "--stock",
        action="append",
        choices=ACTION_PATH,
        help="run the project with these on Django's stock path, alone",
    )
    args = parser.parse_args()
    from django.conf import settings

    table = Table()  # set up before the loop runs: the ORM refuses to run on an event loop's thread
    engine = settings.DATABASES["default"]["ENGINE"].rsplit(".", 1)[-1]
    print(f"database={engine} actions={args.actions} rounds={args.rounds} load={load_average()}")
    action_ms = asyncio.run(compare(table, args))
    if args.stock:
        return
    wanted = args.replacement or REPLACEMENTS
    pieces = piece_work(table)
    for name, piece in pieces.items():
        if name in wanted:
            ours, stock = piece_rounds(piece, args.rounds, args.piece_calls)
            row(f"{name} alone", ours, stock, "action", action_ms)
    if "access" in wanted:
        ours, stock = access_rounds(table, args.rounds, args.access_calls)
        row("access", ours, stock, "check")


if __name__ == "__main__":
    main()
