"""Log filters: what an operator should not have to read.

- ``ClientGone``: a client that simply went away is no error. A socket whose client left is
  cancelled; when that cancellation lands while ``channels_redis`` is unsubscribing the socket's
  channel, the layer logs the ``CancelledError`` with a traceback ("Unexpected exception while
  cleaning-up channel"). And a push that reaches a socket just as its client leaves makes daphne's
  protocol raise ``Disconnected: Attempt to send on a closed protocol``, which daphne logs as
  "Exception inside application". Both records are dropped; any other error of those loggers still
  gets through.
- ``RefusedOneLine``: a request refused with a 4xx (a forged request answered 403, a bad request)
  is one line, "Forbidden (Permission denied): /path", without the traceback of the exception that
  answered it: the refusal is the site working, not failing.
"""

from __future__ import annotations

import asyncio
import logging


def _gone(error: BaseException | None) -> bool:
    if isinstance(error, asyncio.CancelledError):
        return True
    # autobahn's ``Disconnected`` (daphne's websocket protocol), named rather than imported: the
    # embedded server may run without autobahn.
    return type(error).__name__ == "Disconnected" and type(error).__module__.startswith("autobahn")


class ClientGone(logging.Filter):
    """Drops a record whose exception says the client simply went away (see the module doc)."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not _gone(record.exc_info[1] if record.exc_info else None)


class RefusedOneLine(logging.Filter):
    """Keeps a refused request's record (status 400-499) as its one line, without the traceback."""

    def filter(self, record: logging.LogRecord) -> bool:
        status = getattr(record, "status_code", None)
        if isinstance(status, int) and 400 <= status < 500:
            record.exc_info, record.exc_text, record.stack_info = None, None, None
        return True
