"""The only writer of battles: their rules (actions, undo), their board's picture (``set_map``), a
battle kept from a file (``store_imported_battle``) and what a battle did to the sheets
(``apply_after_battle``).

Every function is one transaction: lock the battle row, read the snapshot as
one JSON value, check who may do what, ask the engine, and on acceptance
append the events (contiguous ``seq``) and store the new snapshot in one
UPDATE. A refusal writes nothing. After the commit, ``combat.live`` (when it
exists) is told once that the battle changed.

Three queries per accepted action, whatever the length of the log: the
locking SELECT (which also brings the caller's role and whether the client
token was already used), one INSERT of the events, one UPDATE of the battle.
Only ``undo`` and ``rebuild`` read the log.

Dice are ``Dice(battle.seed, battle.seq)``: an undone action, submitted again,
rolls the same numbers (undo is not a reroll).
"""

from __future__ import annotations

import functools
import importlib
import logging
import secrets
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, TypeAlias, TypedDict, cast

from django.db import connection, transaction
from django.db.models import F, Field
from django.utils import timezone

from combat.engine import veil
from combat.engine.actions import Action, Refusal, RefusalCode
from combat.engine.core import new_battle_event, replay, resolve, undo_cut
from combat.engine.dice import Dice
from combat.engine.events import Event
from combat.engine.rulesets import UnknownRuleset, get_ruleset
from combat.engine.state import BattleState
from combat.engine.tactics import gm_may_leave
from combat.models import Battle, BattleEvent
from vtt.homebrew import battle_content
from vtt.models import Campaign, Character, MapImage, Membership, Role

if TYPE_CHECKING:
    from django_stubs_ext import WithAnnotations

log = logging.getLogger(__name__)

# The engine's dice share one d20 roller whose context says which Dice is rolling:
# two threads resolving at once (two battles under a threaded server) would mix
# their dice. Resolution takes microseconds; serialise it within the process.

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


# ---------------------------------------------------------------- helpers


def role_of(user: Any, campaign_id: int) -> str | None:
    """The user's role in a campaign (a ``Role``) or None."""
    if user is None or not getattr(user, "is_authenticated", False):
        return None
    return (
        Membership.objects.filter(campaign_id=campaign_id, user_id=user.pk)
        .values_list("role", flat=True)
        .first()
    )


def load_state(battle: Battle) -> BattleState:
    """The engine state cached in the battle row."""
    return BattleState.from_dict(battle.snapshot)


def _current_state(battle: Battle) -> BattleState:
    """The state an action goes from: the snapshot; for one stored before states kept their past (who
    was out of the players' sight when: ``veil``), the log replayed once (the write stores it)."""
    state = load_state(battle)
    return state if veil.kept(state) else rebuild(battle.pk)


def _broadcast(
    battle_id: int, seq: int, written: tuple[Battle, BattleState, list[Event]] | None = None
) -> None:
    """Tell the live table when ``combat.live`` exists.

    With what this write holds (the battle row, the state after it, the
    events appended) and a ``battle_written`` hook, the push renders from
    those instead of reading the battle again; else ``battle_changed``.
    """
    try:
        live = importlib.import_module("combat.live")
    except ModuleNotFoundError as exc:
        if exc.name != "combat.live":
            raise
        return
    written_hook = getattr(live, "battle_written", None)
    if written is not None and written_hook is not None:
        written_hook(*written)
        return
    hook = getattr(live, "battle_changed", None)
    if hook is not None:
        hook(battle_id, seq)


def _on_commit(
    battle_id: int, seq: int, written: tuple[Battle, BattleState, list[Event]] | None = None
) -> None:
    def battle_changed() -> None:  # a named function: Django logs a failure by __qualname__
        _broadcast(battle_id, seq, written)

    # robust: the write is committed; a failed push must not turn it into an error.
    transaction.on_commit(battle_changed, robust=True)


STATUSES = frozenset(Battle.Status.values)  # the enum builds its list anew on every read


def _status(state: BattleState) -> str:
    return state.phase if state.phase in STATUSES else Battle.Status.ACTIVE


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


def _refused(
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


class _LockAnnotations(TypedDict):
    role: str | None
    token_seen: bool  # these two only when _lock is given a token
    snapshot_seq: int


#: A battle row as ``_lock`` returns it: locked, with the caller's role (and token check) annotated.
LockedBattle: TypeAlias = "WithAnnotations[Battle, _LockAnnotations]"


_SQLITE_WRITER = threading.Lock()


@contextmanager
def _writing() -> Iterator[None]:
    """The service's write transaction.

    SQLite lets one transaction write at a time, and a writer that finds the database busy sleeps
    in SQLite's busy handler (1, 2, 5 ... 100 ms) before it tries again: with twenty request threads
    the queue of sleepers made the embedded server's p95 seconds long. Here this process's writers
    queue on a lock instead, woken as soon as the one before them commits. Not when a transaction
    is already open (with ``transaction_mode`` IMMEDIATE it holds SQLite's write lock already),
    never on PostgreSQL (the row lock of ``_lock`` lets writers of different battles go together).
    """
    if connection.vendor != "sqlite" or connection.in_atomic_block:
        with transaction.atomic():
            yield
        return
    with _SQLITE_WRITER, transaction.atomic():
        yield


def _lock(battle_id: Any, user: Any, token: str | None = None) -> LockedBattle | None:
    """Lock the battle row; one query also brings the caller's role and whether ``token`` was seen.

    The annotations ride on the locking SELECT (subqueries, so FOR UPDATE
    still locks the battle row only): ``battle.role`` and ``battle.token_seen``
    (tokens are per user: another user's token is not a repeat).

    On PostgreSQL a SELECT ... FOR UPDATE that waited for the lock returns the
    latest battle row, but its subqueries still read the statement's older
    snapshot: ``snapshot_seq`` differing from ``seq`` tells that it waited, and
    ``token_seen`` must then be asked again (see ``_seen``).

    The statement is written once per shape (``_lock_sql``) and its row becomes a ``Battle`` through
    ``Model.from_db``, each column through its field's converters (resolved once, ``_lock_columns``),
    as a queryset's rows are. Django's way is
    ``Battle.objects.select_for_update().filter(pk=...).annotate(role=Subquery(...), ...)``, which the
    ORM compiles anew on every call; with the two writes below that cost 4.3-6.1 ms of an action's
    11-16 ms of CPU (``bench/framework.py --replacement sql``, paired). A raw queryset
    (``Battle.objects.raw``) resolves its columns, their converters and the model's init order
    anew on every call too: 0.5 ms of CPU of the lock's 0.8 ms (PostgreSQL, one process).
    ``test_the_locking_read_matches_the_orm_query`` holds that both give the same rows.
    """
    try:
        pk = int(battle_id)
    except (TypeError, ValueError):
        return None
    if not 0 < pk < 2**63:
        return None
    user_id = user.pk if user is not None and getattr(user, "is_authenticated", False) else None
    params: list[Any] = [] if user_id is None else [user_id]  # no user: no membership, role None
    if token is not None:
        params += [token] if user_id is None else [token, user_id]
    sql = _lock_sql(connection.vendor, token is not None, user_id is None)
    with connection.cursor() as cursor:
        cursor.execute(sql, [*params, pk])
        row = cursor.fetchone()
    if row is None:
        return None
    names, converters = _lock_columns(connection.vendor)
    values = list(row[: len(names)])
    for i, expression, convert in converters:
        for converter in convert:
            values[i] = converter(values[i], expression, connection)
    battle = cast("LockedBattle", Battle.from_db(connection.alias, names, values))
    battle.role = row[len(names)]
    if token is not None:
        battle.token_seen = bool(row[len(names) + 1])  # SQLite answers EXISTS with 0 or 1
        battle.snapshot_seq = row[len(names) + 2]
    return battle


@functools.cache
def _lock_columns(vendor: str) -> tuple[list[str], list[tuple[int, Any, list[Any]]]]:
    """The battle row's fields in ``_lock_sql``'s order, and the converters of those that have any.

    Resolved on the first call's connection and kept for every thread's: a backend's converters read
    the connection's settings only (its time zone), the same for every connection to the database.
    """
    names, converters = [], []
    for i, f in enumerate(Battle._meta.concrete_fields):
        names.append(f.attname)
        expression = f.get_col(Battle._meta.db_table)
        convert = [*connection.ops.get_db_converters(expression), *expression.get_db_converters(connection)]
        if convert:
            converters.append((i, expression, convert))
    return names, converters


@functools.cache
def _lock_sql(vendor: str, with_token: bool, anonymous: bool) -> str:
    """The locking SELECT of ``_lock``: the battle row, the caller's role, and the token check."""
    qn = connection.ops.quote_name
    b, m, e = (qn(model._meta.db_table) for model in (Battle, Membership, BattleEvent))
    user = "IS NULL" if anonymous else "= %s"
    columns = [
        *(f"{b}.{qn(cast(str, f.column))}" for f in Battle._meta.concrete_fields),
        f"(SELECT {m}.{qn('role')} FROM {m} WHERE {m}.{qn('campaign_id')} = {b}.{qn('campaign_id')}"
        f" AND {m}.{qn('user_id')} {user} LIMIT 1) AS {qn('role')}",
    ]
    if with_token:
        columns += [
            f"EXISTS(SELECT 1 FROM {e} WHERE {e}.{qn('battle_id')} = {b}.{qn('id')}"
            f" AND {e}.{qn('client_token')} = %s AND {e}.{qn('actor_id')} {user}) AS {qn('token_seen')}",
            f"(SELECT U.{qn('seq')} FROM {b} U WHERE U.{qn('id')} = {b}.{qn('id')}) AS {qn('snapshot_seq')}",
        ]
    lock = " FOR UPDATE" if connection.features.has_select_for_update else ""
    return f"SELECT {', '.join(columns)} FROM {b} WHERE {b}.{qn('id')} = %s{lock}"


def _lock_for_gm(battle_id: Any, user: Any) -> LockedBattle | Result:
    """``_lock`` for a GM's write: the locked row, or the refusal (no such battle, not its GM)."""
    battle = _lock(battle_id, user)
    if battle is None:
        return _refused(NO_BATTLE, code=RefusalCode.NOT_FOUND)
    if battle.role != Role.GM:
        return _refused(GM_ONLY, battle, code=RefusalCode.NOT_YOURS)
    return battle


def _seen(battle: LockedBattle, user: Any, token: str) -> bool:
    """Whether this user's ``token`` is in the log, fresh when the locking SELECT waited for another writer."""
    if battle.token_seen or battle.snapshot_seq == battle.seq:
        return battle.token_seen
    return BattleEvent.objects.filter(battle_id=battle.pk, client_token=token, actor_id=user.pk).exists()


def _duplicate(battle: Battle, user: Any, token: str) -> Result:
    """The first result of this user's request already carried out (its events, the seq it reached)."""
    rows = list(
        BattleEvent.objects.filter(battle_id=battle.pk, client_token=token, actor_id=user.pk)
        .order_by("seq")
        .values_list("seq", "type", "data")
    )
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
    _store(
        [(battle.pk, first + i, e.type, e.data, actor_id, token, now) for i, e in enumerate(events)],
        (snapshot, seq, _status(state), version, now, battle.pk),
    )
    battle.snapshot, battle.seq, battle.status, battle.version = snapshot, seq, _status(state), version
    _on_commit(battle.pk, seq, (battle, state, events))
    return Result(
        ok=True, events=events, seq=seq, state=state, battle_id=battle.pk, role=getattr(battle, "role", None)
    )


# The two writes of every action, as plain statements written once per database (``_insert_sql``,
# ``_update_sql``): Django's bulk_create and update compile theirs anew for each action (with the lock,
# 4.3-6.1 ms of an action's 11-16 ms, ``bench/framework.py --replacement sql``). Values go through
# each field's own get_db_prep_save (JSON, dates, keys), as the ORM's would;
# ``test_append_writes_what_the_orm_reads``. On PostgreSQL both go as one statement (``_store``).
EVENT_COLUMNS = ("battle", "seq", "type", "data", "actor", "client_token", "created")
BATTLE_WRITE = ("snapshot", "seq", "status", "version", "updated", "id")
ROWS_PER_INSERT = 100


def _concrete(
    model: type[Battle] | type[BattleEvent], names: tuple[str, ...]
) -> tuple[list[Field[Any, Any]], list[str]]:
    """The named concrete fields of ``model``, and their quoted columns."""
    fields, columns = [], []
    for name in names:
        f = model._meta.get_field(name)
        assert isinstance(f, Field) and f.column, name
        fields.append(f)
        columns.append(connection.ops.quote_name(f.column))
    return fields, columns


@functools.cache
def _insert_sql(vendor: str) -> tuple[list[Field[Any, Any]], str, str]:
    """(fields, "INSERT INTO ... VALUES ", one row's placeholders) of the event insert."""
    fields, columns = _concrete(BattleEvent, EVENT_COLUMNS)
    head = (
        f"INSERT INTO {connection.ops.quote_name(BattleEvent._meta.db_table)} ({', '.join(columns)}) VALUES "
    )
    return fields, head, f"({', '.join(['%s'] * len(fields))})"


@functools.cache
def _update_sql(vendor: str, columns: tuple[str, ...]) -> tuple[list[Field[Any, Any]], str]:
    """(fields, statement) of an UPDATE of the battle row setting every column but the last, keyed by the last."""
    fields, quoted = _concrete(Battle, columns)
    sets = ", ".join(f"{c} = %s" for c in quoted[:-1])
    return (
        fields,
        f"UPDATE {connection.ops.quote_name(Battle._meta.db_table)} SET {sets} WHERE {quoted[-1]} = %s",
    )


def _insert_events(rows: list[tuple[Any, ...]]) -> None:
    """INSERT the event rows (values in ``EVENT_COLUMNS`` order), at most ``ROWS_PER_INSERT`` per statement."""
    fields, head, one = _insert_sql(connection.vendor)
    with connection.cursor() as cursor:
        for start in range(0, len(rows), ROWS_PER_INSERT):
            chunk = rows[start : start + ROWS_PER_INSERT]
            params = [p for row in chunk for p in _prepared(fields, row)]
            cursor.execute(head + ", ".join([one] * len(chunk)), params)


def _prepared(fields: list[Field[Any, Any]], values: tuple[Any, ...]) -> list[Any]:
    """``values`` as their fields store them (``get_db_prep_save``: JSON, dates, keys), as the ORM would."""
    return [f.get_db_prep_save(v, connection) for f, v in zip(fields, values, strict=True)]


def _store(rows: list[tuple[Any, ...]], values: tuple[Any, ...]) -> None:
    """INSERT the event rows and UPDATE the battle row (``BATTLE_WRITE`` values).

    On PostgreSQL one statement does both (the insert as a data-modifying WITH), one round trip
    instead of two: with the locking read and the commit, an action's third of four. Elsewhere, and
    for more rows than one INSERT takes, the two statements.
    """
    if connection.vendor != "postgresql" or not 0 < len(rows) <= ROWS_PER_INSERT:
        _insert_events(rows)
        _write(BATTLE_WRITE, values)
        return
    event_fields, head, one = _insert_sql(connection.vendor)
    battle_fields, update = _update_sql(connection.vendor, BATTLE_WRITE)
    params = [p for row in rows for p in _prepared(event_fields, row)] + _prepared(battle_fields, values)
    with connection.cursor() as cursor:
        cursor.execute(f"WITH new_events AS ({head}{', '.join([one] * len(rows))}) {update}", params)


def _write(columns: tuple[str, ...], values: tuple[Any, ...]) -> None:
    """UPDATE the battle row: every column but the last set to its value, WHERE the last (the key) matches."""
    fields, sql = _update_sql(connection.vendor, columns)
    with connection.cursor() as cursor:
        cursor.execute(sql, _prepared(fields, values))


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
        return _refused(token)
    with _writing():
        battle = _lock(battle_id, user, token)
        if battle is None:
            return _refused(NO_BATTLE, code=RefusalCode.NOT_FOUND)
        role = battle.role
        if role is None:
            return _refused(NOT_MEMBER, battle, code=RefusalCode.NOT_YOURS)
        if battle.imported:
            return _refused(ARCHIVED, battle, code=RefusalCode.NOT_ALLOWED)
        if role == Role.OBSERVER:
            return _refused("Observers watch; they cannot act.", battle, code=RefusalCode.NOT_YOURS)
        if token is not None and _seen(battle, user, token):
            return _duplicate(battle, user, token)
        if expected_seq is not None and _as_seq(expected_seq) != battle.seq:
            return _refused(STALE, battle, code=RefusalCode.STALE)
        state = _current_state(battle)
        parsed = _parse(action(state, role) if callable(action) else action)
        if isinstance(parsed, Refusal):
            return _refused(parsed, battle, state)
        refusal = check(role, battle, state, parsed, user)
        if refusal is not None:
            return _refused(refusal, battle, state)
        try:
            outcome = resolve(state, parsed, Dice(battle.seed, battle.seq))
        except Exception:  # noqa: BLE001 - an engine bug must not become a 500 or a half write
            log.exception("engine failed on %s in battle %s", parsed, battle.pk)
            return _refused("The rules could not resolve that action; nothing changed.", battle, state)
        if isinstance(outcome, Refusal):
            return _refused(outcome, battle, state)
        events, after = outcome
        if not events:
            return _refused("That changes nothing.", battle, state)
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


def create_battle(
    campaign: Any,
    user: Any,
    name: str,
    width: int,
    height: int,
    blocked: Iterable[Any] = (),
    *,
    ruleset: str | None = None,
    options: dict[str, Any] | None = None,
    seed: int | None = None,
    content: dict[str, Any] | None = None,
) -> Result:
    """Create a battle (GM only); its log starts with the "battle.created" event (seq 1).

    ``ruleset`` defaults to the campaign's; ``options`` are the house rules
    (validated, defaults filled in), ``content`` an optional custom content
    pack (ENG-10) checked by the ruleset; by default the campaign's own content
    (``vtt.homebrew.battle_content``), so a battle keeps the version of each
    homebrew entry it started with.
    """
    campaign_id = getattr(campaign, "pk", campaign)
    if ruleset is None:
        ruleset = getattr(campaign, "ruleset", None) or (
            Campaign.objects.filter(pk=campaign_id).values_list("ruleset", flat=True).first()
        )
    name = name.strip() if isinstance(name, str) else ""
    if not name or len(name) > 120:
        return _refused("Give the battle a name (up to 120 characters).", code=RefusalCode.BAD_INPUT)
    try:
        rules = get_ruleset(ruleset) if isinstance(ruleset, str) else None
    except UnknownRuleset:
        rules = None
    if rules is None:
        return _refused(f"Unknown ruleset {ruleset!r}.", code=RefusalCode.BAD_INPUT)
    options, errors = rules.validate_options(options)
    if errors:
        return _refused(
            "; ".join(f"{k}: {' '.join(v)}" for k, v in errors.items()), code=RefusalCode.BAD_INPUT
        )
    if not all(type(n) is int and 1 <= n <= MAX_BOARD for n in (width, height)):
        return _refused(f"The board is 1 to {MAX_BOARD} squares on each side.", code=RefusalCode.BAD_INPUT)
    squares = _squares(blocked, width, height)
    if isinstance(squares, Refusal):
        return _refused(squares)
    if seed is None:
        seed = secrets.randbits(48)
    with _writing():
        if role_of(user, campaign_id) != Role.GM:
            return _refused(GM_ONLY, code=RefusalCode.NOT_YOURS)
        if content is None:
            content = battle_content(campaign_id) or None
        try:
            event = new_battle_event(rules.key, options, seed, width, height, squares, content)
        except ValueError as exc:
            return _refused(str(exc), code=RefusalCode.BAD_INPUT)
        state = replay([event])
        battle = Battle.objects.create(
            campaign_id=campaign_id,
            name=name,
            ruleset=rules.key,
            seed=seed,
            status=_status(state),
            snapshot=state.to_dict(),
            seq=1,
        )
        BattleEvent.objects.create(battle=battle, seq=1, type=event.type, data=event.data, actor_id=user.pk)
        _on_commit(battle.pk, 1)
    return Result(ok=True, events=[event], seq=1, state=state, battle_id=battle.pk)


def _squares(blocked: Iterable[Any], width: int, height: int) -> list[list[int]] | Refusal:
    squares: list[list[int]] = []
    try:
        for square in blocked:
            x, y = square
            if not (type(x) is int and type(y) is int and 0 <= x < width and 0 <= y < height):
                return Refusal("A blocked square lies outside the board.", RefusalCode.BAD_INPUT)
            if [x, y] not in squares:
                squares.append([x, y])
    except (TypeError, ValueError):
        return Refusal("Blocked squares are [x, y] pairs.", RefusalCode.BAD_INPUT)
    return squares


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
        return _refused("Describe the combatant with named values.", code=RefusalCode.BAD_INPUT)
    if character is not None:
        # Explicit params (a side, a name) win over the character's own.
        payload = {**character_params(character), **(params or {})}
        character_campaign = getattr(character, "campaign_id", None)
    elif params is not None:
        payload, character_campaign = dict(params), None
    else:
        return _refused("Choose a character or describe the combatant.", code=RefusalCode.BAD_INPUT)
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
    with _writing():
        battle = _lock_for_gm(battle_id, user)
        if isinstance(battle, Result):
            return battle
        if battle.imported:
            return _refused(ARCHIVED, battle, code=RefusalCode.NOT_ALLOWED)
        if expected_seq is not None and _as_seq(expected_seq) != battle.seq:
            return _refused(STALE, battle, code=RefusalCode.STALE)
        if battle.seq <= 1:
            return _refused("There is nothing to undo.", battle)
        events = _events(battle.pk)
        seq = undo_cut(events)
        state = replay(events[:seq])
        BattleEvent.objects.filter(battle_id=battle.pk, seq__gt=seq).delete()
        Battle.objects.filter(pk=battle.pk).update(
            snapshot=state.to_dict(),
            seq=seq,
            status=_status(state),
            version=F("version") + 1,
            updated=timezone.now(),
        )
        _on_commit(battle.pk, seq)
    return Result(ok=True, seq=seq, state=state, battle_id=battle.pk)


def _events(battle_id: int, before: int | None = None) -> list[Event]:
    rows = BattleEvent.objects.filter(battle_id=battle_id)
    if before is not None:
        rows = rows.filter(seq__lt=before)
    return [
        Event.from_dict({"type": t, "data": d}) for t, d in rows.order_by("seq").values_list("type", "data")
    ]


def rebuild(battle_id: Any) -> BattleState:
    """Replay the battle's log (ENG-1); the result must equal the stored snapshot."""
    return replay(_events(int(battle_id)))


# ---------------------------------------------------------------- around the log


def set_map(
    battle_id: Any,
    user: Any,
    image: MapImage | None,
    grid_cols: int = 0,
    grid_offset_x: int = 0,
    grid_offset_y: int = 0,
) -> Result:
    """Lay a picture of the campaign's map library under the board (None: no picture) and the grid
    over it (GM only): ``grid_cols`` squares across the picture from the offsets, 0 to stretch it.

    Not an event (the log tells the battle, the picture is the table's), but a new board: the
    version goes up, so nothing rendered before it is shown after, and the table is pushed.
    """
    with _writing():
        battle = _lock_for_gm(battle_id, user)
        if isinstance(battle, Result):
            return battle
        if image is not None and image.campaign_id != battle.campaign_id:
            return _refused("That map is not in this campaign's library.", battle, code=RefusalCode.BAD_INPUT)
        Battle.objects.filter(pk=battle.pk).update(
            map=image,
            grid_cols=grid_cols,
            grid_offset_x=grid_offset_x,
            grid_offset_y=grid_offset_y,
            version=battle.version + 1,  # the row is locked: no other writer read the same version
            updated=timezone.now(),
        )
        _on_commit(battle.pk, battle.seq)
    return Result(ok=True, seq=battle.seq, battle_id=battle.pk, role=battle.role)


def store_imported_battle(
    campaign: Campaign, user: Any, name: str, state: BattleState, events: list[Event]
) -> Result:
    """Keep a battle played elsewhere (GM only): its whole log and the state it replays to, as
    ``combat.archive.import_battle`` checked them. Kept as it was: it is replayed, never played on."""
    with _writing():
        if role_of(user, campaign.pk) != Role.GM:
            return _refused(GM_ONLY, code=RefusalCode.NOT_YOURS)
        battle = Battle.objects.create(
            campaign=campaign,
            name=name,
            ruleset=state.ruleset,
            seed=state.seed,
            status=_status(state),
            snapshot=state.to_dict(),
            seq=len(events),
            imported=True,
        )
        BattleEvent.objects.bulk_create(
            [BattleEvent(battle=battle, seq=i + 1, type=e.type, data=e.data) for i, e in enumerate(events)]
        )
    return Result(ok=True, seq=battle.seq, state=state, battle_id=battle.pk, role=Role.GM)


ALREADY_APPLIED = "This battle's summary was already applied to the sheets."


def apply_after_battle(battle_id: Any, user: Any, sheets: list[tuple[int, dict[str, Any]]]) -> Result:
    """Write what a battle did to its campaign's characters (GM only, once per battle): each
    (character id, sheet) of ``sheets``, checked by ``combat.aftermath.apply``, all or none."""
    with _writing():
        battle = _lock_for_gm(battle_id, user)
        if isinstance(battle, Result):
            return battle
        if battle.applied is not None:
            return _refused(ALREADY_APPLIED, battle)
        now = timezone.now()
        for character_id, sheet in sheets:
            Character.objects.filter(pk=character_id, campaign_id=battle.campaign_id).update(
                sheet=sheet, updated=now
            )
        Battle.objects.filter(pk=battle.pk).update(applied=now)
    return Result(ok=True, seq=battle.seq, battle_id=battle.pk, role=battle.role)
