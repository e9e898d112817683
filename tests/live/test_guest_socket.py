"""A guest removed by the GM (issue 37): its open battle and campaign sockets close at once with the
membership-revocation code (4403), and a guest's socket reaches only its own campaign."""

from __future__ import annotations

import pytest
from channels.db import database_sync_to_async
from django.test import Client
from django.urls import reverse

from combat import services
from combat.consumers import CLOSE_REVOKED
from tests.sockets import campaign_socket, closed, communicator
from tests.table import make_campaign, table
from vtt.guest_models import Guest
from vtt.models import Invite, Membership, Role

pytestmark = pytest.mark.django_db(transaction=True)


def _guest_joins(campaign, gm) -> tuple[str, int]:
    """A visitor types a name on the campaign's invite link: (their session cookie, their membership id)."""
    invite = Invite.objects.create(campaign=campaign, created_by=gm, role=Role.PLAYER)
    client = Client()
    assert client.post(reverse("join", args=[invite.token]), {"name": "Mira"}).status_code == 302
    guest = Guest.objects.get(campaign=campaign)
    return client.cookies["sessionid"].value, Membership.objects.get(user=guest.user, campaign=campaign).pk


def _remove(gm, campaign_id: int, membership_id: int) -> int:
    client = Client()
    client.force_login(gm)
    return client.post(reverse("member_remove", args=[campaign_id, membership_id])).status_code


async def test_the_gm_removes_a_guest_and_its_sockets_close():
    users, campaign, battle = await database_sync_to_async(table)()
    cookie, seat = await database_sync_to_async(_guest_joins)(campaign, users["gm"])
    on_battle = communicator(battle.pk, cookie)
    on_campaign = campaign_socket(campaign.pk, cookie)
    try:
        assert (await on_battle.connect())[0] and (await on_campaign.connect())[0]
        assert await database_sync_to_async(_remove)(users["gm"], campaign.pk, seat) == 302
        assert (await closed(on_battle, 2.0))["code"] == CLOSE_REVOKED
        assert (await closed(on_campaign, 2.0))["code"] == CLOSE_REVOKED
        # And it cannot come back: the account went with its seat.
        again = communicator(battle.pk, cookie)
        assert not (await again.connect())[0]
        await again.disconnect()
    finally:
        await on_battle.disconnect()
        await on_campaign.disconnect()


def _another_campaign(gm) -> tuple[int, int]:
    other = make_campaign(gm, "luck", "Elsewhere")
    made = services.create_battle(other, gm, "Elsewhere", 6, 6)
    assert made.ok and made.battle_id is not None
    return other.pk, made.battle_id


async def test_a_guest_socket_reaches_no_other_campaign():
    users, campaign, _ = await database_sync_to_async(table)()
    other, other_battle = await database_sync_to_async(_another_campaign)(users["gm"])
    cookie, _ = await database_sync_to_async(_guest_joins)(campaign, users["gm"])
    for comm in (communicator(other_battle, cookie), campaign_socket(other, cookie)):
        connected, _ = await comm.connect()
        assert not connected
        await comm.disconnect()
