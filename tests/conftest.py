"""Shared test configuration.

With VTT_REQUIRE_SERVICES=1 (CI), tests that need PostgreSQL, Redis or
Chromium fail instead of skipping. With VTT_REQUIRE_BROWSER=1 (``make test``'s
browser run) a missing Chromium or redis-server fails the browser tests too:
a green run never hides skipped browser tests.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterator

import pytest
from hypothesis import settings as hypothesis_settings

from tests.table import clear_live_caches, make_campaign, make_user

REQUIRE_SERVICES = os.environ.get("VTT_REQUIRE_SERVICES") == "1"
REQUIRE_BROWSER = os.environ.get("VTT_REQUIRE_BROWSER") == "1"

# CI (CI=true) draws the same examples on every run, so a run decides on the code it was given;
# local runs draw new ones each time and so keep finding new cases.
hypothesis_settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI"):
    hypothesis_settings.load_profile("ci")


def need_service(reason: str) -> None:
    """Skip locally, fail in CI, when a service a test needs is missing."""
    if REQUIRE_SERVICES or REQUIRE_BROWSER:
        pytest.fail(f"required service missing: {reason}")
    pytest.skip(reason)


@pytest.fixture(autouse=True)
def fresh_live_caches():
    """Database ids repeat between tests: each starts with empty process caches (presenters' log
    windows and members, the sockets' store)."""
    clear_live_caches()
    yield
    clear_live_caches()


# --- the personas (tests/table.py) and their campaign -----------------------------------------------


@pytest.fixture
def gm(db):
    return make_user("gm")


@pytest.fixture
def player(db):
    return make_user("player")


@pytest.fixture
def other_player(db):
    return make_user("other_player")


@pytest.fixture
def observer(db):
    return make_user("observer")


@pytest.fixture
def outsider(db):
    return make_user("outsider")


@pytest.fixture
def campaign(gm, player, other_player, observer, outsider):
    """The personas' campaign (Mist, the ruleset's house rules): the GM runs it, ``player`` and
    ``other_player`` play, ``observer`` watches; ``outsider`` is not in it."""
    return make_campaign(gm, player=[player, other_player], observer=[observer])


#: The report property a test's ``tally`` is kept under; ``pytest_terminal_summary`` prints them.
TALLY = "tally"


@pytest.fixture
def tally(request) -> Iterator[Counter[str]]:
    """What a test counted (examples tried, trials, cases): the test asserts on it; after the run the
    terminal summary prints one line per test, from the reports, so pytest-xdist's workers' too."""
    counts: Counter[str] = Counter()
    yield counts
    if counts:
        name = request.node.nodeid.split("/")[-1]
        line = f"{name}: " + " ".join(f"{key}={value}" for key, value in sorted(counts.items()))
        request.node.user_properties.append((TALLY, line))


def pytest_terminal_summary(terminalreporter):
    """Prints every test's ``tally`` (fuzz examples, race trials, socket cases, fault scenarios)."""
    lines = sorted(
        {
            value
            for reports in terminalreporter.stats.values()
            for report in reports
            if getattr(report, "when", None) == "teardown"
            for name, value in getattr(report, "user_properties", ())
            if name == TALLY
        }
    )
    if lines:
        terminalreporter.write_sep("-", "tallies")
        for line in lines:
            terminalreporter.write_line(line)


def pytest_sessionstart(session):
    if REQUIRE_SERVICES:
        url = os.environ.get("DATABASE_URL", "")
        if not url.startswith(("postgres://", "postgresql://")):
            raise pytest.UsageError("VTT_REQUIRE_SERVICES=1 needs DATABASE_URL pointing at PostgreSQL")
        if not os.environ.get("REDIS_URL"):
            raise pytest.UsageError("VTT_REQUIRE_SERVICES=1 needs REDIS_URL")


@pytest.fixture
def redis_url() -> str:
    """The Redis the multi-process tests use: ``VTT_TEST_REDIS_URL`` (``make test`` starts a private
    redis-server when REDIS_URL is not set: tools/with_redis), else ``REDIS_URL``. One that was given
    and does not answer fails the test; none given skips it, except where services are required."""
    given = os.environ.get("VTT_TEST_REDIS_URL", "")
    url = given or os.environ.get("REDIS_URL", "")
    if not url:
        need_service("REDIS_URL is not set")
    try:
        import redis

        redis.Redis.from_url(url, socket_connect_timeout=2).ping()
    except Exception as exc:
        if given:
            pytest.fail(f"Redis at {url} (VTT_TEST_REDIS_URL) is not reachable: {exc}")
        need_service(f"Redis at {url} is not reachable: {exc}")
    return url


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup, django_db_blocker):
    """The test database of this process (each xdist worker has its own) is dropped at the end of the
    run: before pytest-django drops it, every connection to it is closed, those of this process and any
    left open by a thread (a ``database_sync_to_async`` executor, a job runner) or a spawned server;
    PostgreSQL refuses to drop a database others are connected to."""
    yield
    from django.db import connection, connections

    with django_db_blocker.unblock():
        connections.close_all()
        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                    " WHERE datname = current_database() AND pid <> pg_backend_pid()"
                )
            connection.close()


@pytest.fixture(autouse=True)
def _media_in_a_temporary_folder(tmp_path_factory, settings):
    """Uploads of a test go to a folder of their own (never the project's media/), and no cached
    portrait URLs leak from one test's campaign to the next one's with the same id."""
    settings.MEDIA_ROOT = str(tmp_path_factory.mktemp("media"))
    from combat.table import FACES

    FACES.clear()
    yield
    FACES.clear()
