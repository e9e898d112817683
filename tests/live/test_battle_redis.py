"""Two server processes share one table over Redis: an action posted to one reaches sockets on the other."""

from __future__ import annotations

import asyncio
import re

import pytest
from django.contrib.auth import get_user_model

from combat import services
from tests.live.processes import servers
from tests.live.wsclient import WSClient, http
from tests.sockets import session_cookie
from tests.table import SECRET_HP, current, table
from vtt.models import Membership

#: How long the sockets on process B are waited for once the logout or removal happened on process A: a
#: wait, not a bound. Their periodic re-check comes 15 s after they connected at the earliest
#: (``RECHECK_SECONDS`` x 0.5), so a close within the two waits came from the account's message.
PUSHED = 5.0

pytestmark = pytest.mark.django_db(transaction=True)


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
            origin = f"http://127.0.0.1:{port_b}"  # the page's own origin: scheme, host and port
            gm = await WSClient.connect(
                "127.0.0.1",
                port_b,
                f"/ws/battles/{battle.pk}/",
                origin=origin,
                cookie=f"sessionid={cookies['gm']['sessionid']}",
            )
            player = await WSClient.connect(
                "127.0.0.1",
                port_b,
                f"/ws/battles/{battle.pk}/",
                origin=origin,
                cookie=f"sessionid={cookies['player']['sessionid']}",
            )
            await asyncio.sleep(0.5)  # both subscribed on process B
            status, _, page = await asyncio.to_thread(
                http, port_a, "GET", f"/battles/{battle.pk}/", cookies["player"]
            )
            assert status == 200
            token = re.search(r'"X-CSRFToken": "([^"]+)"', page).group(1)
            status, _, body = await asyncio.to_thread(
                http,
                port_a,
                "POST",
                f"/battles/{battle.pk}/act",
                cookies["player"],
                {
                    "kind": "ability",
                    "actor": actor.id,
                    "params": '{"ability": "fire_bolt"}',
                    "target": goblin.id,
                    "expected_seq": str(battle.seq),
                    "client_token": "redis-1",
                },
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


async def _close_code(client: WSClient, timeout: float) -> int | None:
    async def read() -> None:
        while True:
            await client.recv()

    try:
        await asyncio.wait_for(read(), timeout)
    except ConnectionError:
        return client.close_code
    raise AssertionError("still open")


def test_logout_and_removal_on_one_process_close_sockets_on_the_other(redis_url, monkeypatch):
    monkeypatch.setenv("REDIS_URL", redis_url)
    monkeypatch.setenv("CHANNEL_PREFIX", f"vttlogout{id(monkeypatch)}")
    users, campaign, battle = table()
    cookies = {name: session_cookie(users[name]) for name in ("gm", "player", "other_player")}
    admin = get_user_model().objects.create_superuser("root", password="root-pass-9x")
    cookies_admin = session_cookie(admin)
    removed_pk = Membership.objects.get(campaign=campaign, user=users["other_player"]).pk
    with servers(2) as (port_a, port_b):

        async def scenario() -> None:
            path = f"/ws/battles/{battle.pk}/"
            sockets = {
                name: await WSClient.connect(
                    "127.0.0.1",
                    port_b,
                    path,
                    origin=f"http://127.0.0.1:{port_b}",
                    cookie=f"sessionid={cookie}",
                )
                for name, cookie in cookies.items()
            }
            # Each socket is read from now on, as a browser does: unread pushes would fill the
            # buffers, and a close frame stuck behind them is lost when the server drops the
            # connection after its close timeout.
            closing = {name: asyncio.create_task(_close_code(sock, 30.0)) for name, sock in sockets.items()}
            await asyncio.sleep(0.5)
            cookies["admin"] = cookies_admin
            # Logout on process A.
            jar = {"sessionid": cookies["player"]}
            status, _, page = await asyncio.to_thread(http, port_a, "GET", "/campaigns/", jar)
            token = re.search(r'"X-CSRFToken": "([^"]+)"', page).group(1)
            status, _, _ = await asyncio.to_thread(
                http, port_a, "POST", "/accounts/logout/", jar, {}, {"X-CSRFToken": token}
            )
            assert status == 302
            assert await asyncio.wait_for(closing["player"], PUSHED) == 4403
            # Removal by an admin on process A.
            jar = {"sessionid": cookies["admin"]}
            url = f"/admin/vtt/membership/{removed_pk}/delete/"
            status, _, page = await asyncio.to_thread(http, port_a, "GET", url, jar)
            assert status == 200
            token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)
            status, _, _ = await asyncio.to_thread(
                http, port_a, "POST", url, jar, {"post": "yes", "csrfmiddlewaretoken": token}
            )
            assert status == 302
            assert await asyncio.wait_for(closing["other_player"], PUSHED) == 4403
            # The GM's socket is still open and served.
            sockets["gm"].writer.write(b"")
            assert not sockets["gm"].closed and not closing["gm"].done()
            closing["gm"].cancel()
            await sockets["gm"].close()

        asyncio.run(scenario())
