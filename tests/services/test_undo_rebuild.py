"""Undo (ENG-8) and rebuild (ENG-1): the snapshot is a cache of the log."""

from __future__ import annotations

import random

import pytest

from combat import services
from tests.services.helpers import assert_snapshot_is_log, end_turn, fresh, log_of, normal

pytestmark = pytest.mark.django_db


# RULE: ENG-8
def test_undo_repeatedly_then_rebuild_equals_snapshot(battle, users, gm):
    snapshots = {battle.seq: normal(battle.snapshot)}
    for _ in range(3):
        result = end_turn(fresh(battle.pk), users)
        assert result.ok, result.reason
        snapshots[result.seq] = normal(result.state.to_dict())
    top = fresh(battle.pk).seq
    for expected in range(top - 1, top - 6, -1):
        result = services.undo(battle.pk, gm, fresh(battle.pk).seq)
        assert result.ok, result.reason
        assert result.seq == expected == fresh(battle.pk).seq
        assert log_of(battle.pk)[-1][0] == expected
        if expected in snapshots:
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


def _random_step(rng: random.Random, battle_id: int, users: dict, gm) -> None:
    battle = fresh(battle_id)
    state = services.load_state(battle)
    current = state.current()
    roll = rng.random()
    if current is None or roll < 0.1:
        services.undo(battle_id, gm, battle.seq)
        return
    living = [c for c in state.combatants.values() if c.alive]
    target = rng.choice(living)
    if roll < 0.3:
        action = {"kind": "gm.set_hp", "params": {"combatant": target.id, "hp": rng.randint(0, target.max_hp)}}
        services.gm_override(battle_id, gm, action, battle.seq)
    elif roll < 0.5:
        x, y = rng.randrange(state.width), rng.randrange(state.height)
        services.submit_action(
            battle_id, gm, {"kind": "move", "actor": current.id, "params": {"to": [x, y]}}, battle.seq
        )
    else:
        end_turn(battle, users)


# RULE: ENG-1
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_rebuild_equals_snapshot_after_a_random_sequence(campaign, gm, characters, users, seed):
    from tests.services.conftest import make_battle

    battle = make_battle(campaign, gm, characters, seed=seed)
    rng = random.Random(seed)
    for _ in range(40):
        _random_step(rng, battle.pk, users, gm)
    assert fresh(battle.pk).seq > 5
    assert_snapshot_is_log(battle.pk)
