"""Who may open a battle: the battle views' and the battle sockets' check, on top of ``vtt.access``.

- ``battle_for(request, pk) -> (Battle, role)``: a battle of a campaign the user is not a member of does
  not exist for them (404, like ``vtt.access.campaign_for``);
- ``battle_access(user, battle_id, session_key=None, check_session=False) -> (role, seq) | None``: a
  battle socket's check, on connect and while it is open.

The services check roles again inside each write (``combat.commands``): a view's check decides what
it shows, the service's what is written.
"""

from __future__ import annotations

import functools
from importlib import import_module
from typing import Any

from django.conf import settings
from django.contrib.auth import HASH_SESSION_KEY, SESSION_KEY, get_user_model
from django.contrib.sessions.backends.db import SessionStore as DatabaseSessionStore
from django.contrib.sessions.models import Session
from django.db import connections, router
from django.http import Http404, HttpRequest
from django.utils import timezone
from django.utils.crypto import constant_time_compare

from combat.models import Battle
from vtt.access import campaign_for, session_valid
from vtt.models import Membership


def battle_for(request: HttpRequest, pk: int) -> tuple[Battle, str]:
    """The battle ``pk`` and the requesting user's role in its campaign (404 like ``campaign_for``)."""
    battle = Battle.objects.select_related("campaign", "map").filter(pk=pk).first()
    if battle is None:
        raise Http404("No such battle.")
    _, membership = campaign_for(request, battle.campaign_id)
    return battle, membership.role


def battle_access_orm(
    user: Any, battle_id: int, session_key: str | None = None, check_session: bool = False
) -> tuple[str, int] | None:
    """``battle_access`` through the session engine and the ORM (four reads): any other session engine."""
    if check_session and not session_valid(session_key, user):
        return None
    battle = Battle.objects.filter(pk=battle_id).values_list("campaign_id", "seq").first()
    if battle is None:
        return None
    role = (
        Membership.objects.filter(campaign_id=battle[0], user_id=user.pk)
        .values_list("role", flat=True)
        .first()
    )
    return (role, battle[1]) if role else None


@functools.cache
def _battle_access_sql(alias: str, vendor: str) -> str:
    """The battle's seq, the user's role in its campaign, the session's data and the user's password
    and state, in one statement (each part NULL when its row is missing)."""
    qn = connections[alias].ops.quote_name

    def col(model: Any, name: str) -> str:
        return f"{qn(model._meta.db_table)}.{qn(model._meta.get_field(name).column)}"

    b, m, s, u = Battle, Membership, Session, get_user_model()
    return (
        f"SELECT {col(m, 'role')}, {col(b, 'seq')}, {col(s, 'session_data')}, {col(u, 'password')},"
        f" {col(u, 'is_active')} FROM {qn(b._meta.db_table)}"
        f" LEFT JOIN {qn(m._meta.db_table)} ON {col(m, 'campaign')} = {col(b, 'campaign')}"
        f" AND {col(m, 'user')} = %s"
        f" LEFT JOIN {qn(s._meta.db_table)} ON {col(s, 'session_key')} = %s AND {col(s, 'expire_date')} > %s"
        f" LEFT JOIN {qn(u._meta.db_table)} ON {col(u, u._meta.pk.name)} = %s"
        f" WHERE {col(b, 'id')} = %s"
    )


def battle_access(
    user: Any, battle_id: int, session_key: str | None = None, check_session: bool = False
) -> tuple[str, int] | None:
    """(role, seq) of a member for this battle, or None; with ``check_session``, only while the
    socket's session is still this user's, the user active and the password unchanged.

    A socket re-checks this every 15-30 s. Django's way is ``battle_access_orm``: the session
    engine's load, the user's read and the battle's and the membership's, four statements the ORM
    compiles each time. Here it is one statement built once per database, the session decoded and
    its hash checked as Django's ``get_user`` checks it: 2.3 ms (SQLite) to 5.9 ms (PostgreSQL) less
    CPU per check, on the thread the sockets share for the database (``bench/framework.py
    --replacement access``). ``tests/security/test_socket_access_check.py`` holds both equal for
    every persona and every way a session ends.
    """
    if not getattr(user, "is_authenticated", False):
        return None
    store = import_module(settings.SESSION_ENGINE).SessionStore
    if not (issubclass(store, DatabaseSessionStore) and store.get_model_class() is Session):
        return battle_access_orm(user, battle_id, session_key, check_session)
    if check_session and not session_key:
        return None
    alias = router.db_for_read(Battle)
    connection = connections[alias]
    now = connection.ops.adapt_datetimefield_value(timezone.now())
    with connection.cursor() as cursor:
        cursor.execute(
            _battle_access_sql(alias, connection.vendor),
            [user.pk, session_key or "", now, user.pk, battle_id],
        )
        row = cursor.fetchone()
    if row is None:
        return None  # no such battle
    role, seq, session_data, password, active = row
    if check_session:
        if session_data is None or password is None or not active:
            return None
        data = store().decode(session_data)
        if str(data.get(SESSION_KEY, "")) != str(user.pk):
            return None
        current = get_user_model()(pk=user.pk, password=password)
        if not constant_time_compare(str(data.get(HASH_SESSION_KEY, "")), current.get_session_auth_hash()):
            return None
    return (role, seq) if role else None


def campaign_snapshots(
    campaign_id: int, *, begun: bool = False, running: bool = False
) -> list[tuple[str, Any]]:
    """The campaign's battles as the campaign pages read them (``vtt.battles``, registered by
    ``combat.apps``): each one's name and stored state, only those past set-up with ``begun``, only
    those not over with ``running``."""
    found = Battle.objects.filter(campaign_id=campaign_id)
    if begun:
        found = found.exclude(status=Battle.Status.SETUP)
    if running:
        found = found.exclude(status=Battle.Status.ENDED)
    return [(name, snapshot or {}) for name, snapshot in found.values_list("name", "snapshot")]
