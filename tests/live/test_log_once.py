"""Every log line once in what the sockets receive, on every process, whatever order the set-up's
after-commit hooks run in.

A battle made from the new-battle form is written in one transaction (the battle, then each
combatant); the writes' after-commit hooks all run once it commits, each with the battle as that
write left it. The process that made the battle once kept a log copy read at the end of the set-up
under the first write's seq, and the later hooks added their events to it again: its pushes
carried those entries twice until another process wrote.
"""

from __future__ import annotations

import asyncio
import random
import re

import pytest
from channels.db import database_sync_to_async
from django.test import Client
from django.urls import reverse

from combat import live, setup
from combat.engine.told import Teller
from combat.engine.view import Viewer
from combat.models import Battle, BattleEvent
from combat.presenters.log import log_entries
from combat.table import LOG_WINDOW, load_table
from tests.live.processes import servers
from tests.live.wsclient import WSClient, http
from tests.sockets import connect, frames, presence_lines, session_cookie
from tests.table import assert_each_entry_once, grul_table, log_seqs, new_battle_form

pytestmark = pytest.mark.django_db(transaction=True)


def _made_from_the_form(users, campaign, monster) -> Battle:
    client = Client()
    client.force_login(users["gm"])
    response = client.post(reverse("battle_new", args=[campaign.pk]), new_battle_form(monster))
    assert response.status_code == 302
    return Battle.objects.get(campaign=campaign)


def _start(battle: Battle, gm) -> int:
    """The GM starts the battle from the page (its socket open: the regions come by push)."""
    client = Client()
    client.force_login(gm)
    response = client.post(
        reverse("battle_start", args=[battle.pk]),
        {"expected_seq": str(battle.seq)},
        HTTP_HX_REQUEST="true",
        HTTP_X_VTT_LIVE="1",
    )
    assert response.status_code == 200
    return Battle.objects.get(pk=battle.pk).seq


async def test_pushes_after_a_battle_made_from_the_form_tell_each_event_once():
    users, campaign, monster = await database_sync_to_async(grul_table)()
    battle = await database_sync_to_async(_made_from_the_form)(users, campaign, monster)
    cookies = {name: await database_sync_to_async(session_cookie)(users[name]) for name in ("gm", "player")}
    seats = {name: await connect(battle.pk, cookie) for name, cookie in cookies.items()}
    try:
        for seat in seats.values():
            await presence_lines(seat, 0.2)
        seq = await database_sync_to_async(_start)(battle, users["gm"])
        for name, seat in seats.items():
            pushed = "".join(await frames(seat, 3.0, until='id="battle-seq"'))
            assert f'data-seq="{seq}"' in pushed, name
            assert_each_entry_once(pushed)
    finally:
        for seat in seats.values():
            await seat.disconnect()


@pytest.mark.django_db
@pytest.mark.parametrize("seed", range(4))
def test_each_entry_exists_once_whatever_order_the_set_up_hooks_run_in(
    seed, django_capture_on_commit_callbacks, monkeypatch
):
    """The set-up's hooks run in the order they were registered (seed 0) or shuffled: every push
    tells each event once, and the log this process keeps afterwards is the database's."""
    users, campaign, monster = grul_table()
    recruits = [setup.Recruit(c) for c in campaign.characters.order_by("pk")]
    with django_capture_on_commit_callbacks() as hooks:
        made = setup.setup_battle(campaign, users["gm"], "Bridge", 12, 8, recruits)
    assert made.ok and len(hooks) == len(recruits) + 1  # the battle, then each combatant
    order = list(hooks)
    if seed:
        random.Random(seed).shuffle(order)
    pushed: list[dict] = []
    monkeypatch.setattr(live, "publish", lambda group, message: pushed.append(message))
    for hook in order:
        hook()
    assert len(pushed) == len(hooks)
    for message in pushed:
        for html in (message["gm"], message["pl"]):
            assert_each_entry_once(html)
    stored = list(
        BattleEvent.objects.filter(battle_id=made.battle_id).order_by("-seq").values_list("seq", flat=True)
    )
    table = load_table(made.battle_id)
    assert table is not None and [row[0] for row in table.events] == stored[:LOG_WINDOW]
    # Rows handed twice still make one entry each: an entry is keyed by its event's seq.
    teller = Teller(table.state, Viewer(role="gm"))
    once = [e["seq"] for e in log_entries(table.events, teller)]
    assert once and [e["seq"] for e in log_entries(table.events * 2, teller)] == once


def test_two_processes_over_redis_tell_each_event_once(redis_url, monkeypatch):
    """The GM makes the battle on process A; every page, on A and on B, and the pushes that A
    renders for the sockets on B, tell each event once."""
    monkeypatch.setenv("REDIS_URL", redis_url)  # the spawned servers share this Redis
    users, campaign, monster = grul_table()
    cookies = {name: {"sessionid": session_cookie(users[name])} for name in ("gm", "player")}
    with servers(2) as (port_a, port_b):

        async def scenario() -> tuple[dict[str, str], list[str]]:
            gm = cookies["gm"]
            path = reverse("battle_new", args=[campaign.pk])
            status, _, form = await asyncio.to_thread(http, port_a, "GET", path, gm)
            assert status == 200
            token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', form).group(1)
            data = {**new_battle_form(monster), "csrfmiddlewaretoken": token}
            status, headers, _ = await asyncio.to_thread(http, port_a, "POST", path, gm, data)
            assert status == 302, headers
            battle = await database_sync_to_async(Battle.objects.get)(campaign=campaign)
            page = reverse("battle", args=[battle.pk])
            pages = {}
            for where, port in (("A", port_a), ("B", port_b)):
                for name in ("gm", "player"):
                    status, _, html = await asyncio.to_thread(http, port, "GET", page, cookies[name])
                    assert status == 200
                    pages[f"{name} on {where}"] = html
            sockets = [
                await WSClient.connect(
                    "127.0.0.1",
                    port_b,
                    f"/ws/battles/{battle.pk}/",
                    origin=f"http://127.0.0.1:{port_b}",
                    cookie=f"sessionid={cookies[name]['sessionid']}",
                )
                for name in ("gm", "player")
            ]
            await asyncio.sleep(0.5)  # both subscribed on process B
            csrf = re.search(r'"X-CSRFToken": "([^"]+)"', pages["gm on A"]).group(1)
            status, _, body = await asyncio.to_thread(
                http,
                port_a,
                "POST",
                reverse("battle_start", args=[battle.pk]),
                gm,
                {"expected_seq": str(battle.seq), "client_token": "start-1"},
                {"X-CSRFToken": csrf, "HX-Request": "true", "X-VTT-Live": "1"},
            )
            assert status == 200, body

            async def push(client: WSClient) -> str:
                while True:
                    text = await client.recv()
                    if 'id="log"' in text:
                        return text

            pushed = [await asyncio.wait_for(push(s), 10) for s in sockets]
            for s in sockets:
                await s.close()
            return pages, pushed

        pages, pushed = asyncio.run(scenario())
    for where, html in pages.items():  # the players meet Grul once the battle begins
        assert html.count("Grul joins the battle (enemy).") == (1 if where.startswith("gm") else 0), where
        assert_each_entry_once(html)
    assert len(pushed) == 2
    for name, html in zip(("gm", "player"), pushed, strict=True):
        assert log_seqs(html)[0][0] > log_seqs(pages["gm on A"])[0][0]  # the start's own events
        # The GM's window holds the set-up; the players see Grul from the start on (no past replayed).
        assert html.count("Grul joins the battle (enemy).") == (1 if name == "gm" else 0), name
        assert "Grul rolls initiative" in html
        assert_each_entry_once(html)
