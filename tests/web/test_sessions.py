"""Sessions: Django's database sessions (a deleted or expired row ends them)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.conf import settings
from django.contrib.sessions.models import Session
from django.utils import timezone

from tests.table import make_user

pytestmark = pytest.mark.django_db


def _logged_in(client) -> bool:
    return client.get("/").wsgi_request.user.is_authenticated


def test_a_session_lives_in_its_row_and_ends_with_it(client):
    assert settings.SESSION_ENGINE == "django.contrib.sessions.backends.db"
    user = make_user("sessiontester")
    client.force_login(user)
    assert _logged_in(client)
    key = client.cookies[settings.SESSION_COOKIE_NAME].value
    Session.objects.filter(session_key=key).update(expire_date=timezone.now() - timedelta(seconds=1))
    assert not _logged_in(client)
    client.force_login(user)
    assert _logged_in(client)
    Session.objects.filter(session_key=client.cookies[settings.SESSION_COOKIE_NAME].value).delete()
    assert not _logged_in(client)
