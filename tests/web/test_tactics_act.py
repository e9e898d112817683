"""The GM lets the rules' tactics play a monster's turn (one click, or every monster's turn on its own):
the reason goes into the log, everyone sees it, the GM undoes it like any action."""

from __future__ import annotations

import pytest

from combat import services
from combat.models import BattleEvent
from tests.table import (
    PERSONAS,
    SECRET_HP,
    current,
    make_battle,
    make_characters,
    make_users,
    table,
    table_campaign,
)

pytestmark = pytest.mark.django_db
HX = {"HTTP_HX_REQUEST": "true"}


def goblins_turn(battle, users):
    """Ayla (first by initiative) ends her turn: the Goblin's turn."""
    assert current(battle).name == "Ayla"
    ended = services.submit_action(
        battle.pk, users["player"], {"kind": "end_turn", "actor": current(battle).id}
    )
    assert ended.ok, ended.reason
    assert current(battle).name == "Goblin"


def test_the_gm_lets_the_tactics_play_the_goblins_turn_and_undoes_it(client):
    users, _, battle = table()
    goblins_turn(battle, users)
    client.force_login(users["gm"])
    page = client.get(f"/battles/{battle.pk}/").content.decode()
    assert "Let the tactics act for Goblin" in page
    battle.refresh_from_db()
    before = battle.seq
    response = client.post(
        f"/battles/{battle.pk}/act", {"kind": "gm.tactics", "expected_seq": str(before)}, **HX
    )
    assert response.status_code == 200
    reasons = [e.data["reason"] for e in BattleEvent.objects.filter(battle=battle, type="tactics.chose")]
    assert reasons and all(r.startswith("Goblin ") for r in reasons)
    assert current(battle).name == "Bram"  # the whole turn was played
    first = BattleEvent.objects.filter(battle=battle, seq=before + 1).get()
    assert (first.type, first.data["act"]) == ("tactics.chose", "gm.tactics")
    client.force_login(users["other_player"])
    log = client.get(f"/battles/{battle.pk}/").content.decode()
    assert reasons[0] in log and str(SECRET_HP) not in log  # the reason, never the hidden HP
    assert log.count("Goblin ends the turn") == 1  # the tactics' reason, not a second plain line
    assert 'class="entry tactics-reason"' in log  # the reasons are told apart from what happened
    assert services.undo(battle.pk, users["gm"]).ok
    battle.refresh_from_db()
    assert battle.seq == before and current(battle).name == "Goblin"
    assert not BattleEvent.objects.filter(battle=battle, type="tactics.chose").exists()


def test_only_the_gm_and_only_for_a_monster_on_its_turn(client):
    users, _, battle = table()
    client.force_login(users["gm"])
    response = client.post(f"/battles/{battle.pk}/act", {"kind": "gm.tactics"}, **HX)
    assert response.status_code == 422 and "its player acts" in response.content.decode()
    goblins_turn(battle, users)
    client.force_login(users["player"])
    battle.refresh_from_db()
    seq = battle.seq
    response = client.post(f"/battles/{battle.pk}/act", {"kind": "gm.tactics"}, **HX)
    assert response.status_code == 403
    battle.refresh_from_db()
    assert battle.seq == seq


def test_monsters_act_on_their_own_when_the_battle_says_so():
    users = make_users(*PERSONAS)
    campaign = table_campaign(users)
    campaign.options = {**campaign.options, "monsters_act": True}
    campaign.save()
    battle = make_battle(campaign, users["gm"], make_characters(campaign, users))
    assert services.load_state(battle).options["monsters_act"] is True
    ended = services.submit_action(
        battle.pk, users["player"], {"kind": "end_turn", "actor": current(battle).id}
    )
    assert ended.ok
    assert current(battle).name == "Bram"  # the Goblin's turn was played at once
    acts = list(
        BattleEvent.objects.filter(battle=battle, data__has_key="act").values_list("data__act", flat=True)
    )
    assert acts[-2:] == ["end_turn", "gm.tactics"]  # Ayla's action, then the Goblin's turn, each its own
    assert services.undo(battle.pk, users["gm"]).ok  # undo takes back the Goblin's turn alone
    assert current(battle).name == "Goblin"
