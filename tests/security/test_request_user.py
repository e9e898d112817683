"""A request's user (``vtt.auth``): one plain statement, and every refusal still Django's.

The signed-in user is read with one statement; a session of an inactive or deleted user, one whose
password changed since, or one signed in through another backend is decided by Django's own
``get_user``, with the same outcome: an anonymous user (and a flushed session where Django flushes).
"""

from __future__ import annotations

import pytest
from django.contrib import auth
from django.contrib.auth import BACKEND_SESSION_KEY, SESSION_KEY
from django.contrib.sessions.middleware import SessionMiddleware
from django.db import connection
from django.test import RequestFactory
from django.test.utils import CaptureQueriesContext

from tests.table import make_users
from vtt import auth as vtt_auth

pytestmark = pytest.mark.django_db


def _session_of(user, backend="django.contrib.auth.backends.ModelBackend") -> str:
    """The key of a saved session in which ``user`` signed in through ``backend``."""
    request = RequestFactory().get("/")
    SessionMiddleware(lambda r: None).process_request(request)
    request.user = user
    auth.login(request, user, backend=backend)
    request.session.save()
    return request.session.session_key


def _request(key: str):
    """A new request carrying the session ``key``."""
    request = RequestFactory().get("/")
    SessionMiddleware(lambda r: None).process_request(request)
    request.session = type(request.session)(key)
    return request


def _request_of(user, backend="django.contrib.auth.backends.ModelBackend"):
    return _request(_session_of(user, backend))


def test_the_signed_in_user_is_djangos_user_read_with_one_statement():
    user = make_users("gm")["gm"]
    key = _session_of(user)
    request = _request(key)
    assert SESSION_KEY in request.session  # (the session's own read is not this module's)
    with CaptureQueriesContext(connection) as queries:
        got = vtt_auth.get_user(request)
    assert len(queries) == 1 and "auth_user" in queries[0]["sql"]
    expected = auth.get_user(_request(key))
    assert got.pk == expected.pk == user.pk and got.is_authenticated
    assert {f.attname: getattr(got, f.attname) for f in got._meta.concrete_fields} == {
        f.attname: getattr(expected, f.attname) for f in expected._meta.concrete_fields
    }


def test_an_inactive_user_is_anonymous():
    user = make_users("gm")["gm"]
    requests = [_request_of(user), _request_of(user)]
    user.is_active = False
    user.save()
    ours, django = vtt_auth.get_user(requests[0]), auth.get_user(requests[1])
    assert not ours.is_authenticated and not django.is_authenticated


def test_a_password_changed_elsewhere_ends_the_session():
    user = make_users("gm")["gm"]
    request = _request_of(user)
    user.set_password("another-password-91")
    user.save()
    got = vtt_auth.get_user(request)
    assert not got.is_authenticated
    assert SESSION_KEY not in request.session  # flushed, as Django flushes it


def test_a_deleted_user_is_anonymous():
    user = make_users("gm")["gm"]
    request = _request_of(user)
    user.delete()
    assert not vtt_auth.get_user(request).is_authenticated


def test_a_session_of_another_backend_goes_through_django(monkeypatch):
    user = make_users("gm")["gm"]
    calls = []
    real = auth.get_user
    monkeypatch.setattr(vtt_auth.auth, "get_user", lambda request: calls.append(1) or real(request))
    request = _request_of(user)
    request.session[BACKEND_SESSION_KEY] = "vtt.nowhere.Backend"
    assert not vtt_auth.get_user(request).is_authenticated and calls == [1]


def test_every_request_goes_through_this_middleware(client):
    user = make_users("gm")["gm"]
    client.force_login(user)
    seen = []
    real = vtt_auth.get_user
    import vtt.auth as module

    def spy(request):
        seen.append(request.path)
        return real(request)

    module.get_user = spy
    try:
        assert client.get("/").status_code in (200, 302)
    finally:
        module.get_user = real
    assert seen == ["/"]
