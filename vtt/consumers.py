"""The campaign page's websocket: tells its members, without a reload, when a battle is created or starts.

Like the battle socket it only pushes: ``vtt.live.battles_changed`` renders the
campaign's battle list (and a notice) once per change and sends it to the
group ``campaign-<id>``; each socket forwards those bytes. Access is checked
as the battle socket's is (``vtt.access.campaign_access``: the session is still
this user's, the user a member) on connect, before each push, and at once
when the account's access changes (``combat.sockets.notify``): logging out
or leaving the campaign closes the socket with 4403.
"""

from __future__ import annotations

from typing import Any

from channels.db import database_sync_to_async

from combat import sockets
from combat.consumers import CLOSE_REVOKED
from vtt.access import campaign_access


def campaign_group(campaign_id: int) -> str:
    return f"campaign-{campaign_id}"


class CampaignConsumer(sockets.PushConsumer):
    """One socket per open campaign page; receives nothing from the browser."""

    groups_joined: list[str]

    async def connect(self) -> None:
        self.groups_joined = []
        try:
            self.campaign_id = int(self.scope["url_route"]["kwargs"]["campaign_id"])
        except (KeyError, TypeError, ValueError):
            await self.close()
            return
        self.user = self.scope.get("user")
        self.session_key = getattr(self.scope.get("session"), "session_key", None)
        if not await database_sync_to_async(campaign_access)(self.user, self.campaign_id, self.session_key):
            await self.close()  # before accept: the handshake is refused
            return
        self.groups_joined = [campaign_group(self.campaign_id), sockets.account_group(self.user.pk)]
        for group in self.groups_joined:
            await self.channel_layer.group_add(group, self.channel_name)
        await self.accept()

    async def disconnect(self, code: int) -> None:
        for group in self.groups_joined:
            await self.channel_layer.group_discard(group, self.channel_name)
        self.groups_joined = []

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        return  # the page only listens

    async def _still_allowed(self) -> bool:
        if await database_sync_to_async(campaign_access)(self.user, self.campaign_id, self.session_key):
            return True
        await self.disconnect(CLOSE_REVOKED)
        await self.close(code=CLOSE_REVOKED)
        return False

    async def campaign_battles(self, event: dict[str, Any]) -> None:
        # Pushes are rare (a battle created or started): access is checked again before each one.
        if await self._still_allowed():
            await self.send(text_data=event["html"])

    async def access_changed(self, event: dict[str, Any]) -> None:
        """The account's membership, password or session changed (any campaign): re-check now."""
        if event.get("session") is not None and event["session"] == self.session_key:
            await self.disconnect(CLOSE_REVOKED)
            await self.close(code=CLOSE_REVOKED)
            return
        await self._still_allowed()
