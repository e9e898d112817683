"""``make run`` as the product's embedded server (issue 37): runtime dependencies only, DEBUG off with a
secret key kept in the data folder, plain http, and one line for each setting that cannot work.

The commands run for real in subprocesses (``python -m vtt.serve`` is what ``make run`` runs once its
runtime install is done), with a database, data folder and port of their own.
"""

from __future__ import annotations

import os
import re
import socket
import stat
import subprocess
import sys
import time
import urllib.error
import urllib.request
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement

from vtt import serve
from vtt.keyfile import kept_secret_key

ROOT = Path(__file__).resolve().parents[1]
DEV_TOOLS = {"pytest", "playwright", "pytest-playwright", "mypy", "ruff", "hypothesis", "py-spy", "granian"}


def _name(requirement: str) -> str:
    return Requirement(requirement).name.lower().replace("_", "-")


def runtime_closure(root: str = "vtt") -> set[str]:
    """Every distribution the project needs at run time: its requirements without extras, and theirs."""
    seen: set[str] = set()
    todo = [root]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        for text in metadata.requires(name) or []:
            requirement = Requirement(text)
            if requirement.marker is not None and not requirement.marker.evaluate({"extra": ""}):
                continue  # an extra's (dev, servers, s3) or another platform's
            todo.append(_name(text))
    return seen


def makefile_rule(target: str) -> tuple[str, str]:
    """(prerequisites, recipe) of ``target`` in the Makefile."""
    text = (ROOT / "Makefile").read_text()
    found = re.search(rf"^{re.escape(target)}:([^\n]*)\n((?:\t[^\n]*\n)*)", text, re.M)
    assert found, f"no rule for {target}"
    return found.group(1), found.group(2)


def test_make_run_installs_the_runtime_dependencies_only():
    prerequisites, recipe = makefile_rule("run")
    assert prerequisites.split() == ["runtime"] and "-m vtt.serve" in recipe
    assert makefile_rule("runtime")[0].split() == ["$(VENV)/.runtime"]
    _, install = makefile_rule("$(VENV)/.runtime")
    assert "$(RUNTIME_INSTALL)" in install
    assert re.search(r"^RUNTIME_INSTALL := -e \.$", (ROOT / "Makefile").read_text(), re.M)
    needed = runtime_closure()
    assert {"django", "daphne", "channels", "whitenoise"} <= needed
    assert needed & DEV_TOOLS == set(), "the server's install would bring test or lint tools"
    # While the dev install (`make test`) does bring them: the check above can fail.
    dev = {_name(r) for r in metadata.requires("vtt") or [] if 'extra == "dev"' in r}
    assert {"pytest", "playwright", "mypy"} <= dev


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    """The environment of a fresh start: no test settings, SQLite and a data folder in ``tmp_path``."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("PYTEST", "DEBUG", "SECRET_KEY", "ALLOWED_HOSTS", "REDIS_URL", "HTTPS"))
    }
    env.pop("HOST", None)  # 127.0.0.1 by default
    env.update(DATABASE_URL="", SQLITE_PATH=str(tmp_path / "vtt.sqlite3"), DATA_DIR=str(tmp_path / "data"))
    env.update(extra)
    return env


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _said(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "vtt.serve"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=30
    )


@pytest.mark.parametrize("case", ["database url", "database server", "sqlite path", "busy port"])
def test_each_setting_that_cannot_work_is_one_line_with_its_cause_and_fix(tmp_path, case):
    port = _free_port()
    env = _env(tmp_path, PORT=str(port))
    holder = None
    if case == "database url":
        env["DATABASE_URL"] = "postgress//vtt@db/vtt"
        cause, fix = "is no database URL", "postgres://user:password@host:5432/name"
    elif case == "database server":
        env["DATABASE_URL"] = f"postgres://vtt:hunter2@127.0.0.1:{_free_port()}/vtt"
        cause, fix = (
            "Cannot reach the database of DATABASE_URL",
            "unset it for the embedded SQLite database",
        )
    elif case == "sqlite path":
        (tmp_path / "a-file").write_text("")
        env["SQLITE_PATH"] = str(tmp_path / "a-file" / "vtt.sqlite3")
        cause, fix = "Cannot write the SQLite database", "SQLITE_PATH=/path/to/vtt.sqlite3"
    else:
        holder = socket.socket()
        holder.bind(("127.0.0.1", port))
        holder.listen()
        cause, fix = f"Port {port} on 127.0.0.1 is already in use", f"PORT={port + 1} make run"
    try:
        # At once: before anything is written, and without retries (the bound on the database's answer is
        # test_a_database_server_is_asked_once_and_not_waited_for; bench/serve_refusals.py times each case).
        proc = _said(env)
        lines = proc.stderr.strip().splitlines()
        assert proc.returncode == 2 and len(lines) == 1, proc.stderr
        assert cause in lines[0] and fix in lines[0], lines[0]
        assert "hunter2" not in lines[0]  # a password in the URL is never printed
        assert "Traceback" not in proc.stdout + proc.stderr
        assert not (tmp_path / "vtt.sqlite3").exists()  # said before anything was written
    finally:
        if holder is not None:
            holder.close()


def test_a_database_server_is_asked_once_and_not_waited_for(monkeypatch):
    """One connection attempt, bounded by CONNECT_SECONDS; a server that accepts and then never answers
    is reported once that bound has passed (the attempt is left to a daemon thread, never joined)."""
    tries: list[float] = []

    def refuse(address: tuple[str, int], timeout: float) -> None:
        tries.append(timeout)
        raise ConnectionRefusedError(111, "Connection refused")

    monkeypatch.setattr(serve.socket, "create_connection", refuse)
    with pytest.raises(serve.Refused, match="Cannot reach the database"):
        serve.check_postgres({"HOST": "127.0.0.1", "PORT": 1}, "postgres://vtt@127.0.0.1:1/vtt")
    assert tries == [serve.CONNECT_SECONDS] and serve.CONNECT_SECONDS <= 2

    import threading

    import psycopg

    hang = threading.Event()
    monkeypatch.setattr(serve.socket, "create_connection", lambda address, timeout: socket.socket())
    monkeypatch.setattr(psycopg, "connect", lambda **kwargs: hang.wait())
    monkeypatch.setattr(serve, "CONNECT_SECONDS", 0.05)
    try:
        with pytest.raises(serve.Refused, match="does not answer"):
            serve.check_postgres({"HOST": "127.0.0.1", "PORT": 1}, "postgres://vtt@127.0.0.1:1/vtt")
        waiting = [t for t in threading.enumerate() if t.name == "db-check"]
        assert waiting and all(t.daemon for t in waiting)
    finally:
        hang.set()


def test_the_run_settings_serve_plain_http_with_the_sites_own_404(tmp_path):
    port = _free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "vtt.serve"],
        cwd=ROOT,
        env=_env(tmp_path, PORT=str(port)),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        home = _wait_for(base + "/", server)
        assert "Try a battle" in home.read().decode()
        with pytest.raises(urllib.error.HTTPError) as missing:
            urllib.request.urlopen(base + "/no-such-page/", timeout=5)
        body = missing.value.read().decode()
        assert missing.value.code == 404
        assert "URLconf" not in body and "urlpatterns" not in body and "admin/" not in body
        css = urllib.request.urlopen(base + "/static/css/app.css", timeout=5)
        assert css.status == 200 and b"--color-accent" in css.read()  # static files, by whitenoise
        login = urllib.request.urlopen(base + "/accounts/login/", timeout=5)
        assert login.url == base + "/accounts/login/"  # no redirect to https
        cookie = login.headers.get("Set-Cookie", "")
        assert "csrftoken=" in cookie and "Secure" not in cookie  # works over plain http
        key = tmp_path / "data" / "secret_key"
        assert len(key.read_text().strip()) >= 50 and stat.S_IMODE(key.stat().st_mode) == 0o600
    finally:
        server.terminate()
        out, _ = server.communicate(timeout=20)
    assert "gm / gm-demo-pass" in out and "Traceback" not in out


def _wait_for(url: str, server: subprocess.Popen[str], seconds: float = 90.0):
    """The first answer of a server that is migrating and loading the demo (a new database each time)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if server.poll() is not None:
            pytest.fail(f"the server stopped: {server.stdout.read() if server.stdout else ''}")
        try:
            return urllib.request.urlopen(url, timeout=5)
        except (urllib.error.URLError, ConnectionError):
            time.sleep(0.2)
    pytest.fail(f"no answer from {url} in {seconds} s")


def test_the_secret_key_is_made_once_and_kept(tmp_path):
    path = tmp_path / "data" / "secret_key"
    first = kept_secret_key(path)
    assert kept_secret_key(path) == first and path.read_text().strip() == first
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700


def test_the_server_listens_on_this_computer_unless_host_says_otherwise():
    assert serve.listen_address({}) == ("127.0.0.1", 8000)
    assert serve.listen_address({"HOST": "0.0.0.0", "PORT": "8123"}) == ("0.0.0.0", 8123)
    assert serve.allowed_hosts("127.0.0.1") == ["127.0.0.1", "localhost", "[::1]"]
    home = serve.allowed_hosts("0.0.0.0")
    assert socket.gethostname() in home and f"{socket.gethostname()}.local" in home
    assert serve.allowed_hosts("192.168.1.20")[-1] == "192.168.1.20"
    with pytest.raises(serve.Refused, match="is not a port number"):
        serve.listen_address({"PORT": "80a"})
