"""The loads of the live-table goals, one after another, and a table of their figures (``make bench``).

With ``DATABASE_URL`` and ``REDIS_URL`` set (PostgreSQL + Redis, the reference
set-up): 20 tables x 6 seats closed loop on 2 server processes and on 1,
the same at human pace (1 s +/- 50 % think time), 1 table x 100 seats (GM,
5 players, 94 observers) one action at a time for 60 s, and the three loads
of two server processes again through nginx (no sticky sessions). Always:
the embedded default (SQLite, in-memory layer, one process) closed loop.
Then the floor of the same loads (``bench/floor.py --level stack``: the
project's server, sockets and fan-out with an action that only publishes a
message of a real push's size): what the goals leave for the rules, the
write and the render. Every run's full output goes to stdout as it runs,
then one summary line per load. About 8 minutes on an idle 2-core machine.

    .venv/bin/python bench/suite.py [--quick] [--server daphne|uvicorn|granian]
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LIVE = str(ROOT / "bench" / "live.py")
FLOOR = str(ROOT / "bench" / "floor.py")
CLOSED = ["-B", "20", "-C", "6", "--think-ms", "0", "--actions", "100000"]
HUMAN = ["-B", "20", "-C", "6", "--think-ms", "1000", "--actions", "30", "--seconds", "40"]
HUNDRED = ["-B", "1", "-C", "6", "--observers", "94", "--think-ms", "0", "--actions", "100000"]


def loads(quick: bool) -> list[tuple[str, bool, list[str]]]:
    """(name, needs PostgreSQL + Redis, bench/live.py arguments, or bench/floor.py's and its own)."""
    short = ["--seconds", "10" if quick else "20"]
    hundred = ["--seconds", "15" if quick else "60"]
    return [
        ("20x6 closed loop, 2 processes", True, [*CLOSED, *short, "--servers", "2"]),
        ("20x6 closed loop, 1 process", True, [*CLOSED, *short, "--servers", "1"]),
        ("20x6 human pace, 2 processes", True, [*HUMAN, "--servers", "2"]),
        ("1x100 one action at a time, 2 processes", True, [*HUNDRED, *hundred, "--servers", "2"]),
        (
            "nginx: 20x6 closed loop, 2 processes",
            True,
            [*CLOSED, *short, "--servers", "2", "--proxy", "nginx"],
        ),
        ("nginx: 20x6 human pace, 2 processes", True, [*HUMAN, "--servers", "2", "--proxy", "nginx"]),
        (
            "nginx: 1x100, 2 processes",
            True,
            [*HUNDRED, "--seconds", "15" if quick else "30", "--servers", "2", "--proxy", "nginx"],
        ),
        ("embedded default (SQLite, memory layer, 1 process): 20x6 closed loop", False, [*CLOSED, *short]),
        ("floor: 20x6 closed loop, 2 processes", True, [FLOOR, *CLOSED, "--seconds", "15"]),
        ("floor: 20x6 human pace, 2 processes", True, [FLOOR, *HUMAN[:-2], "--seconds", "15"]),
        ("floor: 1x100, 2 processes", True, [FLOOR, *HUNDRED, "--seconds", "15"]),
        ("floor: embedded, 20x6 closed loop", False, [FLOOR, *CLOSED, "--seconds", "10"]),
    ]


FIGURES = {
    "p95": re.compile(r"p95_ms=(\d+) actions_per_s=(\d+)"),
    "lat": re.compile(r"every seat updated ms: p50=([\d.]+) p95=([\d.]+) p99=([\d.]+)"),
    "cpu": re.compile(r"server CPU per action: ([\d.]+) ms"),
    "load": re.compile(r"before=([\d.]+) after=([\d.]+)"),
    "errors": re.compile(r"server errors logged: (\d+) messages, (\d+) tracebacks"),
    "bytes": re.compile(r"push_bytes_player_p50=(\d+) push_bytes_gm_p50=(\d+)"),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="shorter runs (a smoke test of the suite)")
    parser.add_argument(
        "--server", default=None, help="the ASGI server of every run (bench/live.py --server)"
    )
    args = parser.parse_args()
    services = bool(os.environ.get("DATABASE_URL") and os.environ.get("REDIS_URL"))
    if not services:
        print("DATABASE_URL and REDIS_URL unset: only the embedded default runs", flush=True)
    summary = []
    started = time.monotonic()
    for name, needs_services, argv in loads(args.quick):
        if needs_services and not services:
            continue
        env = dict(os.environ)
        if not needs_services:
            for key in ("DATABASE_URL", "REDIS_URL"):
                env.pop(key, None)
        script, argv = (argv[0], argv[1:]) if argv[0] == FLOOR else (LIVE, argv)
        if args.server:
            argv = [*argv, "--server", args.server]
        print(f"\n== {name}: bench/{Path(script).name} {' '.join(argv)}", flush=True)
        run = subprocess.run(
            [sys.executable, script, *argv], env=env, cwd=ROOT, capture_output=True, text=True
        )
        sys.stdout.write(run.stdout)
        if run.returncode != 0:
            sys.stdout.write(run.stderr[-3000:])
            summary.append(f"{name}: FAILED (exit {run.returncode})")
            continue
        found = {key: pattern.search(run.stdout) for key, pattern in FIGURES.items()}
        lat, cpu, load, last = found["lat"], found["cpu"], found["load"], found["p95"]
        errors = found["errors"]
        logged = f", server errors {errors[1]} (+{errors[2]} tracebacks)" if errors else ""
        if found["bytes"]:
            logged += f", bytes per push p50 player {found['bytes'][1]} GM {found['bytes'][2]}"
        summary.append(
            f"{name}: p50 {lat[1]} ms, p95 {lat[2]} ms, p99 {lat[3]} ms, {last[2]} actions/s, "
            f"server CPU {cpu[1]} ms/action, load {load[1]} -> {load[2]}{logged}"
            if lat and cpu and load and last
            else f"{name}: {run.stdout.strip().splitlines()[-1]}"
        )
    print(f"\n== summary ({time.monotonic() - started:.0f} s)")
    for line in summary:
        print(line)
    if any("FAILED" in line for line in summary):
        raise SystemExit(1)


if __name__ == "__main__":
    main()
