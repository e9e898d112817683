"""Load the demo: a GM, two players, one campaign per ruleset with PCs, monsters and a battle in progress.

Sheets come from the ruleset package's ``HEROES`` and ``MONSTERS`` when it ships
them, else from the schema's defaults; the player characters take the names of
its ``DEMO_PARTY``.

The battle is the combat app's (``combat.demo``, told through ``vtt.demo.campaign_seeded``).

Idempotent: whatever already exists (found by username, campaign name and
character name) is left exactly as it is, so a second run changes nothing.
"""

from __future__ import annotations

import sys
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.core.management.base import BaseCommand
from django.db import transaction

from combat.engine.rulesets import RULESETS
from combat.engine.rulesets.base import Ruleset
from vtt.demo import campaign_seeded
from vtt.models import Campaign, Character, CharacterKind, Membership, Role

USERS = (
    # username, password, is_superuser
    ("gm", "gm-demo-pass", True),
    ("alice", "alice-demo-pass", False),
    ("bob", "bob-demo-pass", False),
)


def sheet_from(ruleset: type[Ruleset], changes: dict[str, Any]) -> dict[str, Any] | None:
    """Defaults with ``changes`` applied; changes the schema refuses are dropped."""
    schema = ruleset.sheet_schema
    sheet = schema.defaults() | {k: v for k, v in changes.items() if schema.get(k)}
    clean, errors = schema.validate(sheet)
    if errors:
        sheet = {k: v for k, v in sheet.items() if k not in errors}
        clean, errors = schema.validate(schema.defaults() | sheet)
    return None if errors else clean


def heroes_for(ruleset: type[Ruleset]) -> list[dict[str, Any]]:
    """Sample PC sheets the ruleset module ships (``HEROES``), in order; may be empty."""
    shipped = getattr(sys.modules.get(ruleset.__module__), "HEROES", None)
    if isinstance(shipped, dict):
        return [dict(sheet) for sheet in shipped.values() if isinstance(sheet, dict)]
    return []


def monsters_for(ruleset: type[Ruleset]) -> dict[str, dict[str, Any]]:
    """The ruleset module's own ``MONSTERS`` when it has one, else ours."""
    module = sys.modules.get(ruleset.__module__)
    shipped = getattr(module, "MONSTERS", None) or getattr(ruleset, "MONSTERS", None)
    if isinstance(shipped, dict) and shipped:
        return {str(name): dict(data) for name, data in list(shipped.items())[:4] if isinstance(data, dict)}
    return {"Brute": {}, "Skirmisher": {}}


def party_for(ruleset: type[Ruleset]) -> tuple[str, ...]:
    """Names of the demo's player characters (the ruleset package's ``DEMO_PARTY``)."""
    shipped = getattr(sys.modules.get(ruleset.__module__), "DEMO_PARTY", None)
    return tuple(shipped) if shipped else ("Hero", "Sidekick")


class Command(BaseCommand):
    help = "Create the demo users and one campaign per ruleset, each with a battle in progress (safe to run again)."

    @transaction.atomic
    def handle(self, *args: Any, **options: Any) -> None:
        accounts = get_user_model()
        users: dict[str, User] = {}
        created_any = False
        for username, password, admin in USERS:
            user, created = accounts.objects.get_or_create(
                username=username, defaults={"is_staff": admin, "is_superuser": admin}
            )
            if created:
                user.set_password(password)
                user.save(update_fields=["password"])
                created_any = True
            users[username] = user
        gm = users["gm"]
        for key, ruleset in RULESETS.items():
            campaign, created = Campaign.objects.get_or_create(
                owner=gm,
                name=f"Demo: {ruleset.name}",
                defaults={"ruleset": key, "options": ruleset.default_options()},
            )
            created_any |= created
            for username, role in (("gm", Role.GM), ("alice", Role.PLAYER), ("bob", Role.PLAYER)):
                _, created = Membership.objects.get_or_create(
                    user=users[username], campaign=campaign, defaults={"role": role}
                )
                created_any |= created
            if campaign.ruleset != key:
                continue  # someone renamed things by hand; leave their campaign alone
            heroes = heroes_for(ruleset)
            for i, (username, name) in enumerate(zip(("alice", "bob"), party_for(ruleset), strict=False)):
                sheet = heroes[i] if i < len(heroes) else {}
                created_any |= self._character(
                    campaign, ruleset, name, CharacterKind.PC, users[username], sheet
                )
            for name, changes in monsters_for(ruleset).items():
                created_any |= self._character(campaign, ruleset, name, CharacterKind.MONSTER, None, changes)
            # Other apps' parts of the demo (combat: a battle in progress, so the table shows at once).
            for _, made in campaign_seeded.send(sender=type(self), campaign=campaign, users=users):
                created_any |= bool(made)
        self.stdout.write(
            ("Demo loaded." if created_any else "Demo already loaded; nothing changed.") + " Logins:"
        )
        for username, password, admin in USERS:
            roles = "game master, admin" if admin else "player"
            self.stdout.write(f"  {username} / {password}  ({roles})")

    def _character(
        self,
        campaign: Campaign,
        ruleset: type[Ruleset],
        name: str,
        kind: CharacterKind,
        owner: User | None,
        changes: dict[str, Any],
    ) -> bool:
        if Character.objects.filter(campaign=campaign, name=name).exists():
            return False
        sheet = sheet_from(ruleset, changes)
        if sheet is None:
            self.stderr.write(f"Skipped {name}: its sheet does not fit {ruleset.name}.")
            return False
        character = Character(campaign=campaign, name=name, kind=kind, owner=owner, sheet=sheet)
        character.full_clean()
        character.save()
        return True
