"""The campaign's content pages: built-in and homebrew definitions, their forms, packs as files.

Forms are generated from the ruleset's content schema by the same mechanism
as sheets (``vtt.forms.add_schema_fields``); every entry is checked by the
ruleset (``vtt.homebrew.validate_entry``) before it is saved. GM only: a
player gets 403, a stranger 404.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db import transaction
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.utils.text import slugify
from django.views.decorators.http import require_http_methods, require_POST

from vtt import homebrew
from vtt.access import campaign_for
from vtt.content import campaign_content, check_sheet
from vtt.models import Campaign, Character, CharacterKind, ContentEntry, Role
from vtt.requests import MemberRequest
from vtt.schema_forms import SchemaFieldsMixin, add_schema_fields, collect, report

FIELD_PREFIX = "def_"
GM_ONLY = (Role.GM,)
PENDING_IMPORT = "content_import"  # the previewed pack, kept until the GM confirms or picks another


class ContentForm(SchemaFieldsMixin, forms.Form):
    """One definition of one kind: one field per field of the ruleset's schema for that kind."""

    schema_prefix = FIELD_PREFIX

    def __init__(
        self,
        *args: Any,
        campaign: Campaign,
        kind: str,
        key: str | None,
        values: dict[str, Any] | None,
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        self.campaign, self.kind, self.key = campaign, kind, key
        schema = homebrew.schema_for(campaign.ruleset_class, kind)
        assert schema is not None  # the views ask _kind_or_404 first
        self.schema = schema
        add_schema_fields(
            self, self.schema, FIELD_PREFIX, values if values is not None else self.schema.defaults()
        )
        self.definition: dict[str, Any] | None = None

    def clean(self) -> dict[str, Any]:
        super().clean()
        cleaned = self.cleaned_data
        values, errors = collect(self, self.schema, FIELD_PREFIX)
        if not errors:  # names typed in content fields (a monster's weapons...) become their keys
            values, errors = check_sheet(self.schema, values, campaign_content(self.campaign))
        if errors:
            report(self, errors, FIELD_PREFIX)
            return cleaned
        key = self.key or homebrew.free_key(self.campaign, self.kind, values.get("name", ""))
        definition, errors = homebrew.validate_entry(self.campaign, self.kind, key, values)
        report(self, errors, FIELD_PREFIX)
        if not errors:
            self.key, self.definition = key, definition
        return cleaned

    def save(self) -> ContentEntry:
        entry, _ = ContentEntry.objects.update_or_create(
            campaign=self.campaign, kind=self.kind, key=self.key, defaults={"data": self.definition}
        )
        return entry


def _kind_or_404(campaign: Campaign, kind: str) -> str:
    if kind not in homebrew.kinds_of(campaign.ruleset_class):
        raise Http404("No such kind of content.")
    return kind


def _rows(campaign: Campaign) -> list[dict[str, Any]]:
    """Per kind: the built-in entries (not replaced) and the campaign's own, by name."""
    ruleset = campaign.ruleset_class
    builtin = homebrew.builtin(ruleset)
    own = homebrew.entries(campaign)
    sections = []
    for kind in homebrew.kinds_of(ruleset):
        mine = own.get(kind, {})
        sections.append(
            {
                "kind": kind,
                "label": homebrew.kind_label(kind),
                "own": [(key, d.get("name", key), key in builtin.get(kind, {})) for key, d in mine.items()],
                "builtin": [
                    (key, d.get("name", key)) for key, d in builtin.get(kind, {}).items() if key not in mine
                ],
            }
        )
    return sections


@login_required
def content_list(request: MemberRequest, pk: int) -> HttpResponse:
    campaign, membership = campaign_for(request, pk, roles=GM_ONLY)
    return render(
        request,
        "vtt/content_list.html",
        {"campaign": campaign, "membership": membership, "sections": _rows(campaign)},
    )


@login_required
@require_http_methods(["GET", "POST"])
def content_create(request: MemberRequest, pk: int, kind: str) -> HttpResponse:
    campaign, membership = campaign_for(request, pk, roles=GM_ONLY)
    _kind_or_404(campaign, kind)
    values = None
    copy = request.GET.get("copy")
    if copy:
        source = homebrew.merged(campaign).get(kind, {}).get(copy)
        if source is None:
            raise Http404("Nothing to copy.")
        values = {**source, "name": f"{source.get('name', copy)} (copy)"[:60]}
    form = ContentForm(request.POST or None, campaign=campaign, kind=kind, key=None, values=values)
    return _content_form(request, campaign, membership, form, "{} added to this campaign's content.")


def _content_form(
    request: MemberRequest,
    campaign: Campaign,
    membership: Any,
    form: ContentForm,
    saved: str,
    **shown: Any,
) -> HttpResponse:
    """The homebrew entry's form: saved (``saved`` says so, with the entry's name) and back to the list,
    or shown again with its errors and what else the page shows (``shown``)."""
    if request.method == "POST" and form.is_valid():
        with transaction.atomic():
            entry = form.save()
        messages.success(request, saved.format(entry.name))
        return redirect("content", campaign.pk)
    kind = form.kind
    context = {"campaign": campaign, "membership": membership, "form": form, "kind": kind, **shown}
    return render(request, "vtt/content_form.html", {**context, "kind_label": homebrew.kind_label(kind)})


def _entry_or_404(campaign: Campaign, kind: str, key: str) -> ContentEntry:
    entry = ContentEntry.objects.filter(campaign=campaign, kind=kind, key=key).first()
    if entry is None:
        raise Http404("No such entry.")
    return entry


@login_required
@require_http_methods(["GET", "POST"])
def content_edit(request: MemberRequest, pk: int, kind: str, key: str) -> HttpResponse:
    campaign, membership = campaign_for(request, pk, roles=GM_ONLY)
    _kind_or_404(campaign, kind)
    entry = _entry_or_404(campaign, kind, key)
    form = ContentForm(request.POST or None, campaign=campaign, kind=kind, key=key, values=entry.data)
    uses = homebrew.uses(campaign, kind, key)
    return _content_form(
        request, campaign, membership, form, "{} saved. New battles use this version.", entry=entry, uses=uses
    )


@login_required
@require_POST
def content_delete(request: MemberRequest, pk: int, kind: str, key: str) -> HttpResponse:
    campaign, _ = campaign_for(request, pk, roles=GM_ONLY)
    entry = _entry_or_404(campaign, kind, key)
    where = homebrew.uses(campaign, kind, key)
    if where:
        messages.error(request, f"{entry.name} is in use and was not deleted: used by {', '.join(where)}.")
        return redirect("content_edit", campaign.pk, kind, key)
    entry.delete()
    messages.success(request, f"{entry.name} deleted.")
    return redirect("content", campaign.pk)


@login_required
@require_POST
def content_character(request: MemberRequest, pk: int, kind: str, key: str) -> HttpResponse:
    """Make a campaign monster (a character the GM can add to battles) from a homebrew stat block."""
    campaign, _ = campaign_for(request, pk, roles=GM_ONLY)
    if kind != homebrew.MONSTERS:
        raise Http404("Only monsters become characters.")
    entry = _entry_or_404(campaign, kind, key)
    sheet = {k: v for k, v in entry.data.items() if k != "name"}
    character = Character(campaign=campaign, name=entry.name, kind=CharacterKind.MONSTER, sheet=sheet)
    character.full_clean()
    character.save()
    messages.success(request, f"{character.name} is now one of this campaign's monsters; add it to a battle.")
    return redirect("content", campaign.pk)


@login_required
def content_export(request: MemberRequest, pk: int) -> HttpResponse:
    campaign, _ = campaign_for(request, pk, roles=GM_ONLY)
    body = json.dumps(homebrew.export_pack(campaign), indent=2, ensure_ascii=False)
    response = HttpResponse(body, content_type="application/json; charset=utf-8")
    name = slugify(campaign.name) or "campaign"
    response["Content-Disposition"] = f'attachment; filename="{name}-content.json"'
    return response


@login_required
@require_http_methods(["GET", "POST"])
def content_import(request: MemberRequest, pk: int) -> HttpResponse:
    """Upload a pack: a preview of what is added and replaced; written only when the GM confirms."""
    campaign, membership = campaign_for(request, pk, roles=GM_ONLY)
    context: dict[str, Any] = {"campaign": campaign, "membership": membership}
    if request.method == "GET":
        return render(request, "vtt/content_import.html", context)
    pending = request.session.get(PENDING_IMPORT) or {}
    if request.POST.get("confirm"):
        if pending.get("campaign") != campaign.pk or pending.get("digest") != request.POST.get("confirm"):
            messages.error(request, "That preview has expired; choose the file again.")
            return redirect("content_import", campaign.pk)
        raw = pending["pack"]
    else:
        upload = request.FILES.get("file")
        if upload is None:
            context["plan"] = homebrew.ImportPlan(False, "Choose a content pack file (.json).")
            return render(request, "vtt/content_import.html", context, status=400)
        if (upload.size or 0) > homebrew.MAX_PACK_BYTES:
            context["plan"] = homebrew.ImportPlan(False, "The file is too large (at most 2 MB).")
            return render(request, "vtt/content_import.html", context, status=400)
        raw = upload.read()
    plan = homebrew.read_pack(campaign, raw)
    context["plan"] = plan
    if not plan.ok:
        request.session.pop(PENDING_IMPORT, None)
        return render(request, "vtt/content_import.html", context, status=400)
    if not request.POST.get("confirm"):
        text = raw.decode("utf-8-sig") if isinstance(raw, bytes) else raw
        digest = hashlib.sha256(text.encode()).hexdigest()
        request.session[PENDING_IMPORT] = {"campaign": campaign.pk, "digest": digest, "pack": text}
        context["digest"] = digest
        return render(request, "vtt/content_import.html", context)
    count = homebrew.apply_pack(campaign, plan.content)
    request.session.pop(PENDING_IMPORT, None)
    messages.success(request, f"Imported {count} entr{'y' if count == 1 else 'ies'}.")
    return redirect("content", campaign.pk)
