"""Fixtures for the battle services: a D20 Luck campaign with its cast.

Personas: ``gm`` runs the campaign, ``player`` and ``other_player`` each own a
character, ``observer`` watches, ``outsider`` is in no campaign.
"""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from combat import services
from combat.models import Battle
from vtt.models import Campaign, Character, Membership

SEED = 20261122

SHEET = {"hp": 20, "initiative": 2, "armor": 1, "resist": 1, "movement": 5}
MONSTER = {
    "name": "Goblin",
    "side": "enemy",
    "kind": "monster",
    "controller": None,
    "character_id": None,
    "sheet": {"hp": 12, "initiative": 1, "armor": 0, "resist": 0, "movement": 5},
}


@pytest.fixture
def users(db):
    User = get_user_model()
    return {
        name: User.objects.create_user(name, password="pw-" + name)
        for name in ("gm", "player", "other_player", "observer", "outsider")
    }


@pytest.fixture
def gm(users):
    return users["gm"]


@pytest.fixture
def player(users):
    return users["player"]


@pytest.fixture
def other_player(users):
    return users["other_player"]


@pytest.fixture
def observer(users):
    return users["observer"]


@pytest.fixture
def outsider(users):
    return users["outsider"]


@pytest.fixture
def campaign(users):
    campaign = Campaign.objects.create(name="The Keep", ruleset="luck", owner=users["gm"])
    for name, role in (
        ("gm", "gm"),
        ("player", "player"),
        ("other_player", "player"),
        ("observer", "observer"),
    ):
        Membership.objects.create(campaign=campaign, user=users[name], role=role)
    return campaign


@pytest.fixture
def characters(campaign, player, other_player):
    return {
        "ayla": Character.objects.create(campaign=campaign, owner=player, name="Ayla", sheet=dict(SHEET)),
        "bram": Character.objects.create(
            campaign=campaign, owner=other_player, name="Bram", sheet=dict(SHEET)
        ),
    }


def make_battle(campaign, gm, characters, seed: int = SEED) -> Battle:
    """A started 10x8 battle: Ayla (player), Bram (other player), a Goblin (GM)."""
    result = services.create_battle(campaign, gm, "Gate fight", 10, 8, [[5, 0], [5, 1]], seed=seed)
    assert result.ok, result.reason
    bid = result.battle_id
    for character, pos in ((characters["ayla"], [0, 0]), (characters["bram"], [0, 2])):
        added = services.add_combatant(bid, gm, character, pos=pos)
        assert added.ok, added.reason
    added = services.add_combatant(bid, gm, params=dict(MONSTER), pos=[8, 5])
    assert added.ok, added.reason
    started = services.start_battle(bid, gm)
    assert started.ok, started.reason
    return Battle.objects.get(pk=bid)


@pytest.fixture
def battle(campaign, gm, characters):
    return make_battle(campaign, gm, characters)
