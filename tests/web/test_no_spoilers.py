"""No spoilers: players learn of a monster only once a battle has begun with it in view; their battle list
shows only what has happened. Asserted on the bytes the player's browser receives."""

from __future__ import annotations

import re

import pytest
from django.template.loader import render_to_string

from combat import services
from combat.models import Battle
from tests.table import make_campaign
from vtt.models import Character, Membership

pytestmark = pytest.mark.django_db
MONSTER = "Goblin Skirmisher"


@pytest.fixture
def prepared(client, gm, player):
    """The GM has made a battle from the bestiary (a player's hero against a monster) and not started it."""
    campaign = make_campaign(gm, "luck", name="Keep")
    Membership.objects.create(campaign=campaign, user=player, role="player")
    from vtt.content import character_templates  # noqa: PLC0415

    hero = next(iter(character_templates(campaign, "pc").values()))
    Character.objects.create(campaign=campaign, name="Mira", owner=player, sheet=hero)
    client.force_login(gm)
    page = client.get(f"/campaigns/{campaign.pk}/battles/new/").content.decode()
    field = re.search(r'name="(tpl_[a-z0-9-]+)"[^>]*>', page).group(1)
    assert MONSTER in page
    response = client.post(
        f"/campaigns/{campaign.pk}/battles/new/",
        {"name": "Ambush at the ford", "width": "12", "height": "10", "party": "on", field: "1"},
    )
    assert response.status_code == 302
    return campaign, Battle.objects.get(campaign=campaign)


def _player_page(client, player, campaign) -> bytes:
    client.force_login(player)
    response = client.get(f"/campaigns/{campaign.pk}/")
    assert response.status_code == 200
    return response.content


def _players_list(campaign) -> bytes:
    """The battle list as pushed to the players' campaign pages (vtt.live)."""
    return render_to_string("combat/campaign_battles.html#battle_list", {"campaign": campaign}).encode()


def test_before_the_battle_the_players_page_names_no_monster_and_no_battle(client, gm, player, prepared):
    campaign, battle = prepared
    page = _player_page(client, player, campaign)
    for secret in (MONSTER.encode(), b"Ambush at the ford", b"Not started", b"Setting up"):
        assert secret not in page, secret
    assert not re.search(rb">\s*Monster\s*<", page)  # no "Monster" badge on any character
    assert b"Mira" in page  # the party is no secret
    listing = _players_list(campaign)
    assert b"Ambush" not in listing and MONSTER.encode() not in listing and b"No battles yet." in listing
    monster = Character.objects.get(campaign=campaign, name=MONSTER)
    assert client.get(f"/campaigns/{campaign.pk}/characters/{monster.pk}/").status_code == 404
    # The GM's own page shows all of it.
    gm_page = _player_page(client, gm, campaign)
    assert MONSTER.encode() in gm_page and b"Ambush at the ford" in gm_page


def test_once_the_battle_begins_the_monster_in_view_is_known(client, gm, player, prepared):
    campaign, battle = prepared
    assert services.start_battle(battle.pk, gm).ok
    page = _player_page(client, player, campaign)
    assert MONSTER.encode() in page and b"Ambush at the ford" in page and b"In progress" in page
    listing = _players_list(campaign)
    assert b"Ambush at the ford" in listing and MONSTER.encode() in listing


def test_a_monster_the_gm_hides_stays_unknown_after_the_start(client, gm, player, prepared):
    campaign, battle = prepared
    state = services.load_state(battle)
    goblin = next(c for c in state.combatants.values() if c.side == "enemy")
    hidden = services.gm_override(
        battle.pk, gm, {"kind": "gm.hide", "params": {"combatant": goblin.id, "hidden": True}}, None
    )
    assert hidden.ok, hidden.reason
    assert services.start_battle(battle.pk, gm).ok
    page = _player_page(client, player, campaign)
    assert b"Ambush at the ford" in page and MONSTER.encode() not in page
    assert MONSTER.encode() not in _players_list(campaign)
    battle_page = client.get(f"/battles/{battle.pk}/").content
    assert MONSTER.encode() not in battle_page
    # Revealed: the players meet it.
    shown = services.gm_override(
        battle.pk, gm, {"kind": "gm.hide", "params": {"combatant": goblin.id, "hidden": False}}, None
    )
    assert shown.ok
    assert MONSTER.encode() in _player_page(client, player, campaign)
