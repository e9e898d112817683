"""ASGI entry point: HTTP through Django, websockets through Channels."""

from __future__ import annotations

import gc
import os

# Objects allocated between two young collections (Python's default: 700); VTT_GC_YOUNG sets it.
GC_YOUNG = int(os.environ.get("VTT_GC_YOUNG") or 7_000)

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "vtt.settings")

from vtt.handlers import get_asgi_application  # noqa: E402

# Django's ASGI handler with the middleware chain and view in one thread hop (vtt/handlers.py says why).
django_asgi_app = get_asgi_application()

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ChannelNameRouter, ProtocolTypeRouter, URLRouter  # noqa: E402

from vtt.routing import channel_routes, websocket_routes  # noqa: E402
from vtt.wsorigin import SameOriginValidator  # noqa: E402

application = ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        "websocket": SameOriginValidator(
            # types-channels wants its own pattern type here; Channels takes Django's path() patterns.
            AuthMiddlewareStack(URLRouter(websocket_routes()))  # type: ignore[arg-type]
        ),
        # The routes the apps registered when Django started (the battles app: ``combat.apps``), e.g.
        # ``manage.py runworker --layer jobs odds`` for the encounter-odds jobs.
        "channel": ChannelNameRouter(channel_routes()),
    }
)

# Everything loaded so far lives as long as the process: keep it out of the collector's
# generations, so a collection scans only what requests allocate (no periodic pause of ~100 ms).
gc.collect()
gc.freeze()
# A young collection every 7,000 new objects instead of 700: an action allocates a few thousand
# short-lived ones (its render, its options), which the default threshold collected ten times over
# and pushed into the older generations, whose full scans (the process caches) took ~90 ms each.
# bench/request.py: 0.40 -> 0.21 ms of collector time per action (docs/performance.md, round 8).
gc.set_threshold(GC_YOUNG, *gc.get_threshold()[1:])
