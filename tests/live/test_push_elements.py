"""A change reaches a page as the elements it touched; a page that missed a change, a reconnect and an
undo get the whole table."""

from __future__ import annotations

import json

import pytest
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer

from combat import live, services
from combat.models import Battle
from tests.sockets import at_page, connect, frames, gm_skips
from tests.table import SECRET_HP

pytestmark = pytest.mark.django_db(transaction=True)

WHOLE = ('id="board"', 'id="tracker"', 'id="log"')


def _version(battle) -> tuple[int, int]:
    return Battle.objects.filter(pk=battle.pk).values_list("seq", "version").get()


def _undo(battle, gm):
    battle.refresh_from_db()
    result = services.undo(battle.pk, gm, battle.seq)
    assert result.ok, result.reason
    return result.seq


async def test_a_change_goes_as_its_elements_and_an_undo_as_the_whole_table(live_table):
    users, _, battle, cookies = live_table
    gm, player = await connect(battle.pk, cookies["gm"]), await connect(battle.pk, cookies["player"])
    try:
        for comm in (gm, player):
            await frames(comm, 0.2)
            await at_page(comm, battle.pk)
        seq = await database_sync_to_async(gm_skips)(battle, users["gm"])
        for comm in (gm, player):
            html = "".join(await frames(comm, 2.0, until='id="battle-seq"'))
            assert html.startswith("<!--delta ") and f'data-seq="{seq}"' in html
            assert 'id="tracker-head"' in html and "skips" in html  # the head and the new log line
            assert not any(region in html for region in WHOLE), "a whole region for a turn skipped"
        seq = await database_sync_to_async(_undo)(battle, users["gm"])
        for comm in (gm, player):
            html = "".join(await frames(comm, 2.0, until='id="battle-seq"'))
            assert not html.startswith("<!--delta ") and f'data-seq="{seq}"' in html
            assert all(region in html for region in WHOLE)
    finally:
        for comm in (gm, player):
            await comm.disconnect()


async def test_a_page_that_missed_a_change_gets_the_whole_table(live_table):
    users, _, battle, cookies = live_table
    player = await connect(battle.pk, cookies["player"])
    try:
        await frames(player, 0.2)
        await at_page(player, battle.pk)
        seq, version = await database_sync_to_async(_version)(battle)
        # A change whose elements apply to a version this page never had (the one before it was lost).
        await get_channel_layer().group_send(
            live.battle_group(battle.pk),
            {
                "type": live.PUSH,
                "seq": seq + 2,
                "version": version + 2,
                "base": version + 1,
                "gm": "<!--delta--><p id='gm-only'>GM</p>",
                "pl": f"<!--delta {version + 1} {version + 2}--><p id='partial'>elements</p>",
                "users": {},
            },
        )
        html = "".join(await frames(player, 2.0, until='id="battle-seq"'))
        assert "partial" not in html and all(region in html for region in WHOLE)
        assert (
            f'data-seq="{seq}"' in html and str(SECRET_HP) not in html
        )  # the table as it is, as they see it
    finally:
        await player.disconnect()


async def test_a_reconnect_or_a_page_behind_gets_the_whole_table(live_table):
    users, _, battle, cookies = live_table
    player = await connect(battle.pk, cookies["player"])
    try:
        await frames(player, 0.2)
        seq, version = await database_sync_to_async(_version)(battle)
        await player.send_to(text_data=json.dumps({"type": "sync", "seq": seq - 1, "version": version - 1}))
        behind = "".join(await frames(player, 2.0, until='id="battle-seq"'))
        assert all(region in behind for region in WHOLE)
        await frames(player, 0.3)
        await player.send_to(
            text_data=json.dumps({"type": "sync", "seq": seq, "version": version, "reconnect": True})
        )
        again = "".join(await frames(player, 2.0, until='id="battle-seq"'))
        assert all(region in again for region in WHOLE)
    finally:
        await player.disconnect()
