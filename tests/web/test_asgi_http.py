"""HTTP through the ASGI application: Django's middleware and the view run in one thread hop."""

from __future__ import annotations

import asyncio
import re
import threading

import pytest
from asgiref.sync import SyncToAsync
from channels.testing import HttpCommunicator
from django.http import HttpResponse

pytestmark = pytest.mark.django_db(transaction=True)

HOST = [(b"host", b"testserver")]
FORM = [*HOST, (b"content-type", b"application/x-www-form-urlencoded")]


async def _get(path: str, method: str = "GET", body: bytes = b"", headers=HOST) -> dict:
    from vtt.asgi import application

    communicator = HttpCommunicator(application, method, path, body=body, headers=list(headers))
    return await communicator.get_response(timeout=10)


def test_the_middleware_chain_is_loaded_in_sync_mode():
    from vtt.asgi import django_asgi_app

    assert not asyncio.iscoroutinefunction(django_asgi_app._middleware_chain)


async def test_a_page_passes_every_middleware():
    response = await _get("/accounts/login/")
    headers = {k.lower(): v for k, v in response["headers"]}
    assert response["status"] == 200
    assert headers[b"x-frame-options"] == b"DENY"  # clickjacking middleware
    assert b"content-security-policy" in headers  # CSP middleware
    assert b"csrftoken=" in b" ".join(v for k, v in response["headers"] if k.lower() == b"set-cookie")


async def test_a_post_without_its_csrf_token_is_refused():
    response = await _get("/accounts/login/", "POST", b"username=a&password=b", FORM)
    assert response["status"] == 403


async def test_middleware_and_view_share_one_thread(monkeypatch):
    """The session middleware's request hook and the view run in the same worker thread, off the loop."""
    from django.contrib.sessions.middleware import SessionMiddleware

    threads: dict[str, int] = {}
    process_request = SessionMiddleware.process_request

    def spy_request(self, request):
        threads["middleware"] = threading.get_ident()
        return process_request(self, request)

    def spy_view(request, *args, **kwargs):
        threads["view"] = threading.get_ident()
        return HttpResponse("ok")

    monkeypatch.setattr(SessionMiddleware, "process_request", spy_request)
    from vtt.asgi import django_asgi_app

    monkeypatch.setattr(django_asgi_app, "resolve_request", lambda request: _resolved(spy_view))
    response = await _get("/accounts/login/")
    assert response["status"] == 200 and response["body"] == b"ok"
    assert threads["middleware"] == threads["view"] != threading.get_ident()


async def test_the_request_signals_and_the_view_run_in_one_hop_before_the_bytes_go_out(monkeypatch):
    """request_started, the view and request_finished (the connection back to the pool) share one
    thread hop, and the request is finished before its response is sent."""
    from django.core import signals

    from vtt.asgi import django_asgi_app

    order: list[tuple[str, int]] = []

    def started(**kwargs):
        order.append(("started", threading.get_ident()))

    def finished(**kwargs):
        order.append(("finished", threading.get_ident()))

    def view(request, *args, **kwargs):
        order.append(("view", threading.get_ident()))
        return HttpResponse("ok")

    hops = 0
    call = SyncToAsync.__call__

    async def counting(self, *args, **kwargs):
        nonlocal hops
        hops += 1
        return await call(self, *args, **kwargs)

    monkeypatch.setattr(SyncToAsync, "__call__", counting)
    monkeypatch.setattr(django_asgi_app, "resolve_request", lambda request: _resolved(view))
    signals.request_started.connect(started)
    signals.request_finished.connect(finished)
    try:
        response = await _get("/accounts/login/")
    finally:
        signals.request_started.disconnect(started)
        signals.request_finished.disconnect(finished)
    assert response["status"] == 200 and response["body"] == b"ok"
    assert [name for name, _ in order] == ["started", "view", "finished"]
    assert len({thread for _, thread in order}) == 1 and hops == 1


def _resolved(view):
    from django.urls import ResolverMatch

    return ResolverMatch(view, (), {})


async def test_requests_reuse_their_threads_and_requests_at_once_get_one_each(monkeypatch):
    """No thread is started per request; two requests in flight never share one (each has its own connection)."""
    from vtt.asgi import django_asgi_app

    seen: list[int] = []
    inside = threading.Barrier(2, timeout=5)

    def one_by_one(request, *args, **kwargs):
        seen.append(threading.get_ident())
        return HttpResponse("ok")

    def together(request, *args, **kwargs):
        seen.append(threading.get_ident())
        inside.wait()  # both requests are in their views at the same moment
        return HttpResponse("ok")

    monkeypatch.setattr(django_asgi_app, "resolve_request", lambda request: _resolved(one_by_one))
    started = threading.active_count()
    for _ in range(5):
        assert (await _get("/accounts/login/"))["status"] == 200
    assert len(set(seen)) == 1 and threading.active_count() <= started + 1
    seen.clear()
    monkeypatch.setattr(django_asgi_app, "resolve_request", lambda request: _resolved(together))
    responses = await asyncio.gather(_get("/accounts/login/"), _get("/accounts/login/"))
    assert [r["status"] for r in responses] == [200, 200]
    assert len(set(seen)) == 2


async def test_at_most_request_threads_requests_run_their_views_at_once(monkeypatch, settings):
    """Requests over the limit wait their turn on the loop, and all of them are served."""
    from vtt.asgi import django_asgi_app

    settings.REQUEST_THREADS = 2
    inside = 0
    most = 0
    lock = threading.Lock()

    def view(request, *args, **kwargs):
        nonlocal inside, most
        with lock:
            inside += 1
            most = max(most, inside)
        threading.Event().wait(0.1)
        with lock:
            inside -= 1
        return HttpResponse("ok")

    monkeypatch.setattr(django_asgi_app, "resolve_request", lambda request: _resolved(view))
    responses = await asyncio.gather(*(_get("/accounts/login/") for _ in range(5)))
    assert [r["status"] for r in responses] == [200] * 5
    assert most == 2
    settings.REQUEST_THREADS = 0
    most = 0
    responses = await asyncio.gather(*(_get("/accounts/login/") for _ in range(5)))
    assert [r["status"] for r in responses] == [200] * 5 and most > 2  # no limit


# ---------------------------------------------------------------- issue 22, point 6: bodies past the limit


async def _post_counting(headers: list, chunk: bytes, chunks: int) -> tuple[int, int]:
    """POST ``chunks`` × ``chunk`` to the login page through the ASGI application; (status, chunks read)."""
    from vtt.asgi import application

    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": "/accounts/login/",
        "raw_path": b"/accounts/login/",
        "query_string": b"",
        "root_path": "",
        "headers": [*FORM, *headers],
        "client": ("203.0.113.5", 5000),
        "server": ("testserver", 80),
    }
    read = 0
    sent: list[dict] = []

    async def receive():
        nonlocal read
        read += 1
        return {"type": "http.request", "body": chunk, "more_body": read < chunks}

    async def send(message):
        sent.append(message)

    await asyncio.wait_for(application(scope, receive, send), timeout=30)
    return sent[0]["status"], read


async def test_point_6_a_30_mb_anonymous_body_is_refused_without_being_read(settings):
    from django.conf import settings as live

    megabyte = b"x" * (1024 * 1024)
    status, read = await _post_counting([(b"content-length", str(30 * len(megabyte)).encode())], megabyte, 30)
    assert status == 413 and read == 0  # its Content-Length said enough: not one chunk was read
    # Without a length (chunked), reading stops at the first chunk past the limit.
    status, read = await _post_counting([], megabyte, 30)
    assert status == 413
    assert read == live.REQUEST_MAX_BYTES // len(megabyte) + 1 < 30


async def test_a_body_within_the_limit_still_reaches_the_view():
    status, read = await _post_counting([(b"content-length", b"21")], b"username=a&password=b", 1)
    assert (status, read) == (403, 1)  # read whole, then refused for its missing CSRF token, as before


def test_point_6_the_limit_fits_the_largest_upload_and_the_readme_proxy_says_the_same():
    from pathlib import Path

    from django.conf import settings

    from vtt import images

    assert images.MAX_BYTES < settings.REQUEST_MAX_BYTES <= images.MAX_BYTES + 2 * 1024 * 1024
    readme = (Path(__file__).resolve().parents[2] / "docs" / "deploy.md").read_text()
    nginx = readme[readme.index("```nginx") : readme.index("```", readme.index("```nginx") + 3)]
    size = re.search(r"client_max_body_size (\d+)m;", nginx)
    assert size is not None and int(size[1]) * 1024 * 1024 == settings.REQUEST_MAX_BYTES


async def _both(path: str, method: str = "GET", body: bytes = b"", headers=HOST) -> list[dict]:
    """The same request through this project's handler and through Django's own ``ASGIHandler``."""
    from django.core.handlers.asgi import ASGIHandler

    from vtt.asgi import django_asgi_app

    out = []
    for app in (django_asgi_app, ASGIHandler()):
        communicator = HttpCommunicator(app, method, path, body=body, headers=list(headers))
        out.append(await communicator.get_response(timeout=10))
    return out


def _same_shape(response: dict) -> tuple:
    """Status, headers and body, less what differs between any two renders (CSP nonce, CSRF tokens, and
    a cookie's expiry date: the two renders may fall on either side of a second)."""
    per_render = re.compile(
        rb"(nonce|csrftoken|csrfmiddlewaretoken\" value|nonce-|X-CSRFToken\": )[=\"'-]*[A-Za-z0-9+/_-]{16,}"
        rb"|expires=[^;]+"
    )
    headers = sorted((k.lower(), per_render.sub(b"*", v)) for k, v in response["headers"])
    return response["status"], headers, per_render.sub(b"*", response["body"])


@pytest.mark.parametrize(
    ("path", "method", "body", "headers"),
    [
        ("/accounts/login/", "GET", b"", HOST),
        ("/accounts/login/", "POST", b"username=a&password=b", FORM),  # refused: no CSRF token
        ("/campaigns/", "GET", b"", HOST),  # a redirect to log in
        ("/no/such/page/", "GET", b"", HOST),
        ("/accounts/login/?next=%2Fcampaigns%2F", "HEAD", b"", HOST),
    ],
)
async def test_the_handler_answers_as_djangos_handler(path, method, body, headers):
    """Equivalence with the stock path: status, headers and body as Django's ``ASGIHandler`` gives them."""
    ours, django = await _both(path, method, body, headers)
    assert _same_shape(ours) == _same_shape(django)
    assert ours["status"] in (200, 302, 403, 404)
