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
"""

from __future__ import annotations

from typing import Any

from axes.handlers.database import AxesDatabaseHandler
from axes.helpers import get_client_ip_address, get_client_username
from axes.models import AccessAttempt
from django.conf import settings
from django.core.cache import cache
from django.db.models import Sum


def client_ip(request: Any) -> str:
    """The client's address as django-axes sees it (``PROXY_COUNT`` aware)."""
    ip = getattr(request, "axes_ip_address", None) or get_client_ip_address(request)
    return str(ip or request.META.get("REMOTE_ADDR", "") or "unknown")


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


def signup_allowed(request: Any) -> bool:
    """Count one sign-up attempt from this address; False once over ``SIGNUP_LIMIT`` in the window."""
    key = f"signup-attempts:{client_ip(request)}"
    cache.add(key, 0, timeout=settings.SIGNUP_WINDOW)
    try:
        count = cache.incr(key)
    except ValueError:  # expired between add and incr
        cache.set(key, 1, timeout=settings.SIGNUP_WINDOW)
        count = 1
    return count <= settings.SIGNUP_LIMIT
