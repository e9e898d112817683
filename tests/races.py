"""Racing requests: jobs started at once on threads, each on its own database connection.

Shared by the services and security tests (they need ``transactional_db``).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from django.db import connections


def race(jobs: list[Callable[[], Any]], barrier_timeout: float = 10) -> list[Any]:
    """Run every job at once (a barrier), each thread on its own database connection; returns their results.

    A job's exception is re-raised here (after every thread has finished); a thread still running after
    60 s fails the test as hung.
    """
    barrier = threading.Barrier(len(jobs))
    results: list[Any] = [None] * len(jobs)

    def run(i: int) -> None:
        try:
            barrier.wait(timeout=barrier_timeout)
            results[i] = jobs[i]()
        except BaseException as exc:  # noqa: BLE001 - re-raised below
            results[i] = exc
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(jobs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert not any(t.is_alive() for t in threads), "a submission hung"
    for r in results:
        if isinstance(r, BaseException):
            raise r
    return results
