"""Fixtures for the web tests: the personas' characters, a logged-in client, and form data.

The personas (``gm``, ``player``, ``other_player``, ``observer``, ``outsider``)
and their ``campaign`` are fixtures of tests/conftest.py (made in tests/table.py).
"""

from __future__ import annotations

import pytest

from combat.engine.rulesets import get_ruleset
from tests.content import sheet_post
from tests.table import make_character
from vtt.models import CharacterKind

__all__ = ["sheet_post"]  # the web tests take it from here


@pytest.fixture(autouse=True)
def fast_password_hashing(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def pc(campaign, player):
    return make_character(campaign, "Aria", owner=player)


@pytest.fixture
def other_pc(campaign, other_player):
    return make_character(campaign, "Bram", owner=other_player)


@pytest.fixture
def monster(campaign):
    return make_character(campaign, "Stone Golem", kind=CharacterKind.MONSTER, hp=200)


@pytest.fixture
def as_user(client):
    """``as_user(user)`` -> the test client logged in as ``user`` (``None``: anonymous)."""

    def login(user):
        client.logout()
        if user is not None:
            client.force_login(user)
        return client

    return login


def options_post(ruleset_key: str, **changes) -> dict:
    """Form data for the house-rule fields (``opt_<key>``), defaults unless changed."""
    data = {}
    values = get_ruleset(ruleset_key).default_options() | changes
    for spec in get_ruleset(ruleset_key).option_schema():
        value = values.get(spec.key)
        if spec.kind == "bool":
            if value:
                data[f"opt_{spec.key}"] = "on"
        elif spec.kind == "list":
            data[f"opt_{spec.key}"] = ", ".join(value or [])
        elif value is not None:
            data[f"opt_{spec.key}"] = str(value)
    return data
