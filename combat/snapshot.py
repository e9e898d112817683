"""A battle as every render reads it: a frozen snapshot of one change.

The loader (``combat.table.load_table``) fills it from the database or from what the commands hold
after a write; the presenters (``combat.presenters``) render from it and never read the database or
call back into the loader.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from combat.caches import LogRow
from combat.engine.state import BattleState
from vtt.models import Role

if TYPE_CHECKING:
    from combat.models import Battle

__all__ = ["LOG_WINDOW", "LogRow", "Table", "vclass_of"]

LOG_WINDOW = 30


def vclass_of(role: str) -> str:
    """The visibility class of a role: "gm" or "pl" (players and observers)."""
    return "gm" if role == Role.GM else "pl"


@dataclass(frozen=True, eq=False)
class Table:
    """Everything a render needs, read once per change: a frozen snapshot (``combat.table.load_table``
    reads it; the presenters keep what they compute from it in their own memo, ``combat.presenters.memo``)."""

    battle: Battle
    state: BattleState
    events: list[LogRow]  # newest first, each seq once
    members: dict[str, tuple[str, str]]  # user id -> (role, display name)
    faces: dict[int, str] = field(default_factory=dict)  # character id -> token picture URL

    def controllers(self) -> set[str]:
        """Players (not GMs) who control a combatant: they get their own pushes."""
        return {
            c.controller
            for c in self.state.combatants.values()
            if c.controller is not None and self.members.get(c.controller, ("", ""))[0] == Role.PLAYER
        }

    def name_of(self, user_id: str | None) -> str:
        """Who plays a combatant: a member's name; else the GM, or the rules at a table with no GM
        (a "Try a battle" table, whose tactics play the ally and the monsters)."""
        if user_id is None:
            return "GM" if any(role == Role.GM for role, _ in self.members.values()) else "Rules"
        return self.members.get(user_id, ("", "someone"))[1]
