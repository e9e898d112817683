"""Encounter odds as a job: the planned fight played ``FIGHTS`` times, never inside a request.

The GM asks on the set-up screen (``check``); the answer is an ``OddsJob`` row of that battle and
set-up (``setup_key``: combatants, sheets, places, board, house rules). A job belongs to its battle
and so to its campaign: another campaign with an identical set-up gets a finished result copied at
once (the same seeds give the same figures), but never sees, cancels or waits on a job still queued
or running. A new or retried job joins the fair queue (``combat.odds_queue``: campaign after
campaign, at most ``MAX_QUEUED`` waiting per GM) and a runner is told after the commit
(``combat.odds_runner``):

- embedded (``ODDS_RUNNER=pool``, the default): a thread of the server process plays it over a
  process pool beside the server, one worker per core;
- scaled out (``ODDS_RUNNER=worker``): a message on the ``odds`` channel of the ``ODDS_LAYER``
  channel layer, taken by one ``manage.py runworker --layer jobs odds`` process (``OddsWorker``).

The runner writes its progress into the row as fights come back and pushes the GM's odds panel over
the battle's group (``odds.push``: only a GM's socket sends it on). A cancelled job stops within a
fight in every process; a job spends at most its CPU budget (scaled to the set-up) and says so when
that cut it short. Players never see odds.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from combat import odds_queue
from combat.engine.state import BattleState
from combat.models import Battle, OddsJob
from combat.odds_panel import panel_context, panel_html, push
from combat.odds_queue import settle
from combat.odds_runner import CHANNEL, OddsWorker, dispatch, run_job, run_next
from vtt.models import Role

__all__ = [
    "CHANNEL",
    "OddsWorker",
    "cancel",
    "check",
    "dispatch",
    "job_for",
    "panel_context",
    "panel_html",
    "push",
    "run_job",
    "run_next",
    "settle",
]

FIGHTS = int(getattr(settings, "ODDS_FIGHTS", 500))
VERSION = 3  # bump when the tactics or the simulator change: figures kept before are played again
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


def job_for(state: BattleState, battle_id: int) -> OddsJob | None:
    """The battle's job of this set-up, if the odds were asked (settled: a dead runner reads as
    failed). Another battle's job, even of the same set-up, is never this one."""
    job = OddsJob.objects.filter(battle_id=battle_id, key=setup_key(state)).first()
    return settle(job) if job is not None else None


def _gm_battle(battle_id: int, user: Any) -> tuple[Battle, BattleState] | str:
    from combat.services import role_of

    battle = Battle.objects.filter(pk=battle_id).first()
    if battle is None or role_of(user, battle.campaign_id) != Role.GM:
        return "Only the GM checks the odds."
    return battle, BattleState.from_dict(battle.snapshot)


def _reuse(job: OddsJob, key: str) -> bool:
    """Copy the finished result of an identical set-up (any battle's: the figures are the same)."""
    done = OddsJob.objects.filter(key=key, status=Status.DONE, result__isnull=False).exclude(pk=job.pk)
    found = done.order_by("-pk").first()
    if found is None:
        return False
    job.status, job.done, job.total, job.result, job.error = (
        Status.DONE,
        found.done,
        found.total,
        found.result,
        "",
    )
    return True


def check(battle_id: int, user: Any) -> tuple[OddsJob | None, str]:
    """The GM asks for the odds of the battle's set-up: the job (started, running or done) and a
    message ("" when all is well). A failed or cancelled job starts again (a retry); a GM with
    ``MAX_QUEUED`` jobs waiting is told to wait."""
    found = _gm_battle(battle_id, user)
    if isinstance(found, str):
        return None, found
    battle, state = found
    why = problem(state)
    if why:
        return None, why
    key = setup_key(state)
    with transaction.atomic():
        job = OddsJob.objects.select_for_update().filter(battle=battle, key=key).first()
        if job is not None and settle(job).status in (Status.QUEUED, Status.RUNNING, Status.DONE):
            return job, ""
        job = job or OddsJob(battle=battle, key=key, attempt=0)
        job.campaign_id, job.setup = battle.campaign_id, state.to_dict()
        if _reuse(job, key):
            job.save()
            return job, ""
        refused = odds_queue.too_many(user)
        if refused:
            return (job if job.pk else None), refused
        job.status, job.done, job.total, job.result, job.error = Status.QUEUED, 0, FIGHTS, None, ""
        job.requested_by, job.queued, job.attempt = user, timezone.now(), job.attempt + 1
        job.save()
        transaction.on_commit(dispatch)
    return job, ""


def cancel(battle_id: int, user: Any) -> tuple[OddsJob | None, str]:
    """Stop the battle's running job of its set-up (its chunks stop before their next fight)."""
    found = _gm_battle(battle_id, user)
    if isinstance(found, str):
        return None, found
    battle, state = found
    job = job_for(state, battle.pk)
    if job is None or job.status not in (Status.QUEUED, Status.RUNNING):
        return job, "Nothing to cancel."
    OddsJob.objects.filter(pk=job.pk, status__in=(Status.QUEUED, Status.RUNNING)).update(
        status=Status.CANCELLED, error=""
    )
    job.refresh_from_db()
    return job, ""
