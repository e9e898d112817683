"""The signed-in user of a request, read with one plain statement.

``AuthenticationMiddleware`` is Django's, with the user of a session signed in through Django's
``ModelBackend`` read by a statement written once (the ORM's ``get(pk=...)`` compiled the same
query for every request). What a user may do is decided as in Django: an inactive user, a session
whose hash does not match the user's password, a user who is gone or another backend, all go
through Django's own ``get_user`` (which also flushes a session that no longer verifies).

Django's ``get_user`` asks the session's backend, whose ``get_user`` is ``User.objects.get(pk=...)``,
compiled by the ORM on every request. Kept on its figure, at the bar: on PostgreSQL it saves
0.79-0.87 ms of server CPU per action (4.9 % of one), on SQLite 0.35-0.58 ms (``bench/framework.py
--replacement auth``; docs/performance.md). ``tests/security/test_request_user.py`` holds it equal to
Django's ``get_user`` for each way a session ends.
"""

from __future__ import annotations

import functools
from typing import Any

from django.conf import settings
from django.contrib import auth
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY, get_user_model
from django.contrib.auth.middleware import AuthenticationMiddleware as DjangoAuthenticationMiddleware
from django.core.exceptions import ValidationError
from django.db import connections, router
from django.utils.crypto import constant_time_compare
from django.utils.functional import SimpleLazyObject

MODEL_BACKEND = "django.contrib.auth.backends.ModelBackend"


@functools.cache
def _select(alias: str, vendor: str) -> tuple[list[str], str, list[tuple[int, list[Any], Any]]]:
    """(attribute names, SQL, converters by column) of ``User.objects.get(pk=%s)``.

    The converters are the ones the ORM applies to the same columns (the backend's, e.g. dates to
    aware datetimes on SQLite, then the field's own ``from_db_value``).
    """
    user_model = get_user_model()
    connection = connections[alias]
    qn = connection.ops.quote_name
    table = user_model._meta.db_table
    fields = user_model._meta.concrete_fields
    names = [f.column for f in fields]
    assert all(names) and user_model._meta.pk.column  # concrete fields have their columns
    columns = ", ".join(qn(name) for name in names if name)
    pk = qn(user_model._meta.pk.column)
    converters = []
    for i, f in enumerate(fields):
        col = f.get_col(table)
        found = connection.ops.get_db_converters(col) + f.get_db_converters(connection)
        if found:
            converters.append((i, found, col))
    sql = f"SELECT {columns} FROM {qn(table)} WHERE {pk} = %s"
    return [f.attname for f in fields], sql, converters


def get_user(request: Any) -> Any:
    """The request's user, as ``django.contrib.auth.get_user`` gives it."""
    session = request.session
    user_model = get_user_model()
    try:
        user_id = user_model._meta.pk.to_python(session[SESSION_KEY])
        backend = session[BACKEND_SESSION_KEY]
    except (KeyError, ValueError, TypeError, ValidationError):
        return auth.get_user(request)
    if backend != MODEL_BACKEND or backend not in settings.AUTHENTICATION_BACKENDS:
        return auth.get_user(request)
    alias = router.db_for_read(user_model)
    connection = connections[alias]
    names, sql, converters = _select(alias, connection.vendor)
    with connection.cursor() as cursor:
        cursor.execute(sql, [user_id])
        row = cursor.fetchone()
    if row is None:
        return auth.get_user(request)
    values = list(row)
    for i, functions, col in converters:
        for convert in functions:
            values[i] = convert(values[i], col, connection)
    user = user_model.from_db(alias, names, values)
    session_hash = session.get(HASH_SESSION_KEY)
    if (
        not getattr(user, "is_active", True)
        or not session_hash
        or not constant_time_compare(session_hash, user.get_session_auth_hash())
    ):
        return auth.get_user(request)  # Django decides: fallback secrets, or a flushed session
    return user


def _cached_user(request: Any) -> Any:
    if not hasattr(request, "_cached_user"):
        request._cached_user = get_user(request)
    return request._cached_user


class AuthenticationMiddleware(DjangoAuthenticationMiddleware):
    """Django's, with ``request.user`` from ``get_user`` above."""

    def process_request(self, request: Any) -> None:
        super().process_request(request)
        request.user = SimpleLazyObject(lambda: _cached_user(request))
