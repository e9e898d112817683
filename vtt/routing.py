"""Websocket and channel routes: the campaign pages' own, and those another app registers.

The battles app registers its routes when it starts (``combat.apps.CombatConfig.ready``), so this
app names none of its modules; ``vtt.asgi`` asks for every route once Django is set up.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.urls import URLPattern, path

from vtt.consumers import CampaignConsumer

Routes = tuple[list[URLPattern], dict[str, Any]]  # websocket patterns, channel name -> consumer

websocket_urlpatterns = [
    # Channels routes consumers with Django's path(), whose stub types views only.
    path("ws/campaigns/<int:campaign_id>/", CampaignConsumer.as_asgi()),  # type: ignore[arg-type]
]

_SOURCES: list[Callable[[], Routes]] = []


def register(source: Callable[[], Routes]) -> None:
    """Add an app's routes: ``source()`` gives its websocket patterns and its channels' consumers."""
    if source not in _SOURCES:
        _SOURCES.append(source)


def websocket_routes() -> list[URLPattern]:
    """Every websocket route: the registered apps' first, then the campaign pages'."""
    return [pattern for source in _SOURCES for pattern in source()[0]] + websocket_urlpatterns


def channel_routes() -> dict[str, Any]:
    """Every channel name a worker serves (``manage.py runworker``) and its consumer."""
    return {name: consumer for source in _SOURCES for name, consumer in source()[1].items()}
