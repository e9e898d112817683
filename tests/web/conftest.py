"""Personas for the web tests: one campaign and everyone's relation to it.

``gm`` runs the campaign; ``player`` and ``other_player`` each own a PC;
``observer`` watches; ``outsider`` has an account but no membership.
"""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from combat.engine.rulesets import get_ruleset
from vtt.models import Campaign, Character, CharacterKind, Membership, Role


@pytest.fixture(autouse=True)
def fast_password_hashing(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def make_user(username: str, **extra):
    return get_user_model().objects.create_user(username=username, password=f"{username}-pass-9x", **extra)


@pytest.fixture
def gm(db):
    return make_user("gm")


@pytest.fixture
def player(db):
    return make_user("player")


@pytest.fixture
def other_player(db):
    return make_user("other_player")


@pytest.fixture
def observer(db):
    return make_user("observer")


@pytest.fixture
def outsider(db):
    return make_user("outsider")


def make_campaign(gm, ruleset: str = "mist", name: str = "The Campaign", **members) -> Campaign:
    campaign = Campaign.objects.create(
        name=name, ruleset=ruleset, owner=gm, options=get_ruleset(ruleset).default_options()
    )
    Membership.objects.create(user=gm, campaign=campaign, role=Role.GM)
    for role, users in members.items():
        for user in users:
            Membership.objects.create(user=user, campaign=campaign, role=role)
    return campaign


def make_character(campaign, name, kind=CharacterKind.PC, owner=None, **changes) -> Character:
    sheet = campaign.ruleset_class.sheet_schema.defaults() | changes
    character = Character(campaign=campaign, name=name, kind=kind, owner=owner, sheet=sheet)
    character.full_clean()
    character.save()
    return character


@pytest.fixture
def campaign(gm, player, other_player, observer, outsider):
    return make_campaign(gm, player=[player, other_player], observer=[observer])


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


def sheet_post(schema, sheet: dict, **model_fields) -> dict:
    """Form data for a character form: model fields plus ``sheet_<key>`` per stat."""
    data = dict(model_fields)
    for spec in schema:
        value = sheet.get(spec.key, spec.default)
        if spec.kind == "bool":
            if value:
                data[f"sheet_{spec.key}"] = "on"
        elif spec.kind == "list":
            data[f"sheet_{spec.key}"] = ", ".join(value or [])
        else:
            data[f"sheet_{spec.key}"] = "" if value is None else str(value)
    return data


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
