"""The plan menu of a tap on the board (GET /battles/<id>/plans) and its steps posted as ordinary
actions: who gets plans, what they hold, and every forged, stale or foreign step refused in place with
nothing changed."""

from __future__ import annotations

import html
import json
import re

import pytest

from combat import services
from combat.models import Battle, BattleEvent
from tests.table import current, table

pytestmark = pytest.mark.django_db
HX = {"HTTP_HX_REQUEST": "true"}
PLAN = re.compile(r"data-plan='([^']*)'")


def _menu(client, user, battle, **query):
    client.force_login(user)
    return client.get(f"/battles/{battle.pk}/plans", query, **HX)


def _plans(response) -> list[dict]:
    return [json.loads(html.unescape(raw)) for raw in PLAN.findall(response.content.decode())]


def _ids(battle) -> dict[str, str]:
    battle.refresh_from_db()
    return {c.name: c.id for c in services.load_state(battle).combatants.values()}


def _post_step(client, user, battle, actor, step, seq, token):
    client.force_login(user)
    data = {
        "kind": step["kind"],
        "actor": actor,
        "params": json.dumps(step["params"]),
        "expected_seq": str(seq),
        "client_token": token,
    }
    return client.post(f"/battles/{battle.pk}/act", data, **HX)


def _unchanged(battle):
    before = (battle.seq, BattleEvent.objects.filter(battle=battle).count())
    return lambda: (
        (Battle.objects.get(pk=battle.pk).seq, BattleEvent.objects.filter(battle=battle).count()) == before
    )


def _brams_turn(battle, users) -> None:
    """Ayla and the Goblin end their turns: Bram (a Fighter with a sword, 3 squares from it) acts."""
    for who in ("player", "gm"):
        battle.refresh_from_db()
        c = current(battle)
        assert services.submit_action(
            battle.pk, users[who], {"kind": "end_turn", "actor": c.id}, battle.seq
        ).ok
    assert current(battle).name == "Bram"


def test_the_acting_player_taps_the_goblin_and_gets_each_action_that_reaches_it(client):
    users, _, battle = table()
    ids = _ids(battle)
    response = _menu(client, users["player"], battle, target=ids["Goblin"])
    assert response.status_code == 200
    page = response.content.decode()
    assert 'id="plan-menu"' in page and f'data-seq="{battle.seq}"' in page and "D1" in page
    plans = _plans(response)
    fire_bolt = next(p for p in plans if p["label"] == "Fire Bolt")
    assert fire_bolt["steps"] == [
        {"kind": "ability", "params": {"ability": "fire_bolt", "targets": [ids["Goblin"]]}}
    ]
    assert fire_bolt["target"] == ids["Goblin"] and fire_bolt["path"] == []
    assert "Confirm" in page


def test_an_empty_square_is_a_move_with_its_path(client):
    users, _, battle = table()
    response = _menu(client, users["player"], battle, at="2,1")
    plans = {p["label"]: p for p in _plans(response)}
    move = plans["Move"]
    assert move["path"][0] == [0, 0] and move["path"][-1] == [2, 1]
    assert move["steps"] == [{"kind": "move", "params": {"to": [2, 1]}}]
    assert "C2" in response.content.decode()
    # Ayla's Flame Burst may be centred there: its area is drawn, around the square.
    burst = plans["Flame Burst"]
    assert (
        burst["steps"][0]["params"]["square"] == [2, 1]
        and [2, 1] in burst["area"]
        and [3, 0] in burst["area"]
    )


def test_someone_who_does_not_act_now_gets_no_plan(client):
    users, _, battle = table()
    ids = _ids(battle)
    for who in ("other_player", "observer"):
        response = _menu(client, users[who], battle, target=ids["Goblin"])
        assert response.status_code == 200 and _plans(response) == []
        assert "It is not your turn." in response.content.decode()


def test_an_outsider_gets_no_menu_at_all(client):
    users, _, battle = table()
    response = _menu(client, users["outsider"], battle, at="1,1")
    assert response.status_code == 404


@pytest.mark.parametrize(
    ("query", "status", "words"),
    [
        ({}, 400, "Tap a token or a square"),
        ({"at": "1;1"}, 400, "not on the board"),
        ({"at": "99,1"}, 400, "not on the board"),
        ({"at": "-1,1"}, 400, "not on the board"),
        ({"at": "1,1,1"}, 400, "not on the board"),
        ({"target": "c99"}, 404, "Nobody you can see stands there."),
        ({"target": "x" * 40}, 400, "Tap a token or a square"),
    ],
)
def test_a_forged_tap_is_answered_with_a_message(client, query, status, words):
    users, _, battle = table()
    response = _menu(client, users["player"], battle, **query)
    assert response.status_code == status
    assert words in response.content.decode() and _plans(response) == []


def test_a_goblin_in_the_fog_is_nobody_to_a_player(client):
    users, _, battle = table()
    ids = _ids(battle)
    assert services.gm_override(
        battle.pk, users["gm"], {"kind": "gm.fog", "params": {"mode": "on"}}, battle.seq
    ).ok
    battle.refresh_from_db()
    response = _menu(client, users["player"], battle, target=ids["Goblin"])
    assert response.status_code == 404 and "Goblin" not in response.content.decode()
    on_its_square = _menu(client, users["player"], battle, at="3,0")
    assert "Goblin" not in on_its_square.content.decode()
    gm_view = _menu(client, users["gm"], battle, target=ids["Goblin"])
    assert gm_view.status_code == 200 and any(p["label"] == "Fire Bolt" for p in _plans(gm_view))


def test_a_plan_with_a_move_plays_as_two_ordinary_actions_each_undone_on_its_own(client):
    users, _, battle = table()
    _brams_turn(battle, users)
    ids = _ids(battle)
    response = _menu(client, users["other_player"], battle, target=ids["Goblin"])
    sword = next(p for p in _plans(response) if p["label"] == "Sword")
    assert [s["kind"] for s in sword["steps"]] == ["move", "ability"]
    first = _post_step(
        client, users["other_player"], battle, ids["Bram"], sword["steps"][0], battle.seq, "plan-1a"
    )
    assert first.status_code == 200
    seq = int(re.search(r'data-seq="(\d+)"', first.content.decode()).group(1))
    second = _post_step(client, users["other_player"], battle, ids["Bram"], sword["steps"][1], seq, "plan-1b")
    assert second.status_code == 200
    assert BattleEvent.objects.filter(battle=battle, type="moved").exists()
    assert BattleEvent.objects.filter(battle=battle, type="ability.used").count() == 1
    battle.refresh_from_db()
    assert services.undo(battle.pk, users["gm"], battle.seq).ok  # the sword's blow goes...
    assert not BattleEvent.objects.filter(battle=battle, type="ability.used").exists()
    assert BattleEvent.objects.filter(battle=battle, type="moved").exists()  # ...the move stays


def test_a_stale_plan_step_is_refused_and_nothing_changes(client):
    users, _, battle = table()
    _brams_turn(battle, users)
    ids = _ids(battle)
    sword = next(
        p
        for p in _plans(_menu(client, users["other_player"], battle, target=ids["Goblin"]))
        if p["label"] == "Sword"
    )
    planned_at = battle.seq
    # Meanwhile the GM changes the battle: the plan was worked out on an older one.
    assert services.gm_override(
        battle.pk,
        users["gm"],
        {"kind": "gm.set_hp", "params": {"combatant": ids["Bram"], "delta": -1}},
        battle.seq,
    ).ok
    battle.refresh_from_db()
    unchanged = _unchanged(battle)
    response = _post_step(
        client, users["other_player"], battle, ids["Bram"], sword["steps"][0], planned_at, "plan-2"
    )
    assert response.status_code == 409 and response["HX-Retarget"] == "#battle-messages"
    assert services.STALE in response.content.decode()
    assert unchanged()


@pytest.mark.parametrize(
    ("forged", "reason"),
    [
        ({"kind": "move", "params": {"to": [9, 7]}}, "no path of at most 5 squares"),
        (
            {"kind": "ability", "params": {"weapon": "sword", "targets": ["GOBLIN"], "to": [3, 3]}},
            "free step",
        ),
        ({"kind": "ability", "params": {"weapon": "sword", "targets": ["GOBLIN"]}}, "out of range"),
        ({"kind": "ability", "params": {"weapon": "bow", "targets": ["GOBLIN"]}}, "no such ability"),
    ],
)
def test_a_forged_plan_step_is_refused_with_its_reason_and_nothing_changes(client, forged, reason):
    users, _, battle = table()
    _brams_turn(battle, users)
    ids = _ids(battle)
    step = json.loads(json.dumps(forged).replace("GOBLIN", ids["Goblin"]))
    unchanged = _unchanged(battle)
    response = _post_step(client, users["other_player"], battle, ids["Bram"], step, battle.seq, "forged-1")
    assert response.status_code == 422
    assert reason in response.content.decode().lower()
    assert unchanged()


def test_a_step_of_someone_elses_plan_is_not_yours(client):
    users, _, battle = table()
    ids = _ids(battle)
    fire_bolt = next(p for p in _plans(_menu(client, users["player"], battle, target=ids["Goblin"])))
    unchanged = _unchanged(battle)
    response = _post_step(
        client, users["other_player"], battle, ids["Ayla"], fire_bolt["steps"][0], battle.seq, "x-1"
    )
    assert response.status_code == 403 and unchanged()


def test_the_option_list_puts_the_move_first_and_says_how_to_reach_a_greyed_attack(client):
    users, _, battle = table()
    _brams_turn(battle, users)
    client.force_login(users["other_player"])
    page = client.get(f"/battles/{battle.pk}/").content.decode()
    actions = page[page.index('id="actions"') :]
    assert actions.index(">Move <") < actions.index(">Sword <")
    assert "Goblin is 3 squares away: tap it to approach and strike." in actions


def test_while_the_gm_plays_the_goblin_its_plans_top_the_gms_menu_of_a_token(client):
    users, _, battle = table()
    ids = _ids(battle)
    client.force_login(users["gm"])
    # Ayla's turn: she is a player's character, her player acts: the menu holds no plans.
    during_ayla = client.get(f"/battles/{battle.pk}/menu/{ids['Goblin']}", **HX).content.decode()
    assert "plan-menu" not in during_ayla and "<!--plans-->" not in during_ayla
    battle.refresh_from_db()
    assert services.submit_action(
        battle.pk, users["player"], {"kind": "end_turn", "actor": ids["Ayla"]}, battle.seq
    ).ok
    assert current(battle).name == "Goblin"
    menu = client.get(f"/battles/{battle.pk}/menu/{ids['Bram']}", **HX)
    page = menu.content.decode()
    assert menu.status_code == 200 and 'class="plan-menu embedded"' in page and "Goblin on Bram" in page
    spear = next(p for p in _plans(menu) if p["label"] == "Crude spear")
    assert spear["target"] == ids["Bram"] and spear["steps"][-1]["params"]["targets"] == [ids["Bram"]]
    assert 'id="tm-' in page and "HP by" in page  # the token's own entries follow
    # The players get no such menu.
    client.force_login(users["other_player"])
    assert client.get(f"/battles/{battle.pk}/menu/{ids['Bram']}", **HX).status_code == 403
