"""Who gets which rendered region after a battle changes, and sending it.

Every battle command sends ``combat.command_base.battle_written`` once per commit, and
``CombatConfig.ready`` (``combat.apps``) connects ``on_battle_written`` to it: the push gets what the
command holds (the battle row it wrote, the state after the action, the events it
appended), so the push reads nothing in the common case. The regions are
rendered by ``combat.presenters`` once per *visibility class* (the GM view
and the player view) plus each controlling player's own regions. All of it
travels as ONE group message to ``battle-<id>`` (one Redis publish per
change: the pub/sub layer serialises publishes, so eight of them cost eight
round trips), and each consumer only picks its bytes:

- ``gm``: board, tracker, log, GM panel, the GM's action panel and prompt;
- ``pl``: board, tracker, log as any player or observer may see them;
- ``users[<user id>]``: that player's own action panel, prompt and sheet.

A change the push can tell from its events goes as the elements it touched (``presenters.changes``):
the same parts, each holding only those elements, and ``base``, the battle version they apply to; a
socket whose page is at another version sends the whole table instead (``combat.consumers``). A
player's consumer never sends the ``gm`` part or another user's part.
"""

from __future__ import annotations

import logging
from typing import Any

from combat import presenters
from combat.engine.events import Event
from combat.engine.state import BattleState
from combat.models import Battle
from combat.presenters import changes
from combat.table import Table, load_table
from vtt.sockets import publish

__all__ = [
    "PUSH",
    "battle_changed",
    "battle_group",
    "battle_written",
    "message_for",
    "on_battle_written",
    "publish",
    "user_group",
]

log = logging.getLogger(__name__)

PUSH = "battle.push"


def battle_group(battle_id: int) -> str:
    """The group of every socket open on a battle."""
    return f"battle-{battle_id}"


def user_group(battle_id: int, user_id: Any) -> str:
    """The group of one user's sockets on a battle (their own panel, prompts, sheet)."""
    return f"battle-{battle_id}-u{user_id}"


def message_for(table: Table, events: list[Event] | None = None) -> dict[str, Any]:
    """The group message of one change: the elements its ``events`` touched (``presenters.changes``:
    with ``base``, the version they apply to), or every region, once per visibility class and once per
    controlling player."""
    battle = table.battle
    parts = changes.delta(table, events) if events else None
    if parts is None:
        parts = presenters.class_regions(table)
    return {"type": PUSH, "seq": battle.seq, "version": battle.version, **parts}


PUSH_RECEIVER = "combat-live-push"  # the dispatch uid of ``on_battle_written`` on ``battle_written``


def on_battle_written(
    sender: Any,
    *,
    battle_id: int,
    seq: int,
    written: tuple[Battle, BattleState, list[Event]] | None = None,
    **kwargs: Any,
) -> None:
    """A command committed: push from what it holds (``written``), or read the battle at ``seq``."""
    if written is not None:
        battle_written(*written)
    else:
        battle_changed(battle_id, seq)


def battle_written(battle: Battle, state: BattleState, events: list[Event]) -> None:
    """Services' on-commit hook after an action: the row, state and events it wrote (nothing is read)."""
    battle_changed(battle.pk, battle.seq, battle, state, events)


def battle_changed(
    battle_id: int,
    seq: int,
    battle: Battle | None = None,
    state: BattleState | None = None,
    events: list[Event] | None = None,
) -> None:
    """Services' on-commit hook: render the changed regions once per class and push them."""
    try:
        table = load_table(battle_id, battle, state=state, new_events=events)
        if table is None:
            return
        publish(battle_group(battle_id), message_for(table, events))
    except Exception:  # a failed push must never undo a committed action
        log.exception("live push for battle %s failed", battle_id)
