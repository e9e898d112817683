"""A D20 Luck table for the battle page and live tests.

Personas: ``gm`` runs it, ``player`` owns Ayla (a Mage), ``other_player`` owns
Bram (a Fighter), ``observer`` watches, ``outsider`` is in no campaign. The
Goblin's HP (4321) is a value only the GM may see while the campaign hides
enemy HP: tests look for it in every player's HTML and frames.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import get_user_model

from combat import presenters, services, sockets
from combat.engine.rulesets.luck.content import HEROES, MONSTERS
from combat.models import Battle
from vtt.models import Campaign, Character, Membership

SECRET_HP = 4321
SEED = 20261123  # initiative: Ayla, Goblin, Bram; the Goblin's spear hits Bram
PASSWORD = "table-pass-9x"


def make_users(*names: str) -> dict[str, Any]:
    User = get_user_model()
    return {name: User.objects.create_user(name, password=PASSWORD) for name in names}


def make_campaign(users: dict[str, Any], *, hide_enemy_hp: bool = True) -> Campaign:
    campaign = Campaign.objects.create(
        name="The Keep", ruleset="luck", owner=users["gm"], options={"hide_enemy_hp": hide_enemy_hp}
    )
    for name, role in (
        ("gm", "gm"),
        ("player", "player"),
        ("other_player", "player"),
        ("observer", "observer"),
    ):
        if name in users:
            Membership.objects.create(campaign=campaign, user=users[name], role=role)
    return campaign


def make_characters(campaign: Campaign, users: dict[str, Any]) -> dict[str, Character]:
    goblin = dict(MONSTERS["Goblin Skirmisher"], hp=SECRET_HP)
    return {
        "ayla": Character.objects.create(
            campaign=campaign, owner=users["player"], name="Ayla", sheet=dict(HEROES["Mage"], initiative=30)
        ),
        "bram": Character.objects.create(
            campaign=campaign,
            owner=users.get("other_player"),
            name="Bram",
            sheet=dict(HEROES["Fighter"], initiative=-5),
        ),
        "goblin": Character.objects.create(campaign=campaign, kind="monster", name="Goblin", sheet=goblin),
    }


def make_battle(
    campaign: Campaign,
    gm: Any,
    characters: dict[str, Character],
    *,
    start: bool = True,
    name: str = "Gate fight",
) -> Battle:
    """A 10x8 battle: Ayla at (0,0), Bram at (0,2), the Goblin at (3,0) within Ayla's Fire Bolt."""
    result = services.create_battle(
        campaign, gm, name, 10, 8, ruleset="luck", options=campaign.house_rules(), seed=SEED
    )
    assert result.ok, result.reason
    bid = result.battle_id
    for key, pos in (("ayla", [0, 0]), ("bram", [0, 2]), ("goblin", [3, 0])):
        added = services.add_combatant(bid, gm, characters[key], pos=pos)
        assert added.ok, added.reason
    if start:
        started = services.start_battle(bid, gm)
        assert started.ok, started.reason
    return Battle.objects.get(pk=bid)


def table(hide_enemy_hp: bool = True, start: bool = True) -> tuple[dict[str, Any], Campaign, Battle]:
    users = make_users("gm", "player", "other_player", "observer", "outsider")
    campaign = make_campaign(users, hide_enemy_hp=hide_enemy_hp)
    characters = make_characters(campaign, users)
    return users, campaign, make_battle(campaign, users["gm"], characters, start=start)


def current(battle: Battle) -> Any:
    battle.refresh_from_db()
    return services.load_state(battle).current()


def goblin_attacks_bram(battle: Battle, users: dict[str, Any]) -> services.Result:
    """Ayla ends her turn; on the Goblin's turn the GM moves it next to Bram and attacks with its spear.

    With the table's seed the Luck roll hits, so Bram's Parry opens a reaction window
    addressed to ``other_player`` (and the GM).
    """
    battle.refresh_from_db()
    state = services.load_state(battle)
    ayla = state.current()
    r = services.submit_action(battle.pk, users["player"], {"kind": "end_turn", "actor": ayla.id}, battle.seq)
    assert r.ok, r.reason
    state = r.state
    goblin = state.current()
    assert goblin is not None and goblin.name == "Goblin", goblin
    bram = next(c for c in state.combatants.values() if c.name == "Bram")
    r = services.gm_override(
        battle.pk, users["gm"], {"kind": "gm.move", "params": {"combatant": goblin.id, "to": [1, 2]}}, r.seq
    )
    assert r.ok, r.reason
    return services.submit_action(
        battle.pk,
        users["gm"],
        {"kind": "ability", "actor": goblin.id, "params": {"weapon": "spear", "targets": [bram.id]}},
        r.seq,
    )


@pytest.fixture(autouse=True)
def fresh_live_caches():
    """Database ids repeat between tests: start each with empty process caches."""
    presenters.clear_caches()
    sockets.reset_store()
    yield
    presenters.clear_caches()
    sockets.reset_store()
