"""Chat pushed live: every member's open battle and campaign pages get each line they may read, and
not one byte of the lines they may not (whispers, GM rolls, lines to the GM)."""

from __future__ import annotations

import asyncio
import re

import pytest
from channels.db import database_sync_to_async
from django.test import Client
from django.urls import reverse

from tests.sockets import campaign_socket, connect, frames, session_cookie
from tests.table import table
from vtt.models import ChatMessage

pytestmark = pytest.mark.django_db(transaction=True)

READERS = ("gm", "player", "other_player", "observer")


def _say(user, campaign_id: int, text: str) -> int:
    client = Client()
    client.force_login(user)
    return client.post(
        reverse("chat", args=[campaign_id]), {"text": text}, HTTP_HX_REQUEST="true"
    ).status_code


async def _open(users, campaign, battle):
    sockets = {}
    for name in READERS:
        cookie = await database_sync_to_async(session_cookie)(users[name])
        sockets[(name, "battle")] = await connect(battle.pk, cookie)
        comm = campaign_socket(campaign.pk, cookie)
        connected, _ = await comm.connect()
        assert connected
        sockets[(name, "campaign")] = comm
    return sockets


async def _collect(sockets, until: str) -> dict[tuple[str, str], str]:
    got = await asyncio.gather(*(frames(comm, timeout=3.0, until=until) for comm in sockets.values()))
    return {key: "".join(texts) for key, texts in zip(sockets, got, strict=True)}


async def test_whispers_and_gm_rolls_never_reach_anyone_else():
    users, campaign, battle = await database_sync_to_async(table)()
    sockets = await _open(users, campaign, battle)
    try:
        lines = {
            # words -> (sender, text, who may read it)
            "wolfsbane-7Q": (
                "player",
                "/w other_player meet at the wolfsbane-7Q door",
                {"player", "other_player"},
            ),
            "cellar-X2": ("player", "/gr 1d20+3 search the cellar-X2", {"player", "gm"}),
            "traitor-K9": ("other_player", "/w gm I am the traitor-K9", {"other_player", "gm"}),
            "trapped-M4": ("gm", "/w player the door is trapped-M4", {"gm", "player"}),
            "everyone-Z1": ("observer", "observers cannot say everyone-Z1", set()),
            "all-hail-P5": ("other_player", "all-hail-P5 [[1d6]]", set(READERS)),
        }
        for sender, text, _ in lines.values():
            await database_sync_to_async(_say)(users[sender], campaign.pk, text)
        got = await _collect(sockets, until="all-hail-P5")
        stored = await database_sync_to_async(lambda: list(ChatMessage.objects.all()))()
        ids = {words: next((m.pk for m in stored if words in m.text), None) for words in lines}
        assert ids["everyone-Z1"] is None  # an observer's line was refused, not stored
        for (name, page), text in got.items():
            mine = {words for words, (_, _, readers) in lines.items() if name in readers}
            for words in lines:
                assert (words in text) == (words in mine), (words, name, page)
            # Every byte: the lines in this page's frames are exactly those it may read, nothing else.
            shown = set(re.findall(r'id="chat-m(\d+)"', text))
            assert shown == {str(ids[w]) for w in mine}, (name, page, shown)
            rest = re.sub(r'<(ol id="chat-log"|li id="chat-m).*?</(ol|li)>', "", text, flags=re.S)
            assert "chat" not in rest, (name, page, rest[:200])
    finally:
        for comm in sockets.values():
            await comm.disconnect()
