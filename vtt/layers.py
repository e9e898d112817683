"""The in-memory channel layer of the embedded server (no ``REDIS_URL``): Channels' own, with its
sweep of expired messages and group memberships run at most once a second.

Channels' ``InMemoryChannelLayer`` sweeps every channel and every group membership on each
``receive``; with a table's sockets each in two groups of their own that sweep was a few per cent
of the embedded server's CPU per action. Messages expire after a minute and memberships after a
day, so sweeping once a second changes nothing a client can see.
"""

from __future__ import annotations

import time

from channels.layers import InMemoryChannelLayer as ChannelsInMemoryChannelLayer

SWEEP_EVERY = 1.0  # seconds


class InMemoryChannelLayer(ChannelsInMemoryChannelLayer):
    """Channels' in-memory layer; expired entries are swept at most once per ``SWEEP_EVERY``."""

    _swept_at = float("-inf")

    def _clean_expired(self) -> None:
        now = time.monotonic()
        if now - self._swept_at < SWEEP_EVERY:
            return
        self._swept_at = now
        super()._clean_expired()  # type: ignore[misc]  # private in channels, not in types-channels
