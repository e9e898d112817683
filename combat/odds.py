"""Encounter odds as a job: the planned fight played ``FIGHTS`` times, never inside a request.

The GM asks on the set-up screen (``check``); the answer is an ``OddsJob`` row
keyed by the set-up (``setup_key``: combatants, sheets, places, board, house
rules), so the same set-up gives the same figures at once. A new or retried job
is handed to a runner after the commit (``dispatch``):

- embedded (``ODDS_RUNNER=pool``, the default): a thread of the server process
  plays it over a process pool beside the server, one worker per core;
- scaled out (``ODDS_RUNNER=worker``): a message on the ``odds`` channel of the
  ``ODDS_LAYER`` channel layer, taken by one ``manage.py runworker --layer jobs
  odds`` process (``OddsWorker``); more processes, more machines: more workers.

The runner writes its progress into the row as fights come back and pushes the
GM's odds panel over the battle's group (``odds.push``: only a GM's socket sends
it on). A job whose runner stops beating for ``STALE_SECONDS`` reads as failed,
with a retry; a cancelled one stops at its next chunk. Players never see odds.
"""

from __future__ import annotations

import contextvars
import hashlib
import json
import logging
import os
import threading
import time
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
from datetime import timedelta
from typing import Any

from asgiref.sync import async_to_sync
from channels.consumer import SyncConsumer
from channels.layers import get_channel_layer
from django.conf import settings
from django.db import close_old_connections, transaction
from django.template.loader import render_to_string
from django.utils import timezone

from combat import live
from combat.engine.simulate import odds as sum_up
from combat.engine.simulate import run, run_parallel
from combat.engine.state import BattleState
from combat.models import Battle, OddsJob
from vtt.models import Role

log = logging.getLogger(__name__)

FIGHTS = int(getattr(settings, "ODDS_FIGHTS", 500))
STALE_SECONDS = float(getattr(settings, "ODDS_STALE_SECONDS", 20.0))
VERSION = 2  # bump when the tactics or the simulator change: figures kept before are played again
PUSH_EVERY = 0.25  # seconds between two progress pushes
CHANNEL = "odds"
Status = OddsJob.Status


# --- the set-up ---------------------------------------------------------------------------------


def setup_key(state: BattleState, fights: int = FIGHTS) -> str:
    """A hash of what decides the figures: the same combatants, sheets, places and house rules give
    the same key (and so the same seeds and figures)."""
    fighters = sorted(
        (
            {
                "name": c.name,
                "side": c.side,
                "kind": c.kind,
                "sheet": c.sheet,
                "pos": c.pos,
                "row": c.row,
            }
            for c in state.combatants.values()
        ),
        key=lambda f: json.dumps(f, sort_keys=True),
    )
    payload = {
        "v": VERSION,
        "fights": fights,
        "ruleset": state.ruleset,
        "options": state.options,
        "content": state.extra.get("content"),
        "board": [state.width, state.height, sorted(state.blocked)],
        "fighters": fighters,
    }
    return hashlib.sha256(json.dumps(payload, sort_keys=True, default=str).encode()).hexdigest()


def seeds_for(key: str, total: int) -> range:
    base = int(key[:8], 16)
    return range(base, base + total)


def problem(state: BattleState) -> str | None:
    """Why this set-up cannot be played yet, or None."""
    if state.phase != "setup":
        return "The odds are worked out before the battle starts."
    sides = {c.side for c in state.combatants.values() if c.able}
    if "party" not in sides or "enemy" not in sides:
        return "Add someone to each side first."
    return None


# --- reading and asking (request side) ----------------------------------------------------------


def _stale(job: OddsJob) -> bool:
    if job.status not in (Status.QUEUED, Status.RUNNING):
        return False
    last = job.beat or job.created
    return timezone.now() - last > timedelta(seconds=STALE_SECONDS)


def settle(job: OddsJob) -> OddsJob:
    """Mark a job whose runner stopped beating as failed (never a spinner forever)."""
    if _stale(job):
        why = (
            "No worker took the job."
            if job.status == Status.QUEUED
            else "The simulation stopped: its worker went away."
        )
        OddsJob.objects.filter(pk=job.pk, attempt=job.attempt, status=job.status).update(
            status=Status.FAILED, error=why
        )
        job.refresh_from_db()
    return job


def job_for(state: BattleState) -> OddsJob | None:
    """The job of this set-up, if the odds were asked (settled: a dead runner reads as failed)."""
    job = OddsJob.objects.filter(key=setup_key(state)).first()
    return settle(job) if job is not None else None


def _gm_battle(battle_id: int, user: Any) -> tuple[Battle, BattleState] | str:
    from combat.services import role_of

    battle = Battle.objects.filter(pk=battle_id).first()
    if battle is None or role_of(user, battle.campaign_id) != Role.GM:
        return "Only the GM checks the odds."
    return battle, BattleState.from_dict(battle.snapshot)


def check(battle_id: int, user: Any) -> tuple[OddsJob | None, str]:
    """The GM asks for the odds of the battle's set-up: the job (started, running or done) and a
    message ("" when all is well). A failed or cancelled job starts again (a retry)."""
    found = _gm_battle(battle_id, user)
    if isinstance(found, str):
        return None, found
    battle, state = found
    why = problem(state)
    if why:
        return None, why
    key = setup_key(state)
    with transaction.atomic():
        job, created = OddsJob.objects.select_for_update().get_or_create(
            key=key, defaults={"battle": battle, "setup": state.to_dict(), "total": FIGHTS, "attempt": 1}
        )
        if not created:
            settle(job)
        job.battle = battle
        restart = created or job.status in (Status.FAILED, Status.CANCELLED)
        if restart:
            job.status, job.done, job.result, job.error = Status.QUEUED, 0, None, ""
            job.setup, job.total, job.beat = state.to_dict(), FIGHTS, timezone.now()
            job.attempt += 0 if created else 1
        job.save()
        if restart:
            attempt = job.attempt
            transaction.on_commit(lambda: dispatch(job.pk, attempt))
    return job, ""


def cancel(battle_id: int, user: Any) -> tuple[OddsJob | None, str]:
    """Stop the running job of the battle's set-up (its runner stops at its next chunk)."""
    found = _gm_battle(battle_id, user)
    if isinstance(found, str):
        return None, found
    _, state = found
    job = job_for(state)
    if job is None or job.status not in (Status.QUEUED, Status.RUNNING):
        return job, "Nothing to cancel."
    OddsJob.objects.filter(pk=job.pk, status__in=(Status.QUEUED, Status.RUNNING)).update(
        status=Status.CANCELLED, error=""
    )
    job.refresh_from_db()
    return job, ""


# --- the panel --------------------------------------------------------------------------------


def _stock_words(stock: list[dict[str, Any]]) -> list[str]:
    """Average stock in a player's words: ``"MP 6.5"``, ``"Healing Potion 0.4 of 2"`` (the figures kept
    on one line: no-break spaces)."""
    out = []
    for s in stock:
        left = f"{s['left']:.1f}".removesuffix(".0")
        out.append(f"{s['name']} {left}" + (f"\u00a0of\u00a0{s['full']}" if s.get("full") else ""))
    return out


def panel_context(job: OddsJob | None, battle_id: int, message: str = "") -> dict[str, Any]:
    result = job.result if job is not None and job.status == Status.DONE else None
    members = []
    if result:
        for m in result["members"]:
            max_hp = max(1, m.get("max_hp") or 1)
            members.append(
                {
                    "name": m["name"],
                    "down": round(100 * m["down"]),
                    "hp": round(m["hp"]),
                    "max_hp": m.get("max_hp") or 0,
                    "hp_pct": round(100 * m["hp"] / max_hp),
                    "stock": _stock_words(m.get("stock", [])),
                }
            )
    return {
        "job": job,
        "battle_id": battle_id,
        "message": message,
        "result": result,
        "win": round(100 * result["win"]) if result else 0,
        "draws": round(100 * result.get("draws", 0)) if result else 0,
        "members": members,
        "any_stock": any(m["stock"] for m in members),
        "shared": _stock_words(result.get("shared", [])) if result else [],
        "percent": round(100 * job.done / job.total) if job is not None and job.total else 0,
        "fights": FIGHTS,
        "busy": job is not None and job.status in (Status.QUEUED, Status.RUNNING),
    }


def panel_html(job: OddsJob | None, battle_id: int, message: str = "", request: Any = None) -> str:
    return render_to_string("combat/odds.html", panel_context(job, battle_id, message), request=request)


def push(job_id: int) -> None:
    """Send the GM's odds panel to the battle's sockets (a GM's socket alone sends it on)."""
    job = OddsJob.objects.filter(pk=job_id).first()
    if job is None or job.battle_id is None:
        return
    live.publish(
        live.battle_group(job.battle_id), {"type": "odds.push", "gm": panel_html(job, job.battle_id)}
    )


# --- running (worker side) ----------------------------------------------------------------------


def run_job(job_id: int, attempt: int, pool: Executor | None = None) -> None:
    """Play the job's fights (over ``pool``, else in this process), writing progress as they come."""
    taken = OddsJob.objects.filter(pk=job_id, attempt=attempt, status=Status.QUEUED).update(
        status=Status.RUNNING, beat=timezone.now()
    )
    if not taken:
        return  # cancelled, restarted or taken by another runner meanwhile
    job = OddsJob.objects.get(pk=job_id)
    setup = BattleState.from_dict(job.setup)
    pushed = [0.0]

    def progress(done: int) -> bool:
        alive = OddsJob.objects.filter(pk=job_id, attempt=attempt, status=Status.RUNNING).update(
            done=done, beat=timezone.now()
        )
        if time.monotonic() - pushed[0] >= PUSH_EVERY:
            pushed[0] = time.monotonic()
            push(job_id)
        return bool(alive)

    try:
        seeds = seeds_for(job.key, job.total)
        if pool is None:
            outcomes = run(setup, seeds, progress=lambda n: progress(n) if n % 10 == 0 else None)
        else:
            outcomes = run_parallel(setup, seeds, pool=pool, progress=progress)
        if len(outcomes) == job.total:
            OddsJob.objects.filter(pk=job_id, attempt=attempt, status=Status.RUNNING).update(
                status=Status.DONE, done=job.total, result=sum_up(outcomes).to_dict(), beat=timezone.now()
            )
    except Exception:
        log.exception("odds job %s failed", job_id)
        OddsJob.objects.filter(pk=job_id, attempt=attempt, status=Status.RUNNING).update(
            status=Status.FAILED, error="The simulation failed."
        )
        raise
    finally:
        push(job_id)


class OddsWorker(SyncConsumer):
    """``manage.py runworker --layer jobs odds``: plays the jobs sent to the ``odds`` channel, one at a time."""

    def odds_run(self, message: dict[str, Any]) -> None:
        try:
            run_job(int(message["job"]), int(message["attempt"]))
        except Exception:  # logged by run_job; the worker takes the next job
            pass
        finally:
            close_old_connections()


_LOCK = threading.Lock()
_THREAD: ThreadPoolExecutor | None = None
_POOL: ProcessPoolExecutor | None = None


def _pool() -> ProcessPoolExecutor | None:
    """The process pool beside the server: one worker per core (``ODDS_PROCESSES``), started once.

    None in a daemonic process (a server a test spawned), which may not start processes: the job's
    thread plays the fights itself there."""
    global _POOL
    import multiprocessing

    if multiprocessing.current_process().daemon:
        return None
    with _LOCK:
        if _POOL is None:
            size = int(getattr(settings, "ODDS_PROCESSES", 0) or os.cpu_count() or 1)
            _POOL = ProcessPoolExecutor(
                max_workers=size, mp_context=multiprocessing.get_context("forkserver")
            )
        return _POOL


def _embedded(job_id: int, attempt: int) -> None:
    global _POOL
    try:
        run_job(job_id, attempt, pool=_pool())
    except Exception:
        with _LOCK:  # a broken pool (a worker killed): the next job starts a new one
            broken, _POOL = _POOL, None
        if broken is not None:
            broken.shutdown(wait=False, cancel_futures=True)
    finally:
        close_old_connections()


def dispatch(job_id: int, attempt: int) -> None:
    """Hand a queued job to its runner (see the module doc)."""
    global _THREAD
    if getattr(settings, "ODDS_RUNNER", "pool") == "worker":
        layer = get_channel_layer(getattr(settings, "ODDS_LAYER", "jobs"))
        if layer is None:
            raise RuntimeError("ODDS_RUNNER=worker needs the jobs channel layer (REDIS_URL).")
        async_to_sync(layer.send)(CHANNEL, {"type": "odds.run", "job": job_id, "attempt": attempt})
        return
    with _LOCK:
        if _THREAD is None:
            _THREAD = ThreadPoolExecutor(max_workers=1, thread_name_prefix="odds")
        thread = _THREAD
    # The request's context goes along: its server loop is where the progress pushes are published.
    thread.submit(contextvars.copy_context().run, _embedded, job_id, attempt)
