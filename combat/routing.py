"""Websocket routes: one socket per open battle page; channel routes: the encounter-odds jobs."""

from __future__ import annotations

from typing import Any

from django.urls import path

from combat.consumers import BattleConsumer
from combat.odds import CHANNEL as ODDS_CHANNEL
from combat.odds import OddsWorker

websocket_urlpatterns = [
    # Channels routes consumers with Django's path(), whose stub types views only.
    path("ws/battles/<int:battle_id>/", BattleConsumer.as_asgi()),  # type: ignore[arg-type]
]

# ``manage.py runworker --layer jobs odds``: the encounter-odds jobs (combat/odds.py).
channel_routes: dict[str, Any] = {ODDS_CHANNEL: OddsWorker.as_asgi()}
