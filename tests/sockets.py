"""Websockets in tests: a logged-in session's cookie, a communicator on a battle's socket, and what it receives.

Shared by the live and security tests. The consumers run their database work
in other threads, so tests that open sockets use transactional databases.
"""

from __future__ import annotations

import asyncio
import json
from contextlib import aclosing

from channels.testing import WebsocketCommunicator
from django.test import Client

ORIGIN = (b"origin", b"http://testserver")


def session_cookie(user) -> str:
    client = Client()
    client.force_login(user)
    return client.cookies["sessionid"].value


def application():
    from vtt.asgi import application as app

    return app


def communicator(battle_id: int, cookie: str | None, origin: bytes | None = b"http://testserver"):
    headers = [(b"host", b"testserver")]
    if origin is not None:
        headers.append((b"origin", origin))
    if cookie:
        headers.append((b"cookie", f"sessionid={cookie}".encode()))
    return WebsocketCommunicator(application(), f"/ws/battles/{battle_id}/", headers=headers)


def campaign_socket(campaign_id: int, cookie: str | None):
    """A communicator on a campaign page's socket (not connected yet)."""
    headers = [(b"origin", b"http://testserver"), (b"host", b"testserver")]
    if cookie:
        headers.append((b"cookie", f"sessionid={cookie}".encode()))
    return WebsocketCommunicator(application(), f"/ws/campaigns/{campaign_id}/", headers=headers)


async def received(comm, timeout: float):
    """Text frames as they arrive within ``timeout`` (an async iterator).

    Polls with ``receive_nothing``: a ``receive_from`` that times out would cancel the application.
    """
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while loop.time() < deadline:
        if await comm.receive_nothing(timeout=0.02, interval=0.005):
            continue
        yield await comm.receive_from(timeout=1)


async def frames(comm, timeout: float = 1.0, until: str | None = None) -> list[str]:
    """HTML frames received within ``timeout`` (presence lines skipped); stops early at ``until``."""
    out: list[str] = []
    async with aclosing(received(comm, timeout)) as texts:
        async for text in texts:
            if text.startswith("{") and "presence" in json.loads(text):
                continue
            out.append(text)
            if until is not None and until in text:
                break
    return out


async def presence_lines(comm, timeout: float = 0.5) -> list[dict]:
    out = []
    async with aclosing(received(comm, timeout)) as texts:
        async for text in texts:
            if text.startswith("{"):
                out.append(json.loads(text))
    return out


async def connect(battle_id: int, cookie: str | None):
    """A communicator on the battle's socket, connected (the handshake must succeed)."""
    comm = communicator(battle_id, cookie)
    connected, _ = await comm.connect()
    assert connected
    return comm


def gm_skips(battle, gm) -> int:
    """The GM skips the current turn (a change every seat sees); the battle's new seq."""
    from combat import services

    battle.refresh_from_db()
    result = services.gm_override(battle.pk, gm, {"kind": "gm.skip_turn", "params": {}}, battle.seq)
    assert result.ok, result.reason
    return result.seq


async def at_page(comm, battle_id: int) -> None:
    """Tell the socket its page shows the battle as it is now, as a page does when it opens (changes then
    come as the elements they touched)."""
    from channels.db import database_sync_to_async

    from combat.models import Battle

    seq, version = await database_sync_to_async(
        lambda: Battle.objects.filter(pk=battle_id).values_list("seq", "version").get()
    )()
    await comm.send_to(text_data=json.dumps({"type": "sync", "seq": seq, "version": version}))
    await frames(comm, 0.3)  # nothing comes back: the page is up to date


async def closed(comm, timeout: float) -> dict:
    """The close frame the socket receives within ``timeout`` (HTML or presence frames before it are skipped)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while loop.time() < deadline:
        if await comm.receive_nothing(timeout=0.02, interval=0.005):
            continue
        output = await comm.receive_output(timeout=1)
        if output["type"] == "websocket.close":
            return output
    raise AssertionError(f"the socket was not closed within {timeout} s")
