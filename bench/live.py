"""Live-table benchmark: HTTP action -> every seat of the battle has the pushed update.

Starts the ASGI server (daphne, 127.0.0.1, free ports; two processes sharing
Redis when REDIS_URL is set, battles split between them) as subprocesses, sets
up B D20 Luck battles of one GM and five players (C = 6 websocket clients per
battle, each logged in over HTTP with a real session cookie), then in every
battle the seat controlling the current combatant acts through HTTP in a loop
(a move to a legal square or the end of its turn). For each action it measures
the time from sending the POST to the moment every client of that battle has
received a frame with the new seq. After each update a battle waits about
``--think-ms`` (default 1 s, a quick player; drawn between half and one and a
half times that, and tables start at random offsets, so they do not act in
lockstep) before its next action;
``--think-ms 0`` is a closed loop. Bounded by an action count per battle and a
time limit. The machine's load average is printed: other work on the same
cores moves every figure.

    DATABASE_URL=postgres://... REDIS_URL=redis://... .venv/bin/python bench/live.py [--battles 20 --clients 6]

Last line, exactly: ``p95_ms=<N> actions_per_s=<M>``.
"""

from __future__ import annotations

import argparse
import asyncio
import html
import json
import os
import random
import re
import secrets
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlencode

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "vtt.settings")
if not os.environ.get("DATABASE_URL"):
    # Never touch the development database: a SQLite file of its own (the server inherits it).
    os.environ.setdefault("SQLITE_PATH", os.path.join(tempfile.gettempdir(), "vtt-bench-live.sqlite3"))

PASSWORD = "bench-pass-31x"
PREFIX = "bench-live"
SEQ = re.compile(r'id="battle-seq" hx-swap-oob="true" data-seq="(\d+)"')
ACTOR = re.compile(r'name="actor" value="(c\d+)"')
MOVE_FORM = re.compile(r'data-option="([^"]*)" data-label="Move"')


def parse_args() -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--battles", "-B", type=int, default=20)
    p.add_argument("--clients", "-C", type=int, default=6, help="seats per battle: the GM and C-1 players")
    p.add_argument("--actions", type=int, default=30, help="actions per battle (upper bound)")
    p.add_argument("--seconds", type=float, default=90.0, help="time limit of the measured loop")
    p.add_argument("--think-ms", type=float, default=1000.0,
                   help="pause of a battle between an update reaching every seat and its next action (0: closed loop)")
    p.add_argument("--warmup", type=int, default=3, help="unmeasured actions per battle first")
    p.add_argument("--servers", type=int, default=2 if os.environ.get("REDIS_URL") else 1,
                   help="server processes sharing the tables through Redis (default 2 with REDIS_URL, else 1)")
    return p.parse_args()


# ---------------------------------------------------------------- set-up (Django, in this process)


def setup_tables(battles: int, clients: int) -> dict:
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.core.management import call_command

    from combat import services
    from combat.engine.rulesets.luck_content import HEROES, MONSTERS
    from vtt.models import Campaign, Character, Membership

    call_command("migrate", verbosity=0, interactive=False)
    User = get_user_model()
    Campaign.objects.filter(name=PREFIX).delete()
    User.objects.filter(username__startswith=PREFIX).delete()
    gm = User.objects.create_user(f"{PREFIX}-gm", password=PASSWORD)
    players = [User.objects.create_user(f"{PREFIX}-p{i}", password=PASSWORD) for i in range(1, clients)]
    campaign = Campaign.objects.create(name=PREFIX, ruleset="luck", owner=gm, options={"hide_enemy_hp": True})
    Membership.objects.create(campaign=campaign, user=gm, role="gm")
    heroes = list(HEROES.values())
    pcs = []
    for i, p in enumerate(players):
        Membership.objects.create(campaign=campaign, user=p, role="player")
        pcs.append(Character.objects.create(campaign=campaign, owner=p, name=f"Hero {i + 1}",
                                            sheet=dict(heroes[i % len(heroes)], hp=9999)))
    goblin = Character.objects.create(campaign=campaign, kind="monster", name="Goblin",
                                      sheet=dict(MONSTERS["Goblin Skirmisher"], hp=9999))
    out = []
    for b in range(battles):
        made = services.create_battle(campaign, gm, f"{PREFIX} {b + 1}", 16, 12, ruleset="luck",
                                      options=campaign.house_rules(), seed=1000 + b)
        assert made.ok, made.reason
        bid = made.battle_id
        owner = {}
        for i, pc in enumerate(pcs):
            r = services.add_combatant(bid, gm, pc, pos=[1, 1 + 2 * i])
            assert r.ok, r.reason
            owner[f"c{len(owner) + 1}"] = pc.owner.username
        for i in range(3):
            r = services.add_combatant(bid, gm, goblin, params={"name": f"Goblin {i + 1}"}, pos=[14, 2 + 3 * i])
            assert r.ok, r.reason
            owner[f"c{len(owner) + 1}"] = gm.username
        r = services.start_battle(bid, gm)
        assert r.ok, r.reason
        out.append({"id": bid, "owner": owner})
    return {"gm": gm.username, "players": [p.username for p in players], "battles": out}


# ---------------------------------------------------------------- the server


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_servers(count: int, phases: str) -> tuple[list[subprocess.Popen], list[int]]:
    env = dict(os.environ)
    env.setdefault("SECRET_KEY", secrets.token_urlsafe(40))
    # DB_CONN_MAX_AGE=0: under ASGI each request runs its view in a thread of its own, so kept connections
    # pile up (one per request until they age out) and exhaust PostgreSQL. A pool (Django 5.1+ with
    # psycopg-pool) would save the ~6 ms connect of every action; the project does not configure one.
    env.update({"DEBUG": "0", "ALLOWED_HOSTS": "127.0.0.1", "SECURE_SSL_REDIRECT": "0", "LOG_LEVEL": "ERROR",
                "DB_CONN_MAX_AGE": "0"})
    procs, ports = [], []
    for i in range(count):
        port = free_port()
        procs.append(subprocess.Popen(
            [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port), "bench.asgi_frozen:application"],
            cwd=ROOT, env={**env, "BENCH_PHASES": f"{phases}.{i}"}, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        ))
        ports.append(port)
    for port, proc in zip(ports, procs, strict=True):
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                raise SystemExit(f"server exited: {proc.stderr.read().decode()[-2000:]}")
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                break
            except OSError:
                time.sleep(0.2)
        else:
            raise SystemExit("server did not start in 60 s")
    return procs, ports


# ---------------------------------------------------------------- clients


async def request(port: int, method: str, path: str, cookies: dict[str, str], data: dict | None = None,
                  headers: dict | None = None) -> tuple[int, dict[str, str], str]:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    body = urlencode(data).encode() if data is not None else b""
    lines = [f"{method} {path} HTTP/1.1", f"Host: 127.0.0.1:{port}", "Connection: close",
             "Cookie: " + "; ".join(f"{k}={v}" for k, v in cookies.items())]
    for k, v in (headers or {}).items():
        lines.append(f"{k}: {v}")
    if data is not None:
        lines += ["Content-Type: application/x-www-form-urlencoded", f"Content-Length: {len(body)}"]
    writer.write(("\r\n".join(lines) + "\r\n\r\n").encode() + body)
    await writer.drain()
    raw = await reader.read()
    writer.close()
    head, _, text = raw.partition(b"\r\n\r\n")
    status_line, *header_lines = head.decode(errors="replace").split("\r\n")
    out_headers: dict[str, str] = {}
    for line in header_lines:
        k, _, v = line.partition(":")
        if k.lower() == "set-cookie":
            name, _, rest = v.strip().partition("=")
            cookies_set = out_headers.setdefault("set-cookie", "")
            out_headers["set-cookie"] = cookies_set + f"{name}={rest.split(';', 1)[0]};"
        else:
            out_headers[k.lower()] = v.strip()
    return int(status_line.split()[1]), out_headers, text.decode(errors="replace")


async def login(port: int, username: str) -> dict[str, str]:
    """Log in through the real form; returns the cookies (session + CSRF)."""
    csrf = secrets.token_hex(16)  # 32 characters: Django accepts the unmasked secret
    cookies = {"csrftoken": csrf}
    status, headers, body = await request(
        port, "POST", "/accounts/login/", cookies, {"username": username, "password": PASSWORD},
        {"X-CSRFToken": csrf, "Referer": f"http://127.0.0.1:{port}/accounts/login/"},
    )
    for part in headers.get("set-cookie", "").split(";"):
        if part.startswith("sessionid="):
            cookies["sessionid"] = part.split("=", 1)[1]
    if "sessionid" not in cookies:
        raise SystemExit(f"login of {username} failed: HTTP {status} {body[:300]}")
    return cookies


class Seat:
    """One websocket client: remembers the newest seq and when it arrived."""

    def __init__(self, battle: Table, user: str, ws) -> None:
        self.battle, self.user, self.ws = battle, user, ws
        self.seq = 0
        self.at = 0.0

    async def run(self) -> None:
        try:
            while True:
                text = await self.ws.recv()
                now = time.perf_counter()
                m = SEQ.search(text)
                if m:
                    self.seq, self.at = int(m.group(1)), now
                    if self.user == self.battle.gm_user:
                        self.battle.gm_frame = text
                    self.battle.changed.set()
        except (ConnectionError, asyncio.IncompleteReadError):
            return


class Table:
    def __init__(self, info: dict, gm_user: str, port: int) -> None:
        self.id = info["id"]
        self.owner = info["owner"]
        self.gm_user = gm_user
        self.port = port
        self.seats: list[Seat] = []
        self.changed = asyncio.Event()
        self.gm_frame = ""

    def min_seq(self) -> int:
        return min(s.seq for s in self.seats)


async def act_loop(table: Table, cookies: dict[str, dict[str, str]], actions: int, warmup: int, stop_at: float,
                   think: float, lat: list[float], post_ms: list[float], rng: random.Random) -> int:
    done = 0
    if think:
        await asyncio.sleep(rng.uniform(0, think))  # tables do not start in step
    while done < actions + warmup and time.perf_counter() < stop_at:
        frame = table.gm_frame
        seq = table.min_seq()
        actor = ACTOR.search(frame)
        if actor is None:
            return done
        cid = actor.group(1)
        user = table.owner.get(cid, table.gm_user)
        data = {"kind": "end_turn", "actor": cid, "params": "{}", "expected_seq": str(seq),
                "client_token": secrets.token_hex(8)}
        move = MOVE_FORM.search(frame)
        if move and rng.random() < 0.6:
            option = json.loads(html.unescape(move.group(1)))
            if option.get("squares"):
                sq = rng.choice(option["squares"])
                data.update(kind="move", square=f"{sq[0]},{sq[1]}")
        c = cookies[user]
        table.changed.clear()
        t0 = time.perf_counter()
        status, _, body = await request(table.port, "POST", f"/battles/{table.id}/act", c, data,
                                        {"X-CSRFToken": c["csrftoken"], "HX-Request": "true", "X-VTT-Live": "1"})
        t1 = time.perf_counter()
        if status != 200:
            raise SystemExit(f"battle {table.id}: HTTP {status}: {body[:300]}")
        while table.min_seq() <= seq:
            try:
                await asyncio.wait_for(table.changed.wait(), 10)
            except TimeoutError:
                raise SystemExit(f"battle {table.id}: update never reached every seat") from None
            table.changed.clear()
        arrived = max(s.at for s in table.seats)
        if done >= warmup:
            lat.append((arrived - t0) * 1000)
            post_ms.append((t1 - t0) * 1000)
        done += 1
        if think:
            await asyncio.sleep(rng.uniform(0.5, 1.5) * think)  # players differ; no lockstep bursts
    return max(0, done - warmup)


async def main_async(args: argparse.Namespace, setup: dict, ports: list[int]) -> tuple[list[float], list[float], float, int]:
    from tests.live.wsclient import WSClient

    users = [setup["gm"], *setup["players"]]
    cookies = {}
    for user in users:
        cookies[user] = await login(ports[0], user)
    tables = [Table(info, setup["gm"], ports[i % len(ports)]) for i, info in enumerate(setup["battles"])]
    tasks = []
    for table in tables:
        for user in users:
            ws = await WSClient.connect("127.0.0.1", table.port, f"/ws/battles/{table.id}/",
                                        origin="http://127.0.0.1", cookie=f"sessionid={cookies[user]['sessionid']}")
            seat = Seat(table, user, ws)
            table.seats.append(seat)
            tasks.append(asyncio.create_task(seat.run()))
            await ws.send(json.dumps({"type": "sync", "seq": 0, "reconnect": True}))  # a full first render
    deadline = time.perf_counter() + 30
    while any(s.seq == 0 for t in tables for s in t.seats) or any(not t.gm_frame for t in tables):
        if time.perf_counter() > deadline:
            raise SystemExit("not every seat got its first render")
        await asyncio.sleep(0.05)
    print(f"{len(tables)} battles x {len(users)} seats connected", flush=True)
    lat: list[float] = []
    post_ms: list[float] = []
    start = time.perf_counter()
    rng = random.Random(7)
    counts = await asyncio.gather(*(
        act_loop(t, cookies, args.actions, args.warmup, start + args.seconds, args.think_ms / 1000, lat, post_ms,
                 random.Random(rng.random()))
        for t in tables
    ))
    elapsed = time.perf_counter() - start
    for table in tables:
        for seat in table.seats:
            await seat.ws.close()
    for task in tasks:
        task.cancel()
    return lat, post_ms, elapsed, sum(counts)


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(p / 100 * len(ordered)) - 1))]


def main() -> None:
    args = parse_args()
    if not os.environ.get("DATABASE_URL") or not os.environ.get("REDIS_URL"):
        print("note: the reference run uses DATABASE_URL (PostgreSQL) and REDIS_URL (Redis)", file=sys.stderr)
    if args.servers > 1 and not os.environ.get("REDIS_URL"):
        raise SystemExit("--servers > 1 needs REDIS_URL")
    load_before = os.getloadavg()[0]
    setup = setup_tables(args.battles, args.clients)
    phases = os.path.join(tempfile.gettempdir(), f"vtt-bench-phases-{os.getpid()}")
    procs, ports = start_servers(args.servers, phases)
    try:
        lat, post_ms, elapsed, count = asyncio.run(main_async(args, setup, ports))
        time.sleep(1.2)  # let the servers write their last stage timings
    finally:
        for proc in procs:
            proc.terminate()
        for proc in procs:
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=5)
    if not lat:
        raise SystemExit("no action measured")
    rate = count / elapsed
    print(f"battles={args.battles} seats={args.clients} servers={args.servers} think_ms={args.think_ms:g} "
          f"actions={count} seconds={elapsed:.1f}")
    print(f"load average (1 min) before={load_before:.1f} after={os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print(f"POST round trip ms: p50={statistics.median(post_ms):.1f} p95={pct(post_ms, 95):.1f}")
    print(f"POST -> every seat updated ms: p50={statistics.median(lat):.1f} p95={pct(lat, 95):.1f} "
          f"p99={pct(lat, 99):.1f} max={max(lat):.1f}")
    stages: dict[str, list[float]] = {}
    for i in range(args.servers):
        try:
            with open(f"{phases}.{i}") as f:
                for name, values in json.load(f).items():
                    stages.setdefault(name, []).extend(values)
            os.remove(f"{phases}.{i}")
        except (OSError, ValueError):
            pass
    for name, values in stages.items():
        print(f"server {name}: p50={statistics.median(values):.1f} p95={pct(values, 95):.1f} ms (n={len(values)})")
    print(f"p95_ms={pct(lat, 95):.0f} actions_per_s={rate:.0f}")


if __name__ == "__main__":
    main()
