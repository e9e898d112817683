"""The campaign page's list of kept battles (date, participants, outcome)."""

from __future__ import annotations

from django import template

from combat.archive import BattleRow
from combat.archive import battle_rows as rows_of
from vtt.models import Campaign

register = template.Library()


@register.simple_tag
def battle_rows(campaign: Campaign) -> list[BattleRow]:
    return rows_of(campaign)
