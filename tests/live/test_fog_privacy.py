"""Fog of war over a scripted battle: nothing a player or observer receives tells of the Goblin while it
stands in fog (not its name, id, square or HP), in pushed frames, HTMX answers, the battle page, the
older-log page, the campaign page or the replay; once the GM reveals its square, it appears. The log
lines told before the fog came (its initiative, the turn order) were told while it was seen: they stay.

Ayla (the player's) acts first, the Goblin next, then Bram. The GM covers the board and reveals the
party's side; the Goblin, in the dark, is moved, hurt, given a status and attacks Bram (a reaction
window for Bram's player); Ayla and Bram act around it. The GM's bytes over the same battle name it
(the test could fail).
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.test import Client

from combat import services
from combat.models import BattleEvent
from tests.sockets import communicator, frames
from tests.table import SECRET_HP, goblin_attacks_bram

pytestmark = pytest.mark.django_db(transaction=True)

LIGHT = [[0, 0, 1, 7]]  # columns A and B: Ayla at A1, Bram at A3; the Goblin at D1 is in fog


def _gm(battle, gm, kind, **params):
    battle.refresh_from_db()
    result = services.gm_override(battle.pk, gm, {"kind": kind, "params": params}, battle.seq)
    assert result.ok, result.reason
    return result


def _state(battle):
    battle.refresh_from_db()
    return services.load_state(battle)


def _script(battle, users, clients) -> dict[str, list[str]]:
    """The battle in the fog; returns what each viewer got over HTTP."""
    gm = users["gm"]
    got: dict[str, list[str]] = {name: [] for name in clients}
    _gm(battle, gm, "gm.fog", mode="on")
    _gm(battle, gm, "gm.fog", mode="reveal", rects=LIGHT)
    state = _state(battle)
    goblin = next(c for c in state.combatants.values() if c.name == "Goblin")
    ayla = next(c for c in state.combatants.values() if c.name == "Ayla")
    # Ayla's turn: her options name nobody in the fog (asked through the page, as the player does).
    got["player"].append(clients["player"].get(f"/battles/{battle.pk}/").content.decode())
    _gm(battle, gm, "gm.set_hp", combatant=goblin.id, hp=SECRET_HP - 1)
    _gm(battle, gm, "gm.add_status", combatant=goblin.id, status="slow", power=3, duration=2)
    # Ayla ends her turn; the Goblin, moved next to Bram (to B3, kept in fog), attacks him.
    _gm(battle, gm, "gm.fog", mode="hide", rects=[[1, 2, 1, 2]])
    attacked = goblin_attacks_bram(battle, users)
    assert attacked.ok, attacked.reason
    state = _state(battle)
    assert state.pending is not None  # Bram's player may parry: the prompt names no one in the fog
    for name in ("other_player", "observer"):
        got[name].append(clients[name].get(f"/battles/{battle.pk}/").content.decode())
    assert 'id="prompt-title"' in got["other_player"][-1] and "someone unseen" in got["other_player"][-1]
    battle.refresh_from_db()
    answer = services.submit_action(
        battle.pk,
        users["other_player"],
        {
            "kind": "answer",
            "actor": state.pending.combatant,
            "params": {"decision": state.pending.id, "choice": "pass"},
        },
        battle.seq,
    )
    assert answer.ok, answer.reason
    for name, client in clients.items():
        got[name].append(client.get(f"/battles/{battle.pk}/").content.decode())
        got[name].append(client.get(f"/battles/{battle.pk}/log?before=999999").content.decode())
        # The campaign page's list of battles names who fights (its character list names every character
        # of the campaign, the Goblin's sheet among them, as it did before the battle).
        campaign_page = client.get(f"/campaigns/{battle.campaign_id}/").content.decode()
        got[name].append(re.search(r'<div id="battle-list".*?</div>', campaign_page, re.S).group(0))
    assert ayla.id != goblin.id
    return got


def _about(battle) -> dict[str, Any]:
    state = _state(battle)
    goblin = next(c for c in state.combatants.values() if c.name == "Goblin")
    fogged = BattleEvent.objects.filter(battle=battle, type="fog.changed").order_by("seq").first()
    return {"id": goblin.id, "name": goblin.name, "fogged": fogged.seq}


def _told_before_the_fog(text: str, goblin: dict[str, Any]) -> str:
    """``text`` without the log lines told before the fog came (the Goblin was seen then: initiative,
    the turn order): each line is told as of its own seq, and those stay."""
    return re.sub(
        r'<li class="entry[^"]*" data-seq="(\d+)".*?</li>',
        lambda m: "" if int(m.group(1)) < goblin["fogged"] else m.group(0),
        text,
        flags=re.S,
    )


def _leaks(text: str, goblin: dict[str, Any]) -> list[str]:
    found = []
    text = _told_before_the_fog(text, goblin)
    if re.search(rf"(?<![\w#-]){goblin['id']}(?!\w)", text):
        found.append("id")
    if goblin["name"] in text:
        found.append("name")
    if re.search(rf"(?<!\w)({SECRET_HP}|{SECRET_HP - 1})(?!\w)", text):
        found.append("hp")
    # Where it stood and stands: D1 (3, 0), then B3 (1, 2); as a token's square or in words.
    for x, y, name in ((3, 0, "D1"), (1, 2, "B3")):
        if f'data-x="{x}" data-y="{y}"' in text or re.search(rf"\bat {name}\b", text):
            found.append(name)
    return found


async def test_a_combatant_in_fog_reaches_no_player_until_its_square_is_revealed(live_table):
    users, campaign, battle, cookies = live_table
    names = ("gm", "player", "other_player", "observer")
    sockets = {name: communicator(battle.pk, cookies[name]) for name in names}
    for comm in sockets.values():
        assert (await comm.connect())[0]
    try:
        clients = {}
        for name in names:
            clients[name] = Client()
            await database_sync_to_async(clients[name].force_login)(users[name])
        http = await database_sync_to_async(_script)(battle, users, clients)
        pushed = {name: "".join(await frames(comm, 3.0)) for name, comm in sockets.items()}
        goblin = await database_sync_to_async(_about)(battle)
        for name in ("player", "other_player", "observer"):
            for i, text in enumerate([pushed[name], *http[name]]):
                leaks = _leaks(text, goblin)
                assert not leaks, (name, i, leaks)
            assert "Ayla" in http[name][-1]  # the battle list names those in the light
        # The GM's bytes carry it all; the same checks find it there.
        assert {"id", "name", "hp"} <= set(_leaks(pushed["gm"] + "".join(http["gm"]), goblin))
        # The GM reveals the Goblin's square: it appears on every page at once.
        await database_sync_to_async(_gm)(battle, users["gm"], "gm.fog", mode="reveal", rects=[[1, 2, 1, 2]])
        for name in ("player", "other_player", "observer"):
            text = "".join(await frames(sockets[name], 3.0, until=f'data-cid="{goblin["id"]}"'))
            assert f'data-cid="{goblin["id"]}"' in text and "Goblin" in text, name
    finally:
        for comm in sockets.values():
            await comm.disconnect()
