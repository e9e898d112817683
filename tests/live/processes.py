"""Server processes for cross-process tests: daphne, spawned, serving the whole ASGI app."""

from __future__ import annotations

import multiprocessing
from contextlib import contextmanager
from functools import partial

import pytest

from tests.servers import same_database


@contextmanager
def servers(count: int):
    """``count`` daphne processes (spawned, not forked: a forked child inherits the test database blocker)
    serving the whole ASGI app on 127.0.0.1."""
    from channels.testing.live import make_application
    from daphne.testing import DaphneProcess

    multiprocessing.set_start_method("spawn", force=True)
    procs = []
    try:
        for _ in range(count):
            proc = DaphneProcess(
                "127.0.0.1", partial(make_application, static_wrapper=None), setup=same_database()
            )
            proc.daemon = True
            proc.start()
            procs.append(proc)
        for proc in procs:
            if not proc.ready.wait(timeout=60) or not proc.errors.empty():
                pytest.fail("a server process did not start")
        yield [proc.port.value for proc in procs]
    finally:
        for proc in procs:
            proc.terminate()
            proc.join(timeout=10)
