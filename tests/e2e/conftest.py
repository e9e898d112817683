"""Browser tests: a real ASGI server (daphne, spawned process) and Debian's Chromium.

Run in their own pytest process (``make test`` does): sync Playwright cannot
share an event loop with pytest-asyncio tests.

One server serves the whole run (``asgi_server``); each test still gets an empty database
(``transactional_db``) and the pages it opened are closed before the next test. Ids never repeat
within a run, so the server's caches need no emptying. Tests that stop, restart or configure their
server start their own (``live_server_process``, ``Server(env=...)``).

Screenshots that no test reads are taken only with ``VTT_SHOTS`` set: ``VTT_SHOTS=1`` puts them in
``tests/e2e/artifacts/`` (ignored by git), any other value names the folder. A failing test's
pages are always shot into ``tests/e2e/artifacts/``.
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
from tests.servers import same_database

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
#: The name of a test report's user property holding a line for the run's summary (the counts of
#: tests/e2e/test_table_flow.py and the tap-accuracy test), printed by ``pytest_terminal_summary``.
FLOW_LINE = "summary-line"
LAPTOP = {"width": 1280, "height": 800}


SHOTS = shots_folder()


def save_shot(page, name: str, full_page: bool = True) -> pathlib.Path | None:
    """Save a screenshot of ``page`` as <name>.png into the VTT_SHOTS folder; nothing when it is not set."""
    if SHOTS is None:
        return None
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=full_page)
    return path


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
        from channels.testing.live import make_application
        from daphne.testing import DaphneProcess
        from django.contrib.staticfiles.handlers import ASGIStaticFilesHandler

        multiprocessing.set_start_method("spawn", force=True)
        proc = DaphneProcess(
            "127.0.0.1",
            partial(make_application, static_wrapper=ASGIStaticFilesHandler if self.static_handler else None),
            setup=same_database(),
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
    """A server of the test's own, restartable (see ``Server``)."""
    server = Server()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def _session_server(django_db_setup, _session_media):
    """The server of the whole run: started once the test database exists, stopped before it goes."""
    server = Server()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def asgi_server(request, _session_server, transactional_db):
    """The base URL of a real ASGI server (daphne, spawned process), shared by the tests of the run.

    The browser contexts a test opens are closed when it ends, before its data is flushed: no page
    of one test talks to the server during the next.
    """
    if _session_server.proc is None or not _session_server.proc.is_alive():  # pragma: no cover
        _session_server.start()
    browser = request.getfixturevalue("browser") if "browser" in request.fixturenames else None
    before = set(browser.contexts) if browser is not None else set()
    yield _session_server.url
    if browser is not None:
        for context in browser.contexts:
            if context not in before:
                with contextlib.suppress(Exception):  # already closed by the test
                    context.close()


@pytest.fixture
def shot():
    """shot(page, name): save a screenshot (only with VTT_SHOTS set, see ``save_shot``)."""
    return save_shot


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


@pytest.fixture(scope="session")
def _session_media(tmp_path_factory):
    """One media folder for the run, the same for the test process and every server it spawns."""
    folder = str(tmp_path_factory.mktemp("media"))
    saved = os.environ.get("MEDIA_ROOT")
    os.environ["MEDIA_ROOT"] = folder
    yield folder
    if saved is None:
        os.environ.pop("MEDIA_ROOT", None)
    else:
        os.environ["MEDIA_ROOT"] = saved


@pytest.fixture(autouse=True)
def _media_in_a_temporary_folder(_session_media, settings):
    """Uploads go to the run's media folder (ids never repeat within a run, nor do their files)."""
    settings.MEDIA_ROOT = _session_media
    from combat.table import FACES

    FACES.clear()
    yield _session_media
    FACES.clear()


def pytest_terminal_summary(terminalreporter):
    """The figures the tests measured, one line each after the run, read from the reports so lines from
    pytest-xdist's workers are printed too: the table flow's and the taps' (``FLOW_LINE``:
    ``table-flow ruleset=<key> GM clicks=<N> player taps=<M> fields=<K>``), then the sit-down tests'
    (their ``sitdown`` property, tests/e2e/sitdown.py: ``join ruleset=<key> player taps=<N> ...``)."""
    for key, title in ((FLOW_LINE, "counts"), ("sitdown", "sit down and play")):
        lines = [
            value
            for reports in terminalreporter.stats.values()
            for report in reports
            if getattr(report, "when", None) == "call"
            for name, value in getattr(report, "user_properties", ())
            if name == key
        ]
        if lines:
            terminalreporter.write_sep("-", title)
            for line in sorted(lines):
                terminalreporter.write_line(line)
