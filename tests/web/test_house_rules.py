"""House rules per battle (issue 36): the GM changes a battle's house rule in play from the battle page;
the campaign's are the defaults for new battles. Each change is one event in the log that the players
read in words, undone like any GM action (ENG-7, ENG-8); a player, a forged rule or value, or a change
that changes nothing is refused and writes nothing."""

from __future__ import annotations

import re

import pytest

from combat import services
from combat.models import Battle, BattleEvent
from tests.table import table

pytestmark = pytest.mark.django_db
HX = {"HTTP_HX_REQUEST": "true"}
SAID_ON = "The GM turns on the house rule “Monsters act on their own”."


def _rule(client, user, battle, option: str, value: str):
    client.force_login(user)
    battle.refresh_from_db()
    data = {"kind": "gm.house_rule", "option": option, "value": value, "expected_seq": str(battle.seq)}
    return client.post(f"/battles/{battle.pk}/act", data, **HX)


def _page(client, user, battle) -> str:
    client.force_login(user)
    return client.get(f"/battles/{battle.pk}/").content.decode()


def test_the_gm_page_offers_the_battles_house_rules_and_a_player_page_does_not(client):
    users, _, battle = table()
    page = _page(client, users["gm"], battle)
    rules = re.search(r'<div id="gm-rules".*?</div>\s*</details>', page, re.S).group(0)
    assert "Monsters act on their own: <strong>off</strong>" in rules and "Turn on</button>" in rules
    assert "The campaign's house rules are the defaults for new battles" in rules
    assert 'name="option" value="npc_reactions"' in rules and "<select" in rules  # a choice: pick and set
    assert 'id="gm-rules"' not in _page(client, users["player"], battle)


def test_a_rule_switched_in_play_changes_the_battle_not_the_campaign_and_players_read_it(
    client,
):  # RULE: ENG-7
    users, campaign, battle = table()
    response = _rule(client, users["gm"], battle, "monsters_act", "on")
    assert response.status_code == 200, response.content
    battle.refresh_from_db()
    assert services.load_state(battle).options["monsters_act"] is True
    campaign.refresh_from_db()
    assert campaign.house_rules()["monsters_act"] is False  # the defaults for new battles stay
    for who in ("player", "observer"):
        assert SAID_ON in _page(client, users[who], battle), who
    gm_page = _page(client, users["gm"], battle)
    assert "Monsters act on their own: <strong>on</strong>" in gm_page and "Turn off</button>" in gm_page


def test_undo_turns_a_house_rule_back(client):  # RULE: ENG-8
    users, _, battle = table()
    assert _rule(client, users["gm"], battle, "hide_enemy_hp", "off").status_code == 200
    battle.refresh_from_db()
    assert services.load_state(battle).options["hide_enemy_hp"] is False
    client.force_login(users["gm"])
    assert (
        client.post(f"/battles/{battle.pk}/undo", {"expected_seq": str(battle.seq)}, **HX).status_code == 200
    )
    battle.refresh_from_db()
    assert services.load_state(battle).options["hide_enemy_hp"] is True
    assert not BattleEvent.objects.filter(battle=battle, type="house_rule.changed").exists()
    assert "Hide exact enemy HP from players: <strong>on</strong>" in _page(client, users["gm"], battle)


@pytest.mark.parametrize(
    ("who", "option", "value", "status", "why"),
    [
        ("player", "monsters_act", "on", 403, "Only the GM can do that."),
        ("gm", "no_such_rule", "on", 422, "That is not a house rule of this ruleset."),
        ("gm", "npc_reactions", "sometimes", 422, "GM-controlled NPC reactions: Choose one of"),
        ("gm", "monsters_act", "maybe", 422, "Monsters act on their own: Enter yes or no."),
        ("gm", "monsters_act", "off", 422, "Monsters act on their own is already off."),
    ],
)
def test_a_change_that_cannot_be_made_says_why_and_writes_nothing(client, who, option, value, status, why):
    users, _, battle = table()
    before = Battle.objects.get(pk=battle.pk).seq
    response = _rule(client, users[who], battle, option, value)
    assert response.status_code == status and why in response.content.decode()
    assert Battle.objects.get(pk=battle.pk).seq == before


def test_switched_on_during_a_monsters_turn_the_monster_plays_at_once(client):
    users, _, battle = table()
    state = services.load_state(battle)
    ayla = state.current()
    ended = services.submit_action(battle.pk, users["player"], {"kind": "end_turn", "actor": ayla.id})
    assert ended.ok and ended.state.current().name == "Goblin"
    assert _rule(client, users["gm"], battle, "monsters_act", "on").status_code == 200
    battle.refresh_from_db()
    after = services.load_state(battle)
    assert after.current() is None or after.current().name != "Goblin" or after.pending is not None
    assert BattleEvent.objects.filter(battle=battle, type="tactics.chose").exists()


def test_the_campaign_form_says_its_house_rules_are_the_defaults_for_new_battles(client):
    users, campaign, _ = table()
    client.force_login(users["gm"])
    page = client.get(f"/campaigns/{campaign.pk}/edit/").content.decode()
    assert "The defaults for new battles." in page
