"""Issue 22, point 11: no traceback in the log for a client that simply went away.

channels_redis logs a ``CancelledError`` with its traceback when a socket's
task is cancelled again while the layer unsubscribes its channel (seen 7 times
in a run of the 120-seat bench as the seats closed). The layer is driven here
into exactly that spot, without a Redis server: its connection's lock is held,
so the unsubscribe waits, and the waiting receive is cancelled twice.
"""

from __future__ import annotations

import asyncio
import logging

from channels_redis.pubsub import RedisPubSubChannelLayer

CLEANUP = "Unexpected exception while cleaning-up channel"


async def _cancelled_twice_during_cleanup() -> None:
    layer = RedisPubSubChannelLayer(hosts=["redis://127.0.0.1:1/0"], prefix="client-gone")
    loop_layer = layer._get_layer()
    channel = "client-gone.specific.socket"
    loop_layer.channels[channel] = asyncio.Queue()  # subscribed, as after new_channel()
    shard = loop_layer._get_shard(channel)
    shard._subscribed_to.add(channel)
    async with shard._lock:  # another socket is being cleaned up on the same connection
        task = asyncio.ensure_future(loop_layer.receive(channel))
        await asyncio.sleep(0)
        task.cancel()  # the client went away: its receive is cancelled...
        await asyncio.sleep(0)  # ...and waits for the connection to unsubscribe,
        task.cancel()  # when the socket's task is cancelled again (closing, killed)
        await asyncio.sleep(0)
    results = await asyncio.gather(task, return_exceptions=True)
    assert isinstance(results[0], asyncio.CancelledError)


def _errors(caplog) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.levelno >= logging.ERROR and r.name.startswith("channels_redis")]


def test_point_11_a_client_that_went_away_logs_no_traceback(caplog):
    caplog.set_level(logging.INFO)
    asyncio.run(_cancelled_twice_during_cleanup())
    assert _errors(caplog) == []


def test_point_11_the_filter_drops_only_cancellations(caplog):
    logger = logging.getLogger("channels_redis.pubsub")
    caplog.set_level(logging.INFO)
    try:
        raise asyncio.CancelledError
    except asyncio.CancelledError:
        logger.exception(CLEANUP)
    try:
        raise ConnectionError("Redis is down")
    except ConnectionError:
        logger.exception(CLEANUP)  # a real failure still reaches the operator
    assert [r.exc_info[0] for r in _errors(caplog)] == [ConnectionError]
