"""Websocket routes of campaign pages."""

from __future__ import annotations

from django.urls import path

from vtt.consumers import CampaignConsumer

websocket_urlpatterns = [
    path("ws/campaigns/<int:campaign_id>/", CampaignConsumer.as_asgi()),
]
