"""The live bench reports what its servers logged: a run with errors must not read as a clean one."""

from __future__ import annotations

import os


def _server_errors():
    """``bench.live.server_errors``, without the environment the bench sets for its servers on import."""
    saved = dict(os.environ)
    try:
        from bench.live import server_errors
    finally:
        os.environ.clear()
        os.environ.update(saved)
    return server_errors


def test_the_bench_counts_logged_errors_and_tracebacks_and_skips_python_warnings(tmp_path):
    server_errors = _server_errors()
    phases = str(tmp_path / "phases")
    (tmp_path / "phases.0.err").write_text(
        "/srv/base.py:61: UserWarning: No directory at: /srv/staticfiles/\n"
        "  warnings.warn(\n"
        "live push for battle 3 failed\n"
        "Traceback (most recent call last):\n"
        '  File "x.py", line 1, in push\n'
        "ValueError: boom\n"
    )
    (tmp_path / "phases.1.err").write_text(
        "Traceback (most recent call last):\n  File z\nasyncio.CancelledError\n"
    )
    logs = f"{phases}.0.err, {phases}.1.err"
    assert server_errors(phases, 2) == (1, 2, f"live push for battle 3 failed; the servers' logs: {logs}")
    assert (tmp_path / "phases.0.err").exists()  # kept: the whole traceback is there to read
    (tmp_path / "phases.0.err").write_text("/srv/base.py:61: UserWarning: only a warning\n  warnings.warn(\n")
    assert server_errors(phases, 1) == (0, 0, "")
    assert not (tmp_path / "phases.0.err").exists()  # nothing but warnings: removed


def test_the_floor_bench_runs_both_levels_and_ends_with_the_benchs_last_line(tmp_path):
    """``bench/floor.py`` drives a real server at each level: every seat gets every update."""
    import re
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("DATABASE_URL", "REDIS_URL", "DJANGO_SETTINGS_MODULE")
    }
    env.update(SQLITE_PATH=str(tmp_path / "floor.sqlite3"), TMPDIR=str(tmp_path))
    for level in ("bare", "stack"):
        run = subprocess.run(
            [sys.executable, "bench/floor.py", "--level", level, "-B", "2", "-C", "3", "--seconds", "1"],
            cwd=root,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert run.returncode == 0, run.stderr[-2000:]
        lines = run.stdout.strip().splitlines()
        assert re.fullmatch(r"p95_ms=\d+ actions_per_s=[1-9]\d*", lines[-1]), lines[-3:]
        assert "server errors logged: 0 messages, 0 tracebacks" in run.stdout
        assert f"level={level} battles=2 seats=3 servers=1" in run.stdout
