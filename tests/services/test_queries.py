"""Queries per accepted action are constant: they do not grow with the log."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from combat import services
from tests.services.helpers import current_controller, fresh

pytestmark = pytest.mark.django_db


def _grow(battle, gm, size: int) -> None:
    goblin = next(c for c in services.load_state(battle).combatants.values() if c.name == "Goblin")
    while fresh(battle.pk).seq < size:
        hp = 1 + fresh(battle.pk).seq % 10
        action = {"kind": "gm.set_hp", "params": {"combatant": goblin.id, "hp": hp}}
        assert services.gm_override(battle.pk, gm, action).ok


def _queries_for_one_action(battle, users) -> list[str]:
    battle = fresh(battle.pk)
    actor, user = current_controller(battle, users)
    action = {"kind": "end_turn", "actor": actor, "params": {}}
    with CaptureQueriesContext(connection) as ctx:
        result = services.submit_action(battle.pk, user, action, battle.seq, f"tok-{battle.seq}")
    assert result.ok, result.reason
    return [q["sql"] for q in ctx.captured_queries if "SAVEPOINT" not in q["sql"]]


def test_queries_per_accepted_action_do_not_grow_with_the_log(campaign, gm, characters, users):
    from tests.services.conftest import make_battle

    short = make_battle(campaign, gm, characters)
    long = make_battle(campaign, gm, characters)
    _grow(long, gm, 200)
    assert fresh(short.pk).seq <= 12 and fresh(long.pk).seq >= 200
    few, many = _queries_for_one_action(short, users), _queries_for_one_action(long, users)
    # Lock and read the battle (with the caller's role and the token check), insert the events, update it.
    assert len(few) == len(many) == 3, many
