"""Fixtures for the battle services: a D20 Luck campaign with its cast.

The personas (``gm`` runs the campaign, ``player`` and ``other_player`` each own a
character, ``observer`` watches, ``outsider`` is in no campaign) are fixtures of
tests/conftest.py; ``users`` gathers them by name.
"""

from __future__ import annotations

import pytest

from combat import services
from combat.models import Battle
from tests.table import make_campaign
from vtt.models import Character

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
def users(gm, player, other_player, observer, outsider):
    """The personas of tests/conftest.py by name."""
    return {
        "gm": gm,
        "player": player,
        "other_player": other_player,
        "observer": observer,
        "outsider": outsider,
    }


@pytest.fixture
def campaign(gm, player, other_player, observer):
    """The personas' campaign here is "The Keep", a D20 Luck campaign with no house rules set."""
    return make_campaign(
        gm, "luck", "The Keep", options={}, player=[player, other_player], observer=[observer]
    )


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
