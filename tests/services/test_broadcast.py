"""After each commit the live table is told once, with the new seq: the commands send
``battle_written``, to which ``combat.apps`` connects the live push."""

from __future__ import annotations

import pytest

from combat import live, services
from tests.services.helpers import end_turn, fresh

pytestmark = pytest.mark.django_db


@pytest.fixture
def no_push():
    """The live push disconnected for the test (connected again after it)."""
    assert services.battle_written.disconnect(dispatch_uid=live.PUSH_RECEIVER)
    yield
    services.battle_written.connect(live.on_battle_written, dispatch_uid=live.PUSH_RECEIVER)


@pytest.fixture
def calls(no_push):
    seen: list[tuple[int, int]] = []

    def heard(sender, battle_id, seq, **kwargs):
        seen.append((battle_id, seq))

    services.battle_written.connect(heard, dispatch_uid="test-broadcast")
    yield seen
    services.battle_written.disconnect(dispatch_uid="test-broadcast")


def test_the_live_push_is_connected_to_the_commands():
    assert services.battle_written.has_listeners()
    receivers = [r[1]() for r in services.battle_written.receivers]
    assert live.on_battle_written in receivers


def test_an_accepted_action_broadcasts_once_on_commit(
    battle, users, calls, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        result = end_turn(fresh(battle.pk), users)
    assert result.ok
    assert len(callbacks) == 1
    assert calls == [(battle.pk, result.seq)]


def test_a_refusal_broadcasts_nothing(battle, users, calls, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        result = services.submit_action(battle.pk, users["gm"], {"kind": "fly"}, battle.seq)
    assert not result.ok
    assert callbacks == [] and calls == []


def test_undo_broadcasts_once(battle, gm, calls, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        result = services.undo(battle.pk, gm, battle.seq)
    assert result.ok and len(callbacks) == 1
    assert result.seq < battle.seq
    assert calls == [(battle.pk, result.seq)]


def test_services_work_without_a_live_push(battle, users, no_push, django_capture_on_commit_callbacks):
    assert not services.battle_written.has_listeners()
    with django_capture_on_commit_callbacks(execute=True):
        assert end_turn(fresh(battle.pk), users).ok


def test_a_failing_broadcast_does_not_undo_the_write(
    battle, users, no_push, django_capture_on_commit_callbacks
):
    def boom(sender, **kwargs):
        raise RuntimeError("channel layer down")

    services.battle_written.connect(boom, dispatch_uid="test-boom")
    try:
        with django_capture_on_commit_callbacks(execute=True):
            result = end_turn(fresh(battle.pk), users)
    finally:
        services.battle_written.disconnect(dispatch_uid="test-boom")
    assert result.ok and fresh(battle.pk).seq == result.seq
