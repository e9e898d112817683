"""Accounts and origins: sign-up, login throttling per address, the CSP header, the websocket Origin.

- Sign-up is throttled per address, says only "not available" for a taken
  name, normalises names (NFKC) and refuses one that looks like a taken name.
- Failed logins are limited per username+address and per address over every
  username; logging into an account of one's own does not reset the address.
- Every page carries a strict Content-Security-Policy.
- A websocket's Origin must match the socket's scheme, host and port.
"""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.db import connection
from django.test import Client
from django.urls import reverse

from tests.table import PASSWORD
from vtt.forms import UNAVAILABLE, username_skeleton
from vtt.wsorigin import origin_allowed

NEW_PASSWORD = "a-long-new-pass-77"


@pytest.fixture(autouse=True)
def empty_cache():
    cache.clear()
    yield
    cache.clear()


def _signup(username: str, ip: str = "203.0.113.5"):
    return Client(REMOTE_ADDR=ip).post(
        reverse("signup"), {"username": username, "password1": NEW_PASSWORD, "password2": NEW_PASSWORD}
    )


# ------------------------------------------------------------------ sign-up


@pytest.mark.parametrize(
    "name", ["alice", "ALICE", "Alice", "ａｌｉｃｅ", "\u0430lice", "\u0430l\u0456\u0441\u0435"]
)
def test_a_taken_or_lookalike_name_is_refused_without_saying_who_exists(db, name):
    User = get_user_model()
    User.objects.create_user("alice", password=PASSWORD)
    before = User.objects.count()
    response = _signup(name)
    assert response.status_code == 200
    text = response.content.decode()
    assert "already exists" not in text
    assert UNAVAILABLE in text or "one alphabet" in text
    assert User.objects.count() == before


def test_whole_script_lookalikes_are_refused_both_ways(db):
    User = get_user_model()
    User.objects.create_user("pace", password=PASSWORD)
    assert (
        UNAVAILABLE in _signup("\u0440\u0430\u0441\u0435").content.decode()
    )  # all Cyrillic, looks like pace
    User.objects.create_user("\u0441\u0430\u0440\u0435", password=PASSWORD)  # Cyrillic, looks like cape
    assert UNAVAILABLE in _signup("cape").content.decode()
    assert not User.objects.filter(username__in=["\u0440\u0430\u0441\u0435", "cape"]).exists()


def test_names_are_normalised_and_honest_names_pass(db):
    assert _signup("ｂｏｂ").status_code == 302  # fullwidth letters: stored as NFKC "bob"
    assert get_user_model().objects.filter(username="bob").exists()
    assert _signup("Zoë", ip="203.0.113.6").status_code == 302
    assert _signup("Дмитрий", ip="203.0.113.7").status_code == 302  # one alphabet, like no one else
    assert username_skeleton("\u0430lice") == username_skeleton("alice")


def test_sign_up_is_throttled_per_address(db, settings):
    settings.SIGNUP_LIMIT = 3
    User = get_user_model()
    for i in range(3):
        assert _signup(f"newcomer{i}").status_code == 302
    refused = _signup("newcomer3")
    assert refused.status_code == 429 and "Too many sign-ups" in refused.content.decode()
    assert not User.objects.filter(username="newcomer3").exists()
    # Failed attempts count too (guessing names), and another address is not affected.
    assert _signup("newcomer4").status_code == 429
    assert _signup("newcomer4", ip="198.51.100.20").status_code == 302


# ------------------------------------------------------------------ login throttling per address


def _login(username: str, password: str, ip: str = "203.0.113.9"):
    return Client(REMOTE_ADDR=ip).post(reverse("login"), {"username": username, "password": password})


def test_one_address_spraying_many_accounts_is_locked_out(db, settings):
    settings.AXES_ENABLED = True
    settings.LOGIN_FAILURES_PER_ACCOUNT = 5
    settings.LOGIN_FAILURES_PER_IP = 6
    User = get_user_model()
    for i in range(8):
        User.objects.create_user(f"victim{i}", password=PASSWORD)
    User.objects.create_user("sprayer", password=PASSWORD)
    for i in range(5):  # one wrong password per account: no account reaches its own limit
        assert _login(f"victim{i}", "wrong-pass").status_code == 200
    # Logging into an account of one's own does not wipe the address's failures.
    assert _login("sprayer", PASSWORD).status_code == 302
    assert _login("victim5", "wrong-pass").status_code == 429  # the 6th failure from this address
    assert _login("victim6", PASSWORD).status_code == 429  # locked: even a right password
    assert _login("victim6", PASSWORD, ip="198.51.100.30").status_code == 302  # another address is fine


# ------------------------------------------------------------------ CSP


@pytest.mark.parametrize("url", ["/accounts/login/", "/accounts/signup/", "/"])
def test_every_page_carries_a_strict_content_security_policy(db, url):
    response = Client().get(url)
    policy = response.headers["Content-Security-Policy"]
    directives = {d.split()[0]: d.split()[1:] for d in policy.split(";") if d.strip()}
    assert directives["default-src"] == ["'self'"]
    assert directives["script-src"][0] == "'self'"
    assert all(not s.startswith(("'unsafe", "http", "*", "data:")) for s in directives["script-src"][1:])
    assert directives["style-src"] == ["'self'"]
    assert directives["object-src"] == ["'none'"] and directives["frame-ancestors"] == ["'none'"]
    assert directives["connect-src"] == ["'self'"] and directives["base-uri"] == ["'none'"]
    assert "<script>" not in response.content.decode()  # no inline script to allow


# ------------------------------------------------------------------ websocket Origin


def _scope(origin: str | None, host: str, scheme: str = "ws") -> dict:
    headers = [(b"host", host.encode())]
    if origin is not None:
        headers.append((b"origin", origin.encode()))
    return {"type": "websocket", "scheme": scheme, "headers": headers}


@pytest.mark.parametrize(
    ("origin", "host", "scheme", "allowed"),
    [
        ("http://127.0.0.1:8000", "127.0.0.1:8000", "ws", True),
        ("http://localhost", "localhost", "ws", True),
        ("http://localhost:80", "localhost", "ws", True),
        ("https://localhost", "localhost", "wss", True),
        ("http://127.0.0.1:9999", "127.0.0.1:8000", "ws", False),  # another port
        ("https://127.0.0.1:8000", "127.0.0.1:8000", "ws", False),  # another scheme
        ("http://localhost", "localhost", "wss", False),
        ("http://evil.example:8000", "127.0.0.1:8000", "ws", False),
        ("http://evil.example", "evil.example", "ws", False),  # not an allowed host
        ("null", "127.0.0.1:8000", "ws", False),
        (None, "127.0.0.1:8000", "ws", False),
        ("http://127.0.0.1:8000/page", "127.0.0.1:8000", "ws", False),
        ("http://127.0.0.1:99999", "127.0.0.1:99999", "ws", False),
    ],
)
def test_the_websocket_origin_must_match_scheme_host_and_port(settings, origin, host, scheme, allowed):
    settings.ALLOWED_HOSTS = ["127.0.0.1", "localhost"]
    settings.CSRF_TRUSTED_ORIGINS = []
    assert origin_allowed(_scope(origin, host, scheme)) is allowed


def test_a_trusted_origin_is_allowed(settings):
    settings.ALLOWED_HOSTS = ["vtt.example.org"]
    settings.CSRF_TRUSTED_ORIGINS = ["https://vtt.example.org"]
    assert origin_allowed(_scope("https://vtt.example.org", "10.0.0.11:8001"))
    assert not origin_allowed(_scope("https://vtt.example.org:444", "10.0.0.11:8001"))


# ------------------------------------------------------------------ issue 22: the client's address (point 1)

PROXY = "10.0.0.2"  # the deployment guide's nginx: the only peer the server sees


def _behind_proxy(client_address: str, forged: str | None = None) -> Client:
    """A browser at ``client_address`` reaching the site through one trusted proxy that appends to the
    header (a forged value the browser wrote stays left of it); the deployment guide's nginx overwrites it instead."""
    header = f"{forged}, {client_address}" if forged else client_address
    return Client(REMOTE_ADDR=PROXY, HTTP_X_FORWARDED_FOR=header)


@pytest.mark.parametrize(
    ("peer", "header", "trusted", "expected"),
    [
        (
            "203.0.113.5",
            "6.6.6.6",
            0,
            "203.0.113.5",
        ),  # no trusted proxy: the header is the client's own words
        ("203.0.113.5", None, 0, "203.0.113.5"),
        (PROXY, "6.6.6.6, 203.0.113.5", 1, "203.0.113.5"),  # nginx appended the real hop
        (PROXY, "203.0.113.5", 1, "203.0.113.5"),  # nginx overwrote ($remote_addr)
        (PROXY, "6.6.6.6, 203.0.113.5, 10.0.0.1", 2, "203.0.113.5"),  # two proxies
        (PROXY, None, 1, PROXY),  # reached directly, no header: the peer
        (PROXY, "not-an-address", 1, PROXY),  # a hop that is no address never becomes the key
        ("2001:db8::1", "6.6.6.6", 0, "2001:db8::1"),
    ],
)
def test_point_1_the_client_address_is_the_rightmost_untrusted_hop(settings, peer, header, trusted, expected):
    from vtt.clientaddr import client_address

    settings.TRUSTED_PROXY_COUNT = trusted
    assert client_address(peer, header) == expected


def test_point_1_forged_x_forwarded_for_values_do_not_dodge_the_lockout(db, settings):
    settings.AXES_ENABLED = True
    settings.TRUSTED_PROXY_COUNT = 1
    settings.LOGIN_FAILURES_PER_ACCOUNT = 5
    get_user_model().objects.create_user("gm", password=PASSWORD)
    statuses = [
        _behind_proxy("203.0.113.9", forged=f"198.18.0.{i}")
        .post(reverse("login"), {"username": "gm", "password": "wrong-pass"})
        .status_code
        for i in range(12)
    ]
    assert statuses[:4] == [200] * 4 and set(statuses[4:]) == {429}
    # Locked for that address, right password or not; the same account from another address is not.
    locked = _behind_proxy("203.0.113.9", forged="198.18.1.1").post(
        reverse("login"), {"username": "gm", "password": PASSWORD}
    )
    assert locked.status_code == 429
    other = _behind_proxy("198.51.100.4").post(reverse("login"), {"username": "gm", "password": PASSWORD})
    assert other.status_code == 302


def test_point_1_forged_x_forwarded_for_values_do_not_dodge_the_sign_up_throttle(db, settings):
    settings.TRUSTED_PROXY_COUNT = 1
    settings.SIGNUP_LIMIT = 10
    data = {"password1": NEW_PASSWORD, "password2": NEW_PASSWORD}
    statuses = [
        _behind_proxy("203.0.113.9", forged=f"198.18.0.{i}")
        .post(reverse("signup"), {**data, "username": f"rotating{i}"})
        .status_code
        for i in range(12)
    ]
    assert statuses == [302] * 10 + [429] * 2
    assert not get_user_model().objects.filter(username__in=["rotating10", "rotating11"]).exists()
    # Another real address behind the same proxy is not affected.
    other = _behind_proxy("198.51.100.4").post(reverse("signup"), {**data, "username": "neighbour"})
    assert other.status_code == 302


# ------------------------------------------------------------------ issue 22: one Wi-Fi, one invite (point 10)


def test_point_10_a_table_on_one_wifi_signs_up_through_its_invite_link(db, settings):
    from vtt.models import Invite, Membership, Role

    settings.SIGNUP_LIMIT = 10
    gm = get_user_model().objects.create_user("gm", password=PASSWORD)
    from tests.table import make_campaign

    campaign = make_campaign(gm)
    invite = Invite.objects.create(campaign=campaign, created_by=gm, role=Role.PLAYER, max_uses=30)
    link = reverse("join", args=[invite.token])
    data = {"password1": NEW_PASSWORD, "password2": NEW_PASSWORD, "next": link}
    # Twelve players from one address (a class, a convention hall) all get in and join the campaign.
    for i in range(12):
        response = _signup_with(f"student{i}", data)
        assert response.status_code == 302, (i, response.status_code)
    assert Membership.objects.filter(campaign=campaign, role=Role.PLAYER).count() == 12
    invite.refresh_from_db()
    assert invite.uses == 12
    # Without the invite the address's own limit still holds; a refused form keeps the name typed.
    plain = {"password1": NEW_PASSWORD, "password2": NEW_PASSWORD}
    assert [_signup_with(f"walkin{i}", plain).status_code for i in range(11)] == [302] * 10 + [429]
    refused = _signup_with("latecomer", plain).content.decode()
    assert "Too many sign-ups" in refused and 'value="latecomer"' in refused


def test_guessing_taken_names_through_an_invite_is_as_slow_as_without(db, settings):
    from vtt.models import Invite, Role

    settings.SIGNUP_LIMIT = 3
    gm = get_user_model().objects.create_user("gm", password=PASSWORD)
    from tests.table import make_campaign

    invite = Invite.objects.create(campaign=make_campaign(gm), created_by=gm, role=Role.PLAYER, max_uses=50)
    data = {
        "password1": NEW_PASSWORD,
        "password2": NEW_PASSWORD,
        "next": reverse("join", args=[invite.token]),
    }
    assert [_signup_with("gm", data).status_code for _ in range(3)] == [200] * 3  # taken: refused, counted
    assert _signup_with("fresh-name", data).status_code == 429


def _signup_with(username: str, data: dict, ip: str = "203.0.113.40"):
    return Client(REMOTE_ADDR=ip).post(reverse("signup"), {**data, "username": username})


# ------------------------------------------------------------------ issue 22: websocket Origin behind TLS (point 8)


def test_point_8_behind_the_proxy_the_https_origin_is_accepted_and_http_refused(settings):
    settings.ALLOWED_HOSTS = ["vtt.example.org"]
    settings.CSRF_TRUSTED_ORIGINS = []  # the deployment guide lists none
    settings.TRUSTED_PROXY_COUNT = 1
    proxied = [(b"x-forwarded-proto", b"https"), (b"x-forwarded-for", b"203.0.113.9")]
    scope = _scope("https://vtt.example.org", "vtt.example.org")
    scope["headers"] += proxied
    assert origin_allowed(scope)
    scope = _scope("http://vtt.example.org", "vtt.example.org")
    scope["headers"] += proxied
    assert not origin_allowed(scope)
    # X-Forwarded-Proto counts only from a trusted proxy: without one, the socket's own scheme decides.
    settings.TRUSTED_PROXY_COUNT = 0
    scope = _scope("https://vtt.example.org", "vtt.example.org")
    scope["headers"] += proxied
    assert not origin_allowed(scope)


# ------------------------------------------------------------------ issue 22: lookalike names (point 9)


@pytest.mark.parametrize(
    ("taken", "lookalike"),
    [
        ("gm", "\u0261m"),  # a script g
        ("alice", "aIice"),  # a capital i
        ("gm", "grn"),  # r and n
        ("alice", "al\u0131ce"),  # a dotless i
        ("Alice", "aIice"),
    ],
)
@pytest.mark.every_database  # make test runs it on SQLite too when DATABASE_URL is PostgreSQL
def test_point_9_lookalike_names_are_refused_on_every_database(db, taken, lookalike, tally):
    _refused_as_lookalike(taken, lookalike)
    tally[f"refused on {connection.vendor}"] += 1


@pytest.mark.parametrize(("taken", "lookalike"), [("alice", "ALICE"), ("bob", "b0b"), ("Zoe", "zoe")])
def test_names_in_another_case_or_with_a_digit_for_a_letter_stay_refused(db, taken, lookalike):
    _refused_as_lookalike(taken, lookalike)


def _refused_as_lookalike(taken: str, lookalike: str) -> None:
    User = get_user_model()
    User.objects.create_user(taken, password=PASSWORD)
    response = _signup(lookalike)
    assert UNAVAILABLE in response.content.decode()
    assert not User.objects.filter(username=lookalike).exists()


def test_point_1_the_readme_deployment_reads_addresses_by_the_one_rule():
    """The deployment guide's daphne takes no --proxy-headers (leftmost X-Forwarded-For), its nginx overwrites the
    header, and one trusted proxy is declared: no other setting is needed (not even for the Origin)."""
    from pathlib import Path

    guide = (Path(__file__).resolve().parents[2] / "docs" / "deploy.md").read_text()
    deploy = guide[: guide.index("\n## ")]  # the deployment, before the odds workers
    servers = [line for line in deploy.splitlines() if "bin/daphne" in line or "bin/uvicorn" in line]
    assert servers and not any("--proxy-headers" in line for line in servers)
    exports = [line for line in deploy.splitlines() if line.startswith("export ")]
    assert any("TRUSTED_PROXY_COUNT=1" in line for line in exports)
    assert not any("CSRF_TRUSTED_ORIGINS" in line for line in exports)
    assert "proxy_set_header X-Forwarded-For $remote_addr;" in deploy
    assert "$proxy_add_x_forwarded_for" not in deploy
