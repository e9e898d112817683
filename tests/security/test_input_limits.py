"""Input that once raised: Unicode digits, deep nesting, NUL, oversized frames. Each gets a 400 or a refusal.

Numbers are ASCII digits only (``"²".isdigit()`` is true, ``int("²")`` raises);
every JSON parse has a size and a depth limit; ``Action.from_dict`` refuses
deep nesting instead of overflowing the stack. Nothing refused changes the battle.
"""

from __future__ import annotations

import json

import pytest

from combat import services
from combat.engine.actions import MAX_DEPTH, Action, Refusal, loads_bounded, nesting_depth
from combat.forms import BadInput, action_from_post, ascii_int
from tests.security.conftest import client_for, combatant_named, fingerprint, make_world
from tests.sockets import communicator, frames

DEEP_LIST = "[" * 2000 + "]" * 2000  # under the 4,000-character limit, far past the recursion limit


def _deep(levels: int) -> list:
    value: list = []
    for _ in range(levels):
        value = [value]
    return value


@pytest.mark.parametrize("seq", ["²", "١٢", "１", "1²", "-1", "1e3", " "])
@pytest.mark.parametrize("endpoint", ["act", "start", "undo"])
def test_a_unicode_digit_seq_is_a_400_and_changes_nothing(world, endpoint, seq):
    battle = world["setup"] if endpoint == "start" else world["battle"]
    role = "player" if endpoint == "act" else "gm"
    data = {"expected_seq": seq, "client_token": "t-1"}
    if endpoint == "act":
        data.update(kind="end_turn", actor=combatant_named(battle, "Ayla"))
    before = fingerprint(battle.pk)
    response = client_for(world, role).post(f"/battles/{battle.pk}/{endpoint}", data, HTTP_HX_REQUEST="true")
    if (
        seq == " "
    ):  # blank means "no version given" on start and undo; on act it is a refused end_turn at most
        assert response.status_code < 500
        return
    assert response.status_code == 400, response.content
    assert "malformed" in response.content.decode()
    assert fingerprint(battle.pk) == before


@pytest.mark.parametrize("square", ["1,²", "²,1", "١,٢", "1,2,3", "1", "a,b", ",", "1,-" + "9" * 40])
def test_a_move_to_a_malformed_square_is_a_400_and_changes_nothing(world, square):
    battle = world["battle"]
    ayla = combatant_named(battle, "Ayla")
    before = fingerprint(battle.pk)
    response = client_for(world, "player").post(
        f"/battles/{battle.pk}/act",
        {
            "kind": "move",
            "actor": ayla,
            "params": "{}",
            "square": square,
            "expected_seq": str(before[0]),
        },
        HTTP_HX_REQUEST="true",
    )
    assert response.status_code == 400, response.content
    assert fingerprint(battle.pk) == before


@pytest.mark.parametrize(
    "params",
    [
        DEEP_LIST,
        '{"a":' * 600 + "1" + "}" * 600,
        "[" * 3999,
        '{"ability": "fire_bolt", "x": ' + "[" * 1900 + "]" * 1900 + "}",
    ],
)
def test_deeply_nested_action_params_are_a_400_and_change_nothing(world, params):
    battle = world["battle"]
    assert len(params) <= 4000
    before = fingerprint(battle.pk)
    response = client_for(world, "player").post(
        f"/battles/{battle.pk}/act",
        {
            "kind": "ability",
            "actor": combatant_named(battle, "Ayla"),
            "params": params,
            "expected_seq": str(before[0]),
        },
        HTTP_HX_REQUEST="true",
    )
    assert response.status_code == 400, response.content
    assert fingerprint(battle.pk) == before


def test_a_nul_in_the_client_token_is_refused(world):
    battle = world["battle"]
    before = fingerprint(battle.pk)
    response = client_for(world, "player").post(
        f"/battles/{battle.pk}/act",
        {
            "kind": "end_turn",
            "actor": combatant_named(battle, "Ayla"),
            "expected_seq": str(before[0]),
            "client_token": "tok\x00en",
        },
        HTTP_HX_REQUEST="true",
    )
    assert response.status_code == 400
    assert fingerprint(battle.pk) == before
    result = services.submit_action(
        battle.pk,
        world["users"]["player"],
        {"kind": "end_turn", "actor": combatant_named(battle, "Ayla")},
        before[0],
        "tok\x00en",
    )
    assert not result.ok and "token" in result.reason
    assert fingerprint(battle.pk) == before


def test_the_services_treat_a_unicode_digit_seq_as_stale(world):
    battle = world["battle"]
    before = fingerprint(battle.pk)
    result = services.submit_action(
        battle.pk,
        world["users"]["player"],
        {"kind": "end_turn", "actor": combatant_named(battle, "Ayla")},
        "²",
    )
    assert not result.ok
    assert fingerprint(battle.pk) == before


def test_action_from_dict_refuses_deep_nesting_without_recursing():
    refused = Action.from_dict({"kind": "ability", "actor": "c1", "params": {"x": _deep(50_000)}})
    assert isinstance(refused, Refusal) and "nested" in refused.reason
    shallow = Action.from_dict(
        {"kind": "ability", "actor": "c1", "params": {"targets": ["c2"], "to": [1, 2]}}
    )
    assert isinstance(shallow, Action)
    assert nesting_depth(_deep(50_000)) == MAX_DEPTH + 1  # stops counting once past the limit


def test_bounded_json_parsing():
    assert loads_bounded('{"a": [1, "[[[["]}', 100) == {"a": [1, "[[[["]}
    assert isinstance(loads_bounded(DEEP_LIST, 5000), Refusal)
    assert isinstance(loads_bounded("x" * 101, 100), Refusal)
    assert isinstance(loads_bounded("{nope", 100), Refusal)
    assert ascii_int("12") == 12 and ascii_int("-3") == -3
    for text in ("²", "١٢", "１", "1e3", "", " ", None, "1.0"):
        assert ascii_int(text) is None
    with pytest.raises(BadInput):
        action_from_post({"kind": "move", "expected_seq": "²"})


@pytest.mark.django_db(transaction=True)
async def test_deep_oversized_and_unicode_socket_frames_are_refused_and_the_socket_lives_on():
    from channels.db import database_sync_to_async
    from django.test import Client

    world = await database_sync_to_async(make_world)()
    client = Client()
    await database_sync_to_async(client.force_login)(world["users"]["player"])
    comm = communicator(world["battle"].pk, client.cookies["sessionid"].value)
    connected, _ = await comm.connect()
    assert connected
    try:
        await frames(comm, 0.2)
        for text in (
            '{"type": "sync", "seq": ' + "[" * 1000 + "]" * 1000 + "}",
            DEEP_LIST,
            '{"type": "sync", "seq": "²", "reconnect": ' + "[" * 900 + "]" * 900 + "}",
            json.dumps({"type": "sync", "seq": 1, "pad": "x" * 100_000}),
            "[" * 200_000,
        ):
            await comm.send_to(text_data=text)
        assert await frames(comm, 0.5) == []  # refused: no render for any of them
        await comm.send_to(text_data=json.dumps({"type": "sync", "seq": -1}))
        assert 'id="board"' in "".join(await frames(comm, 2.0, until='id="battle-seq"'))
        assert not comm.future.done()
    finally:
        await comm.disconnect()


# ------------------------------------------------------------------ issue 22, point 5: NUL and over-long text


def test_point_5_a_256_character_username_at_login_gets_a_400(db, settings):
    from axes.models import AccessAttempt
    from django.test import Client

    from vtt.forminput import REFUSED

    settings.AXES_ENABLED = True
    for name in ("u" * 256, "u" * 151):
        response = Client().post("/accounts/login/", {"username": name, "password": "whatever"})
        assert response.status_code == 400
        assert REFUSED in response.content.decode()
    assert not AccessAttempt.objects.exists()  # nothing reached the lockout's table


def test_point_5_a_nul_in_the_gm_end_battle_reason_gets_a_400_and_changes_nothing(world):
    from vtt.forminput import REFUSED

    battle = world["battle"]
    before = fingerprint(battle.pk)
    response = client_for(world, "gm").post(
        f"/battles/{battle.pk}/act",
        {"kind": "gm.end_battle", "reason": "Ran\x00away", "expected_seq": str(before[0])},
        HTTP_HX_REQUEST="true",
    )
    assert response.status_code == 400
    assert REFUSED in response.content.decode()
    assert fingerprint(battle.pk) == before
    # The services refuse it too (a payload that never went through a form).
    result = services.gm_override(
        battle.pk, world["users"]["gm"], {"kind": "gm.end_battle", "params": {"reason": "Ran\x00away"}}
    )
    assert not result.ok and "NUL" in result.reason
    assert fingerprint(battle.pk) == before


def _write_rows():
    from tests.security.matrix import MATRIX

    return [pytest.param(r[1], r[2], r[4], id=r[0]) for r in MATRIX if r[3] == "post"]


@pytest.mark.parametrize("bad", ["nul", "long"])
@pytest.mark.parametrize(("name", "args", "data"), _write_rows())
def test_point_5_every_form_refuses_nul_and_over_long_text_with_one_message(world, name, args, data, bad):
    from django.urls import reverse

    from tests.security.matrix import matrix_ids
    from vtt.forminput import MAX_FIELD_CHARS, REFUSED
    from vtt.models import Campaign, Character, ContentEntry, Invite, MapImage, Membership

    ids = matrix_ids(world)
    url = reverse(name, args=[ids[a] for a in args])
    fields = {k: v for k, v in data(world).items() if isinstance(v, str)} or {"note": "x"}
    models = (Campaign, Character, ContentEntry, Invite, MapImage, Membership)
    before = (
        [fingerprint(world["battle"].pk), fingerprint(world["setup"].pk)],
        [sorted(m.objects.values_list("pk", flat=True)) for m in models],
    )
    for key in fields:
        value = "a\x00b" if bad == "nul" else "x" * (MAX_FIELD_CHARS + 1)
        response = client_for(world, "gm").post(url, {**data(world), key: value})
        assert response.status_code == 400, (key, response.status_code)
        assert REFUSED in response.content.decode()
    after = (
        [fingerprint(world["battle"].pk), fingerprint(world["setup"].pk)],
        [sorted(m.objects.values_list("pk", flat=True)) for m in models],
    )
    assert after == before


@pytest.mark.parametrize("name", ["signup", "login"])
def test_point_5_the_account_forms_refuse_a_nul_with_the_same_message(db, name):
    from django.contrib.auth import get_user_model
    from django.test import Client

    from vtt.forminput import REFUSED

    response = Client().post(
        f"/accounts/{name}/", {"username": "nu\x00ll", "password": "p", "password1": "p", "password2": "p"}
    )
    assert response.status_code == 400 and REFUSED in response.content.decode()
    assert not get_user_model().objects.exists()
