"""Battle logs stored before a name in the events changed (tests/engine/data).

Shared by the engine tests (they replay, undo and play on) and the services
tests (a stored battle of that age rebuilds and takes new actions).
"""

from __future__ import annotations

import json
import pathlib
from typing import Any

from combat.engine.events import Event

DATA = pathlib.Path(__file__).parent / "engine" / "data"


def stored_log(name: str) -> tuple[list[Event], Any]:
    """(events, snapshot) of the battle stored in ``tests/engine/data/<name>``."""
    stored = json.loads((DATA / name).read_text())
    return [Event.from_dict(e) for e in stored["events"]], stored["snapshot"]


def as_stored(state: dict[str, Any]) -> dict[str, Any]:
    """A state's dict as states were stored before they kept their past (``engine.veil``): without it."""
    return {**state, "extra": {k: v for k, v in state["extra"].items() if k != "veil"}}


def old_log() -> tuple[list[Event], Any]:
    """The D20 Luck battle stored before the action parameters got their present names."""
    return stored_log("luck_log_before_param_names.json")
