"""The only writer of battles: their rules (actions, undo), their board's picture (``set_map``), a
battle kept from a file (``store_imported_battle``) and what a battle did to the sheets
(``apply_after_battle``).

Every function is one transaction: lock the battle row, read the snapshot as
one JSON value, check who may do what, ask the engine, and on acceptance
append the events (contiguous ``seq``) and store the new snapshot in one
UPDATE. A refusal writes nothing. After the commit, ``battle_written`` is sent once: the live
push (``combat.live``) is connected to it in ``combat.apps.CombatConfig.ready``. Every statement
is ``combat.store``'s.

Three queries per accepted action, whatever the length of the log: the
locking SELECT (which also brings the caller's role and whether the client
token was already used), one INSERT of the events, one UPDATE of the battle.
Only ``undo`` and ``rebuild`` read the log.

Dice are ``Dice(battle.seed, battle.seq)``: an undone action, submitted again,
rolls the same numbers (undo is not a reroll).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from django.utils import timezone

from combat import store
from combat.board_commands import (
    ALREADY_APPLIED,
    apply_after_battle,
    create_battle,
    set_map,
    store_imported_battle,
)
from combat.command_base import (
    ARCHIVED,
    GM_ONLY,
    MAX_BOARD,
    MAX_TOKEN,
    NO_BATTLE,
    NOT_MEMBER,
    NOT_YOURS,
    STALE,
    Result,
    battle_written,
    load_state,
    lock_for_gm,
    on_commit,
    refused,
)
from combat.engine import veil
from combat.engine.actions import Action, Refusal, RefusalCode
from combat.engine.core import replay, resolve, undo_cut
from combat.engine.dice import Dice
from combat.engine.events import Event
from combat.engine.state import BattleState
from combat.engine.tactics import gm_may_leave
from combat.models import Battle
from combat.store import role_of
from vtt.models import Role

__all__ = [
    "ALREADY_APPLIED",
    "ARCHIVED",
    "GM_ONLY",
    "MAX_BOARD",
    "MAX_TOKEN",
    "NOT_MEMBER",
    "NOT_YOURS",
    "NO_BATTLE",
    "STALE",
    "Result",
    "add_combatant",
    "answer_decision",
    "apply_after_battle",
    "battle_written",
    "character_params",
    "create_battle",
    "gm_override",
    "let_tactics_act",
    "load_state",
    "rebuild",
    "role_of",
    "set_map",
    "start_battle",
    "store_imported_battle",
    "submit_action",
    "undo",
]

log = logging.getLogger(__name__)

# The engine's dice share one d20 roller whose context says which Dice is rolling:
# two threads resolving at once (two battles under a threaded server) would mix
# their dice. Resolution takes microseconds; serialise it within the process.

# ---------------------------------------------------------------- helpers


def _current_state(battle: Battle) -> BattleState:
    """The state an action goes from: the snapshot; for one stored before states kept their past (who
    was out of the players' sight when: ``veil``), the log replayed once (the write stores it)."""
    state = load_state(battle)
    return state if veil.kept(state) else rebuild(battle.pk)


def _parse(action: Any) -> Action | Refusal:
    if isinstance(action, Action):
        return action
    if not isinstance(action, dict):
        return Refusal("That action is malformed.", RefusalCode.BAD_INPUT)
    return Action.from_dict(action)


def _token(client_token: Any) -> str | None | Refusal:
    if client_token in (None, ""):
        return None
    if (
        not isinstance(client_token, str)
        or len(client_token) > MAX_TOKEN
        or not (client_token.isascii() and client_token.isprintable())
    ):
        return Refusal("That request carries a malformed token.", RefusalCode.BAD_INPUT)
    return client_token


def _as_seq(value: Any) -> int | None:
    """A posted seq ("12" or 12); anything else never matches."""
    if type(value) is int:
        return value
    if isinstance(value, str) and value.strip().isascii() and value.strip().isdigit() and len(value) < 19:
        return int(value)
    return None


def _duplicate(battle: Battle, user: Any, token: str) -> Result:
    """The first result of this user's request already carried out (its events, the seq it reached)."""
    rows = store.token_rows(battle.pk, user.pk, token)
    events = [Event(type=t, data=d) for _, t, d in rows]
    return Result(
        ok=True,
        events=events,
        seq=rows[-1][0],
        state=load_state(battle),
        duplicate=True,
        battle_id=battle.pk,
        role=getattr(battle, "role", None),
    )


def _append(battle: Battle, state: BattleState, events: list[Event], user: Any, token: str | None) -> Result:
    """Insert the events with contiguous seq and store ``state`` (after them) in one UPDATE."""
    first = battle.seq + 1
    actor_id = user.pk if user is not None and getattr(user, "is_authenticated", False) else None
    now = timezone.now()
    seq = battle.seq + len(events)
    snapshot = state.to_dict()
    version = battle.version + 1  # the row is locked: no other writer read the same version
    store.store_rows(
        [(battle.pk, first + i, e.type, e.data, actor_id, token, now) for i, e in enumerate(events)],
        (snapshot, seq, store.status_of(state), version, now, battle.pk),
    )
    battle.snapshot, battle.seq, battle.status, battle.version = (
        snapshot,
        seq,
        store.status_of(state),
        version,
    )
    on_commit(battle.pk, seq, (battle, state, events))
    return Result(
        ok=True, events=events, seq=seq, state=state, battle_id=battle.pk, role=getattr(battle, "role", None)
    )


# A check gets (role, battle, state, action, user) and returns a reason to refuse, or "".
Check = Callable[[str, Battle, BattleState, Action, Any], Refusal | None]


def _run(
    battle_id: Any,
    user: Any,
    action: Any,
    check: Check,
    expected_seq: Any,
    client_token: Any,
) -> Result:
    """The one write path: lock, authorise, dedupe, check seq, decide, append.

    ``action`` is an Action, an untrusted payload dict, or a function of
    (state, role) returning one of those.
    """
    token = _token(client_token)
    if isinstance(token, Refusal):
        return refused(token)
    with store.writing():
        battle = store.lock(battle_id, user, token)
        if battle is None:
            return refused(NO_BATTLE, code=RefusalCode.NOT_FOUND)
        role = battle.role
        if role is None:
            return refused(NOT_MEMBER, battle, code=RefusalCode.NOT_YOURS)
        if battle.imported:
            return refused(ARCHIVED, battle, code=RefusalCode.NOT_ALLOWED)
        if role == Role.OBSERVER:
            return refused("Observers watch; they cannot act.", battle, code=RefusalCode.NOT_YOURS)
        if token is not None and store.token_seen(battle, user, token):
            return _duplicate(battle, user, token)
        if expected_seq is not None and _as_seq(expected_seq) != battle.seq:
            return refused(STALE, battle, code=RefusalCode.STALE)
        state = _current_state(battle)
        parsed = _parse(action(state, role) if callable(action) else action)
        if isinstance(parsed, Refusal):
            return refused(parsed, battle, state)
        refusal = check(role, battle, state, parsed, user)
        if refusal is not None:
            return refused(refusal, battle, state)
        try:
            outcome = resolve(state, parsed, Dice(battle.seed, battle.seq))
        except Exception:  # noqa: BLE001 - an engine bug must not become a 500 or a half write
            log.exception("engine failed on %s in battle %s", parsed, battle.pk)
            return refused("The rules could not resolve that action; nothing changed.", battle, state)
        if isinstance(outcome, Refusal):
            return refused(outcome, battle, state)
        events, after = outcome
        if not events:
            return refused("That changes nothing.", battle, state)
        return _monsters_act(battle, after, _append(battle, after, events, user, token))


MAX_AUTO_TURNS = 30  # monsters' turns played in a row after one action, while someone at the table plays
MAX_UNWATCHED_TURNS = 400  # with every player's combatant down, the tactics play the rest out to here
NOBODY_LEFT = "Nobody at the table is left to play: the battle ends."


def _nobody_left_to_play(state: BattleState) -> bool:
    """No combatant a player controls can still act (the battle goes on between the tactics alone)."""
    return not any(c.able and c.controller is not None for c in state.combatants.values())


def _monsters_act(battle: Battle, state: BattleState, result: Result) -> Result:
    """With the battle's "monsters act on their own": the turns of the monsters and NPCs that come next,
    played by the tactics, each appended as an action of its own (``gm.tactics``, undone one by one).
    Once no player's combatant can act, the tactics play the battle out; one still going after
    ``MAX_UNWATCHED_TURNS`` ends as a draw, so no table waits on a turn nobody can take."""
    turns = 0
    while turns < (MAX_UNWATCHED_TURNS if _nobody_left_to_play(state) else MAX_AUTO_TURNS):
        turns += 1
        c = state.current()
        if (
            not state.options.get("monsters_act")
            or state.pending is not None
            or c is None
            or not gm_may_leave(c)
        ):
            return result
        outcome = resolve(state, Action("gm.tactics"), Dice(battle.seed, battle.seq))
        if isinstance(outcome, Refusal) or not outcome[0]:
            return result
        events, state = outcome
        appended = _append(battle, state, events, None, None)
        result = replace(result, seq=appended.seq, state=state)
    if state.phase == "active" and state.options.get("monsters_act") and _nobody_left_to_play(state):
        ending = Action("gm.end_battle", params={"reason": NOBODY_LEFT, "winner": None})
        outcome = resolve(state, ending, Dice(battle.seed, battle.seq))
        if not isinstance(outcome, Refusal) and outcome[0]:
            events, state = outcome
            result = replace(result, seq=_append(battle, state, events, None, None).seq, state=state)
    return result


def let_tactics_act(
    battle_id: Any, user: Any, expected_seq: int | None = None, client_token: str | None = None
) -> Result:
    """The GM lets the rules' tactics play the turn of the monster or NPC acting now (``gm.tactics``)."""
    return gm_override(battle_id, user, {"kind": "gm.tactics", "params": {}}, expected_seq, client_token)


def _forbidden(reason: str) -> Refusal:
    return Refusal(reason, RefusalCode.NOT_YOURS)


def _check_play(role: str, battle: Battle, state: BattleState, action: Action, user: Any) -> Refusal | None:
    """Players act for their own combatants, by turn and answer actions; the GM for anyone."""
    if role == Role.GM:
        return None
    if action.kind.startswith(("gm.", "setup.")):
        return _forbidden(GM_ONLY)
    me = str(user.pk)
    if action.kind == "answer":
        pending = state.pending
        if pending is None:
            return Refusal("Nothing is waiting for an answer.")
        if _gm_only(pending) or pending.controller != me or action.actor != pending.combatant:
            return _forbidden("That decision is not yours to make.")
        return None
    combatant = state.combatants.get(action.actor) if isinstance(action.actor, str) else None
    if combatant is None or combatant.controller != me:
        return _forbidden(NOT_YOURS)
    return None


def _gm_only(pending: Any) -> bool:
    """A prompt only the GM answers (with no actor), whoever it concerns."""
    return bool(getattr(pending, "gm_only", False))


def _check_gm(role: str, battle: Battle, state: BattleState, action: Action, user: Any) -> Refusal | None:
    return None if role == Role.GM else _forbidden(GM_ONLY)


def _check_override(
    role: str, battle: Battle, state: BattleState, action: Action, user: Any
) -> Refusal | None:
    if role != Role.GM:
        return _forbidden(GM_ONLY)
    return (
        None
        if action.kind.startswith("gm.")
        else Refusal("That is not a GM override.", RefusalCode.BAD_INPUT)
    )


# ---------------------------------------------------------------- services


def character_params(character: Any) -> dict[str, Any]:
    """Combatant parameters for a campaign character: a player character controlled by its owner."""
    owner_id = getattr(character, "owner_id", None)
    kind = getattr(character, "kind", "pc") or "pc"
    return {
        "name": character.name,
        "side": "party" if kind == "pc" else "enemy",
        "kind": kind,
        "controller": str(owner_id) if owner_id is not None else None,
        "character_id": character.pk,
        "sheet": dict(character.sheet or {}),
    }


def add_combatant(
    battle_id: Any,
    user: Any,
    character: Any = None,
    *,
    params: dict[str, Any] | None = None,
    pos: list[int] | None = None,
    row: str | None = None,
    expected_seq: int | None = None,
    client_token: str | None = None,
) -> Result:
    """Add a combatant (GM only), from a campaign character or from explicit params (monster, NPC).

    A character's owner controls it (``controller = str(owner_id)``); ``params``
    override the character's values, e.g. ``{"side": "party"}`` for an allied NPC.

    During setup this is "setup.add_combatant"; once the battle runs, "gm.add_combatant".
    """
    if params is not None and not isinstance(params, dict):
        return refused("Describe the combatant with named values.", code=RefusalCode.BAD_INPUT)
    if character is not None:
        # Explicit params (a side, a name) win over the character's own.
        payload = {**character_params(character), **(params or {})}
        character_campaign = getattr(character, "campaign_id", None)
    elif params is not None:
        payload, character_campaign = dict(params), None
    else:
        return refused("Choose a character or describe the combatant.", code=RefusalCode.BAD_INPUT)
    if pos is not None:
        payload["pos"] = pos
    if row is not None:
        payload["row"] = row

    def check(role: str, battle: Battle, state: BattleState, action: Action, user: Any) -> Refusal | None:
        if role != Role.GM:
            return _forbidden(GM_ONLY)
        if character_campaign is not None and character_campaign != battle.campaign_id:
            return Refusal("That character belongs to another campaign.", RefusalCode.BAD_INPUT)
        return None

    def build(state: BattleState, role: str) -> dict[str, Any]:
        kind = "setup.add_combatant" if state.phase == "setup" else "gm.add_combatant"
        return {"kind": kind, "params": payload}

    return _run(battle_id, user, build, check, expected_seq, client_token)


def start_battle(
    battle_id: Any, user: Any, expected_seq: int | None = None, client_token: str | None = None
) -> Result:
    """Roll initiative and start the first turn (GM only)."""
    return _run(battle_id, user, {"kind": "setup.start", "params": {}}, _check_gm, expected_seq, client_token)


def submit_action(
    battle_id: Any,
    user: Any,
    action: Action | dict[str, Any],
    expected_seq: int | None = None,
    client_token: str | None = None,
) -> Result:
    """Any action: a player's turn or answer for their own combatant; the GM anything.

    ``action`` may be untrusted JSON ({"kind", "actor", "params"}); malformed
    payloads are refused by ``Action.from_dict`` and nothing is written.
    """
    return _run(battle_id, user, action, _check_play, expected_seq, client_token)


def answer_decision(
    battle_id: Any,
    user: Any,
    decision_id: str,
    choice: str,
    expected_seq: int | None = None,
    client_token: str | None = None,
) -> Result:
    """Answer the pending reaction window (ENG-6): its controller or the GM."""

    def build(state: BattleState, role: str) -> dict[str, Any]:
        pending = state.pending
        # The engine records who answered: the GM answers for others with no actor.
        actor = None
        if pending is not None and not _gm_only(pending) and (role != Role.GM or pending.controller is None):
            actor = pending.combatant
        return {"kind": "answer", "actor": actor, "params": {"decision": decision_id, "choice": choice}}

    def check(role: str, battle: Battle, state: BattleState, action: Action, user: Any) -> Refusal | None:
        if state.pending is None or state.pending.id != decision_id:
            return Refusal("That decision is no longer open.")
        return _check_play(role, battle, state, action, user)

    return _run(battle_id, user, build, check, expected_seq, client_token)


def gm_override(
    battle_id: Any,
    user: Any,
    action: Action | dict[str, Any],
    expected_seq: int | None = None,
    client_token: str | None = None,
) -> Result:
    """A GM override (ENG-7): an action whose kind starts with "gm."."""
    return _run(battle_id, user, action, _check_override, expected_seq, client_token)


def undo(battle_id: Any, user: Any, expected_seq: int | None = None) -> Result:
    """Take back the last whole action and rebuild the state from the shorter log (ENG-8, GM only).

    Repeatable; the "battle.created" event is never undone. An action's events
    go together (its first event carries ``act``), so an undone end of turn
    never leaves a half-started turn. Reads the whole log: undo is rare,
    actions are not.
    """
    with store.writing():
        battle = lock_for_gm(battle_id, user)
        if isinstance(battle, Result):
            return battle
        if battle.imported:
            return refused(ARCHIVED, battle, code=RefusalCode.NOT_ALLOWED)
        if expected_seq is not None and _as_seq(expected_seq) != battle.seq:
            return refused(STALE, battle, code=RefusalCode.STALE)
        if battle.seq <= 1:
            return refused("There is nothing to undo.", battle)
        events = store.log_events(battle.pk)
        seq = undo_cut(events)
        state = replay(events[:seq])
        store.cut_log(battle.pk, seq, state)
        on_commit(battle.pk, seq)
    return Result(ok=True, seq=seq, state=state, battle_id=battle.pk)


def rebuild(battle_id: Any) -> BattleState:
    """Replay the battle's log (ENG-1); the result must equal the stored snapshot."""
    return replay(store.log_events(int(battle_id)))
