"""Fixtures of the engine tests."""

from __future__ import annotations

import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor

import pytest


@pytest.fixture(scope="session")
def sim_pool():
    """One warm pool of two simulation workers for every test that plays many fights: its start-up (a
    forkserver, and the engine imported in each worker: about a second) is paid once, not per run.
    Under pytest-xdist the cores are the workers' already: one simulation process each."""
    workers = 1 if int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1")) > 1 else 2
    pool = ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("forkserver"))
    yield pool
    pool.shutdown(wait=True, cancel_futures=True)
