"""Live-table benchmark: HTTP action -> every seat of the battle has the pushed update.

Starts the ASGI server (daphne by default, or ``--server uvicorn|granian``;
127.0.0.1, free ports; two processes sharing Redis when REDIS_URL is set,
battles split between them) as subprocesses, sets up B D20 Luck battles of one
GM and five players (C = 6 websocket clients per battle, each logged in over
HTTP with a real session cookie) watched by ``--observers`` more members each
(so ``-B 1 -C 6 --observers 94`` is the 100-seat table; observers' sessions are
made in set-up the way Django's test client logs in, not through the login
form, whose password hash costs ~0.4 s of server CPU a seat), then in every
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

``--chat-every S`` adds the table talk: every seat but the observers sends a chat line about every S
seconds (drawn between half and one and a half times that; some with a roll in them, some
whispered to the GM) beside the actions, and the bench prints how long a line takes to reach every
seat of its table. With chat, each battle is a campaign of its own (a campaign's chat goes to every
battle page of it); ``--campaigns per-battle`` gives a run without chat the same tables.

``--proxy nginx`` starts Debian's nginx on 127.0.0.1 with a configuration of
its own in front of the server processes: every request and websocket goes
through it, round robin, no sticky sessions (needs REDIS_URL). The bench
prints the server CPU time per action, summed over the server processes (and
nginx's apart), from /proc. ``--profile FILE`` attaches py-spy to the first
server process for the measured loop only (log-ins and connects left out, the
process not paused per sample) and writes its flame graph (SVG) to FILE.

    DATABASE_URL=postgres://... REDIS_URL=redis://... .venv/bin/python bench/live.py [--battles 20 --clients 6]

``--floor`` then runs ``bench/floor.py --level stack`` with the same load and pushes of the sizes
this run measured, and prints its figures beside this run's.

The line before the last: ``push_bytes_player_p50=<A> push_bytes_gm_p50=<B> cpu_ms_per_action=<C>
floor_cpu_ms=<D>`` (bytes a player's and the GM's socket received per change, medians; the server CPU
per action; the floor's, or ``-`` without ``--floor``). Last line, exactly: ``p95_ms=<N> actions_per_s=<M>``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
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
# One key for this process and the servers: observers' sessions are signed here.
os.environ.setdefault("SECRET_KEY", secrets.token_urlsafe(40))
if not os.environ.get("DATABASE_URL"):
    # Never touch the development database: a SQLite file of its own (the server inherits it).
    os.environ.setdefault("SQLITE_PATH", os.path.join(tempfile.gettempdir(), "vtt-bench-live.sqlite3"))

PASSWORD = "bench-pass-31x"
PREFIX = "bench-live"
SEQ = re.compile(r'id="battle-seq" hx-swap-oob="true" data-seq="(\d+)"')
PROBE = re.compile(r"chat-probe-(\d+)")
# The acting combatant: a form's field, or the options' hx-vals (the forms pushed alone).
ACTOR = re.compile(r'name="actor" value="(c\d+)"|"actor":"(c\d+)"')
# The move's form: its pick in single quotes (in double quotes before pushes went as elements).
MOVE_FORM = re.compile(r"data-option=(?:'([^']*)'|\"([^\"]*)\") data-label=\"Move\"")


def parse_args() -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--battles", "-B", type=int, default=20)
    p.add_argument("--clients", "-C", type=int, default=6, help="seats per battle: the GM and C-1 players")
    p.add_argument("--observers", type=int, default=0, help="observers watching every battle (more seats)")
    p.add_argument("--actions", type=int, default=30, help="actions per battle (upper bound)")
    p.add_argument("--seconds", type=float, default=90.0, help="time limit of the measured loop")
    p.add_argument(
        "--think-ms",
        type=float,
        default=1000.0,
        help="pause of a battle between an update reaching every seat and its next action (0: closed loop)",
    )
    p.add_argument("--warmup", type=int, default=3, help="unmeasured actions per battle first")
    p.add_argument(
        "--chat-every",
        type=float,
        default=0.0,
        help="seconds between two chat lines of each seat but the observers (0: no chat)",
    )
    p.add_argument(
        "--campaigns",
        choices=["one", "per-battle"],
        default=None,
        help="one campaign for every battle (the default without chat) or one per battle (with chat)",
    )
    p.add_argument(
        "--servers",
        type=int,
        default=2 if os.environ.get("REDIS_URL") else 1,
        help="server processes sharing the tables through Redis (default 2 with REDIS_URL, else 1)",
    )
    p.add_argument(
        "--server",
        choices=sorted(SERVERS),
        default=os.environ.get("ASGI_SERVER", "daphne"),
        help="the ASGI server (default: ASGI_SERVER or daphne)",
    )
    p.add_argument(
        "--proxy",
        choices=["nginx"],
        default=None,
        help="put nginx (127.0.0.1, no sticky sessions) in front of the server processes",
    )
    p.add_argument(
        "--profile",
        metavar="FILE",
        default=None,
        help="run the first server process under py-spy and write its flame graph here "
        "(SVG; collapsed stacks unless FILE ends in .svg)",
    )
    p.add_argument(
        "--floor",
        action="store_true",
        help="then run bench/floor.py (--level stack) with the same load and this run's push sizes, "
        "and print its CPU per action and p95 beside this run's",
    )
    p.add_argument(
        "--breakdown",
        action="store_true",
        help="print what the GM's and the players' pushes weigh by element id prefix (tok, trk, tm, actions...)",
    )
    p.add_argument(
        "--profile-gil",
        action="store_true",
        help="with --profile: sample only the thread that holds the GIL (the process's Python CPU)",
    )
    return p.parse_args()


# ---------------------------------------------------------------- set-up (Django, in this process)


def setup_tables(battles: int, clients: int, observers: int = 0, per_battle: bool = False) -> dict:
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0, interactive=False)
    # No socket is open yet: no live push for the set-up writes (services skip it without combat.live).
    live_module = sys.modules.get("combat.live")
    sys.modules["combat.live"] = None  # type: ignore[assignment]
    try:
        return _setup(battles, clients, observers, per_battle)
    finally:
        if live_module is None:
            sys.modules.pop("combat.live", None)
        else:
            sys.modules["combat.live"] = live_module


def _setup(battles: int, clients: int, observers: int, per_battle: bool = False) -> dict:
    from django.contrib.auth import get_user_model

    from combat import services
    from combat.engine.rulesets.luck.content import HEROES, MONSTERS
    from vtt.models import Campaign, Character, Membership, Role

    User = get_user_model()
    Campaign.objects.filter(name=PREFIX).delete()
    User.objects.filter(username__startswith=PREFIX).delete()
    gm = User.objects.create_user(f"{PREFIX}-gm", password=PASSWORD)
    players = [User.objects.create_user(f"{PREFIX}-p{i}", password=PASSWORD) for i in range(1, clients)]
    watchers = [User(username=f"{PREFIX}-o{i}") for i in range(1, observers + 1)]
    for watcher in watchers:
        watcher.set_unusable_password()
    watchers = User.objects.bulk_create(watchers)
    heroes = list(HEROES.values())

    def new_campaign():
        campaign = Campaign.objects.create(
            name=PREFIX, ruleset="luck", owner=gm, options={"hide_enemy_hp": True}
        )
        Membership.objects.create(campaign=campaign, user=gm, role=Role.GM)
        Membership.objects.bulk_create(
            [Membership(campaign=campaign, user=w, role=Role.OBSERVER) for w in watchers]
        )
        Membership.objects.bulk_create(
            [Membership(campaign=campaign, user=p, role=Role.PLAYER) for p in players]
        )
        pcs = [
            Character.objects.create(
                campaign=campaign, owner=p, name=f"Hero {i + 1}", sheet=dict(heroes[i % len(heroes)], hp=9999)
            )
            for i, p in enumerate(players)
        ]
        goblin = Character.objects.create(
            campaign=campaign,
            kind="monster",
            name="Goblin",
            sheet=dict(MONSTERS["Goblin Skirmisher"], hp=9999),
        )
        return campaign, pcs, goblin

    campaign, pcs, goblin = new_campaign()
    out = []
    for b in range(battles):
        if per_battle and b:
            campaign, pcs, goblin = new_campaign()
        made = services.create_battle(
            campaign,
            gm,
            f"{PREFIX} {b + 1}",
            16,
            12,
            ruleset="luck",
            options=campaign.house_rules(),
            seed=1000 + b,
        )
        assert made.ok, made.reason
        bid = made.battle_id
        owner = {}
        for i, pc in enumerate(pcs):
            r = services.add_combatant(bid, gm, pc, pos=[1, 1 + 2 * i])
            assert r.ok, r.reason
            owner[f"c{len(owner) + 1}"] = pc.owner.username
        for i in range(3):
            r = services.add_combatant(
                bid, gm, goblin, params={"name": f"Goblin {i + 1}"}, pos=[14, 2 + 3 * i]
            )
            assert r.ok, r.reason
            owner[f"c{len(owner) + 1}"] = gm.username
        r = services.start_battle(bid, gm)
        assert r.ok, r.reason
        out.append({"id": bid, "owner": owner, "campaign": campaign.pk})
    return {
        "gm": gm.username,
        "players": [p.username for p in players],
        "battles": out,
        "observers": {w.username: session_for(w) for w in watchers},
    }


def session_for(user) -> str:
    """A logged-in session key for ``user``, made as Django's test client ``force_login`` makes one."""
    from importlib import import_module

    from django.conf import settings
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY

    store = import_module(settings.SESSION_ENGINE).SessionStore()
    store[SESSION_KEY] = str(user.pk)
    store[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
    store[HASH_SESSION_KEY] = user.get_session_auth_hash()
    store.save()
    return store.session_key


# ---------------------------------------------------------------- the server


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


APP = "bench.asgi_frozen:application"
SERVERS = {
    "daphne": lambda port, app: ["-m", "daphne", "-b", "127.0.0.1", "-p", str(port), app],
    "uvicorn": lambda port, app: [
        "-m",
        "uvicorn",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--loop",
        "uvloop",
        "--http",
        "httptools",
        "--ws",
        "websockets",
        "--lifespan",
        "off",
        "--no-access-log",
        "--log-level",
        "warning",
        app,
    ],
    "granian": lambda port, app: [
        "-m",
        "granian",
        "--interface",
        "asginl",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--loop",
        "uvloop",
        "--log-level",
        "warning",
        "--no-access-log",
        app,
    ],
}


def start_servers(
    count: int,
    phases: str,
    server: str = "daphne",
    proxied: bool = False,
    app: str = APP,
    extra_env: dict[str, str] | None = None,
) -> tuple[list[subprocess.Popen], list[int]]:
    env = dict(os.environ)
    # DB_CONN_MAX_AGE=0: under ASGI each request runs its view in a thread of its own, so kept connections
    # would pile up. On PostgreSQL the servers use the settings' psycopg pool (DB_POOL, on by default),
    # which keeps the connections instead; DB_POOL=0 in the environment measures a connect per request.
    env.update(
        {
            "DEBUG": "0",
            "ALLOWED_HOSTS": "127.0.0.1",
            "SECURE_SSL_REDIRECT": "0",
            "LOG_LEVEL": "ERROR",
            "PYTHONWARNINGS": "ignore:Using the development SECRET_KEY",  # stderr: errors only
            "DB_CONN_MAX_AGE": "0",
            # Every bench seat connects from 127.0.0.1: lift the per-address socket cap.
            "SOCKETS_PER_IP": "100000",
        }
    )
    if proxied:
        env["TRUSTED_PROXY_COUNT"] = "1"
    env.update(extra_env or {})
    env.setdefault("SOCKETS_PER_IP", "100000")  # every seat of the benchmark comes from 127.0.0.1
    procs, ports = [], []
    for i in range(count):
        port = free_port()
        command = [sys.executable, *SERVERS[server](port, app)]
        procs.append(
            subprocess.Popen(
                command,
                cwd=ROOT,
                env={**env, "BENCH_PHASES": f"{phases}.{i}"},
                stdout=subprocess.DEVNULL,
                # A file, not a pipe nobody reads: a server that logged 64 KB would block on its next
                # line. ``server_errors`` reads what each logged after the run.
                stderr=open(f"{phases}.{i}.err", "wb"),  # noqa: SIM115 - the server process owns it
            )
        )
        ports.append(port)
    for port, proc in zip(ports, procs, strict=True):
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                with open(f"{phases}.{procs.index(proc)}.err", errors="replace") as f:
                    raise SystemExit(f"server exited: {f.read()[-2000:]}")
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                break
            except OSError:
                time.sleep(0.2)
        else:
            raise SystemExit("server did not start in 60 s")
    return procs, ports


NGINX_CONF = """
worker_processes 1;
pid {dir}/nginx.pid;
error_log {dir}/error.log warn;
events {{ worker_connections 4096; }}
http {{
    access_log off;
    client_body_temp_path {dir}/body;
    proxy_temp_path {dir}/proxy;
    fastcgi_temp_path {dir}/fastcgi;
    uwsgi_temp_path {dir}/uwsgi;
    scgi_temp_path {dir}/scgi;
    map $http_upgrade $connection_upgrade {{ default upgrade; "" ""; }}
    upstream vtt {{
{upstreams}
        keepalive 64;
    }}
    server {{
        listen 127.0.0.1:{port};
        location / {{
            proxy_pass http://vtt;
            proxy_http_version 1.1;
            proxy_set_header Host $http_host;
            proxy_set_header Upgrade $http_upgrade;
            proxy_set_header Connection $connection_upgrade;
            proxy_set_header X-Forwarded-For $remote_addr;
            proxy_buffering off;
            proxy_read_timeout 1h;
        }}
    }}
}}
"""


def start_nginx(ports: list[int]) -> tuple[subprocess.Popen, int, str]:
    """Debian's nginx on 127.0.0.1 in front of ``ports``, round robin (no sticky sessions)."""
    folder = tempfile.mkdtemp(prefix="vtt-bench-nginx-")
    os.chmod(folder, 0o755)
    port = free_port()
    upstreams = "\n".join(f"        server 127.0.0.1:{p};" for p in ports)
    conf = os.path.join(folder, "nginx.conf")
    with open(conf, "w") as out:
        out.write(NGINX_CONF.format(dir=folder, upstreams=upstreams, port=port))
    nginx = os.environ.get("NGINX", "/usr/sbin/nginx")
    proc = subprocess.Popen(
        [nginx, "-e", os.path.join(folder, "error.log"), "-p", folder, "-c", conf, "-g", "daemon off;"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 20
    while True:
        if proc.poll() is not None:
            raise SystemExit(f"nginx exited: {proc.stderr.read().decode()[-2000:]}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return proc, port, folder
        except OSError:
            if time.monotonic() > deadline:
                raise SystemExit("nginx did not start in 20 s") from None
            time.sleep(0.1)


def server_errors(phases: str, count: int) -> tuple[int, int, str]:
    """(messages, tracebacks, the first message and where the whole log is) the servers logged.

    The servers log at ERROR (``LOG_LEVEL``): every message is one. A traceback's own lines are
    indented or start with "Traceback"; its last line (the exception) is not indented either. A
    server's log with nothing but Python's warnings is removed; one with errors is kept, and its
    path follows the first message.
    """
    # Python's warnings ("file:line: SomeWarning: text", then the source line) are not errors.
    warning = re.compile(r"^\S+:\d+: \w*Warning: ")
    lines: list[str] = []
    logs: list[str] = []
    for i in range(count):
        path = f"{phases}.{i}.err"
        try:
            with open(path, errors="replace") as f:
                read = f.read().splitlines()
        except OSError:
            continue
        mine: list[str] = []
        for line in read:
            if warning.match(line) or (line[:1].isspace() and mine[-1:] == ["<warning>"]):
                mine.append("<warning>")
            else:
                mine.append(line)
        mine = [line for line in mine if line != "<warning>"]
        if any(mine):
            logs.append(path)
        else:
            os.remove(path)
        lines += mine
    tracebacks = sum(1 for line in lines if line.startswith("Traceback"))
    messages = [line for line in lines if line and not line[0].isspace() and not line.startswith("Traceback")]
    # A message logged with its traceback shows as the message, the traceback, then the exception.
    errors = len(messages) - tracebacks if len(messages) > tracebacks else len(messages)
    first = messages[0][:200] + f"; the servers' logs: {', '.join(logs)}" if messages else ""
    return errors, tracebacks, first


def stop(procs: list[subprocess.Popen]) -> None:
    for proc in procs:
        proc.terminate()
    for proc in procs:
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=5)


TICK_MS = 1000 / os.sysconf("SC_CLK_TCK")


def process_tree(root: int) -> list[int]:
    """``root`` and every process below it (server workers, a profiled server under py-spy)."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(entry))
    out, todo = [], [root]
    while todo:
        pid = todo.pop()
        out.append(pid)
        todo.extend(children.get(pid, []))
    return out


def cpu_ms(pids: list[int]) -> float:
    """User + system CPU time of these processes (all their threads), in ms."""
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])  # utime, stime
        except (OSError, IndexError, ValueError):
            pass
    return total * TICK_MS


# ---------------------------------------------------------------- clients


async def request(
    port: int,
    method: str,
    path: str,
    cookies: dict[str, str],
    data: dict | None = None,
    headers: dict | None = None,
) -> tuple[int, dict[str, str], str]:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    body = urlencode(data).encode() if data is not None else b""
    lines = [
        f"{method} {path} HTTP/1.1",
        f"Host: 127.0.0.1:{port}",
        "Connection: close",
        "Cookie: " + "; ".join(f"{k}={v}" for k, v in cookies.items()),
    ]
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
        port,
        "POST",
        "/accounts/login/",
        cookies,
        {"username": username, "password": PASSWORD},
        {"X-CSRFToken": csrf, "Referer": f"http://127.0.0.1:{port}/accounts/login/"},
    )
    for part in headers.get("set-cookie", "").split(";"):
        if part.startswith("sessionid="):
            cookies["sessionid"] = part.split("=", 1)[1]
    if "sessionid" not in cookies:
        raise SystemExit(f"login of {username} failed: HTTP {status} {body[:300]}")
    return cookies


# Bytes of each push a seat received (its frames up to and with the seq mark), while measuring:
# "gm" for the GM's seats, "player" for the players', "observer" for the others'.
PUSH_BYTES: dict[str, list[int]] = {"gm": [], "player": [], "observer": []}
# --breakdown: per seat kind, one {prefix: bytes} per push.
BREAKDOWN: dict[str, list[dict[str, int]]] | None = None
# A top-level element swapped out of band: its start tag (nested elements carry no hx-swap-oob).
OOB_TAG = re.compile(r"<[a-z]+\b[^>]*?\bhx-swap-oob=\"([^\"]*)\"[^>]*>")
OPTION_FORM = re.compile(r'<form id="(opt-\d+)".*?</form>', re.S)
ELEMENT_ID = re.compile(r'\bid="([^"]*)"')
ID_TAIL = re.compile(r"-(?:c?\d+)(?:-\d+)?$")


def oob_elements(text: str) -> list[tuple[re.Match[str], int]]:
    """(start tag, end) of each top-level out-of-band element of a frame."""
    starts = list(OOB_TAG.finditer(text))
    return list(zip(starts, [m.start() for m in starts[1:]] + [len(text)], strict=True))


def weigh(text: str, into: dict[str, int]) -> None:
    """Add a frame's bytes to ``into`` by the id prefix of each out-of-band element ("tok-c3" -> "tok";
    an element without id by its swap: "afterbegin:#log-entries"); what precedes the first one is
    "(frame)"."""
    elements = oob_elements(text)
    head = text[: elements[0][0].start()] if elements else text
    if head:
        into["(frame)"] = into.get("(frame)", 0) + len(head.encode())
    for m, end in elements:
        found = ELEMENT_ID.search(m.group(0))
        if found:
            key = ID_TAIL.sub("", found.group(1))
        else:  # "delete:#log-3,#log-4" -> "delete:#log"
            style, _, selector = m.group(1).partition(":")
            key = f"{style}:{ID_TAIL.sub('', selector.split(',')[0])}"
        into[key] = into.get(key, 0) + len(text[m.start() : end].encode())


def print_breakdown() -> None:
    """Mean bytes per push of each part, and the share of pushes that carry it, per seat kind."""
    assert BREAKDOWN is not None
    for kind, pushes in BREAKDOWN.items():
        if not pushes:
            continue
        total: dict[str, int] = {}
        carried: dict[str, int] = {}
        for push in pushes:
            for key, size in push.items():
                total[key] = total.get(key, 0) + size
                carried[key] = carried.get(key, 0) + 1
        n = len(pushes)
        sizes = sorted(sum(p.values()) for p in pushes)
        print(f"breakdown {kind}: {n} pushes, mean {sum(sizes) / n:.0f} bytes, p50 {sizes[n // 2]}")
        for key in sorted(total, key=lambda k: -total[k]):
            print(
                f"  {key:<28} mean/push {total[key] / n:7.0f}  in {100 * carried[key] / n:3.0f} % of pushes, "
                f"{total[key] / carried[key]:6.0f} bytes when there"
            )


MEASURING = [False]


class Seat:
    """One websocket client: remembers the newest seq and when it arrived, and the bytes of each push."""

    def __init__(self, battle: Table, user: str, ws, kind: str = "player") -> None:
        self.battle, self.user, self.ws, self.kind = battle, user, ws, kind
        self.seq = 0
        self.at = 0.0
        self.bytes = 0
        self.parts: dict[str, int] = {}

    async def run(self) -> None:
        try:
            while True:
                text = await self.ws.recv()
                now = time.perf_counter()
                if not text.startswith("{"):
                    self.bytes += len(text.encode())
                    if BREAKDOWN is not None:
                        weigh(text, self.parts)
                    if self.user == self.battle.gm_user:
                        self.battle.gm_frame = self.battle.gm_page(text)
                m = SEQ.search(text)
                if m:
                    if MEASURING[0]:
                        PUSH_BYTES[self.kind].append(self.bytes)
                        if BREAKDOWN is not None:
                            BREAKDOWN[self.kind].append(self.parts)
                    self.bytes = 0
                    self.parts = {}
                    self.seq, self.at = int(m.group(1)), now
                    self.battle.changed.set()
                elif self.battle.chat_sent and "chat-probe-" in text:
                    for probe in PROBE.findall(text):
                        self.battle.chat_arrived(int(probe), now)
        except (ConnectionError, asyncio.IncompleteReadError):
            return


class Table:
    def __init__(self, info: dict, gm_user: str, port: int) -> None:
        self.id = info["id"]
        self.campaign = info["campaign"]
        self.owner = info["owner"]
        self.gm_user = gm_user
        self.port = port
        self.seats: list[Seat] = []
        self.changed = asyncio.Event()
        self.gm_frame = ""
        self.panel: dict[str, str] = {}  # the GM's action panel by element id
        # Chat lines on their way: probe -> (sent at, how many seats it must reach, how many it reached).
        self.chat_sent: dict[int, list[float]] = {}
        self.chat_lat: list[float] = []

    def gm_page(self, text: str) -> str:
        """The GM's action panel as the page shows it after this frame: a frame may bring only the
        option forms that changed (``id="opt-<n>"``) or the whole panel (``id="actions"``)."""
        for m, end in oob_elements(text):
            found = ELEMENT_ID.search(m.group(0))
            ident = found.group(1) if found else ""
            if ident == "actions":  # the whole panel: its forms by id, and what is left of it
                whole = text[m.start() : end]
                self.panel = {f.group(1): f.group(0) for f in OPTION_FORM.finditer(whole)}
                self.panel["actions"] = OPTION_FORM.sub("", whole)
            elif ident.startswith("opt-"):
                self.panel[ident] = text[m.start() : end]
        if not self.panel:  # a page that pushes neither (an older version of the app): the frame itself
            return text
        return "".join(v for k, v in self.panel.items() if k != "actions") + self.panel.get("actions", "")

    def min_seq(self) -> int:
        return min(s.seq for s in self.seats)

    def chat_arrived(self, probe: int, now: float) -> None:
        sent = self.chat_sent.get(probe)
        if sent is None:
            return
        sent[2] += 1
        if sent[2] >= sent[1]:
            self.chat_lat.append((now - sent[0]) * 1000)
            del self.chat_sent[probe]


def next_action(gm_frame: str, cid: str, seq: int, rng: random.Random) -> dict[str, str]:
    """The form the acting combatant ``cid`` posts next: a move to a random square it may reach
    (60 %, when the GM's panel offers one), else the end of its turn."""
    data = {
        "kind": "end_turn",
        "actor": cid,
        "params": "{}",
        "expected_seq": str(seq),
        "client_token": secrets.token_hex(8),
    }
    move = MOVE_FORM.search(gm_frame)
    if move and rng.random() < 0.6:
        option = json.loads(html.unescape(move.group(1) or move.group(2)))
        squares = option.get("squares") or [
            [i % option["w"], i // option["w"]]
            for i, ch in enumerate(option.get("steps", ""))
            if ch.islower()
        ]
        if squares:
            sq = rng.choice(squares)
            data.update(kind="move", square=f"{sq[0]},{sq[1]}")
    return data


async def act_loop(
    table: Table,
    cookies: dict[str, dict[str, str]],
    actions: int,
    warmup: int,
    stop_at: float,
    think: float,
    lat: list[float],
    post_ms: list[float],
    rng: random.Random,
) -> int:
    """Act until ``actions`` (after ``warmup``) or the time limit; returns every action done."""
    done = 0
    if think:
        await asyncio.sleep(rng.uniform(0, think))  # tables do not start in step
    while done < actions + warmup and time.perf_counter() < stop_at:
        frame = table.gm_frame
        seq = table.min_seq()
        actor = ACTOR.search(frame)
        if actor is None:
            return done
        cid = actor.group(1) or actor.group(2)
        user = table.owner.get(cid, table.gm_user)
        data = next_action(frame, cid, seq, rng)
        c = cookies[user]
        table.changed.clear()
        t0 = time.perf_counter()
        status, _, body = await request(
            table.port,
            "POST",
            f"/battles/{table.id}/act",
            c,
            data,
            {"X-CSRFToken": c["csrftoken"], "HX-Request": "true", "X-VTT-Live": "1"},
        )
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
    return done


async def chat_loop(
    table: Table,
    user: str,
    cookies: dict[str, str],
    every: float,
    readers: int,
    gm_readers: int,
    done: asyncio.Event,
    post_ms: list[float],
    rng: random.Random,
) -> int:
    """One seat's table talk: a line every ``every`` seconds or so until ``done``; some roll dice, some
    are whispered to the GM. Each carries a probe: the table's seats mark when it reaches them."""
    sent = 0
    await asyncio.sleep(rng.uniform(0, every))
    while not done.is_set():
        probe = next(PROBES)
        kind = rng.random()
        if kind < 0.15 and user != table.gm_user:
            text, reach = f"/w gm chat-probe-{probe} a word for the GM only", gm_readers
        elif kind < 0.5:
            text, reach = f"chat-probe-{probe} I roll [[1d20+3]] for it", readers
        else:
            text, reach = f"chat-probe-{probe} what a fight, watch the goblins on the left", readers
        table.chat_sent[probe] = [time.perf_counter(), reach, 0]
        t0 = time.perf_counter()
        status, _, body = await request(
            table.port,
            "POST",
            f"/campaigns/{table.campaign}/chat/",
            cookies,
            {"text": text},
            {"X-CSRFToken": cookies["csrftoken"], "HX-Request": "true"},
        )
        post_ms.append((time.perf_counter() - t0) * 1000)
        if status != 200:
            raise SystemExit(f"chat in campaign {table.campaign}: HTTP {status}: {body[:300]}")
        sent += 1
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(done.wait(), rng.uniform(0.5, 1.5) * every)
    return sent


PROBES = iter(range(1, 10**9))


def start_profile(pid: int, path: str, seconds: float, gil_only: bool = False) -> subprocess.Popen:
    """py-spy on the running server ``pid`` for ``seconds``: busy samples only, non-blocking.

    ``gil_only``: only the thread holding the GIL at each sample (where the process's Python CPU
    goes; without it, request threads waiting for the GIL count as busy too).
    """
    spy = os.path.join(os.path.dirname(sys.executable), "py-spy")
    fmt = "flamegraph" if path.endswith(".svg") else "raw"
    command = [spy, "record", "--pid", str(pid), "--rate", "200", "--nonblocking", "--subprocesses"]
    if gil_only:
        command.append("--gil")
    command += ["--duration", str(max(1, int(seconds))), "--format", fmt, "--output", path]
    return subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


async def main_async(
    args: argparse.Namespace, setup: dict, ports: list[int], cpu_pids: dict[str, list[int]]
) -> dict:
    from tests.live.wsclient import WSClient

    users = [setup["gm"], *setup["players"]]
    cookies = {}
    for user in users:
        cookies[user] = await login(ports[0], user)
    for user, key in setup["observers"].items():
        cookies[user] = {"sessionid": key, "csrftoken": secrets.token_hex(16)}
    tables = [Table(info, setup["gm"], ports[i % len(ports)]) for i, info in enumerate(setup["battles"])]
    tasks = []
    for table in tables:
        for user in [*users, *setup["observers"]]:
            ws = await WSClient.connect(
                "127.0.0.1",
                table.port,
                f"/ws/battles/{table.id}/",
                origin=f"http://127.0.0.1:{table.port}",
                cookie=f"sessionid={cookies[user]['sessionid']}",
            )
            kind = "gm" if user == setup["gm"] else "player" if user in setup["players"] else "observer"
            seat = Seat(table, user, ws, kind)
            table.seats.append(seat)
            tasks.append(asyncio.create_task(seat.run()))
            await ws.send(json.dumps({"type": "sync", "seq": 0, "reconnect": True}))  # a full first render
    deadline = time.perf_counter() + 60
    while any(s.seq == 0 for t in tables for s in t.seats) or any(not t.gm_frame for t in tables):
        if time.perf_counter() > deadline:
            raise SystemExit("not every seat got its first render")
        await asyncio.sleep(0.05)
    print(f"{len(tables)} battles x {len(tables[0].seats)} seats connected", flush=True)
    lat: list[float] = []
    post_ms: list[float] = []
    spy = (
        start_profile(cpu_pids["server"][0], args.profile, args.seconds, args.profile_gil)
        if args.profile
        else None
    )
    cpu0 = {name: cpu_ms(pids) for name, pids in cpu_pids.items()}
    MEASURING[0] = True
    client0 = time.process_time()
    start = time.perf_counter()
    rng = random.Random(7)
    talk_done = asyncio.Event()
    chat_post_ms: list[float] = []
    talkers = []
    if args.chat_every > 0:
        gm_readers = 2  # a whisper to the GM reaches the GM's seat and its author's
        for t in tables:
            for user in users:
                talkers.append(
                    asyncio.create_task(
                        chat_loop(
                            t,
                            user,
                            cookies[user],
                            args.chat_every,
                            len(t.seats),
                            gm_readers,
                            talk_done,
                            chat_post_ms,
                            random.Random(rng.random()),
                        )
                    )
                )
    counts = await asyncio.gather(
        *(
            act_loop(
                t,
                cookies,
                args.actions,
                args.warmup,
                start + args.seconds,
                args.think_ms / 1000,
                lat,
                post_ms,
                random.Random(rng.random()),
            )
            for t in tables
        )
    )
    talk_done.set()
    lines = sum(await asyncio.gather(*talkers))
    elapsed = time.perf_counter() - start
    cpu = {name: cpu_ms(pids) - cpu0[name] for name, pids in cpu_pids.items()}
    cpu["client"] = 1000 * (time.process_time() - client0)
    for table in tables:
        for seat in table.seats:
            await seat.ws.close()
    for task in tasks:
        task.cancel()
    if spy is not None:
        spy.wait(timeout=120)  # py-spy stops after --duration and writes its file
        if spy.returncode:
            print(
                f"py-spy: {spy.stderr.read().decode()[-500:] if spy.stderr else spy.returncode}",
                file=sys.stderr,
            )
    chat_lat = [v for t in tables for v in t.chat_lat]
    return {
        "lat": lat,
        "post_ms": post_ms,
        "elapsed": elapsed,
        "actions": sum(counts),
        "cpu": cpu,
        "chat": {"lines": lines, "post_ms": chat_post_ms, "lat": chat_lat},
    }


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(p / 100 * len(ordered)) - 1))]


def main() -> None:
    global BREAKDOWN
    args = parse_args()
    if args.breakdown:
        BREAKDOWN = {"gm": [], "player": [], "observer": []}
    if not os.environ.get("DATABASE_URL") or not os.environ.get("REDIS_URL"):
        print("note: the reference run uses DATABASE_URL (PostgreSQL) and REDIS_URL (Redis)", file=sys.stderr)
    if (args.servers > 1 or args.proxy) and not os.environ.get("REDIS_URL"):
        raise SystemExit("--servers > 1 and --proxy need REDIS_URL")
    load_before = os.getloadavg()[0]
    per_battle = (args.campaigns or ("per-battle" if args.chat_every > 0 else "one")) == "per-battle"
    setup = setup_tables(args.battles, args.clients, args.observers, per_battle)
    phases = os.path.join(tempfile.gettempdir(), f"vtt-bench-phases-{os.getpid()}")
    # Every seat of the bench is the same few accounts at every table: lift the per-person chat limit.
    procs, ports = start_servers(
        args.servers, phases, args.server, bool(args.proxy), extra_env={"CHAT_RATE_LINES": "1000000"}
    )
    cpu_pids = {"server": [pid for proc in procs for pid in process_tree(proc.pid)]}
    extra: list[subprocess.Popen] = []
    try:
        if args.proxy == "nginx":
            nginx, port, _ = start_nginx(ports)
            extra.append(nginx)
            cpu_pids["nginx"] = process_tree(nginx.pid)
            ports = [port]
        run = asyncio.run(main_async(args, setup, ports, cpu_pids))
        time.sleep(1.2)  # let the servers write their last stage timings
    finally:
        stop(extra)
        stop(procs)
    lat, post_ms, elapsed, count = run["lat"], run["post_ms"], run["elapsed"], run["actions"]
    if not lat:
        raise SystemExit("no action measured")
    rate = count / elapsed
    seats = args.clients + args.observers
    print(
        f"battles={args.battles} seats={seats} servers={args.servers} server={args.server} "
        f"proxy={args.proxy or 'none'} think_ms={args.think_ms:g} actions={count} seconds={elapsed:.1f} "
        f"database={'postgresql' if os.environ.get('DATABASE_URL') else 'sqlite'} "
        f"layer={'redis' if os.environ.get('REDIS_URL') else 'memory'} "
        f"campaigns={'per-battle' if per_battle else 'one'} chat_every={args.chat_every:g}"
    )
    print(
        f"load average (1 min) before={load_before:.2f} after={os.getloadavg()[0]:.2f} on {os.cpu_count()} cores"
    )
    print(f"POST round trip ms: p50={statistics.median(post_ms):.1f} p95={pct(post_ms, 95):.1f}")
    print(
        f"POST -> every seat updated ms: p50={statistics.median(lat):.1f} p95={pct(lat, 95):.1f} "
        f"p99={pct(lat, 99):.1f} max={max(lat):.1f} (n={len(lat)})"
    )
    line = (
        f"server CPU per action: {run['cpu']['server'] / count:.1f} ms summed over {args.servers} process(es)"
    )
    if "nginx" in run["cpu"]:
        line += f", nginx {run['cpu']['nginx'] / count:.1f} ms"
    line += f"; this bench's own client {run['cpu']['client'] / count:.1f} ms (same cores)"
    print(line)
    stages: dict[str, list[float]] = {}
    for i in range(args.servers):
        try:
            with open(f"{phases}.{i}") as f:
                for line in f:
                    if line.endswith("\n"):  # a line cut short by the server's stop is left out
                        for name, values in json.loads(line).items():
                            stages.setdefault(name, []).extend(values)
            os.remove(f"{phases}.{i}")
        except (OSError, ValueError):
            pass
    for name, values in stages.items():
        line = f"server {name}: p50={statistics.median(values):.1f} p95={pct(values, 95):.1f} ms (n={len(values)})"
        if name.startswith("garbage collection"):  # set-up and log-ins included
            line += f", {sum(values) / count:.2f} ms per measured action"
        print(line)
    chat = run["chat"]
    if chat["lines"]:
        talk = (
            f"chat: lines={chat['lines']} ({chat['lines'] / elapsed:.1f}/s) "
            f"POST ms p50={statistics.median(chat['post_ms']):.1f} p95={pct(chat['post_ms'], 95):.1f}"
        )
        if chat["lat"]:
            talk += (
                f"; POST -> every reader's seat ms p50={statistics.median(chat['lat']):.1f} "
                f"p95={pct(chat['lat'], 95):.1f} (n={len(chat['lat'])})"
            )
        print(talk)
    errors, tracebacks, first = server_errors(phases, args.servers)
    print(
        f"server errors logged: {errors} messages, {tracebacks} tracebacks"
        + (f" (first: {first})" if first else "")
    )
    if args.profile:
        print(f"flame graph: {args.profile}")
    sizes = {kind: round(statistics.median(v)) if v else 0 for kind, v in PUSH_BYTES.items()}
    print(
        f"bytes per push p50: gm={sizes['gm']} player={sizes['player']} observer={sizes['observer']} "
        f"(p95: gm={pct(PUSH_BYTES['gm'], 95) if PUSH_BYTES['gm'] else 0} "
        f"player={pct(PUSH_BYTES['player'], 95) if PUSH_BYTES['player'] else 0})"
    )
    if BREAKDOWN is not None:
        print_breakdown()
    floor_cpu = "-"
    if args.floor:
        floor = run_floor(args, sizes)
        if floor is not None:
            floor_cpu = f"{floor['cpu']:.1f}"
            print(
                f"floor (bench/floor.py --level stack, same load, pushes of this run's sizes): "
                f"p95={floor['p95']:.1f} ms, server CPU per action {floor['cpu']:.1f} ms, "
                f"load before={floor['load'][0]} after={floor['load'][1]}"
            )
    print(
        f"push_bytes_player_p50={sizes['player']} push_bytes_gm_p50={sizes['gm']} "
        f"cpu_ms_per_action={run['cpu']['server'] / count:.1f} floor_cpu_ms={floor_cpu}"
    )
    print(f"p95_ms={pct(lat, 95):.0f} actions_per_s={rate:.0f}")


def run_floor(args: argparse.Namespace, sizes: dict[str, int]) -> dict | None:
    """``bench/floor.py --level stack`` with this run's load, its pushes the sizes this run measured."""
    argv = [
        sys.executable,
        str(ROOT / "bench" / "floor.py"),
        "-B", str(args.battles),
        "-C", str(args.clients),
        "--observers", str(args.observers),
        "--think-ms", f"{args.think_ms:g}",
        "--seconds", f"{min(args.seconds, 20):g}",
        "--servers", str(args.servers),
        "--server", args.server,
    ]  # fmt: skip
    env = dict(os.environ)
    env.update(
        FLOOR_GM_BYTES=str(sizes["gm"]),
        FLOOR_PL_BYTES=str(sizes["player"] or sizes["observer"]),
        FLOOR_OWN_BYTES="0",
    )
    run = subprocess.run(argv, env=env, cwd=ROOT, capture_output=True, text=True)
    out = run.stdout
    cpu = re.search(r"server CPU per action: ([\d.]+) ms", out)
    p95 = re.search(r"every seat updated ms: p50=[\d.]+ p95=([\d.]+)", out)
    load = re.search(r"before=([\d.]+) after=([\d.]+)", out)
    if run.returncode or not (cpu and p95 and load):
        print(f"floor run failed: {(out + run.stderr)[-1500:]}", file=sys.stderr)
        return None
    return {"cpu": float(cpu[1]), "p95": float(p95[1]), "load": (load[1], load[2])}


if __name__ == "__main__":
    main()
