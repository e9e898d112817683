"""The battle websocket: who may connect, what each seat receives after an action."""

from __future__ import annotations

import asyncio
import json

import pytest
from channels.db import database_sync_to_async

from combat import consumers, services
from tests.sockets import communicator, connect, frames, gm_skips, presence_lines
from tests.table import SECRET_HP, current
from vtt import sockets

pytestmark = pytest.mark.django_db(transaction=True)


def _fire_bolt(battle, user):
    """Ayla (the player's Mage, first in initiative) casts Fire Bolt at the Goblin."""
    actor = current(battle)
    assert actor.name == "Ayla"
    goblin = next(c for c in services.load_state(battle).combatants.values() if c.name == "Goblin")
    result = services.submit_action(
        battle.pk,
        user,
        {"kind": "ability", "actor": actor.id, "params": {"ability": "fire_bolt", "targets": [goblin.id]}},
        battle.seq,
        "tok-1",
    )
    assert result.ok, result.reason
    return result


async def test_members_receive_the_pushed_regions_after_an_action(live_table):
    users, _, battle, cookies = live_table
    seats = {
        name: await connect(battle.pk, cookies[name]) for name in ("gm", "player", "other_player", "observer")
    }
    try:
        for comm in seats.values():
            await frames(comm, 0.2)  # presence lines
        result = await database_sync_to_async(_fire_bolt)(battle, users["player"])
        got = {
            name: "".join(await frames(comm, 2.0, until='id="battle-seq"')) for name, comm in seats.items()
        }
        for name, html in got.items():
            for region in ('id="board"', 'id="tracker"', 'id="log"', 'id="battle-seq"'):
                assert region in html, (name, region)
            assert f'data-seq="{result.seq}"' in html, name
            assert "Fire Bolt" in html, name
        # The GM gets the GM panel; players never do.
        assert 'id="gm-panel"' in got["gm"]
        assert 'id="gm-panel"' not in got["player"] and 'id="gm-panel"' not in got["observer"]
        # The acting player's own regions (action panel, sheet) come on their own group.
        own = "".join(await frames(seats["player"], 1.0, until='id="sheet"')) + got["player"]
        assert 'id="actions"' in own and 'id="sheet"' in own
        # A socket that has not said where its page stands gets the whole table, as that viewer sees
        # it: the observer's action panel holds no form.
        assert "You are watching." in got["observer"] and "act-form" not in got["observer"]
    finally:
        for comm in seats.values():
            await comm.disconnect()


async def test_a_players_frames_never_contain_gm_only_values(live_table):
    users, _, battle, cookies = live_table
    gm = await connect(battle.pk, cookies["gm"])
    player = await connect(battle.pk, cookies["player"])
    try:
        await database_sync_to_async(_fire_bolt)(battle, users["player"])
        await database_sync_to_async(battle.refresh_from_db)()
        gm_html = "".join(await frames(gm, 1.5))
        player_html = "".join(await frames(player, 1.5))
        # The Goblin's exact HP (max 4321, now a little less) is GM-only while the campaign hides enemy HP.
        now = next(c.hp for c in services.load_state(battle).combatants.values() if c.name == "Goblin")
        assert 4000 < now < SECRET_HP
        assert str(SECRET_HP) in gm_html and str(now) in gm_html
        assert player_html and str(SECRET_HP) not in player_html and str(now) not in player_html
        # A reconnecting player's full render is the player view too.
        await player.send_to(text_data=json.dumps({"type": "sync", "seq": 0, "reconnect": True}))
        fresh = "".join(await frames(player, 1.5, until='id="battle-seq"'))
        assert 'id="board"' in fresh and str(SECRET_HP) not in fresh
    finally:
        await gm.disconnect()
        await player.disconnect()


@pytest.mark.parametrize("who", ["outsider", None])
async def test_non_members_and_anonymous_sockets_are_refused(live_table, who):
    _, _, battle, cookies = live_table
    comm = communicator(battle.pk, cookies[who] if who else None)
    connected, _ = await comm.connect()
    assert not connected
    await comm.disconnect()


async def test_a_foreign_origin_is_refused(live_table):
    _, _, battle, cookies = live_table
    comm = communicator(battle.pk, cookies["gm"], origin=b"http://evil.example")
    connected, _ = await comm.connect()
    assert not connected
    await comm.disconnect()
    comm = communicator(battle.pk, cookies["gm"], origin=None)
    connected, _ = await comm.connect()
    assert not connected
    await comm.disconnect()


async def test_a_battle_that_does_not_exist_is_refused(live_table):
    _, _, _, cookies = live_table
    comm = communicator(999999, cookies["gm"])
    connected, _ = await comm.connect()
    assert not connected
    await comm.disconnect()


async def test_reconnecting_behind_the_seq_brings_every_region(live_table):
    users, _, battle, cookies = live_table
    await database_sync_to_async(_fire_bolt)(battle, users["player"])
    comm = await connect(battle.pk, cookies["player"])
    try:
        await comm.send_to(text_data=json.dumps({"type": "sync", "seq": battle.seq, "reconnect": False}))
        html = "".join(await frames(comm, 1.5, until='id="battle-seq"'))
        for region in ('id="board"', 'id="tracker"', 'id="log"', 'id="actions"', 'id="prompt"', 'id="sheet"'):
            assert region in html
        # Asking again at once is answered when the window opens (one full render per socket per
        # SYNC_EVERY), and several asks meanwhile get one render...
        for _ in range(3):
            await comm.send_to(text_data=json.dumps({"type": "sync", "seq": 0, "reconnect": True}))
        again = "".join(await frames(comm, 1.5, until='id="battle-seq"'))
        assert 'id="board"' in again and again.count('id="battle-seq"') == 1
        assert await frames(comm, 2 * consumers.SYNC_EVERY) == []
        # ...and a page that is up to date gets nothing.
        await asyncio.sleep(consumers.SYNC_EVERY)
        fresh = await database_sync_to_async(lambda: type(battle).objects.get(pk=battle.pk).seq)()
        await comm.send_to(text_data=json.dumps({"type": "sync", "seq": fresh, "reconnect": False}))
        assert await frames(comm, 0.5) == []
        # Garbage is ignored, the socket stays open.
        await comm.send_to(text_data="not json")
        await comm.send_to(text_data=json.dumps({"type": "sync", "seq": "x" * 5000}))
        assert await frames(comm, 0.3) == []
    finally:
        await comm.disconnect()


async def test_presence_is_announced_to_the_table(live_table):
    users, _, battle, cookies = live_table
    gm = await connect(battle.pk, cookies["gm"])
    try:
        await presence_lines(gm, 0.2)
        player = await connect(battle.pk, cookies["player"])
        joined = await presence_lines(gm, 0.5)
        assert {"presence": {str(users["player"].pk): True}} in joined
        # The newcomer learns who was already there, in one line.
        here = await presence_lines(player, 0.5)
        assert here[0]["presence"][str(users["gm"].pk)] is True
        await player.disconnect()
        left = await presence_lines(gm, 0.5)
        assert {"presence": {str(users["player"].pk): False}} in left
    finally:
        await gm.disconnect()


async def test_a_member_removed_from_the_campaign_stops_receiving_the_table(live_table, monkeypatch):
    """Even when the account message is lost, the push re-checks once RECHECK_SECONDS have passed."""
    users, campaign, battle, cookies = live_table
    player = await connect(battle.pk, cookies["player"])
    try:
        await frames(player, 0.2)
        monkeypatch.setattr(sockets, "notify", lambda *a, **k: None)
        await database_sync_to_async(campaign.memberships.filter(user=users["player"]).delete)()
        monkeypatch.setattr(sockets, "RECHECK_SECONDS", 0.0)
        await database_sync_to_async(gm_skips)(battle, users["gm"])
        output = await player.receive_output(timeout=2)
        assert output["type"] == "websocket.close" and output["code"] == 4403
    finally:
        await player.disconnect()


async def test_a_push_is_forwarded_without_a_thread_hop(live_table, monkeypatch):
    """Channels' dispatch would close stale connections in a worker thread before every message; ours goes straight on."""
    import channels.consumer
    from channels.layers import get_channel_layer

    users, _, battle, cookies = live_table
    comm = await connect(battle.pk, cookies["observer"])
    try:
        await frames(comm, 0.2)  # presence lines
        hops = []

        async def counted():
            hops.append(1)

        monkeypatch.setattr(channels.consumer, "aclose_old_connections", counted)
        message = {
            "type": "battle.push",
            "seq": 99,
            "gm": "<p>gm</p>",
            "pl": "<p id='x'>pushed</p>",
            "users": {},
        }
        await get_channel_layer().group_send(f"battle-{battle.pk}", message)
        assert await frames(comm, 1.0, until="pushed") == ["<p id='x'>pushed</p>"]
        assert hops == []
    finally:
        await comm.disconnect()
