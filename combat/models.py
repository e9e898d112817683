"""Battles: a snapshot of the engine state plus the append-only event log.

The log (``BattleEvent``) is the truth (ENG-1); ``Battle.snapshot`` is a cache
of ``BattleState.to_dict()`` after the last event, so an action reads and
writes one JSON value instead of replaying the log. Only
``combat.services`` writes either table.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models


class Battle(models.Model):
    class Status(models.TextChoices):
        SETUP = "setup", "Setting up"
        ACTIVE = "active", "In progress"
        ENDED = "ended", "Ended"

    campaign = models.ForeignKey("vtt.Campaign", on_delete=models.CASCADE, related_name="battles")
    name = models.CharField(max_length=120)
    ruleset = models.CharField(max_length=40)
    seed = models.BigIntegerField()
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.SETUP)
    snapshot = models.JSONField(default=dict)
    # Number of events in the log; the seq of the last event.
    seq = models.PositiveIntegerField(default=0)
    # Bumped by every write that changes what the table shows (an action, an undo, a new map). Unlike
    # ``seq`` it never goes down: a page or a push rendered from an older version is never shown after
    # a newer one, whichever request thread or server process finished its render first.
    version = models.PositiveBigIntegerField(default=0)
    # When the GM confirmed the end-of-battle summary onto the sheets (once per battle).
    applied = models.DateTimeField(null=True, blank=True)
    # Rebuilt from an exported file (not played here).
    imported = models.BooleanField(default=False)
    created = models.DateTimeField(auto_now_add=True)
    updated = models.DateTimeField(auto_now=True)
    # The picture under the board (a map on a grid board, a backdrop behind a rows board), and how the
    # grid lies over it: ``grid_cols`` squares across the image's width starting ``grid_offset_*`` image
    # pixels from its top-left corner; 0 squares across stretches the image over the whole board.
    map = models.ForeignKey(
        "vtt.MapImage", null=True, blank=True, on_delete=models.SET_NULL, related_name="battles"
    )
    grid_cols = models.PositiveSmallIntegerField(default=0)
    grid_offset_x = models.PositiveIntegerField(default=0)
    grid_offset_y = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["-created"]

    def __str__(self) -> str:
        return self.name


class BattleEvent(models.Model):
    battle = models.ForeignKey(Battle, on_delete=models.CASCADE, related_name="events")
    seq = models.PositiveIntegerField()
    type = models.CharField(max_length=64)
    data = models.JSONField(default=dict)
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    # The browser's idempotency key: a repeated post returns the first result.
    client_token = models.CharField(max_length=64, null=True, blank=True)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["battle", "seq"]
        constraints = [
            models.UniqueConstraint(fields=["battle", "seq"], name="combat_event_unique_seq"),
        ]
        indexes = [models.Index(fields=["battle", "client_token"], name="combat_event_token")]

    def __str__(self) -> str:
        return f"{self.battle_id}#{self.seq} {self.type}"


class OddsJob(models.Model):
    """The odds of a planned fight: ``FIGHTS`` plays of a battle's set-up, run outside any request.

    A job belongs to the battle (and so the campaign) that asked: one row per battle and set-up
    (``key``: a hash of the combatants, their sheets and places, the board and the house rules). A
    finished result is copied to another battle of an identical set-up (the same seeds give the same
    figures); a queued or running job is never shared, so no GM sees, cancels or waits on another
    campaign's job. Runners (Channels workers or the process pool beside the server) take queued
    jobs fairly (``combat.odds_queue``: campaign after campaign) and move them from queued to
    running to done, writing ``done`` and ``beat`` as fights come back.
    """

    class Status(models.TextChoices):
        QUEUED = "queued", "Waiting for a worker"
        RUNNING = "running", "Running"
        DONE = "done", "Done"
        FAILED = "failed", "Failed"
        CANCELLED = "cancelled", "Cancelled"

    key = models.CharField(max_length=64)
    battle = models.ForeignKey(Battle, null=True, on_delete=models.SET_NULL, related_name="odds_jobs")
    campaign = models.ForeignKey(
        "vtt.Campaign", null=True, on_delete=models.CASCADE, related_name="odds_jobs"
    )
    # The GM who asked last: at most ``MAX_QUEUED`` of their jobs wait at once.
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    setup = models.JSONField(default=dict)  # the battle state in set-up that is played
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    total = models.PositiveIntegerField(default=500)
    done = models.PositiveIntegerField(default=0)
    result = models.JSONField(null=True, blank=True)
    error = models.CharField(max_length=200, blank=True, default="")
    attempt = models.PositiveIntegerField(default=0)  # bumped by each (re)start: an old runner stops
    beat = models.DateTimeField(null=True, blank=True)  # the runner's last sign of life
    queued = models.DateTimeField(null=True, blank=True)  # when it last joined the queue
    started = models.DateTimeField(null=True, blank=True)  # when a runner last took it
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["battle", "key"], name="combat_odds_battle_key")]
        indexes = [models.Index(fields=["status", "queued"], name="combat_odds_queue")]

    def __str__(self) -> str:
        return f"odds {self.key[:8]} {self.status} {self.done}/{self.total}"


class OddsRunner(models.Model):
    """A runner's heartbeat: a Channels worker or a server's embedded pool, beating while it plays a
    job. A queued job reads as failed only when no runner has beaten for ``ODDS_STALE_SECONDS``."""

    name = models.CharField(max_length=200, unique=True)  # host, process and thread
    beat = models.DateTimeField()
    job = models.ForeignKey(OddsJob, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")

    def __str__(self) -> str:
        return f"runner {self.name} {self.beat:%H:%M:%S}"
