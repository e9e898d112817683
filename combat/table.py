"""Loading a battle for display, and the process caches.

``load_table`` reads what every render of a battle needs (the battle row, its state, the newest
``LOG_WINDOW`` events, the campaign's members and token pictures) into a ``Table``: from the
database on a page load, a reconnect or an HTMX reply; from what the service holds after a write
(nothing read). The presenters (``combat.presenters``) build each region's context from a Table.

Caches (cachetools, per process; ``clear_caches`` empties them):

- ``FRAGMENTS`` (LRU, 20,000 entries): the HTML of small pieces (a token, a tracker row, a log
  entry, a GM row, the GM's forms) and of a viewer's own regions while they hold no form, keyed by
  the whole context their template receives (``combat.presenters.render.fragment``);
- ``MEMBERS`` (TTL 5 s, 10,000 campaigns): user id -> (role, name); only
  names and who gets a per-user push depend on it, access is checked
  elsewhere on every request and socket;
- ``FACES`` (TTL 5 s, 10,000 campaigns): character id -> token picture URL
  (``forget_faces`` drops a campaign's at once when a portrait changes);
- ``WINDOWS`` (LRU, 2,000 battles): the newest ``LOG_WINDOW`` events of a
  battle, each seq once, so the push after a write reads nothing (see ``load_table``);
- ``LOGS`` (LRU, 4,000 battle and class pairs): the described entries of a battle's log window
  (``combat.presenters.log``), so a change describes only its new events;
- ``LAYOUTS`` (LRU, 4,000 battle and class pairs): which elements a class's page holds at a
  version (``combat.presenters.changes``), so the next change may push only the elements it touched,
  and ``SENT`` (LRU, 6,000) the keys of the pieces a class's page shows since its last whole table;
- ``URLS`` (LRU, 10,000 battles) and ``TEMPLATES`` (LRU, 256): reversed
  endpoints and compiled templates.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from cachetools import LRUCache, TTLCache
from django.urls import reverse

from combat.engine.core import Viewer, view_for
from combat.engine.events import Event
from combat.engine.state import BattleState
from combat.models import Battle, BattleEvent
from vtt.models import Character, Membership, Role, media_url

LOG_WINDOW = 30
T = TypeVar("T")
LogRow = tuple[int, str, dict[str, Any]]  # (seq, type, data) of a stored event


FRAGMENTS: LRUCache[Any, str] = LRUCache(maxsize=20_000)  # plain str: untracked by the collector
MEMBERS: TTLCache[int, dict[str, tuple[str, str]]] = TTLCache(maxsize=10_000, ttl=5.0)
FACES: TTLCache[int, dict[int, str]] = TTLCache(maxsize=10_000, ttl=5.0)
WINDOWS: LRUCache[int, tuple[int, int, list[LogRow]]] = LRUCache(maxsize=2_000)
URLS: LRUCache[int, dict[str, str]] = LRUCache(maxsize=10_000)
# (battle, class) -> (what its lines depend on: ``Teller.key``, seq -> (the event's data, its entry or None))
LOGS: LRUCache[tuple[int, str], tuple[tuple[Any, ...], dict[int, Any]]] = LRUCache(maxsize=4_000)
TEMPLATES: LRUCache[str, Any] = LRUCache(maxsize=256)
# (battle, class) -> (version, the layout of that class's page at it): ``combat.presenters.changes``.
LAYOUTS: LRUCache[tuple[int, str], tuple[int, tuple[Any, ...], tuple[Any, ...]]] = LRUCache(maxsize=4_000)
# (battle, class) -> (version, element id -> the key of the context of the piece the page shows).
SENT: LRUCache[tuple[int, str], tuple[int, dict[str, bytes]]] = LRUCache(maxsize=6_000)


def clear_caches() -> None:
    """Empty every process cache of the battle's display (tests: database ids repeat)."""
    for cache in (FRAGMENTS, MEMBERS, FACES, WINDOWS, URLS, TEMPLATES, LOGS, LAYOUTS, SENT):
        cache.clear()


def vclass_of(role: str) -> str:
    """The visibility class of a role: "gm" or "pl" (players and observers)."""
    return "gm" if role == Role.GM else "pl"


@dataclass
class Table:
    """Everything a render needs, read once per change."""

    battle: Battle
    state: BattleState
    events: list[LogRow]  # newest first, each seq once
    members: dict[str, tuple[str, str]]  # user id -> (role, display name)
    faces: dict[int, str] = field(default_factory=dict)  # character id -> token picture URL
    _memo: dict[Hashable, Any] = field(default_factory=dict)

    def once(self, key: Hashable, make: Callable[[], T]) -> T:
        """``make()``, computed once per change for ``key``: the viewers of one change share it."""
        if key not in self._memo:
            self._memo[key] = make()
        value: T = self._memo[key]
        return value

    def view(self, role: str, user_id: str | None, only: frozenset[str] | None = None) -> dict[str, Any]:
        """What ``role``/``user_id`` sees (of the combatants ``only``, when given), computed once."""
        return self.once(
            ("view", role, user_id, only),
            lambda: view_for(self.state, Viewer(role=role, user_id=user_id), only),
        )

    def class_view(self, vclass: str) -> dict[str, Any]:
        """What a visibility class sees ("gm": everything; "pl": any player or observer)."""
        return self.view(Role.GM if vclass == "gm" else Role.PLAYER, None)

    def controllers(self) -> set[str]:
        """Players (not GMs) who control a combatant: they get their own pushes."""
        return {
            c.controller
            for c in self.state.combatants.values()
            if c.controller is not None and self.members.get(c.controller, ("", ""))[0] == Role.PLAYER
        }

    def name_of(self, user_id: str | None) -> str:
        if user_id is None:
            return "GM"
        return self.members.get(user_id, ("", "someone"))[1]


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


def battle_urls(battle_id: int) -> dict[str, str]:
    """The battle's endpoints (reversing costs more than rendering a region: kept per battle)."""
    urls: dict[str, str] | None = URLS.get(battle_id)
    if urls is None:
        urls = URLS[battle_id] = {
            name: reverse(f"battle_{name}", args=[battle_id])
            for name in ("act", "start", "undo", "add", "log")
        }
        urls["menu"] = reverse("battle_menu", args=[battle_id, "-"])[:-1]  # + a combatant's id
        urls["plans"] = reverse("battle_plans", args=[battle_id])
    return urls
