"""The realtime pieces every socket shares: close codes, caps, groups, presence, access changes, publishing.

The battle sockets (``combat.consumers``) and the campaign pages' sockets (``vtt.consumers``) both use
this module; it imports nothing of the battles app.

Close codes: 4403 the right to the page is gone (logout, removal); 4409 the same user opened too many
sockets on one battle or campaign (the oldest goes); 4429 the client reads too slowly.

Who is at a table, and telling open sockets that someone's access changed.

Presence: each open battle socket is one entry (its channel name, its user,
its address, when it opened) in a store every server process shares: Redis
when ``REDIS_URL`` is set, else this process's memory (one process then
serves every socket). A socket joining reads the whole table once; the
others hear one ``presence.update`` only when a user's first socket opens or
their last one closes, so N sockets cost N messages, not N².

The same store counts sockets per user per room (a battle, or a campaign
page: ``campaign_room``) and per address (``vtt.clientaddr``), over battle
and campaign sockets alike: ``SOCKETS_PER_USER`` (the oldest is closed with a
reason when a newer one opens, ``close_oldest``) and ``SOCKETS_PER_IP`` (a new
socket over the limit is refused).

Access: a change of membership, role, password or session sends one
``access.changed`` message to the user's account group; every socket of that
user, on any process, re-checks at once (logout closes the sockets of that
session, a removed member's close with 4403, a changed role re-renders).
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
import weakref
from typing import Any

from asgiref.sync import async_to_sync
from channels.consumer import get_handler_name
from channels.exceptions import ChannelFull
from channels.generic.websocket import AsyncWebsocketConsumer
from channels.layers import get_channel_layer
from channels.sessions import InstanceSessionWrapper
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.signals import user_logged_out
from django.db import transaction
from django.db.models.signals import post_delete, post_save

from vtt.handlers import SERVER_LOOP

log = logging.getLogger(__name__)

CLOSE_REVOKED, CLOSE_REPLACED, CLOSE_SLOW = 4403, 4409, 4429
# A safety net only: a change of access reaches the socket at once through its account group.
# Each socket re-checks in the background every 15-30 s (jittered: sockets opened together do not
# re-check together, and never one after another on the push path); a push or message re-checks
# inline only when the background check is overdue by half the period again.
RECHECK_SECONDS = 30.0
# Battle and campaign pages' sockets count under the same caps.
SOCKETS_PER_USER = getattr(settings, "SOCKETS_PER_USER", 5)  # per battle or campaign; the oldest is closed
SOCKETS_PER_IP = getattr(settings, "SOCKETS_PER_IP", 100)  # over every socket; a new one is refused
_PUBLISHING: set[asyncio.Task[None]] = set()  # publishes under way (a task needs a reference)

KEY_TTL = 24 * 3600  # seconds: a store entry left by a crashed process disappears after this


class PushConsumer(AsyncWebsocketConsumer):
    """A websocket consumer whose message handlers reach the database only through
    ``database_sync_to_async`` (which closes stale connections itself, in the thread it uses).

    Channels' ``dispatch`` hops to a worker thread before every message to close the event loop
    thread's old database connections, which a consumer like this never opens: for a push, that
    hop was the most expensive part of forwarding the bytes. Here a message goes straight to its
    handler.
    """

    user: Any  # the scope's user: an account once ``connect`` let the socket in

    async def dispatch(self, message: dict[str, Any]) -> None:
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"No handler for message type {message['type']}")
        await handler(message)

    async def send_text(self, text: str) -> None:
        """One text frame, past Channels' session wrappers: they act on HTTP responses only (saving the
        session, setting its cookie) and only cost a session look-up for every frame of a push."""
        send: Any = getattr(self, "_frame_send", None)
        if send is None:
            send = self.base_send
            while isinstance(getattr(send, "__self__", None), InstanceSessionWrapper):
                send = send.__self__.real_send
            self._frame_send = send
        await send({"type": "websocket.send", "text": text})


def account_group(user_id: Any) -> str:
    """Every socket of one account, on every battle and process."""
    return f"account-{user_id}"


def campaign_group(campaign_id: Any) -> str:
    """Every open page of one campaign: its campaign page's sockets, and its battle pages' (the chat)."""
    return f"campaign-{campaign_id}"


# ---------------------------------------------------------------- sending without dying


async def safe_send(layer: Any, channel: str, message: dict[str, Any]) -> bool:
    """Send to one channel; a full channel (a slow client) loses the message, the sender lives on."""
    try:
        await layer.send(channel, message)
    except ChannelFull:
        log.warning("channel %s is full: message dropped", channel)
        return False
    return True


async def safe_group_send(layer: Any, group: str, message: dict[str, Any]) -> None:
    try:
        await layer.group_send(group, message)
    except ChannelFull:  # a layer that raises for one member must not take the sender down
        log.warning("group %s has a full channel: message dropped", group)


def notify(user_id: Any, **data: Any) -> None:
    """Tell every socket of ``user_id`` to re-check its access (after the current transaction commits)."""
    message = {"type": "access.changed", **data}

    def send() -> None:
        layer = get_channel_layer()
        if layer is None:
            return
        try:
            try:
                loop = asyncio.get_running_loop()
            except RuntimeError:
                loop = None
            if loop is None:
                async_to_sync(safe_group_send)(layer, account_group(user_id), message)
            else:  # called on a thread that runs an event loop: never block it
                loop.create_task(safe_group_send(layer, account_group(user_id), message))
        except Exception:  # an unreachable layer must not fail the request that changed access
            log.exception("could not notify the sockets of user %s", user_id)

    transaction.on_commit(send)


def _membership_saved(sender: Any, instance: Any, created: bool = False, **kwargs: Any) -> None:
    notify(instance.user_id, campaign=instance.campaign_id)


def _membership_deleted(sender: Any, instance: Any, **kwargs: Any) -> None:
    notify(instance.user_id, campaign=instance.campaign_id)


def _user_saved(sender: Any, instance: Any, created: bool = False, **kwargs: Any) -> None:
    if not created:  # a password change or deactivation ends that account's open sockets' rights
        notify(instance.pk)


def _logged_out(sender: Any, request: Any, user: Any, **kwargs: Any) -> None:
    if user is not None and getattr(request, "session", None) is not None:
        notify(user.pk, session=request.session.session_key)


def campaign_room(campaign_id: int) -> str:
    """The store's room of a campaign page's sockets (a battle's room is its id)."""
    return f"campaign-{campaign_id}"


async def close_oldest(
    layer: Any, entries: dict[str, tuple[str, float]], user_id: str, keep: int, me: str
) -> list[str]:
    """Tell the oldest sockets of ``user_id`` in a room (``entries``) beyond ``keep`` to close; their channels."""
    mine = sorted((opened, channel) for channel, (user, opened) in entries.items() if user == user_id)
    gone = [channel for _, channel in mine[: max(0, len(mine) - keep)] if channel != me]
    for channel in gone:
        await safe_send(layer, channel, {"type": "socket.replaced"})
    return gone


def connect_signals() -> None:
    from vtt.models import Membership

    post_save.connect(_membership_saved, sender=Membership, dispatch_uid="sockets-membership-saved")
    post_delete.connect(_membership_deleted, sender=Membership, dispatch_uid="sockets-membership-deleted")
    post_save.connect(_user_saved, sender=get_user_model(), dispatch_uid="sockets-user-saved")
    user_logged_out.connect(_logged_out, dispatch_uid="sockets-logged-out")


# ---------------------------------------------------------------- publishing to a group


async def _send(group: str, message: dict[str, Any]) -> None:
    layer = get_channel_layer()
    if layer is not None:
        await layer.group_send(group, message)


def _published(task: asyncio.Task[None]) -> None:
    _PUBLISHING.discard(task)
    if not task.cancelled() and task.exception() is not None:
        log.error("live push failed", exc_info=task.exception())


def _publish_on_loop(group: str, message: dict[str, Any]) -> None:
    """Start publishing on the running loop; the caller does not wait for it."""
    task = asyncio.get_running_loop().create_task(_send(group, message))
    _PUBLISHING.add(task)
    task.add_done_callback(_published)


def publish(group: str, message: dict[str, Any]) -> None:
    """Send ``message`` to ``group`` from any thread, without holding a request thread for it.

    On the loop's own thread: a task. On a request thread of a running server: handed to the
    server's loop, which publishes in the order the hand-overs came. Elsewhere (a management
    command, a test calling a service): sent before returning.
    """
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        loop = SERVER_LOOP.get()
        if loop is not None and loop.is_running() and not loop.is_closed():
            loop.call_soon_threadsafe(_publish_on_loop, group, message)
        else:
            async_to_sync(_send)(group, message)
    else:  # called from a thread that runs an event loop: never block it
        _publish_on_loop(group, message)


# ---------------------------------------------------------------- presence store


class MemoryStore:
    """One process: plain dicts."""

    def __init__(self) -> None:
        self.rooms: dict[int | str, dict[str, tuple[str, float]]] = {}
        self.ips: dict[str, set[str]] = {}

    async def ip_count(self, ip: str) -> int:
        return len(self.ips.get(ip, ()))

    async def add(
        self, room: int | str, channel: str, user_id: str, ip: str | None
    ) -> dict[str, tuple[str, float]]:
        entries = self.rooms.setdefault(room, {})
        entries[channel] = (user_id, time.time())
        if ip:
            self.ips.setdefault(ip, set()).add(channel)
        return dict(entries)

    async def entries(self, room: int | str) -> dict[str, tuple[str, float]]:
        return dict(self.rooms.get(room, {}))

    async def remove(self, room: int | str, channel: str, ip: str | None) -> dict[str, tuple[str, float]]:
        entries = self.rooms.get(room, {})
        entries.pop(channel, None)
        if not entries:
            self.rooms.pop(room, None)
        if ip and ip in self.ips:
            self.ips[ip].discard(channel)
            if not self.ips[ip]:
                del self.ips[ip]
        return dict(entries)


class RedisStore:
    """Every process: one hash per room (channel -> "user|opened at") and one per address."""

    def __init__(self, url: str, prefix: str) -> None:
        self.url = url
        self.prefix = prefix
        self._clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Any] = weakref.WeakKeyDictionary()

    def _redis(self) -> Any:
        import redis.asyncio as redis

        loop = asyncio.get_running_loop()
        client = self._clients.get(loop)
        if client is None:
            client = self._clients[loop] = redis.Redis.from_url(self.url)
        return client

    def _room_key(self, room: int | str) -> str:
        return f"{self.prefix}:presence:{room}"

    def _ip_key(self, ip: str) -> str:
        return f"{self.prefix}:sockets-ip:{ip}"

    @staticmethod
    def _decode(raw: dict[bytes, bytes]) -> dict[str, tuple[str, float]]:
        out = {}
        for channel, value in raw.items():
            user, _, opened = value.decode().partition("|")
            try:
                out[channel.decode()] = (user, float(opened))
            except ValueError:
                continue
        return out

    async def ip_count(self, ip: str) -> int:
        return int(await self._redis().hlen(self._ip_key(ip)))

    async def add(
        self, room: int | str, channel: str, user_id: str, ip: str | None
    ) -> dict[str, tuple[str, float]]:
        key = self._room_key(room)
        pipe = self._redis().pipeline()
        pipe.hset(key, channel, f"{user_id}|{time.time()}")
        pipe.expire(key, KEY_TTL)
        if ip:
            pipe.hset(self._ip_key(ip), channel, str(time.time()))
            pipe.expire(self._ip_key(ip), KEY_TTL)
        pipe.hgetall(key)
        result = await pipe.execute()
        return self._decode(result[-1])

    async def entries(self, room: int | str) -> dict[str, tuple[str, float]]:
        return self._decode(await self._redis().hgetall(self._room_key(room)))

    async def remove(self, room: int | str, channel: str, ip: str | None) -> dict[str, tuple[str, float]]:
        key = self._room_key(room)
        pipe = self._redis().pipeline()
        pipe.hdel(key, channel)
        if ip:
            pipe.hdel(self._ip_key(ip), channel)
        pipe.hgetall(key)
        result = await pipe.execute()
        return self._decode(result[-1])


_store: MemoryStore | RedisStore | None = None


def store() -> MemoryStore | RedisStore:
    global _store
    if _store is None:
        url = getattr(settings, "REDIS_URL", "") or ""
        _store = RedisStore(url, os.environ.get("CHANNEL_PREFIX", "vtt")) if url else MemoryStore()
    return _store


def reset_store() -> None:
    """Forget the store and, on Redis, its keys under this prefix (tests: ids repeat between tests)."""
    global _store
    if isinstance(_store, RedisStore) or (_store is None and bool(getattr(settings, "REDIS_URL", ""))):
        import redis

        prefix = os.environ.get("CHANNEL_PREFIX", "vtt")
        client = redis.Redis.from_url(settings.REDIS_URL)
        for pattern in (f"{prefix}:presence:*", f"{prefix}:sockets-ip:*"):
            keys = list(client.scan_iter(pattern))
            if keys:
                client.delete(*keys)
        client.close()
    _store = None
