"""An open socket holds no more rights than its user has now.

Access (session, membership, role) is re-checked on every inbound message and
before every push, from a per-socket cache that a message on the account's
group invalidates: a role change re-renders the page for the new role at
once; logout and removal close the socket with 4403. One account cannot
knock the other seats off a table: presence costs one message per join, a
user keeps at most ``SOCKETS_PER_USER`` sockets per battle, an address at
most ``SOCKETS_PER_IP``, and a full or slow channel never kills a consumer.
"""

from __future__ import annotations

import asyncio
import json

import pytest
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from django.test import Client

from combat import consumers, live, sockets
from tests.sockets import closed as _closed
from tests.sockets import communicator, connect, frames, gm_skips, presence_lines
from tests.table import SECRET_HP
from vtt.models import Membership

#: How long a test waits for a socket closed by a message (a removal, a logout): a wait, not a bound. With
#: the periodic re-check pushed out of reach, only that message can close it.
PUSHED = 10.0

pytestmark = pytest.mark.django_db(transaction=True)


def _set_role(campaign, user, role):
    membership = Membership.objects.get(campaign=campaign, user=user)
    membership.role = role
    membership.save()


async def test_a_demoted_gms_next_sync_and_next_push_carry_player_regions_only(live_table):
    users, campaign, battle, cookies = live_table
    gm = await connect(battle.pk, cookies["gm"])
    try:
        await gm.send_to(text_data=json.dumps({"type": "sync", "seq": 0, "reconnect": True}))
        before = "".join(await frames(gm, 1.5, until='id="battle-seq"'))
        assert 'id="gm-panel"' in before and f"HP {SECRET_HP} of {SECRET_HP}" in before  # the GM table
        await database_sync_to_async(_set_role)(campaign, users["gm"], "player")
        # The role change re-renders this socket's page at once, for the new role.
        at_once = "".join(await frames(gm, 1.5, until='id="battle-seq"'))
        assert 'id="board"' in at_once and str(SECRET_HP) not in at_once
        assert '<section id="gm-panel" hx-swap-oob="true" hidden></section>' in at_once
        assert '<div id="gm-head" hx-swap-oob="true" class="gm-head"></div>' in at_once  # no End battle
        await asyncio.sleep(consumers.SYNC_EVERY)
        # The next sync...
        await gm.send_to(text_data=json.dumps({"type": "sync", "seq": 0, "reconnect": True}))
        synced = "".join(await frames(gm, 1.5, until='id="battle-seq"'))
        assert 'id="board"' in synced and str(SECRET_HP) not in synced and "GM controls" not in synced
        # ...and the next push carry player regions only (another GM acts).
        await database_sync_to_async(Membership.objects.create)(
            campaign=campaign, user=users["outsider"], role="gm"
        )
        await database_sync_to_async(gm_skips)(battle, users["outsider"])
        pushed = "".join(await frames(gm, 2.0, until='id="battle-seq"'))
        assert 'id="battle-seq"' in pushed and str(SECRET_HP) not in pushed and "GM controls" not in pushed
        assert 'id="gm-quick"' not in pushed and 'id="gm-tactics"' not in pushed and 'id="tm-' not in pushed
        assert 'aria-haspopup="dialog"' not in pushed  # no token that opens the GM's menu
    finally:
        await gm.disconnect()


async def test_a_promoted_player_gets_the_gm_regions_at_once(live_table):
    users, campaign, battle, cookies = live_table
    player = await connect(battle.pk, cookies["observer"])
    try:
        await presence_lines(player, 0.2)
        await database_sync_to_async(_set_role)(campaign, users["observer"], "gm")
        html = "".join(await frames(player, 1.5, until='id="battle-seq"'))
        assert "GM controls" in html and f"HP {SECRET_HP} of {SECRET_HP}" in html
    finally:
        await player.disconnect()


async def test_removal_closes_the_members_sockets_at_once(live_table, monkeypatch):
    users, campaign, battle, cookies = live_table
    player = await connect(battle.pk, cookies["player"])
    gm = await connect(battle.pk, cookies["gm"])
    try:
        await presence_lines(player, 0.2)
        monkeypatch.setattr(consumers, "RECHECK_SECONDS", 3600.0)  # only the removal's message can close it
        await database_sync_to_async(campaign.memberships.filter(user=users["player"]).delete)()
        closed = await _closed(player, PUSHED)
        assert closed["code"] == 4403
        # The GM's socket is untouched and hears that the player left.
        left = await presence_lines(gm, 0.5)
        assert {"presence": {str(users["player"].pk): False}} in left
    finally:
        await player.disconnect()
        await gm.disconnect()


async def test_logout_closes_that_sessions_sockets_at_once(live_table, monkeypatch):
    users, _, battle, cookies = live_table
    first = await connect(battle.pk, cookies["player"])
    other_device = Client()
    await database_sync_to_async(other_device.force_login)(users["player"])
    second = await connect(battle.pk, other_device.cookies["sessionid"].value)
    try:
        await presence_lines(first, 0.2)
        browser = Client()
        browser.cookies["sessionid"] = cookies["player"]
        monkeypatch.setattr(consumers, "RECHECK_SECONDS", 3600.0)  # only the logout's message can close it
        response = await database_sync_to_async(browser.post)("/accounts/logout/")
        assert response.status_code == 302
        closed = await _closed(first, PUSHED)
        assert closed["code"] == 4403
        # The same user's other device keeps its session and its socket.
        await second.send_to(text_data=json.dumps({"type": "sync", "seq": 0, "reconnect": True}))
        assert 'id="board"' in "".join(await frames(second, 1.5, until='id="battle-seq"'))
    finally:
        await first.disconnect()
        await second.disconnect()


async def test_a_socket_whose_session_ended_is_refused_on_its_next_message(live_table, monkeypatch):
    """Even without the account message (a lost notification), the next message re-checks the session."""
    users, _, battle, cookies = live_table
    player = await connect(battle.pk, cookies["player"])
    try:
        await presence_lines(player, 0.2)
        monkeypatch.setattr(sockets, "notify", lambda *a, **k: None)
        from django.contrib.sessions.models import Session

        await database_sync_to_async(Session.objects.filter(session_key=cookies["player"]).delete)()
        monkeypatch.setattr(consumers, "RECHECK_SECONDS", 0.0)
        await player.send_to(text_data=json.dumps({"type": "sync", "seq": 0, "reconnect": True}))
        assert (await _closed(player, 1.0))["code"] == 4403
    finally:
        await player.disconnect()


async def test_300_sockets_from_one_user_leave_the_other_seats_connected_and_served(live_table):
    users, _, battle, cookies = live_table
    gm = await connect(battle.pk, cookies["gm"])
    player = await connect(battle.pk, cookies["player"])
    await presence_lines(gm, 0.2)
    await presence_lines(player, 0.2)
    flood = []
    try:
        for _ in range(300):
            comm = communicator(battle.pk, cookies["observer"])
            connected, _ = await comm.connect(timeout=10)  # a wait for a loaded machine, not a bound
            assert connected
            flood.append(comm)
        # At most SOCKETS_PER_USER of them are still open: the oldest were closed with a reason.
        await asyncio.sleep(0.3)  # the last "replaced" message reaches its socket
        entries = await sockets.store().entries(battle.pk)
        mine = [ch for ch, (uid, _) in entries.items() if uid == str(users["observer"].pk)]
        assert len(mine) == consumers.SOCKETS_PER_USER
        closed = await _closed(flood[0], 1.0)
        assert closed["code"] == consumers.CLOSE_REPLACED and "too many tabs" in closed["reason"]
        # The other seats heard one presence line for the whole flood, and still get pushes.
        assert len(await presence_lines(gm, 0.5)) <= 1
        await database_sync_to_async(gm_skips)(battle, users["gm"])
        for seat in (gm, player):
            html = "".join(await frames(seat, 5.0, until='id="battle-seq"'))
            assert 'id="board"' in html
        newest = "".join(await frames(flood[-1], 2.0, until='id="battle-seq"'))
        assert 'id="board"' in newest
    finally:
        for comm in (gm, player, *flood):
            await comm.disconnect()


async def test_sockets_over_the_per_address_cap_are_refused(live_table, monkeypatch):
    _, _, battle, cookies = live_table
    monkeypatch.setattr(consumers, "SOCKETS_PER_IP", 3)
    opened = []
    try:
        for name in ("gm", "player", "observer"):
            comm = communicator(battle.pk, cookies[name])
            comm.scope["client"] = ("203.0.113.7", 5000)
            connected, _ = await comm.connect()
            assert connected
            opened.append(comm)
        extra = communicator(battle.pk, cookies["other_player"])
        extra.scope["client"] = ("203.0.113.7", 5001)
        connected, _ = await extra.connect()
        assert not connected
        elsewhere = communicator(battle.pk, cookies["other_player"])
        elsewhere.scope["client"] = ("198.51.100.9", 5000)
        connected, _ = await elsewhere.connect()
        assert connected
        opened.append(elsewhere)
        # A socket that closes frees its place.
        await opened.pop(0).disconnect()
        again = communicator(battle.pk, cookies["gm"])
        again.scope["client"] = ("203.0.113.7", 5002)
        connected, _ = await again.connect()
        assert connected
        opened.append(again)
    finally:
        for comm in opened:
            await comm.disconnect()


async def test_a_full_channel_never_kills_the_sender(live_table, monkeypatch):
    users, _, battle, cookies = live_table
    layer = get_channel_layer()
    monkeypatch.setattr(
        layer, "capacity", 3, raising=False
    )  # the in-memory layer; Redis pub/sub has no capacity
    monkeypatch.setattr(consumers, "SOCKETS_PER_USER", 1)
    gm = await connect(battle.pk, cookies["gm"])
    old = await connect(battle.pk, cookies["player"])
    try:
        await presence_lines(gm, 0.2)
        await presence_lines(old, 0.2)
        (old_channel,) = [
            ch
            for ch, (uid, _) in (await sockets.store().entries(battle.pk)).items()
            if uid == str(users["player"].pk)
        ]
        for _ in range(3):  # the old socket's queue is full
            await layer.send(old_channel, {"type": "presence.update", "user": "0", "online": True})
        # The new socket's "you are replaced" message to the old one hits ChannelFull: the new one lives on.
        new = await connect(battle.pk, cookies["player"])
        try:
            await database_sync_to_async(gm_skips)(battle, users["gm"])
            for seat in (gm, new):
                assert 'id="board"' in "".join(await frames(seat, 3.0, until='id="battle-seq"'))
        finally:
            await new.disconnect()
    finally:
        await gm.disconnect()
        await old.disconnect()


async def test_a_client_too_slow_to_follow_is_dropped_and_the_others_are_not(live_table, monkeypatch):
    users, _, battle, cookies = live_table
    monkeypatch.setattr(consumers, "SLOW_BACKLOG", 2)
    # The player's socket is slow to take each frame: pushes pile up in its channel while it sends.
    send = consumers.BattleConsumer.send_text

    async def slow_send(self, *args, **kwargs):
        if self.user_id == str(users["player"].pk):
            await asyncio.sleep(0.3)
        return await send(self, *args, **kwargs)

    monkeypatch.setattr(consumers.BattleConsumer, "send_text", slow_send)
    layer = get_channel_layer()
    gm = await connect(battle.pk, cookies["gm"])
    slow = await connect(battle.pk, cookies["player"])
    try:
        await presence_lines(gm, 0.2)
        await presence_lines(slow, 0.2)
        push = {"type": "battle.push", "seq": 0, "gm": "", "pl": "<i>x</i>", "users": {}}
        for _ in range(6):  # the battle's group: this process's one subscription hands them to each socket
            await layer.group_send(live.battle_group(battle.pk), push)
        assert (await _closed(slow, 2.0))["code"] == consumers.CLOSE_SLOW
        await database_sync_to_async(gm_skips)(battle, users["gm"])
        assert 'id="board"' in "".join(await frames(gm, 3.0, until='id="battle-seq"'))
    finally:
        await gm.disconnect()
        await slow.disconnect()


async def test_point_1_forged_x_forwarded_for_values_do_not_dodge_the_socket_cap(
    live_table, monkeypatch, settings
):
    """Behind one trusted proxy, the address is the hop the proxy wrote, whatever the browser added."""
    _, _, battle, cookies = live_table
    settings.TRUSTED_PROXY_COUNT = 1
    monkeypatch.setattr(consumers, "SOCKETS_PER_IP", 3)

    def through_proxy(cookie: str, client: str, forged: str):
        comm = communicator(battle.pk, cookie)
        comm.scope["client"] = ("10.0.0.2", 40000)  # the proxy
        comm.scope["headers"].append((b"x-forwarded-for", f"{forged}, {client}".encode()))
        return comm

    opened = []
    try:
        for i, name in enumerate(("gm", "player", "observer")):
            comm = through_proxy(cookies[name], "203.0.113.7", f"198.18.0.{i}")
            assert (await comm.connect())[0]
            opened.append(comm)
        extra = through_proxy(cookies["other_player"], "203.0.113.7", "198.18.0.99")
        assert not (await extra.connect())[0]
        await extra.disconnect()
        # Another real client behind the same proxy is not affected.
        elsewhere = through_proxy(cookies["other_player"], "198.51.100.9", "203.0.113.7")
        assert (await elsewhere.connect())[0]
        opened.append(elsewhere)
    finally:
        for comm in opened:
            await comm.disconnect()
