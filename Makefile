# Two commands do all set-up: `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PYTEST := $(VENV)/bin/pytest
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: install run test test-fast test-e2e lint bench migrate

$(VENV)/.installed: pyproject.toml requirements.lock
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -c requirements.lock -e ".[dev]"
	touch $@

install: $(VENV)/.installed

migrate: install
	$(PY) manage.py migrate --noinput

run: migrate
	$(PY) manage.py seed_demo
	$(VENV)/bin/daphne -b $(HOST) -p $(PORT) vtt.asgi:application

# Browser tests run in their own pytest process: sync Playwright cannot share
# an event loop with pytest-asyncio tests (see ../shared/STACK.md).
test: install
	$(PY) manage.py check
	$(PY) manage.py makemigrations --check --dry-run
	$(PYTEST) tests --ignore=tests/e2e
	DJANGO_ALLOW_ASYNC_UNSAFE=true $(PYTEST) tests/e2e

test-fast: install
	$(PYTEST) tests --ignore=tests/e2e -x

test-e2e: install
	DJANGO_ALLOW_ASYNC_UNSAFE=true $(PYTEST) tests/e2e

lint: install
	$(VENV)/bin/ruff check .

bench: install
	$(PY) bench/engine.py
	@if [ -f bench/live.py ]; then $(PY) bench/live.py; fi
