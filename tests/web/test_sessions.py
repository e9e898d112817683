"""Sessions and the signed-in user are Django's own: database sessions (``db``, with or without Redis:
no request needs Redis) and ``django.contrib.auth``'s middleware.

A session ends for every process when Django ends it (a logout), when its row is deleted or expires,
and when its user can no longer sign in (deactivated, deleted, a password changed elsewhere).
"""

from __future__ import annotations

from datetime import timedelta
from importlib import import_module

import pytest
from django.conf import settings
from django.contrib.sessions.models import Session
from django.utils import timezone

from tests.table import make_user

pytestmark = pytest.mark.django_db


def _logged_in(client) -> bool:
    return client.get("/").wsgi_request.user.is_authenticated


def test_the_session_engine_and_the_user_read_are_djangos():
    assert settings.SESSION_ENGINE == "django.contrib.sessions.backends.db"
    assert "django.contrib.auth.middleware.AuthenticationMiddleware" in settings.MIDDLEWARE
    assert not any(m.startswith("vtt.") and "Authentication" in m for m in settings.MIDDLEWARE)


def test_a_logout_ends_the_session_for_every_process(client):
    """Its row is gone (the sockets' access check reads it) and a fresh store, as another process has,
    finds nothing, in the cache or the database."""
    user = make_user("sessiontester")
    client.force_login(user)
    assert _logged_in(client)
    key = client.cookies[settings.SESSION_COOKIE_NAME].value
    assert Session.objects.filter(session_key=key).exists()  # written through to the database
    client.post("/accounts/logout/")
    assert not Session.objects.filter(session_key=key).exists()
    assert import_module(settings.SESSION_ENGINE).SessionStore(key).load() == {}


def test_a_deleted_or_expired_row_ends_the_session(client):
    user = make_user("sessiontester")
    client.force_login(user)
    key = client.cookies[settings.SESSION_COOKIE_NAME].value
    Session.objects.filter(session_key=key).update(expire_date=timezone.now() - timedelta(seconds=1))
    assert not _logged_in(client)
    client.force_login(user)
    assert _logged_in(client)
    Session.objects.filter(session_key=client.cookies[settings.SESSION_COOKIE_NAME].value).delete()
    assert not _logged_in(client)


@pytest.mark.parametrize("how", ["deactivated", "password changed", "deleted"])
def test_a_session_ends_when_its_user_can_no_longer_sign_in(client, how):
    user = make_user("sessiontester")
    client.force_login(user)
    assert _logged_in(client)
    if how == "deactivated":
        user.is_active = False
        user.save()
    elif how == "password changed":
        user.set_password("another-password-77")
        user.save()
    else:
        user.delete()
    assert not _logged_in(client)
