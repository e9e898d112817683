"""Wiring a ruleset package's modules into its ``Ruleset`` class, the same way in every package."""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType
from typing import Any, TypeVar

R = TypeVar("R")


def wired(
    sheet: ModuleType,
    content: ModuleType,
    actions: ModuleType,
    events: ModuleType,
    tactics: ModuleType,
    check: Callable[..., Any],
) -> Callable[[type[R]], type[R]]:
    """A class decorator: the ruleset's class gets what its package's modules hold, under the names of
    the package shape (``rulesets/README.md``): ``sheet.OPTIONS`` and ``SHEET``; ``content.STARTER``,
    ``KINDS``, ``HEROES``, ``MONSTERS`` and ``check``, the pack's validation; ``actions.ACTIONS``,
    ``PARAMS``, ``resume`` and ``legal_actions``; ``events.EVENTS`` and ``APPLIERS``; ``tactics.TACTICS``."""
    parts: dict[str, Any] = {
        "options": sheet.OPTIONS,
        "sheet_schema": sheet.SHEET,
        "content": content.STARTER,
        "content_kinds": content.KINDS,
        "heroes": content.HEROES,
        "monsters": content.MONSTERS,
        "content_check": staticmethod(check),
        "actions": actions.ACTIONS,
        "params": actions.PARAMS,
        "resume": staticmethod(actions.resume),
        "legal_actions": staticmethod(actions.legal_actions),
        "events": events.EVENTS,
        "appliers": events.APPLIERS,
        "tactics": tactics.TACTICS,
    }

    def wire(cls: type[R]) -> type[R]:
        for name, value in parts.items():
            setattr(cls, name, value)
        return cls

    return wire
