"""Sessions: read with one plain statement, kept in the database (a deleted or expired row ends them)."""

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
    assert settings.SESSION_ENGINE == "vtt.sessions"
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


def test_the_store_reads_what_django_wrote():
    from importlib import import_module

    from django.contrib.sessions.backends.db import SessionStore as DjangoStore

    written = DjangoStore()
    written["numbers"], written["text"] = [1, 2, 3], "Ünïcode"
    written.save()
    store = import_module(settings.SESSION_ENGINE).SessionStore(written.session_key)
    assert store.load() == {"numbers": [1, 2, 3], "text": "Ünïcode"}
    assert import_module(settings.SESSION_ENGINE).SessionStore("no-such-key-0123456789abcdef").load() == {}
