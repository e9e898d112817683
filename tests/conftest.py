"""Shared test configuration.

With VTT_REQUIRE_SERVICES=1 (CI), tests that need PostgreSQL, Redis or
Chromium fail instead of skipping.
"""

from __future__ import annotations

import os

import pytest

REQUIRE_SERVICES = os.environ.get("VTT_REQUIRE_SERVICES") == "1"


def need_service(reason: str) -> None:
    """Skip locally, fail in CI, when a service a test needs is missing."""
    if REQUIRE_SERVICES:
        pytest.fail(f"required service missing: {reason}")
    pytest.skip(reason)


def pytest_sessionstart(session):
    if REQUIRE_SERVICES:
        url = os.environ.get("DATABASE_URL", "")
        if not url.startswith(("postgres://", "postgresql://")):
            raise pytest.UsageError("VTT_REQUIRE_SERVICES=1 needs DATABASE_URL pointing at PostgreSQL")
        if not os.environ.get("REDIS_URL"):
            raise pytest.UsageError("VTT_REQUIRE_SERVICES=1 needs REDIS_URL")


@pytest.fixture
def redis_url() -> str:
    url = os.environ.get("REDIS_URL", "")
    if not url:
        need_service("REDIS_URL is not set")
    try:
        import redis

        redis.Redis.from_url(url, socket_connect_timeout=2).ping()
    except Exception as exc:
        need_service(f"Redis at {url} is not reachable: {exc}")
    return url
