"""The ASGI application with the start-up heap frozen (STACK.md: gc.freeze() removed the p99 spikes)."""

from __future__ import annotations

import gc

from vtt.asgi import application

gc.collect()
gc.freeze()

__all__ = ["application"]
