"""Setting a battle up: the GM creates it, adds numbered copies, places tokens, starts; the campaign lists it."""

from __future__ import annotations

import pytest

from combat import services
from combat.models import Battle, BattleEvent
from combat.views import numbered_names
from tests.table import make_characters, make_users, table_campaign

pytestmark = pytest.mark.django_db
HX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def cast():
    users = make_users("gm", "player", "other_player", "observer", "outsider")
    campaign = table_campaign(users)
    return users, campaign, make_characters(campaign, users)


def _new_battle(client, users, campaign, **data):
    client.force_login(users["gm"])
    response = client.post(
        f"/campaigns/{campaign.pk}/battles/new/", {"name": "Bridge", "width": "12", "height": "8", **data}
    )
    return response


def test_the_gm_creates_a_battle_with_the_campaigns_rules(client, cast):
    users, campaign, _ = cast
    response = _new_battle(client, users, campaign)
    battle = Battle.objects.get(campaign=campaign)
    assert response.status_code == 302 and response["Location"] == f"/battles/{battle.pk}/"
    state = services.load_state(battle)
    assert (battle.ruleset, state.width, state.height, state.phase) == ("luck", 12, 8, "setup")
    assert state.options["hide_enemy_hp"] is True


@pytest.mark.parametrize("data", [{"width": "0"}, {"width": "99"}, {"name": ""}, {"height": "x"}])
def test_a_bad_board_is_refused_on_the_form(client, cast, data):
    users, campaign, _ = cast
    response = _new_battle(client, users, campaign, **data)
    assert response.status_code == 200
    assert 'class="error"' in response.content.decode()
    assert not Battle.objects.exists()


def test_players_cannot_create_or_set_up_battles(client, cast):
    users, campaign, characters = cast
    client.force_login(users["player"])
    assert client.get(f"/campaigns/{campaign.pk}/battles/new/").status_code == 403
    client.force_login(users["outsider"])
    assert client.get(f"/campaigns/{campaign.pk}/battles/new/").status_code == 404
    _new_battle(client, users, campaign)
    battle = Battle.objects.get()
    client.force_login(users["player"])
    response = client.post(
        f"/battles/{battle.pk}/add", {"character": characters["goblin"].pk, "count": "2"}, **HX
    )
    assert response.status_code == 403
    assert client.post(f"/battles/{battle.pk}/start", {}, **HX).status_code == 403
    assert Battle.objects.get().seq == 1


def test_names_of_copies_are_numbered_after_those_present():
    assert numbered_names("Goblin", [], 1) == ["Goblin"]
    assert numbered_names("Goblin", [], 3) == ["Goblin 1", "Goblin 2", "Goblin 3"]
    assert numbered_names("Goblin", ["Goblin"], 2) == ["Goblin 2", "Goblin 3"]
    assert numbered_names("Goblin", ["Goblin 1", "Goblin 4", "Ayla"], 1) == ["Goblin 5"]


def test_a_full_setup_adds_copies_places_a_token_and_starts_with_initiative_in_the_log(client, cast):
    users, campaign, characters = cast
    _new_battle(client, users, campaign)
    battle = Battle.objects.get()
    url = f"/battles/{battle.pk}"
    for key in ("ayla", "bram"):
        assert (
            client.post(f"{url}/add", {"character": characters[key].pk, "count": "1"}, **HX).status_code
            == 200
        )
    response = client.post(
        f"{url}/add",
        {"character": characters["goblin"].pk, "count": "3", "client_token": "add-goblins"},
        **HX,
    )
    assert response.status_code == 200 and "Goblin 1, Goblin 2, Goblin 3" in response.content.decode()
    # A double tap on "Add" adds nothing more.
    client.post(
        f"{url}/add",
        {"character": characters["goblin"].pk, "count": "3", "client_token": "add-goblins"},
        **HX,
    )
    battle.refresh_from_db()
    state = services.load_state(battle)
    names = sorted(c.name for c in state.combatants.values())
    assert names == ["Ayla", "Bram", "Goblin 1", "Goblin 2", "Goblin 3"]
    # Everyone got a free square beside their side's line: the party facing the enemies one move away.
    squares = {c.name: c.pos for c in state.combatants.values()}
    party, enemy = [squares["Ayla"], squares["Bram"]], [squares[f"Goblin {n}"] for n in (1, 2, 3)]
    assert max(x for x, _ in party) < min(x for x, _ in enemy)
    assert squares["Bram"] == [squares["Ayla"][0], squares["Ayla"][1] + 1]
    assert 1 < squares["Goblin 1"][0] - squares["Ayla"][0] <= 6
    assert len({tuple(p) for p in squares.values()}) == 5
    # Tap a square to place Ayla elsewhere; an occupied square is refused with the reason.
    ayla = next(c.id for c in state.combatants.values() if c.name == "Ayla")
    response = client.post(
        f"{url}/act",
        {"kind": "setup.place", "combatant": ayla, "square": "4,3", "expected_seq": str(battle.seq)},
        **HX,
    )
    assert response.status_code == 200, response.content
    battle.refresh_from_db()
    response = client.post(
        f"{url}/act",
        {
            "kind": "setup.place",
            "combatant": ayla,
            "square": ",".join(map(str, squares["Goblin 1"])),
            "expected_seq": str(battle.seq),
        },
        **HX,
    )
    assert response.status_code == 422 and "already stands there" in response.content.decode()
    battle.refresh_from_db()
    response = client.post(f"{url}/start", {"expected_seq": str(battle.seq)}, **HX)
    assert response.status_code == 200
    html = response.content.decode()
    assert "rolls initiative" in html and "initiative: 1d20" in html
    battle.refresh_from_db()
    assert battle.status == "active"
    assert BattleEvent.objects.filter(battle=battle, type="initiative.rolled").count() == 5
    assert services.load_state(battle).combatants[ayla].pos == [4, 3]


def test_the_campaign_page_lists_battles_and_offers_a_new_one_to_the_gm_only(client, cast):
    users, campaign, _ = cast
    _new_battle(client, users, campaign)
    battle = Battle.objects.get()
    page = client.get(f"/campaigns/{campaign.pk}/").content.decode()
    assert f'href="/battles/{battle.pk}/"' in page and f"/campaigns/{campaign.pk}/battles/new/" in page
    client.force_login(users["player"])
    page = client.get(f"/campaigns/{campaign.pk}/").content.decode()
    # A battle still being set up has not happened yet: the players' list does not show it.
    assert f'href="/battles/{battle.pk}/"' not in page and "battles/new/" not in page
    assert services.add_combatant(
        battle.pk, users["gm"], None, params={"name": "Wolf", "side": "enemy"}, pos=[5, 5]
    ).ok
    assert services.add_combatant(
        battle.pk, users["gm"], None, params={"name": "Hero", "side": "party"}, pos=[1, 1]
    ).ok
    assert services.start_battle(battle.pk, users["gm"]).ok
    page = client.get(f"/campaigns/{campaign.pk}/").content.decode()
    assert f'href="/battles/{battle.pk}/"' in page
