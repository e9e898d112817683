"""Two server processes share one table over Redis: an action posted to one reaches sockets on the other."""

from __future__ import annotations

import asyncio
import multiprocessing
import re
from contextlib import contextmanager
from functools import partial

import pytest

from combat import services
from tests.live.conftest import session_cookie
from tests.live.table import SECRET_HP, current, table
from tests.live.wsclient import WSClient, http

pytestmark = pytest.mark.django_db(transaction=True)


@contextmanager
def servers(count: int):
    """``count`` daphne processes (spawned: see STACK.md) serving the whole ASGI app on 127.0.0.1."""
    from channels.testing.live import make_application, set_database_connection
    from daphne.testing import DaphneProcess

    multiprocessing.set_start_method("spawn", force=True)
    procs = []
    try:
        for _ in range(count):
            proc = DaphneProcess("127.0.0.1", partial(make_application, static_wrapper=None),
                                 setup=set_database_connection)
            proc.daemon = True
            proc.start()
            procs.append(proc)
        for proc in procs:
            if not proc.ready.wait(timeout=60) or not proc.errors.empty():
                pytest.fail("a server process did not start")
        yield [proc.port.value for proc in procs]
    finally:
        for proc in procs:
            proc.terminate()
            proc.join(timeout=10)


async def _until(client: WSClient, marker: str, timeout: float) -> str:
    async def read() -> str:
        while True:
            text = await client.recv()
            if marker in text:
                return text

    return await asyncio.wait_for(read(), timeout)


def test_an_action_posted_to_one_process_reaches_sockets_on_the_other(redis_url, monkeypatch):
    monkeypatch.setenv("REDIS_URL", redis_url)  # the spawned servers share this Redis
    users, _, battle = table()
    cookies = {name: {"sessionid": session_cookie(users[name])} for name in ("gm", "player")}
    actor = current(battle)
    goblin = next(c for c in services.load_state(battle).combatants.values() if c.name == "Goblin")
    with servers(2) as (port_a, port_b):
        async def scenario() -> tuple[str, str, int]:
            origin = "http://127.0.0.1"
            gm = await WSClient.connect("127.0.0.1", port_b, f"/ws/battles/{battle.pk}/", origin=origin,
                                        cookie=f"sessionid={cookies['gm']['sessionid']}")
            player = await WSClient.connect("127.0.0.1", port_b, f"/ws/battles/{battle.pk}/", origin=origin,
                                            cookie=f"sessionid={cookies['player']['sessionid']}")
            await asyncio.sleep(0.5)  # both subscribed on process B
            status, _, page = await asyncio.to_thread(http, port_a, "GET", f"/battles/{battle.pk}/", cookies["player"])
            assert status == 200
            token = re.search(r'"X-CSRFToken": "([^"]+)"', page).group(1)
            status, _, body = await asyncio.to_thread(
                http, port_a, "POST", f"/battles/{battle.pk}/act", cookies["player"],
                {"kind": "ability", "actor": actor.id, "params": '{"ability": "fire_bolt"}', "target": goblin.id,
                 "expected_seq": str(battle.seq), "client_token": "redis-1"},
                {"X-CSRFToken": token, "HX-Request": "true", "X-VTT-Live": "1"},
            )
            assert status == 200, body
            gm_html = await _until(gm, "Fire Bolt", 10)
            player_html = await _until(player, "Fire Bolt", 10)
            await gm.close()
            await player.close()
            return gm_html, player_html, status

        gm_html, player_html, _ = asyncio.run(scenario())
    assert 'id="board"' in gm_html and str(SECRET_HP) in gm_html
    assert 'id="board"' in player_html and str(SECRET_HP) not in player_html
