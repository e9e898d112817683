"""The odds queue: who plays next, how much a GM may queue, and whether anyone is playing at all.

- Fair: runners take queued jobs campaign after campaign (round robin: the campaign served longest
  ago first, then its oldest job), so one GM's many jobs never starve another table.
- Bounded: at most ``MAX_QUEUED`` jobs of one GM wait at once; past that the GM is told why.
- Alive: a runner beats (``OddsRunner``) while it plays. A running job whose own beat stops reads as
  failed; a queued job waits as long as some runner beats, and reads as failed only when none has
  beaten for ``STALE_SECONDS`` (no worker at all), never merely for being behind other jobs.
- Budgeted: a job may spend ``cpu_budget(setup)`` CPU seconds, scaled to the set-up's size.
"""

from __future__ import annotations

import os
import socket
import threading
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from combat.engine.state import BattleState
from combat.models import OddsJob, OddsRunner

MAX_QUEUED = int(getattr(settings, "ODDS_MAX_QUEUED", 3))
STALE_SECONDS = float(getattr(settings, "ODDS_STALE_SECONDS", 20.0))
# CPU seconds a job may spend: a base plus a share per combatant, never above the cap.
BUDGET_BASE = float(getattr(settings, "ODDS_BUDGET_BASE", 20.0))
BUDGET_PER_FIGHTER = float(getattr(settings, "ODDS_BUDGET_PER_FIGHTER", 6.0))
BUDGET_CAP = float(getattr(settings, "ODDS_BUDGET_CAP", 90.0))
Status = OddsJob.Status
TOO_MANY = "You already have {n} odds checks waiting: wait for one to finish, or cancel one, then ask again."


def cpu_budget(setup: BattleState) -> float:
    """The CPU seconds one job of this set-up may spend (bigger set-ups get more, up to a cap)."""
    return min(BUDGET_CAP, BUDGET_BASE + BUDGET_PER_FIGHTER * len(setup.combatants))


def runner_name() -> str:
    return f"{socket.gethostname()}:{os.getpid()}:{threading.get_ident()}"


def beat(job_id: int | None) -> None:
    """This runner is alive (and playing ``job_id``)."""
    OddsRunner.objects.update_or_create(
        name=runner_name(), defaults={"beat": timezone.now(), "job_id": job_id}
    )


def runners_alive() -> bool:
    since = timezone.now() - timedelta(seconds=STALE_SECONDS)
    return OddsRunner.objects.filter(beat__gte=since).exists()


def _stale(job: OddsJob) -> bool:
    since = timezone.now() - timedelta(seconds=STALE_SECONDS)
    if job.status == Status.RUNNING:
        return (job.beat or job.created) < since
    if job.status == Status.QUEUED:
        return (job.queued or job.created) < since and not runners_alive()
    return False


def settle(job: OddsJob) -> OddsJob:
    """Mark a job no runner will play as failed (never a spinner forever)."""
    if _stale(job):
        why = (
            "No worker is running to play the fights."
            if job.status == Status.QUEUED
            else "The simulation stopped: its worker went away."
        )
        OddsJob.objects.filter(pk=job.pk, attempt=job.attempt, status=job.status).update(
            status=Status.FAILED, error=why
        )
        job.refresh_from_db()
    return job


def too_many(user: Any) -> str:
    """Why ``user`` may not queue another job now, or ""."""
    waiting = OddsJob.objects.filter(requested_by_id=user.pk, status=Status.QUEUED).count()
    return TOO_MANY.format(n=waiting) if waiting >= MAX_QUEUED else ""


def fair_order(queued: Sequence[OddsJob], served: dict[int | None, datetime]) -> list[OddsJob]:
    """The queued jobs in the order runners take them: each turn goes to the campaign served longest
    ago (``served``: campaign -> when a runner last took one of its jobs; never served: first, by its
    oldest job), and within a campaign to its oldest job."""
    waiting: dict[int | None, list[OddsJob]] = {}
    for job in sorted(queued, key=_joined):
        waiting.setdefault(job.campaign_id, []).append(job)
    rank = {
        c: (1, served[c].timestamp()) if c in served else (0, _joined(jobs[0])[0].timestamp())
        for c, jobs in waiting.items()
    }
    order: list[OddsJob] = []
    for turn in range(len(queued)):
        campaign = min(waiting, key=lambda c: rank[c])
        order.append(waiting[campaign].pop(0))
        rank[campaign] = (2, float(turn))  # just served: behind every campaign not served since
        if not waiting[campaign]:
            del waiting[campaign]
    return order


def _joined(job: OddsJob) -> tuple[datetime, int]:
    return (job.queued or job.created, job.pk)


def _served(campaigns: set[int | None]) -> dict[int | None, datetime]:
    ids = [c for c in campaigns if c is not None]
    rows = OddsJob.objects.filter(campaign_id__in=ids, started__isnull=False)
    return dict(rows.values("campaign_id").annotate(last=Max("started")).values_list("campaign_id", "last"))


def queue() -> list[OddsJob]:
    """Every queued job in the order runners will take them."""
    queued = list(OddsJob.objects.filter(status=Status.QUEUED))
    return fair_order(queued, _served({j.campaign_id for j in queued}))


def position(job: OddsJob) -> int:
    """1 for the next job a runner takes, 2 for the one after... (0: not queued)."""
    if job.status != Status.QUEUED:
        return 0
    return next((n for n, j in enumerate(queue(), 1) if j.pk == job.pk), 0)


def claim_next() -> OddsJob | None:
    """Take the next job in fair order for this runner (running from now), or None."""
    OddsRunner.objects.filter(beat__lt=timezone.now() - timedelta(days=1)).delete()  # runners gone
    for _ in range(5):  # another runner may take the same job first: then the next one
        order = queue()
        if not order:
            return None
        job = order[0]
        with transaction.atomic():
            now = timezone.now()
            taken = OddsJob.objects.filter(pk=job.pk, attempt=job.attempt, status=Status.QUEUED).update(
                status=Status.RUNNING, beat=now, started=now
            )
        if taken:
            job.refresh_from_db()
            beat(job.pk)
            return job
    return None
