"""Pushes to open campaign pages (``vtt.consumers``): the battle list after a battle is created or starts."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.template.loader import render_to_string

from vtt.sockets import campaign_group, safe_group_send

if TYPE_CHECKING:
    from combat.models import Battle
    from vtt.models import Campaign

log = logging.getLogger(__name__)


def battles_changed(campaign: Campaign, started: Battle | None = None) -> None:
    """Render the campaign's battle list for the GM and for players (and a notice when ``started`` began) and
    push it to members; each socket sends its member's."""
    try:
        layer = get_channel_layer()
        if layer is None:
            return
        notice = render_to_string("combat/campaign_battles.html#battle_notice", {"started": started})
        # Two renders: the players' list shows only what has happened (``combat.archive.battle_rows``).
        html = render_to_string("combat/campaign_battles.html#battle_list", {"campaign": campaign}) + notice
        gm_html = (
            render_to_string(
                "combat/campaign_battles.html#battle_list",
                {"campaign": campaign, "membership": {"is_gm": True}},
            )
            + notice
        )
        async_to_sync(safe_group_send)(
            layer, campaign_group(campaign.pk), {"type": "campaign.battles", "html": html, "gm_html": gm_html}
        )
    except Exception:  # a failed push must never fail the request that changed the battle
        log.exception("campaign push for campaign %s failed", campaign.pk)
