"""The personas of the web, live, security and browser tests, their campaign, and a D20 Luck table.

Personas (``PERSONAS``): ``gm`` runs the campaign; ``player`` and ``other_player``
each own a character; ``observer`` watches; ``outsider`` has an account but is
in no campaign. Every account's password is ``PASSWORD``. tests/conftest.py
offers each persona, and their campaign, as a fixture.

The table (``table()``): a started D20 Luck battle in "The Keep", where
``player`` owns Ayla (a Mage) and ``other_player`` owns Bram (a Fighter). The
Goblin's HP (``SECRET_HP``, 4321) is a value only the GM may see while the
campaign hides enemy HP: tests look for it in every player's HTML and frames.
"""

from __future__ import annotations

import random
import re
from typing import Any

from django.contrib.auth import get_user_model

from combat import services
from combat.engine.autoplay import random_action
from combat.engine.rulesets import get_ruleset
from combat.engine.rulesets.luck.content import HEROES, MONSTERS
from combat.models import Battle
from combat.table import clear_caches
from vtt import homebrew, sockets
from vtt.models import Campaign, Character, CharacterKind, Membership, Role

PERSONAS = ("gm", "player", "other_player", "observer", "outsider")
PASSWORD = "table-pass-9x"
SECRET_HP = 4321
SEED = 20261123  # initiative: Ayla, Goblin, Bram; the Goblin's spear hits Bram


def make_user(username: str, **extra: Any) -> Any:
    return get_user_model().objects.create_user(username=username, password=PASSWORD, **extra)


def make_users(*names: str) -> dict[str, Any]:
    """An account per name (every persona when none is named)."""
    return {name: make_user(name) for name in names or PERSONAS}


def make_campaign(
    gm: Any,
    ruleset: str = "mist",
    name: str = "The Campaign",
    options: dict[str, Any] | None = None,
    **members: list[Any],
) -> Campaign:
    """A campaign run by ``gm``; ``members`` maps a role to its users, e.g. ``player=[a, b]``.

    ``options`` are the house rules as stored (the ruleset's defaults when not given).
    """
    if options is None:
        options = get_ruleset(ruleset).default_options()
    campaign = Campaign.objects.create(name=name, ruleset=ruleset, owner=gm, options=options)
    Membership.objects.create(user=gm, campaign=campaign, role=Role.GM)
    for role, users in members.items():
        for user in users:
            Membership.objects.create(user=user, campaign=campaign, role=role)
    return campaign


def make_character(campaign, name, kind=CharacterKind.PC, owner=None, **changes) -> Character:
    """A character whose sheet is the ruleset's defaults with ``changes``, validated like a form's."""
    sheet = campaign.ruleset_class.sheet_schema.defaults() | changes
    character = Character(campaign=campaign, name=name, kind=kind, owner=owner, sheet=sheet)
    character.full_clean()
    character.save()
    return character


def table_campaign(users: dict[str, Any], *, hide_enemy_hp: bool = True) -> Campaign:
    """The table's D20 Luck campaign, "The Keep", with those of the personas in ``users``."""
    return make_campaign(
        users["gm"],
        "luck",
        "The Keep",
        options={"hide_enemy_hp": hide_enemy_hp},
        player=[users[name] for name in ("player", "other_player") if name in users],
        observer=[users["observer"]] if "observer" in users else [],
    )


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
    """(users, campaign, battle): every persona, The Keep, and its battle."""
    users = make_users(*PERSONAS)
    campaign = table_campaign(users, hide_enemy_hp=hide_enemy_hp)
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


def clear_live_caches() -> None:
    """Forget the battle display's caches and the sockets' store (database ids repeat between tests)."""
    clear_caches()
    sockets.reset_store()


def make_grul(campaign: Campaign) -> Character:
    """A campaign monster of the table's campaign: Grul, a goblin the GM made."""
    return Character.objects.create(
        campaign=campaign, kind="monster", name="Grul", sheet=dict(MONSTERS["Goblin Skirmisher"])
    )


def grul_table() -> tuple[dict[str, Any], Campaign, Character]:
    """(users, campaign, Grul): the GM and both players, The Keep with its characters, and Grul."""
    users = make_users("gm", "player", "other_player")
    campaign = table_campaign(users)
    make_characters(campaign, users)
    return users, campaign, make_grul(campaign)


def new_battle_form(monster: Character) -> dict[str, str]:
    """The new-battle form as a GM fills it: a name, a board, the party ticked, one of ``monster``."""
    return {"name": "At the Bridge", "width": "12", "height": "8", "party": "on", f"count_{monster.pk}": "1"}


_LOG_REGION = re.compile(r'<section id="log".*?</section>', re.S)
_ENTRY_SEQ = re.compile(r'<li class="entry[^"]*" data-seq="(\d+)"')


def log_seqs(html: str) -> list[list[int]]:
    """The seq of each entry of each log region in ``html`` (a page, an HTMX reply, a push), in order."""
    return [[int(s) for s in _ENTRY_SEQ.findall(region)] for region in _LOG_REGION.findall(html)]


def assert_each_entry_once(html: str) -> None:
    """``html`` has a log region, and each of its entries tells a different event, newest first."""
    regions = log_seqs(html)
    assert regions, "no log region"
    for seqs in regions:
        assert seqs and seqs == sorted(set(seqs), reverse=True), seqs


def play_battle(campaign, gm, seed: int = 7, steps: int = 60) -> Battle:
    """A battle of two starter monsters a side, played with random legal actions, then ended by the GM."""
    ruleset = campaign.ruleset_class
    result = services.create_battle(campaign, gm, "Skirmish", 8, 8, ruleset=ruleset.key, seed=seed)
    assert result.ok, result.reason
    bid = result.battle_id
    monsters = list(homebrew.builtin(ruleset)[homebrew.MONSTERS].values())
    for i, side in enumerate(("party", "enemy", "party", "enemy")):
        d = monsters[i % len(monsters)]
        sheet = {k: v for k, v in d.items() if k != "name"}
        place = {"row": "front"} if ruleset.board == "rows" else {"pos": [0 if side == "party" else 3, i]}
        r = services.add_combatant(
            bid, gm, params={"name": f"{d['name']} {i}", "side": side, "sheet": sheet}, **place
        )
        assert r.ok, r.reason
    assert services.start_battle(bid, gm).ok
    rng = random.Random(seed)
    for _ in range(steps):
        state = services.load_state(Battle.objects.get(pk=bid))
        action = random_action(state, rng)
        if action is None:
            break
        r = services.submit_action(
            bid,
            gm,
            action.to_dict()
            if hasattr(action, "to_dict")
            else {"kind": action.kind, "actor": action.actor, "params": action.params},
        )
        assert r.ok, (action, r.reason)
    battle = Battle.objects.get(pk=bid)
    if battle.status != Battle.Status.ENDED:
        assert services.gm_override(bid, gm, {"kind": "gm.end_battle", "params": {"winner": "party"}}).ok
    return Battle.objects.get(pk=bid)
