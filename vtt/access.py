"""Who may see and change what: the one place views and sockets ask.

Every campaign view starts with ``campaign_for(request, pk)`` and every battle view with
``battle_for(request, pk)``: a campaign the user is not a member of does not exist for them (404,
never 403, so ids leak nothing). A member who lacks the role gets 403. A socket asks the same of its
session (``session_valid``: still this user's, the password unchanged) on connect and again while it
is open: ``battle_access`` for a battle's socket, ``campaign_access`` for a campaign page's.

Stable names for other modules:

- ``campaign_for(request, pk, roles=None) -> (Campaign, Membership)``
- ``battle_for(request, pk) -> (Battle, role)``
- ``membership_for(user, campaign) -> Membership | None``
- ``character_for(request, campaign_pk, pk, edit=False) -> (Character, Membership)``
- ``can_edit_character(user, membership, character) -> bool``
- ``can_see_sheet(user, membership, character) -> bool``
- ``can_create_characters(membership) -> bool``
- ``known_characters(user, membership, characters) -> list[Character]``
- ``session_valid(session_key, user) -> bool``
- ``battle_access(user, battle_id, session_key=None, check_session=False) -> (role, seq) | None``
- ``campaign_access(user, campaign_id, session_key) -> role | None``

The services check roles again inside each write (``combat.services``): a view's check decides what
it shows, the service's what is written.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from importlib import import_module
from typing import Any

from django.conf import settings
from django.contrib.auth import HASH_SESSION_KEY, SESSION_KEY, get_user_model
from django.contrib.sessions.backends.db import SessionStore as DatabaseSessionStore
from django.contrib.sessions.models import Session
from django.core.exceptions import PermissionDenied
from django.db import connections, router
from django.http import Http404, HttpRequest
from django.utils import timezone
from django.utils.crypto import constant_time_compare

from combat.engine import fog
from combat.engine.state import BattleState
from combat.models import Battle
from vtt.models import Campaign, Character, CharacterKind, Membership, Role


def membership_for(user: Any, campaign: Campaign | int) -> Membership | None:
    """The user's membership of a campaign (object or pk), or ``None``."""
    if not getattr(user, "is_authenticated", False):
        return None
    campaign_id = campaign.pk if isinstance(campaign, Campaign) else campaign
    return Membership.objects.filter(user=user, campaign_id=campaign_id).first()


def campaign_for(
    request: HttpRequest, pk: int, roles: Iterable[str] | None = None
) -> tuple[Campaign, Membership]:
    """The campaign ``pk`` and the requesting user's membership.

    404 when it does not exist or the user is not a member (anonymous users
    included: wrap views with ``login_required`` to send them to log in);
    403 when ``roles`` is given and the member's role is not in it.
    """
    membership = (
        Membership.objects.select_related("campaign").filter(user_id=request.user.pk, campaign_id=pk).first()
        if request.user.is_authenticated
        else None
    )
    if membership is None:
        raise Http404("No such campaign.")
    if roles is not None and membership.role not in set(roles):
        raise PermissionDenied("Your role in this campaign does not allow this.")
    return membership.campaign, membership


def battle_for(request: HttpRequest, pk: int) -> tuple[Battle, str]:
    """The battle ``pk`` and the requesting user's role in its campaign (404 like ``campaign_for``)."""
    battle = Battle.objects.select_related("campaign", "map").filter(pk=pk).first()
    if battle is None:
        raise Http404("No such battle.")
    _, membership = campaign_for(request, battle.campaign_id)
    return battle, membership.role


def can_edit_character(user: Any, membership: Membership | None, character: Character) -> bool:
    """GM: any character of the campaign. Player: only their own. Observer: none."""
    if membership is None or membership.campaign_id != character.campaign_id or membership.user_id != user.pk:
        return False
    if membership.role == Role.GM:
        return True
    return membership.role == Role.PLAYER and character.owner_id == user.pk


def can_see_sheet(user: Any, membership: Membership | None, character: Character) -> bool:
    """Every member sees PC sheets; NPC and monster sheets are the GM's secret."""
    if membership is None or membership.campaign_id != character.campaign_id:
        return False
    return membership.role == Role.GM or character.kind == CharacterKind.PC or character.owner_id == user.pk


def can_create_characters(membership: Membership | None) -> bool:
    """GMs create any kind; players create their own PCs; observers none."""
    return membership is not None and membership.role in (Role.GM, Role.PLAYER)


def revealed_character_ids(campaign_id: int) -> set[int]:
    """Characters the players have met: a combatant of theirs stood in view (not in fog, not hidden by
    the GM: ``fog.unseen``) in a battle that has begun."""
    seen: set[int] = set()
    snapshots = Battle.objects.filter(campaign_id=campaign_id).exclude(status=Battle.Status.SETUP)
    for snapshot in snapshots.values_list("snapshot", flat=True):
        state = BattleState.from_dict(snapshot or {})
        hidden = fog.unseen(state, None)
        seen.update(
            c.character_id for cid, c in state.combatants.items() if c.character_id and cid not in hidden
        )
    return seen


def known_characters(
    user: Any, membership: Membership | None, characters: Iterable[Character]
) -> list[Character]:
    """What a member may know exists: the GM everything; a player or observer every PC, their own, and
    the GM's monsters and NPCs only once revealed in a battle (``revealed_character_ids``)."""
    characters = list(characters)
    if membership is not None and membership.role == Role.GM:
        return characters
    hidden = [c for c in characters if c.kind != CharacterKind.PC and c.owner_id != user.pk]
    if not hidden:
        return characters
    revealed = revealed_character_ids(hidden[0].campaign_id)
    return [c for c in characters if c.kind == CharacterKind.PC or c.owner_id == user.pk or c.pk in revealed]


def character_for(
    request: HttpRequest, campaign_pk: int, pk: int, edit: bool = False
) -> tuple[Character, Membership]:
    """A character of a campaign the user belongs to (404 otherwise).

    With ``edit=True`` a member who may not edit it gets 403.
    """
    campaign, membership = campaign_for(request, campaign_pk)
    character = Character.objects.select_related("owner").filter(campaign=campaign, pk=pk).first()
    if character is None or not known_characters(request.user, membership, [character]):
        raise Http404("No such character.")  # a monster not met yet does not exist for the players
    character.campaign = campaign
    if edit and not can_edit_character(request.user, membership, character):
        raise PermissionDenied("You may not edit this character.")
    return character, membership


# ---------------------------------------------------------------- sockets


def session_valid(session_key: str | None, user: Any) -> bool:
    """The socket's session still exists, is this user's, and the password has not changed since."""
    if not session_key:
        return False
    data = import_module(settings.SESSION_ENGINE).SessionStore(session_key).load()
    if str(data.get(SESSION_KEY, "")) != str(user.pk):
        return False
    fresh = get_user_model().objects.filter(pk=user.pk, is_active=True).first()
    if fresh is None:
        return False
    return constant_time_compare(str(data.get(HASH_SESSION_KEY, "")), fresh.get_session_auth_hash())


def battle_access_orm(
    user: Any, battle_id: int, session_key: str | None = None, check_session: bool = False
) -> tuple[str, int] | None:
    """``battle_access`` through the session engine and the ORM (four reads): any other session engine."""
    if check_session and not session_valid(session_key, user):
        return None
    battle = Battle.objects.filter(pk=battle_id).values_list("campaign_id", "seq").first()
    if battle is None:
        return None
    role = (
        Membership.objects.filter(campaign_id=battle[0], user_id=user.pk)
        .values_list("role", flat=True)
        .first()
    )
    return (role, battle[1]) if role else None


@functools.cache
def _battle_access_sql(alias: str, vendor: str) -> str:
    """The battle's seq, the user's role in its campaign, the session's data and the user's password
    and state, in one statement (each part NULL when its row is missing)."""
    qn = connections[alias].ops.quote_name

    def col(model: Any, name: str) -> str:
        return f"{qn(model._meta.db_table)}.{qn(model._meta.get_field(name).column)}"

    b, m, s, u = Battle, Membership, Session, get_user_model()
    return (
        f"SELECT {col(m, 'role')}, {col(b, 'seq')}, {col(s, 'session_data')}, {col(u, 'password')},"
        f" {col(u, 'is_active')} FROM {qn(b._meta.db_table)}"
        f" LEFT JOIN {qn(m._meta.db_table)} ON {col(m, 'campaign')} = {col(b, 'campaign')}"
        f" AND {col(m, 'user')} = %s"
        f" LEFT JOIN {qn(s._meta.db_table)} ON {col(s, 'session_key')} = %s AND {col(s, 'expire_date')} > %s"
        f" LEFT JOIN {qn(u._meta.db_table)} ON {col(u, u._meta.pk.name)} = %s"
        f" WHERE {col(b, 'id')} = %s"
    )


def battle_access(
    user: Any, battle_id: int, session_key: str | None = None, check_session: bool = False
) -> tuple[str, int] | None:
    """(role, seq) of a member for this battle, or None; with ``check_session``, only while the
    socket's session is still this user's, the user active and the password unchanged.

    A socket re-checks this every 15-30 s. Django's way is ``battle_access_orm``: the session
    engine's load, the user's read and the battle's and the membership's, four statements the ORM
    compiles each time. Here it is one statement built once per database, the session decoded and
    its hash checked as Django's ``get_user`` checks it: 2.3 ms (SQLite) to 5.9 ms (PostgreSQL) less
    CPU per check, on the thread the sockets share for the database (``bench/framework.py
    --replacement access``). ``tests/security/test_socket_access_check.py`` holds both equal for
    every persona and every way a session ends.
    """
    if not getattr(user, "is_authenticated", False):
        return None
    store = import_module(settings.SESSION_ENGINE).SessionStore
    if not (issubclass(store, DatabaseSessionStore) and store.get_model_class() is Session):
        return battle_access_orm(user, battle_id, session_key, check_session)
    if check_session and not session_key:
        return None
    alias = router.db_for_read(Battle)
    connection = connections[alias]
    now = connection.ops.adapt_datetimefield_value(timezone.now())
    with connection.cursor() as cursor:
        cursor.execute(
            _battle_access_sql(alias, connection.vendor),
            [user.pk, session_key or "", now, user.pk, battle_id],
        )
        row = cursor.fetchone()
    if row is None:
        return None  # no such battle
    role, seq, session_data, password, active = row
    if check_session:
        if session_data is None or password is None or not active:
            return None
        data = store().decode(session_data)
        if str(data.get(SESSION_KEY, "")) != str(user.pk):
            return None
        current = get_user_model()(pk=user.pk, password=password)
        if not constant_time_compare(str(data.get(HASH_SESSION_KEY, "")), current.get_session_auth_hash()):
            return None
    return (role, seq) if role else None


def campaign_access(user: Any, campaign_id: int, session_key: str | None) -> str | None:
    """A campaign page's socket: the member's role while its session is still this user's, else None
    (the role says which of the campaign's chat lines the socket passes on)."""
    if not getattr(user, "is_authenticated", False) or not session_valid(session_key, user):
        return None
    return (
        Membership.objects.filter(campaign_id=campaign_id, user_id=user.pk)
        .values_list("role", flat=True)
        .first()
    )
