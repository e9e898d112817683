"""What every battle command shares: its result, its refusals' words, the GM's lock, the push signal.

The commands (``combat.services`` for play, ``combat.board_commands`` for a battle's making, its
board picture, an import and the sheets after it) return a ``Result``; each write sends
``battle_written`` once its transaction commits, and the live push (``combat.live``) is connected to
it in ``combat.apps.CombatConfig.ready``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.db import transaction
from django.dispatch import Signal

from combat import store
from combat.engine.actions import Refusal, RefusalCode
from combat.engine.events import Event
from combat.engine.state import BattleState
from combat.models import Battle
from vtt.models import Role

MAX_BOARD = 100
MAX_TOKEN = 64

STALE = "The battle has moved on; refresh."
NOT_MEMBER = "You are not part of this campaign."
GM_ONLY = "Only the GM can do that."
NOT_YOURS = "You can only act for your own characters."
NO_BATTLE = "That battle does not exist."
ARCHIVED = "An imported battle is kept as it was: replay it, it cannot be changed."


@dataclass
class Result:
    """What a service did.

    ``ok``: accepted (or a repeat of an accepted request, then ``duplicate``).
    ``reason``: why not, for the person who asked; ``code``: what kind of
    refusal (callers choose a response by it). ``events``: the engine
    events appended (for a duplicate, those of the first request). ``seq``:
    the battle's seq after the call (unchanged on refusal). ``state``: the
    engine state after the call, when it was read.
    """

    ok: bool
    reason: str = ""
    events: list[Event] = field(default_factory=list)
    seq: int = 0
    state: BattleState | None = None
    duplicate: bool = False
    battle_id: int | None = None
    code: RefusalCode | None = None
    role: str | None = None


def load_state(battle: Battle) -> BattleState:
    """The engine state cached in the battle row."""
    return BattleState.from_dict(battle.snapshot)


# After each commit: the battle ``battle_id`` is at ``seq``; ``written`` is what the write holds (the
# battle row, the state after it, the events appended), or None when the push must read the battle.
# The live push (``combat.live.battle_written``) is connected in ``combat.apps.CombatConfig.ready``.
battle_written = Signal()


def on_commit(
    battle_id: int, seq: int, written: tuple[Battle, BattleState, list[Event]] | None = None
) -> None:
    def battle_changed() -> None:  # a named function: Django logs a failure by __qualname__
        battle_written.send(Battle, battle_id=battle_id, seq=seq, written=written)

    # robust: the write is committed; a failed push must not turn it into an error.
    transaction.on_commit(battle_changed, robust=True)


def refused(
    reason: str | Refusal,
    battle: Battle | None = None,
    state: BattleState | None = None,
    code: RefusalCode = RefusalCode.NOT_ALLOWED,
) -> Result:
    """A refusal as a Result: ``reason`` is words (with ``code``) or a Refusal (its own code)."""
    if isinstance(reason, Refusal):
        code = reason.code
        reason = reason.reason
    return Result(
        ok=False,
        reason=reason,
        code=code,
        seq=battle.seq if battle is not None else 0,
        state=state,
        battle_id=battle.pk if battle is not None else None,
        role=getattr(battle, "role", None),
    )


def lock_for_gm(battle_id: Any, user: Any) -> store.LockedBattle | Result:
    """``lock`` for a GM's write: the locked row, or the refusal (no such battle, not its GM)."""
    battle = store.lock(battle_id, user)
    if battle is None:
        return refused(NO_BATTLE, code=RefusalCode.NOT_FOUND)
    if battle.role != Role.GM:
        return refused(GM_ONLY, battle, code=RefusalCode.NOT_YOURS)
    return battle
