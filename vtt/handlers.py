"""Django's ASGI handler, with the middleware chain and the view run as under WSGI: in one thread.

Django's own ``ASGIHandler`` builds an async middleware chain. Our views are sync, and so are most
middleware (``MiddlewareMixin`` runs ``process_request`` and ``process_response`` through
``sync_to_async`` in async mode; WhiteNoise is sync only, so Django switches modes again around it):
one action POST hopped between the event loop and a worker thread about twenty times (each hop a
future, a thread wake-up and a loop wake-up, under the GIL shared with every socket of the process).
Here the chain is loaded in sync mode and run with ONE ``sync_to_async`` call per request, in the
request's own thread (``thread_sensitive``, as Django's own hops: the database connection the view
uses is the one the request-finished signal returns to the pool), with the request signals and the
response's close in the same hop (``handle``). Reading the body and sending the response stay as in
Django's handler. An async view would still work (Django
adapts it in sync mode), but it would then cost two hops.

A request body longer than ``settings.REQUEST_MAX_BYTES`` (the largest upload and its form) is
refused with 413 before it is read: at once when its ``Content-Length`` says so, else as soon as
the chunks received pass the limit (Django's handler would copy any size into a temporary file).

Django's handler also opens a new ``ThreadSensitiveContext`` per request, whose executor starts a new
OS thread and joins it when the request ends (under load, ~10 % of a server process's busy samples
went to starting threads). Here each request borrows a one-thread executor from a free list and
gives it back: the same per-request guarantee (every thread-sensitive call of the request runs in
its one thread, no other request in it meanwhile), without a thread's start and join per request.

Kept on its figure: against Django's ``ASGIHandler``, paired, it saves 4.6-5.6 ms of server CPU per
action (about a third of one), on SQLite and PostgreSQL (``bench/framework.py --replacement
handler``; docs/performance.md). ``tests/web/test_asgi_http.py::test_the_handler_answers_as_djangos_handler``
holds its answers equal to Django's handler's.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import tempfile
import weakref
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from asgiref.sync import ThreadSensitiveContext, sync_to_async
from django.conf import settings
from django.core import signals
from django.core.exceptions import RequestAborted
from django.core.handlers import base
from django.core.handlers.asgi import ASGIHandler, get_script_prefix
from django.http import FileResponse, HttpRequest, HttpResponse, HttpResponseBase
from django.template.loader import render_to_string
from django.urls import set_script_prefix

# The event loop of the server handling the current request: a request thread can hand work to it
# (``combat.live.publish``) without waiting for it.
SERVER_LOOP: contextvars.ContextVar[asyncio.AbstractEventLoop | None] = contextvars.ContextVar(
    "server_loop", default=None
)


class BodyTooLarge(Exception):
    """The request body passed ``settings.REQUEST_MAX_BYTES``."""


def declared_length(scope: Any) -> int | None:
    """The request's ``Content-Length`` (None when absent or not a number)."""
    for name, value in scope.get("headers", []):
        if name.lower() == b"content-length":
            return int(value) if value.strip().isdigit() else None
    return None


class OneThreadASGIHandler(ASGIHandler):
    """``ASGIHandler`` whose middleware chain and view run synchronously in one worker thread."""

    # Executors kept for the next requests; more than this many requests at once start new ones,
    # which are shut down when they come back to a full list.
    KEEP_EXECUTORS = 64

    def __init__(self) -> None:
        base.BaseHandler.__init__(self)
        self.load_middleware(is_async=False)
        self._executors: list[ThreadPoolExecutor] = []
        self._turns: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, tuple[int, asyncio.Semaphore]] = (
            weakref.WeakKeyDictionary()
        )

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            raise ValueError(f"Django can only handle ASGI/HTTP connections, not {scope['type']}.")
        executor = self._executors.pop() if self._executors else ThreadPoolExecutor(1, "request")
        SERVER_LOOP.set(asyncio.get_running_loop())  # this request's context (and its thread's) only
        try:
            async with ThreadSensitiveContext(executor=executor):
                await self.handle(scope, receive, send)
        finally:
            if len(self._executors) < self.KEEP_EXECUTORS:
                self._executors.append(executor)
            else:
                executor.shutdown(wait=False)

    async def handle(self, scope: Any, receive: Any, send: Any) -> None:
        """As Django's, with the request's sync work in one thread hop: the request-started signal,
        the middleware chain and view, and (for a response that is not streamed) its close, which
        sends the request-finished signal and so gives the database connection back before the
        bytes go out. Django's handler makes three hops and two tasks of it (the second one listens
        for a disconnect so that an async view can be cancelled; a sync view runs to its end anyway).
        """
        limit = getattr(settings, "REQUEST_MAX_BYTES", 0)
        try:
            if limit and (declared_length(scope) or 0) > limit:
                raise BodyTooLarge
            body_file = await self.read_body(receive)
        except RequestAborted:
            return
        except BodyTooLarge:
            await self.send_response(await sync_to_async(too_large)(), send)
            return
        set_script_prefix(get_script_prefix(scope))
        try:
            request, error_response = self.create_request(scope, body_file)
            if request is None:
                assert error_response is not None  # Django's create_request gives one or the other
                await self.send_response(error_response, send)
                await sync_to_async(error_response.close)()
                return
            async with self._running():
                response = await sync_to_async(self._respond, thread_sensitive=True)(request, scope)
            try:
                await self.send_response(response, send)
            finally:
                if response.streaming:
                    await sync_to_async(response.close)()
        finally:
            body_file.close()

    async def read_body(self, receive: Any) -> Any:
        """Django's, refusing a body once it passes ``settings.REQUEST_MAX_BYTES`` (``BodyTooLarge``)."""
        limit = getattr(settings, "REQUEST_MAX_BYTES", 0)
        body_file = tempfile.SpooledTemporaryFile(  # noqa: SIM115 - returned open, as in Django
            max_size=settings.FILE_UPLOAD_MAX_MEMORY_SIZE, mode="w+b"
        )
        size = 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                body_file.close()
                raise RequestAborted()
            if "body" in message:
                size += len(message["body"])
                if limit and size > limit:
                    body_file.close()
                    raise BodyTooLarge
                body_file.write(message["body"])
            if not message.get("more_body", False):
                break
        body_file.seek(0)
        return body_file

    def _running(self) -> Any:
        """A turn to run the request's sync work: at most ``settings.REQUEST_THREADS`` requests of this
        process at once (0: no limit); the others wait on the loop, not for the GIL in a thread."""
        limit = getattr(settings, "REQUEST_THREADS", 0)
        if not limit:
            return contextlib.nullcontext()
        loop = asyncio.get_running_loop()
        turns = self._turns.get(loop)
        if turns is None or turns[0] != limit:
            turns = self._turns[loop] = (limit, asyncio.Semaphore(limit))
        return turns[1]

    def _respond(self, request: HttpRequest, scope: Any) -> HttpResponseBase:
        signals.request_started.send(sender=self.__class__, scope=scope)
        response = self.get_response(request)
        response._handler_class = self.__class__  # type: ignore[attr-defined]  # as Django's handler
        if isinstance(response, FileResponse):
            response.block_size = self.chunk_size
        if not response.streaming:
            response.close()
        return response

    async def get_response_async(self, request: HttpRequest) -> HttpResponseBase:
        return await sync_to_async(self.get_response, thread_sensitive=True)(request)


def too_large() -> HttpResponse:
    """413 with the site's page saying the limit (rendered without a request, like Django's 400 page)."""
    megabytes = settings.REQUEST_MAX_BYTES // (1024 * 1024)
    response = HttpResponse(render_to_string("413.html", {"megabytes": megabytes}), status=413)
    response["Connection"] = "close"
    return response


def get_asgi_application() -> OneThreadASGIHandler:
    """As ``django.core.asgi.get_asgi_application``, with the one-thread handler."""
    import django

    django.setup(set_prefix=False)
    return OneThreadASGIHandler()
