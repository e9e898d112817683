"""Fixtures of the engine tests."""

from __future__ import annotations

import multiprocessing
from concurrent.futures import ProcessPoolExecutor

import pytest


@pytest.fixture(scope="session")
def sim_pool():
    """One warm pool of two simulation workers for every test that plays many fights: its start-up (a
    forkserver, and the engine imported in each worker: about a second) is paid once, not per run."""
    pool = ProcessPoolExecutor(max_workers=2, mp_context=multiprocessing.get_context("forkserver"))
    yield pool
    pool.shutdown(wait=True, cancel_futures=True)
