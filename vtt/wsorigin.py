"""Websocket Origin check: the page that opens a socket must come from this very site.

Channels' ``AllowedHostsOriginValidator`` compares only the Origin's host
with ``ALLOWED_HOSTS``: ``http://127.0.0.1:9999`` passed for a server on port
8000. Here the Origin's scheme, host and port must equal the site's public
origin, and that host must be allowed; or the Origin is listed in
``CSRF_TRUSTED_ORIGINS``. Anything else, or no Origin, is refused (403).

The public origin: the Host header gives host and port; the scheme is the
one the browser used, which behind a trusted proxy (``TRUSTED_PROXY_COUNT``)
is its ``X-Forwarded-Proto`` (a websocket's scope carries no scheme: the
proxy ends TLS), else the socket's own (``ws`` goes with ``http``, ``wss``
with ``https``). ``vtt.clientaddr.page_scheme`` decides it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

from asgiref.typing import ASGIReceiveCallable, ASGISendCallable, Scope
from channels.security.websocket import WebsocketDenier
from django.conf import settings
from django.http.request import split_domain_port, validate_host

from vtt.clientaddr import page_scheme

DEFAULT_PORTS = {"http": 80, "https": 443}


def _origin(value: str) -> tuple[str, str, int] | None:
    try:
        parts = urlsplit(value)
        port = parts.port
    except ValueError:
        return None
    if parts.scheme not in DEFAULT_PORTS or not parts.hostname or parts.path not in ("", "/"):
        return None
    return parts.scheme, parts.hostname.lower(), port or DEFAULT_PORTS[parts.scheme]


def origin_allowed(scope: Mapping[str, Any]) -> bool:
    headers = {k.decode("latin1").lower(): v.decode("latin1") for k, v in scope.get("headers", [])}
    origin = _origin(headers.get("origin", ""))
    if origin is None:
        return False
    trusted = {o for o in (_origin(t) for t in settings.CSRF_TRUSTED_ORIGINS) if o}
    if origin in trusted:
        return True
    scheme = page_scheme(scope)
    host, port = split_domain_port(headers.get("host", ""))
    if not host or not validate_host(host, settings.ALLOWED_HOSTS):
        return False
    try:
        port_number = int(port) if port else DEFAULT_PORTS[scheme]
    except ValueError:
        return False
    return origin == (scheme, host.lower(), port_number)


class SameOriginValidator:
    """ASGI middleware: websockets whose Origin is not this site are refused before the consumer runs."""

    def __init__(self, application: Any) -> None:
        self.application = application

    async def __call__(self, scope: Scope, receive: ASGIReceiveCallable, send: ASGISendCallable) -> Any:
        if scope["type"] == "websocket" and not origin_allowed(scope):
            denier = WebsocketDenier.as_asgi()
            return await denier(scope, receive, send)
        return await self.application(scope, receive, send)
