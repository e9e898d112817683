"""Log filters: what an operator should not have to read.

A socket whose client went away is cancelled; when that cancellation lands
while ``channels_redis`` is unsubscribing the socket's channel (many sockets
closing at once wait for that one connection), the layer logs the
``CancelledError`` with a traceback ("Unexpected exception while cleaning-up
channel") and re-raises it: nothing went wrong, and the traceback looked like
a real error. ``ClientGone`` drops exactly those records; any other error of
that logger still gets through.
"""

from __future__ import annotations

import asyncio
import logging


class ClientGone(logging.Filter):
    """Drops a record whose exception is a cancellation (a client that simply went away)."""

    def filter(self, record: logging.LogRecord) -> bool:
        error = record.exc_info[1] if record.exc_info else None
        return not isinstance(error, asyncio.CancelledError)
