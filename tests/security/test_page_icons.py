"""Every page names the tab icon (an SVG the site serves), so no browser asks for a /favicon.ico that 404s.

The test walks every URL pattern of the site (the admin's included), fills its parameters from one
campaign with a battle, a character, a member, an invite, a map, a chat line and a homebrew entry, and
opens each as the campaign's GM, who is also a superuser: every whole HTML document it gets names the
icon. A new page is checked without an edit here; a new kind of URL parameter fails the test until it
is given a value below.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver

from tests.content import CASES
from tests.table import PASSWORD, make_battle, make_characters, make_users, table_campaign

pytestmark = pytest.mark.django_db

ICON = re.compile(r'<link rel="icon" href="([^"]+)" type="image/svg\+xml">')
PARAM = re.compile(r"<(?:\w+:)?(\w+)>|\(\?P<(\w+)>[^)]*\)")


def _routes(resolver: URLResolver, prefix: str = "") -> list[str]:
    routes: list[str] = []
    for pattern in resolver.url_patterns:
        route = prefix + str(pattern.pattern)
        if isinstance(pattern, URLResolver):
            routes.extend(_routes(pattern, route))
        elif isinstance(pattern, URLPattern):
            routes.append(route)
    return routes


def _values(world: dict[str, Any]) -> dict[str, Any]:
    """A value for each URL parameter, by the page it belongs to (``pk`` is a battle's under battles/)."""
    from vtt import chat
    from vtt.models import ContentEntry, Invite, MapImage, Membership

    campaign, gm = world["campaign"], world["users"]["gm"]
    kind, definition, *_ = CASES[campaign.ruleset]["ability"]
    entry = ContentEntry.objects.create(campaign=campaign, kind=kind, key="page_walk", data=definition)
    said = chat.post(campaign.pk, gm, "Hello, table")
    assert said.message is not None, said
    picture = MapImage.objects.create(campaign=campaign, name="Cave", width=10, height=10)
    invite = Invite.objects.create(campaign=campaign, created_by=gm)
    from combat.models import Battle
    from combat.services import load_state

    battle: Battle = world["battle"]
    return {
        "campaign": campaign.pk,
        "battle": battle.pk,
        "char_pk": next(iter(world["characters"].values())).pk,
        "member_pk": Membership.objects.get(campaign=campaign, user=world["users"]["player"]).pk,
        "invite_pk": invite.pk,
        "map_pk": picture.pk,
        "message_pk": said.message.pk,
        "kind": entry.kind,
        "key": entry.key,
        "token": invite.token,
        "cid": load_state(battle).current().id,
        "app_label": "vtt",
        "url": "no-such-page/",
        "name": "no-such-file.png",
    }


def _admin_objects(route: str) -> str | None:
    """The first object's pk of the model an admin route edits (``admin/<app>/<model>/...``)."""
    from django.apps import apps

    parts = route.split("/")
    try:
        model = apps.get_model(parts[1], parts[2])
    except (LookupError, ValueError, IndexError):
        return None  # admin/r/... (view on site) names no model
    first = model._default_manager.order_by("pk").first()
    return None if first is None else str(first.pk)


def _url(route: str, values: dict[str, Any]) -> str:
    def fill(found: re.Match[str]) -> str:
        name = found.group(1) or found.group(2)
        if name == "pk":
            return str(values["battle" if route.startswith("battles/") else "campaign"])
        if name in ("object_id", "id"):
            return _admin_objects(route) or "0"
        if name in ("content_type_id",):
            return "0"
        if name not in values:
            raise AssertionError(f"no value for the URL parameter {name!r} of {route!r}: add one to _values")
        return str(values[name])

    return "/" + PARAM.sub(fill, route).replace("^", "").replace("$", "")


def _world() -> dict[str, Any]:
    users = make_users()
    campaign = table_campaign(users)
    characters = make_characters(campaign, users)
    battle = make_battle(campaign, users["gm"], characters)
    return {"users": users, "campaign": campaign, "characters": characters, "battle": battle}


def test_every_page_names_its_icon_and_the_icon_is_served(tally):
    world = _world()
    gm = world["users"]["gm"]
    get_user_model().objects.filter(pk=gm.pk).update(is_staff=True, is_superuser=True)
    client = Client(raise_request_exception=False)
    assert client.login(username=gm.username, password=PASSWORD)
    values = _values(world)
    missing, icons = [], set()
    for route in _routes(get_resolver()):
        url = _url(route, values)
        response = client.get(url)
        assert response.status_code < 500, url
        body = b"" if response.streaming else response.content
        if not body.lstrip().lower().startswith(b"<!doctype html"):
            continue  # a redirect, a fragment, a file, JSON: not a page of its own
        tally["pages"] += 1
        found = ICON.search(body.decode())
        if found is None:
            missing.append(url)
        else:
            icons.add(found.group(1))
    assert not missing, f"pages without the tab icon: {missing}"
    assert tally["pages"] >= 30, f"only {tally['pages']} pages were walked"
    assert len(icons) == 1
    icon = Client().get(icons.pop())
    served = b"".join(icon.streaming_content) if icon.streaming else icon.content
    assert icon.status_code == 200 and served.startswith(b"<svg")


@pytest.mark.parametrize("status", [400, 403, 404, 413, 500])
def test_every_error_page_names_the_icon(status):
    """500.html holds the icon itself (a data: URL): it must render when nothing else does."""
    from django.template.loader import render_to_string

    found = ICON.search(render_to_string(f"{status}.html"))
    assert found
    if found.group(1).startswith("data:"):
        from pathlib import Path
        from urllib.parse import unquote

        from django.conf import settings

        served = (Path(settings.BASE_DIR) / "static" / "favicon.svg").read_text().strip()
        assert unquote(found.group(1).removeprefix("data:image/svg+xml,")) == served.replace('"', "'")
