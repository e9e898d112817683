"""The stack's floor: what one action costs with no rules, no database write and no render.

The same table and loop as ``bench/live.py`` (B battles of a GM and C-1 players, every seat a
websocket, the acting seat's POST -> every seat has the new seq), against servers whose action only
publishes a prepared message of a real push's size (``bench/floor_app.py``):

- ``--level stack``: the project's server with its middleware, session, user, socket consumer and
  fan-out, the view alone replaced;
- ``--level write``: ``stack`` plus the battle's transaction as an action runs it (the locking read,
  one event, the battle row), without the rules and the render;
- ``--level bare``: Django's ASGI handler with no middleware, an async view and a plain Channels
  consumer: the framework and the server alone.

``bench/live.py`` minus ``--level stack`` is what the rules, the battle's write and the render cost
(minus ``--level write``: the rules and the render alone);
``--level stack`` minus ``--level bare`` is the project's request and socket path; ``--level bare``
is the floor no code of the project can go under on this stack (``--server`` swaps the ASGI server).

    DATABASE_URL=postgres://... REDIS_URL=redis://... .venv/bin/python bench/floor.py --level bare

Last line, exactly: ``p95_ms=<N> actions_per_s=<M>``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.live import (  # noqa: E402
    SEQ,
    SERVERS,
    cpu_ms,
    login,
    pct,
    process_tree,
    request,
    server_errors,
    setup_tables,
    start_servers,
    stop,
)


def parse_args() -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--level", choices=("stack", "write", "bare"), default="stack")
    p.add_argument("--battles", "-B", type=int, default=20)
    p.add_argument("--clients", "-C", type=int, default=6, help="seats per battle: the GM and C-1 players")
    p.add_argument("--observers", type=int, default=0, help="observers watching every battle (more seats)")
    p.add_argument("--seconds", type=float, default=20.0, help="time limit of the measured loop")
    p.add_argument("--actions", type=int, default=100_000, help="actions per battle (upper bound)")
    p.add_argument("--warmup", type=int, default=3, help="unmeasured actions per battle first")
    p.add_argument("--think-ms", type=float, default=0.0, help="pause after each update (0: closed loop)")
    p.add_argument("--servers", type=int, default=2 if os.environ.get("REDIS_URL") else 1)
    p.add_argument("--server", choices=sorted(SERVERS), default=os.environ.get("ASGI_SERVER", "daphne"))
    return p.parse_args()


class Battle:
    def __init__(self, bid: int, port: int, users: str) -> None:
        self.id, self.port, self.users = bid, port, users
        self.seqs: list[int] = []
        self.at: list[float] = []
        self.ws: list = []
        self.changed = asyncio.Event()


async def seat(battle: Battle, i: int, ws) -> None:
    try:
        while True:
            text = await ws.recv()
            m = SEQ.search(text)
            if m:
                battle.seqs[i], battle.at[i] = int(m.group(1)), time.perf_counter()
                battle.changed.set()
    except (ConnectionError, asyncio.IncompleteReadError):
        return


async def act_loop(
    battle: Battle, cookies: dict[str, str], args: argparse.Namespace, stop_at: float, lat: list[float], rng
) -> int:
    done, seq = 0, max(battle.seqs)
    think = args.think_ms / 1000
    if think:
        await asyncio.sleep(rng.uniform(0, think))
    while done < args.actions + args.warmup and time.perf_counter() < stop_at:
        seq += 1
        battle.changed.clear()
        t0 = time.perf_counter()
        status, _, body = await request(
            battle.port,
            "POST",
            f"/floor/{battle.id}",
            cookies,
            {"seq": str(seq), "users": battle.users},
            {"X-CSRFToken": cookies.get("csrftoken", ""), "HX-Request": "true"},
        )
        if status != 200:
            raise SystemExit(f"battle {battle.id}: HTTP {status}: {body[:300]}")
        while min(battle.seqs) < seq:
            try:
                await asyncio.wait_for(battle.changed.wait(), 10)
            except TimeoutError:
                raise SystemExit(f"battle {battle.id}: update never reached every seat") from None
            battle.changed.clear()
        if done >= args.warmup:
            lat.append((max(battle.at) - t0) * 1000)
        done += 1
        if think:
            await asyncio.sleep(rng.uniform(0.5, 1.5) * think)
    return done


async def main_async(args: argparse.Namespace, setup: dict, ports: list[int], pids: list[int]) -> dict:
    from tests.live.wsclient import WSClient

    names, ids = [setup["gm"], *setup["players"]], setup["ids"]
    cookies: dict[str, dict[str, str]] = {}
    for name in names:
        cookies[name] = await login(ports[0], name) if args.level != "bare" else {}
    for name, key in setup["observers"].items():
        cookies[name] = {"sessionid": key}
    seats = [*names, *setup["observers"]]
    battles, tasks = [], []
    for i, info in enumerate(setup["battles"]):
        port = ports[i % len(ports)]
        battle = Battle(info["id"], port, ",".join(ids[n] for n in setup["players"]))
        for j, name in enumerate(seats):
            battle.seqs.append(0)
            battle.at.append(0.0)
            if args.level != "bare":
                path, cookie = f"/ws/battles/{battle.id}/", f"sessionid={cookies[name]['sessionid']}"
            else:
                role = "gm" if name == setup["gm"] else "pl"
                path, cookie = f"/ws/floor/{battle.id}/?role={role}&user={ids.get(name, '')}", ""
            ws = await WSClient.connect(
                "127.0.0.1", port, path, origin=f"http://127.0.0.1:{port}", cookie=cookie
            )
            tasks.append(asyncio.create_task(seat(battle, j, ws)))
            battle.ws.append(ws)
        battles.append(battle)
    await asyncio.sleep(0.5)  # every socket has joined its group
    print(f"{len(battles)} battles x {len(seats)} seats connected", flush=True)
    lat: list[float] = []
    cpu0, client0 = cpu_ms(pids), time.process_time()
    start = time.perf_counter()
    rng = random.Random(7)
    counts = await asyncio.gather(
        *(
            act_loop(b, cookies[setup["gm"]], args, start + args.seconds, lat, random.Random(rng.random()))
            for b in battles
        )
    )
    elapsed = time.perf_counter() - start
    cpu, client = cpu_ms(pids) - cpu0, 1000 * (time.process_time() - client0)
    for b in battles:
        for ws in b.ws:
            await ws.close()
    for task in tasks:
        task.cancel()
    return {"lat": lat, "elapsed": elapsed, "actions": sum(counts), "cpu": cpu, "client": client}


def main() -> None:
    args = parse_args()
    if args.servers > 1 and not os.environ.get("REDIS_URL"):
        raise SystemExit("--servers > 1 needs REDIS_URL")
    os.environ["DJANGO_SETTINGS_MODULE"] = "bench.floor_settings"
    load_before = os.getloadavg()[0]
    setup = setup_tables(args.battles, args.clients, args.observers)
    from django.contrib.auth import get_user_model

    names = [setup["gm"], *setup["players"]]
    setup["ids"] = {u.username: str(u.pk) for u in get_user_model().objects.filter(username__in=names)}
    phases = os.path.join(tempfile.gettempdir(), f"vtt-bench-floor-{os.getpid()}")
    procs, ports = start_servers(
        args.servers,
        phases,
        args.server,
        app="bench.floor_app:application",
        extra_env={"FLOOR_LEVEL": args.level, "DJANGO_SETTINGS_MODULE": "bench.floor_settings"},
    )
    pids = [pid for proc in procs for pid in process_tree(proc.pid)]
    try:
        run = asyncio.run(main_async(args, setup, ports, pids))
    finally:
        stop(procs)
    lat, count = run["lat"], run["actions"]
    if not lat:
        raise SystemExit("no action measured")
    print(
        f"level={args.level} battles={args.battles} seats={args.clients + args.observers} servers={args.servers} "
        f"server={args.server} think_ms={args.think_ms:g} actions={count} seconds={run['elapsed']:.1f} "
        f"layer={'redis' if os.environ.get('REDIS_URL') else 'memory'}"
    )
    print(
        f"load average (1 min) before={load_before:.2f} after={os.getloadavg()[0]:.2f} on {os.cpu_count()} cores"
    )
    print(
        f"POST -> every seat updated ms: p50={statistics.median(lat):.1f} p95={pct(lat, 95):.1f} "
        f"p99={pct(lat, 99):.1f} (n={len(lat)})"
    )
    print(
        f"server CPU per action: {run['cpu'] / count:.1f} ms summed over {args.servers} process(es); "
        f"this bench's own client {run['client'] / count:.1f} ms (same cores)"
    )
    errors, tracebacks, first = server_errors(phases, args.servers)
    print(
        f"server errors logged: {errors} messages, {tracebacks} tracebacks"
        + (f" (first: {first})" if first else "")
    )
    print(f"p95_ms={pct(lat, 95):.0f} actions_per_s={count / run['elapsed']:.0f}")


if __name__ == "__main__":
    main()
