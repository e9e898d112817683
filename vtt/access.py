"""Who may see and change what: the one place views and sockets ask.

Every campaign view starts with ``campaign_for(request, pk)`` (and every battle view with
``combat.access.battle_for``): a campaign the user is not a member of does not exist for them (404,
never 403, so ids leak nothing). A member who lacks the role gets 403. A socket asks the same of its
session (``session_valid``: still this user's, the password unchanged) on connect and again while it
is open: ``campaign_access`` for a campaign page's (``combat.access.battle_access`` for a battle's).

Stable names for other modules:

- ``campaign_for(request, pk, roles=None) -> (Campaign, Membership)``
- ``membership_for(user, campaign) -> Membership | None``
- ``character_for(request, campaign_pk, pk, edit=False) -> (Character, Membership)``
- ``can_edit_character(user, membership, character) -> bool``
- ``can_see_sheet(user, membership, character) -> bool``
- ``can_create_characters(membership) -> bool``
- ``known_characters(user, membership, characters) -> list[Character]``
- ``session_valid(session_key, user) -> bool``
- ``campaign_access(user, campaign_id, session_key) -> role | None``

The services check roles again inside each write (``combat.commands``): a view's check decides what
it shows, the service's what is written.
"""

from __future__ import annotations

from collections.abc import Iterable
from importlib import import_module
from typing import Any

from django.conf import settings
from django.contrib.auth import HASH_SESSION_KEY, SESSION_KEY, get_user_model
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest
from django.utils.crypto import constant_time_compare

from combat.engine import fog
from combat.engine.state import BattleState
from vtt import battles
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
    for _name, snapshot in battles.snapshots(campaign_id, begun=True):
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
