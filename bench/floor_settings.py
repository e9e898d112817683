"""Settings of ``bench/floor.py``'s servers: the project's, with the floor's URLs (``bench.floor_app``).

``FLOOR_LEVEL=bare`` also drops every middleware: Django's plain ASGI handler, an async view.
For the bench's own servers on 127.0.0.1 only: the floor's URL lets any signed-in user publish to
any battle's sockets, so no deployment may use these settings.
"""

from __future__ import annotations

import os

from vtt.settings import *  # noqa: F403 - the project's settings, then the floor's changes

ROOT_URLCONF = "bench.floor_app"
if os.environ.get("FLOOR_LEVEL") == "bare":
    MIDDLEWARE: list[str] = []
