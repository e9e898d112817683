"""The bestiary in the new-battle form: the ruleset's monsters and the campaign's homebrew ones, each
with a count and − / +, so a battle needs no character made first; a GM-made monster stays offered."""

from __future__ import annotations

import re

import pytest
from django.utils.html import escape

from combat import services
from combat.engine.rulesets import get_ruleset
from combat.models import Battle
from tests.table import make_campaign
from vtt import homebrew
from vtt.models import Character, CharacterKind, ContentEntry

pytestmark = pytest.mark.django_db
RULESETS = ["luck", "mist", "action-block", "paradigm"]


def _form(client, campaign) -> str:
    response = client.get(f"/campaigns/{campaign.pk}/battles/new/")
    assert response.status_code == 200
    return response.content.decode()


@pytest.mark.parametrize("ruleset", RULESETS)
def test_the_form_offers_every_monster_of_the_ruleset_with_its_hp_and_a_stepper(client, gm, ruleset):
    campaign = make_campaign(gm, ruleset)
    client.force_login(gm)
    page = _form(client, campaign)
    rules = get_ruleset(ruleset)
    assert rules.monsters, "every ruleset ships monsters"
    assert f"{escape(campaign.ruleset_name)} bestiary" in page
    for name in rules.monsters:
        assert f"One more {name}" in page and f"One less {name}" in page, name
        label = re.search(
            rf">{re.escape(name)}</label>\s*<span class=\"muted small\" id=\"[^\"]+\">HP (\d+)</span>", page
        )
        assert label and int(label.group(1)) > 0, name
    assert Character.objects.filter(campaign=campaign).count() == 0


@pytest.mark.parametrize("ruleset", RULESETS)
def test_a_battle_from_the_bestiary_alone_needs_no_character_made_first(client, gm, ruleset):
    campaign = make_campaign(gm, ruleset)
    client.force_login(gm)
    page = _form(client, campaign)
    field = re.search(r'name="(tpl_[a-z0-9-]+)"', page).group(1)
    name = next(iter(get_ruleset(ruleset).monsters))
    response = client.post(
        f"/campaigns/{campaign.pk}/battles/new/",
        {"name": "Ambush", "width": "12", "height": "10", field: "3"},
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    battle = Battle.objects.get(campaign=campaign)
    names = sorted(c.name for c in services.load_state(battle).combatants.values())
    assert names == [f"{name} 1", f"{name} 2", f"{name} 3"]
    # The monster the battle took is the GM's now: offered first next time, and taken again, not copied.
    made = Character.objects.get(campaign=campaign, name=name)
    assert made.kind == CharacterKind.MONSTER
    page = _form(client, campaign)
    assert "Your monsters" in page and f'name="count_{made.pk}"' in page
    assert page.count(f'One more {name}"') == 1
    response = client.post(
        f"/campaigns/{campaign.pk}/battles/new/",
        {"name": "Again", "width": "12", "height": "10", f"count_{made.pk}": "1"},
    )
    assert response.status_code == 302
    assert Character.objects.filter(campaign=campaign, name=name).count() == 1


def test_the_campaigns_homebrew_monsters_are_in_its_bestiary(client, gm):
    campaign = make_campaign(gm, "luck")
    base = next(iter(homebrew.builtin(campaign.ruleset_class)[homebrew.MONSTERS].values()))
    ContentEntry.objects.create(
        campaign=campaign, kind=homebrew.MONSTERS, key="frost_wight", data={**base, "name": "Frost Wight"}
    )
    client.force_login(gm)
    page = _form(client, campaign)
    assert re.search(
        r">Frost Wight</label>\s*<span class=\"muted small\" id=\"[^\"]+\">Homebrew · HP \d+</span>", page
    )


def test_a_player_cannot_open_the_new_battle_form(client, gm, player):
    campaign = make_campaign(gm, "luck")
    from vtt.models import Membership  # noqa: PLC0415

    Membership.objects.create(campaign=campaign, user=player, role="player")
    client.force_login(player)
    assert client.get(f"/campaigns/{campaign.pk}/battles/new/").status_code in (403, 404)
