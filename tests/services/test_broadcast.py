"""After each commit the live table is told once, with the new seq."""

from __future__ import annotations

import sys
import types

import pytest

from combat import services
from tests.services.helpers import end_turn, fresh

pytestmark = pytest.mark.django_db


@pytest.fixture
def calls(monkeypatch):
    seen: list[tuple[int, int]] = []
    live = types.ModuleType("combat.live")
    live.battle_changed = lambda battle_id, seq: seen.append((battle_id, seq))
    monkeypatch.setitem(sys.modules, "combat.live", live)
    return seen


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


def test_services_work_without_a_live_module(battle, users, monkeypatch, django_capture_on_commit_callbacks):
    monkeypatch.setitem(sys.modules, "combat.live", None)  # import raises ModuleNotFoundError
    with django_capture_on_commit_callbacks(execute=True):
        assert end_turn(fresh(battle.pk), users).ok


def test_a_failing_broadcast_does_not_undo_the_write(
    battle, users, monkeypatch, django_capture_on_commit_callbacks
):
    live = types.ModuleType("combat.live")

    def boom(battle_id, seq):
        raise RuntimeError("channel layer down")

    live.battle_changed = boom
    monkeypatch.setitem(sys.modules, "combat.live", live)
    with django_capture_on_commit_callbacks(execute=True):
        result = end_turn(fresh(battle.pk), users)
    assert result.ok and fresh(battle.pk).seq == result.seq
