"""What happened, in the words each seat reads: the outcome lines of an action and a player's notice.

Issue 35: a three-claw attack told only its last hit ("0 damage (HP 309)" while HP fell 320 -> 309);
the GM never read what a player's action did; the player's own damage roll lost its total ("Mira rolls
damage." beside "= 3"). Every sentence here comes through the engine's projection for its viewer
(``combat.outcome.shown_to``: ``told.Told.event``), as the pages use it.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.urls import reverse

from combat import live, services
from combat.engine.actions import Action, Refusal
from combat.engine.core import replay, resolve
from combat.engine.dice import Dice
from combat.engine.rulesets.mist.content import HEROES, MONSTERS
from combat.engine.testing import Battle
from combat.engine.told import Teller
from combat.engine.view import Viewer
from combat.outcome import notices, outcome_for, outcome_text, shown_to, watch_line
from combat.table import load_table
from tests.content import sheet_post
from tests.table import goblin_attacks_bram, table

HX = {"HTTP_HX_REQUEST": "true"}
OUTCOME = re.compile(r'<p id="outcome"[^>]*>(.*?)</p>', re.S)
GM, PLAYER = Viewer("gm"), Viewer("player", "u1")


def _claws() -> tuple[list, int, Any, str]:
    """A Goblin's turn played by the tactics against Mira (a Mist Knight), its claws landing at least
    three times: (the turn's events, Mira's HP before, the state after, Mira's id)."""
    b = Battle("mist", width=6, height=4, seed=3)
    mira = b.add("Mira", "party", pos=(1, 1), controller="u1", **HEROES["Knight"])
    goblin = b.add("Goblin", "enemy", pos=(2, 1), kind="monster", **MONSTERS["Goblin"])
    b.log += resolve(b.state, Action("setup.start"), Dice(3, 1))[0]
    state = replay(b.log)
    while state.current().id != goblin:
        state = resolve(state, Action("end_turn", state.current().id), Dice(3, 2))[1]
    before = state.combatants[mira].hp
    for seed in range(300):
        out = resolve(state, Action("gm.tactics"), Dice(seed, 9))
        assert not isinstance(out, Refusal), out.reason
        events, after = out
        if sum(e.type == "damage.dealt" and e.data["target"] == mira for e in events) >= 3:
            return [(e.type, e.data) for e in events], before, after, mira
    raise AssertionError("no seed lets three claws land")


def test_a_three_claw_attack_is_told_whole_with_its_total():
    events, before, state, mira = _claws()
    after = state.combatants[mira].hp
    amounts = [d["amount"] for t, d in events if t == "damage.dealt" and d["target"] == mira]
    total = sum(amounts)
    assert total == before - after  # what the line adds up is what Mira lost
    said = f"{len(amounts)} hits on Mira: {' + '.join(map(str, amounts))} = {total} damage (HP {after})"
    # The GM, who let the tactics act, reads every hit and the total; so does Mira's player, by the board.
    assert said in outcome_for(events, state, GM)
    shown, names, hidden = shown_to(events, state, Viewer("player"))
    line = watch_line(shown, names, hidden)
    assert line.startswith("Goblin: ") and said in line, line
    assert line.count("damage") == 1  # said once, not hit by hit
    # Her notice tells every hit, not only the last.
    rows = [(n, t, d) for n, (t, d) in enumerate(events, start=10)][::-1]
    told = [n["text"] for n in notices(rows, {mira}, Teller(state, PLAYER))]
    assert told == [
        f"Mira is hit {len(amounts)} times by Goblin: {' + '.join(map(str, amounts))} = {total} damage (HP {after})."
    ]


def test_hits_on_a_hidden_enemy_are_told_without_a_number():
    hits = [
        ("damage.dealt", {"actor": "a", "target": "g", "zero": False}),
        ("damage.dealt", {"actor": "a", "target": "g", "zero": True}),
    ]
    line = outcome_text(hits, {"a": "Kai", "g": "Goblin"}, {"g"})
    assert line == "Hit! Goblin is hurt (2 hits)." and not re.search(r"\d+ damage", line)
    nothing = [(t, {**d, "zero": True}) for t, d in hits]
    assert (
        outcome_text(nothing, {"a": "Kai", "g": "Goblin"}, {"g"}) == "Hit! Goblin takes no damage (2 hits)."
    )
    # Seen HP, every hit stopped: no sum of zeros.
    zeros = [(t, {"actor": "a", "target": "g", "amount": 0, "hp": 9}) for t, _ in hits]
    assert outcome_text(zeros, {"a": "Kai", "g": "Goblin"}, set()) == "Hit! Goblin takes no damage (2 hits)."


def test_a_miss_and_the_end_of_a_turn_say_who():
    names = {"a": "Kai", "g": "Goblin"}
    ended = [("turn.ended", {"combatant": "a", "act": "end_turn"}), ("turn.started", {"combatant": "g"})]
    assert outcome_text(ended, names, set()) == watch_line(ended, names, set()) == "Kai ends the turn."
    missed = [("luck.rolled", {"actor": "a", "target": "g", "total": 3, "outcome": "miss", "act": "ability"})]
    assert outcome_text(missed, names, set()) == "Miss. Goblin is not hit."
    assert watch_line(missed, names, set()) == "Kai: Miss. Goblin is not hit."


@pytest.mark.django_db
def test_the_gm_reads_by_the_board_what_a_players_action_did(client):
    users, _, battle = table()
    state = services.load_state(battle)
    goblin = next(c for c in state.combatants.values() if c.name == "Goblin")
    result = services.submit_action(
        battle.pk,
        users["player"],
        {
            "kind": "ability",
            "actor": state.current().id,
            "params": {"ability": "fire_bolt", "targets": [goblin.id]},
        },
        battle.seq,
    )
    assert result.ok, result.reason
    lines = {}
    for name in ("gm", "player", "other_player", "observer"):
        client.force_login(users[name])
        page = client.get(reverse("battle", args=[battle.pk])).content.decode()
        lines[name] = OUTCOME.search(page).group(1)
    # The GM reads the damage the Goblin took; the table hides its HP from the players: only the dice.
    assert lines["gm"] == "Ayla: Hit! 6 damage to Goblin — 2d6 [3, 4] = 7."
    assert (
        lines["player"]
        == lines["other_player"]
        == lines["observer"]
        == "Ayla: Hit! Goblin is hurt — 2d6 [3, 4] = 7."
    )
    # The push of the change carries the same line to each class.
    message = live.message_for(load_table(battle.pk, state=result.state), result.events)
    assert OUTCOME.search(message["gm"]).group(1) == lines["gm"]
    assert OUTCOME.search(message["pl"]).group(1) == lines["player"]
    assert "6 damage" not in message["pl"]


@pytest.mark.django_db
def test_the_players_own_damage_roll_keeps_its_total(client):
    users, _, battle = table()
    state = services.load_state(battle)
    goblin = next(c for c in state.combatants.values() if c.name == "Goblin")
    client.force_login(users["player"])
    reply = client.post(
        reverse("battle_act", args=[battle.pk]),
        {
            "kind": "ability",
            "actor": state.current().id,
            "params": '{"ability": "fire_bolt"}',
            "target": goblin.id,
            "expected_seq": str(battle.seq),
        },
        **HX,
    ).content.decode()
    # Her own line, with the dice she rolled and their total; her log line says the total too.
    assert "Hit! Goblin is hurt — 2d6 [3, 4] = 7." in reply
    assert "Ayla rolls 7 damage." in reply and "Ayla rolls damage." not in reply
    client.force_login(users["gm"])
    assert "Ayla rolls 7 damage." in client.get(reverse("battle", args=[battle.pk])).content.decode()


@pytest.mark.django_db
def test_an_answer_is_told_as_the_answerers_part_in_the_attackers_action(client):
    users, _, battle = table()
    asked = goblin_attacks_bram(battle, users).state.pending
    assert asked is not None and asked.default == "parry"
    client.force_login(users["other_player"])
    reply = client.post(
        reverse("battle_act", args=[battle.pk]),
        {"kind": "answer", "actor": asked.combatant, "decision": asked.id, "choice": "parry"},
        **HX,
    ).content.decode()
    # Bram reads his Parry and what it left of the spear's hit; the GM reads whose attack it was.
    own = re.search(r'<p class="msg ok outcome"[^>]*>(.*?)</p>', reply).group(1)
    assert own.startswith("Hit! Bram interrupts Goblin with Parry; "), own
    client.force_login(users["gm"])
    line = OUTCOME.search(client.get(reverse("battle", args=[battle.pk])).content.decode()).group(1)
    assert line.startswith("Goblin: Hit! Bram interrupts Goblin with Parry; Bram "), line


@pytest.mark.django_db
def test_a_banner_of_an_earlier_page_does_not_follow_onto_the_battle_page(client):
    """ "Mira created." left unread (its page never shown) is not the battle's news; the battle's own
    messages (an action posted without scripts) still show there."""
    users, campaign, battle = table()
    schema = campaign.ruleset_class.sheet_schema
    client.force_login(users["player"])
    data = sheet_post(schema, schema.defaults(), name="Mira", portrait="")
    created = client.post(reverse("character_create", args=[campaign.pk]), data)
    assert created.status_code == 302  # to the campaign page, which is not opened here
    page = client.get(reverse("battle", args=[battle.pk])).content.decode()
    assert "Mira created." not in page
    state = services.load_state(battle)
    acted = client.post(
        reverse("battle_act", args=[battle.pk]),
        {"kind": "end_turn", "actor": state.current().id, "expected_seq": str(battle.seq)},
    )
    assert acted.status_code == 302
    page = client.get(reverse("battle", args=[battle.pk])).content.decode()
    assert re.search(r'<p class="message message-success">\s*Ayla ends the turn\.</p>', page), page[-3000:]
    assert "Mira created." not in client.get(reverse("campaign", args=[campaign.pk])).content.decode()
