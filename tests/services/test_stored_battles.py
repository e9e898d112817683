"""A battle saved before the action parameters got their present names still rebuilds, undoes and plays on.

The log holds events, never actions, so nothing is migrated: the stored D20 Luck
battle (``tests/engine/data``) was played with ``ability: "weapon:sword"`` and a
free ``step``, and waits on a parry whose resume names ``weapon:claws``.
"""

from __future__ import annotations

import pytest

from combat import services
from combat.models import Battle, BattleEvent
from tests.engine.test_params import old_log
from tests.services.helpers import assert_snapshot_is_log, fresh, normal

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
    assert_snapshot_is_log(stored.pk)
    pending = services.load_state(stored).pending
    answered = services.answer_decision(stored.pk, gm, pending.id, "parry", stored.seq)
    assert answered.ok, answered.reason
    undone = services.undo(stored.pk, gm, answered.seq)
    assert undone.ok and undone.seq == stored.seq
    assert normal(fresh(stored.pk).snapshot) == normal(stored.snapshot)  # back at the open parry
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
    assert again.events[0].data["ability"] == "weapon:claws"
    assert_snapshot_is_log(stored.pk)
