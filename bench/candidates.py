"""Framework replacements that were measured and reverted, kept only so ``bench/framework.py`` can
measure them again against the stock path the project uses. Nothing in ``vtt`` or ``combat`` imports
this module; ``SESSION_ENGINE = "bench.candidates"`` is the bench's switch, never the site's.

- ``SessionStore``: Django's database sessions with the per-request read written once as SQL (the
  ORM's ``get()`` compiles the same query anew per request). It saved 0.27-0.47 ms of an action's
  ~11 ms CPU (under 5 %, under 0.5 ms): reverted to ``django.contrib.sessions.backends.db``.
"""

from __future__ import annotations

import functools
import logging
from typing import Any

from django.contrib.sessions.backends.db import SessionStore as DatabaseSessionStore
from django.contrib.sessions.models import Session
from django.core.exceptions import SuspiciousOperation
from django.db import connections, router
from django.utils import timezone


@functools.cache
def _select(vendor: str) -> str:
    """The read of ``Session.objects.get(session_key=..., expire_date__gt=now)``, as SQL."""
    qn = connections[router.db_for_read(Session)].ops.quote_name
    columns = ", ".join(qn(f.column) for f in Session._meta.concrete_fields)
    where = f"{qn('session_key')} = %s AND {qn('expire_date')} > %s"
    return f"SELECT {columns} FROM {qn(Session._meta.db_table)} WHERE {where}"


class SessionStore(DatabaseSessionStore):
    """``django.contrib.sessions.backends.db`` with its per-request read as a plain statement."""

    def _get_session_from_db(self) -> Any:
        try:
            alias = router.db_for_read(self.model)
            sql = _select(connections[alias].vendor)
            rows = list(self.model.objects.using(alias).raw(sql, [self.session_key, timezone.now()]))
            if rows:
                return rows[0]
        except SuspiciousOperation as e:
            logging.getLogger(f"django.security.{e.__class__.__name__}").warning(str(e))
        self._session_key = None
        return None
