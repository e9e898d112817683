"""Acting on the battle page over HTMX: accepted actions, and every kind of bad input refused in place."""

from __future__ import annotations

import re

import pytest

from combat import services
from combat.models import Battle, BattleEvent
from tests.table import SECRET_HP, current, goblin_attacks_bram, table

pytestmark = pytest.mark.django_db
HX = {"HTTP_HX_REQUEST": "true"}


def _post(client, user, battle, data, **headers):
    client.force_login(user)
    return client.post(f"/battles/{battle.pk}/act", data, **{**HX, **headers})


def _fire_bolt(battle, **changes):
    battle.refresh_from_db()
    state = services.load_state(battle)
    goblin = next(c for c in state.combatants.values() if c.name == "Goblin")
    data = {
        "kind": "ability",
        "actor": state.current().id,
        "params": '{"ability": "fire_bolt"}',
        "target": goblin.id,
        "expected_seq": str(battle.seq),
        "client_token": "tap-1",
    }
    data.update(changes)
    return data


def _unchanged(battle):
    before = (battle.seq, BattleEvent.objects.filter(battle=battle).count())
    return lambda: (
        (Battle.objects.get(pk=battle.pk).seq, BattleEvent.objects.filter(battle=battle).count()) == before
    )


def test_a_player_casts_at_a_target_and_gets_the_regions_back(client):
    users, _, battle = table()
    response = _post(client, users["player"], battle, _fire_bolt(battle))
    assert response.status_code == 200
    html = response.content.decode()
    # The campaign hides enemy HP: the outcome says the Goblin is hurt and shows Ayla's own dice, never how much
    # it took (with the dice that would tell its armour).
    assert "Hit! Goblin is hurt — 2d6 [3, 4] = 7." in html and 'id="board"' in html and 'id="log"' in html
    assert "6 damage" not in html
    assert "Ayla uses Fire Bolt on Goblin." in html
    assert str(SECRET_HP) not in html  # the player's own render hides the Goblin's HP
    assert BattleEvent.objects.filter(battle=battle, type="ability.used").count() == 1


def test_with_enemy_hp_shown_the_outcome_line_has_the_damage_and_its_dice(client):
    users, _, battle = table(hide_enemy_hp=False)
    response = _post(client, users["player"], battle, _fire_bolt(battle))
    assert response.status_code == 200
    assert "Hit! 6 damage to Goblin — 2d6 [3, 4] = 7." in response.content.decode()


def test_with_a_live_socket_the_response_carries_only_the_message(client):
    users, _, battle = table()
    response = _post(client, users["player"], battle, _fire_bolt(battle), HTTP_X_VTT_LIVE="1")
    assert response.status_code == 200
    assert 'id="board"' not in response.content.decode()


def test_a_stale_page_is_refused_with_fresh_regions(client):
    users, _, battle = table()
    unchanged = _unchanged(battle)
    response = _post(client, users["player"], battle, _fire_bolt(battle, expected_seq=str(battle.seq - 1)))
    assert response.status_code == 409
    assert response["HX-Retarget"] == "#battle-messages"
    html = response.content.decode()
    assert services.STALE in html and 'id="board"' in html
    assert unchanged()


def test_the_pages_seq_sent_with_a_pushed_form_is_checked_like_a_forms_own(client):
    """A pushed option form holds no seq: the page sends its seq mark (``page_seq``) with it, and a
    stale page is refused the same way, even when the form's own older field would pass."""
    users, _, battle = table()
    unchanged = _unchanged(battle)
    data = _fire_bolt(battle)
    data.pop("expected_seq")
    stale = _post(client, users["player"], battle, dict(data, page_seq=str(battle.seq - 1)))
    assert stale.status_code == 409 and services.STALE in stale.content.decode()
    stale = _post(
        client,
        users["player"],
        battle,
        dict(data, page_seq=str(battle.seq - 1), expected_seq=str(battle.seq)),
    )
    assert stale.status_code == 409 and unchanged()
    # A page's first render keeps its own (older) seq in the form; the page's current seq mark decides.
    fresh = _post(
        client,
        users["player"],
        battle,
        dict(data, page_seq=str(battle.seq), expected_seq=str(battle.seq - 1)),
    )
    assert fresh.status_code == 200
    assert BattleEvent.objects.filter(battle=battle, type="ability.used").count() == 1


def test_a_double_tap_acts_once(client):
    users, _, battle = table()
    data = _fire_bolt(battle)
    first = _post(client, users["player"], battle, data)
    seq = Battle.objects.get(pk=battle.pk).seq
    second = _post(client, users["player"], battle, data)
    assert first.status_code == second.status_code == 200
    assert "Already done" in second.content.decode()
    assert Battle.objects.get(pk=battle.pk).seq == seq
    assert BattleEvent.objects.filter(battle=battle, type="ability.used").count() == 1


def test_acting_for_someone_elses_combatant_is_refused(client):
    users, _, battle = table()
    unchanged = _unchanged(battle)
    response = _post(client, users["other_player"], battle, _fire_bolt(battle))
    assert response.status_code == 403
    assert services.NOT_YOURS in response.content.decode()
    assert unchanged()


def test_a_move_out_of_reach_is_refused_with_the_reason(client):
    users, _, battle = table()
    unchanged = _unchanged(battle)
    data = {
        "kind": "move",
        "actor": current(battle).id,
        "params": "{}",
        "square": "9,7",
        "expected_seq": str(battle.seq),
    }
    response = _post(client, users["player"], battle, data)
    assert response.status_code == 422
    assert "at most 5 squares" in response.content.decode()
    assert unchanged()


@pytest.mark.parametrize(
    ("changes", "status", "text"),
    [
        ({"params": "{not json"}, 400, "malformed"),
        ({"params": "[1, 2]"}, 400, "malformed"),
        ({"expected_seq": "abc"}, 400, "malformed"),
        ({"square": "1;2"}, 400, "malformed"),
        ({"kind": ""}, 400, "missing"),
        ({"kind": "summon_dragon"}, 422, "Unknown action"),
        ({"target": "c99"}, 422, "Not a valid target"),
        ({"actor": "c3"}, 403, services.NOT_YOURS),
        ({"kind": "gm.set_hp", "combatant": "c1", "hp": "999"}, 403, services.GM_ONLY),
        ({"kind": "gm.set_hp", "combatant": "c1", "hp": "lots"}, 400, "whole number"),
    ],
)
def test_forged_fields_are_refused_and_nothing_changes(client, changes, status, text):
    users, _, battle = table()
    unchanged = _unchanged(battle)
    response = _post(client, users["player"], battle, _fire_bolt(battle, **changes))
    assert response.status_code == status, response.content
    assert text in response.content.decode()
    assert unchanged()


def test_observers_cannot_act_and_outsiders_do_not_see_the_battle(client):
    users, _, battle = table()
    unchanged = _unchanged(battle)
    assert _post(client, users["observer"], battle, _fire_bolt(battle)).status_code == 403
    assert _post(client, users["outsider"], battle, _fire_bolt(battle)).status_code == 404
    # The access check rides on the service's locking read: every way in answers 404 to an outsider.
    gm_kind = {"kind": "gm.set_hp", "combatant": "c1", "hp": "1"}
    assert _post(client, users["outsider"], battle, _fire_bolt(battle, **gm_kind)).status_code == 404
    assert _post(client, users["outsider"], battle, _fire_bolt(battle, params="{")).status_code == 404
    client.force_login(users["player"])
    assert client.post(f"/battles/{battle.pk + 999}/act", _fire_bolt(battle), **HX).status_code == 404
    client.force_login(users["outsider"])
    assert client.get(f"/battles/{battle.pk}/").status_code == 404
    client.logout()
    assert client.get(f"/battles/{battle.pk}/").status_code == 302
    assert unchanged()


def test_without_htmx_a_post_redirects_back_to_the_page(client):
    users, _, battle = table()
    client.force_login(users["player"])
    response = client.post(f"/battles/{battle.pk}/act", _fire_bolt(battle))
    assert response.status_code == 302 and response["Location"] == f"/battles/{battle.pk}/"


def test_the_gm_overrides_hp_skips_a_turn_and_undoes(client):
    users, _, battle = table()
    state = services.load_state(battle)
    bram = next(c for c in state.combatants.values() if c.name == "Bram")
    response = _post(
        client,
        users["gm"],
        battle,
        {"kind": "gm.set_hp", "combatant": bram.id, "hp": "7", "expected_seq": str(battle.seq)},
    )
    assert response.status_code == 200, response.content
    battle.refresh_from_db()
    assert services.load_state(battle).combatants[bram.id].hp == 7
    acting = current(battle).id
    before_skip = Battle.objects.get(pk=battle.pk).seq
    response = _post(client, users["gm"], battle, {"kind": "gm.skip_turn", "expected_seq": str(battle.seq)})
    assert response.status_code == 200
    assert current(battle).id != acting
    seq = Battle.objects.get(pk=battle.pk).seq
    response = client.post(f"/battles/{battle.pk}/undo", {"expected_seq": str(seq)}, **HX)
    assert response.status_code == 200
    # Undo takes back the whole skip: the skipped combatant acts again.
    assert Battle.objects.get(pk=battle.pk).seq == before_skip
    assert current(battle).id == acting
    # A player may not undo.
    client.force_login(users["player"])
    assert (
        client.post(f"/battles/{battle.pk}/undo", {"expected_seq": str(before_skip)}, **HX).status_code == 403
    )


def test_the_gm_moves_a_token_by_tapping_a_square_and_ends_the_battle(client):
    users, _, battle = table()
    goblin = next(c for c in services.load_state(battle).combatants.values() if c.name == "Goblin")
    response = _post(
        client, users["gm"], battle, {"kind": "gm.move", "combatant": goblin.id, "square": "6,6"}
    )
    assert response.status_code == 200, response.content
    battle.refresh_from_db()
    assert services.load_state(battle).combatants[goblin.id].pos == [6, 6]
    response = _post(client, users["gm"], battle, {"kind": "gm.end_battle", "reason": "Truce"})
    assert response.status_code == 200
    battle.refresh_from_db()
    assert battle.status == "ended"
    client.force_login(users["player"])
    assert "The battle is over" in client.get(f"/battles/{battle.pk}/").content.decode()


def test_a_reaction_prompt_reaches_its_player_and_the_gm_and_is_answered(client):
    users, _, battle = table()
    result = goblin_attacks_bram(battle, users)
    assert result.ok and result.state.pending is not None
    decision = result.state.pending
    pages = {}
    for who in ("other_player", "gm", "player"):
        client.force_login(users[who])
        pages[who] = client.get(f"/battles/{battle.pk}/").content.decode()
    # The question is put to Bram's player about the choice, and both they (who may play several
    # characters) and the GM are told for whom; others only wait.
    question = re.compile(r'<h2 id="prompt-title">[^<]*Interrupt it\?</h2>')
    assert question.search(pages["other_player"]) and "Parry" in pages["other_player"]
    assert "Answer for Bram" in pages["other_player"]
    assert question.search(pages["gm"]) and "Answer for Bram" in pages["gm"]
    assert not question.search(pages["player"]) and "may react" not in pages["player"]
    assert "Waiting for Bram to choose" in pages["player"]
    # Someone else cannot answer; the addressee can.
    battle.refresh_from_db()
    answer = {
        "kind": "answer",
        "actor": decision.combatant,
        "decision": decision.id,
        "choice": "parry",
        "expected_seq": str(battle.seq),
    }
    assert _post(client, users["player"], battle, answer).status_code == 403
    response = _post(client, users["other_player"], battle, answer)
    assert response.status_code == 200, response.content
    battle.refresh_from_db()
    assert services.load_state(battle).pending is None
    assert BattleEvent.objects.filter(battle=battle, type="interrupt.used").exists()


def test_older_log_entries_load_on_demand(client):
    users, _, battle = table()
    client.force_login(users["player"])
    response = client.get(f"/battles/{battle.pk}/log?before=5", **HX)
    assert response.status_code == 200
    html = response.content.decode()
    assert 'data-seq="3"' in html and 'data-seq="5"' not in html
    # Seq 4, the Goblin joining while the GM set the battle up, was never for the players: it stays untold.
    assert 'data-seq="4"' not in html and "Goblin" not in html
    client.force_login(users["gm"])
    assert 'data-seq="4"' in client.get(f"/battles/{battle.pk}/log?before=5", **HX).content.decode()
    assert client.get(f"/battles/{battle.pk}/log?before=x", **HX).status_code == 400


def test_the_pages_older_link_asks_for_what_is_before_the_log_window(client):
    """The battle page's "Older entries" link says ``before=window``: the events before the newest
    LOG_WINDOW, whatever the seq, so a push never has to send the link again."""
    from combat.table import LOG_WINDOW

    users, _, battle = table()
    for _ in range(LOG_WINDOW):  # the GM skips turns until the window is full and older entries exist
        battle.refresh_from_db()
        assert services.gm_override(
            battle.pk, users["gm"], {"kind": "gm.skip_turn", "params": {}}, battle.seq
        ).ok
    battle.refresh_from_db()
    client.force_login(users["player"])
    page = client.get(f"/battles/{battle.pk}/").content.decode()
    assert f"/battles/{battle.pk}/log?before=window" in page
    html = client.get(f"/battles/{battle.pk}/log?before=window", **HX).content.decode()
    seqs = [int(s) for s in re.findall(r'data-seq="(\d+)"', html)]
    assert seqs and max(seqs) == battle.seq - LOG_WINDOW


def test_every_refusal_code_has_one_http_status():
    from combat.engine.actions import RefusalCode
    from combat.views import HTTP_STATUS

    assert set(HTTP_STATUS) == set(RefusalCode)
    assert (HTTP_STATUS[RefusalCode.STALE], HTTP_STATUS[RefusalCode.NOT_YOURS]) == (409, 403)


def test_an_action_with_its_push_costs_a_fixed_few_queries_and_the_push_reads_nothing(
    client, django_capture_on_commit_callbacks
):
    """Whole request (session, user, lock with access, insert, update) plus the push after the commit."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    users, _, battle = table()
    client.force_login(users["player"])
    first = _fire_bolt(battle)
    with django_capture_on_commit_callbacks(execute=True):  # the first push reads the log window once
        assert client.post(f"/battles/{battle.pk}/act", first, **HX, HTTP_X_VTT_LIVE="1").status_code == 200
    battle.refresh_from_db()
    state = services.load_state(battle)
    data = {
        "kind": "end_turn",
        "actor": state.current().id,
        "params": "{}",
        "expected_seq": str(battle.seq),
        "client_token": "tap-2",
    }
    with CaptureQueriesContext(connection) as ctx, django_capture_on_commit_callbacks(execute=True) as pushed:
        response = client.post(f"/battles/{battle.pk}/act", data, **HX, HTTP_X_VTT_LIVE="1")
    assert response.status_code == 200 and len(pushed) == 1
    sql = [
        q["sql"] for q in ctx.captured_queries if "SAVEPOINT" not in q["sql"] and q["sql"] not in ("BEGIN",)
    ]
    # session, user, then the lock (which brings the role, so it is the access check too), insert, update
    assert len(sql) <= 5, sql
    assert not [
        q
        for q in sql
        if q.startswith("SELECT") and '"combat_battleevent"."seq", "combat_battleevent"."type"' in q
    ], sql
