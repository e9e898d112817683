"""Who may see and change what: the one place campaign views ask.

Every campaign view starts with ``campaign_for(request, pk)``: a campaign the
user is not a member of does not exist for them (404, never 403, so ids leak
nothing). A member who lacks the role gets 403. Battle views reuse these.

Stable names for other modules:

- ``campaign_for(request, pk, roles=None) -> (Campaign, Membership)``
- ``membership_for(user, campaign) -> Membership | None``
- ``character_for(request, campaign_pk, pk, edit=False) -> (Character, Membership)``
- ``can_edit_character(user, membership, character) -> bool``
- ``can_see_sheet(user, membership, character) -> bool``
- ``can_create_characters(membership) -> bool``
"""

from __future__ import annotations

from collections.abc import Iterable

from django.core.exceptions import PermissionDenied
from django.http import Http404

from vtt.models import Campaign, Character, CharacterKind, Membership, Role


def membership_for(user, campaign: Campaign | int) -> Membership | None:
    """The user's membership of a campaign (object or pk), or ``None``."""
    if not getattr(user, "is_authenticated", False):
        return None
    campaign_id = campaign.pk if isinstance(campaign, Campaign) else campaign
    return Membership.objects.filter(user=user, campaign_id=campaign_id).first()


def campaign_for(request, pk: int, roles: Iterable[str] | None = None) -> tuple[Campaign, Membership]:
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


def can_edit_character(user, membership: Membership | None, character: Character) -> bool:
    """GM: any character of the campaign. Player: only their own. Observer: none."""
    if membership is None or membership.campaign_id != character.campaign_id or membership.user_id != user.pk:
        return False
    if membership.role == Role.GM:
        return True
    return membership.role == Role.PLAYER and character.owner_id == user.pk


def can_see_sheet(user, membership: Membership | None, character: Character) -> bool:
    """Every member sees PC sheets; NPC and monster sheets are the GM's secret."""
    if membership is None or membership.campaign_id != character.campaign_id:
        return False
    return membership.role == Role.GM or character.kind == CharacterKind.PC or character.owner_id == user.pk


def can_create_characters(membership: Membership | None) -> bool:
    """GMs create any kind; players create their own PCs; observers none."""
    return membership is not None and membership.role in (Role.GM, Role.PLAYER)


def character_for(request, campaign_pk: int, pk: int, edit: bool = False) -> tuple[Character, Membership]:
    """A character of a campaign the user belongs to (404 otherwise).

    With ``edit=True`` a member who may not edit it gets 403.
    """
    campaign, membership = campaign_for(request, campaign_pk)
    character = Character.objects.select_related("owner").filter(campaign=campaign, pk=pk).first()
    if character is None:
        raise Http404("No such character.")
    character.campaign = campaign
    if edit and not can_edit_character(request.user, membership, character):
        raise PermissionDenied("You may not edit this character.")
    return character, membership
