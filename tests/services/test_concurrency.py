"""Two submissions for the same turn at the same moment: exactly one is accepted.

Each thread has its own database connection. On PostgreSQL the battle row is
locked with SELECT ... FOR UPDATE; on SQLite the IMMEDIATE transaction mode
(settings) takes the write lock at BEGIN. Either way the second submission
sees the first one's seq and is refused as stale, writing nothing.
"""

from __future__ import annotations

import threading
import time
from functools import partial

import pytest
from django.db import connection, connections, transaction

from combat import services, store
from combat.models import Battle, BattleEvent
from tests.races import race
from tests.services.helpers import assert_snapshot_is_log, current_controller, fresh

pytestmark = pytest.mark.django_db(transaction=True)


def _race(battle_id: int, submissions: list[tuple]) -> list[services.Result]:
    return race([partial(services.submit_action, battle_id, *s) for s in submissions])


def test_two_concurrent_submissions_for_the_same_turn_accept_exactly_one(campaign, gm, characters, users):
    from tests.services.conftest import make_battle

    battle = make_battle(campaign, gm, characters)
    actor, user = current_controller(battle, users)
    action = {"kind": "end_turn", "actor": actor, "params": {}}
    before = battle.seq
    # The owner and the GM both end the same turn, each from their own connection.
    results = _race(battle.pk, [(user, action, before, "from-owner"), (gm, action, before, "from-gm")])
    accepted = [r for r in results if r.ok]
    refused = [r for r in results if not r.ok]
    assert len(accepted) == 1 and len(refused) == 1, [r.reason for r in results]
    assert refused[0].reason == services.STALE
    after = fresh(battle.pk)
    assert after.seq == accepted[0].seq == before + len(accepted[0].events)
    assert BattleEvent.objects.filter(battle=after, seq__gt=before).count() == len(accepted[0].events)
    assert_snapshot_is_log(battle.pk)


def test_many_concurrent_submissions_keep_seq_contiguous(campaign, gm, characters, users):
    from tests.services.conftest import make_battle

    battle = make_battle(campaign, gm, characters)
    goblin = next(c for c in services.load_state(battle).combatants.values() if c.name == "Goblin")
    # No expected_seq: every GM override should land, one after the other.
    subs = [
        (gm, {"kind": "gm.set_hp", "params": {"combatant": goblin.id, "hp": hp}}, None, f"hp-{hp}")
        for hp in range(1, 7)
    ]
    results = _race(battle.pk, subs)
    assert all(r.ok for r in results), [r.reason for r in results]
    assert sorted(r.seq for r in results) == list(range(battle.seq + 1, battle.seq + 7))
    assert_snapshot_is_log(battle.pk)
    assert connection.vendor in ("sqlite", "postgresql")


@pytest.mark.parametrize("with_seq", [True, False])
def test_a_double_tap_that_waited_for_the_lock_returns_the_first_result(
    campaign, gm, characters, users, with_seq
):
    """The second tap blocks on the battle lock while the first commits; it must not act again.

    On PostgreSQL the waiting SELECT ... FOR UPDATE sees the new battle row but
    its token subquery reads the older snapshot: services must ask again.
    """
    from tests.services.conftest import make_battle

    battle = make_battle(campaign, gm, characters)
    goblin = next(c for c in services.load_state(battle).combatants.values() if c.name == "Goblin")
    action = {"kind": "gm.set_hp", "params": {"combatant": goblin.id, "hp": 4}}
    before = battle.seq
    started, second = threading.Event(), []

    def tap_again() -> None:
        try:
            started.set()
            second.append(services.gm_override(battle.pk, gm, action, before if with_seq else None, "tap"))
        finally:
            connections.close_all()

    thread = threading.Thread(target=tap_again)
    with transaction.atomic():
        Battle.objects.select_for_update().get(pk=battle.pk)  # hold the lock while the second tap arrives
        thread.start()
        started.wait(5)
        time.sleep(0.5)  # let it block on the lock
        first = services.gm_override(battle.pk, gm, action, before, "tap")
    thread.join(timeout=30)
    assert first.ok and not first.duplicate
    assert second and second[0].ok and second[0].duplicate, second and second[0].reason
    assert second[0].seq == first.seq == fresh(battle.pk).seq
    assert BattleEvent.objects.filter(battle_id=battle.pk, client_token="tap").count() == len(first.events)
    assert_snapshot_is_log(battle.pk)


def test_sqlite_writers_queue_on_a_process_lock_and_others_on_the_row_lock():
    """On SQLite a service's write transaction holds the process's writer lock (not a nested one); never on PostgreSQL."""
    with store.writing():
        held = store.SQLITE_WRITER.locked()
    assert held == (connection.vendor == "sqlite")
    assert not store.SQLITE_WRITER.locked()
    with transaction.atomic(), store.writing():  # already in a transaction: it holds SQLite's write lock
        assert not store.SQLITE_WRITER.locked()
