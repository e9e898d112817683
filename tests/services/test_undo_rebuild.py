"""Undo (ENG-8) and rebuild (ENG-1): the snapshot is a cache of the log."""

from __future__ import annotations

import random

import pytest

from combat import services
from combat.engine.autoplay import random_action
from combat.engine.rulesets.luck.content import HEROES, MONSTERS
from tests.services.helpers import assert_snapshot_is_log, end_turn, fresh, log_of, normal
from vtt.models import Character

pytestmark = pytest.mark.django_db


# RULE: ENG-8
def test_undo_repeatedly_takes_back_whole_actions_and_rebuild_equals_snapshot(battle, users, gm):
    seqs = [battle.seq]
    snapshots = {battle.seq: normal(battle.snapshot)}
    for _ in range(3):
        result = end_turn(fresh(battle.pk), users)
        assert result.ok, result.reason
        assert result.seq - seqs[-1] > 1  # an end of turn writes several events
        seqs.append(result.seq)
        snapshots[result.seq] = normal(result.state.to_dict())
    for expected in reversed(seqs[:-1]):
        result = services.undo(battle.pk, gm, fresh(battle.pk).seq)
        assert result.ok, result.reason
        assert result.seq == expected == fresh(battle.pk).seq
        assert log_of(battle.pk)[-1][0] == expected
        assert normal(fresh(battle.pk).snapshot) == snapshots[expected]
        assert_snapshot_is_log(battle.pk)


# RULE: ENG-8
def test_undo_never_removes_the_battle_created_event(campaign, gm):
    created = services.create_battle(campaign, gm, "Empty", 4, 4, seed=3)
    result = services.undo(created.battle_id, gm)
    assert not result.ok and "nothing to undo" in result.reason
    assert log_of(created.battle_id) == [(1, "battle.created")]


def test_undo_refuses_a_stale_seq(battle, gm):
    log = log_of(battle.pk)
    assert services.undo(battle.pk, gm, battle.seq - 1).reason == services.STALE
    assert log_of(battle.pk) == log


def test_undo_back_to_setup_restores_the_setup_status(battle, gm):
    while fresh(battle.pk).status != "setup":
        assert services.undo(battle.pk, gm).ok
    assert_snapshot_is_log(battle.pk)


def _acting_user(state, action, users: dict):
    """Who submits ``action``: the controller of the acting (or answering) combatant, else the GM."""
    by_id = {str(u.pk): u for u in users.values()}
    controller = state.combatants[action.actor].controller if action.actor else None
    return by_id.get(controller, users["gm"])


def _random_step(rng: random.Random, battle_id: int, users: dict) -> str:
    """One random move through the services: mostly legal actions by their controllers; some undo and GM."""
    battle = fresh(battle_id)
    state = services.load_state(battle)
    gm = users["gm"]
    roll = rng.random()
    action = random_action(state, rng)
    if action is None or roll < 0.08:
        return "undo" if services.undo(battle_id, gm, battle.seq).ok else "refused"
    if roll < 0.16:
        target = rng.choice(list(state.combatants.values()))
        hp = {"kind": "gm.set_hp", "params": {"combatant": target.id, "hp": rng.randint(1, target.max_hp)}}
        assert services.gm_override(battle_id, gm, hp, battle.seq).ok
        return "gm"
    result = services.submit_action(battle_id, _acting_user(state, action, users), action, battle.seq)
    assert result.ok, (action, result.reason)
    return action.kind


# RULE: ENG-1
@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_rebuild_equals_snapshot_after_a_random_sequence(campaign, gm, player, other_player, users, seed):
    bid = services.create_battle(campaign, gm, "Skirmish", 8, 6, [[4, 2]], seed=seed).battle_id
    for name, owner, sheet, pos in (
        ("Ayla", player, HEROES["Mage"], [0, 1]),
        ("Bram", other_player, HEROES["Fighter"], [1, 3]),
    ):
        character = Character.objects.create(campaign=campaign, owner=owner, name=name, sheet=sheet)
        assert services.add_combatant(bid, gm, character, pos=pos).ok
    for name, pos in (("Goblin Skirmisher", [6, 1]), ("Cave Bear", [6, 4])):
        monster = {"name": name, "side": "enemy", "kind": "monster", "sheet": MONSTERS[name]}
        assert services.add_combatant(bid, gm, params=monster, pos=pos).ok
    assert services.start_battle(bid, gm).ok
    rng = random.Random(seed)
    done = [_random_step(rng, bid, users) for _ in range(60)]
    assert fresh(bid).seq > 30 and {"undo", "gm", "end_turn"} <= set(done)
    assert_snapshot_is_log(bid)
