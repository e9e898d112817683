"""A battle's messages reach a process's sockets through one subscription (``combat.fanout``).

Each server process joins a battle's group once, whatever the number of its sockets on that
battle; every socket still gets every push, in order, and only its own bytes; the last socket
to leave takes the subscription with it; a socket's fresh render never lands after a newer push.
"""

from __future__ import annotations

import asyncio
import json
import time

import pytest
from asgiref.sync import sync_to_async
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer

from combat import consumers, fanout, live
from tests.sockets import at_page, connect, frames, gm_skips, presence_lines

pytestmark = pytest.mark.django_db(transaction=True)


def _seqs(html: str) -> list[int]:
    """The battle seq of every region set in ``html``, in the order they arrived."""
    marker = 'id="battle-seq" hx-swap-oob="true" data-seq="'
    return [int(part.split('"')[0]) for part in html.split(marker)[1:]]


def _layer_groups(layer) -> dict:
    """The layer's group -> channels of this process (both layers keep them in ``groups``)."""
    inner = getattr(layer, "_get_layer", None)
    groups = (inner() if inner else layer).groups
    return {name: set(channels) for name, channels in groups.items()}


async def test_a_process_joins_a_battles_group_once_and_the_last_socket_leaves_it(live_table):
    users, _, battle, cookies = live_table
    layer = get_channel_layer()
    group = live.battle_group(battle.pk)
    seats = [await connect(battle.pk, cookies[name]) for name in ("gm", "player", "other_player", "observer")]
    try:
        for seat in seats:
            await presence_lines(seat, 0.2)
        assert fanout.members(layer, group) == 4
        battle_groups = [channels for name, channels in _layer_groups(layer).items() if name.endswith(group)]
        # One channel of this process in the battle's group, not one per socket.
        assert len(battle_groups) == 1 and len(battle_groups[0]) == 1
        (reader,) = battle_groups[0]
        assert "fanout." in reader  # the process's reader, not a socket's own channel

        for seat in seats:
            await at_page(seat, battle.pk)
        seq = await database_sync_to_async(gm_skips)(battle, users["gm"])
        got = ["".join(await frames(seat, 2.0, until='id="battle-seq"')) for seat in seats]
        for html in got:
            assert f'data-seq="{seq}"' in html and 'id="tracker-head"' in html
        assert 'aria-haspopup="dialog"' in got[0]  # the GM's bytes (tokens that open a menu)...
        assert all('aria-haspopup="dialog"' not in html for html in got[1:])  # ...to the GM only
        assert 'id="actions"' in got[1] and 'id="actions"' not in got[3]  # a player's own regions
    finally:
        for seat in seats[1:]:
            await seat.disconnect()
    assert fanout.members(layer, group) == 1
    await seats[0].disconnect()
    assert fanout.members(layer, group) == 0
    assert not [name for name in _layer_groups(layer) if name.endswith(group)]


async def test_every_socket_gets_every_push_in_order(live_table):
    users, _, battle, cookies = live_table
    gm = await connect(battle.pk, cookies["gm"])
    player = await connect(battle.pk, cookies["player"])
    try:
        await presence_lines(gm, 0.2)
        await presence_lines(player, 0.2)
        for seat in (gm, player):  # pages that show the battle as it is: each change comes as elements
            await at_page(seat, battle.pk)
        seqs = []
        for _ in range(4):
            seqs.append(await database_sync_to_async(gm_skips)(battle, users["gm"]))
        for seat in (gm, player):
            html = "".join(await frames(seat, 3.0, until=f'data-seq="{seqs[-1]}"'))
            assert _seqs(html) == seqs
    finally:
        await gm.disconnect()
        await player.disconnect()


async def test_a_fresh_render_never_lands_after_a_newer_push(live_table, monkeypatch):
    users, _, battle, cookies = live_table
    # The fresh render is read before the GM's change and sent after it: the push must wait for it.
    loop = asyncio.get_running_loop()
    read = asyncio.Event()
    fresh = consumers._fresh

    def slow_fresh(*args):
        out = fresh(*args)
        loop.call_soon_threadsafe(read.set)
        time.sleep(0.3)
        return out

    monkeypatch.setattr(consumers, "_fresh", slow_fresh)
    gm = await connect(battle.pk, cookies["gm"])
    try:
        await presence_lines(gm, 0.2)
        await gm.send_to(text_data=json.dumps({"type": "sync", "seq": 0, "reconnect": True}))
        await asyncio.wait_for(read.wait(), 2.0)
        before = battle.seq
        # Another thread than the socket's database thread, so the change lands during the slow read.
        seq = await sync_to_async(gm_skips, thread_sensitive=False)(battle, users["gm"])
        html = "".join(await frames(gm, 3.0, until=f'data-seq="{seq}"'))
        assert _seqs(html) == [before, seq]  # the older render first, the push last: the page ends up current
    finally:
        await gm.disconnect()


async def test_a_request_thread_hands_its_push_to_the_servers_loop_without_waiting(monkeypatch):
    from vtt.handlers import SERVER_LOOP

    loop = asyncio.get_running_loop()
    released = asyncio.Event()
    sent: list[tuple[str, dict]] = []

    async def slow_send(group, message):
        await released.wait()  # the loop is busy elsewhere: the publish waits
        sent.append((group, message))

    monkeypatch.setattr(live, "_send", slow_send)

    def request_thread() -> list[tuple[str, dict]]:
        SERVER_LOOP.set(loop)
        live.publish("battle-1", {"type": "battle.push", "seq": 1})
        return list(sent)  # what had been published when publish returned

    try:
        # The publish is held until ``released``: had the thread waited for it, this would never return.
        published = await asyncio.wait_for(sync_to_async(request_thread, thread_sensitive=False)(), 10.0)
        assert published == [] and sent == []  # the thread went on before the publish happened
    finally:
        released.set()
    for _ in range(50):
        if sent:
            break
        await asyncio.sleep(0.01)
    assert sent == [("battle-1", {"type": "battle.push", "seq": 1})]  # and the loop published it


def test_without_a_server_loop_a_push_is_sent_before_publish_returns(monkeypatch):
    sent = []

    async def record(group, message):
        sent.append(group)

    monkeypatch.setattr(live, "_send", record)
    live.publish("battle-2", {"type": "battle.push"})
    assert sent == ["battle-2"]


async def test_a_pushs_frames_skip_the_session_wrappers(live_table, monkeypatch):
    """A push's frames go out past Channels' session wrappers (they act on HTTP responses only)."""
    from channels.sessions import InstanceSessionWrapper

    users, _, battle, cookies = live_table
    gm = await connect(battle.pk, cookies["gm"])
    try:
        await presence_lines(gm, 0.2)
        wrapped: list[str] = []
        real = InstanceSessionWrapper.send

        async def spy(self, message):
            wrapped.append(message["type"])
            return await real(self, message)

        monkeypatch.setattr(InstanceSessionWrapper, "send", spy)
        seq = await database_sync_to_async(gm_skips)(battle, users["gm"])
        html = "".join(await frames(gm, 2.0, until=f'data-seq="{seq}"'))
        assert f'data-seq="{seq}"' in html and 'id="board"' in html
        assert "websocket.send" not in wrapped
    finally:
        await gm.disconnect()


def test_the_embedded_layer_sweeps_expired_entries_at_most_once_a_second(monkeypatch):
    from channels.layers import InMemoryChannelLayer as ChannelsLayer

    from vtt import layers

    sweeps = []
    monkeypatch.setattr(ChannelsLayer, "_clean_expired", lambda self: sweeps.append(1))
    now = [1000.0]  # the layer's clock, moved by the test (not the machine's)
    monkeypatch.setattr(layers.time, "monotonic", lambda: now[0])
    layer = layers.InMemoryChannelLayer()
    for _ in range(100):
        layer._clean_expired()
        now[0] += layers.SWEEP_EVERY / 200
    assert len(sweeps) == 1  # one sweep for a hundred receives within the second...
    now[0] += layers.SWEEP_EVERY
    layer._clean_expired()
    assert len(sweeps) == 2  # ...and the next one once the second has passed


async def test_the_embedded_layer_still_drops_expired_messages():
    from vtt import layers

    layer = layers.InMemoryChannelLayer(expiry=0)
    await layer.send("old.inmemory!x", {"type": "battle.push"})
    layer._swept_at -= layers.SWEEP_EVERY
    await layer.send("new.inmemory!y", {"type": "battle.push"})
    layer._clean_expired()
    assert "old.inmemory!x" not in layer.channels


def test_the_embedded_database_keeps_a_connection_per_thread(settings):
    from vtt.settings import _conn_max_age

    if settings.DATABASES["default"]["ENGINE"].endswith("sqlite3"):
        assert settings.DATABASES["default"]["CONN_MAX_AGE"] is None
    assert _conn_max_age("persistent") is None and _conn_max_age("0") == 0
