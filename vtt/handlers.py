"""Django's ASGI handler, with the middleware chain and the view run as under WSGI: in one thread.

Django's own ``ASGIHandler`` builds an async middleware chain. Our views are sync, and so are most
middleware (``MiddlewareMixin`` runs ``process_request`` and ``process_response`` through
``sync_to_async`` in async mode; WhiteNoise is sync only, so Django switches modes again around it):
one action POST hopped between the event loop and a worker thread about twenty times (each hop a
future, a thread wake-up and a loop wake-up, under the GIL shared with every socket of the process).
Here the chain is loaded in sync mode and run with ONE ``sync_to_async`` call per request, in the
request's own thread (``thread_sensitive``, as Django's own hops: the database connection the view
uses is the one the request-finished signal returns to the pool). Reading the body, sending the
response and the request signals stay as in Django's handler. An async view would still work (Django
adapts it in sync mode), but it would then cost two hops.
"""

from __future__ import annotations

from asgiref.sync import sync_to_async
from django.core.handlers import base
from django.core.handlers.asgi import ASGIHandler
from django.http import HttpRequest, HttpResponseBase


class OneThreadASGIHandler(ASGIHandler):
    """``ASGIHandler`` whose middleware chain and view run synchronously in one worker thread."""

    def __init__(self) -> None:
        base.BaseHandler.__init__(self)
        self.load_middleware(is_async=False)

    async def get_response_async(self, request: HttpRequest) -> HttpResponseBase:
        return await sync_to_async(self.get_response, thread_sensitive=True)(request)


def get_asgi_application() -> OneThreadASGIHandler:
    """As ``django.core.asgi.get_asgi_application``, with the one-thread handler."""
    import django

    django.setup(set_prefix=False)
    return OneThreadASGIHandler()
