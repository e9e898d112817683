"""A page never goes back to an older table.

Two changes on one battle commit in order, but each renders its push in its own request thread (or
server process) and publishes when that render is done, so the pushes can arrive the other way
round. Every render carries the battle's version, which every write raises (an undo too, where the
seq goes down); a socket sends nothing older than what it sent last, and a process's copy of the
log is reused only for the version it was read at.
"""

from __future__ import annotations

import asyncio
import json

import pytest
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer

from combat import live, services
from combat.models import Battle
from combat.table import WINDOWS, clear_caches, load_table
from tests.sockets import connect, frames, gm_skips, presence_lines, received
from tests.table import table


def _set_hp(battle_id: int, gm, name: str, hp: int) -> services.Result:
    battle = Battle.objects.get(pk=battle_id)
    state = services.load_state(battle)
    who = next(c for c in state.combatants.values() if c.name == name)
    action = {"kind": "gm.set_hp", "params": {"combatant": who.id, "hp": hp}}
    result = services.gm_override(battle_id, gm, action, battle.seq)
    assert result.ok, result.reason
    return result


def _version(battle_id: int) -> int:
    return Battle.objects.values_list("version", flat=True).get(pk=battle_id)


@pytest.mark.django_db
def test_every_write_raises_the_version_and_an_undo_does_not_lower_it():
    users, _, battle = table()
    versions = [_version(battle.pk)]
    seqs = [_set_hp(battle.pk, users["gm"], "Goblin", 3).seq]
    versions.append(_version(battle.pk))
    undone = services.undo(battle.pk, users["gm"], seqs[0])
    assert undone.ok and undone.seq < seqs[0]  # the seq goes back...
    versions.append(_version(battle.pk))
    seqs.append(_set_hp(battle.pk, users["gm"], "Goblin", 5).seq)
    versions.append(_version(battle.pk))
    assert seqs[0] == seqs[1]  # ...and a new change reaches the same seq again
    assert versions == sorted(set(versions))  # while the version only ever went up


@pytest.mark.django_db
def test_a_process_never_shows_a_log_copy_read_before_an_undo_and_a_new_change():
    users, _, battle = table()
    clear_caches()
    _set_hp(battle.pk, users["gm"], "Goblin", 3)
    load_table(battle.pk)  # this process reads the log with the first change in it
    copy = WINDOWS[battle.pk]
    # On another process: the GM undoes it and makes a different change, which reaches the same seq.
    services.undo(battle.pk, users["gm"])
    _set_hp(battle.pk, users["gm"], "Goblin", 5)
    WINDOWS[battle.pk] = copy  # this process still holds its copy from before
    fresh = Battle.objects.get(pk=battle.pk)
    assert fresh.seq == copy[1]
    for loaded in (
        load_table(battle.pk),  # a socket's fresh render
        load_table(battle.pk, fresh, new_events=[]),  # a push handed the row it wrote
    ):
        assert loaded is not None
        newest = loaded.events[0]
        assert newest[0] == fresh.seq and newest[2]["hp"] == 5, newest
        WINDOWS[battle.pk] = copy


@pytest.mark.django_db(transaction=True)
async def test_a_push_that_arrives_after_a_newer_one_is_not_sent(live_table, monkeypatch):
    users, _, battle, cookies = live_table
    published: list[dict] = []
    monkeypatch.setattr(live, "publish", lambda group, message: published.append(message))
    first = await database_sync_to_async(gm_skips)(battle, users["gm"])
    second = await database_sync_to_async(gm_skips)(battle, users["gm"])
    assert [m["seq"] for m in published] == [first, second]
    assert published[0]["version"] < published[1]["version"]
    monkeypatch.undo()

    gm = await connect(battle.pk, cookies["gm"])
    player = await connect(battle.pk, cookies["player"])
    try:
        await presence_lines(gm, 0.2)
        await presence_lines(player, 0.2)
        layer = get_channel_layer()
        # The second change's render finished first: its push goes out before the first one's.
        for message in (published[1], published[0]):
            await layer.group_send(live.battle_group(battle.pk), message)
        for seat in (gm, player):
            got = "".join(await frames(seat, 1.0))
            assert f'data-seq="{second}"' in got
            assert f'data-seq="{first}"' not in got  # the older table never replaced the newer
    finally:
        await gm.disconnect()
        await player.disconnect()


@pytest.mark.django_db(transaction=True)
async def test_a_page_at_the_same_seq_but_an_older_version_gets_the_table_as_it_is(live_table):
    users, _, battle, cookies = live_table
    page = await database_sync_to_async(_set_hp)(battle.pk, users["gm"], "Goblin", 3)
    page_seq = page.seq
    page_version = await database_sync_to_async(_version)(battle.pk)
    # While the page was loading: an undo and another change, back at the page's seq.
    undone = await database_sync_to_async(services.undo)(battle.pk, users["gm"])
    assert undone.ok
    again = await database_sync_to_async(_set_hp)(battle.pk, users["gm"], "Goblin", 2)
    assert again.seq == page_seq
    now = await database_sync_to_async(_version)(battle.pk)

    gm = await connect(battle.pk, cookies["gm"])
    try:
        await presence_lines(gm, 0.2)
        await gm.send_to(text_data=json.dumps({"type": "sync", "seq": page_seq, "version": now}))
        assert await frames(gm, 0.5) == []  # the page is current: nothing to send
        await gm.send_to(text_data=json.dumps({"type": "sync", "seq": page_seq, "version": page_version}))
        got = "".join(await frames(gm, 2.0, until='id="battle-seq"'))
        assert f'data-version="{now}"' in got
    finally:
        await gm.disconnect()


@pytest.mark.django_db(transaction=True)
async def test_a_message_that_comes_before_the_handshake_is_accepted_waits_for_it(live_table, monkeypatch):
    """A socket joins its battle's subscription before it accepts (no change is missed between the
    two); what comes in that moment (another seat's presence, a push) is sent after the accept. A
    server refuses a frame before it ("Socket has not been accepted"): the socket logged an error."""
    from combat import fanout
    from tests.sockets import communicator

    users, _, battle, cookies = live_table
    real_join = fanout.join
    early = {"type": "presence.update", "user": "someone-else", "online": True}

    async def join_then_a_message(layer, group, member):
        await real_join(layer, group, member)
        member.offer(early)  # another seat's presence, between the join and the accept
        await asyncio.sleep(0.05)  # the socket's outbox has every chance to send it now

    monkeypatch.setattr(fanout, "join", join_then_a_message)
    comm = communicator(battle.pk, cookies["player"])
    try:
        await comm.send_input({"type": "websocket.connect"})
        first = await comm.receive_output(timeout=2)
        assert first["type"] == "websocket.accept", first
        texts = [m async for m in received(comm, 0.5)]
        assert any('"someone-else": true' in t for t in texts), texts  # sent, after the accept
    finally:
        await comm.disconnect()
