"""Every campaign URL for every persona: anonymous, outsider, observer, player, other player, GM.

Anonymous users are sent to log in; non-members get 404 (ids leak nothing);
members whose role does not allow an action get 403.
"""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from tests.table import make_campaign
from tests.web.conftest import options_post
from vtt.models import Character, Invite, Membership

ROLES = ("anonymous", "outsider", "observer", "player", "other_player", "gm")
LOGIN = "login"  # expected: redirect to the login page


def url_for(name, objects):
    campaign = objects["campaign"]
    args = {
        "campaign": [campaign.pk],
        "campaign_edit": [campaign.pk],
        "character_create": [campaign.pk],
        "member_role": [campaign.pk, objects["observer_membership"].pk],
        "invite_create": [campaign.pk],
        "invite_revoke": [campaign.pk, objects["invite"].pk],
        "character:pc": [campaign.pk, objects["pc"].pk],
        "character:monster": [campaign.pk, objects["monster"].pk],
        "character_edit:pc": [campaign.pk, objects["pc"].pk],
        "character_edit:monster": [campaign.pk, objects["monster"].pk],
        "character_delete:pc": [campaign.pk, objects["pc"].pk],
        "character_delete:monster": [campaign.pk, objects["monster"].pk],
    }[name]
    return reverse(name.split(":")[0], args=args)


# (url key, method, post data, expected status per role in ROLES order)
MATRIX = [
    ("campaign", "get", None, (LOGIN, 404, 200, 200, 200, 200)),
    ("campaign_edit", "get", None, (LOGIN, 404, 403, 403, 403, 200)),
    ("campaign_edit", "post", "OPTIONS", (LOGIN, 404, 403, 403, 403, 302)),
    ("member_role", "post", {"role": "player"}, (LOGIN, 404, 403, 403, 403, 302)),
    ("member_role", "get", None, (LOGIN, 405, 405, 405, 405, 405)),
    (
        "invite_create",
        "post",
        {"role": "player", "expires_in": "7", "max_uses": "3"},
        (LOGIN, 404, 403, 403, 403, 302),
    ),
    ("invite_revoke", "post", {}, (LOGIN, 404, 403, 403, 403, 302)),
    ("character_create", "get", None, (LOGIN, 404, 403, 200, 200, 200)),
    ("character:pc", "get", None, (LOGIN, 404, 200, 200, 200, 200)),
    # A monster no battle has revealed yet does not exist for the players (no spoilers).
    ("character:monster", "get", None, (LOGIN, 404, 404, 404, 404, 200)),
    ("character_edit:pc", "get", None, (LOGIN, 404, 403, 200, 403, 200)),
    ("character_edit:monster", "get", None, (LOGIN, 404, 404, 404, 404, 200)),
    ("character_delete:pc", "post", {}, (LOGIN, 404, 403, 302, 403, 302)),
    ("character_delete:monster", "post", {}, (LOGIN, 404, 404, 404, 404, 302)),
    ("character_delete:pc", "get", None, (LOGIN, 405, 405, 405, 405, 405)),
]

CASES = [
    pytest.param(key, method, data, role, expected[i], id=f"{key}-{method}-{role}")
    for key, method, data, expected in MATRIX
    for i, role in enumerate(ROLES)
]


@pytest.fixture
def objects(campaign, gm, pc, monster, observer):
    invite = Invite.objects.create(campaign=campaign, created_by=gm)
    return {
        "campaign": campaign,
        "pc": pc,
        "monster": monster,
        "invite": invite,
        "observer_membership": Membership.objects.get(user=observer, campaign=campaign),
    }


@pytest.mark.parametrize(("key", "method", "data", "role", "expected"), CASES)
def test_every_campaign_view_answers_each_role(request, as_user, objects, key, method, data, role, expected):
    user = None if role == "anonymous" else request.getfixturevalue(role)
    client = as_user(user)
    url = url_for(key, objects)
    if data == "OPTIONS":
        data = {"name": "Renamed", **options_post("mist")}
    before = (Character.objects.count(), Invite.objects.count(), list(Membership.objects.values_list("role")))
    response = getattr(client, method)(url, data) if data is not None else getattr(client, method)(url)
    if expected == LOGIN:
        assert response.status_code == 302
        assert response["Location"].startswith(reverse("login") + "?next=")
    else:
        assert response.status_code == expected
    after = (Character.objects.count(), Invite.objects.count(), list(Membership.objects.values_list("role")))
    if expected != 302:
        assert after == before, "a refused request must change nothing"


@pytest.mark.parametrize("role", ["gm", "player", "observer", "outsider"])
def test_unknown_campaign_is_404_for_everyone(request, as_user, campaign, role):
    client = as_user(request.getfixturevalue(role))
    assert client.get(reverse("campaign", args=[campaign.pk + 999])).status_code == 404
    assert client.get(reverse("character_create", args=[campaign.pk + 999])).status_code == 404


def test_character_of_another_campaign_is_404_through_this_one(as_user, gm, player, pc):
    mine = make_campaign(player, name="Player's own table")
    client = as_user(player)
    assert client.get(reverse("character", args=[mine.pk, pc.pk])).status_code == 404
    assert client.get(reverse("character_edit", args=[mine.pk, pc.pk])).status_code == 404


@pytest.mark.parametrize("role", ["anonymous", "outsider", "player", "gm"])
def test_account_pages(request, as_user, campaign, role):
    client = as_user(None if role == "anonymous" else request.getfixturevalue(role))
    for name in ("campaigns", "campaign_create"):
        response = client.get(reverse(name))
        if role == "anonymous":
            assert response.status_code == 302 and response["Location"].startswith(reverse("login"))
        else:
            assert response.status_code == 200
    listing = client.get(reverse("campaigns"))
    if role in ("player", "gm"):
        assert campaign.name in listing.content.decode()
    elif role == "outsider":
        assert campaign.name not in listing.content.decode()


def test_monster_sheet_is_hidden_from_players_but_not_from_the_gm(as_user, gm, player, observer, pc, monster):
    url = reverse("character", args=[monster.campaign_id, monster.pk])
    for user in (player, observer):
        assert as_user(user).get(url).status_code == 404  # not met yet
    from combat import services, setup  # noqa: PLC0415

    made = setup.setup_battle(monster.campaign, gm, "Met", 8, 6, [setup.Recruit(pc), setup.Recruit(monster)])
    assert made.ok, made.reason
    assert services.start_battle(made.battle_id, gm).ok
    for user in (player, observer):
        page = as_user(user).get(url).content.decode()
        assert "Only the game master sees this sheet." in page
        # The monster's 200 HP, wherever it would show; not an id in a link (campaigns/200/).
        assert "200" not in re.sub(r'(href|action)="[^"]*"', "", page.split("<main", 1)[1])
    page = as_user(gm).get(url).content.decode()
    assert "Max HP" in page and "200" in page


def test_pc_sheets_are_readable_by_observers(as_user, observer, pc):
    page = as_user(observer).get(reverse("character", args=[pc.campaign_id, pc.pk])).content.decode()
    assert "Max HP" in page and "Only the game master" not in page
    assert reverse("character_edit", args=[pc.campaign_id, pc.pk]) not in page
