"""The campaign page's websocket: tells its members, without a reload, when a battle is created or
starts, and brings the campaign's chat.

Like the battle socket it only pushes: ``combat.campaign_push.battles_changed`` renders the
campaign's battle list (and a notice) once per change and sends it to the
group ``campaign-<id>``; each socket forwards those bytes. ``vtt.chat`` sends
each chat line to the same group with each kind of reader's bytes, and a
socket sends its member only their part (``chat.pick``). Access is checked
as the battle socket's is (``vtt.access.campaign_access``: the session is still
this user's, the user a member) on connect, before each battle-list push,
before a chat push once the last check is ``RECHECK_SECONDS`` old, and at once
when the account's access changes (``vtt.sockets.notify``): logging out
or leaving the campaign closes the socket with 4403.

The battle sockets' caps hold here too (``vtt.sockets``): at most
``SOCKETS_PER_USER`` per user per campaign (a newer one closes the oldest,
4409) and, with the battle sockets, ``SOCKETS_PER_IP`` per address.
"""

from __future__ import annotations

import time
from typing import Any

from channels.db import database_sync_to_async

from vtt import chat, sockets
from vtt.access import campaign_access
from vtt.clientaddr import scope_address
from vtt.models import Role
from vtt.sockets import CLOSE_REPLACED, CLOSE_REVOKED, campaign_group

__all__ = ["CampaignConsumer", "campaign_group"]


class CampaignConsumer(sockets.PushConsumer):
    """One socket per open campaign page; receives nothing from the browser."""

    groups_joined: list[str]
    present: bool = False

    async def connect(self) -> None:
        self.groups_joined = []
        try:
            self.campaign_id = int(self.scope["url_route"]["kwargs"]["campaign_id"])
        except (KeyError, TypeError, ValueError):
            await self.close()
            return
        self.user = self.scope.get("user")
        self.session_key = getattr(self.scope.get("session"), "session_key", None)
        role = await database_sync_to_async(campaign_access)(self.user, self.campaign_id, self.session_key)
        if role is None:
            await self.close()  # before accept: the handshake is refused
            return
        self.ip = scope_address(self.scope)
        self.store = sockets.store()
        if self.ip and await self.store.ip_count(self.ip) >= sockets.SOCKETS_PER_IP:
            await self.close()  # too many sockets from this address: refused before accept
            return
        self.role, self.user_id, self.checked_at = role, str(self.user.pk), time.monotonic()
        self.groups_joined = [campaign_group(self.campaign_id), sockets.account_group(self.user.pk)]
        for group in self.groups_joined:
            await self.channel_layer.group_add(group, self.channel_name)
        await self.accept()
        room, me = sockets.campaign_room(self.campaign_id), str(self.user.pk)
        entries = await self.store.add(room, self.channel_name, me, self.ip)
        self.present = True
        await sockets.close_oldest(
            self.channel_layer, entries, me, sockets.SOCKETS_PER_USER, self.channel_name
        )

    async def disconnect(self, code: int) -> None:
        groups, self.groups_joined = getattr(self, "groups_joined", []), []
        for group in groups:
            await self.channel_layer.group_discard(group, self.channel_name)
        if self.present:
            self.present = False
            await self.store.remove(sockets.campaign_room(self.campaign_id), self.channel_name, self.ip)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        return  # the page only listens

    async def _end(self, code: int, reason: str = "") -> None:
        await self.disconnect(code)
        await self.close(code=code, reason=reason or None)

    async def _still_allowed(self, force: bool = True) -> bool:
        if not force and time.monotonic() - self.checked_at <= sockets.RECHECK_SECONDS:
            return True
        role = await database_sync_to_async(campaign_access)(self.user, self.campaign_id, self.session_key)
        self.checked_at = time.monotonic()
        if role is not None:
            self.role = role
            return True
        await self._end(CLOSE_REVOKED)
        return False

    async def campaign_battles(self, event: dict[str, Any]) -> None:
        # Pushes are rare (a battle created or started): access is checked again before each one.
        if await self._still_allowed():
            gm = self.role == Role.GM and "gm_html" in event
            await self.send(text_data=event["gm_html"] if gm else event["html"])

    async def chat_push(self, event: dict[str, Any]) -> None:
        """A chat line changed: send this member's part of it, if any (``vtt.chat`` decided who reads it)."""
        if event.get("campaign") == self.campaign_id and await self._still_allowed(force=False):
            html = chat.pick(event, self.user_id, self.role)
            if html:
                await self.send_text(html)

    async def socket_replaced(self, event: dict[str, Any]) -> None:
        await self._end(CLOSE_REPLACED, "This campaign is open in too many tabs; the oldest was closed.")

    async def access_changed(self, event: dict[str, Any]) -> None:
        """The account's membership, password or session changed (any campaign): re-check now."""
        if event.get("session") is not None and event["session"] == self.session_key:
            await self._end(CLOSE_REVOKED)
            return
        await self._still_allowed()
