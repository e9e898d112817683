"""Every URL of the site, for every persona, over HTTP.

The matrix (tests/security/matrix.py) lists each named URL of ``vtt`` and
``combat`` with the methods it answers; ``test_every_url_pattern_is_in_the_matrix``
fails when a view is added without a row there. Battle and chat writes are posted as htmx does (so refusals
come back as their 4xx, not as a redirect), and every refusal must leave the
battle's seq, snapshot and log exactly as they were. Anything a player,
observer or stranger receives must not contain the Goblin's hidden HP.

Expected values per role, in ``ROLES`` order (anonymous, outsider, admin,
observer, player, other_player, gm): a status code, or ``L`` for a redirect
to the login page.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.urls import URLPattern, URLResolver, get_resolver, reverse

from tests.security.conftest import ROLES, client_for, fingerprint, open_reaction
from tests.security.matrix import MATRIX, L, matrix_ids
from tests.table import SECRET_HP

SECRET = re.compile(rf"(?<!\w){SECRET_HP}(?!\w)")


CASES = [
    pytest.param(row, name, args, method, data, role, expected[i], id=f"{row}-{role}")
    for row, name, args, method, data, expected in MATRIX
    for i, role in enumerate(ROLES)
]
BATTLE_VIEWS = {
    "battle",
    "battle_act",
    "battle_start",
    "battle_undo",
    "battle_add",
    "battle_log",
    "battle_new",
    "chat",
    "chat_edit",
    "chat_delete",
}


def _names(patterns: list[Any], namespace: str = "") -> set[str]:
    names: set[str] = set()
    for p in patterns:
        if isinstance(p, URLResolver):
            if p.namespace == "admin":
                continue
            names |= _names(p.url_patterns, p.namespace or namespace)
        elif isinstance(p, URLPattern) and p.name:
            names.add(f"{namespace}:{p.name}" if namespace else p.name)
    return names


def test_every_url_pattern_is_in_the_matrix(tally):
    routed = _names(get_resolver().url_patterns)
    covered = {name for _, name, *_ in MATRIX}
    assert routed - covered == set(), "views without permission cases: add rows to MATRIX"
    assert covered - routed == set()
    assert len(CASES) == len(ROLES) * len(MATRIX) >= len(ROLES) * len(routed)
    tally["cases"], tally["named URLs"] = len(CASES), len(routed)


@pytest.mark.parametrize(("row", "name", "args", "method", "data", "role", "expected"), CASES)
def test_http_permission_matrix(world, row, name, args, method, data, role, expected):
    ids = matrix_ids(world)
    url = reverse(name, args=[ids[a] for a in args])
    client = client_for(world, role)
    headers = {"HTTP_HX_REQUEST": "true"} if name in BATTLE_VIEWS and method == "post" else {}
    watched = [world["battle"].pk, world["setup"].pk]
    before = [fingerprint(b) for b in watched]
    if name == "battle_log":
        url += f"?before={world['battle'].seq + 1}"
    if name == "battle_plans":
        url += f"?target={ids['goblin_token']}"
    response = client.post(url, data(world), **headers) if method == "post" else client.get(url)
    if expected == L:
        assert response.status_code == 302, (row, role, response.status_code)
        assert response["Location"].startswith(reverse("login"))
    else:
        assert response.status_code == expected, (row, role, response.content[:300])
    raw = b"".join(response.streaming_content) if response.streaming else response.content
    body = raw.decode(errors="replace")
    if role != "gm":
        assert not SECRET.search(body), f"hidden HP leaked to {role} on {row}"
    if response.status_code >= 400 or expected == L:
        assert [fingerprint(b) for b in watched] == before, f"a refusal changed a battle: {row} {role}"


@pytest.mark.parametrize("role", ROLES)
def test_django_admin_is_for_staff_only(world, role):
    """Admin policy: only staff reach /admin/ (the superuser edits sheets there); members do not."""
    client = client_for(world, role)
    for url in (
        reverse("admin:index"),
        reverse("admin:vtt_character_change", args=[world["characters"]["goblin"].pk]),
    ):
        response = client.get(url)
        if role == "admin":
            assert response.status_code == 200, url
        else:
            assert response.status_code == 302 and "/admin/login/" in response["Location"], (role, url)


def test_the_gm_sees_the_hidden_hp_that_players_do_not(world):
    """The matrix's leak check is meaningful: the same page shows the number to the GM."""
    url = reverse("battle", args=[world["battle"].pk])
    assert SECRET.search(client_for(world, "gm").get(url).content.decode())
    assert not SECRET.search(client_for(world, "player").get(url).content.decode())


# Answering a reaction prompt addressed to Bram's owner (other_player), by each persona.
ANSWER = dict(zip(ROLES, (L, 404, 404, 403, 403, 200, 200), strict=True))


@pytest.mark.parametrize("role", ROLES)
def test_only_the_addressed_player_or_the_gm_answers_a_prompt(world, role):
    pending = open_reaction(world)
    bid = world["battle"].pk
    page = (
        client_for(world, "gm" if role in ("anonymous", "outsider", "admin") else role)
        .get(reverse("battle", args=[bid]))
        .content.decode()
    )
    # The prompt's choices are rendered only for whom it addresses, and the GM.
    assert ("Take the hit" in page) == (role in ("other_player", "gm", "anonymous", "outsider", "admin"))
    before = fingerprint(bid)
    data = {
        "kind": "answer",
        "actor": pending["combatant"],
        "decision": pending["id"],
        "choice": pending["options"][0],
        "expected_seq": str(before[0]),
    }
    if role == "gm":
        data.pop("actor")  # the GM's prompt form answers for the controller
    response = client_for(world, role).post(reverse("battle_act", args=[bid]), data, HTTP_HX_REQUEST="true")
    expected = ANSWER[role]
    if expected == L:
        assert response.status_code == 302
    else:
        assert response.status_code == expected, response.content[:300]
    if response.status_code != 200:
        assert fingerprint(bid) == before
    else:
        assert fingerprint(bid)[0] > before[0]
