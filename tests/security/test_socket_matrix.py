"""The battle websocket for every persona and every client message type.

Strangers (anonymous, outsider, a superuser who is not a member) are refused
at the handshake; members are refused too when the Origin is foreign or
missing. A member's socket answers ``sync`` messages and ignores everything
else (unknown types, garbage, oversized text, binary frames) without closing.
Pushed frames after a GM override never show a player or observer the
Goblin's hidden HP, nor another player's own action panel.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from channels.db import database_sync_to_async

from combat import services
from combat.consumers import MAX_MESSAGE
from tests.security.conftest import ROLES, combatant_named, make_world
from tests.sockets import communicator, frames, session_cookie
from tests.table import SECRET_HP

pytestmark = pytest.mark.django_db(transaction=True)

MEMBERS = ("observer", "player", "other_player", "gm")
NEW_HP = 3777
# (name, what is sent, whether the socket answers with a fresh render)
MESSAGES: list[tuple[str, Any, bool]] = [
    ("sync-current", lambda seq: json.dumps({"type": "sync", "seq": seq}), False),
    ("sync-behind", lambda seq: json.dumps({"type": "sync", "seq": 0}), True),
    ("sync-reconnect", lambda seq: json.dumps({"type": "sync", "seq": seq, "reconnect": True}), True),
    ("sync-seq-text", lambda seq: json.dumps({"type": "sync", "seq": "abc"}), True),
    ("unknown-type", lambda seq: json.dumps({"type": "act", "kind": "gm.set_hp", "hp": 1}), False),
    ("not-json", lambda seq: "{{{{ not json", False),
    ("json-list", lambda seq: json.dumps([{"type": "sync"}]), False),
    ("blank", lambda seq: " ", False),
    ("oversized", lambda seq: json.dumps({"type": "sync", "seq": 0, "pad": "x" * MAX_MESSAGE}), False),
    ("binary", lambda seq: b"\x00\xff" * 64, False),
]
#: Cases a member's socket goes through: three foreign or missing Origins refused, the handshake, every
#: message above, the GM override's push.
MEMBER_CASES = 3 + 1 + len(MESSAGES) + 1


def _world_and_cookies() -> tuple[dict[str, Any], dict[str, str]]:
    world = make_world()
    return world, {name: session_cookie(user) for name, user in world["users"].items()}


def _secret(html: str, value: int) -> bool:
    return re.search(rf"(?<!\w){value}(?!\w)", html) is not None


def _seq(battle_id: int) -> int:
    from combat.models import Battle

    return Battle.objects.get(pk=battle_id).seq


@pytest.mark.parametrize("role", ROLES)
async def test_socket_permission_matrix(role, tally):
    world, cookies = await database_sync_to_async(_world_and_cookies)()
    bid = world["battle"].pk
    cookie = cookies.get(role)

    if role not in MEMBERS:
        comm = communicator(bid, cookie)
        connected, _ = await comm.connect()
        assert not connected, f"{role} must not open a battle socket"
        tally["cases"] += 1
        assert tally["cases"] == 1
        return

    for origin in (b"http://evil.example", b"null", None):
        comm = communicator(bid, cookie, origin)
        connected, _ = await comm.connect()
        assert not connected, (role, origin)
        tally["cases"] += 1

    comm = communicator(bid, cookie)
    connected, _ = await comm.connect()
    assert connected
    tally["cases"] += 1
    try:
        await frames(comm, 0.2)
        seq = await database_sync_to_async(_seq)(bid)
        for name, build, answers in MESSAGES:
            payload = build(seq)
            if isinstance(payload, bytes):
                await comm.send_to(bytes_data=payload)
            else:
                await comm.send_to(text_data=payload)
            got = "".join(await frames(comm, 0.8 if answers else 0.15, until='id="battle-seq"'))
            assert bool(got) == answers, (role, name, got[:200])
            if answers:
                assert 'id="board"' in got and 'id="log"' in got, (role, name)
                assert _secret(got, SECRET_HP) == (role == "gm"), (role, name)
                assert ('id="gm-panel"' in got) == (role == "gm"), (role, name)
                mine = "Fire Bolt" in got  # Ayla's action panel: only her owner (and the GM) get it
                assert mine == (role in ("player", "gm")), (role, name)
            tally["cases"] += 1
        assert await database_sync_to_async(_seq)(bid) == seq, "a socket message changed the battle"

        # A GM override is pushed to every seat, each rendered for its viewer.
        def override() -> None:
            goblin = combatant_named(world["battle"], "Goblin")
            result = services.gm_override(
                bid,
                world["users"]["gm"],
                {"kind": "gm.set_hp", "params": {"combatant": goblin, "hp": NEW_HP}},
            )
            assert result.ok, result.reason

        await database_sync_to_async(override)()
        pushed = "".join(await frames(comm, 2.0, until='id="battle-seq"'))
        # The page said where it stands (the syncs above): the change comes as the elements it touched.
        assert pushed.startswith("<!--delta ") and 'id="battle-seq"' in pushed, role
        assert _secret(pushed, NEW_HP) == (role == "gm"), f"{role} frames and the hidden HP"
        tally["cases"] += 1
    finally:
        await comm.disconnect()
    assert tally["cases"] == MEMBER_CASES, "a case of the matrix did not run"
