"""Reaction windows through the services (ENG-6): only the addressed controller or the GM answers."""

from __future__ import annotations

import pytest

from combat import services
from combat.engine.rulesets.luck.content import HEROES, MONSTERS
from tests.services.helpers import assert_snapshot_is_log, fresh, log_of
from vtt.models import Character

pytestmark = pytest.mark.django_db


def _gm_turn_until(battle_id: int, gm, combatant: str) -> None:
    for _ in range(6):
        state = services.load_state(fresh(battle_id))
        if state.current().id == combatant:
            return
        assert services.gm_override(battle_id, gm, {"kind": "gm.skip_turn"}).ok
    raise AssertionError("never reached that combatant's turn")


@pytest.fixture
def window(campaign, gm, player, other_player):
    """Bram (other_player's fighter, who can Parry) is about to be hit by the GM's goblin."""
    bram = Character.objects.create(
        campaign=campaign, owner=other_player, name="Bram", sheet=HEROES["Fighter"]
    )
    ayla = Character.objects.create(campaign=campaign, owner=player, name="Ayla", sheet=HEROES["Mage"])
    bid = services.create_battle(campaign, gm, "Ambush", 8, 8, seed=99).battle_id
    assert services.add_combatant(bid, gm, bram, pos=[3, 3]).ok
    assert services.add_combatant(bid, gm, ayla, pos=[0, 0]).ok
    goblin = {"name": "Goblin", "side": "enemy", "kind": "monster", "sheet": MONSTERS["Goblin Skirmisher"]}
    assert services.add_combatant(bid, gm, params=goblin, pos=[4, 3]).ok
    assert services.start_battle(bid, gm).ok
    state = services.load_state(fresh(bid))
    ids = {c.name: c.id for c in state.combatants.values()}
    _gm_turn_until(bid, gm, ids["Goblin"])
    attack = {
        "kind": "ability",
        "actor": ids["Goblin"],
        "params": {"weapon": "spear", "targets": [ids["Bram"]]},
    }
    # Dice are seeded by seq: when the Luck Roll misses, give the goblin its action back (one more
    # event, so fresh dice) and strike again.
    for _ in range(30):
        result = services.submit_action(bid, gm, attack, fresh(bid).seq)
        assert result.ok, result.reason
        pending = result.state.pending
        if pending is not None:
            return fresh(bid), ids, pending
        refill = {
            "kind": "gm.set_resource",
            "params": {"combatant": ids["Goblin"], "resource": "actions", "value": 2},
        }
        assert services.gm_override(bid, gm, refill).ok
    raise AssertionError("the goblin never hit")


# RULE: ENG-6
def test_the_window_is_addressed_to_the_controller_of_the_target(window, other_player):
    battle, ids, pending = window
    assert pending.combatant == ids["Bram"] and pending.controller == str(other_player.pk)
    assert "parry" in pending.choice_keys()


# RULE: ENG-6
@pytest.mark.parametrize("who", ["player", "observer", "outsider"])
def test_only_the_addressed_controller_or_gm_may_answer(window, users, who):
    battle, ids, pending = window
    log = log_of(battle.pk)
    result = services.answer_decision(battle.pk, users[who], pending.id, "parry", battle.seq)
    assert not result.ok and result.reason
    assert log_of(battle.pk) == log
    # Nor through submit_action, naming the addressee as actor.
    payload = {"kind": "answer", "actor": ids["Bram"], "params": {"decision": pending.id, "choice": "parry"}}
    assert not services.submit_action(battle.pk, users[who], payload, battle.seq).ok
    assert log_of(battle.pk) == log


# RULE: ENG-6
def test_the_controller_answers_and_the_hit_resolves(window, other_player):
    battle, ids, pending = window
    result = services.answer_decision(battle.pk, other_player, pending.id, "parry", battle.seq, "answer-1")
    assert result.ok, result.reason
    types = [e.type for e in result.events]
    assert types[0] == "decision.answered" and "interrupt.used" in types and "damage.dealt" in types
    answered = result.events[0].data
    assert (answered["choice"], answered["by"]) == ("parry", "controller")
    assert result.state.pending is None
    # Answering again (a second tap, a new token) finds the window closed.
    again = services.answer_decision(battle.pk, other_player, pending.id, "parry", result.seq, "answer-2")
    assert not again.ok and "no longer open" in again.reason
    assert_snapshot_is_log(battle.pk)


# RULE: ENG-6
def test_the_gm_answers_for_a_player(window, gm):
    battle, ids, pending = window
    result = services.answer_decision(battle.pk, gm, pending.id, "pass", battle.seq)
    assert result.ok, result.reason
    assert result.events[0].data["by"] == "gm" and "interrupt.used" not in [e.type for e in result.events]
    assert_snapshot_is_log(battle.pk)


def test_an_invalid_choice_is_refused_and_writes_nothing(window, other_player):
    battle, ids, pending = window
    log = log_of(battle.pk)
    result = services.answer_decision(battle.pk, other_player, pending.id, "fireball", battle.seq)
    assert not result.ok and "Choose one of" in result.reason
    assert log_of(battle.pk) == log


def test_turn_actions_wait_while_a_window_is_open(window, gm):
    battle, ids, pending = window
    result = services.submit_action(battle.pk, gm, {"kind": "end_turn", "actor": ids["Goblin"]}, battle.seq)
    assert not result.ok and "answer" in result.reason


# RULE: ENG-6
def test_a_gm_only_prompt_is_not_the_players_to_answer(window, other_player, gm):
    battle, ids, pending = window
    # The same window, marked as a prompt the GM rules on (rulesets open such prompts).
    snapshot = dict(battle.snapshot, pending={**battle.snapshot["pending"], "gm_only": True})
    type(battle).objects.filter(pk=battle.pk).update(snapshot=snapshot)
    log = log_of(battle.pk)
    result = services.answer_decision(battle.pk, other_player, pending.id, "parry", battle.seq)
    assert not result.ok and "not yours" in result.reason
    assert log_of(battle.pk) == log
    answered = services.answer_decision(battle.pk, gm, pending.id, "pass", battle.seq)
    assert answered.ok, answered.reason
    assert answered.events[0].data["by"] == "gm"
