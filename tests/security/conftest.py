"""The security tests' world: the personas of tests/table.py with an admin, and two battles.

Personas: ``anonymous``; ``outsider`` (an account, no membership); ``admin``
(a superuser who is not a member of the campaign); ``observer``; ``player``
(owns Ayla, who acts first); ``other_player`` (owns Bram); ``gm``. The
Goblin is a monster the GM controls (the NPC); its HP, ``SECRET_HP``, is hidden
from players and observers because the campaign hides enemy HP.

Admin policy (see tests/security/__init__.py): a superuser edits
everything in Django's admin (/admin/), but the campaign and battle pages
treat them like any other account: without a membership the campaign does
not exist for them (404) and their sockets are refused.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from combat import services
from combat.models import Battle, BattleEvent
from tests.table import (
    PASSWORD,
    PERSONAS,
    SECRET_HP,
    make_battle,
    make_characters,
    make_users,
    table_campaign,
)

ROLES = ("anonymous", "outsider", "admin", "observer", "player", "other_player", "gm")
__all__ = ["ROLES", "SECRET_HP", "PASSWORD", "fingerprint"]


@pytest.fixture(autouse=True)
def fast_password_hashing(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def make_world() -> dict[str, Any]:
    """Users, campaign, characters, a started battle and a battle still in setup."""
    users = make_users(*PERSONAS)
    users["admin"] = get_user_model().objects.create_superuser("admin", password=PASSWORD)
    campaign = table_campaign(users, hide_enemy_hp=True)
    characters = make_characters(campaign, users)
    battle = make_battle(campaign, users["gm"], characters)
    setup = make_battle(campaign, users["gm"], characters, start=False, name="Ambush")
    return {"users": users, "campaign": campaign, "characters": characters, "battle": battle, "setup": setup}


@pytest.fixture
def world(db) -> dict[str, Any]:
    return make_world()


def client_for(world: dict[str, Any], role: str, **kwargs: Any) -> Client:
    client = Client(**kwargs)
    if role != "anonymous":
        client.force_login(world["users"][role])
    return client


def fingerprint(battle_id: int) -> tuple[int, Any, list[tuple[int, str]]]:
    """Everything a refusal must leave alone: seq, snapshot, and the log."""
    battle = Battle.objects.get(pk=battle_id)
    log = list(BattleEvent.objects.filter(battle_id=battle_id).order_by("seq").values_list("seq", "type"))
    return battle.seq, battle.snapshot, log


def combatant_named(battle: Battle, name: str) -> str:
    battle.refresh_from_db()
    state = services.load_state(battle)
    return next(cid for cid, c in state.combatants.items() if c.name == name)


def open_reaction(world: dict[str, Any]) -> dict[str, Any]:
    """Make the Goblin's spear hit Bram so that Bram's owner (other_player) is asked about Parry.

    The GM moves the Goblin next to Bram and skips to its turn; the battle's
    dice seed is chosen so the attack hits (scripted dice through a real
    service call). Returns the pending decision as a dict.
    """
    from combat.engine.actions import Action, Refusal
    from combat.engine.core import legal_actions, resolve
    from combat.engine.dice import Dice

    battle, gm = world["battle"], world["users"]["gm"]
    goblin, bram = combatant_named(battle, "Goblin"), combatant_named(battle, "Bram")
    moved = services.gm_override(
        battle.pk, gm, {"kind": "gm.move", "params": {"combatant": goblin, "to": [1, 2]}}
    )
    assert moved.ok, moved.reason
    for _ in range(6):
        battle.refresh_from_db()
        if services.load_state(battle).current().id == goblin:
            break
        assert services.gm_override(battle.pk, gm, {"kind": "gm.skip_turn", "params": {}}).ok
    battle.refresh_from_db()
    state = services.load_state(battle)
    assert state.current().id == goblin
    for option in legal_actions(state, goblin):
        if option.available and bram in option.targets:
            action = Action(option.kind, goblin, {**option.params, "targets": [bram]})
            for seed in range(3000):
                outcome = resolve(state, action, Dice(seed, battle.seq))
                if not isinstance(outcome, Refusal) and outcome[1].pending is not None:
                    Battle.objects.filter(pk=battle.pk).update(seed=seed)
                    result = services.submit_action(
                        battle.pk, gm, {"kind": action.kind, "actor": goblin, "params": action.params}
                    )
                    assert result.ok, result.reason
                    battle.refresh_from_db()
                    pending = services.load_state(battle).pending
                    assert pending is not None
                    return {
                        "id": pending.id,
                        "combatant": pending.combatant,
                        "options": [o["key"] for o in pending.options],
                    }
    raise AssertionError("no attack on Bram opens a reaction")
