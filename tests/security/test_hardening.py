"""Hardening: CSRF on every write, production settings, login throttling, bounded payloads."""

from __future__ import annotations

import json
import os
import re
import secrets
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings as django_settings
from django.test import Client
from django.urls import reverse

from tests.security.conftest import client_for, combatant_named, fingerprint
from tests.security.matrix import MATRIX, matrix_ids
from tests.table import PASSWORD

ROOT = Path(__file__).resolve().parents[2]
WRITE_ROWS = [row for row in MATRIX if row[3] == "post"]
PRODUCTION_ENV = {
    "DEBUG": "0",
    "SECRET_KEY": secrets.token_urlsafe(50),
    "ALLOWED_HOSTS": "vtt.example.org",
    "DJANGO_SETTINGS_MODULE": "vtt.settings",
}


def _production(code: list[str], **extra: str) -> subprocess.CompletedProcess[str]:
    env = {
        k: v for k, v in os.environ.items() if not k.startswith(("PYTEST", "DEBUG", "SECRET_KEY", "ALLOWED"))
    }
    env.update(PRODUCTION_ENV, **extra)
    return subprocess.run(code, cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)


# ------------------------------------------------------------------ CSRF


@pytest.mark.parametrize(
    ("row", "name", "args", "data"), [pytest.param(r[0], r[1], r[2], r[4], id=r[0]) for r in WRITE_ROWS]
)
def test_every_write_without_the_csrf_token_is_refused(world, row, name, args, data):
    """A member with every right (the GM) still gets 403 without the token, with or without htmx."""
    ids = matrix_ids(world)
    url = reverse(name, args=[ids[a] for a in args])
    before = [fingerprint(world["battle"].pk), fingerprint(world["setup"].pk)]
    for headers in ({}, {"HTTP_HX_REQUEST": "true"}):
        client = client_for(world, "gm", enforce_csrf_checks=True)
        response = client.post(url, data(world), **headers)
        assert response.status_code == 403, (row, headers, response.status_code)
    assert [fingerprint(world["battle"].pk), fingerprint(world["setup"].pk)] == before


@pytest.mark.parametrize("name", ["login", "signup"])
def test_login_and_signup_need_the_csrf_token(db, name):
    client = Client(enforce_csrf_checks=True)
    response = client.post(reverse(name), {"username": "x", "password": "y"})
    assert response.status_code == 403


FORM = re.compile(r"<form\b[^>]*>.*?</form>", re.S | re.I)


def test_every_post_form_on_every_page_carries_the_token(world):
    """Each post form has the hidden token, or the page sends it in htmx's headers (pushed renders)."""
    ids = matrix_ids(world)
    gm = client_for(world, "gm")
    pages = [
        reverse(n, args=[ids[a] for a in args])
        for _, n, args, m, _, exp in MATRIX
        if m == "get" and exp[-1] == 200
    ]
    checked = 0
    for url in pages:
        response = gm.get(url)
        if response.streaming:  # an image, not a page
            continue
        html = response.content.decode()
        page_header = re.search(r"hx-headers='[^']*X-CSRFToken", html) is not None
        for form in FORM.findall(html):
            opening = form[: form.index(">") + 1].lower()
            if 'method="post"' not in opening and "hx-post" not in opening:
                continue
            checked += 1
            assert "csrfmiddlewaretoken" in form or page_header, (url, opening)
    anonymous = Client()
    for name in ("login", "signup"):
        html = anonymous.get(reverse(name)).content.decode()
        assert "csrfmiddlewaretoken" in html
        checked += 1
    assert checked >= 10, checked


# ------------------------------------------------------------------ production settings


def test_check_deploy_is_clean_with_production_environment():
    proc = _production([sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"])
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "no issues" in proc.stdout


def test_production_refuses_to_start_without_a_secret_key():
    env_code = [sys.executable, "-c", "import django; django.setup()"]
    proc = _production(env_code, SECRET_KEY="")
    assert proc.returncode != 0


PROBE = """
import django, json
django.setup()
from django.conf import settings
from django.test import Client, override_settings
# Production serves collected static files (collectstatic); the probe only looks at headers.
override_settings(STORAGES={**settings.STORAGES, "staticfiles": {
    "BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}}).enable()
r = Client().get("/accounts/login/", secure=True, HTTP_HOST="vtt.example.org")
cookie = r.cookies["csrftoken"]
print(json.dumps({"status": r.status_code, "headers": dict(r.headers), "csrf_secure": bool(cookie["secure"]), "csrf_httponly": bool(cookie["httponly"]),
                  "session_secure": settings.SESSION_COOKIE_SECURE, "axes": settings.AXES_ENABLED,
                  "plain": Client().get("/", HTTP_HOST="vtt.example.org").status_code}))
"""


def test_production_responses_carry_security_headers_and_secure_cookies():
    proc = _production([sys.executable, "-c", PROBE])
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    headers = {k.lower(): v for k, v in out["headers"].items()}
    assert out["status"] == 200
    assert "max-age=31536000" in headers["strict-transport-security"]
    assert headers["x-frame-options"] == "DENY"
    assert headers["x-content-type-options"] == "nosniff"
    assert headers["referrer-policy"] == "same-origin"
    assert headers["cross-origin-opener-policy"] == "same-origin"
    assert out["csrf_secure"] and out["session_secure"] and out["csrf_httponly"]
    assert out["axes"] is True, "login throttling must be on outside the tests"
    assert out["plain"] == 301, "plain HTTP is redirected to HTTPS"


# ------------------------------------------------------------------ login throttling


def _login(client: Client, username: str, password: str):
    return client.post(reverse("login"), {"username": username, "password": password})


def test_login_is_locked_out_after_repeated_failures(world, settings):
    settings.AXES_ENABLED = True
    limit = django_settings.LOGIN_FAILURES_PER_ACCOUNT
    client = Client()
    for _ in range(limit - 1):
        response = _login(client, "player", "wrong-password")
        assert response.status_code == 200  # the form again, with its error
    response = _login(client, "player", "wrong-password")
    assert response.status_code == 429
    # Locked: even the right password is refused now, and no session is opened.
    response = _login(client, "player", PASSWORD)
    assert response.status_code == 429
    assert "_auth_user_id" not in client.session
    # Another account from the same address still logs in.
    assert _login(Client(), "gm", PASSWORD).status_code == 302


def test_a_successful_login_resets_the_failure_count(world, settings):
    settings.AXES_ENABLED = True
    limit = django_settings.LOGIN_FAILURES_PER_ACCOUNT
    for _ in range(limit - 1):
        assert _login(Client(), "other_player", "nope").status_code == 200
    assert _login(Client(), "other_player", PASSWORD).status_code == 302
    for _ in range(limit - 1):
        assert _login(Client(), "other_player", "nope").status_code == 200


# ------------------------------------------------------------------ payload bounds


def _act_url(world) -> str:
    return reverse("battle_act", args=[world["battle"].pk])


def test_an_oversized_post_is_refused_with_400(world):
    player = client_for(world, "player")
    before = fingerprint(world["battle"].pk)
    big = "x" * (django_settings.DATA_UPLOAD_MAX_MEMORY_SIZE + 10)
    response = player.post(_act_url(world), {"kind": "end_turn", "params": big}, HTTP_HX_REQUEST="true")
    assert response.status_code == 400
    assert "Bad request" in response.content.decode()  # the site's 400 page, said in words
    assert fingerprint(world["battle"].pk) == before


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ("{not json", "malformed"),
        ("[1, 2, 3]", "malformed"),
        ('"a string"', "malformed"),
        ("{" + '"a": 1, ' * 600 + '"b": 2}', "too long"),
    ],
)
def test_garbage_action_details_get_a_clear_400(world, params, message):
    player = client_for(world, "player")
    before = fingerprint(world["battle"].pk)
    data = {"kind": "ability", "actor": combatant_named(world["battle"], "Ayla"), "params": params}
    response = player.post(_act_url(world), data, HTTP_HX_REQUEST="true")
    assert response.status_code == 400
    assert message in response.content.decode()
    assert fingerprint(world["battle"].pk) == before


def test_a_json_body_instead_of_a_form_is_refused_clearly(world):
    player = client_for(world, "player")
    before = fingerprint(world["battle"].pk)
    body = json.dumps({"kind": "end_turn", "actor": combatant_named(world["battle"], "Ayla")})
    response = player.post(_act_url(world), body, content_type="application/json", HTTP_HX_REQUEST="true")
    assert response.status_code == 400
    assert "missing" in response.content.decode()
    assert fingerprint(world["battle"].pk) == before


def test_too_many_fields_are_refused(world):
    player = client_for(world, "player")
    before = fingerprint(world["battle"].pk)
    data = {f"f{i}": "1" for i in range(django_settings.DATA_UPLOAD_MAX_NUMBER_FIELDS + 5)}
    response = player.post(_act_url(world), {**data, "kind": "end_turn"}, HTTP_HX_REQUEST="true")
    assert response.status_code == 400
    assert fingerprint(world["battle"].pk) == before
