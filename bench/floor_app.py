"""The servers of ``bench/floor.py``: the stack's own cost of one action, with no rules and no render.

An action is a POST that publishes a prepared message to the battle's group (the sizes of a real
push: the GM's regions, the players' regions, each player's own), and every seat's socket sends its
part. Three levels (``FLOOR_LEVEL``):

- ``stack``: the project's server as it runs, with its handler, middleware, session, user, socket
  consumer and fan-out; only the view differs (it publishes the prepared message instead of
  resolving a rule, writing the battle and rendering);
- ``bare``: the framework alone: Django's ASGI handler with no middleware, an async view, and a
  Channels consumer of a few lines that joins the group and sends its part;
- ``write``: ``stack`` plus the battle's own transaction as an action runs it (``combat.services``'
  locking read with the caller's role, one event inserted, the battle row's state, seq and version
  stored), still without the rules and the render: what storing an action costs over the stack.
"""

from __future__ import annotations

import os
from typing import Any

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bench.floor_settings")

from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest  # noqa: E402
from django.urls import path  # noqa: E402

LEVEL = os.environ.get("FLOOR_LEVEL", "stack")
SIZES = {
    k: int(os.environ.get(f"FLOOR_{k.upper()}_BYTES", v))
    for k, v in (("gm", 27700), ("pl", 7900), ("own", 1900))
}
MARK = '<div id="battle-seq" hx-swap-oob="true" data-seq="{seq}" data-version="{seq}"></div>'
PADS = {k: "x" * n for k, n in SIZES.items()}


def frame(seq: int, users: list[str], kind: str) -> dict[str, Any]:
    """The group message of one change, shaped as ``combat.live.message_for``'s."""
    mark = MARK.format(seq=seq)
    return {
        "type": kind,
        "seq": seq,
        "version": seq,
        "gm": mark + PADS["gm"],
        "pl": mark + PADS["pl"],
        "users": {uid: PADS["own"] for uid in users if uid},
    }


def _parsed(request: HttpRequest) -> tuple[int, list[str]] | None:
    try:
        return int(request.POST["seq"]), request.POST.get("users", "").split(",")
    except (KeyError, ValueError):
        return None


if LEVEL == "bare":
    from channels.generic.websocket import AsyncWebsocketConsumer
    from channels.layers import get_channel_layer

    async def push(request: HttpRequest, battle_id: int) -> HttpResponse:
        got = _parsed(request)
        if got is None:
            return HttpResponseBadRequest("seq")
        await get_channel_layer().group_send(f"floor-{battle_id}", frame(*got, "floor.push"))
        return HttpResponse("ok")

    class FloorConsumer(AsyncWebsocketConsumer):
        """Joins the battle's group; sends the GM's part, or the players' part and its own."""

        async def connect(self) -> None:
            query = dict(p.split("=", 1) for p in self.scope["query_string"].decode().split("&") if "=" in p)
            self.role, self.user = query.get("role", "pl"), query.get("user", "")
            self.group = f"floor-{self.scope['url_route']['kwargs']['battle_id']}"
            await self.channel_layer.group_add(self.group, self.channel_name)
            await self.accept()

        async def disconnect(self, code: int) -> None:
            await self.channel_layer.group_discard(self.group, self.channel_name)

        async def floor_push(self, event: dict[str, Any]) -> None:
            text = event[self.role] if self.role == "gm" else event["pl"] + event["users"].get(self.user, "")
            await self.send(text_data=text)

    from channels.routing import ProtocolTypeRouter, URLRouter
    from django.core.asgi import get_asgi_application

    urlpatterns = [path("floor/<int:battle_id>", push)]
    application = ProtocolTypeRouter(
        {
            "http": get_asgi_application(),
            "websocket": URLRouter([path("ws/floor/<int:battle_id>/", FloorConsumer.as_asgi())]),
        }
    )
else:
    from django.contrib.auth.decorators import login_required
    from django.views.decorators.http import require_POST

    from bench.asgi_frozen import application  # noqa: F401 - the project's server (sets Django up)

    @login_required
    @require_POST
    def push(request: HttpRequest, battle_id: int) -> HttpResponse:
        from combat import live

        got = _parsed(request)
        if got is None:
            return HttpResponseBadRequest("seq")
        if LEVEL == "write" and not _store(request, battle_id):
            return HttpResponseBadRequest("battle")
        live.publish(live.battle_group(battle_id), frame(*got, live.PUSH))
        return HttpResponse("ok")

    def _store(request: HttpRequest, battle_id: int) -> bool:
        """The write of one action, as ``combat.services`` does it: lock, one event, the battle row."""
        from django.utils import timezone

        from combat import services, store

        with store.writing():
            battle = store.lock(battle_id, request.user)
            if battle is None or battle.role is None:
                return False
            state, now, seq = services.load_state(battle), timezone.now(), battle.seq + 1
            values = (state.to_dict(), seq, battle.status, battle.version + 1, now, battle.pk)
            store.store_rows([(battle.pk, seq, "floor.write", {}, request.user.pk, None, now)], values)
        return True

    from vtt.urls import urlpatterns as _project_urls

    urlpatterns = [path("floor/<int:battle_id>", push), *_project_urls]
