"""Read-only admin for battles and their logs: services are the only writer.

An admin may look, check that a snapshot agrees with its log, and delete a
whole battle; editing a snapshot or an event here would break ENG-1.
"""

from __future__ import annotations

import json
from typing import Any

from django.contrib import admin, messages
from django.db.models import Model, QuerySet
from django.http import HttpRequest

from combat import services
from combat.engine.state import BattleState
from combat.models import Battle, BattleEvent


class ReadOnly(admin.ModelAdmin[Any]):
    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False


@admin.register(Battle)
class BattleAdmin(ReadOnly):
    list_display = ("name", "campaign", "ruleset", "status", "seq", "updated")
    list_filter = ("status", "ruleset")
    list_select_related = ("campaign",)
    search_fields = ("name", "campaign__name")
    readonly_fields = (
        "campaign",
        "name",
        "ruleset",
        "seed",
        "status",
        "seq",
        "created",
        "updated",
        "snapshot",
    )
    actions = ("check_against_log",)

    @admin.action(description="Check that the snapshot equals a replay of the log")
    def check_against_log(self, request: HttpRequest, queryset: QuerySet[Battle]) -> None:
        for battle in queryset:
            rebuilt = json.loads(json.dumps(services.rebuild(battle.pk).to_dict()))
            stored = json.loads(json.dumps(BattleState.from_dict(battle.snapshot).to_dict()))  # today's names
            if rebuilt == stored:
                self.message_user(request, f"{battle}: snapshot agrees with {battle.seq} events.")
            else:
                self.message_user(request, f"{battle}: snapshot differs from its log.", messages.ERROR)


@admin.register(BattleEvent)
class BattleEventAdmin(ReadOnly):
    list_display = ("battle", "seq", "type", "actor", "created")
    list_filter = ("type",)
    list_select_related = ("battle", "actor")
    search_fields = ("battle__name", "type")
    readonly_fields = ("battle", "seq", "type", "data", "actor", "client_token", "created")
    ordering = ("battle", "seq")

    def has_delete_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False  # undo is a service: it rebuilds the snapshot
