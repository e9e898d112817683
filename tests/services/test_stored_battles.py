"""A battle saved before the action parameters got their present names still rebuilds, undoes and plays on.

The log holds events, never actions, so nothing is migrated: the stored D20 Luck
battle (``tests/engine/data``) was played with ``ability: "weapon:sword"`` and a
free ``step``, and waits on a parry whose resume names ``weapon:claws``. The stored
Action Block battle holds a grapple whose applier is named ``by_id`` (today ``by``).
"""

from __future__ import annotations

import pytest

from combat import services
from combat.models import Battle, BattleEvent
from tests.services.helpers import assert_snapshot_is_log, before_veil, fresh, normal
from tests.stored_logs import old_log, stored_log

pytestmark = pytest.mark.django_db


@pytest.fixture
def stored(campaign):
    events, snapshot = old_log()
    battle = Battle.objects.create(
        campaign=campaign,
        name="Saved",
        ruleset="luck",
        seed=7,
        status="active",
        snapshot=snapshot,
        seq=len(events),
    )
    BattleEvent.objects.bulk_create(
        BattleEvent(battle=battle, seq=i, type=e.type, data=e.data) for i, e in enumerate(events, 1)
    )
    return battle


# RULE: ENG-8
def test_a_battle_saved_with_the_old_names_rebuilds_undoes_and_goes_on_with_the_new(stored, gm):
    assert_snapshot_is_log(stored.pk, stored_before_veil=True)
    pending = services.load_state(stored).pending
    answered = services.answer_decision(stored.pk, gm, pending.id, "parry", stored.seq)
    assert answered.ok, answered.reason
    undone = services.undo(stored.pk, gm, answered.seq)
    assert undone.ok and undone.seq == stored.seq
    assert before_veil(fresh(stored.pk).snapshot) == normal(stored.snapshot)  # back at the open parry
    undone = services.undo(stored.pk, gm, undone.seq)  # the Orc's claws, named "weapon:claws" in the log
    assert undone.ok and undone.state.pending is None
    orc, ash = (c for c in sorted(undone.state.combatants.values(), key=lambda c: c.name, reverse=True))
    assert undone.state.current().id == orc.id
    again = services.submit_action(
        stored.pk,
        gm,
        {"kind": "ability", "actor": orc.id, "params": {"weapon": "claws", "targets": [ash.id]}},
        undone.seq,
    )
    assert again.ok, again.reason
    assert again.events[0].data["weapon"] == "claws" and "ability" not in again.events[0].data
    assert_snapshot_is_log(stored.pk)


@pytest.fixture
def grapple_stored(campaign):
    """An Action Block battle saved while ``by_id`` named who holds a grappled combatant (the Orc's turn)."""
    events, snapshot = stored_log("block_log_before_status_by.json")
    battle = Battle.objects.create(
        campaign=campaign,
        name="Grapple",
        ruleset="action-block",
        seed=7,
        status="active",
        snapshot=snapshot,
        seq=len(events),
    )
    BattleEvent.objects.bulk_create(
        BattleEvent(battle=battle, seq=i, type=e.type, data=e.data) for i, e in enumerate(events, 1)
    )
    return battle


# RULE: ENG-8
def test_a_grapple_saved_with_by_id_reads_breaks_free_and_undoes(grapple_stored, gm):
    battle = grapple_stored
    assert battle.snapshot["combatants"]["c2"]["statuses"]["grappled"] == {
        "power": 0,
        "duration": 1,
        "by_id": "c1",
    }
    state = services.load_state(battle)
    assert state.combatants["c2"].statuses["grappled"] == {"power": 0, "duration": 1, "by": "c1"}
    assert before_veil(services.rebuild(battle.pk).to_dict()) == normal(state.to_dict())
    tried = services.submit_action(
        battle.pk, gm, {"kind": "break_free", "actor": "c2", "params": {}}, battle.seq
    )
    assert tried.ok, tried.reason
    attempt = next(e for e in tried.events if e.type == "grapple.break_attempted")
    assert attempt.data["evasion"] == 7  # Ash, found through the stored grapple, is unarmoured
    assert_snapshot_is_log(battle.pk)  # saved again, the snapshot has today's names
    undone = services.undo(battle.pk, gm, tried.seq)
    assert undone.ok and undone.seq == battle.seq
    assert undone.state.combatants["c2"].statuses["grappled"]["by"] == "c1"
    assert_snapshot_is_log(battle.pk)
