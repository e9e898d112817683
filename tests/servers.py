"""What a server process spawned by a test needs to find the test's database.

A spawned child reads the settings afresh: it would open the database named in them, not the test
database this process made (pytest-xdist gives each worker its own, ``test_<name>_gw0``...).
``same_database()`` is the set-up to hand to ``DaphneProcess``: the child uses the same database.
"""

from __future__ import annotations

from functools import partial
from typing import Any


def use_database(name: str) -> None:
    """In the spawned process, before its first query: the default database is ``name``."""
    from django.conf import settings

    settings.DATABASES["default"]["NAME"] = name


def same_database() -> Any:
    """The set-up for a spawned server: the database this process's tests use now."""
    from django.db import connection

    return partial(use_database, connection.settings_dict["NAME"])
