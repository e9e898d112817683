"""Pages for accounts, campaigns, invites and characters.

Thin views: each starts with an access helper from ``vtt.access`` (404 for
non-members, 403 for a role that may not), then a form, then a render. Regions
re-rendered by HTMX are template partials of the page they live on.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.db import transaction
from django.db.models import Count
from django.http import HttpResponseBadRequest
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_POST
from django_htmx.http import HttpResponseClientRedirect

from vtt.access import (
    campaign_for,
    can_create_characters,
    can_edit_character,
    can_see_sheet,
    character_for,
    membership_for,
)
from vtt.forms import CampaignForm, CharacterForm, InviteForm, SignupForm
from vtt.models import Campaign, CharacterKind, Invite, InviteError, Membership, Role

GM_ONLY = (Role.GM,)


def _next_url(request, default: str = "campaigns") -> str:
    target = request.POST.get("next") or request.GET.get("next") or ""
    if target and url_has_allowed_host_and_scheme(target, {request.get_host()}, request.is_secure()):
        return target
    return default


def home(request):
    if request.user.is_authenticated:
        return redirect("campaigns")
    return render(request, "vtt/home.html")


def signup(request):
    if request.user.is_authenticated:
        return redirect(_next_url(request))
    form = SignupForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        user = form.save()
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        messages.success(request, f"Welcome, {user.get_username()}.")
        return redirect(_next_url(request))
    return render(request, "registration/signup.html", {"form": form, "next": _next_url(request, "")})


# --- campaigns ---------------------------------------------------------------------------------


@login_required
def campaign_list(request):
    memberships = (
        Membership.objects.filter(user=request.user)
        .select_related("campaign")
        .annotate(n_members=Count("campaign__memberships", distinct=True))
        .order_by("campaign__name", "campaign__pk")
    )
    return render(request, "vtt/campaign_list.html", {"memberships": memberships})


@login_required
def campaign_create(request):
    if request.method == "POST":
        form = CampaignForm(request.POST)
        if form.is_valid():
            with transaction.atomic():
                campaign = form.save(commit=False)
                campaign.owner = request.user
                campaign.save()
                Membership.objects.create(user=request.user, campaign=campaign, role=Role.GM)
            messages.success(request, f"Campaign “{campaign.name}” created. Invite your players below.")
            return redirect(campaign)
        if form.ruleset_changed:
            # The options shown were another ruleset's: show the new ones with their defaults.
            form = CampaignForm(initial={"name": request.POST.get("name", "")}, ruleset_key=form.ruleset_key)
            messages.info(request, "Review the house rules of the chosen ruleset, then create the campaign.")
    else:
        form = CampaignForm(ruleset_key=request.GET.get("ruleset"))
        if request.htmx:
            return render(request, "vtt/campaign_form.html#house-rules", {"form": form})
    return render(request, "vtt/campaign_form.html", {"form": form})


@login_required
def campaign_edit(request, pk: int):
    campaign, membership = campaign_for(request, pk, roles=GM_ONLY)
    form = CampaignForm(request.POST or None, instance=campaign)
    if request.method == "POST" and form.is_valid():
        form.save()
        messages.success(request, "Campaign saved.")
        return redirect(campaign)
    return render(request, "vtt/campaign_form.html", {"form": form, "campaign": campaign, "membership": membership})


def _campaign_context(request, campaign: Campaign, membership: Membership, **extra) -> dict:
    members = campaign.memberships.select_related("user").order_by("role", "user__username")
    characters = campaign.characters.select_related("owner").order_by("kind", "name", "pk")
    rows = [
        {"character": c, "can_edit": can_edit_character(request.user, membership, c)}
        for c in characters
    ]
    context = {
        "campaign": campaign,
        "membership": membership,
        "members": members,
        "character_rows": rows,
        "can_create_characters": can_create_characters(membership),
        "house_rules": _house_rule_rows(campaign),
    }
    if membership.is_gm:
        context["invites"] = campaign.invites.filter(expires_at__gt=timezone.now()).order_by("-created", "-pk")
        context.setdefault("invite_form", InviteForm())
    context.update(extra)
    return context


def _house_rule_rows(campaign: Campaign) -> list[tuple[str, object]]:
    values = campaign.house_rules()
    return [(spec.label, values.get(spec.key)) for spec in campaign.ruleset_class.option_schema()]


@login_required
def campaign_detail(request, pk: int):
    campaign, membership = campaign_for(request, pk)
    return render(request, "vtt/campaign_detail.html", _campaign_context(request, campaign, membership))


@login_required
@require_POST
def member_role(request, pk: int, member_pk: int):
    campaign, membership = campaign_for(request, pk, roles=GM_ONLY)
    member = get_object_or_404(Membership, campaign=campaign, pk=member_pk)
    role = request.POST.get("role", "")
    if role not in Role.values:
        return HttpResponseBadRequest("Unknown role.")
    with transaction.atomic():
        # Lock the GM rows so two GMs demoting each other at once cannot leave none.
        gm_ids = list(Membership.objects.select_for_update().filter(campaign=campaign, role=Role.GM).values_list("pk", flat=True))
        member.refresh_from_db(fields=["role"])
        if member.role == Role.GM and role != Role.GM and len(gm_ids) <= 1:
            messages.error(request, "A campaign needs at least one game master.")
        else:
            member.role = role
            member.save(update_fields=["role"])
            messages.success(request, f"{member.user.get_username()} is now {member.get_role_display().lower()}.")
    if request.htmx:
        context = _campaign_context(request, campaign, membership_for(request.user, campaign))
        return render(request, "vtt/campaign_detail.html#members", context)
    return redirect(campaign)


# --- invites -----------------------------------------------------------------------------------


@login_required
@require_POST
def invite_create(request, pk: int):
    campaign, membership = campaign_for(request, pk, roles=GM_ONLY)
    form = InviteForm(request.POST, instance=Invite(campaign=campaign, created_by=request.user))
    new_invite = form.save() if form.is_valid() else None
    if new_invite:
        messages.success(request, "Invite link created: share it with your players.")
    if request.htmx:
        extra = {"new_invite": new_invite, "invite_form": InviteForm() if new_invite else form}
        context = _campaign_context(request, campaign, membership, **extra)
        return render(request, "vtt/campaign_detail.html#invites", context)
    if not new_invite:
        messages.error(request, "The invite was not created: check its settings.")
    return redirect(campaign)


@login_required
@require_POST
def invite_revoke(request, pk: int, invite_pk: int):
    campaign, membership = campaign_for(request, pk, roles=GM_ONLY)
    get_object_or_404(Invite, campaign=campaign, pk=invite_pk).delete()
    if request.htmx:
        return render(request, "vtt/campaign_detail.html#invites", _campaign_context(request, campaign, membership))
    messages.success(request, "Invite link revoked.")
    return redirect(campaign)


@login_required
def join(request, token: str):
    invite = get_object_or_404(Invite.objects.select_related("campaign"), token=token)
    membership = membership_for(request.user, invite.campaign)
    problem = None if membership else invite.problem()
    if request.method == "POST":
        try:
            membership, created = invite.redeem(request.user)
        except InviteError as exc:
            problem = str(exc)
        else:
            if created:
                messages.success(request, f"You joined “{invite.campaign}” as {membership.get_role_display().lower()}.")
            else:
                messages.info(request, "You are already a member of this campaign.")
            return redirect(invite.campaign)
    context = {"invite": invite, "membership": membership, "problem": problem}
    return render(request, "vtt/join.html", context, status=410 if problem else 200)


# --- characters --------------------------------------------------------------------------------


@login_required
def character_create(request, pk: int):
    campaign, membership = campaign_for(request, pk, roles=(Role.GM, Role.PLAYER))
    kind = request.GET.get("kind")
    initial = {"kind": kind} if membership.is_gm and kind in CharacterKind.values else {}
    form = CharacterForm(request.POST or None, campaign=campaign, membership=membership, initial=initial)
    if request.method == "POST" and form.is_valid():
        character = form.save()
        messages.success(request, f"{character.name} created.")
        return redirect(character)
    context = {"form": form, "campaign": campaign, "membership": membership}
    return render(request, "vtt/character_form.html", context)


@login_required
def character_detail(request, pk: int, char_pk: int):
    character, membership = character_for(request, pk, char_pk)
    show_sheet = can_see_sheet(request.user, membership, character)
    rows = []
    if show_sheet:
        values = character.sheet or {}
        for spec in character.ruleset_class.sheet_schema:
            value = values.get(spec.key)
            if isinstance(value, list):
                value = ", ".join(map(str, value)) or "—"
            rows.append((spec, value))
    context = {
        "character": character,
        "campaign": character.campaign,
        "membership": membership,
        "show_sheet": show_sheet,
        "rows": rows,
        "can_edit": can_edit_character(request.user, membership, character),
    }
    return render(request, "vtt/character_detail.html", context)


@login_required
def character_edit(request, pk: int, char_pk: int):
    character, membership = character_for(request, pk, char_pk, edit=True)
    campaign = character.campaign
    form = CharacterForm(request.POST or None, instance=character, campaign=campaign, membership=membership)
    if request.method == "POST" and form.is_valid():
        form.save()
        messages.success(request, f"{character.name} saved.")
        return redirect(character)
    context = {"form": form, "campaign": campaign, "membership": membership, "character": character}
    return render(request, "vtt/character_form.html", context)


@login_required
@require_POST
def character_delete(request, pk: int, char_pk: int):
    character, _membership = character_for(request, pk, char_pk, edit=True)
    campaign = character.campaign
    character.delete()
    messages.success(request, f"{character.name} deleted.")
    if request.htmx:
        return HttpResponseClientRedirect(campaign.get_absolute_url())
    return redirect(campaign)
