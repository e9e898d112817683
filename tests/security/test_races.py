"""Races: ten taps for the same turn at the same instant, each from its own database connection.

On PostgreSQL (CI) the battle row lock (SELECT ... FOR UPDATE) serialises
them; on SQLite the IMMEDIATE transaction mode does. Either way exactly one
submission is accepted, the others are refused as stale (or, for a double
tap with one client_token, answered with the first result), seq stays
contiguous, no event is lost or written twice, and the snapshot equals the
replayed log. Several trials each, on a fresh battle.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.db import connection
from django.test import Client

from combat import services
from combat.models import Battle, BattleEvent
from tests.races import race
from tests.security.conftest import combatant_named, make_world
from tests.table import make_battle

# The lock differs by database (a row lock on PostgreSQL, an IMMEDIATE transaction on SQLite): make test
# runs these on both when DATABASE_URL is PostgreSQL.
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.every_database]

SEATS = 10
TRIALS = 4


def _race(jobs: list[Callable[[], Any]]) -> list[Any]:
    """Run every job at once (a barrier), each thread on its own connection."""
    return race(jobs, barrier_timeout=20)


def _assert_log_is_whole(battle_id: int) -> list[int]:
    seqs = list(BattleEvent.objects.filter(battle_id=battle_id).order_by("seq").values_list("seq", flat=True))
    battle = Battle.objects.get(pk=battle_id)
    assert seqs == list(range(1, battle.seq + 1)), "seq is not contiguous"
    assert services.rebuild(battle_id).to_dict() == battle.snapshot, "snapshot differs from the replayed log"
    return seqs


def _ten_different_taps(world: dict[str, Any], battle: Battle) -> list[dict[str, Any]]:
    """Ayla's turn: her owner and the GM each tap a different legal action."""
    ayla = combatant_named(battle, "Ayla")
    goblin = combatant_named(battle, "Goblin")
    actions = [
        {"kind": "end_turn", "actor": ayla, "params": {}},
        {"kind": "ability", "actor": ayla, "params": {"ability": "fire_bolt", "targets": [goblin]}},
        {"kind": "ability", "actor": ayla, "params": {"ability": "flash", "targets": [goblin]}},
        {"kind": "move", "actor": ayla, "params": {"to": [1, 0]}},
        {"kind": "move", "actor": ayla, "params": {"to": [1, 1]}},
    ]
    return [actions[i % len(actions)] for i in range(SEATS)]


@pytest.fixture
def world():
    return make_world()


@pytest.mark.parametrize("trial", range(TRIALS))
def test_ten_submissions_for_the_same_turn_accept_exactly_one(world, trial, tally):
    battle = make_battle(world["campaign"], world["users"]["gm"], world["characters"], name=f"Race {trial}")
    before = battle.seq
    users = [world["users"]["player"] if i % 2 else world["users"]["gm"] for i in range(SEATS)]
    taps = _ten_different_taps(world, battle)
    jobs = [
        (lambda u=u, a=a, i=i: services.submit_action(battle.pk, u, a, before, f"race-{trial}-{i}"))
        for i, (u, a) in enumerate(zip(users, taps, strict=True))
    ]
    results = _race(jobs)
    accepted = [r for r in results if r.ok]
    assert len(accepted) == 1, [r.reason for r in results]
    assert all(r.reason == services.STALE for r in results if not r.ok)
    battle.refresh_from_db()
    assert battle.seq == before + len(accepted[0].events)
    _assert_log_is_whole(battle.pk)
    tokens = set(
        BattleEvent.objects.filter(battle=battle, seq__gt=before).values_list("client_token", flat=True)
    )
    assert len(tokens) == 1, "events of more than one submission were written"
    tally[f"racers on {connection.vendor}"] += len(results)


@pytest.mark.parametrize("trial", range(TRIALS))
def test_a_double_tap_with_one_client_token_acts_once(world, trial, tally):
    """Ten posts of one form (same client_token) through HTTP: one action, ten success answers."""
    battle = make_battle(world["campaign"], world["users"]["gm"], world["characters"], name=f"Tap {trial}")
    before = battle.seq
    ayla, goblin = combatant_named(battle, "Ayla"), combatant_named(battle, "Goblin")
    post = {
        "kind": "ability",
        "actor": ayla,
        "params": '{"ability": "fire_bolt"}',
        "target": goblin,
        "expected_seq": str(before),
        "client_token": f"tap-{trial}",
    }
    clients = []
    for _ in range(SEATS):
        client = Client()
        client.force_login(world["users"]["player"])
        clients.append(client)
    url = f"/battles/{battle.pk}/act"
    responses = _race([(lambda c=c: c.post(url, post, HTTP_HX_REQUEST="true")) for c in clients])
    assert [r.status_code for r in responses] == [200] * SEATS, [r.content[:200] for r in responses]
    bodies = [r.content.decode() for r in responses]
    assert sum("counted once" in b for b in bodies) == SEATS - 1
    battle.refresh_from_db()
    written = BattleEvent.objects.filter(battle=battle, seq__gt=before)
    assert written.count() == battle.seq - before > 0
    assert set(written.values_list("client_token", flat=True)) == {f"tap-{trial}"}
    assert written.filter(type="ability.used").count() == 1
    _assert_log_is_whole(battle.pk)
    tally[f"racers on {connection.vendor}"] += len(responses)


@pytest.mark.parametrize("trial", range(TRIALS))
def test_ten_end_turns_without_a_seq_end_one_turn(world, trial, tally):
    """No expected_seq: the engine itself refuses the late ones (no longer Ayla's turn)."""
    battle = make_battle(world["campaign"], world["users"]["gm"], world["characters"], name=f"End {trial}")
    before_state = services.load_state(battle)
    ayla = combatant_named(battle, "Ayla")
    action = {"kind": "end_turn", "actor": ayla, "params": {}}
    results = _race(
        [
            (
                lambda i=i: services.submit_action(
                    battle.pk, world["users"]["player"], action, None, f"end-{trial}-{i}"
                )
            )
            for i in range(SEATS)
        ]
    )
    assert sum(r.ok for r in results) == 1, [r.reason for r in results]
    battle.refresh_from_db()
    after = services.load_state(battle)
    assert after.current().id != ayla and (after.turn, after.round) != (before_state.turn, before_state.round)
    _assert_log_is_whole(battle.pk)
    tally[f"racers on {connection.vendor}"] += len(results)


@pytest.mark.parametrize("trial", range(TRIALS))
def test_undo_racing_actions_and_overrides_keeps_one(world, trial, tally):
    """The GM's undo, the GM's override and the player's action, all on the same seq: one wins."""
    battle = make_battle(world["campaign"], world["users"]["gm"], world["characters"], name=f"Undo {trial}")
    before = battle.seq
    gm, player = world["users"]["gm"], world["users"]["player"]
    ayla, goblin = combatant_named(battle, "Ayla"), combatant_named(battle, "Goblin")
    jobs: list[Callable[[], Any]] = []
    for i in range(SEATS):
        if i % 3 == 0:
            jobs.append(lambda: services.undo(battle.pk, gm, before))
        elif i % 3 == 1:
            jobs.append(
                lambda i=i: services.gm_override(
                    battle.pk,
                    gm,
                    {"kind": "gm.set_hp", "params": {"combatant": goblin, "hp": 100 + i}},
                    before,
                    f"o{i}",
                )
            )
        else:
            jobs.append(
                lambda i=i: services.submit_action(
                    battle.pk, player, {"kind": "end_turn", "actor": ayla, "params": {}}, before, f"a{i}"
                )
            )
    results = _race(jobs)
    accepted = [r for r in results if r.ok]
    assert len(accepted) == 1, [r.reason for r in results]
    assert all(r.reason == services.STALE for r in results if not r.ok)
    battle.refresh_from_db()
    assert battle.seq == accepted[0].seq
    _assert_log_is_whole(battle.pk)
    tally[f"racers on {connection.vendor}"] += len(results)
