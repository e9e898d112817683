"""Queries per accepted action are constant: they do not grow with the log."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from combat import services, store
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
    # Lock and read the battle (with the caller's role and the token check), insert the events, update
    # it: on PostgreSQL the insert and the update are one statement.
    assert len(few) == len(many) == (2 if connection.vendor == "postgresql" else 3), many


def _orm_lock(battle_id, user, token):
    """The locking read as the ORM would write it (the reference for the raw statement)."""
    from django.contrib.auth.models import AnonymousUser
    from django.db.models import Exists, OuterRef, Subquery

    from combat.models import Battle, BattleEvent
    from vtt.models import Membership

    user_id = None if isinstance(user, AnonymousUser) else user.pk
    roles = Membership.objects.filter(campaign_id=OuterRef("campaign_id"), user_id=user_id).values("role")[:1]
    rows = Battle.objects.filter(pk=battle_id).annotate(role=Subquery(roles))
    if token is not None:
        seen = BattleEvent.objects.filter(battle_id=OuterRef("pk"), client_token=token, actor_id=user_id)
        rows = rows.annotate(
            token_seen=Exists(seen),
            snapshot_seq=Subquery(Battle.objects.filter(pk=OuterRef("pk")).values("seq")),
        )
    return rows.first()


def test_the_locking_read_matches_the_orm_query():
    """Role, token check and every field of the row, for each persona, anonymous, tokens seen and not."""
    from django.contrib.auth.models import AnonymousUser
    from django.db import transaction

    from combat.models import Battle
    from tests.table import goblin_attacks_bram, table

    users, _, battle = table()
    goblin_attacks_bram(battle, users)
    goblin = next(c for c in services.load_state(battle).combatants.values() if c.name == "Goblin")
    action = {"kind": "gm.set_hp", "params": {"combatant": goblin.id, "hp": 7}}
    assert services.gm_override(battle.pk, users["gm"], action, None, "used-token").ok
    fields = [f.attname for f in Battle._meta.concrete_fields]
    compared, seen = 0, 0
    for user in [*users.values(), AnonymousUser()]:
        for token in (None, "used-token", "never-used"):
            for pk in (battle.pk, battle.pk + 1000):
                with transaction.atomic():
                    raw = store.lock(pk, user, token)
                expected = _orm_lock(pk, user, token)
                if expected is None:
                    assert raw is None
                    continue
                assert [getattr(raw, f) for f in fields] == [getattr(expected, f) for f in fields]
                assert raw.role == expected.role
                if token is not None:
                    assert (raw.token_seen, raw.snapshot_seq) == (expected.token_seen, expected.snapshot_seq)
                    seen += raw.token_seen
                compared += 1
    assert compared == len(users) * 3 + 3 and seen == 1  # the GM's own token, and no one else's


@pytest.mark.parametrize("count", [3, 250])
def test_append_writes_what_the_orm_reads(count):
    """Events and the battle row written by the action's plain statements read back through the ORM unchanged.

    Three events go in one statement with the battle row on PostgreSQL; 250 in three INSERTs of at
    most 100 rows, then the UPDATE.
    """
    from django.utils import timezone

    from combat.models import Battle, BattleEvent
    from tests.table import table

    users, _, battle = table()
    data = {"text": "Ünïcode ✓ 'quotes' \"and\" \\ back", "nested": [1, {"a": None, "b": 2.5}], "flag": True}
    rows = [
        (battle.pk, battle.seq + 1 + i, f"test.event{i}", dict(data, i=i), users["gm"].pk, "tok", None)
        for i in range(count)
    ]
    now = timezone.now()
    snapshot = {"deep": {"list": [1, 2, 3]}, "name": "Ünïcode"}
    values = (snapshot, battle.seq + count, "ended", 2**40, now, battle.pk)
    with CaptureQueriesContext(connection) as queries:
        store.store_rows([(*row[:-1], now) for row in rows], values)
    assert len(queries) == (1 if connection.vendor == "postgresql" and count <= 100 else -(-count // 100) + 1)
    stored = list(BattleEvent.objects.filter(battle=battle, seq__gt=battle.seq).order_by("seq"))
    assert [(e.seq, e.type, e.data, e.actor_id, e.client_token) for e in stored] == [row[1:6] for row in rows]
    assert all(e.created == now for e in stored)
    row = Battle.objects.get(pk=battle.pk)
    assert (row.snapshot, row.seq, row.status, row.version, row.updated) == values[:-1]
