"""Websocket routes of campaign pages."""

from __future__ import annotations

from django.urls import path

from vtt.consumers import CampaignConsumer

websocket_urlpatterns = [
    # Channels routes consumers with Django's path(), whose stub types views only.
    path("ws/campaigns/<int:campaign_id>/", CampaignConsumer.as_asgi()),  # type: ignore[arg-type]
]
