"""The battle websocket: authenticate, check membership, forward pushed HTML.

A consumer never writes and never renders a broadcast: ``combat.live``
renders each region once per visibility class (and each player's own
regions) into one message for the battle's group; the consumer picks the
part for its class and its user and sends those bytes. It renders for itself
only when a page (re)connects behind the battle's seq, or when its user's
role changes. The battle's group messages reach it through its process's one
subscription to that group (``combat.fanout``), into an outbox of its own; a
client that lets more than ``SLOW_BACKLOG`` of them wait is dropped (4429). It
also joins its user's own group, for messages meant for one
person, and its account's group (``vtt.sockets``), which says when the
account's membership, role, password or session changed.

Access (session, membership, role: ``combat.access.battle_access``) is re-checked on every inbound message
and before every push, from a per-socket cache that an ``access.changed``
message invalidates and a background check refreshes (``RECHECK_SECONDS``). Close codes: 4403 the right to
the table is gone (logout, removal); 4409 the same user opened too many
sockets on this battle (the oldest goes); 4429 the client reads too slowly.

Every render carries the battle's ``version``, which only goes up; a socket
never sends regions of an older version than it already sent, so two changes
whose renders finish in the wrong order still leave the page on the newer.

Client -> server messages (JSON, small): ``{"type": "sync", "seq": N,
"version": V, "reconnect": bool}``; a ping or the shared ruler (``combat.marks``:
passed to the battle's other sockets with who made it, never stored). Server ->
client: HTML fragments (regions with ids, swapped out of band by htmx's ws
extension; the campaign's chat lines, each socket sending its viewer's part),
or one JSON line: ``{"presence": {"<user id>": true|false, ...}}`` (battle.js),
``{"mark": {...}}`` or ``{"notice": "..."}`` (table-tools.js).
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from typing import Any

from channels.db import database_sync_to_async
from django.conf import settings

from combat import fanout, live, marks, presenters
from combat.access import battle_access
from combat.engine.actions import loads_bounded
from combat.models import Battle
from combat.table import load_table, members_of, vclass_of
from vtt import chat, sockets
from vtt.clientaddr import scope_address
from vtt.models import Role
from vtt.names import display_name
from vtt.sockets import CLOSE_REPLACED, CLOSE_REVOKED, CLOSE_SLOW

__all__ = ["CLOSE_REPLACED", "CLOSE_REVOKED", "CLOSE_SLOW", "BattleConsumer"]

MAX_MESSAGE = 2048
SYNC_EVERY = 0.25  # seconds between two full renders asked by one socket
SLOW_BACKLOG = getattr(settings, "SOCKET_SLOW_BACKLOG", 200)  # messages waiting: the client is too slow


def _entry(user: Any, battle_id: int, session_key: str | None) -> tuple[str, int, int, int, int] | None:
    """(role, seq, campaign id, board width, height) of a member opening a battle's socket
    (``battle_access`` with the session checked), or None."""
    access = battle_access(user, battle_id, session_key, True)
    if access is None:
        return None
    found = (
        Battle.objects.filter(pk=battle_id)
        .values_list("campaign_id", "snapshot__width", "snapshot__height")
        .first()
    )
    if found is None:
        return None
    campaign, width, height = found
    return (*access, campaign, int(width or 0), int(height or 0))


def _signed(battle_id: int, campaign_id: int, user_id: str, user: Any) -> tuple[str, str]:
    """Who a ping or ruler is from, as the table knows them (``marks.signature``), and their colour."""
    combatants = Battle.objects.filter(pk=battle_id).values_list("snapshot__combatants", flat=True).first()
    name = marks.signature(combatants, user_id, display_name(user))
    return name, marks.colour(user_id, members_of(campaign_id))


def _fresh(battle_id: int, role: str, user_id: str) -> tuple[int, int, str] | None:
    """(seq, version, this viewer's regions) of the battle as it is now."""
    table = load_table(battle_id)
    if table is None:
        return None
    html = presenters.regions_for(table, role, None if role == Role.GM else user_id)
    return table.battle.seq, table.battle.version, html


# What a GM's page keeps of the GM's own elements once their role changes: nothing (no "End battle").
EMPTY_GM_PANEL = (
    '<section id="gm-panel" hx-swap-oob="true" hidden></section>'
    '<div id="gm-head" hx-swap-oob="true" class="gm-head"></div>'
)


class BattleConsumer(sockets.PushConsumer):
    """One socket per open battle page."""

    groups_joined: list[str]
    sync_task: asyncio.Task[None] | None = None
    sync_request: dict[str, Any] | None = None
    synced_at: float = float("-inf")
    present: bool = False
    closing: bool = False
    recheck_task: asyncio.Task[None] | None = None
    outbox: fanout.Outbox | None = None
    dropping: bool = False
    send_lock: asyncio.Lock
    shown: int = -1  # the battle version of the newest regions this socket sent

    async def connect(self) -> None:
        self.groups_joined = []
        self.send_lock = asyncio.Lock()
        try:
            self.battle_id = int(self.scope["url_route"]["kwargs"]["battle_id"])
        except (KeyError, TypeError, ValueError):
            await self.close()
            return
        user = self.scope.get("user")
        session = self.scope.get("session")
        self.session_key = getattr(session, "session_key", None)
        entry = await database_sync_to_async(_entry)(user, self.battle_id, self.session_key)
        if entry is None:
            await self.close()  # before accept: the handshake is refused (HTTP 403)
            return
        self.ip = scope_address(self.scope)
        self.store = sockets.store()
        if self.ip and await self.store.ip_count(self.ip) >= sockets.SOCKETS_PER_IP:
            await self.close()  # too many sockets from this address: refused before accept
            return
        self.role, _, self.campaign_id, self.width, self.height = entry
        self.limits = marks.buckets()
        self.user = user
        self.user_id = str(self.user.pk)
        self.checked_at = time.monotonic()
        self.vclass = vclass_of(self.role)
        self.groups_joined = [
            live.user_group(self.battle_id, self.user_id),
            sockets.account_group(self.user_id),
        ]
        for group in self.groups_joined:
            await self.channel_layer.group_add(group, self.channel_name)
        # The battle's own messages (pushes, presence) come through this process's one subscription.
        # They queue from here on and are sent once the handshake is accepted, never before.
        # The campaign's messages (its chat) come the same way, through one subscription per process.
        self.outbox = fanout.Outbox(self.dispatch)
        for group in self._shared_groups():
            await fanout.join(self.channel_layer, group, self)
        await self.accept()
        self.outbox.start()
        await self._join()
        self.recheck_task = asyncio.get_running_loop().create_task(self._recheck_forever())

    def _shared_groups(self) -> tuple[str, str]:
        """The groups this socket takes through its process's subscription: the battle's, the campaign's."""
        return live.battle_group(self.battle_id), sockets.campaign_group(self.campaign_id)

    async def _recheck_forever(self) -> None:
        """The periodic access check, off the push path, at a jittered interval of this socket's own."""
        while not self.closing:
            await asyncio.sleep(max(0.5, sockets.RECHECK_SECONDS * random.uniform(0.5, 1.0)))
            await self._allowed(force=True)

    async def disconnect(self, code: int) -> None:
        self.closing = True
        await self._leave()

    async def _leave(self) -> None:
        """Leave every group and the table's presence (once), telling the others if this user is gone."""
        if self.sync_task is not None:
            self.sync_task.cancel()
        if self.recheck_task is not None and self.recheck_task is not asyncio.current_task():
            self.recheck_task.cancel()
        outbox, self.outbox = self.outbox, None
        if outbox is not None:
            outbox.close()
            for group in self._shared_groups():
                await fanout.leave(self.channel_layer, group, self)
        groups, self.groups_joined = getattr(self, "groups_joined", []), []
        for group in groups:
            await self.channel_layer.group_discard(group, self.channel_name)
        if self.present:
            self.present = False
            entries = await self.store.remove(self.battle_id, self.channel_name, self.ip)
            if not any(user == self.user_id for user, _ in entries.values()):
                await self._announce(False)

    async def _close(self, code: int, reason: str) -> None:
        """Close from the server side; the socket stops counting at once, even if the client never answers."""
        if not self.closing:
            self.closing = True
            await self.close(code=code, reason=reason)
            await self._leave()

    # ------------------------------------------------------------ presence and caps

    async def _join(self) -> None:
        """Enter the table: read who is here (one read), tell the others only if this user was absent."""
        entries = await self.store.add(self.battle_id, self.channel_name, self.user_id, self.ip)
        self.present = True
        online = {user for user, _ in entries.values()}
        await self.send(text_data=json.dumps({"presence": dict.fromkeys(sorted(online), True)}))
        if sum(user == self.user_id for user, _ in entries.values()) == 1:
            await self._announce(True)
        # Too many sockets of this user on this battle: the oldest ones go.
        await sockets.close_oldest(
            self.channel_layer, entries, self.user_id, sockets.SOCKETS_PER_USER, self.channel_name
        )

    async def _announce(self, online: bool) -> None:
        message = {"type": "presence.update", "user": self.user_id, "online": online}
        await sockets.safe_group_send(self.channel_layer, live.battle_group(self.battle_id), message)

    async def presence_update(self, event: dict[str, Any]) -> None:
        if event["user"] != self.user_id and not self.closing:
            await self.send(text_data=json.dumps({"presence": {event["user"]: bool(event["online"])}}))

    async def socket_replaced(self, event: dict[str, Any]) -> None:
        await self._close(CLOSE_REPLACED, "This table is open in too many tabs; the oldest was closed.")

    # ------------------------------------------------------------ access

    async def access_changed(self, event: dict[str, Any]) -> None:
        """The account's membership, role, password or session changed: re-check now."""
        if event.get("session") is not None and event["session"] == self.session_key:
            await self._close(CLOSE_REVOKED, "Logged out.")
            return
        old = self.role
        if await self._allowed(force=True) and self.role != old:
            # The page shows the old role's regions: replace every one of them at once.
            self.sync_request = {"type": "sync", "reconnect": True}
            await self._send_fresh(role_changed=True)

    async def _allowed(self, force: bool = False) -> bool:
        """Session, membership and role, from the cache unless it was invalidated or is old."""
        if self.closing:
            return False
        if not force and time.monotonic() - self.checked_at <= 1.5 * sockets.RECHECK_SECONDS:
            return True  # fresh enough: the background check keeps it so
        access = await database_sync_to_async(battle_access)(
            self.user, self.battle_id, self.session_key, True
        )
        self.checked_at = time.monotonic()
        if access is None:
            await self._close(CLOSE_REVOKED, "You no longer have access to this table.")
            return False
        self.role, _ = access
        self.vclass = vclass_of(self.role)
        return True

    async def _still_member(self) -> bool:
        return await self._allowed(force=True)

    # ------------------------------------------------------------ client messages

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        if not await self._allowed():
            return
        if not text_data:
            return
        message = loads_bounded(text_data, MAX_MESSAGE, max_depth=2)  # flat objects, squares in them
        if not isinstance(message, dict):
            return
        if message.get("type") in marks.KINDS:
            await self._mark(message)
            return
        if message.get("type") != "sync":
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

    async def _mark(self, message: dict[str, Any]) -> None:
        """A ping or a ruler for the table (``combat.marks``): passed on with who made it, never stored."""
        mark = marks.read(message, self.width, self.height)
        if mark is None:
            return
        if self.role not in (Role.GM, Role.PLAYER):
            await self.send(
                text_data=json.dumps({"notice": "Observers watch: pings and the ruler are the players'."})
            )
            return
        if not self.limits[mark["kind"]].take():
            if mark["kind"] == "ping":
                await self.send(text_data=json.dumps({"notice": marks.TOO_MANY_PINGS}))
            return
        by, painted = await database_sync_to_async(_signed)(
            self.battle_id, self.campaign_id, self.user_id, self.user
        )
        mark.update(by=by, user=self.user_id, colour=painted)
        message = {"type": "table.mark", "mark": mark, "sender": self.channel_name}
        await sockets.safe_group_send(self.channel_layer, live.battle_group(self.battle_id), message)

    async def table_mark(self, event: dict[str, Any]) -> None:
        """Someone's ping or ruler: every other page of the battle draws it (its sender's drew it already)."""
        if event.get("sender") != self.channel_name and not self.closing:
            await self.send_text(json.dumps({"mark": event["mark"]}))

    async def _sync_after(self, wait: float) -> None:
        await asyncio.sleep(wait)
        await self._send_fresh()

    async def _send_fresh(
        self, role_changed: bool = False
    ) -> None:  # (not "_sync": Channels reads that name)
        message, self.sync_request = self.sync_request, None
        if message is None or not await self._allowed():
            return
        self.synced_at = time.monotonic()
        seen = message.get("seq")
        # Held from the read to the send: a push that arrives meanwhile goes out after this older render.
        async with self.send_lock:
            fresh = await database_sync_to_async(_fresh)(self.battle_id, self.role, self.user_id)
            if fresh is None:
                await self._close(CLOSE_REVOKED, "This battle no longer exists.")
                return
            seq, version, html = fresh
            if version < self.shown:
                return  # a newer push already went out: this render shows an older table
            if role_changed and self.role != Role.GM:
                html += EMPTY_GM_PANEL
            behind = type(seen) is not int or seen != seq or message.get("version") not in (None, version)
            if message.get("reconnect") is True or behind:
                self.shown = version
                await self.send(text_data=html)
            elif message.get("version") == version:
                self.shown = max(
                    self.shown, version
                )  # the page is at this version: changes may come as elements

    # ------------------------------------------------------------ group handlers

    def offer(self, message: dict[str, Any]) -> None:
        """A battle message from this process's subscription (``combat.fanout``): queue it, never block.

        A client that cannot keep up (more than ``SLOW_BACKLOG`` messages waiting while one is being
        sent) is dropped: it reconnects and syncs; the others never wait for it.
        """
        if self.closing or self.dropping or self.outbox is None:
            return
        if self.outbox.put(message) > SLOW_BACKLOG:
            self.dropping = True
            self.outbox.clear()
            asyncio.get_running_loop().create_task(
                self._close(CLOSE_SLOW, "Too slow to follow the table; reconnecting.")
            )

    async def battle_push(self, event: dict[str, Any]) -> None:
        """Pick this socket's bytes: its class's regions (or elements), and a player's own.

        A change pushed as the elements it touched (``base``: the version they apply to) goes only to a
        page at that version; a page elsewhere (it missed a change, or its version is not known yet)
        gets the whole table as it is now.
        """
        if not await self._allowed():
            return
        html = event[self.vclass]
        if self.vclass == "pl":
            users = event["users"]
            html += users[self.user_id] if self.user_id in users else event.get("watch", "")
        version = event.get("version", self.shown)
        base = event.get("base")
        async with self.send_lock:
            # Two changes render in two request threads (or processes) and publish as each finishes:
            # a render of an older version that comes after a newer one would put the page back.
            if version < self.shown or (base is not None and version == self.shown):
                return
            if base is None or base == self.shown:
                self.shown = version
                await self.send_text(html)
                return
        self.sync_request = {"type": "sync", "reconnect": True}
        await self._send_fresh()

    async def odds_push(self, event: dict[str, Any]) -> None:
        """The odds panel of the battle's set-up (``combat.odds``): a GM's socket alone sends it on."""
        if self.vclass == "gm" and await self._allowed():
            await self.send_text(event["gm"])

    async def chat_push(self, event: dict[str, Any]) -> None:
        """A line of the campaign's chat changed: send this viewer's part of it, if any (``vtt.chat``)."""
        if await self._allowed():
            html = chat.pick(event, self.user_id, self.role)
            if html:
                await self.send_text(html)

    async def campaign_battles(self, event: dict[str, Any]) -> None:
        """The campaign page's battle list: a battle page does not show it."""
