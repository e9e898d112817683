"""The ASGI application for the benchmark's servers.

The start-up heap is frozen (``gc.freeze()`` removed the p99 spikes of the
garbage collector), as ``vtt/asgi.py`` does. The GIL's switch interval is Python's default
(5 ms), as in production: 1 ms cost 15-30 % more CPU per action (paired closed-loop
runs: 28.9/29.8/31.1 ms against 23.3/25.7/22.0 ms, 48-52 against 58-67 actions/s;
100 seats: p95 54/48 against 42/39 ms). With
``BENCH_PHASES=<file>`` the server also records how long each stage of an
action takes (the whole service call, and inside it the live push: reading
the battle, rendering, handing the message to the channel layer) and
appends the new figures to ``<file>`` every second (JSON lines), with each garbage collection's pause.
"""

from __future__ import annotations

import gc
import json
import os
import threading
import time
from collections import defaultdict
from collections.abc import Callable
from typing import Any

from vtt.asgi import application

gc.collect()
gc.freeze()

__all__ = ["application"]

PHASES: dict[str, list[float]] = defaultdict(list)


def _timed(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    def inner(*args: Any, **kwargs: Any) -> Any:
        start = time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            PHASES[name].append(1000 * (time.perf_counter() - start))

    return inner


def _write(path: str) -> None:
    """Each second, append the stages' new figures to ``path`` as one JSON line.

    Only what is new: rewriting every figure each second cost the measured run a share of its CPU
    that grew with the run's length (1.7 % of a 40 s run's samples), and the floor's servers, with
    no stages, did not pay it.
    """
    written: dict[str, int] = {}
    with open(path, "w") as out:
        while True:
            time.sleep(1)
            new = {}
            for name, values in list(PHASES.items()):
                end = len(values)
                if end > written.get(name, 0):
                    new[name] = values[written.get(name, 0) : end]
                    written[name] = end
            if new:
                out.write(json.dumps(new) + "\n")
                out.flush()


if os.environ.get("BENCH_PHASES"):
    from combat import live, services

    services.submit_action = _timed("service call (lock, rules, write, push)", services.submit_action)
    live.load_table = _timed("push: read battle", live.load_table)
    live.message_for = _timed("push: render regions", live.message_for)
    live.publish = _timed("push: hand-over to the channel layer", live.publish)
    _collecting: list[float] = []

    def _collector(phase: str, info: dict[str, Any]) -> None:
        """Each garbage collection's pause, by generation (a stage of its own)."""
        if phase == "start":
            _collecting[:] = [time.perf_counter()]
        elif _collecting:
            PHASES[f"garbage collection, generation {info['generation']}"].append(
                1000 * (time.perf_counter() - _collecting[0])
            )

    gc.callbacks.append(_collector)
    threading.Thread(target=_write, args=(os.environ["BENCH_PHASES"],), daemon=True).start()
