"""Throttles on accounts: failed logins (django-axes) and sign-ups, counted per client address.

Failed logins have two limits. ``LOGIN_FAILURES_PER_ACCOUNT`` failures for
one username from one address lock that pair; ``LOGIN_FAILURES_PER_IP``
failures from one address over every username lock the address (one
address spraying many accounts). django-axes counts both (its lockout
parameters) and compares the larger count with one limit: ``failure_limit``
turns the two limits into that one number for the request at hand. A
successful login forgets only that username's failures from that address,
so logging into an account of one's own does not reset the address's count.

Sign-ups: ``SIGNUP_LIMIT`` attempts per address per ``SIGNUP_WINDOW``
seconds, counted in the cache (shared by every process when Redis is set).
A sign-up through a valid invite link counts against that invite instead
(its uses, plus the same room for retries an address gets), and against the
address only when it fails: a whole table joining from one Wi-Fi is not
stopped by the address's limit, and guessing taken names is not faster.

The address is ``vtt.clientaddr``'s (trusted proxies only, never a header
the client wrote).
"""

from __future__ import annotations

from typing import Any

from axes.handlers.database import AxesDatabaseHandler
from axes.helpers import get_client_username
from axes.models import AccessAttempt
from django.conf import settings
from django.core.cache import cache
from django.db.models import Sum

from vtt.clientaddr import request_address
from vtt.models import Invite


def client_ip(request: Any) -> str:
    """The client's address as django-axes sees it (``vtt.clientaddr.request_address``)."""
    return str(getattr(request, "axes_ip_address", None) or request_address(request) or "unknown")


def _failures(**filters: Any) -> int:
    return AccessAttempt.objects.filter(**filters).aggregate(n=Sum("failures_since_start"))["n"] or 0


def failure_limit(request: Any, credentials: dict[str, Any] | None) -> int:
    """The limit to compare with axes' count (the larger of this pair's and this address's failures)."""
    per_account, per_ip = settings.LOGIN_FAILURES_PER_ACCOUNT, settings.LOGIN_FAILURES_PER_IP
    ip = client_ip(request)
    pair = _failures(ip_address=ip, username=get_client_username(request, credentials))
    address = _failures(ip_address=ip)
    if pair >= per_account:
        return per_account  # locked: axes' count (at least ``pair``) reaches it
    if address >= per_ip:
        return per_ip  # locked: axes' count (at least ``address``) reaches it
    return max(pair, address) + 1  # not locked yet


class LoginAttempts(AxesDatabaseHandler):
    """django-axes' database handler; a success resets only that username's failures from that address."""

    def reset_user_attempts(self, request: Any, credentials: dict[str, Any] | None = None) -> int:
        username = get_client_username(request, credentials)
        count, _ = AccessAttempt.objects.filter(ip_address=client_ip(request), username=username).delete()
        return count


def _incr(key: str) -> int:
    cache.add(key, 0, timeout=settings.SIGNUP_WINDOW)
    try:
        return int(cache.incr(key))
    except ValueError:  # expired between add and incr
        cache.set(key, 1, timeout=settings.SIGNUP_WINDOW)
        return 1


def _address_key(request: Any) -> str:
    return f"signup-attempts:{client_ip(request)}"


def signup_allowed(request: Any, invite: Invite | None = None) -> bool:
    """Count one sign-up attempt; False once over the limit in the window.

    ``invite``: the valid invite the sign-up goes through. Its attempts count against the invite (up to
    its ``max_uses`` plus ``SIGNUP_LIMIT``), not the address; only the failed ones count against the
    address too (``signup_failed``), so guessing taken names stays as slow as without an invite.
    """
    if invite is None:
        return _incr(_address_key(request)) <= settings.SIGNUP_LIMIT
    if int(cache.get(_address_key(request)) or 0) >= settings.SIGNUP_LIMIT:
        return False
    return _incr(f"signup-invite:{invite.pk}") <= invite.max_uses + settings.SIGNUP_LIMIT


def signup_failed(request: Any) -> None:
    """A sign-up through an invite that was refused (a taken name...): it counts against the address."""
    _incr(_address_key(request))
