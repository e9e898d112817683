"""Pages for accounts, campaigns, invites and characters.

Thin views: each starts with an access helper from ``vtt.access`` (404 for
non-members, 403 for a role that may not), then a form, then a render. Regions
re-rendered by HTMX are template partials of the page they live on.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.db.models import Count
from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import Resolver404, resolve
from django.utils import timezone
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_POST
from django_htmx.http import HttpResponseClientRedirect

from combat.engine.rulesets import RULESETS
from vtt import chat
from vtt.access import (
    campaign_for,
    can_create_characters,
    can_edit_character,
    can_see_sheet,
    character_for,
    known_characters,
    membership_for,
)
from vtt.content import campaign_content, character_templates, content_choices, template_slug
from vtt.forms import (
    UNAVAILABLE,
    CampaignForm,
    CharacterForm,
    InviteForm,
    LoginForm,
    MapUploadForm,
    SignupForm,
)
from vtt.guests import display_name, may_create_campaigns
from vtt.models import Campaign, CharacterKind, Invite, InviteError, MapImage, Membership, Role
from vtt.requests import HtmxRequest, MemberRequest
from vtt.throttle import signup_allowed, signup_failed

GM_ONLY = (Role.GM,)


FIRST_INVITE_USES = 6  # the link made with a campaign: enough for a party


def _next_url(request: HttpRequest, default: str = "campaigns") -> str:
    target = request.POST.get("next") or request.GET.get("next") or ""
    if target and url_has_allowed_host_and_scheme(target, {request.get_host()}, request.is_secure()):
        return target
    return default


def home(request: HtmxRequest) -> HttpResponse:
    if request.user.is_authenticated:
        return redirect("campaigns")
    rulesets = [{"key": key, "name": r.name, "summary": r.summary} for key, r in RULESETS.items()]
    return render(request, "vtt/home.html", {"rulesets": rulesets})


def _invite_in(target: str) -> Invite | None:
    """The invite whose link ``target`` is (the ``next`` of a sign-up or log-in), or None."""
    try:
        match = resolve(urlsplit(target).path)
    except Resolver404:
        return None
    if match.url_name != "join":
        return None
    return Invite.objects.select_related("campaign").filter(token=match.kwargs.get("token")).first()


def _join_after_auth(request: HttpRequest, user: User, target: str) -> str:
    """Where a person who just signed up or logged in goes: an invite in ``target`` is redeemed at once.

    The invite survives whichever link led to the account (the invite page's
    form, the top bar, the log-in page): all of them carry it as ``next``.
    """
    invite = _invite_in(target)
    if invite is None:
        return target
    try:
        membership, created = invite.redeem(user)
    except InviteError:
        return target  # the invite page says why
    if created:
        messages.success(request, joined_text(invite.campaign, membership))
    return invite.campaign.get_absolute_url()


def joined_text(campaign: Campaign, membership: Membership) -> str:
    text = f"You joined “{campaign}” as {membership.get_role_display().lower()}."
    return text + " Make your character next." if membership.is_player else text


def signup(request: HtmxRequest) -> HttpResponse:
    if request.user.is_authenticated:
        return redirect(_next_url(request))
    # Through a valid invite link, sign-ups count against the invite, not the network (vtt.throttle).
    invite = _invite_in(_next_url(request, "")) if request.method == "POST" else None
    if invite is not None and not invite.is_valid():
        invite = None
    if request.method == "POST" and not signup_allowed(request, invite):
        # The name typed stays (never the passwords): trying again later needs no retyping.
        form = SignupForm(initial={"username": request.POST.get("username", "")[:150]})
        messages.error(request, "Too many sign-ups from your network. Try again in an hour.")
        return render(
            request, "registration/signup.html", {"form": form, "next": _next_url(request, "")}, status=429
        )
    form = SignupForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            with transaction.atomic():
                user = form.save()
        except IntegrityError:  # the same name signed up a moment ago
            form.add_error("username", UNAVAILABLE)
            return render(request, "registration/signup.html", {"form": form, "next": _next_url(request, "")})
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        target = _join_after_auth(request, user, _next_url(request))
        if target == "campaigns":  # a new account of no campaign: its first step is making one
            messages.success(
                request,
                f"Welcome, {display_name(user)}. Make your first campaign, or open an invite link a GM sent you.",
            )
            return redirect("campaign_create")
        return redirect(target)  # an invite's campaign says "You joined ..." (_join_after_auth)
    if invite is not None:  # refused (a taken name...): counts against the address too
        signup_failed(request)
    return render(request, "registration/signup.html", {"form": form, "next": _next_url(request, "")})


class LoginView(auth_views.LoginView):
    """Django's log-in page; an invite carried in ``next`` is redeemed on success."""

    redirect_authenticated_user = True
    authentication_form = LoginForm

    request: MemberRequest  # once the log-in succeeded

    def get_success_url(self) -> str:
        return _join_after_auth(self.request, self.request.user, super().get_success_url())


# --- campaigns ---------------------------------------------------------------------------------


@login_required
def campaign_list(request: MemberRequest) -> HttpResponse:
    memberships = (
        Membership.objects.filter(user=request.user)
        .select_related("campaign")
        .annotate(n_members=Count("campaign__memberships", distinct=True))
        .order_by("campaign__name", "campaign__pk")
    )
    return render(request, "vtt/campaign_list.html", {"memberships": memberships})


@login_required
def campaign_create(request: MemberRequest) -> HttpResponse:
    if not may_create_campaigns(request.user):
        messages.info(request, "Keep your account (a username and a password) to make campaigns of your own.")
        return redirect("keep_account")
    if request.method == "POST":
        form = CampaignForm(request.POST)
        if form.is_valid():
            with transaction.atomic():
                campaign = form.save(commit=False)
                campaign.owner = request.user
                campaign.save()
                Membership.objects.create(user=request.user, campaign=campaign, role=Role.GM)
                # The first invite link is ready at once: copying it is the GM's next step.
                Invite.objects.create(
                    campaign=campaign, created_by=request.user, role=Role.PLAYER, max_uses=FIRST_INVITE_USES
                )
            messages.success(
                request, f"Campaign “{campaign.name}” created. Send your players its invite link."
            )
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
def campaign_edit(request: MemberRequest, pk: int) -> HttpResponse:
    campaign, membership = campaign_for(request, pk, roles=GM_ONLY)
    form = CampaignForm(request.POST or None, instance=campaign)
    if request.method == "POST" and form.is_valid():
        form.save()
        messages.success(request, "Campaign saved.")
        return redirect(campaign)
    return render(
        request, "vtt/campaign_form.html", {"form": form, "campaign": campaign, "membership": membership}
    )


def campaign_context(
    request: MemberRequest, campaign: Campaign, membership: Membership, **extra: Any
) -> dict[str, Any]:
    members = campaign.memberships.select_related("user").order_by("role", "user__username")
    characters = known_characters(
        request.user, membership, campaign.characters.select_related("owner").order_by("kind", "name", "pk")
    )
    rows = [{"character": c, "can_edit": can_edit_character(request.user, membership, c)} for c in characters]
    context = {
        "campaign": campaign,
        "membership": membership,
        "members": members,
        "character_rows": rows,
        "can_create_characters": can_create_characters(membership),
        "house_rules": _house_rule_rows(campaign),
        "my_characters": [c for c in characters if c.owner_id == request.user.pk],
    }
    if membership.is_gm:
        invites = campaign.invites.filter(expires_at__gt=timezone.now()).order_by("-created", "-pk")
        context["invites"] = invites
        if not any(m.role != Role.GM for m in members):  # nobody to play yet: the link comes first
            first = next((i for i in invites if i.role == Role.PLAYER and i.is_valid()), None)
            context["first_invite"] = first  # shown once: in its card, not again in the list
            context["invites"] = [i for i in invites if i != first]
        context.setdefault("invite_form", InviteForm())
    context.update(extra)
    return context


def _house_rule_rows(campaign: Campaign) -> list[tuple[str, object, str]]:
    """(label, value in words, what it does) of each house rule."""
    values = campaign.house_rules()
    rows = []
    for spec in campaign.ruleset_class.option_schema():
        value = values.get(spec.key)
        if spec.kind == "choice":
            value = spec.choice_label(value)
        rows.append((spec.label, value, spec.help))
    return rows


@login_required
def campaign_detail(request: MemberRequest, pk: int) -> HttpResponse:
    campaign, membership = campaign_for(request, pk)
    context = campaign_context(
        request, campaign, membership, **chat.panel_context(campaign, request.user, membership.role)
    )
    return render(request, "vtt/campaign_detail.html", context)


@login_required
@require_POST
def member_role(request: MemberRequest, pk: int, member_pk: int) -> HttpResponse:
    campaign, membership = campaign_for(request, pk, roles=GM_ONLY)
    member = get_object_or_404(Membership, campaign=campaign, pk=member_pk)
    role = request.POST.get("role", "")
    if role not in Role.values:
        return HttpResponseBadRequest("Unknown role.")
    with transaction.atomic():
        # Lock the GM rows so two GMs demoting each other at once cannot leave none.
        gm_ids = list(
            Membership.objects.select_for_update()
            .filter(campaign=campaign, role=Role.GM)
            .values_list("pk", flat=True)
        )
        member.refresh_from_db(fields=["role"])
        if member.user_id == request.user.pk:
            messages.error(request, "You cannot change your own role: another game master can.")
        elif member.role == Role.GM and role != Role.GM and len(gm_ids) <= 1:
            messages.error(request, "A campaign needs at least one game master.")
        else:
            member.role = role
            member.save(update_fields=["role"])
            messages.success(
                request, f"{display_name(member.user)} is now {member.get_role_display().lower()}."
            )
    if request.htmx:
        refreshed = membership_for(request.user, campaign)
        assert refreshed is not None  # a GM's own membership (campaign_for above)
        context = campaign_context(request, campaign, refreshed)
        return render(request, "vtt/campaign_detail.html#members", context)
    return redirect(campaign)


# --- invites -----------------------------------------------------------------------------------


@login_required
@require_POST
def invite_create(request: MemberRequest, pk: int) -> HttpResponse:
    campaign, membership = campaign_for(request, pk, roles=GM_ONLY)
    form = InviteForm(request.POST, instance=Invite(campaign=campaign, created_by=request.user))
    new_invite = form.save() if form.is_valid() else None
    if new_invite:
        messages.success(request, "Invite link created: share it with your players.")
    if request.htmx:
        extra = {"new_invite": new_invite, "invite_form": InviteForm() if new_invite else form}
        context = campaign_context(request, campaign, membership, **extra)
        return render(request, "vtt/campaign_detail.html#invites", context)
    if not new_invite:
        messages.error(request, "The invite was not created: check its settings.")
    return redirect(campaign)


@login_required
@require_POST
def invite_revoke(request: MemberRequest, pk: int, invite_pk: int) -> HttpResponse:
    campaign, membership = campaign_for(request, pk, roles=GM_ONLY)
    get_object_or_404(Invite, campaign=campaign, pk=invite_pk).delete()
    if request.htmx:
        return render(
            request, "vtt/campaign_detail.html#invites", campaign_context(request, campaign, membership)
        )
    messages.success(request, "Invite link revoked.")
    return redirect(campaign)


# --- characters --------------------------------------------------------------------------------


@login_required
def character_create(request: MemberRequest, pk: int) -> HttpResponse:
    campaign, membership = campaign_for(request, pk, roles=(Role.GM, Role.PLAYER))
    kind = request.GET.get("kind")
    kind = kind if membership.is_gm and kind in CharacterKind.values else CharacterKind.PC
    initial: dict[str, Any] = {"kind": kind} if membership.is_gm else {}
    # Templates: the ruleset's ready-made heroes (players, GM) and monsters (GM), playable as they are.
    templates = character_templates(campaign, "monster" if kind != CharacterKind.PC else "pc")
    chosen = request.GET.get("template", "")
    by_slug = {template_slug(name): (name, sheet) for name, sheet in templates.items()}
    sheet = None
    if chosen in by_slug:
        initial["name"], sheet = by_slug[chosen]
    elif by_slug and request.method == "GET":
        # A blank sheet would have no attack at all: start from the first template, named after it.
        chosen = next(iter(by_slug))
        initial["name"], sheet = by_slug[chosen]
    form = CharacterForm(
        request.POST or None,
        request.FILES or None,
        campaign=campaign,
        membership=membership,
        initial=initial,
        sheet=sheet,
    )
    if request.method == "POST" and form.is_valid():
        character = form.save()
        messages.success(request, f"{character.name} created.")
        return redirect(
            character.campaign if character.kind == CharacterKind.PC and not membership.is_gm else character
        )
    context = {
        "form": form,
        "campaign": campaign,
        "membership": membership,
        "kind": kind,
        "chosen": chosen,
        "templates": [(template_slug(name), name, sheet) for name, sheet in templates.items()],
    }
    return render(request, "vtt/character_form.html", context)


@login_required
def character_detail(request: MemberRequest, pk: int, char_pk: int) -> HttpResponse:
    character, membership = character_for(request, pk, char_pk)
    show_sheet = can_see_sheet(request.user, membership, character)
    rows = []
    if show_sheet:
        values = character.sheet or {}
        content = campaign_content(character.campaign)
        for spec in character.ruleset_class.sheet_schema:
            value = values.get(spec.key)
            if spec.content:
                # Content is shown by its name, never its key.
                names = dict(content_choices(content, spec))
                items = value if isinstance(value, list) else [value] if value else []
                counts = {v: items.count(v) for v in dict.fromkeys(items)}  # items are carried by number
                value = (
                    ", ".join(f"{names.get(v, str(v))}{f' ×{n}' if n > 1 else ''}" for v, n in counts.items())
                    or "—"
                )
            elif spec.kind == "choice":
                value = spec.choice_label(value)
            elif isinstance(value, list):
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
def character_edit(request: MemberRequest, pk: int, char_pk: int) -> HttpResponse:
    character, membership = character_for(request, pk, char_pk, edit=True)
    campaign = character.campaign
    form = CharacterForm(
        request.POST or None,
        request.FILES or None,
        instance=character,
        campaign=campaign,
        membership=membership,
    )
    if request.method == "POST" and form.is_valid():
        form.save()
        messages.success(request, f"{character.name} saved.")
        return redirect(character)
    context = {"form": form, "campaign": campaign, "membership": membership, "character": character}
    return render(request, "vtt/character_form.html", context)


@login_required
@require_POST
def character_delete(request: MemberRequest, pk: int, char_pk: int) -> HttpResponse:
    character, _membership = character_for(request, pk, char_pk, edit=True)
    campaign = character.campaign
    character.delete()  # its portrait files go after the commit (vtt.models)
    messages.success(request, f"{character.name} deleted.")
    if request.htmx:
        return HttpResponseClientRedirect(campaign.get_absolute_url())
    return redirect(campaign)


# --- map library -------------------------------------------------------------------------------


@login_required
def map_library(request: MemberRequest, pk: int) -> HttpResponse:
    """The campaign's maps (GM): upload one, see them all, delete one no battle uses."""
    campaign, membership = campaign_for(request, pk, roles=GM_ONLY)
    form = MapUploadForm(request.POST or None, request.FILES or None)
    status = 200
    if request.method == "POST":
        if form.is_valid():
            item = MapImage.create_from(campaign, form.cleaned_data["name"], form.cleaned_data["image"])
            messages.success(request, f"“{item.name}” is in the map library.")
            return redirect("map_library", campaign.pk)
        status = 400
    maps = MapImage.objects.filter(campaign=campaign).annotate(uses=Count("battles"))
    context = {"campaign": campaign, "membership": membership, "form": form, "maps": maps}
    return render(request, "vtt/map_library.html", context, status=status)


@login_required
@require_POST
def map_delete(request: MemberRequest, pk: int, map_pk: int) -> HttpResponse:
    campaign, _membership = campaign_for(request, pk, roles=GM_ONLY)
    item = get_object_or_404(MapImage, campaign=campaign, pk=map_pk)
    item.delete()  # its files go after the commit; battles that showed it keep their grid and show no map
    messages.success(request, f"“{item.name}” was deleted.")
    return redirect("map_library", campaign.pk)
