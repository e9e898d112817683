# Two commands do all set-up: `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PYTEST := $(VENV)/bin/pytest
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: install runtime run test test-fast test-e2e lint rules bench bench-push profile migrate browser-deps

# What the server needs and nothing else (no test, lint or benchmark tools): `make run`.
RUNTIME_INSTALL := -e .
# `make test`, `make lint` and the benchmarks add the dev extras and the ASGI servers bench/ compares.
DEV_INSTALL := -e ".[dev,servers]"

$(VENV)/.runtime: pyproject.toml requirements.lock
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -c requirements.lock $(RUNTIME_INSTALL)
	touch $@

$(VENV)/.installed: pyproject.toml requirements.lock
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -c requirements.lock $(DEV_INSTALL)
	touch $@

runtime: $(VENV)/.runtime
install: $(VENV)/.installed

migrate: runtime
	$(PY) manage.py migrate --noinput

# The embedded server (vtt/serve.py): DEBUG off, plain http on HOST (127.0.0.1: this computer only;
# 0.0.0.0: the home network too), a wrong setting said in one line. It migrates, loads the demo (a battle
# in progress in each ruleset), deletes day-old "Try a battle" tables (then every hour) and serves.
run: runtime
	@HOST=$(HOST) PORT=$(PORT) $(PY) -m vtt.serve

# The browser tests need Chromium and redis-server. Missing, they are installed with Debian's
# packages when make runs as root; otherwise make stops with one line saying how. The browser run
# sets VTT_REQUIRE_BROWSER=1: a missing program fails a test, never skips it.
CHROMIUM ?= /usr/bin/chromium
APT_GET ?= apt-get
AS_ROOT ?= $(shell [ "$$(id -u)" = 0 ] && echo yes)
BROWSER_PACKAGES := chromium redis-server

browser-deps:
	@if [ ! -x "$(CHROMIUM)" ] || ! command -v redis-server >/dev/null 2>&1; then \
	  if [ -n "$(AS_ROOT)" ]; then \
	    echo "Installing $(BROWSER_PACKAGES) for the browser tests ($(APT_GET))..."; \
	    $(APT_GET) update -qq && DEBIAN_FRONTEND=noninteractive $(APT_GET) install -y -qq $(BROWSER_PACKAGES) >/dev/null; \
	  else \
	    echo "make test: the browser tests need Chromium at $(CHROMIUM) and redis-server: run 'sudo apt-get install $(BROWSER_PACKAGES)' (or make test as root), then make test again." >&2; \
	    exit 1; \
	  fi; \
	fi
	@if [ ! -x "$(CHROMIUM)" ] || ! command -v redis-server >/dev/null 2>&1; then \
	  echo "make test: Chromium ($(CHROMIUM)) or redis-server is still missing after $(APT_GET) install $(BROWSER_PACKAGES)." >&2; \
	  exit 1; \
	fi

# Browser tests run in their own pytest process: sync Playwright cannot share
# an event loop with pytest-asyncio tests ("Runner.run() cannot be called from a running event loop").
# The suite without a browser runs on TEST_WORKERS pytest-xdist workers, each with its own test
# database (TEST_WORKERS=0: one process); the browser suite on E2E_WORKERS, one process by default
# (E2E_WORKERS=2: a server and a Chromium per worker). See docs/testing.md.
# The tests that run server processes over Redis get REDIS_URL's Redis, or a private redis-server
# started for the run (tools/with_redis). With DATABASE_URL on PostgreSQL, the tests marked
# every_database (their claim holds on both databases) run once more on SQLite. Every run prints its
# 15 slowest tests (--durations=15 in pyproject.toml).
TEST_WORKERS ?= 2
E2E_WORKERS ?= 0
WITH_REDIS := tools/with_redis
test: install browser-deps
	$(PY) manage.py check
	$(PY) manage.py makemigrations --check --dry-run
	$(WITH_REDIS) $(PYTEST) tests --ignore=tests/e2e -n $(TEST_WORKERS) --dist loadscope
	@case "$$DATABASE_URL" in postgres*) \
	  echo "The tests marked every_database, on SQLite:"; \
	  DATABASE_URL= VTT_REQUIRE_SERVICES= $(PYTEST) tests --ignore=tests/e2e -m every_database -n 0;; esac
	DJANGO_ALLOW_ASYNC_UNSAFE=true VTT_REQUIRE_BROWSER=1 VTT_CHROMIUM=$(CHROMIUM) $(PYTEST) tests/e2e -n $(E2E_WORKERS) --dist loadgroup

test-e2e: install browser-deps
	DJANGO_ALLOW_ASYNC_UNSAFE=true VTT_REQUIRE_BROWSER=1 VTT_CHROMIUM=$(CHROMIUM) $(PYTEST) tests/e2e -n $(E2E_WORKERS) --dist loadgroup

test-fast: install
	$(WITH_REDIS) $(PYTEST) tests --ignore=tests/e2e -x -n $(TEST_WORKERS) --dist loadscope


# ruff, then mypy on what [tool.mypy] in pyproject.toml lists (strict: all of combat/ and vtt/).
# mypy's Django plugin imports vtt.settings: its development-key warning is not news here.
lint: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	PYTHONWARNINGS="ignore:Using the development SECRET_KEY" $(VENV)/bin/mypy

# Every numbered rule of docs/RULESETS.md named by a test (tools/rule_coverage.py exits 1 below 100%).
rules: install
	$(PY) tools/rule_coverage.py --tests tests --strict ENG MIST PARA LUCK BLOCK

# The rules alone, then every live-table load of the performance goals (bench/suite.py): with
# DATABASE_URL and REDIS_URL set, PostgreSQL + Redis, two and one server processes, nginx in front;
# always the embedded default. Under 10 minutes.
bench: install
	$(PY) bench/engine.py --battles 10
	$(PY) bench/suite.py

# The push goals (docs/performance.md, round 7): bytes per push, CPU and p95 against the floor of the
# same run, at 20 x 6 human pace and at 100 seats; then phones on a throttled network in Chromium.
bench-push: install
	uptime
	$(PY) bench/live.py -B 20 -C 6 --think-ms 1000 --actions 30 --seconds 40 --floor
	$(PY) bench/live.py -B 1 -C 6 --observers 94 --think-ms 0 --actions 100000 --seconds 30 --floor
	$(PY) bench/phone.py --taps 12

# A py-spy flame graph of one server process under the 20 x 6 closed loop: profile.svg. By default it
# samples the thread holding the GIL only (where the CPU goes); PROFILE_FLAGS= samples every busy thread.
PROFILE ?= profile.svg
PROFILE_FLAGS ?= --profile-gil
profile: install
	$(PY) bench/live.py -B 20 -C 6 --think-ms 0 --actions 100000 --seconds 30 --profile $(PROFILE) $(PROFILE_FLAGS)
