"""Admin: character sheets edited field by field, validated by the ruleset schema."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from django import forms
from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest

from combat.engine.rulesets import RULESETS, ruleset_choices
from combat.engine.schema import SheetSchema
from vtt.forms import character_form_class
from vtt.models import Campaign, Character, Invite, Membership
from vtt.schema_forms import SHEET_PREFIX

if TYPE_CHECKING:
    from django.contrib.admin.options import _FieldsetSpec


class RulesetFilter(admin.SimpleListFilter):
    title = "ruleset"
    parameter_name = "ruleset"

    def lookups(self, request: HttpRequest, model_admin: admin.ModelAdmin[Any]) -> Iterable[tuple[str, str]]:
        return ruleset_choices()

    def queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any]:
        if self.value():
            return queryset.filter(**{self.field_path: self.value()})
        return queryset

    field_path = "campaign__ruleset"


class CampaignRulesetFilter(RulesetFilter):
    field_path = "ruleset"


class CampaignAdminForm(forms.ModelForm[Campaign]):
    ruleset = forms.ChoiceField(choices=ruleset_choices)

    class Meta:
        model = Campaign
        fields = ("name", "ruleset", "options", "owner")


class MembershipInline(admin.TabularInline[Membership, Campaign]):
    model = Membership
    extra = 0
    autocomplete_fields = ("user",)


@admin.register(Campaign)
class CampaignAdmin(admin.ModelAdmin[Campaign]):
    form = CampaignAdminForm
    list_display = ("name", "ruleset", "owner", "created")
    list_filter = (CampaignRulesetFilter,)
    search_fields = ("name",)
    inlines = (MembershipInline,)


@admin.register(Membership)
class MembershipAdmin(admin.ModelAdmin[Membership]):
    list_display = ("user", "campaign", "role", "joined")
    list_filter = ("role", "campaign")
    search_fields = ("user__username", "campaign__name")


@admin.register(Invite)
class InviteAdmin(admin.ModelAdmin[Invite]):
    list_display = ("campaign", "role", "uses", "max_uses", "expires_at", "created_by")
    list_filter = ("campaign", "role")
    readonly_fields = ("token", "uses")


@admin.register(Character)
class CharacterAdmin(admin.ModelAdmin[Character]):
    """The sheet is a set of typed fields generated from the campaign ruleset's schema.

    Adding: open the add page with ``?campaign=<id>`` to fill the sheet at once;
    without it the sheet starts at the ruleset's defaults, editable after saving.
    """

    list_display = ("name", "kind", "campaign", "ruleset", "owner", "updated")
    list_filter = ("campaign", RulesetFilter, "kind")
    search_fields = ("name", "campaign__name", "owner__username")
    list_select_related = ("campaign", "owner")

    @admin.display(description="ruleset", ordering="campaign__ruleset")
    def ruleset(self, obj: Character) -> str:
        return obj.campaign.ruleset_name

    def _campaign(self, request: HttpRequest, obj: Character | None) -> Campaign | None:
        if obj is not None and obj.campaign_id:
            return obj.campaign
        pk = request.GET.get("campaign", "")
        return Campaign.objects.filter(pk=pk).first() if pk.isdigit() else None

    def _schema(self, request: HttpRequest, obj: Character | None) -> SheetSchema | None:
        campaign = self._campaign(request, obj)
        if campaign is None or campaign.ruleset not in RULESETS:
            return None
        return campaign.ruleset_class.sheet_schema

    def get_readonly_fields(self, request: HttpRequest, obj: Character | None = None) -> tuple[str, ...]:
        # A sheet belongs to its campaign's ruleset: moving it would invalidate it.
        return ("campaign",) if obj is not None else ()

    def get_form(
        self, request: HttpRequest, obj: Character | None = None, change: bool = False, **kwargs: Any
    ) -> type[forms.ModelForm[Character]]:
        kwargs["form"] = character_form_class(self._schema(request, obj))
        return super().get_form(request, obj, change=change, **kwargs)

    def get_fieldsets(self, request: HttpRequest, obj: Character | None = None) -> _FieldsetSpec:
        names = list(self.get_fields(request, obj))
        sheet = [n for n in names if isinstance(n, str) and n.startswith(SHEET_PREFIX)]
        main = [n for n in names if n not in sheet]
        campaign = self._campaign(request, obj)
        if not sheet:
            return [
                (
                    None,
                    {
                        "fields": main,
                        "description": "The sheet starts with the ruleset's defaults; edit it after saving.",
                    },
                )
            ]
        assert campaign is not None  # the sheet's fields come from its campaign's schema
        return [(None, {"fields": main}), (f"Sheet ({campaign.ruleset_name})", {"fields": tuple(sheet)})]
