"""Websocket routes: one socket per open battle page."""

from __future__ import annotations

from django.urls import path

from combat.consumers import BattleConsumer

websocket_urlpatterns = [
    # Channels routes consumers with Django's path(), whose stub types views only.
    path("ws/battles/<int:battle_id>/", BattleConsumer.as_asgi()),  # type: ignore[arg-type]
]
