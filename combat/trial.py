""" "Try a battle": a throwaway table with a battle already running, for a visitor with no account.

One click on the home page makes a guest account (``vtt.guest_models.Guest``) and a throwaway
campaign (``Campaign.throwaway``) of the chosen ruleset with: the visitor's hero (the ruleset's second
ready-made hero), an ally (its first, a non-player character fighting with the hero) and two of its
first monster, the sides facing each other one move apart (``combat.setup``); then the battle starts.
Its house rules are those of a table nobody runs (``Ruleset.unattended_options``): the tactics play
the ally and the monsters on their turns, so the visitor's first minute is playing. The visitor is
the campaign's only member, a player (the game master's role serves only to set the table up): the
table is theirs alone. ``manage.py cleanup_trials`` deletes it, and the guest, a day later.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from django.db import transaction

from combat import services, setup
from combat.engine.rulesets import get_ruleset
from vtt.content import character_templates
from vtt.guest_models import Guest
from vtt.models import Campaign, Character, CharacterKind, Membership, Role

if TYPE_CHECKING:
    from django.contrib.auth.models import User

VISITOR = "Visitor"  # the guest's display name: nobody else is at the table to read it
BOARD = (8, 10)  # squares: a board as tall as a phone held upright, both sides in its view
MONSTERS = 2
BATTLE_NAME = "First fight"


@dataclass(frozen=True)
class Trial:
    user: User
    campaign_id: int
    battle_id: int


class TrialFailed(Exception):
    """The table could not be made; ``str()`` says why (nothing of it was kept)."""


def start_trial(ruleset_key: str) -> Trial:
    """Make a visitor's throwaway table and start its battle, all in one transaction."""
    ruleset = get_ruleset(ruleset_key)
    with transaction.atomic():
        user = Guest.account(VISITOR)
        campaign = Campaign.objects.create(
            name=f"Try {ruleset.name}",
            ruleset=ruleset.key,
            owner=user,
            options=ruleset.unattended_options(),
            throwaway=True,
        )
        Guest.objects.create(user=user, campaign=campaign)
        seat = Membership.objects.create(user=user, campaign=campaign, role=Role.GM)  # to set the table up
        recruits = _cast(campaign, user)
        made = setup.setup_battle(campaign, user, BATTLE_NAME, *BOARD, recruits)
        if not made.ok or made.battle_id is None:
            raise TrialFailed(made.reason)
        started = services.start_battle(
            made.battle_id, user
        )  # the tactics play whoever comes before the hero
        if not started.ok:
            raise TrialFailed(started.reason)
        Membership.objects.filter(pk=seat.pk).update(role=Role.PLAYER)
    return Trial(user, campaign.pk, made.battle_id)


def is_visitor(user: object) -> bool:
    """A guest of a throwaway table (who may start another), not an account of its own."""
    campaign_id = Guest.campaign_of(user)
    return campaign_id is not None and Campaign.objects.filter(pk=campaign_id, throwaway=True).exists()


def _cast(campaign: Campaign, user: User) -> list[setup.Recruit]:
    """The visitor's hero, an ally and the monsters, as characters of the throwaway campaign."""
    heroes = list(character_templates(campaign, "pc").items())
    monsters = list(character_templates(campaign, "monster").items())
    if len(heroes) < 2 or not monsters:
        raise TrialFailed(f"{campaign.ruleset_name} has no ready-made heroes and monsters to try.")
    # The visitor plays the second hero (a ranged one in each starter pack: it strikes on its first turn);
    # the first, sturdier, stands beside it as the ally.
    (ally_name, ally_sheet), (hero_name, hero_sheet) = heroes[:2]
    foe_name, foe_sheet = monsters[0]
    hero = Character.objects.create(
        campaign=campaign, name=hero_name, kind=CharacterKind.PC, owner=user, sheet=hero_sheet
    )
    ally = Character.objects.create(
        campaign=campaign, name=ally_name, kind=CharacterKind.NPC, sheet=ally_sheet
    )
    foe = Character.objects.create(
        campaign=campaign, name=foe_name, kind=CharacterKind.MONSTER, sheet=foe_sheet
    )
    return [setup.Recruit(hero), setup.Recruit(ally, side="party"), setup.Recruit(foe, MONSTERS)]
