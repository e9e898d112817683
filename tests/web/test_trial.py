""" "Try a battle" (issue 37): one click gives a visitor a throwaway table with a battle running, the other
seats played by the tactics; ``cleanup_trials`` deletes such tables and their guests after a day."""

from __future__ import annotations

import re
from datetime import timedelta
from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from combat import services
from combat.engine.rulesets import RULESETS
from combat.models import Battle, BattleEvent
from tests.table import make_campaign
from vtt.guest_models import GUEST_PREFIX, Guest
from vtt.models import Campaign, CharacterKind, Invite, Membership, Role


def try_a_battle(ruleset: str) -> tuple[Client, Battle]:
    client = Client()
    response = client.post(reverse("trial_start"), {"ruleset": ruleset})
    assert response.status_code == 302, response.content[:300]
    battle = Battle.objects.get(pk=int(response["Location"].strip("/").rsplit("/", 1)[1]))
    assert response["Location"] == reverse("battle", args=[battle.pk])
    return client, battle


def waits_on(state, user_id: int) -> bool:
    """The battle waits on the visitor: their hero's turn, or a question to them."""
    me = str(user_id)
    if state.pending is not None:
        return state.pending.controller == me
    current = state.current()
    return current is not None and current.controller == me


@pytest.mark.parametrize("ruleset", list(RULESETS))
def test_one_click_gives_a_visitor_a_running_battle_the_tactics_play_the_others(db, ruleset):
    client, battle = try_a_battle(ruleset)
    user = get_user_model().objects.get(pk=client.session["_auth_user_id"])
    campaign = battle.campaign
    assert campaign.throwaway and campaign.ruleset == ruleset and user.username.startswith(GUEST_PREFIX)
    assert Guest.objects.get(user=user).campaign == campaign
    assert list(Membership.objects.filter(campaign=campaign).values_list("user_id", "role")) == [
        (user.pk, Role.PLAYER)  # the visitor alone, a player: nobody runs the table
    ]
    state = services.load_state(battle)
    assert battle.status == Battle.Status.ACTIVE and state.options["monsters_act"] is True
    sides = sorted((c.side, c.kind, c.controller) for c in state.combatants.values())
    assert sides == sorted(
        [
            ("party", "pc", str(user.pk)),
            ("party", "npc", None),
            ("enemy", "monster", None),
            ("enemy", "monster", None),
        ]
    )
    assert waits_on(state, user.pk)  # whoever came before the hero was played already
    page = client.get(reverse("battle", args=[battle.pk])).content.decode()
    assert "Your turn" in page or 'id="prompt"' in page
    # The visitor ends their turn: the ally and the monsters play theirs, and it is the visitor's again.
    state = answer_questions(battle, user, state)
    hero = state.current()
    ended = services.submit_action(battle.pk, user, {"kind": "end_turn", "actor": hero.id}, state.seq)
    assert ended.ok, ended.reason
    after = answer_questions(battle, user, ended.state)
    tactics = BattleEvent.objects.filter(battle=battle, seq__gt=state.seq, type="tactics.chose")
    # Each of the others' turns, with the tactics' reason in the log; unless the hero ended the round
    # and won the next one's initiative (Mist & Rampart rolls it each round): then it is theirs again.
    new_round = BattleEvent.objects.filter(battle=battle, seq__gt=state.seq, type="round.started").exists()
    assert tactics.exists() or (new_round and after.current().id == hero.id)
    if not after.combatants[hero.id].ko:  # a hero still standing has the next turn that is not the tactics'
        assert after.phase == "ended" or after.current().controller == str(user.pk)


def answer_questions(battle: Battle, user, state):
    """The visitor answers what the rules ask them (a reaction, a job switch) with its default."""
    for _ in range(4):
        if state.pending is None or state.phase == "ended":
            return state
        assert state.pending.controller == str(user.pk)  # no question waits for a GM: there is none
        answer = services.answer_decision(battle.pk, user, state.pending.id, state.pending.default, state.seq)
        assert answer.ok, answer.reason
        state = answer.state
    pytest.fail("questions keep coming")


def test_an_account_or_an_unknown_ruleset_starts_no_table(as_user, gm):
    response = as_user(gm).post(reverse("trial_start"), {"ruleset": "luck"})
    assert response.status_code == 302 and response["Location"] == reverse("campaigns")
    response = Client().post(reverse("trial_start"), {"ruleset": "chess"})
    assert response.status_code == 302 and response["Location"] == reverse("home")
    assert not Campaign.objects.filter(throwaway=True).exists() and not Guest.objects.exists()


def test_the_home_page_offers_each_ruleset_with_a_line_on_its_game(client, db):
    page = client.get(reverse("home")).content.decode()
    assert f'action="{reverse("trial_start")}"' in page
    for key, ruleset in RULESETS.items():
        assert f'name="ruleset" value="{key}"' in page and ruleset.summary in page.replace("&amp;", "&")


def test_cleanup_deletes_day_old_throwaway_tables_and_their_guests_and_nothing_else(db, gm, player):
    old_client, old_battle = try_a_battle("luck")
    _, new_battle = try_a_battle("mist")
    kept_client, kept_battle = try_a_battle("paradigm")
    kept_user = get_user_model().objects.get(pk=kept_client.session["_auth_user_id"])
    kept_client.post(
        reverse("keep_account"),
        {"username": "stayer", "password1": "a-long-pass-phrase-7", "password2": "a-long-pass-phrase-7"},
    )
    # A real campaign and a player who joined it from an invite link, both older than a day.
    campaign = make_campaign(gm, player=[player])
    invite = Invite.objects.create(campaign=campaign, created_by=gm, max_uses=2)
    Client().post(reverse("join", args=[invite.token]), {"name": "Mira"})
    invited = Guest.objects.get(campaign=campaign).user
    long_ago = timezone.now() - timedelta(hours=25)
    Campaign.objects.exclude(pk=new_battle.campaign_id).update(created=long_ago)
    get_user_model().objects.update(date_joined=long_ago)
    Guest.objects.update(created=long_ago)
    old_user = old_battle.campaign.owner_id

    out = StringIO()
    call_command("cleanup_trials", stdout=out)
    assert "Deleted 2 throwaway table(s) and 1 guest account(s)." in out.getvalue()
    assert not Campaign.objects.filter(pk__in=[old_battle.campaign_id, kept_battle.campaign_id]).exists()
    assert not Battle.objects.filter(pk__in=[old_battle.pk, kept_battle.pk]).exists()
    assert not get_user_model().objects.filter(pk=old_user).exists()
    # Kept: the table younger than a day, the account its guest kept, the real campaign and its players.
    assert Battle.objects.filter(pk=new_battle.pk).exists()
    assert get_user_model().objects.filter(pk=kept_user.pk, username="stayer").exists()
    assert Campaign.objects.filter(pk=campaign.pk).exists()
    assert set(Membership.objects.filter(campaign=campaign).values_list("user_id", flat=True)) == {
        gm.pk,
        player.pk,
        invited.pk,
    }
    assert old_client.get(reverse("battle", args=[old_battle.pk])).status_code == 302  # logged out: gone
    call_command("cleanup_trials", stdout=(again := StringIO()))
    assert again.getvalue() == ""  # nothing more to delete, nothing said


def test_a_trial_hero_is_the_visitors_and_the_ally_an_npc(db):
    client, battle = try_a_battle("action-block")
    characters = dict(battle.campaign.characters.values_list("kind", "owner_id").distinct())
    assert characters[CharacterKind.PC] == int(client.session["_auth_user_id"])
    assert characters[CharacterKind.NPC] is None and characters[CharacterKind.MONSTER] is None
    assert services.load_state(battle).options["insanity"] == "off"  # no question waits for a GM


def test_a_trial_tracker_says_the_rules_play_the_others_at_a_table_with_no_gm(db):
    client, battle = try_a_battle("luck")
    page = client.get(reverse("battle", args=[battle.pk])).content.decode()
    labels = re.findall(r'<span class="ctl" data-presence-user="">([^<]*)</span>', page)
    assert labels == ["Rules"] * 3  # the ally and the two monsters; nobody at this table is a GM


def test_a_visitor_starts_a_new_battle_from_their_tables_page(db):
    client, battle = try_a_battle("mist")
    page = client.get(reverse("campaign", args=[battle.campaign_id])).content.decode()
    assert "Start a new battle" in page and 'name="ruleset" value="mist"' in page
    response = client.post(reverse("trial_start"), {"ruleset": "mist"})
    assert response.status_code == 302 and response["Location"] != reverse("battle", args=[battle.pk])
    fresh = Battle.objects.exclude(pk=battle.pk).get()
    assert fresh.campaign.throwaway and fresh.campaign_id != battle.campaign_id
    assert client.get(reverse("battle", args=[fresh.pk])).status_code == 200
    assert client.get(reverse("battle", args=[battle.pk])).status_code == 404  # the first table is not theirs


@pytest.mark.parametrize("ruleset", list(RULESETS))
def test_a_visitor_who_only_ends_turns_sees_the_battle_end_never_stall(db, ruleset):
    """Once the visitor's hero is down the tactics play the battle out: it ends, and until then each
    request leaves it waiting on the visitor (a turn nobody at the table can take never comes)."""
    client, battle = try_a_battle(ruleset)
    user = get_user_model().objects.get(pk=client.session["_auth_user_id"])
    state = services.load_state(battle)
    for _ in range(60):
        state = answer_questions(battle, user, state)
        if state.phase == "ended":
            break
        assert waits_on(state, user.pk), state.current()
        hero = state.current()
        ended = services.submit_action(battle.pk, user, {"kind": "end_turn", "actor": hero.id}, state.seq)
        assert ended.ok, ended.reason
        state = ended.state
    assert state.phase == "ended"
    battle.refresh_from_db()
    assert battle.status == Battle.Status.ENDED
