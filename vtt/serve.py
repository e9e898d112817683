"""The embedded server: what ``make run`` starts (``python -m vtt.serve``).

One process on this machine or a home network, as a product rather than a developer's server:

- DEBUG off unless ``DEBUG=1`` (a missing page shows the site's 404, never the URL list); the secret
  key made on the first start and kept in ``DATA_DIR`` (``data/``, ignored by git); plain http, no
  HTTPS redirect or secure-only cookies unless ``HTTPS=1`` (``vtt.settings``); static files served by
  whitenoise from where they are.
- It listens on ``HOST`` (default 127.0.0.1: this computer only) and ``PORT`` (8000). ``HOST=0.0.0.0``
  lets the home network in; ``ALLOWED_HOSTS`` then defaults to this machine's names and addresses.
- Before anything else, each setting that cannot work is said in one line naming the cause and the
  fix, and the process exits with status 2: a port already in use, a ``DATABASE_URL`` that is no
  database URL or whose server does not answer (``CONNECT_SECONDS``), a SQLite file or data folder
  that cannot be written. No traceback, no retry.
- Then: migrate, the demo (``seed_demo``), ``cleanup_trials`` (and again every hour), and daphne in
  this process.
"""

from __future__ import annotations

import contextlib
import errno
import os
import socket
import sqlite3
import sys
import tempfile
import threading
from collections.abc import Callable, Mapping, MutableMapping
from functools import partial
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

BASE_DIR = Path(__file__).resolve().parent.parent
CONNECT_SECONDS = 1.5  # a database server that has not answered by then is reported, not waited for
CLEANUP_EVERY = 3600.0  # seconds between two runs of cleanup_trials while the server runs
LOCAL_HOSTS = ("127.0.0.1", "localhost", "[::1]")
ANY_ADDRESS = ("0.0.0.0", "::", "")


class Refused(Exception):
    """A setting that cannot work: ``str()`` is the one line that says the cause and the fix."""


# ------------------------------------------------------------------ what to listen on


def listen_address(env: MutableMapping[str, str]) -> tuple[str, int]:
    host = env.get("HOST", "127.0.0.1").strip()
    raw = env.get("PORT", "8000").strip()
    if not raw.isdigit() or not 0 < int(raw) < 65536:
        raise Refused(
            f"PORT={raw!r} is not a port number: use one from 1024 to 65535, e.g. PORT=8001 make run"
        )
    return host, int(raw)


def check_port(host: str, port: int) -> None:
    """The address can be listened on now (a server already there is reported, not waited for)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(
            socket.SOL_SOCKET, socket.SO_REUSEADDR, 1
        )  # as daphne does: TIME_WAIT is no obstacle
        try:
            probe.bind((host, port))
        except socket.gaierror:
            raise Refused(
                f"HOST={host!r} is no address of this machine: use HOST=127.0.0.1 (this computer only) "
                "or HOST=0.0.0.0 (your home network too)"
            ) from None
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                raise Refused(
                    f"Port {port} on {host} is already in use (another server?): stop it, or choose another "
                    f"port: PORT={port + 1} make run"
                ) from None
            if exc.errno == errno.EACCES:
                raise Refused(
                    f"Port {port} needs administrator rights: choose a port from 1024 up, e.g. PORT=8000 make run"
                ) from None
            raise Refused(
                f"Cannot listen on {host}:{port} ({exc.strerror}): use HOST=127.0.0.1 or HOST=0.0.0.0"
            ) from None


def lan_addresses() -> list[str]:
    """This machine's addresses on its networks (the one toward the internet first), without sending anything."""
    found: list[str] = []
    with contextlib.suppress(OSError), socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as udp:
        udp.connect(("192.0.2.1", 9))  # a documentation address: connecting a UDP socket sends no packet
        found.append(udp.getsockname()[0])
    with contextlib.suppress(OSError):
        for info in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET):
            address = str(info[4][0])
            if address not in found and not address.startswith("127."):
                found.append(address)
    return found


def allowed_hosts(host: str) -> list[str]:
    """The names a browser may use for this server: this computer's, and on a home network its own."""
    names = list(LOCAL_HOSTS)
    if host in ANY_ADDRESS:
        hostname = socket.gethostname()
        names += [hostname, f"{hostname}.local", *lan_addresses()]
    elif host not in names:
        names.append(host)
    return list(dict.fromkeys(names))


# ------------------------------------------------------------------ the database


def check_database(env: MutableMapping[str, str]) -> None:
    url = env.get("DATABASE_URL", "").strip()
    if not url:
        check_sqlite(Path(env.get("SQLITE_PATH") or BASE_DIR / "db.sqlite3"), "SQLITE_PATH")
        return
    import dj_database_url

    shown = _without_password(url)
    try:
        config = dj_database_url.parse(url)
    except Exception as exc:  # noqa: BLE001 - any parse failure is the same mistake
        raise Refused(
            f"DATABASE_URL={shown!r} is no database URL ({type(exc).__name__}): use "
            "postgres://user:password@host:5432/name, or unset it for the embedded SQLite database"
        ) from None
    engine = str(config.get("ENGINE", ""))
    if engine.endswith("sqlite3"):
        check_sqlite(Path(str(config["NAME"])), "DATABASE_URL")
    elif engine.endswith("postgresql"):
        check_postgres(config, shown)
    else:
        raise Refused(
            f"DATABASE_URL={shown!r} names a database this server does not ship a driver for: use PostgreSQL "
            "(postgres://user:password@host:5432/name), or unset it for the embedded SQLite database"
        )


def _without_password(url: str) -> str:
    parts = urlsplit(url)
    if parts.password is None:
        return url
    return url.replace(f":{parts.password}@", ":***@", 1)


def check_postgres(config: Mapping[str, Any], shown: str) -> None:
    """The server answers and lets the user in, within ``CONNECT_SECONDS`` (it is not waited for longer)."""
    host, port = str(config.get("HOST") or ""), int(config.get("PORT") or 5432)
    if host and not host.startswith("/"):  # a network address: nobody there is said before loading the driver
        try:
            socket.create_connection((host, port), timeout=CONNECT_SECONDS).close()
        except OSError as exc:
            reason = "it does not answer" if isinstance(exc, TimeoutError) else exc.strerror or str(exc)
            raise Refused(
                f"Cannot reach the database of DATABASE_URL={shown!r} at {host}:{port} ({reason}): start it, "
                "fix DATABASE_URL, or unset it for the embedded SQLite database"
            ) from None
    import psycopg

    def connect() -> None:
        psycopg.connect(
            dbname=config.get("NAME") or None,
            user=config.get("USER") or None,
            password=config.get("PASSWORD") or None,
            host=config.get("HOST") or None,
            port=config.get("PORT") or None,
            connect_timeout=2,
        ).close()

    outcome: list[BaseException | None] = []

    def attempt() -> None:
        try:
            connect()
        except BaseException as exc:  # noqa: BLE001 - handed to the waiting thread below
            outcome.append(exc)
        else:
            outcome.append(None)

    # A daemon thread: a server that never answers is not waited for, not even at exit.
    worker = threading.Thread(target=attempt, name="db-check", daemon=True)
    worker.start()
    worker.join(CONNECT_SECONDS)
    if not outcome:
        raise Refused(
            f"The database of DATABASE_URL={shown!r} does not answer: start it, check the host and port, "
            "or unset DATABASE_URL for the embedded SQLite database"
        )
    error = outcome[0]
    if error is not None:
        reason = " ".join(str(error).split())[:200]
        raise Refused(
            f"Cannot connect to the database of DATABASE_URL={shown!r} ({reason}): fix DATABASE_URL, "
            "or unset it for the embedded SQLite database"
        )


def check_sqlite(path: Path, setting: str) -> None:
    """The file (and its folder, where SQLite keeps its journal) can be written."""
    folder = path.parent
    fix = f"choose a writable file with {setting}=/path/to/vtt.sqlite3, or make {folder} writable"
    if not folder.is_dir():
        what = "is not a folder" if folder.exists() else "does not exist"
        raise Refused(f"Cannot write the SQLite database {path}: {folder} {what}: {fix}")
    try:
        with tempfile.TemporaryFile(dir=folder):
            pass
        db = sqlite3.connect(path, timeout=1)
        try:
            db.execute("BEGIN IMMEDIATE")
            db.execute("ROLLBACK")
        finally:
            db.close()
    except (OSError, sqlite3.Error) as exc:
        reason = getattr(exc, "strerror", None) or str(exc)
        raise Refused(f"Cannot write the SQLite database {path} ({reason}): {fix}") from None


def check_data_dir(env: MutableMapping[str, str]) -> None:
    """The data folder can keep the secret key (only needed when SECRET_KEY is not given)."""
    if env.get("SECRET_KEY"):
        return
    folder = Path(env.get("DATA_DIR") or BASE_DIR / "data")
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as exc:
        raise Refused(
            f"Cannot keep the secret key in {folder} ({exc.strerror}): make it writable, choose another "
            "folder with DATA_DIR=/path, or set SECRET_KEY"
        ) from None


# ------------------------------------------------------------------ start


def prepare(env: MutableMapping[str, str]) -> tuple[str, int]:
    """Check every setting, then fill in the embedded server's defaults; returns (host, port)."""
    host, port = listen_address(env)
    check_port(host, port)
    check_database(env)
    check_data_dir(env)
    env.setdefault("DEBUG", "0")
    env.setdefault("VTT_EMBEDDED", "1")
    env.setdefault("DJANGO_SETTINGS_MODULE", "vtt.settings")
    env.setdefault("ALLOWED_HOSTS", ",".join(allowed_hosts(host)))
    return host, port


def every(seconds: float, job: Callable[[], object]) -> threading.Event:
    """Run ``job`` every ``seconds`` on a thread of its own until the returned event is set."""
    stop = threading.Event()

    def loop() -> None:
        from django.db import connections

        while not stop.wait(seconds):
            try:
                job()
            except Exception as exc:  # noqa: BLE001 - a failed clean-up must not stop the server
                print(f"cleanup_trials failed: {exc}", file=sys.stderr)
            finally:
                connections.close_all()

    threading.Thread(target=loop, name="cleanup-trials", daemon=True).start()
    return stop


def start(host: str, port: int) -> None:
    import django
    from django.core.management import call_command

    django.setup()
    from django.conf import settings

    Path(settings.STATIC_ROOT).mkdir(parents=True, exist_ok=True)  # whitenoise looks there too (empty here)
    call_command("migrate", interactive=False, verbosity=0)
    call_command("seed_demo")
    call_command("cleanup_trials")
    every(CLEANUP_EVERY, partial(call_command, "cleanup_trials"))
    shown = "localhost" if host in ("127.0.0.1", "localhost", *ANY_ADDRESS) else host
    print(f"Serving on http://{shown}:{port} (Ctrl-C to stop).")
    if host in ANY_ADDRESS:
        urls = (
            " or ".join(f"http://{a}:{port}" for a in lan_addresses())
            or f"this computer's address, port {port}"
        )
        print(f"On your home network, phones open {urls}.")
    from daphne.cli import CommandLineInterface  # type: ignore[import-untyped]  # daphne ships no types

    CommandLineInterface().run(["-b", host or "0.0.0.0", "-p", str(port), "vtt.asgi:application"])


def main() -> int:
    try:
        host, port = prepare(os.environ)
        start(host, port)
    except Refused as exc:
        print(f"make run: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 0
    except Exception as exc:  # noqa: BLE001 - a setting found wrong later still gets one line
        if os.environ.get("DEBUG") == "1":
            raise
        reason = " ".join(str(exc).split())[:300]
        print(
            f"make run: the server could not start: {type(exc).__name__}: {reason} (DEBUG=1 make run shows where)",
            file=sys.stderr,
        )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
