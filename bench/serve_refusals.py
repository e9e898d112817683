"""How long ``make run``'s server takes to refuse a setting that cannot work (the goal: at once, under 2 s).

Runs ``python -m vtt.serve`` as tests/test_make_run.py does, for each case (a DATABASE_URL that is no
URL, a database server that does not answer, a SQLite path that cannot be written, a busy port), three
times, and prints the best and the worst of each with the machine's load average:
``refusal case=<name> best_s=<A> worst_s=<B>``, then ``refusal_worst_best_s=<C> load=<L>``.
Run: ``.venv/bin/python bench/serve_refusals.py``.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _env(folder: Path, **extra: str) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("PYTEST", "DEBUG", "SECRET_KEY", "REDIS_URL"))
    }
    env.update(DATABASE_URL="", SQLITE_PATH=str(folder / "vtt.sqlite3"), DATA_DIR=str(folder / "data"))
    env.update(extra)
    return env


def _time(env: dict[str, str]) -> float:
    started = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "vtt.serve"], cwd=ROOT, env=env, capture_output=True, timeout=60
    )
    took = time.perf_counter() - started
    if proc.returncode != 2:
        raise SystemExit(f"expected a refusal (exit 2), got {proc.returncode}: {proc.stderr.decode()[-300:]}")
    return took


def main() -> None:
    worst_best = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / "a-file").write_text("")
        port = _free_port()
        cases = {
            "database-url": {"DATABASE_URL": "postgress//vtt@db/vtt"},
            "database-server": {"DATABASE_URL": f"postgres://vtt@127.0.0.1:{_free_port()}/vtt"},
            "sqlite-path": {"SQLITE_PATH": str(folder / "a-file" / "vtt.sqlite3")},
            "busy-port": {"PORT": str(port)},
        }
        with socket.socket() as holder:
            holder.bind(("127.0.0.1", port))
            holder.listen()
            for name, extra in cases.items():
                times = [_time(_env(folder, **{"PORT": str(_free_port()), **extra})) for _ in range(3)]
                worst_best = max(worst_best, min(times))
                print(f"refusal case={name} best_s={min(times):.2f} worst_s={max(times):.2f}")
    print(f"refusal_worst_best_s={worst_best:.2f} load={os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
