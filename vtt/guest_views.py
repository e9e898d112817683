"""Pages of guest seats: the invite link (a name and nothing else), keeping a guest account, and the GM
removing a member.

An invite link asks a visitor for a name: a guest account is made for the invite's campaign
(``vtt.guest_models.Guest``), the invite is redeemed (it may be revoked, used up or expired: then
nobody gets in) and the visitor is logged in and sent to make a character. Signing up with a password,
or logging in, stays one tap away and carries the invite.
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth import login, update_session_auth_hash
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import User
from django.db import transaction
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from vtt.access import campaign_for, membership_for
from vtt.guest_models import Guest
from vtt.guests import GuestNameForm, KeepAccountForm, display_name, is_guest, may_join
from vtt.models import Character, Invite, InviteError, Membership, Role
from vtt.requests import HtmxRequest, MemberRequest
from vtt.throttle import signup_allowed
from vtt.views import campaign_context, joined_text

MODEL_BACKEND = "django.contrib.auth.backends.ModelBackend"
TOO_MANY = "Too many sign-ups from your network. Try again in an hour."
GUEST_ELSEWHERE = "You play as a guest of another campaign. Keep your account (a username and a password) to join this one too."


def join(request: HtmxRequest, token: str) -> HttpResponse:
    invite = get_object_or_404(Invite.objects.select_related("campaign", "created_by"), token=token)
    if not request.user.is_authenticated:
        return _join_by_name(request, invite)
    user = request.user
    assert isinstance(user, User)  # authenticated, just checked
    membership = membership_for(user, invite.campaign)
    problem = None if membership else invite.problem()
    if membership is None and problem is None and not may_join(user, invite.campaign_id):
        problem = GUEST_ELSEWHERE
    if request.method == "POST" and problem is None:
        try:
            membership, created = invite.redeem(user)
        except InviteError as exc:
            problem = str(exc)
        else:
            if created:
                messages.success(request, joined_text(invite.campaign, membership))
            else:
                messages.info(request, "You are already a member of this campaign.")
            return redirect(invite.campaign)
    context = {"invite": invite, "membership": membership, "problem": problem, "guest": is_guest(user)}
    return render(request, "vtt/join.html", context, status=410 if problem else 200)


def _join_by_name(request: HtmxRequest, invite: Invite) -> HttpResponse:
    """A visitor: a name is enough (a game master's seat asks for an account)."""
    problem = invite.problem()
    by_name = invite.role != Role.GM
    posted = request.method == "POST" and by_name and problem is None
    form = GuestNameForm(request.POST if posted else None)
    status = 410 if problem else 200
    if posted:
        if not signup_allowed(request, invite):
            messages.error(request, TOO_MANY)
            status = 429
        elif form.is_valid():
            seated = _seat_guest(request, invite, form.cleaned_data["name"])
            if isinstance(seated, HttpResponse):
                return seated
            problem, status = seated, 410
    context: dict[str, Any] = {
        "invite": invite,
        "problem": problem,
        "by_name": by_name,
        "name_form": form,
        "next": request.path,
    }
    return render(request, "vtt/join.html", context, status=status)


def _seat_guest(request: HtmxRequest, invite: Invite, name: str) -> HttpResponse | str:
    """A guest account for the invite's campaign, logged in; or why the invite admits nobody now."""
    try:
        with transaction.atomic():
            user = Guest.make(name, invite.campaign)
            membership, _ = invite.redeem(user)  # locks the invite: two visitors never take its last use
    except InviteError as exc:
        return str(exc)
    login(request, user, backend=MODEL_BACKEND)
    campaign = invite.campaign
    if membership.is_player:
        messages.success(request, f"Welcome to “{campaign}”, {name}. Pick a hero, then Create.")
        return redirect("character_create", campaign.pk)
    messages.success(request, f"Welcome to “{campaign}”, {name}.")
    return redirect(campaign)


@login_required
def keep_account(request: MemberRequest) -> HttpResponse:
    """A guest chooses a username and a password: the same account, its characters and its seat stay."""
    user = request.user
    if not is_guest(user):
        return redirect("campaigns")
    campaign_id = Guest.campaign_of(user)
    form = KeepAccountForm(request.POST or None, instance=user)
    status = 200
    if request.method == "POST":
        if not signup_allowed(request):
            messages.error(request, TOO_MANY)
            status = 429
        elif form.is_valid():
            kept = form.save()
            update_session_auth_hash(request, kept)  # this device stays logged in
            messages.success(
                request,
                f"Your account is kept: log in as {kept.get_username()} with your password, on any device.",
            )
            return redirect("campaign", campaign_id) if campaign_id else redirect("campaigns")
    context = {"form": form, "name": display_name(user), "campaign_id": campaign_id}
    return render(request, "vtt/keep_account.html", context, status=status)


@login_required
@require_POST
def member_remove(request: MemberRequest, pk: int, member_pk: int) -> HttpResponse:
    """The GM removes a member (never themself): a guest's account goes with its seat; their characters
    stay in the campaign, controlled by the GM. Their open pages lose the campaign at once."""
    campaign, _membership = campaign_for(request, pk, roles=(Role.GM,))
    member = get_object_or_404(Membership.objects.select_related("user"), campaign=campaign, pk=member_pk)
    if member.user_id == request.user.pk:
        messages.error(request, "You cannot remove yourself from your campaign.")
    else:
        name = display_name(member.user)
        with transaction.atomic():
            Character.objects.filter(campaign=campaign, owner_id=member.user_id).update(owner=None)
            if Guest.objects.filter(user_id=member.user_id, campaign=campaign).exists():
                member.user.delete()  # the seat was the account: nothing else of it exists
            else:
                member.delete()
        messages.success(request, f"{name} was removed from the campaign.")
    if request.htmx:
        refreshed = membership_for(request.user, campaign)
        assert refreshed is not None  # the GM's own membership (campaign_for above)
        return render(
            request, "vtt/campaign_detail.html#members", campaign_context(request, campaign, refreshed)
        )
    return redirect(campaign)
