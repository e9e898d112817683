"""Websocket routes. Filled in by the live-table work."""

from __future__ import annotations

websocket_urlpatterns: list = []
