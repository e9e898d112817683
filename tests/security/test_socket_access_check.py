"""A battle socket's access check (``vtt.access.battle_access``): one statement, the same answers.

Every open socket re-checks its session, membership and role every 15-30 s. The check reads them in
one statement; it must answer as the four reads through Django's session engine and the ORM do
(``battle_access_orm``) for every persona, and for every way a session ends: logged out, expired, taken
over by another account, a password changed, an account deactivated or deleted, a battle deleted.
"""

from __future__ import annotations

from datetime import timedelta
from importlib import import_module
from typing import Any

import pytest
from django.conf import settings
from django.contrib.auth.models import AnonymousUser
from django.contrib.sessions.models import Session
from django.core.cache import caches
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from combat.models import Battle
from tests.sockets import session_cookie
from tests.table import PERSONAS, table
from vtt import access

pytestmark = pytest.mark.django_db


def _store(key: str) -> Any:
    """The session as Django's engine of the settings holds it (``cached_db`` with Redis, else ``db``)."""
    return import_module(settings.SESSION_ENGINE).SessionStore(key)


def _both(user, battle_id, key):
    fast = access.battle_access(user, battle_id, key, True)
    slow = access.battle_access_orm(user, battle_id, key, True)
    assert fast == slow, (user, fast, slow)
    return fast


def test_each_persona_gets_the_orms_answer_from_one_statement():
    users, _, battle = table()
    expected = {"gm": "gm", "player": "player", "other_player": "player", "observer": "observer"}
    for name in PERSONAS:
        key = session_cookie(users[name])
        with CaptureQueriesContext(connection) as queries:
            got = access.battle_access(users[name], battle.pk, key, True)
        assert len(queries) == 1
        assert got == access.battle_access_orm(users[name], battle.pk, key, True)
        assert got == ((expected[name], battle.seq) if name in expected else None)
        # Without the session check: the membership alone.
        assert access.battle_access(users[name], battle.pk) == access.battle_access_orm(
            users[name], battle.pk
        )
    assert access.battle_access(AnonymousUser(), battle.pk, "x", True) is None


def test_every_way_a_session_ends_ends_the_access():
    users, _, battle = table()
    gm, player = users["gm"], users["player"]
    keys = {name: session_cookie(users[name]) for name in ("gm", "player", "observer", "other_player")}
    assert _both(gm, battle.pk, keys["gm"]) == ("gm", battle.seq)

    assert _both(gm, battle.pk, keys["player"]) is None  # someone else's session
    assert _both(gm, battle.pk, None) is None and _both(gm, battle.pk, "") is None
    assert _both(gm, battle.pk, "no-such-session-key") is None
    assert _both(gm, battle.pk + 1000, keys["gm"]) is None  # no such battle

    _store(keys["gm"]).delete()  # logged out (a logout deletes the session through the store)
    assert _both(gm, battle.pk, keys["gm"]) is None

    # Expired: the row's time has passed, and so has its cached copy's (cached_db keeps it that long).
    Session.objects.filter(session_key=keys["observer"]).update(expire_date=timezone.now() - timedelta(1))
    cached = getattr(_store(keys["observer"]), "cache_key", None)
    if cached is not None:
        caches[settings.SESSION_CACHE_ALIAS].delete(cached)
    assert _both(users["observer"], battle.pk, keys["observer"]) is None

    assert _both(player, battle.pk, keys["player"]) == ("player", battle.seq)
    player.set_password("another-password-77")
    player.save()
    assert _both(player, battle.pk, keys["player"]) is None  # the password changed elsewhere

    other = users["other_player"]
    assert _both(other, battle.pk, keys["other_player"]) == ("player", battle.seq)
    other.is_active = False
    other.save()
    assert _both(other, battle.pk, keys["other_player"]) is None  # deactivated
    other.delete()
    assert _both(other, battle.pk, keys["other_player"]) is None  # deleted


def test_a_removed_member_and_a_deleted_battle_lose_the_access():
    users, campaign, battle = table()
    key = session_cookie(users["player"])
    assert _both(users["player"], battle.pk, key) == ("player", battle.seq)
    campaign.memberships.filter(user=users["player"]).delete()
    assert _both(users["player"], battle.pk, key) is None
    gm_key = session_cookie(users["gm"])
    Battle.objects.filter(pk=battle.pk).delete()
    assert _both(users["gm"], battle.pk, gm_key) is None


def test_another_session_engine_takes_the_orm_path(settings, monkeypatch):
    users, _, battle = table()
    key = session_cookie(users["gm"])
    settings.SESSION_ENGINE = "django.contrib.sessions.backends.signed_cookies"
    calls = []
    monkeypatch.setattr(access, "battle_access_orm", lambda *a: calls.append(a) or None)
    assert access.battle_access(users["gm"], battle.pk, key, True) is None and len(calls) == 1
