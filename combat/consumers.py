"""The battle websocket: authenticate, check membership, forward pushed HTML.

A consumer never writes and never renders a broadcast: ``combat.live``
renders each region once per visibility class (and each player's own
regions) into one message for the battle's group; the consumer picks the
part for its class and its user and sends those bytes. It renders for itself
only when a page (re)connects behind the battle's seq. It also joins its
user's own group, for messages meant for one person.

Client -> server messages (JSON, small): ``{"type": "sync", "seq": N,
"reconnect": bool}``. Server -> client: HTML fragments (regions with ids,
swapped out of band by htmx's ws extension) or one JSON presence line
``{"presence": {"<user id>": true|false}}`` handled by battle.js.
"""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer

from combat import live
from combat.models import Battle
from vtt.models import Membership

MAX_MESSAGE = 2048
SYNC_EVERY = 0.25  # seconds between two full renders asked by one socket
RECHECK_SECONDS = 30.0  # an open socket re-checks its membership this often (at the next push)


def _access(user: Any, battle_id: int) -> tuple[str, int] | None:
    """(role, seq) of a member for this battle, or None."""
    if not getattr(user, "is_authenticated", False):
        return None
    battle = Battle.objects.filter(pk=battle_id).values_list("campaign_id", "seq").first()
    if battle is None:
        return None
    role = Membership.objects.filter(campaign_id=battle[0], user_id=user.pk).values_list("role", flat=True).first()
    return (role, battle[1]) if role else None


def _fresh(battle_id: int, role: str, user_id: str) -> tuple[int, str] | None:
    table = live.load_table(battle_id)
    if table is None:
        return None
    return table.battle.seq, live.regions_for(table, role, None if role == live.GM else user_id)


class BattleConsumer(AsyncWebsocketConsumer):
    """One socket per open battle page."""

    groups_joined: list[str]
    sync_task: asyncio.Task | None = None
    sync_request: dict[str, Any] | None = None
    synced_at: float = float("-inf")

    async def connect(self) -> None:
        self.groups_joined = []
        try:
            self.battle_id = int(self.scope["url_route"]["kwargs"]["battle_id"])
        except (KeyError, TypeError, ValueError):
            await self.close()
            return
        user = self.scope.get("user")
        access = await database_sync_to_async(_access)(user, self.battle_id)
        if access is None:
            await self.close()  # before accept: the handshake is refused (HTTP 403)
            return
        self.role, _ = access
        self.user = user
        self.user_id = str(user.pk)
        self.checked_at = time.monotonic()
        self.vclass = live.vclass_of(self.role)
        self.groups_joined = [live.battle_group(self.battle_id), live.user_group(self.battle_id, self.user_id)]
        for group in self.groups_joined:
            await self.channel_layer.group_add(group, self.channel_name)
        await self.accept()
        await self._presence("presence.hello", True)

    async def disconnect(self, code: int) -> None:
        if self.sync_task is not None:
            self.sync_task.cancel()
        for group in getattr(self, "groups_joined", []):
            await self.channel_layer.group_discard(group, self.channel_name)
        if getattr(self, "groups_joined", None):
            await self._presence("presence.bye", False)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        if not text_data or len(text_data) > MAX_MESSAGE:
            return
        try:
            message = json.loads(text_data)
        except ValueError:
            return
        if not isinstance(message, dict) or message.get("type") != "sync":
            return
        # A full render costs a read and a render: at most one per socket per
        # SYNC_EVERY. A sync asked sooner is answered when the window opens;
        # several asked meanwhile are answered once, with the latest request.
        self.sync_request = message
        if self.sync_task is not None and not self.sync_task.done():
            return
        wait = self.synced_at + SYNC_EVERY - time.monotonic()
        if wait <= 0:
            await self._send_fresh()
        else:
            self.sync_task = asyncio.get_running_loop().create_task(self._sync_after(wait))

    async def _sync_after(self, wait: float) -> None:
        await asyncio.sleep(wait)
        await self._send_fresh()

    async def _send_fresh(self) -> None:  # (not "_sync": Channels reads that name as "sync consumer")
        message, self.sync_request = self.sync_request, None
        if message is None:
            return
        self.synced_at = time.monotonic()
        seen = message.get("seq")
        fresh = await database_sync_to_async(_fresh)(self.battle_id, self.role, self.user_id)
        if fresh is None:
            await self.close()
            return
        seq, html = fresh
        if message.get("reconnect") is True or type(seen) is not int or seen != seq:
            await self.send(text_data=html)

    # ------------------------------------------------------------ group handlers

    async def battle_push(self, event: dict[str, Any]) -> None:
        """Pick this socket's bytes: its class's regions, and a player's own regions."""
        if time.monotonic() - self.checked_at > RECHECK_SECONDS and not await self._still_member():
            return
        html = event[self.vclass]
        if self.vclass == "pl":
            html += event["users"].get(self.user_id, "")
        await self.send(text_data=html)

    async def _still_member(self) -> bool:
        """A member removed from the campaign stops receiving the table; a changed role takes effect."""
        access = await database_sync_to_async(_access)(self.user, self.battle_id)
        self.checked_at = time.monotonic()
        if access is None:
            await self.close(code=4403)
            return False
        self.role, _ = access
        self.vclass = live.vclass_of(self.role)
        return True

    async def _presence(self, kind: str, online: bool) -> None:
        message = {"type": kind, "user": self.user_id, "online": online, "reply_to": self.channel_name}
        await self.channel_layer.group_send(live.battle_group(self.battle_id), message)

    async def presence_hello(self, event: dict[str, Any]) -> None:
        await self.send(text_data=json.dumps({"presence": {event["user"]: True}}))
        if event["reply_to"] != self.channel_name:
            await self.channel_layer.send(
                event["reply_to"], {"type": "presence.here", "user": self.user_id}
            )

    async def presence_here(self, event: dict[str, Any]) -> None:
        await self.send(text_data=json.dumps({"presence": {event["user"]: True}}))

    async def presence_bye(self, event: dict[str, Any]) -> None:
        if event["user"] == self.user_id:
            if event["reply_to"] != self.channel_name:
                # Another tab of this user closed; this one is still here.
                await self._presence("presence.hello", True)
            return
        await self.send(text_data=json.dumps({"presence": {event["user"]: False}}))
