"""The demo's battle: each demo campaign (``manage.py seed_demo``) gets a battle in progress, so the table
shows at once after ``make run``.

The campaign's player characters against two of its monsters, placed facing each other
(``combat.setup``), started; the tactics play the monsters' turns that come before the first hero's,
so the battle waits on a player (or a question to one). Made once: a campaign that already has
the battle keeps it as it is (``seed_demo`` stays idempotent).
"""

from __future__ import annotations

import logging
from typing import Any

from combat import services, setup
from combat.engine.tactics import gm_may_leave
from combat.models import Battle
from vtt.models import Campaign, CharacterKind

log = logging.getLogger(__name__)

NAME = "Demo battle"
BOARD = (8, 10)  # squares: as tall as a phone held upright, both sides in its view
MONSTERS = 2
MAX_TURNS = 8  # monsters' turns played before a hero's: a battle of monsters alone would end first


def battle_in_progress(sender: Any, campaign: Campaign, users: dict[str, Any], **kwargs: Any) -> bool:
    """Receiver of ``vtt.demo.campaign_seeded``: make and start the campaign's demo battle; True when made."""
    if Battle.objects.filter(campaign=campaign, name=NAME).exists():
        return False
    gm = users["gm"]
    characters = list(campaign.characters.order_by("pk"))
    heroes = [c for c in characters if c.kind == CharacterKind.PC]
    foes = [c for c in characters if c.kind == CharacterKind.MONSTER][:MONSTERS]
    recruits = [setup.Recruit(c) for c in heroes + foes]
    made = setup.setup_battle(campaign, gm, NAME, *BOARD, recruits)
    if not made.ok or made.battle_id is None:
        log.warning("demo battle of %s not made: %s", campaign, made.reason)
        return False
    result = services.start_battle(made.battle_id, gm)
    for _ in range(MAX_TURNS):
        state = result.state
        acting = state.current() if state is not None else None
        if not result.ok or state is None or state.pending is not None or acting is None:
            break
        if not gm_may_leave(acting):
            break  # a hero's turn: the table waits on its player
        result = services.let_tactics_act(made.battle_id, gm)
    return True
