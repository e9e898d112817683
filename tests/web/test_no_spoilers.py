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
    """The battle list as pushed to the players' campaign pages (combat.campaign_push)."""
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


def _pushes(monkeypatch) -> list[dict]:
    """What the live table sends to the battle's sockets from now on (``combat.live.publish``)."""
    from combat import live  # noqa: PLC0415

    sent: list[dict] = []
    monkeypatch.setattr(live, "publish", lambda group, message: sent.append(message))
    return sent


def _player_bytes(message: dict) -> bytes:
    """Every part of a pushed message a player's or observer's socket may pick."""
    parts = [message.get("pl", ""), message.get("watch", ""), *message.get("users", {}).values()]
    return "".join(parts).encode()


@pytest.mark.django_db(transaction=True)
def test_a_player_who_opens_a_battle_in_set_up_by_its_url_meets_no_monster(
    client, gm, player, prepared, monkeypatch
):
    from combat import consumers  # noqa: PLC0415

    campaign, battle = prepared
    sent = _pushes(monkeypatch)
    # The GM adds a second monster and moves the first one while setting up: both are pushed.
    goblin = Character.objects.get(campaign=campaign, name=MONSTER)
    added = services.add_combatant(
        battle.pk, gm, goblin, params={"name": f"{MONSTER} 2", "side": "enemy"}, pos=[11, 0]
    )
    assert added.ok, added.reason
    state = services.load_state(Battle.objects.get(pk=battle.pk))
    first = next(c for c in state.combatants.values() if c.name == MONSTER)
    moved = services.submit_action(
        battle.pk, gm, {"kind": "setup.place", "params": {"combatant": first.id, "pos": [9, 9]}}, None
    )
    assert moved.ok, moved.reason
    assert len(sent) == 2 and all(MONSTER.encode() in m["gm"].encode() for m in sent)  # the GM sees it
    client.force_login(player)
    page = client.get(f"/battles/{battle.pk}/")
    assert page.status_code == 200 and b"Mira" in page.content  # the party is no secret
    log = client.get(f"/battles/{battle.pk}/log?before=999999")
    export = client.get(f"/battles/{battle.pk}/export")
    refused = client.post(f"/battles/{battle.pk}/start", {"expected_seq": ""}, HTTP_HX_REQUEST="true")
    assert export.status_code == 403 and refused.status_code == 403
    socket = consumers._fresh(battle.pk, "player", str(player.pk))  # what a socket sends on connecting
    assert socket is not None
    seen = {
        "page": page.content,
        "log": log.content,
        "export": export.content,
        "refusal": refused.content,
        "socket": socket[2].encode(),
        **{f"push {i}": _player_bytes(m) for i, m in enumerate(sent)},
    }
    for where, body in seen.items():
        assert MONSTER.encode() not in body, where
        assert f'data-cid="{first.id}"'.encode() not in body, where
    # Once the battle begins, the monsters in view are there for the players.
    started = services.start_battle(battle.pk, gm)
    assert started.ok, started.reason
    assert MONSTER.encode() in _player_bytes(sent[-1])
    assert MONSTER.encode() in client.get(f"/battles/{battle.pk}/").content
