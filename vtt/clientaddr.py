"""The client's address and the page's scheme: one rule for every throttle, cap and origin check.

Behind ``TRUSTED_PROXY_COUNT`` proxies (default 0: the server faces the
clients), the address is the rightmost hop of ``X-Forwarded-For`` that none of
those proxies is: each proxy appends the address it was reached from, so the
last ``TRUSTED_PROXY_COUNT`` entries of the chain (the header's hops, then the
socket's peer) are ours and the one before them is the client. Whatever a
client writes into the header itself stands further left and is never read.
With no trusted proxy the header is ignored: the socket's peer is the client.

The same count decides whether ``X-Forwarded-Proto`` is believed (the scheme
the browser used, for the websocket Origin check; Django's
``SECURE_PROXY_SSL_HEADER`` for HTTP).

>>> client_address("10.0.0.2", "6.6.6.6, 203.0.113.9", trusted=1)
'203.0.113.9'
>>> client_address("203.0.113.9", "6.6.6.6", trusted=0)
'203.0.113.9'
"""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping
from typing import Any

from django.conf import settings


def trusted_proxies() -> int:
    return max(0, int(getattr(settings, "TRUSTED_PROXY_COUNT", 0) or 0))


def _ip(value: str | None) -> str | None:
    """``value`` as a normalised IP address, or None when it is not one."""
    if not value:
        return None
    text = value.strip()
    if text.startswith("[") and "]" in text:  # "[::1]:443"
        text = text[1 : text.index("]")]
    try:
        return str(ipaddress.ip_address(text))
    except ValueError:
        return None


def client_address(peer: str | None, forwarded_for: str | None, trusted: int | None = None) -> str | None:
    """The client's address, given the socket's peer and the ``X-Forwarded-For`` header (None: unknown).

    A hop that is not an IP address (a misconfigured proxy) gives the peer instead.
    """
    trusted = trusted_proxies() if trusted is None else trusted
    if trusted <= 0 or not forwarded_for:
        return _ip(peer)
    chain = [hop.strip() for hop in forwarded_for.split(",")] + [peer or ""]
    hop = chain[-(trusted + 1)] if len(chain) > trusted else chain[0]
    return _ip(hop) or _ip(peer)


def request_address(request: Any) -> str | None:
    """The client's address of a Django request (django-axes' ``AXES_CLIENT_IP_CALLABLE``)."""
    meta = request.META
    return client_address(meta.get("REMOTE_ADDR"), meta.get("HTTP_X_FORWARDED_FOR"))


def _headers(scope: Mapping[str, Any], name: bytes) -> str | None:
    values = [v.decode("latin1") for k, v in scope.get("headers", []) if k.lower() == name]
    return ",".join(values) if values else None


def scope_address(scope: Mapping[str, Any]) -> str | None:
    """The client's address of an ASGI connection (a websocket)."""
    client = scope.get("client") or (None,)
    return client_address(str(client[0]) if client[0] else None, _headers(scope, b"x-forwarded-for"))


def page_scheme(scope: Mapping[str, Any]) -> str:
    """``https`` or ``http``: how the browser reached the site, as the trusted proxy says when there is one."""
    if trusted_proxies() > 0:
        forwarded = (_headers(scope, b"x-forwarded-proto") or "").split(",")[0].strip().lower()
        if forwarded in ("http", "https"):
            return forwarded
    return "https" if scope.get("scheme") in ("wss", "https") else "http"
