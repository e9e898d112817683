"""Loading a battle for display: the first stage of the push (load -> render -> publish).

``load_table`` reads what every render of a battle needs (the battle row, its state, the newest
``LOG_WINDOW`` events, the campaign's members and token pictures) into a frozen ``Table``
(``combat.snapshot``): from the database on a page load, a reconnect or an HTMX reply; from what the
commands hold after a write (nothing read). The presenters (``combat.presenters``) render from it.

The loader's caches (``combat.caches``): ``MEMBERS`` and ``FACES`` (``forget_faces`` drops a
campaign's pictures at once when a portrait changes) and ``WINDOWS``, the newest events of a battle,
so the push after a write reads nothing. ``clear_caches`` empties every display cache.
"""

from __future__ import annotations

import json

from combat.caches import FACES, MEMBERS, WINDOWS, clear_caches
from combat.engine.events import Event
from combat.engine.state import BattleState
from combat.models import Battle, BattleEvent
from combat.snapshot import LOG_WINDOW, LogRow, Table, vclass_of
from vtt.models import Character, Membership, media_url

__all__ = [
    "FACES",
    "LOG_WINDOW",
    "MEMBERS",
    "WINDOWS",
    "Table",
    "clear_caches",
    "faces_of",
    "forget_faces",
    "load_table",
    "members_of",
    "newest_first",
    "vclass_of",
]


def load_table(
    battle_id: int,
    battle: Battle | None = None,
    *,
    state: BattleState | None = None,
    new_events: list[Event] | None = None,
) -> Table | None:
    """A battle ready to render.

    From the database: the battle row (unless given), the latest ``LOG_WINDOW``
    events, the members and token pictures (cached). After a write the
    service passes what it holds: the row it locked and updated, the state
    after the action and the events it appended; the log window then comes
    from ``WINDOWS`` (this process's previous window plus the new events) and
    nothing is read, unless another process wrote in between (the window's
    version does not join on).
    """
    if battle is None:
        battle = Battle.objects.select_related("map").filter(pk=battle_id).first()
        if battle is None:
            return None
    rows = _window(battle, new_events)
    if state is None:
        state = BattleState.from_dict(battle.snapshot)
    return Table(battle, state, rows, members_of(battle.campaign_id), faces_of(battle.campaign_id))


def _window(battle: Battle, new_events: list[Event] | None) -> list[LogRow]:
    """The newest ``LOG_WINDOW`` events up to the battle's seq, newest first, each seq once; read
    only when this process's copy is behind.

    A copy holds no event after the seq it is labelled with: a write's after-commit hook may run with
    the battle as that write left it after later writes committed (a set-up's writes commit
    together, and their hooks run one after another), so a read stops at the battle's seq instead of
    taking events the next hooks bring, and new events join a copy by seq (``newest_first``). A copy
    is labelled by the battle's version, not its seq (after an undo on another process and a new
    action, the seq can be back where a copy was taken with other events behind it), and is never
    replaced by one of an older version.
    """
    seq, version = battle.seq, battle.version
    cached = WINDOWS.get(battle.pk)
    if cached is not None and cached[0] == version and cached[1] == seq:
        return cached[2]
    if new_events and cached is not None and cached[0] == version - 1 and cached[1] == seq - len(new_events):
        first = seq - len(new_events) + 1
        # The stored form (JSON): what a read of the rows would give.
        fresh = [(first + i, e.type, json.loads(json.dumps(e.data))) for i, e in enumerate(new_events)]
        rows = newest_first(fresh, cached[2])
    else:
        rows = list(
            BattleEvent.objects.filter(battle_id=battle.pk, seq__lte=seq)
            .order_by("-seq")
            .values_list("seq", "type", "data")[:LOG_WINDOW]
        )
    if cached is None or cached[0] <= version:
        WINDOWS[battle.pk] = (version, seq, rows)
    return rows


def newest_first(new: list[LogRow], older: list[LogRow]) -> list[LogRow]:
    """The log window after ``new`` events (oldest first, contiguous seqs) on top of ``older`` rows
    (newest first): each seq once (the new event's where both hold one), newest first."""
    first = new[0][0]
    return (new[::-1] + [row for row in older if row[0] < first])[:LOG_WINDOW]


def members_of(campaign_id: int) -> dict[str, tuple[str, str]]:
    """user id -> (role, display name) of a campaign, cached briefly: every action of a table needs it.

    Only names and who gets a per-user push depend on it; access is checked
    on every request and socket against the database.
    """
    members = MEMBERS.get(campaign_id)
    if members is None:
        members = MEMBERS[campaign_id] = {
            str(uid): (role, shown or name)  # the name its owner gave (a guest's), else the username
            for uid, role, name, shown in Membership.objects.filter(campaign_id=campaign_id).values_list(
                "user_id", "role", "user__username", "user__first_name"
            )
        }
    return members


def faces_of(campaign_id: int) -> dict[int, str]:
    """character id -> URL of its round token picture, cached like ``members_of``.

    ``forget_faces`` drops the entry when a portrait changes in this process; other
    processes show the new picture within the cache's 5 s.
    """
    faces: dict[int, str] | None = FACES.get(campaign_id)
    if faces is not None:
        return faces
    faces = FACES[campaign_id] = {
        pk: media_url(name)
        for pk, name in Character.objects.filter(campaign_id=campaign_id)
        .exclude(portrait_token="")
        .values_list("pk", "portrait_token")
    }
    return faces


def forget_faces(campaign_id: int) -> None:
    FACES.pop(campaign_id, None)
