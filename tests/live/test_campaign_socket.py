"""The campaign page's websocket: members hear, without a reload, that a battle was created or started."""

from __future__ import annotations

import asyncio

import pytest
from channels.db import database_sync_to_async
from django.test import Client
from django.urls import reverse

from tests.sockets import campaign_socket, frames, session_cookie
from tests.table import table

pytestmark = pytest.mark.django_db(transaction=True)


def _start_as_gm(gm, battle_id: int) -> int:
    client = Client()
    client.force_login(gm)
    return client.post(reverse("battle_start", args=[battle_id]), HTTP_HX_REQUEST="true").status_code


def _new_battle_as_gm(gm, campaign_id: int) -> int:
    client = Client()
    client.force_login(gm)
    return client.post(
        reverse("battle_new", args=[campaign_id]),
        {"name": "Second", "width": "10", "height": "8", "party": "on"},
    ).status_code


async def test_point_5_a_players_campaign_page_hears_that_a_battle_started():
    users, campaign, battle = await database_sync_to_async(table)(start=False)
    cookie = await database_sync_to_async(session_cookie)(users["player"])
    comm = campaign_socket(campaign.pk, cookie)
    connected, _ = await comm.connect()
    assert connected
    try:
        assert await database_sync_to_async(_start_as_gm)(users["gm"], battle.pk) == 200
        got = "".join(await frames(comm, timeout=2.0, until="has started"))
        assert f"{battle.name}</strong> has started" in got and reverse("battle", args=[battle.pk]) in got
        assert 'id="battle-list"' in got and "In progress" in got
        # A battle created later shows up in the GM's list; the players' shows only what has happened.
        gm_comm = campaign_socket(campaign.pk, await database_sync_to_async(session_cookie)(users["gm"]))
        assert (await gm_comm.connect())[0]
        try:
            assert await database_sync_to_async(_new_battle_as_gm)(users["gm"], campaign.pk) == 302
            got = "".join(await frames(gm_comm, timeout=2.0, until="Second"))
            assert "Second" in got and "Setting up" in got
            got = "".join(await frames(comm, timeout=2.0, until="battle-list"))
            assert 'id="battle-list"' in got and "Second" not in got and "Setting up" not in got
        finally:
            await gm_comm.disconnect()
    finally:
        await comm.disconnect()


@pytest.mark.parametrize("who", ["outsider", None])
async def test_campaign_socket_refuses_non_members(who):
    users, campaign, _ = await database_sync_to_async(table)(start=False)
    cookie = await database_sync_to_async(session_cookie)(users[who]) if who else None
    comm = campaign_socket(campaign.pk, cookie)
    connected, _ = await comm.connect()
    assert not connected
    await comm.disconnect()


async def test_a_removed_member_hears_nothing_more_and_is_disconnected():
    users, campaign, battle = await database_sync_to_async(table)(start=False)
    cookie = await database_sync_to_async(session_cookie)(users["player"])
    comm = campaign_socket(campaign.pk, cookie)
    connected, _ = await comm.connect()
    assert connected
    from vtt.models import Membership  # noqa: PLC0415

    await database_sync_to_async(Membership.objects.filter(user=users["player"], campaign=campaign).delete)()
    assert await database_sync_to_async(_start_as_gm)(users["gm"], battle.pk) == 200
    output = await comm.receive_output(timeout=2)
    assert output["type"] == "websocket.close" and output.get("code") == 4403
    await comm.disconnect()


async def test_logging_out_closes_the_campaign_socket_of_that_session():
    users, campaign, _ = await database_sync_to_async(table)(start=False)

    def logged_in():
        client = Client()
        client.force_login(users["player"])
        return client, client.cookies["sessionid"].value

    client, cookie = await database_sync_to_async(logged_in)()
    comm = campaign_socket(campaign.pk, cookie)
    connected, _ = await comm.connect()
    assert connected
    assert (await database_sync_to_async(client.post)(reverse("logout"))).status_code == 302
    output = await comm.receive_output(timeout=2)
    assert output["type"] == "websocket.close" and output.get("code") == 4403
    await comm.disconnect()


# ------------------------------------------------------------------ issue 22, point 4: campaign sockets are capped


async def test_point_4_300_campaign_sockets_from_one_account_leave_the_others_connected_and_served():
    from vtt import sockets

    users, campaign, battle = await database_sync_to_async(table)(start=False)
    cookies = {
        name: await database_sync_to_async(session_cookie)(users[name])
        for name in ("gm", "player", "observer")
    }
    player = campaign_socket(campaign.pk, cookies["player"])
    assert (await player.connect())[0]
    flood = []
    try:
        for _ in range(300):
            comm = campaign_socket(campaign.pk, cookies["observer"])
            connected, _ = await comm.connect(timeout=10)
            assert connected
            flood.append(comm)
        # At most SOCKETS_PER_USER of the flood stay open: each newer one closed the oldest, with a reason
        # (the last "replaced" message may still be on its way).
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 3.0
        while True:
            entries = await sockets.store().entries(sockets.campaign_room(campaign.pk))
            mine = [ch for ch, (uid, _) in entries.items() if uid == str(users["observer"].pk)]
            if len(mine) <= sockets.SOCKETS_PER_USER or loop.time() > deadline:
                break
            await asyncio.sleep(0.02)
        assert len(mine) == sockets.SOCKETS_PER_USER
        closed = await flood[0].receive_output(timeout=2)
        assert closed["type"] == "websocket.close" and closed["code"] == sockets.CLOSE_REPLACED
        assert "too many tabs" in closed["reason"]
        # The other member is still connected and still told about the table.
        assert await database_sync_to_async(_start_as_gm)(users["gm"], battle.pk) == 200
        got = "".join(await frames(player, timeout=3.0, until="has started"))
        assert "has started" in got
        newest = "".join(await frames(flood[-1], timeout=3.0, until="has started"))
        assert "has started" in newest
    finally:
        for comm in (player, *flood):
            await comm.disconnect()


async def test_point_4_campaign_and_battle_sockets_share_the_per_address_cap(monkeypatch):
    from tests.sockets import communicator
    from vtt import sockets

    monkeypatch.setattr(sockets, "SOCKETS_PER_IP", 2)
    users, campaign, battle = await database_sync_to_async(table)(start=False)
    cookie = await database_sync_to_async(session_cookie)(users["player"])
    opened = []
    try:
        for comm in (campaign_socket(campaign.pk, cookie), communicator(battle.pk, cookie)):
            comm.scope["client"] = ("203.0.113.7", 5000)
            assert (await comm.connect())[0]
            opened.append(comm)
        extra = campaign_socket(campaign.pk, cookie)
        extra.scope["client"] = ("203.0.113.7", 5001)
        assert not (await extra.connect())[0]
        await extra.disconnect()
        # A closed socket frees its place.
        await opened.pop(0).disconnect()
        again = campaign_socket(campaign.pk, cookie)
        again.scope["client"] = ("203.0.113.7", 5002)
        assert (await again.connect())[0]
        opened.append(again)
    finally:
        for comm in opened:
            await comm.disconnect()
