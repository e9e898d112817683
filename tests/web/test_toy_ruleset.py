"""The guide's toy ruleset (docs/RULESET_GUIDE.md) on a battle page, registered and nothing else.

Its own event (``attack.missed``, described in the guide's ``toy/events.py``)
reaches the actor's outcome line and every viewer's log in its own words: no
core file knows it.
"""

from __future__ import annotations

from html import unescape

import pytest

from combat import services
from combat.engine.rulesets import RULESETS
from tests.table import make_campaign, make_character
from tests.toy import build_toy_from_the_guide
from vtt.models import CharacterKind

pytestmark = pytest.mark.django_db
HX = {"HTTP_HX_REQUEST": "true"}
SENTENCE = "Quo ducks under Pia's blow."


@pytest.fixture
def toy(monkeypatch, tmp_path):
    monkeypatch.setitem(RULESETS, "toy", build_toy_from_the_guide(tmp_path))


def test_a_toy_battle_logs_the_toys_own_event_in_its_own_words(client, toy, gm, player):
    # RULE: ENG-2
    campaign = make_campaign(gm, "toy", player=[player])
    pia = make_character(campaign, "Pia", owner=player)
    quo = make_character(campaign, "Quo", kind=CharacterKind.MONSTER)
    made = services.create_battle(campaign, gm, "Rows", 4, 4, ruleset="toy", seed=3)
    assert made.ok, made.reason
    battle_id = made.battle_id
    assert services.add_combatant(battle_id, gm, pia, row="back").ok
    assert services.add_combatant(battle_id, gm, quo, row="front").ok
    state = services.start_battle(battle_id, gm).state
    ids = {c.name: c.id for c in state.combatants.values()}
    client.force_login(player)
    outcomes = []
    for _ in range(8):  # Quo dodges every blow (its policy): 2d6 under 8 misses, so one of 8 misses
        if state.current().name == "Quo":
            state = services.submit_action(battle_id, gm, {"kind": "end_turn", "actor": ids["Quo"]}).state
        data = {
            "kind": "hit",
            "actor": ids["Pia"],
            "params": "{}",
            "target": ids["Quo"],
            "expected_seq": state.seq,
        }
        response = client.post(f"/battles/{battle_id}/act", data, **HX)
        assert response.status_code == 200
        outcomes.append(unescape(response.content.decode()))
        state = services.rebuild(battle_id)
        if any(SENTENCE in html for html in outcomes):
            break
    missed = next(html for html in outcomes if SENTENCE in html)  # the new log line, pushed with the reply
    assert "Miss." in missed  # the outcome line reads the event's verdict
    for user in (player, gm):
        client.force_login(user)
        page = unescape(client.get(f"/battles/{battle_id}/").content.decode())
        assert SENTENCE in page and "Pia: attack missed" not in page  # its own words, not the generic ones
