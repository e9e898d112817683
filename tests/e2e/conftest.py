"""Browser tests: a real ASGI server (daphne, spawned process) and Debian's Chromium.

Run in their own pytest process (``make test`` does): sync Playwright cannot
share an event loop with pytest-asyncio tests. Screenshots go to
``tests/e2e/artifacts/`` (ignored by git).
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import pathlib
import shutil
from functools import partial

import pytest

from tests.conftest import need_service

os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

CHROMIUM = os.environ.get("VTT_CHROMIUM", "/usr/bin/chromium")  # make test passes its CHROMIUM
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]
ARTIFACTS = pathlib.Path(__file__).resolve().parent / "artifacts"


def shots_folder() -> pathlib.Path | None:
    """Where screenshots asked for with ``VTT_SHOTS`` go: ``1`` for tests/e2e/artifacts/, or a folder's
    path; None when it is unset (or ``0``)."""
    value = os.environ.get("VTT_SHOTS", "")
    if value in ("", "0"):
        return None
    return ARTIFACTS if value == "1" else pathlib.Path(value)


PHONE = {"width": 390, "height": 844}
LAPTOP = {"width": 1280, "height": 800}


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    if not shutil.which(CHROMIUM) and not os.path.exists(CHROMIUM):
        need_service(f"Chromium is not installed at {CHROMIUM}")
    return {**browser_type_launch_args, "executable_path": CHROMIUM, "args": CHROMIUM_ARGS}


class Server:
    """A daphne process serving the whole ASGI app (HTTP + websockets) on 127.0.0.1.

    ``restart()`` stops it and starts a new process on the same port, so open
    pages reconnect to the same address. ``env`` is applied while the child
    is spawned (it reads its settings from the environment, e.g. REDIS_URL).
    """

    def __init__(self, env: dict[str, str] | None = None, static_handler: bool = True) -> None:
        # Its own channel prefix: pages of this server never see another test run's pushes on a shared Redis.
        self.env = {"CHANNEL_PREFIX": f"e2e{os.getpid()}", **(env or {})}
        # False: static files come from the app's own middleware (whitenoise), as in production.
        self.static_handler = static_handler
        self.port: int | None = None
        self.proc = None
        self.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        from channels.testing.live import make_application, set_database_connection
        from daphne.testing import DaphneProcess
        from django.contrib.staticfiles.handlers import ASGIStaticFilesHandler

        multiprocessing.set_start_method("spawn", force=True)
        proc = DaphneProcess(
            "127.0.0.1",
            partial(make_application, static_wrapper=ASGIStaticFilesHandler if self.static_handler else None),
            setup=set_database_connection,
            port=self.port,
        )
        proc.daemon = True
        saved = {k: os.environ.get(k) for k in self.env}
        os.environ.update(self.env)
        try:
            proc.start()
        finally:
            for k, v in saved.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v
        if not proc.ready.wait(timeout=30):
            proc.terminate()
            pytest.fail("ASGI test server did not start")
        if not proc.errors.empty():  # pragma: no cover - startup error in the child
            pytest.fail(f"ASGI test server failed: {proc.errors.get()}")
        self.proc, self.port = proc, proc.port.value

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.terminate()
            self.proc.join(timeout=10)
            if self.proc.is_alive():  # pragma: no cover - a stuck child
                self.proc.kill()
                self.proc.join(timeout=5)
            self.proc = None

    def restart(self) -> None:
        self.stop()
        self.start()


@pytest.fixture
def live_server_process(transactional_db):
    """A restartable ASGI server (see ``Server``)."""
    server = Server()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def asgi_server(live_server_process):
    """The base URL of a real ASGI server (daphne, spawned process)."""
    return live_server_process.url


@pytest.fixture
def shot():
    """shot(page, name): save a screenshot into tests/e2e/artifacts/."""
    ARTIFACTS.mkdir(exist_ok=True)

    def _shot(page, name: str) -> pathlib.Path:
        path = ARTIFACTS / f"{name}.png"
        page.screenshot(path=str(path), full_page=True)
        return path

    return _shot


# Pages a test opened itself (tests/e2e/seats.py registers each seat): shot on failure too.
OPEN_PAGES: list[tuple[str, object]] = []


@pytest.fixture(autouse=True)
def _forget_open_pages():
    yield
    OPEN_PAGES.clear()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.when == "call" and report.failed:
        ARTIFACTS.mkdir(exist_ok=True)
        for name, page in OPEN_PAGES:
            with contextlib.suppress(Exception):  # best effort on failure
                page.screenshot(path=str(ARTIFACTS / f"FAILED-{item.name}-{name}.png"), full_page=True)
        for name, value in item.funcargs.items():
            screenshot = getattr(value, "screenshot", None)
            if callable(screenshot) and hasattr(value, "goto"):
                with contextlib.suppress(Exception):  # best effort on failure
                    screenshot(path=str(ARTIFACTS / f"FAILED-{item.name}-{name}.png"), full_page=True)


@pytest.fixture(autouse=True)
def _media_in_a_temporary_folder(tmp_path_factory, settings):
    """Uploads go to a folder of this test, the same for the test process and the servers it spawns."""
    folder = str(tmp_path_factory.mktemp("media"))
    saved = os.environ.get("MEDIA_ROOT")
    os.environ["MEDIA_ROOT"] = folder
    settings.MEDIA_ROOT = folder
    from combat.table import FACES

    FACES.clear()
    yield folder
    if saved is None:
        os.environ.pop("MEDIA_ROOT", None)
    else:
        os.environ["MEDIA_ROOT"] = saved
