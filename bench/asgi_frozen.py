"""The ASGI application with the start-up heap frozen (STACK.md: gc.freeze() removed the p99 spikes)."""

from __future__ import annotations

import gc
import sys

from vtt.asgi import application

gc.collect()
gc.freeze()
sys.setswitchinterval(0.001)  # let the event loop (sockets, Redis) win the GIL back quickly from view threads

__all__ = ["application"]
