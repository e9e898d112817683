"""The campaign page's list of kept battles (date, participants, outcome)."""

from __future__ import annotations

from typing import Any

from django import template

from combat.archive import BattleRow
from combat.archive import battle_rows as rows_of
from vtt.models import Campaign

register = template.Library()


@register.simple_tag(takes_context=True)
def battle_rows(context: Any, campaign: Campaign) -> list[BattleRow]:
    """The rows the viewer may read: the GM's (``membership.is_gm``) or any player's."""
    membership = context.get("membership")
    gm = bool(
        membership.get("is_gm") if isinstance(membership, dict) else getattr(membership, "is_gm", False)
    )
    return rows_of(campaign, gm)
