"""One action's server work in one process, without sockets: the figure to compare code changes by.

``bench/live.py`` measures the whole table (sockets, two processes, the channel layer) on a
machine where every other program moves its figures by +-20 %. This bench runs the action POST
(middleware, view, service, the live push's render and its hand-over to the channel layer) through
Django's test client, one action at a time on one thread, and prints the CPU time per action and
where it went: a change that saves a millisecond shows here in a few seconds. The database is
PostgreSQL when ``DATABASE_URL`` is set (SQLite otherwise); the channel layer is in memory (Redis
is measured by ``bench/live.py``). The table is the live bench's: D20 Luck, a GM, five players,
three goblins.

    .venv/bin/python bench/request.py [--actions 400] [--session-cache redis://...] [--profile]

``--session-cache`` keeps the sessions in that Redis (Django's ``cached_db``, measured against the
``db`` sessions the project keeps: docs/performance.md). ``--profile action|render`` adds cProfile's
functions with the most cumulative time (of the whole action, or of the push's render only); with ``BENCH_CALLERS=<regex>`` also who called the functions
it names. Last line:
``cpu_ms_per_action=<A> render_ms=<B>``.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import random
import secrets
import statistics
import sys
import time
from pathlib import Path
from urllib.parse import urlencode

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "vtt.settings")
os.environ.setdefault("PYTEST_VERSION", "bench")  # quiet the development SECRET_KEY warning
os.environ.update(
    {"DEBUG": "0", "ALLOWED_HOSTS": "testserver", "SECURE_SSL_REDIRECT": "0", "LOG_LEVEL": "ERROR"}
)
os.environ.pop("REDIS_URL", None)  # the in-memory channel layer: this bench measures one process

from bench.live import ACTOR, next_action, setup_tables  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--actions", type=int, default=400)
    parser.add_argument("--warmup", type=int, default=40)
    parser.add_argument(
        "--profile",
        choices=("action", "render"),
        help="cProfile the whole action, or only the push's render",
    )
    parser.add_argument(
        "--sort",
        choices=("cumulative", "tottime"),
        default="cumulative",
        help="with --profile: order the functions by cumulative or by own time",
    )
    parser.add_argument(
        "--session-cache",
        metavar="REDIS_URL",
        help="Django's cached_db sessions on this Redis, as deployed (the channel layer stays in memory)",
    )
    args = parser.parse_args()
    from django.conf import settings

    if args.session_cache:
        settings.CACHES = {
            "default": {
                "BACKEND": "django.core.cache.backends.redis.RedisCache",
                "LOCATION": args.session_cache,
                "KEY_PREFIX": f"bench-request{os.getpid()}",
            }
        }
        settings.SESSION_ENGINE = "django.contrib.sessions.backends.cached_db"
    auth = next(m for m in settings.MIDDLEWARE if m.endswith("AuthenticationMiddleware"))
    print(f"sessions={settings.SESSION_ENGINE} auth={auth}")

    setup = setup_tables(1, 6)
    from django.contrib.auth import get_user_model
    from django.test import Client

    from bench.live import Table as LiveTable
    from bench.live import session_for
    from combat import live, presenters
    from combat.table import Table, load_table
    from vtt import sockets
    from vtt.models import Role

    users = get_user_model().objects.filter(username__in=[setup["gm"], *setup["players"]])
    clients = {}
    for user in users:
        client = Client(enforce_csrf_checks=True)
        client.cookies[settings.SESSION_COOKIE_NAME] = session_for(user)
        token = secrets.token_hex(16)
        client.cookies[settings.CSRF_COOKIE_NAME] = token
        clients[user.username] = (client, token)
    battle = setup["battles"][0]
    bid, owner = battle["id"], battle["owner"]
    table = load_table(bid)
    assert table is not None
    # The GM's page as the live bench keeps it: a push may bring only the option forms that changed.
    page = LiveTable({"id": battle["id"], "campaign": None, "owner": {}}, setup["gm"], 0)
    frame = {"gm": page.gm_page(presenters.regions_for(table, Role.GM, None)), "seq": table.battle.seq}

    async def record(group: str, message: dict) -> None:
        frame.update(seq=message["seq"], gm=page.gm_page(message["gm"]))

    sockets._send = record  # type: ignore[assignment]
    render_ms: list[float] = []
    render = live.message_for
    render_profiler = cProfile.Profile() if args.profile == "render" else None

    def timed_render(t: Table, events: list | None = None) -> dict:
        start = time.process_time()
        if render_profiler and len(render_ms) >= args.warmup:
            render_profiler.enable()
        try:
            return render(t, events)
        finally:
            if render_profiler:
                render_profiler.disable()
            render_ms.append(1000 * (time.process_time() - start))

    live.message_for = timed_render  # type: ignore[assignment]
    rng = random.Random(7)
    profiler = cProfile.Profile() if args.profile == "action" else None
    cpu: list[float] = []
    for i in range(args.warmup + args.actions):
        actor = ACTOR.search(frame["gm"])
        assert actor is not None, "no one acts"
        cid = actor.group(1) or actor.group(2)
        client, token = clients[owner.get(cid, setup["gm"])]
        data = next_action(frame["gm"], cid, frame["seq"], rng)
        seq = frame["seq"]
        if profiler and i == args.warmup:
            profiler.enable()
        start = time.process_time()
        response = client.post(
            f"/battles/{bid}/act",
            urlencode(data),  # as a browser (htmx) posts a form, not multipart
            content_type="application/x-www-form-urlencoded",
            headers={"X-CSRFToken": token, "HX-Request": "true", "X-VTT-Live": "1"},
        )
        spent = 1000 * (time.process_time() - start)
        assert response.status_code == 200, (response.status_code, response.content[:300], response.headers)
        assert frame["seq"] > seq, "the action was not pushed"
        if i >= args.warmup:
            cpu.append(spent)
    for p in (profiler, render_profiler):
        if p is not None:
            p.disable()
            pstats.Stats(p).sort_stats(args.sort).print_stats(45)
            if os.environ.get("BENCH_CALLERS"):
                pstats.Stats(p).print_callers(os.environ["BENCH_CALLERS"])
    renders = render_ms[args.warmup :]
    print(f"database={settings.DATABASES['default']['ENGINE'].rsplit('.', 1)[-1]} actions={len(cpu)}")
    print(
        f"CPU per action ms: mean={statistics.fmean(cpu):.2f} p50={statistics.median(cpu):.2f} "
        f"min={min(cpu):.2f}; of which the push's render: mean={statistics.fmean(renders):.2f}"
    )
    print(f"cpu_ms_per_action={statistics.fmean(cpu):.2f} render_ms={statistics.fmean(renders):.2f}")


if __name__ == "__main__":
    main()
