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
    assert server_errors(phases, 2) == (1, 2, "live push for battle 3 failed")
    assert not (tmp_path / "phases.0.err").exists()  # read once, then removed
    (tmp_path / "phases.0.err").write_text("/srv/base.py:61: UserWarning: only a warning\n  warnings.warn(\n")
    assert server_errors(phases, 1) == (0, 0, "")
