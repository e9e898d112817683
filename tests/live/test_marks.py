"""Pings and the shared ruler over the battle socket: passed to the other pages with who made them,
never stored, limited per socket, not for observers."""

from __future__ import annotations

import json

import pytest

from combat import marks
from combat.models import BattleEvent
from tests.sockets import connect, presence_lines

pytestmark = pytest.mark.django_db(transaction=True)


async def _marks(comm, timeout=0.6):
    return [line for line in await presence_lines(comm, timeout) if "mark" in line or "notice" in line]


async def test_a_ping_reaches_every_other_page_with_who_pinged(live_table):
    users, campaign, battle, cookies = live_table
    members = [str(u.pk) for u in users.values() if u.username != "outsider"]
    colours = {name: marks.colour(str(users[name].pk), members) for name in ("player", "gm")}
    assert colours["player"] != colours["gm"]
    socks = {
        name: await connect(battle.pk, cookies[name]) for name in ("player", "other_player", "gm", "observer")
    }
    try:
        for comm in socks.values():
            await presence_lines(comm, 0.3)  # the presence lines of the others joining
        await socks["player"].send_to(text_data=json.dumps({"type": "ping", "at": [4, 5]}))
        for name in ("other_player", "gm", "observer"):
            got = await _marks(socks[name])
            # Signed with the player's character at the table (not their user name), in their colour.
            assert got == [
                {
                    "mark": {
                        "kind": "ping",
                        "at": [4, 5],
                        "by": "Ayla",
                        "user": str(users["player"].pk),
                        "colour": colours["player"],
                    }
                }
            ]
        assert await _marks(socks["player"]) == []  # its own page drew it already
        await socks["gm"].send_to(text_data=json.dumps({"type": "ruler", "from": [0, 0], "to": [3, 5]}))
        got = await _marks(socks["player"])
        for name in ("other_player", "observer"):
            assert (await _marks(socks[name]))[0]["mark"]["kind"] == "ruler"
        assert got[0]["mark"] == {
            "kind": "ruler",
            "from": [0, 0],
            "to": [3, 5],
            "by": "gm",  # no character at the table: their display name (here their user name)
            "user": str(users["gm"].pk),
            "colour": colours["gm"],
        }
        # Off the board, malformed, or from an observer: nothing is passed on.
        for text in ('{"type": "ping", "at": [10, 0]}', '{"type": "ping", "at": "4,5"}', "[1, 2]", "{"):
            await socks["player"].send_to(text_data=text)
        await socks["observer"].send_to(text_data=json.dumps({"type": "ping", "at": [1, 1]}))
        assert await _marks(socks["gm"]) == []
        assert await _marks(socks["observer"]) == [
            {"notice": "Observers watch: pings and the ruler are the players'."}
        ]
        # A burst, then a clear message instead of more pings.
        for _ in range(5):
            await socks["other_player"].send_to(text_data=json.dumps({"type": "ping", "at": [1, 1]}))
        assert len(await _marks(socks["gm"])) == 3
        notices = await _marks(socks["other_player"])
        assert notices and all(
            n == {"notice": "Too many pings: wait a moment before pinging again."} for n in notices
        )
    finally:
        for comm in socks.values():
            await comm.disconnect()
    assert not await BattleEvent.objects.filter(battle_id=battle.pk, type__startswith="ping").aexists()


async def test_a_ping_is_signed_with_a_display_name_when_no_character_of_theirs_is_in_view(live_table):
    users, _, battle, cookies = live_table
    gm = users["gm"]
    gm.first_name = "Morgan"
    await gm.asave()
    socks = {name: await connect(battle.pk, cookies[name]) for name in ("gm", "other_player")}
    try:
        for comm in socks.values():
            await presence_lines(comm, 0.3)
        await socks["gm"].send_to(text_data=json.dumps({"type": "ping", "at": [1, 1]}))
        got = await _marks(socks["other_player"])
        assert got[0]["mark"]["by"] == "Morgan"
        await socks["other_player"].send_to(text_data=json.dumps({"type": "ping", "at": [2, 2]}))
        assert (await _marks(socks["gm"]))[0]["mark"]["by"] == "Bram"
    finally:
        for comm in socks.values():
            await comm.disconnect()
