"""One subscription per battle per server process; the process's sockets take each message from it.

Channels gives every socket its own channel in the battle's group: a change then costs, for each
socket of the table, a queue put, a receive task and ``asyncio.wait``, and (on the Redis layer) a
msgpack decode of the whole message, before the socket's handler picks its few regions. Here each
process joins the battle's group once, with a channel of its own, and one reader task hands every
message it receives to the process's open sockets of that battle: decoded once, no per-socket
receive machinery.

A socket takes its messages in an outbox of its own, drained by one task of the socket
(``Outbox``), so a client slow to take its frames delays only itself; an outbox that grows past the
socket's limit tells the socket it is too slow (see ``combat.consumers``). Messages sent to one
socket's own channel (its user's and account's groups, ``socket.replaced``) still come through
Channels as before.
"""

from __future__ import annotations

import asyncio
import logging
import weakref
from collections import deque
from typing import Any, Protocol

log = logging.getLogger(__name__)


class Member(Protocol):
    """A socket that takes a battle's messages: ``offer`` must not block (it queues)."""

    def offer(self, message: dict[str, Any]) -> None: ...


class GroupReader:
    """This process's subscription to one group, and the sockets it hands each message to."""

    def __init__(self, layer: Any, group: str) -> None:
        self.layer = layer
        self.group = group
        self.members: set[Member] = set()
        self.channel: str | None = None
        self.started: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        try:
            self.channel = await self.layer.new_channel("fanout.")
            await self.layer.group_add(self.group, self.channel)
            self.task = asyncio.get_running_loop().create_task(self._read())
        except BaseException as exc:  # the joiners hear why (and retry with a new reader)
            if not self.started.done():
                self.started.set_exception(exc)
            raise
        if not self.started.done():
            self.started.set_result(None)

    async def _read(self) -> None:
        assert self.channel is not None
        while True:
            message = await self.layer.receive(self.channel)
            for member in tuple(self.members):
                try:
                    member.offer(message)
                except Exception:  # one socket's failure must not cost the others their update
                    log.exception("a socket of %s could not take a message", self.group)

    async def stop(self) -> None:
        try:
            await asyncio.shield(self.started)
        except Exception:
            return
        if self.task is not None:
            self.task.cancel()
            await asyncio.wait([self.task])  # its end, without raising its cancellation here
        if self.channel is not None:
            await self.layer.group_discard(self.group, self.channel)


# Per event loop (a server has one; tests run one per test): (layer id, group) -> reader.
_readers: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[tuple[int, str], GroupReader]] = (
    weakref.WeakKeyDictionary()
)


def _registry() -> dict[tuple[int, str], GroupReader]:
    loop = asyncio.get_running_loop()
    registry = _readers.get(loop)
    if registry is None:
        registry = _readers[loop] = {}
    return registry


async def join(layer: Any, group: str, member: Member) -> None:
    """Hand ``member`` every message sent to ``group`` from now on (subscribing this process once)."""
    registry = _registry()
    key = (id(layer), group)
    reader = registry.get(key)
    if reader is None:
        reader = registry[key] = GroupReader(layer, group)
        asyncio.get_running_loop().create_task(reader.start())
    reader.members.add(member)
    try:
        await asyncio.shield(reader.started)
    except Exception:
        reader.members.discard(member)
        if registry.get(key) is reader:
            del registry[key]
        raise


async def leave(layer: Any, group: str, member: Member) -> None:
    """Stop handing messages to ``member``; the last socket of the group on this process unsubscribes."""
    registry = _registry()
    key = (id(layer), group)
    reader = registry.get(key)
    if reader is None:
        return
    reader.members.discard(member)
    if not reader.members:
        del registry[key]
        await reader.stop()


def members(layer: Any, group: str) -> int:
    """How many of this process's sockets take the group's messages (tests, diagnostics)."""
    reader = _registry().get((id(layer), group))
    return len(reader.members) if reader is not None else 0


class Outbox:
    """A socket's queue of group messages and the one task that hands them to its handlers in order."""

    def __init__(self, handle: Any) -> None:
        self.handle = handle  # async callable taking one message
        self.queue: deque[dict[str, Any]] = deque()
        self.closed = False
        self._wake: asyncio.Future[None] | None = None
        self.task: asyncio.Task[None] | None = None  # ``start`` begins the sending

    def start(self) -> None:
        """Begin handing messages to the handler, those queued so far first.

        A socket joins its battle's subscription before its handshake is accepted (so no change is
        missed between the two) and starts its outbox once accepted: a frame sent before the
        accept is refused by the server ("Socket has not been accepted").
        """
        if self.task is None and not self.closed:
            self.task = asyncio.get_running_loop().create_task(self._drain())

    def put(self, message: dict[str, Any]) -> int:
        """Queue one message; returns how many are waiting (the one being handled not counted)."""
        if self.closed:
            return 0
        self.queue.append(message)
        wake = self._wake
        if wake is not None and not wake.done():
            wake.set_result(None)
        return len(self.queue)

    def clear(self) -> None:
        self.queue.clear()

    def close(self) -> None:
        """Drop what waits and stop (at once, or after the message being handled when called from it)."""
        self.closed = True
        self.queue.clear()
        if self.task is not None and self.task is not asyncio.current_task():
            self.task.cancel()

    async def _drain(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            while self.queue and not self.closed:
                message = self.queue.popleft()
                try:
                    await self.handle(message)
                except asyncio.CancelledError:
                    raise
                except Exception:
                    log.exception("a socket failed to handle a %s message", message.get("type"))
            if self.closed:
                return
            self._wake = loop.create_future()
            await self._wake
            self._wake = None
