"""Live-table fixtures: a started D20 Luck battle and a logged-in session per persona.

The consumers run their database work in other threads, so these tests use
transactional databases (``transaction=True``). The personas and the table are
in tests/table.py, the socket helpers in tests/sockets.py.
"""

from __future__ import annotations

import pytest

from tests.sockets import session_cookie
from tests.table import table


@pytest.fixture
def live_table(transactional_db):
    """(users, campaign, battle, cookies): cookies maps a persona to its session id."""
    users, campaign, battle = table()
    cookies = {name: session_cookie(user) for name, user in users.items()}
    return users, campaign, battle, cookies
