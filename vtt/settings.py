"""Settings, entirely from environment variables.

Defaults give a single-process development server: a SQLite file beside the
project and the in-memory channel layer. ``DATABASE_URL`` selects PostgreSQL
(or any database dj-database-url understands), ``REDIS_URL`` selects the Redis
channel layer so several server processes share one table.
"""

from __future__ import annotations

import os
import sys
import warnings
from pathlib import Path

import dj_database_url
import django_stubs_ext
from csp.constants import NONCE, NONE, SELF
from django.core.exceptions import ImproperlyConfigured

from vtt.keyfile import kept_secret_key

# Lets the code write the generic types django-stubs checks (``ModelForm[Campaign]``, ``ModelAdmin[Battle]``)
# as class bases: it adds ``__class_getitem__`` to the Django classes that lack one at run time.
django_stubs_ext.monkeypatch()

BASE_DIR = Path(__file__).resolve().parent.parent


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None:
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_list(name: str, default: str) -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


RUNNING_TESTS = "pytest" in sys.modules or bool(os.environ.get("PYTEST_VERSION"))
DEV_SECRET_KEY = "dev-insecure-secret-key-do-not-use-in-production"
# The embedded server (``make run``, vtt/serve.py) sets VTT_EMBEDDED=1, and DEBUG=0 unless asked: one
# process on this machine or a home network, plain http, its secret key kept in DATA_DIR.
EMBEDDED = env_bool("VTT_EMBEDDED", False)
DATA_DIR = Path(os.environ.get("DATA_DIR") or BASE_DIR / "data")
DEBUG = env_bool("DEBUG", True)
SECRET_KEY = os.environ.get("SECRET_KEY") or ""  # set but empty counts as unset
if not SECRET_KEY and EMBEDDED:
    SECRET_KEY = kept_secret_key(DATA_DIR / "secret_key")  # made on the first start
SECRET_KEY = SECRET_KEY or DEV_SECRET_KEY
if SECRET_KEY == DEV_SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured("SECRET_KEY must be set when DEBUG is off (production).")
    if not RUNNING_TESTS:
        warnings.warn(
            "Using the development SECRET_KEY: set SECRET_KEY and DEBUG=0 in production.", stacklevel=1
        )

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", "127.0.0.1,localhost,testserver" if DEBUG else "")
# Proxies in front of the server whose X-Forwarded-For and X-Forwarded-Proto are believed (vtt.clientaddr):
# 0, the default, means the server faces the clients and those headers are ignored.
TRUSTED_PROXY_COUNT = int(os.environ.get("TRUSTED_PROXY_COUNT", "0"))
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", "")

INSTALLED_APPS = [
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "django_htmx",
    "template_partials",
    "channels",
    "axes",
    "csp",
    "vtt",
    "combat",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "vtt.forminput.FormInputMiddleware",  # NUL or over-long text in any form: one 400 page
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "csp.middleware.CSPMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    # Last, as django-axes asks: turns a locked-out login into its lockout response.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "vtt.urls"
ASGI_APPLICATION = "vtt.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "csp.context_processors.nonce",
            ],
        },
    },
    {
        # The battle's small pieces rendered on every change (``combat.jinja``); the pages are above.
        "BACKEND": "django.template.backends.jinja2.Jinja2",
        "DIRS": [BASE_DIR / "templates" / "jinja2"],
        "APP_DIRS": False,
        "OPTIONS": {"environment": "combat.jinja.environment"},
    },
]


def _conn_max_age(value: str) -> int | None:
    """Seconds a connection is kept ("persistent": for the life of its thread)."""
    return None if value == "persistent" else int(value)


DATABASE_URL = os.environ.get("DATABASE_URL", "")
if DATABASE_URL:
    # No persistent connection per thread (under ASGI each request context may run in a thread of
    # its own, and a kept connection per thread exhausts PostgreSQL's clients): on PostgreSQL a
    # request borrows a connection from Django's psycopg pool (DB_POOL=0: a new connection each
    # time, ~4-6 ms), up to DB_POOL_MAX per server process.
    max_age = int(os.environ.get("DB_CONN_MAX_AGE", "0"))
    DATABASES = {"default": dj_database_url.parse(DATABASE_URL, conn_max_age=max_age)}
    if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql" and env_bool("DB_POOL", True):
        DATABASES["default"]["CONN_MAX_AGE"] = 0  # the pool keeps the connections
        DATABASES["default"].setdefault("OPTIONS", {})["pool"] = {
            "min_size": int(os.environ.get("DB_POOL_MIN", "2")),
            "max_size": int(os.environ.get("DB_POOL_MAX", "20")),
            "timeout": float(os.environ.get("DB_POOL_TIMEOUT", "10")),
        }
else:
    DATABASES = {
        "default": {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": os.environ.get("SQLITE_PATH", str(BASE_DIR / "db.sqlite3")),
            # A file, not memory: browser tests serve the app from another process.
            # One file per test run (several runs may share a checkout); spawned children inherit it.
            "TEST": {
                "NAME": os.environ.setdefault(
                    "VTT_SQLITE_TEST_DB", str(BASE_DIR / f".test-db-{os.getpid()}.sqlite3")
                )
            },
            # One connection kept per thread (request threads are kept too, vtt/handlers.py):
            # opening one per request cost a connect, its PRAGMAs and Django's SQL functions.
            "CONN_MAX_AGE": _conn_max_age(os.environ.get("DB_CONN_MAX_AGE", "persistent")),
            "OPTIONS": {
                "timeout": 20,
                "transaction_mode": "IMMEDIATE",
                # WAL: readers don't wait for the writer, and a commit is not a full disk sync.
                "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
            },
        }
    }

REDIS_URL = os.environ.get("REDIS_URL", "")
if RUNNING_TESTS:
    # Test runs side by side (two checkouts, pytest-xdist's workers) may share one Redis and number
    # their battles alike: each run, and each worker of a run, keeps its keys and groups under a
    # prefix of its own. The processes a test spawns inherit it (the worker's name is already on it).
    _prefix = os.environ.get("CHANNEL_PREFIX") or f"vtt-test{os.getpid()}"
    _worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    if _worker and not _prefix.endswith(f"-{_worker}"):
        _prefix = f"{_prefix}-{_worker}"
    os.environ["CHANNEL_PREFIX"] = _prefix
if REDIS_URL:
    # Counters every process must share (sign-up throttling) live beside the channel layer.
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": os.environ.get("CHANNEL_PREFIX", "vtt") + "-cache",
        }
    }
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.pubsub.RedisPubSubChannelLayer",
            "CONFIG": {"hosts": [REDIS_URL], "prefix": os.environ.get("CHANNEL_PREFIX", "vtt")},
        },
        # Jobs for workers (``manage.py runworker --layer jobs odds``): the core layer's channels are
        # queues, so each job goes to ONE of the workers listening (pub/sub would give it to all).
        "jobs": {
            "BACKEND": "channels_redis.core.RedisChannelLayer",
            # A worker waits on a queue for 5 s at a time: its socket must not time out first.
            "CONFIG": {
                "hosts": [{"address": REDIS_URL, "socket_timeout": 30}],
                "prefix": os.environ.get("CHANNEL_PREFIX", "vtt") + "-jobs",
            },
        },
    }
else:
    # One queue per socket; a queue that fills is a client too slow to follow (it is dropped, see
    # SOCKET_SLOW_BACKLOG). The Redis pub/sub layer has no capacity: the consumer watches its backlog.
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "vtt.layers.InMemoryChannelLayer",  # Channels', swept once a second
            "CONFIG": {"capacity": 500, "expiry": 60},
        }
    }

# Encounter odds (combat/odds.py): who plays the fights. "pool": a process pool beside each server
# process, one worker per core (ODDS_PROCESSES, 0: every core); "worker": Channels workers started
# with ``manage.py runworker --layer jobs odds`` (needs REDIS_URL), on any machine.
ODDS_RUNNER = os.environ.get("ODDS_RUNNER", "pool")
if ODDS_RUNNER not in ("pool", "worker") or (ODDS_RUNNER == "worker" and not REDIS_URL):
    raise ImproperlyConfigured("ODDS_RUNNER is pool, or worker with REDIS_URL set.")
ODDS_LAYER = "jobs"
ODDS_PROCESSES = int(os.environ.get("ODDS_PROCESSES", "0"))
ODDS_FIGHTS = int(os.environ.get("ODDS_FIGHTS", "500"))
ODDS_STALE_SECONDS = float(os.environ.get("ODDS_STALE_SECONDS", "20"))
# The fair queue and the CPU budget of a job (combat/odds_queue.py): jobs a GM may have waiting, and
# the CPU seconds a job may spend (a base, a share per combatant, a cap).
ODDS_MAX_QUEUED = int(os.environ.get("ODDS_MAX_QUEUED", "3"))
ODDS_BUDGET_BASE = float(os.environ.get("ODDS_BUDGET_BASE", "20"))
ODDS_BUDGET_PER_FIGHTER = float(os.environ.get("ODDS_BUDGET_PER_FIGHTER", "6"))
ODDS_BUDGET_CAP = float(os.environ.get("ODDS_BUDGET_CAP", "90"))

# HTTP requests of one server process running their sync work (middleware and view) at once; the
# others wait their turn on the event loop. Twenty threads contending for one GIL cost more per
# request than four taking turns (0: no limit; see the README's performance section).
REQUEST_THREADS = int(os.environ.get("REQUEST_THREADS", "4"))

# Open battle sockets: per user per battle (a newer one closes the oldest), per client address (over
# every battle; a new one over the limit is refused), and the backlog after which a socket is dropped.
SOCKETS_PER_USER = int(os.environ.get("SOCKETS_PER_USER", "5"))
SOCKETS_PER_IP = int(os.environ.get("SOCKETS_PER_IP", "100"))
SOCKET_SLOW_BACKLOG = int(os.environ.get("SOCKET_SLOW_BACKLOG", "200"))

# Chat: a member sends at most CHAT_BURST_LINES lines in CHAT_BURST_SECONDS (a burst of rolls goes
# through) and CHAT_RATE_LINES in CHAT_RATE_SECONDS (a flood stops), over every campaign, and may change
# or delete their own line for CHAT_EDIT_SECONDS after sending it (a GM deletes any line).
CHAT_BURST_LINES = int(os.environ.get("CHAT_BURST_LINES", "12"))
CHAT_BURST_SECONDS = float(os.environ.get("CHAT_BURST_SECONDS", "10"))
CHAT_RATE_LINES = int(os.environ.get("CHAT_RATE_LINES", "30"))
CHAT_RATE_SECONDS = float(os.environ.get("CHAT_RATE_SECONDS", "60"))
CHAT_EDIT_SECONDS = int(os.environ.get("CHAT_EDIT_SECONDS", "300"))

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

# Login throttling (django-axes): after AXES_FAILURE_LIMIT failed logins for one
# username from one address, that pair is locked out for AXES_COOLOFF_TIME hours.
# Off by default under pytest only, because Django's test client ``login()``
# authenticates without a request, which axes refuses; tests/security turns it on.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AXES_ENABLED = env_bool("AXES_ENABLED", not RUNNING_TESTS)
# Tests create many users: a fast hasher keeps fixtures cheap (never outside tests).
if RUNNING_TESTS:
    PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
# Two limits (vtt.throttle): LOGIN_FAILURES_PER_ACCOUNT failures for one username from one address,
# and LOGIN_FAILURES_PER_IP failures from one address over every username (spraying many accounts).
LOGIN_FAILURES_PER_ACCOUNT = int(
    os.environ.get("LOGIN_FAILURES_PER_ACCOUNT", os.environ.get("AXES_FAILURE_LIMIT", "5"))
)
LOGIN_FAILURES_PER_IP = int(os.environ.get("LOGIN_FAILURES_PER_IP", "20"))
AXES_FAILURE_LIMIT = "vtt.throttle.failure_limit"
AXES_HANDLER = "vtt.throttle.LoginAttempts"
AXES_COOLOFF_TIME = float(os.environ.get("AXES_COOLOFF_TIME", "0.25"))  # hours
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"], "ip_address"]
AXES_RESET_ON_SUCCESS = True  # only that username's failures from that address (vtt.throttle)
AXES_LOCKOUT_TEMPLATE = None
AXES_VERBOSE = False
# The client's address for the lockout, the sign-up throttle and the socket caps (vtt.clientaddr).
AXES_CLIENT_IP_CALLABLE = "vtt.clientaddr.request_address"

# Sign-up attempts per client address per window (seconds): slows down guessing which names exist.
SIGNUP_LIMIT = int(os.environ.get("SIGNUP_LIMIT", "1000" if RUNNING_TESTS else "10"))
SIGNUP_WINDOW = int(os.environ.get("SIGNUP_WINDOW", "3600"))

LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "campaigns"
LOGOUT_REDIRECT_URL = "login"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = Path(os.environ.get("STATIC_ROOT", str(BASE_DIR / "staticfiles")))
STATICFILES_DIRS = [BASE_DIR / "static"]
# Production (and STATIC_MANIFEST=1): collectstatic writes hashed names plus gzip copies; whitenoise
# serves them compressed with a year's cache. Development serves the files as they are.
# The embedded server serves the files where they are (no collectstatic step before it starts).
STATIC_MANIFEST = env_bool("STATIC_MANIFEST", not DEBUG and not EMBEDDED)
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"
        if STATIC_MANIFEST
        else "django.contrib.staticfiles.storage.StaticFilesStorage"
    },
}
MEDIA_URL = "media/"
# Uploads (portraits, maps): never under static/. Served by vtt.media to campaign members only.
MEDIA_ROOT = Path(os.environ.get("MEDIA_ROOT", str(BASE_DIR / "media")))
MEDIA_STORAGE_URL = os.environ.get("MEDIA_STORAGE_URL", "")
if MEDIA_STORAGE_URL:
    from vtt.storage import storage_from_url

    STORAGES["default"] = storage_from_url(MEDIA_STORAGE_URL)
if any(MEDIA_ROOT.resolve().is_relative_to(Path(d).resolve()) for d in (*STATICFILES_DIRS, STATIC_ROOT)):
    raise ImproperlyConfigured("MEDIA_ROOT must not be inside the static files folders.")
# Uploads over this size wait in a temporary file, not in memory; vtt.images refuses anything over 10 MB.
FILE_UPLOAD_MAX_MEMORY_SIZE = 2 * 1024 * 1024

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# A request body is refused (413) past this many bytes before it is read (vtt.handlers): the largest
# upload (vtt.images.MAX_BYTES, 10 MB) and its form. The README's nginx block says the same.
REQUEST_MAX_BYTES = int(os.environ.get("REQUEST_MAX_BYTES", str(11 * 1024 * 1024)))

# Posted payloads are small: forms and battle actions.
DATA_UPLOAD_MAX_MEMORY_SIZE = int(os.environ.get("DATA_UPLOAD_MAX_MEMORY_SIZE", str(256 * 1024)))
DATA_UPLOAD_MAX_NUMBER_FIELDS = 400

# HTTPS hardening (redirect, secure cookies, HSTS): on whenever DEBUG is off, except on the embedded
# server, which serves plain http on 127.0.0.1 and a home network unless HTTPS=1 (a TLS proxy in front).
HTTPS = env_bool("HTTPS", not DEBUG and not EMBEDDED)
if HTTPS:
    SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", True)
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_HSTS_SECONDS = int(os.environ.get("SECURE_HSTS_SECONDS", "31536000"))
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", True)
if TRUSTED_PROXY_COUNT > 0:  # the trusted proxy says whether the browser used HTTPS
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
# Content-Security-Policy (django-csp): scripts only from this site (or with the request's nonce), no
# inline <style> elements, no plugins, no framing, forms and sockets to this site only. Inline style
# attributes stay allowed: the board positions tokens and sizes health bars with them (htmx swaps them in).
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF, NONCE],
        "style-src": [SELF],
        "style-src-attr": ["'unsafe-inline'"],
        "img-src": [SELF, "data:"],
        "font-src": [SELF],
        "connect-src": [SELF],
        "object-src": [NONE],
        "base-uri": [NONE],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
    },
}
SESSION_COOKIE_HTTPONLY = True
# Django's database sessions: a logout or a removed row ends a session for every process at once, and
# no request needs Redis. Django's cached_db on the Redis cache was tried: when Redis is down it writes
# the cache unguarded on every session read, and every page answers 500 (tests/e2e/test_faults.py's
# Redis restart), where the table should only lose its pushes (docs/performance.md).
SESSION_ENGINE = "django.contrib.sessions.backends.db"
# No script reads the CSRF cookie: pages send the token from the template (base.html's hx-headers).
CSRF_COOKIE_HTTPONLY = True

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {
        "client_gone": {"()": "vtt.logfilters.ClientGone"},
        "refused_one_line": {"()": "vtt.logfilters.RefusedOneLine"},
    },
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "WARNING")},
    "loggers": {
        # Sockets closed by their clients: cancelled mid clean-up, or sent to as they leave: not an
        # error (vtt.logfilters).
        "channels_redis.pubsub": {"filters": ["client_gone"]},
        "daphne.server": {"filters": ["client_gone"]},
        "combat.fanout": {"filters": ["client_gone"]},
        # A refused request is one line, without a traceback (vtt.logfilters).
        **{
            name: {"filters": ["refused_one_line"]}
            for name in (
                "django.request",
                "django.security.csrf",
                "django.security.DisallowedHost",
                "django.security.RequestDataTooBig",
                "django.security.TooManyFieldsSent",
                "django.security.TooManyFilesSent",
                "django.security.SuspiciousMultipartForm",
                "django.security.SuspiciousOperation",
            )
        },
    },
}

# Development and the embedded server: serve static files straight from the finders (no collectstatic step).
WHITENOISE_USE_FINDERS = (DEBUG or EMBEDDED) and not STATIC_MANIFEST
WHITENOISE_AUTOREFRESH = DEBUG and not STATIC_MANIFEST
