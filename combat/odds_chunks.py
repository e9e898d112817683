"""One chunk of an odds job, played in a runner's pool (a process beside the server, or a thread of a
Channels worker). Pure: no Django here, so a pool process imports nothing but the engine.

A chunk plays its seeds one fight at a time and looks at its job's stop flag (a file the runner
writes when the GM cancels or the job's CPU budget is spent) before each fight: a cancelled job
stops within one fight in every process, whatever the pool still had queued.
"""

from __future__ import annotations

import os
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from combat.engine.simulate import Outcome, play
from combat.engine.state import BattleState

# The CPU clock a chunk measures itself by (its own thread: a worker's thread or a pool process).
cpu_clock: Callable[[], float] = time.thread_time


@dataclass
class Chunk:
    """What a chunk played: its outcomes, the CPU seconds they took, and whether the flag stopped it."""

    outcomes: list[Outcome] = field(default_factory=list)
    cpu: float = 0.0
    stopped: bool = False


def flag_dir() -> Path:
    return Path(tempfile.gettempdir()) / "vtt-odds"


def flag_path(job_id: int, attempt: int) -> str:
    """The stop flag of one attempt of a job (created by ``raise_flag``, removed by ``lower_flag``)."""
    return str(flag_dir() / f"{os.getpid()}-{job_id}-{attempt}.stop")


def raise_flag(path: str) -> None:
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(path).touch()


def lower_flag(path: str) -> None:
    Path(path).unlink(missing_ok=True)


def play_chunk(setup: dict[str, Any], seeds: Sequence[int], flag: str) -> Chunk:
    """Play one fight per seed until the seeds run out or ``flag`` exists."""
    state = BattleState.from_dict(setup)
    out = Chunk()
    for seed in seeds:
        if os.path.exists(flag):
            out.stopped = True
            break
        start = cpu_clock()
        out.outcomes.append(play(state, seed))
        out.cpu += cpu_clock() - start
    return out
