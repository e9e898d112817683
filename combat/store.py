"""Every SQL statement of the battles' commands, the SQLite writer lock and the row builder.

The commands (``combat.services``: act, undo, the GM's actions, import) decide; this module reads and
writes rows, and nothing else: no rule, no refusal, no push.

- ``writing()``: a command's write transaction (on SQLite, this process's writers queue on one lock);
- ``lock()``: the battle row locked, with the caller's role and whether a client token was seen, in one
  statement built once per database; its row becomes a ``Battle`` through ``build_row``, the same
  conversion a queryset applies (each column through its field's converters, ``Model.from_db``);
- ``store_rows()``: an action's event rows and the battle's new snapshot in one round trip on
  PostgreSQL (``insert_events`` and ``write`` elsewhere);
- ``log_events()``, ``token_rows()``, ``cut_log()``, ``new_battle()``, ``import_battle()``,
  ``set_board_picture()``, ``apply_sheets()``: the other reads and writes of the commands.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, TypeAlias, TypedDict, cast

from django.db import connection, transaction
from django.db.models import F, Field
from django.utils import timezone

from combat.engine.events import Event
from combat.engine.state import BattleState
from combat.models import Battle, BattleEvent
from vtt.models import Campaign, Character, MapImage, Membership

if TYPE_CHECKING:
    from django_stubs_ext import WithAnnotations


def role_of(user: Any, campaign_id: int) -> str | None:
    """The user's role in a campaign (a ``Role``) or None."""
    if user is None or not getattr(user, "is_authenticated", False):
        return None
    return (
        Membership.objects.filter(campaign_id=campaign_id, user_id=user.pk)
        .values_list("role", flat=True)
        .first()
    )


STATUSES = frozenset(Battle.Status.values)  # the enum builds its list anew on every read


def status_of(state: BattleState) -> str:
    return state.phase if state.phase in STATUSES else Battle.Status.ACTIVE


class _LockAnnotations(TypedDict):
    role: str | None
    token_seen: bool  # these two only when lock is given a token
    snapshot_seq: int


#: A battle row as ``lock`` returns it: locked, with the caller's role (and token check) annotated.
LockedBattle: TypeAlias = "WithAnnotations[Battle, _LockAnnotations]"


SQLITE_WRITER = threading.Lock()


@contextmanager
def writing() -> Iterator[None]:
    """The service's write transaction.

    SQLite lets one transaction write at a time, and a writer that finds the database busy sleeps
    in SQLite's busy handler (1, 2, 5 ... 100 ms) before it tries again: with twenty request threads
    the queue of sleepers made the embedded server's p95 seconds long. Here this process's writers
    queue on a lock instead, woken as soon as the one before them commits. Not when a transaction
    is already open (with ``transaction_mode`` IMMEDIATE it holds SQLite's write lock already),
    never on PostgreSQL (the row lock of ``lock`` lets writers of different battles go together).
    """
    if connection.vendor != "sqlite" or connection.in_atomic_block:
        with transaction.atomic():
            yield
        return
    with SQLITE_WRITER, transaction.atomic():
        yield


def lock(battle_id: Any, user: Any, token: str | None = None) -> LockedBattle | None:
    """Lock the battle row; one query also brings the caller's role and whether ``token`` was seen.

    The annotations ride on the locking SELECT (subqueries, so FOR UPDATE
    still locks the battle row only): ``battle.role`` and ``battle.token_seen``
    (tokens are per user: another user's token is not a repeat).

    On PostgreSQL a SELECT ... FOR UPDATE that waited for the lock returns the
    latest battle row, but its subqueries still read the statement's older
    snapshot: ``snapshot_seq`` differing from ``seq`` tells that it waited, and
    ``token_seen`` must then be asked again (see ``token_seen``).

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
    """The locking SELECT of ``lock``: the battle row, the caller's role, and the token check."""
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


def token_seen(battle: LockedBattle, user: Any, token: str) -> bool:
    """Whether this user's ``token`` is in the log, fresh when the locking SELECT waited for another writer."""
    if battle.token_seen or battle.snapshot_seq == battle.seq:
        return battle.token_seen
    return BattleEvent.objects.filter(battle_id=battle.pk, client_token=token, actor_id=user.pk).exists()


def token_rows(battle_id: int, user_id: Any, token: str) -> list[tuple[int, str, dict[str, Any]]]:
    """(seq, type, data) of the events this user's request ``token`` appended, oldest first."""
    return list(
        BattleEvent.objects.filter(battle_id=battle_id, client_token=token, actor_id=user_id)
        .order_by("seq")
        .values_list("seq", "type", "data")
    )


# The two writes of every action, as plain statements written once per database (``_insert_sql``,
# ``_update_sql``): Django's bulk_create and update compile theirs anew for each action (with the lock,
# 4.3-6.1 ms of an action's 11-16 ms, ``bench/framework.py --replacement sql``). Values go through
# each field's own get_db_prep_save (JSON, dates, keys), as the ORM's would;
# ``test_append_writes_what_the_orm_reads``. On PostgreSQL both go as one statement (``store_rows``).
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


def insert_events(rows: list[tuple[Any, ...]]) -> None:
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


def store_rows(rows: list[tuple[Any, ...]], values: tuple[Any, ...]) -> None:
    """INSERT the event rows and UPDATE the battle row (``BATTLE_WRITE`` values).

    On PostgreSQL one statement does both (the insert as a data-modifying WITH), one round trip
    instead of two: with the locking read and the commit, an action's third of four. Elsewhere, and
    for more rows than one INSERT takes, the two statements.
    """
    if connection.vendor != "postgresql" or not 0 < len(rows) <= ROWS_PER_INSERT:
        insert_events(rows)
        write(BATTLE_WRITE, values)
        return
    event_fields, head, one = _insert_sql(connection.vendor)
    battle_fields, update = _update_sql(connection.vendor, BATTLE_WRITE)
    params = [p for row in rows for p in _prepared(event_fields, row)] + _prepared(battle_fields, values)
    with connection.cursor() as cursor:
        cursor.execute(f"WITH new_events AS ({head}{', '.join([one] * len(rows))}) {update}", params)


def write(columns: tuple[str, ...], values: tuple[Any, ...]) -> None:
    """UPDATE the battle row: every column but the last set to its value, WHERE the last (the key) matches."""
    fields, sql = _update_sql(connection.vendor, columns)
    with connection.cursor() as cursor:
        cursor.execute(sql, _prepared(fields, values))


def log_events(battle_id: int, before: int | None = None) -> list[Event]:
    rows = BattleEvent.objects.filter(battle_id=battle_id)
    if before is not None:
        rows = rows.filter(seq__lt=before)
    return [
        Event.from_dict({"type": t, "data": d}) for t, d in rows.order_by("seq").values_list("type", "data")
    ]


def cut_log(battle_id: int, seq: int, state: BattleState) -> None:
    """Drop the events after ``seq`` and store ``state`` (the log replayed up to it): an undo."""
    BattleEvent.objects.filter(battle_id=battle_id, seq__gt=seq).delete()
    Battle.objects.filter(pk=battle_id).update(
        snapshot=state.to_dict(),
        seq=seq,
        status=status_of(state),
        version=F("version") + 1,
        updated=timezone.now(),
    )


def campaign_ruleset(campaign_id: Any) -> str | None:
    return Campaign.objects.filter(pk=campaign_id).values_list("ruleset", flat=True).first()


def new_battle(
    campaign_id: Any,
    name: str,
    ruleset: str,
    seed: int,
    state: BattleState,
    events: list[Event],
    **fields: Any,
) -> Battle:
    """A battle row holding ``state`` and its log ``events`` (seq 1 on); ``fields`` set the row's others."""
    actor = fields.pop("actor_id", None)
    battle = Battle.objects.create(
        campaign_id=campaign_id,
        name=name,
        ruleset=ruleset,
        seed=seed,
        status=status_of(state),
        snapshot=state.to_dict(),
        seq=len(events),
        **fields,
    )
    BattleEvent.objects.bulk_create(
        [
            BattleEvent(battle=battle, seq=i + 1, type=e.type, data=e.data, actor_id=actor)
            for i, e in enumerate(events)
        ]
    )
    return battle


def set_board_picture(
    battle: Battle, image: MapImage | None, cols: int, offset_x: int, offset_y: int
) -> None:
    """Lay ``image`` under the locked ``battle``'s board and the grid over it; a new version."""
    Battle.objects.filter(pk=battle.pk).update(
        map=image,
        grid_cols=cols,
        grid_offset_x=offset_x,
        grid_offset_y=offset_y,
        version=battle.version + 1,  # the row is locked: no other writer read the same version
        updated=timezone.now(),
    )


def apply_sheets(battle: Battle, sheets: list[tuple[int, dict[str, Any]]]) -> None:
    """Write each (character id, sheet) of the battle's campaign and mark the battle applied."""
    now = timezone.now()
    for character_id, sheet in sheets:
        Character.objects.filter(pk=character_id, campaign_id=battle.campaign_id).update(
            sheet=sheet, updated=now
        )
    Battle.objects.filter(pk=battle.pk).update(applied=now)
