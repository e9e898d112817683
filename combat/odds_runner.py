"""Runners of odds jobs: the Channels worker and the process pool beside the server.

A queued job is announced to a runner after its commit (``dispatch``); the runner then takes the next
job in fair order (``odds_queue.claim_next``), not necessarily the one announced, and plays it in
chunks over its pool (``odds_chunks``) while it watches the row every ``TICK`` seconds. It writes the
progress and beats every ``WRITE_EVERY``; on a cancel (or a spent CPU budget) it raises the job's
stop flag, which every chunk reads before each fight. Both runners play the same way: the embedded one over the server's process
pool, a Channels worker over a thread of its own (its own thread keeps watching the row).
"""

from __future__ import annotations

import contextvars
import logging
import multiprocessing
import os
import threading
import time
from concurrent.futures import (
    FIRST_COMPLETED,
    Executor,
    Future,
    ProcessPoolExecutor,
    ThreadPoolExecutor,
    wait,
)
from typing import Any

from asgiref.sync import async_to_sync
from channels.consumer import SyncConsumer
from channels.layers import get_channel_layer
from django.conf import settings
from django.db import close_old_connections
from django.utils import timezone

from combat import odds_queue
from combat.engine.simulate import odds as sum_up
from combat.engine.state import BattleState
from combat.models import OddsJob
from combat.odds_chunks import Chunk, flag_path, lower_flag, play_chunk, raise_flag
from combat.odds_panel import push

log = logging.getLogger(__name__)

CHANNEL = "odds"
TICK = 0.25  # seconds between two looks at the job's row (a cancel)
WRITE_EVERY = 1.0  # seconds between two writes of the progress and beats (and progress pushes)
CHUNK = 10  # fights per chunk
Status = OddsJob.Status


class Play:
    """One attempt of a job on a pool: its chunks, what came back, and why it stopped early."""

    def __init__(self, job: OddsJob, pool: Executor) -> None:
        self.job, self.pool = job, pool
        self.flag = flag_path(job.pk, job.attempt)
        self.budget = odds_queue.cpu_budget(BattleState.from_dict(job.setup))
        self.chunks: dict[int, Chunk] = {}
        self.cpu = 0.0
        self.stop = ""  # "cancelled", "budget" or "" (played in full)
        self.wrote = time.monotonic()  # taking the job wrote its beat
        self.index: dict[Future[Chunk], int] = {}  # a chunk's place among the job's chunks
        self.next = 0  # the next chunk to hand to the pool

    def alive(self) -> bool:
        """False once the job was cancelled or restarted. Each ``TICK`` reads the row; each ``WRITE_EVERY``
        writes the progress, beats and pushes the panel (few writes: the table's own share the file)."""
        job = self.job
        running = OddsJob.objects.filter(pk=job.pk, attempt=job.attempt, status=Status.RUNNING)
        if time.monotonic() - self.wrote < WRITE_EVERY:
            return running.exists()
        self.wrote = time.monotonic()
        done = sum(len(c.outcomes) for c in self.chunks.values())
        alive = running.update(done=done, beat=timezone.now())
        odds_queue.beat(job.pk)
        push(job.pk)
        return bool(alive)

    def halt(self, why: str, pending: set[Future[Chunk]]) -> None:
        """Raise the flag: every chunk stops before its next fight; wait for those playing."""
        self.stop = why
        raise_flag(self.flag)
        for future in pending:
            future.cancel()
        self.collect(wait(pending)[0])

    def collect(self, done: set[Future[Chunk]]) -> None:
        for future in done:
            if not future.cancelled():
                chunk = future.result()
                self.chunks[self.index[future]] = chunk
                self.cpu += chunk.cpu

    def feed(self, parts: list[list[int]], pending: set[Future[Chunk]]) -> None:
        """Keep the pool busy (two chunks per worker), never past the budget: a cancel or a spent
        budget leaves little queued behind it."""
        window = 2 * max(1, int(getattr(self.pool, "_max_workers", 1)))
        while self.next < len(parts) and len(pending) < window and self.cpu < self.budget:
            future = self.pool.submit(play_chunk, self.job.setup, parts[self.next], self.flag)
            self.index[future] = self.next
            pending.add(future)
            self.next += 1

    def run(self) -> list[Any]:
        first = int(self.job.key[:8], 16)
        seeds = list(range(first, first + self.job.total))
        parts = [seeds[i : i + CHUNK] for i in range(0, len(seeds), CHUNK)]
        pending: set[Future[Chunk]] = set()
        try:
            self.feed(parts, pending)
            while pending:
                done, pending = wait(pending, timeout=TICK, return_when=FIRST_COMPLETED)
                self.collect(done)
                if not self.alive():
                    self.halt("cancelled", pending)
                    break
                if self.cpu >= self.budget and self.next < len(parts):
                    self.halt("budget", pending)
                    break
                self.feed(parts, pending)
        finally:
            lower_flag(self.flag)
        return [o for _, chunk in sorted(self.chunks.items()) for o in chunk.outcomes]


def _finish(job: OddsJob, play: Play, outcomes: list[Any]) -> None:
    if play.stop == "cancelled" or not outcomes:
        return
    result = sum_up(outcomes).to_dict()
    result["cut"] = len(outcomes) < job.total  # too big to play every fight within its CPU budget
    OddsJob.objects.filter(pk=job.pk, attempt=job.attempt, status=Status.RUNNING).update(
        status=Status.DONE, done=len(outcomes), result=result, beat=timezone.now()
    )


def play_job(job: OddsJob, pool: Executor) -> None:
    """Play a job this runner has taken (status running), writing its progress and result."""
    try:
        play = Play(job, pool)
        _finish(job, play, play.run())
    except Exception:
        log.exception("odds job %s failed", job.pk)
        OddsJob.objects.filter(pk=job.pk, attempt=job.attempt, status=Status.RUNNING).update(
            status=Status.FAILED, error="The simulation failed."
        )
        raise
    finally:
        odds_queue.beat(None)
        push(job.pk)


def run_job(job_id: int, attempt: int, pool: Executor | None = None) -> None:
    """Take one given job (if still queued in that attempt) and play it over ``pool`` (else a thread)."""
    now = timezone.now()
    taken = OddsJob.objects.filter(pk=job_id, attempt=attempt, status=Status.QUEUED).update(
        status=Status.RUNNING, beat=now, started=now
    )
    if taken:
        play_job(OddsJob.objects.get(pk=job_id), pool or _thread_pool())


def run_next(pool: Executor | None = None) -> bool:
    """Take the next job in fair order and play it; False when none was waiting."""
    job = odds_queue.claim_next()
    if job is None:
        return False
    play_job(job, pool or _thread_pool())
    return True


class OddsWorker(SyncConsumer):
    """``manage.py runworker --layer jobs odds``: each message says a job is waiting; the worker takes
    the next one in fair order and plays it over a thread of its own, watching for a cancel."""

    def odds_run(self, message: dict[str, Any]) -> None:
        try:
            run_next()
        except Exception:  # logged by play_job; the worker takes the next job
            pass
        finally:
            close_old_connections()


_LOCK = threading.Lock()
_THREAD: ThreadPoolExecutor | None = None
_PLAYER: ThreadPoolExecutor | None = None
_POOL: ProcessPoolExecutor | None = None


def _thread_pool() -> ThreadPoolExecutor:
    """A thread that plays the chunks while the runner's own thread watches the row."""
    global _PLAYER
    with _LOCK:
        if _PLAYER is None:
            _PLAYER = ThreadPoolExecutor(max_workers=1, thread_name_prefix="odds-play")
        return _PLAYER


def _pool() -> Executor:
    """The process pool beside the server: one worker per core (``ODDS_PROCESSES``), started once.

    A thread in a daemonic process (a server a test spawned), which may not start processes."""
    global _POOL
    if multiprocessing.current_process().daemon:
        return _thread_pool()
    with _LOCK:
        if _POOL is None:
            size = int(getattr(settings, "ODDS_PROCESSES", 0) or os.cpu_count() or 1)
            _POOL = ProcessPoolExecutor(
                max_workers=size, mp_context=multiprocessing.get_context("forkserver")
            )
        return _POOL


def _embedded() -> None:
    global _POOL
    try:
        run_next(pool=_pool())
    except Exception:
        with _LOCK:  # a broken pool (a worker killed): the next job starts a new one
            broken, _POOL = _POOL, None
        if broken is not None:
            broken.shutdown(wait=False, cancel_futures=True)
    finally:
        close_old_connections()


def dispatch() -> None:
    """Tell a runner that a job is waiting (see the module doc)."""
    global _THREAD
    if getattr(settings, "ODDS_RUNNER", "pool") == "worker":
        layer = get_channel_layer(getattr(settings, "ODDS_LAYER", "jobs"))
        if layer is None:
            raise RuntimeError("ODDS_RUNNER=worker needs the jobs channel layer (REDIS_URL).")
        async_to_sync(layer.send)(CHANNEL, {"type": "odds.run"})
        return
    with _LOCK:
        if _THREAD is None:
            _THREAD = ThreadPoolExecutor(max_workers=1, thread_name_prefix="odds")
        thread = _THREAD
    # The request's context goes along: its server loop is where the progress pushes are published.
    thread.submit(contextvars.copy_context().run, _embedded)
