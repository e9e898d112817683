"""With "Hide exact enemy HP" on, nothing a player receives lets them compute an enemy's HP or armour.

One scripted battle: Ayla (the player's) casts Fire Bolt at the Goblin
through the page, the GM sets the Goblin's HP and gives it a status with
power and duration, the Goblin attacks Bram, Ayla strikes again. Every byte
the player gets (pushed frames, the HTMX answers with their outcome lines,
the battle page, the older-log page) is checked: enemy bars have only the
coarse states' fixed widths, and no enemy HP, damage taken, "rolled vs
taken", override amount, status power or duration appears. The
GM's bytes over the same battle do carry them (the test could fail).
"""

from __future__ import annotations

import json
import re

import pytest
from channels.db import database_sync_to_async
from django.test import Client

from combat import services
from combat.engine.view import COARSE_BAR
from combat.models import BattleEvent
from tests.sockets import at_page, communicator, frames
from tests.table import SECRET_HP, goblin_attacks_bram

pytestmark = pytest.mark.django_db(transaction=True)

COARSE_WIDTHS = {str(round(100 * r)) for r in COARSE_BAR.values()}
SET_HP, POWER, DURATION = 1234, 7, 9


def _state(battle):
    battle.refresh_from_db()
    return services.load_state(battle)


def _ids(battle):
    state = _state(battle)
    return {c.name: c.id for c in state.combatants.values()}


def _fire_bolt(client, battle, actor, target) -> str:
    battle.refresh_from_db()
    response = client.post(
        f"/battles/{battle.pk}/act",
        {
            "kind": "ability",
            "actor": actor,
            "params": json.dumps({"ability": "fire_bolt"}),
            "target": target,
            "expected_seq": str(battle.seq),
        },
        HTTP_HX_REQUEST="true",
    )
    assert response.status_code == 200, response.content
    return response.content.decode()


def _script(battle, users, player_client) -> list[str]:
    """The battle's moves; returns the player's HTTP answers."""
    ids = _ids(battle)
    answers = [_fire_bolt(player_client, battle, ids["Ayla"], ids["Goblin"])]
    gm = users["gm"]
    for payload in (
        {"kind": "gm.set_hp", "params": {"combatant": ids["Goblin"], "hp": SET_HP}},
        {
            "kind": "gm.add_status",
            "params": {"combatant": ids["Goblin"], "status": "slow", "power": POWER, "duration": DURATION},
        },
    ):
        battle.refresh_from_db()
        result = services.gm_override(battle.pk, gm, payload, battle.seq)
        assert result.ok, result.reason
    attacked = goblin_attacks_bram(battle, users)
    assert attacked.ok, attacked.reason
    state = _state(battle)
    while state.current() is None or state.current().name != "Ayla" or state.pending is not None:
        if state.pending is not None:
            result = services.submit_action(
                battle.pk,
                gm,
                {
                    "kind": "answer",
                    "actor": state.pending.combatant,
                    "params": {"decision": state.pending.id, "choice": "pass"},
                },
                battle.seq,
            )
        else:
            result = services.gm_override(battle.pk, gm, {"kind": "gm.skip_turn", "params": {}}, battle.seq)
        assert result.ok, result.reason
        state = _state(battle)
    answers.append(_fire_bolt(player_client, battle, ids["Ayla"], ids["Goblin"]))
    # A heavy blow: the Goblin is bloodied now (its bar must still be a coarse width).
    battle.refresh_from_db()
    result = services.gm_override(
        battle.pk, gm, {"kind": "gm.set_hp", "params": {"combatant": ids["Goblin"], "hp": 100}}, battle.seq
    )
    assert result.ok
    page = player_client.get(f"/battles/{battle.pk}/")
    assert page.status_code == 200
    older = player_client.get(f"/battles/{battle.pk}/log?before=999999")
    assert older.status_code == 200
    return [*answers, page.content.decode(), older.content.decode()]


def _enemy_numbers(battle) -> dict[str, set[str]]:
    """Numbers about the Goblin from the full (GM) log: damage taken and rolled, HP after each change."""
    goblin = _ids(battle)["Goblin"]
    found: dict[str, set[str]] = {"amount": set(), "hp": set(), "raw": set()}
    for etype, data in BattleEvent.objects.filter(battle_id=battle.pk).values_list("type", "data"):
        if data.get("target") == goblin or data.get("combatant") == goblin:
            for key in found:
                if isinstance(data.get(key), int):
                    found[key].add(str(data[key]))
            if etype == "damage.dealt":
                assert isinstance(data.get("amount"), int)
    return found


def _check_player_bytes(html: str, numbers: dict[str, set[str]]) -> None:
    # Enemy tokens: a coarse state in words, a bar of that state's fixed width.
    enemy_tokens = re.findall(r'<button type="button" class="token side-enemy[^"]*".*?</button>', html, re.S)
    assert enemy_tokens, "no enemy token seen"
    for token in enemy_tokens:
        for width in re.findall(r"width:(\d+)%", token) + re.findall(r'data-pct="(\d+)"', token):
            assert width in COARSE_WIDTHS, token
        assert re.search(r"aria-label=\"[^\"]*\b(unhurt|wounded|bloodied|down)\b", token), token
        assert "HP" not in token
    for secret in (str(SECRET_HP), str(SET_HP), "100 of", "Goblin's HP to"):
        assert secret not in html, secret
    for pattern in (
        r"Goblin takes \d",
        r"\d+ damage to Goblin",
        r"Goblin takes[^<]*rolled\)",
        r"Goblin heals \d",
        rf"power {POWER}",
        rf"{DURATION} rounds",
        r"Goblin\b[^<]{0,40}\(HP \d",
    ):
        m = re.search(pattern, html)
        assert not m, (pattern, html[max(0, m.start() - 300) : m.end() + 50])
    assert numbers["amount"], "the script dealt no damage to the Goblin"


@pytest.mark.parametrize("synced", [False, True], ids=["unknown page", "page at the battle's version"])
async def test_a_players_bytes_over_a_whole_battle_reveal_no_enemy_hp_armour_or_damage(live_table, synced):
    """Sockets whose page is at the battle's version get each change as the elements it touched; the
    others get the whole table first, then elements."""
    users, _, battle, cookies = live_table
    gm = communicator(battle.pk, cookies["gm"])
    player = communicator(battle.pk, cookies["player"])
    observer = communicator(battle.pk, cookies["observer"])
    for comm in (gm, player, observer):
        assert (await comm.connect())[0]
        if synced:
            await at_page(comm, battle.pk)
    try:
        client = Client()
        await database_sync_to_async(client.force_login)(users["player"])
        answers = await database_sync_to_async(_script)(battle, users, client)
        got = {
            name: "".join(await frames(comm, 3.0))
            for name, comm in (("gm", gm), ("player", player), ("observer", observer))
        }
        if synced:  # elements were pushed (a socket that caught up late may have had only whole tables)
            assert "<!--delta " in got["player"] and "<!--delta " in got["gm"]
        numbers = await database_sync_to_async(_enemy_numbers)(battle)
        _check_player_bytes(got["player"] + "".join(answers), numbers)
        _check_player_bytes(got["observer"], numbers)
        # The GM's bytes over the same battle carry what the player's may not.
        assert str(SET_HP) in got["gm"] and f"power {POWER}" in got["gm"]
        assert re.search(r"Goblin takes \d", got["gm"])
    finally:
        for comm in (gm, player, observer):
            await comm.disconnect()
