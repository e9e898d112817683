"""Fog of war through the battle page: the GM's fog tools post GM actions, undone like the others;
players' pages (and the replay of an ended battle) draw the fog and nothing standing in it."""

from __future__ import annotations

import json
import re

import pytest

from combat import services
from combat.models import Battle, BattleEvent
from tests.table import table

pytestmark = pytest.mark.django_db
HX = {"HTTP_HX_REQUEST": "true"}


def _fog(client, user, battle, mode, rects=None, **extra):
    battle.refresh_from_db()
    client.force_login(user)
    data = {"kind": "gm.fog", "mode": mode, "expected_seq": str(battle.seq), **extra}
    if rects is not None:
        data["rects"] = json.dumps(rects) if not isinstance(rects, str) else rects
    return client.post(f"/battles/{battle.pk}/act", data, **HX)


def _page(client, user, battle) -> str:
    client.force_login(user)
    return client.get(f"/battles/{battle.pk}/").content.decode()


def test_the_gm_covers_and_reveals_and_a_players_page_shows_only_the_light(client):  # RULE: ENG-7
    users, _, battle = table()
    assert _fog(client, users["gm"], battle, "on").status_code == 200
    response = _fog(client, users["gm"], battle, "reveal", [[0, 0, 1, 7]])
    assert response.status_code == 200 and "The GM reveals part of the map." in response.content.decode()
    player = _page(client, users["player"], battle)
    assert 'class="fog" style="grid-column:3 / span 8;grid-row:1 / span 8"' in player
    assert 'title="Goblin"' not in player and "Ayla" in player
    gm = _page(client, users["gm"], battle)
    assert 'class="fog fog-gm"' in gm and 'title="Goblin"' in gm
    # One square, typed by a person (column and row): the Goblin's, at D1.
    assert _fog(client, users["gm"], battle, "reveal", col="4", line="1").status_code == 200
    assert 'title="Goblin"' in _page(client, users["player"], battle)


@pytest.mark.parametrize(
    ("who", "mode", "rects", "status", "why"),
    [
        ("player", "on", None, 403, "Only the GM can do that."),
        ("observer", "on", None, 403, "Observers watch"),
        ("gm", "reveal", "[[0, 0, 1", 400, "Those squares are malformed"),
        ("gm", "reveal", '{"x": 1}', 400, "Those squares are malformed"),
        ("gm", "reveal", [[0, 0, 1, 1]], 422, "Nothing is in fog: the players see the whole map."),
        ("gm", "burn", None, 422, "Cover, lift, reveal or hide the fog."),
        ("gm", "off", None, 422, "There is no fog to lift."),
    ],
)
def test_bad_fog_changes_are_refused_with_a_reason_and_write_nothing(client, who, mode, rects, status, why):
    users, _, battle = table()
    before = BattleEvent.objects.filter(battle=battle).count()
    response = _fog(client, users[who], battle, mode, rects)
    assert response.status_code == status and why in response.content.decode()
    assert BattleEvent.objects.filter(battle=battle).count() == before


def test_a_fog_change_is_undone_like_any_gm_action(client):  # RULE: ENG-8
    users, _, battle = table()
    _fog(client, users["gm"], battle, "on")
    assert 'class="fog"' in _page(client, users["player"], battle)
    battle.refresh_from_db()
    client.force_login(users["gm"])
    assert (
        client.post(f"/battles/{battle.pk}/undo", {"expected_seq": str(battle.seq)}, **HX).status_code == 200
    )
    page = _page(client, users["player"], battle)
    assert 'class="fog"' not in page and 'title="Goblin"' in page


def test_the_replay_of_an_ended_battle_shows_a_player_what_the_fog_allowed(client):
    users, _, battle = table()
    before_fog = Battle.objects.get(pk=battle.pk).seq
    _fog(client, users["gm"], battle, "on")
    _fog(client, users["gm"], battle, "reveal", [[0, 0, 1, 7]])
    battle.refresh_from_db()
    ended = services.gm_override(battle.pk, users["gm"], {"kind": "gm.end_battle", "params": {}}, battle.seq)
    assert ended.ok, ended.reason
    client.force_login(users["player"])
    last = client.get(f"/battles/{battle.pk}/replay?step={ended.seq}").content.decode()
    assert 'title="Goblin"' not in last and 'class="fog"' in last
    # The log tells each line as of its own seq: what was said while the Goblin was seen, and no more.
    lines = re.findall(r'data-seq="(\d+)" id="log-\d+">([^<]*)', last)
    told = [int(seq) for seq, text in lines if "Goblin" in text]
    assert told and max(told) <= before_fog and "Goblin" not in re.sub(r"<li class=\"entry.*?</li>", "", last)
    earlier = client.get(f"/battles/{battle.pk}/replay?step={before_fog}").content.decode()
    assert 'title="Goblin"' in earlier  # before the fog, everyone saw it
