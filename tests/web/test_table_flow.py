"""Table flow: the ten points seen by a new GM and players, each with its fix (one test per point at least)."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from combat import services
from combat.engine.log import describe
from combat.engine.rulesets import RULESETS, get_ruleset
from combat.engine.state import BattleState, Combatant
from combat.engine.told import Teller
from combat.engine.view import Viewer
from combat.models import Battle
from combat.outcome import notices, outcome_text
from tests.table import make_campaign
from vtt.content import campaign_content, character_templates
from vtt.models import Character, CharacterKind

HX = {"HTTP_HX_REQUEST": "true"}
RULE_ID = re.compile(r"\b(ENG|MIST|PARA|LUCK|BLOCK)-[A-Z0-9]+")


def _campaign_with_party(gm, player, key):
    campaign = make_campaign(gm, ruleset=key, player=[player])
    hero, sheet = next(iter(character_templates(campaign, "pc").items()))
    Character.objects.create(campaign=campaign, name=hero, kind=CharacterKind.PC, owner=player, sheet=sheet)
    return campaign


def test_campaign_content_lists_the_starter_pack_by_kind(gm):
    campaign = make_campaign(gm, ruleset="luck")
    content = campaign_content(campaign)
    assert content["weapons"]["sword"]["name"] == "Sword"
    content["weapons"].clear()  # a copy: callers cannot change the ruleset's pack
    assert campaign_content(campaign)["weapons"]


@pytest.mark.parametrize("key", sorted(RULESETS))
def test_point_8_new_battle_with_party_and_two_monsters_in_one_submit(as_user, gm, player, key):
    """New battle -> one form (party ticked, a monster count of 2) -> a battle with everyone placed."""
    campaign = _campaign_with_party(gm, player, key)
    client = as_user(gm)
    page = client.get(reverse("battle_new", args=[campaign.pk])).content.decode()
    assert "Add the party" in page and "how many of each" in page
    monster = next(iter(get_ruleset(key).monsters))
    field = next(m for m in re.findall(r'name="(tpl_[a-z0-9-]+)"', page))
    assert monster in page
    response = client.post(
        reverse("battle_new", args=[campaign.pk]),
        {"name": "At the Bridge", "width": "12", "height": "10", "party": "on", field: "2"},
    )
    battle = Battle.objects.get()
    assert response.status_code == 302 and response["Location"] == reverse("battle", args=[battle.pk])
    state = services.load_state(battle)
    sides = sorted(c.side for c in state.combatants.values())
    assert sides == ["enemy", "enemy", "party"]
    ruleset = get_ruleset(key)
    for c in state.combatants.values():
        if ruleset.board == "rows":
            # Point 6: each combatant starts in its sheet's starting row.
            assert c.row == ruleset.starting_row(c.sheet)
        else:
            # Point 3: on the board, the party facing the enemies one move apart (below).
            assert c.pos is not None and 0 < c.pos[0] < state.width - 1 and 0 <= c.pos[1] < state.height
    if ruleset.board != "rows":
        party_x = max(c.pos[0] for c in state.combatants.values() if c.side == "party")
        enemy_x = min(c.pos[0] for c in state.combatants.values() if c.side == "enemy")
        assert 2 <= enemy_x - party_x <= 6
    # The setup page: Start is the last control of the GM panel, after the list of combatants.
    setup_page = client.get(reverse("battle", args=[battle.pk])).content.decode()
    assert setup_page.index('id="gm-add"') < setup_page.index('class="start-button"')
    assert services.start_battle(battle.pk, gm).ok


def test_point_8_a_refused_setup_writes_nothing(as_user, gm, player):
    campaign = _campaign_with_party(gm, player, "luck")
    pc = Character.objects.get()
    Character.objects.filter(pk=pc.pk).update(sheet=pc.sheet | {"weapons": ["excalibur"]})
    response = as_user(gm).post(
        reverse("battle_new", args=[campaign.pk]),
        {"name": "Broken", "width": "12", "height": "10", "party": "on", "tpl_cave-bear": "1"},
    )
    page = response.content.decode()
    assert response.status_code == 200 and not Battle.objects.exists()
    # Point 1: the reason names the character and the valid choices.
    assert f"{pc.name} cannot join" in page and "Choose from: Sword, Bow" in page
    assert not Character.objects.filter(kind=CharacterKind.MONSTER).exists()


def test_point_6_rows_setup_has_no_board_size_and_says_rows(as_user, gm, player):
    campaign = _campaign_with_party(gm, player, "paradigm")
    client = as_user(gm)
    page = client.get(reverse("battle_new", args=[campaign.pk])).content.decode()
    assert 'type="hidden" name="width"' in page and "front and back rows" in page
    client.post(reverse("battle_new", args=[campaign.pk]), {"name": "Rows", "party": "on", "tpl_goblin": "2"})
    battle = Battle.objects.get()
    page = client.get(reverse("battle", args=[battle.pk])).content.decode()
    assert "Tap “Place”" not in page and "then a square" not in page
    assert "Battle created: each side has a front and a back row." in page
    assert "x10 board" not in page and "Set</button>" not in page


def test_point_2_the_actor_sees_the_outcome_with_the_full_dice():
    names = {"a": "Kai", "g": "Goblin"}
    events = [
        ("ability.used", {"actor": "a", "targets": ["g"], "name": "Sword", "act": "ability"}),
        (
            "luck.rolled",
            {
                "actor": "a",
                "target": "g",
                "total": 15,
                "outcome": "hit",
                "rolls": [{"expr": "1d20", "faces": [15], "total": 15, "purpose": "luck roll"}],
            },
        ),
        (
            "damage.rolled",
            {
                "actor": "a",
                "target": "g",
                "raw": 8,
                "crit": False,
                "times": 1,
                "rolls": [
                    {
                        "expr": "1d8",
                        "faces": [7],
                        "total": 7,
                        "purpose": "damage",
                        "adds": [{"value": 1, "from": "Sword"}],
                        "result": 8,
                    }
                ],
            },
        ),
        ("damage.dealt", {"actor": "a", "target": "g", "amount": 8, "hp": 4, "ko": False}),
    ]
    assert outcome_text(events, names, set()) == "Hit! 8 damage to Goblin — 1d8 [7] + 1 (Sword) = 8."
    # A player whose table hides enemy HP: the dice, not the damage taken (with the dice it would tell the armour).
    hidden = outcome_text(events, names, {"g"})
    assert hidden == "Hit! Goblin is hurt — 1d8 [7] + 1 (Sword) = 8." and "8" not in hidden.split("—")[0]
    missed = [("luck.rolled", {"actor": "a", "target": "g", "total": 3, "outcome": "miss", "act": "ability"})]
    assert outcome_text(missed, names, set()).startswith("Miss.")


def test_point_2_a_player_is_told_when_their_combatant_is_hit_or_gets_a_status():
    names = {"a": "Kai", "g": "Goblin"}
    rows = [
        (12, "status.applied", {"combatant": "a", "status": "stun", "power": 3}),
        (11, "damage.dealt", {"actor": "g", "target": "a", "amount": 5, "hp": 15}),
        (10, "ability.used", {"actor": "g", "act": "ability"}),
        (9, "damage.dealt", {"actor": "a", "target": "g", "amount": 2, "hp": 1, "act": "ability"}),
    ]
    state = BattleState("luck", {}, 1, phase="active", seq=12)
    for cid, name in names.items():
        state.combatants[cid] = Combatant(cid, name, side="party" if cid == "a" else "enemy", controller="7")
    teller = Teller(state, Viewer(role="player", user_id="7"))
    said = [n["text"] for n in notices(rows, {"a"}, teller)]
    assert said == ["Kai is hit by Goblin: 5 damage (HP 15).", "Kai gets Stun."]
    assert notices(rows, {"g"}, teller) == []  # the Goblin's hit was an older action


def test_point_9_damage_lines_show_the_whole_rolled_expression():
    names = {"a": "Kai", "g": "Goblin"}
    sword = [{"value": 1, "from": "Sword"}]
    luck = describe(
        5,
        "damage.rolled",
        {
            "actor": "a",
            "raw": 8,
            "times": 1,
            "rolls": [
                {"expr": "1d8", "faces": [7], "total": 7, "purpose": "damage", "adds": sword, "result": 8}
            ],
        },
        names,
        set(),
    )
    assert (luck["rolls"][0]["text"], luck["rolls"][0]["total"]) == ("1d8 [7] + 1 (Sword)", 8)
    block = describe(
        7,
        "damage.dealt",
        {
            "actor": "a",
            "target": "g",
            "amount": 9,
            "rolls": [
                {
                    "expr": "2d6",
                    "faces": [3, 4],
                    "total": 7,
                    "purpose": "damage",
                    "adds": [{"value": 2, "from": "Damage Dealt Bonus"}, {"value": -1, "from": "Sweep"}],
                    "times": 2,
                    "times_why": "critical hit",
                    "result": 16,
                }
            ],
        },
        names,
        {"g"},
    )
    assert block["rolls"][0] == {
        "purpose": "damage",
        "text": "(2d6 [3, 4] + 2 (Damage Dealt Bonus) − 1 (Sweep)) × 2 (critical hit)",
        "total": 16,
    }
    # A roll stored without its additions is told as it was stored: nothing is worked out from other fields.
    old = describe(
        6,
        "damage.dealt",
        {
            "actor": "a",
            "raw": 51,
            "rolls": [{"expr": "2d20+20", "faces": [10, 11], "total": 41, "purpose": "damage"}],
        },
        names,
        set(),
    )
    assert (old["rolls"][0]["text"], old["rolls"][0]["total"]) == ("2d20+20 [10, 11]", 41)


def test_point_9_a_luck_sword_hit_logs_1d8_plus_1_in_a_real_battle(gm, player):
    campaign = make_campaign(gm, ruleset="luck", player=[player])
    fighter = Character.objects.create(
        campaign=campaign, name="Fighter", owner=player, sheet=character_templates(campaign, "pc")["Fighter"]
    )
    bear = Character.objects.create(
        campaign=campaign,
        name="Bear",
        kind=CharacterKind.MONSTER,
        sheet=character_templates(campaign, "monster")["Cave Bear"],
    )
    battle_id = services.create_battle(campaign, gm, "Duel", 8, 8, ruleset="luck", seed=7).battle_id
    assert services.add_combatant(battle_id, gm, fighter, pos=[1, 1]).ok
    assert services.add_combatant(battle_id, gm, bear, pos=[2, 1]).ok
    state = services.start_battle(battle_id, gm).state
    seen = []
    for _ in range(40):
        current = state.current()
        if current.name == "Fighter":
            bear_id = next(c.id for c in state.combatants.values() if c.name == "Bear")
            r = services.submit_action(
                battle_id,
                gm,
                {
                    "kind": "ability",
                    "actor": current.id,
                    "params": {"weapon": "sword", "targets": [bear_id]},
                },
            )
            assert r.ok, r.reason
            seen += [describe(0, e.type, e.data, {}, set()) for e in r.events if e.type == "damage.rolled"]
            if seen:
                break
            r = services.submit_action(battle_id, gm, {"kind": "end_turn", "actor": current.id, "params": {}})
        else:
            r = services.gm_override(battle_id, gm, {"kind": "gm.skip_turn", "params": {}})
        assert r.ok, r.reason
        state = r.state
    assert seen, "the fighter never hit in 40 turns"
    assert re.fullmatch(r"1d8 \[\d\] \+ 1 \(Sword\)", seen[0]["rolls"][0]["text"]), seen[0]["rolls"]


@pytest.mark.parametrize("key", sorted(RULESETS))
def test_point_7_house_rules_speak_plainly_without_rule_ids_or_keys(as_user, gm, key):
    campaign = make_campaign(gm, ruleset=key)
    page = as_user(gm).get(campaign.get_absolute_url()).content.decode()
    form = as_user(gm).get(reverse("campaign_edit", args=[campaign.pk])).content.decode()
    for text in (page, form):
        assert not RULE_ID.search(text), RULE_ID.search(text)
        assert "The source is silent" not in text
    for spec in get_ruleset(key).option_schema():
        assert spec.help and not RULE_ID.search(spec.help)
        if spec.kind == "choice" and any("_" in c for c in spec.choices):
            assert len(spec.labels) == len(spec.choices), spec.key
            for choice in spec.choices:
                assert f">{choice}<" not in page and f">{choice}<" not in form


def test_point_7_log_lines_are_in_player_words():
    names = {"a": "Kai", "w": "Wolf"}
    assert (
        describe(1, "attack.declared", {"actor": "a", "targets": ["w"]}, names, set())["text"]
        == "Kai attacks Wolf."
    )
    assert (
        describe(2, "phase.started", {"phase": "effect"}, names, set())["text"] == "The effect phase begins."
    )
    assert "(" not in describe(3, "something.odd", {"actor": "a", "target": "w"}, names, set())["text"][:4]


def test_point_1_adding_a_character_with_unknown_content_says_who_and_what_beside_the_add_button(
    as_user, gm, player
):
    campaign = _campaign_with_party(gm, player, "luck")
    pc = Character.objects.get()
    Character.objects.filter(pk=pc.pk).update(sheet=pc.sheet | {"weapons": ["Excalibur"]})
    battle_id = services.create_battle(campaign, gm, "Add", 8, 8, ruleset="luck").battle_id
    response = as_user(gm).post(
        reverse("battle_add", args=[battle_id]), {"character": pc.pk, "count": "1"}, **HX
    )
    text = response.content.decode()
    assert response.status_code == 422 and response["HX-Retarget"] == "#add-messages"
    assert f"{pc.name} cannot join: edit the sheet." in text
    assert "Unknown weapons: Excalibur. Choose from: Sword, Bow, Claws, Crude spear." in text
    assert not services.load_state(Battle.objects.get()).combatants


def test_point_1_a_new_sheet_starts_from_a_template_so_it_has_an_attack(as_user, gm, player):
    campaign = make_campaign(gm, ruleset="mist", player=[player])
    page = as_user(player).get(reverse("character_create", args=[campaign.pk])).content.decode()
    first = next(iter(get_ruleset("mist").heroes))
    assert 'aria-current="true"' in page and f">{first}</a>" in page
    assert 'value="strike" checked' in page or re.search(r'value="strike"[^>]*checked', page)


def test_point_7_a_sheet_shows_content_by_name_not_key(as_user, gm, player):
    campaign = _campaign_with_party(gm, player, "paradigm")
    pc = Character.objects.get()
    page = as_user(player).get(reverse("character", args=[campaign.pk, pc.pk])).content.decode()
    assert "Iron Ring" in page and "iron_ring" not in page and "Power Band" in page


def test_point_9_a_constant_in_the_dice_is_spelled_out_beside_the_bonus():
    mist = describe(
        6,
        "damage.dealt",
        {
            "actor": "a",
            "target": "g",
            "amount": 30,
            "rolls": [
                {
                    "expr": "2d20+10",
                    "faces": [8, 19],
                    "total": 37,
                    "purpose": "damage",
                    "adds": [{"value": 10, "from": "Attack"}],
                    "result": 47,
                }
            ],
        },
        {},
        set(),
    )
    assert mist["rolls"][0] == {"purpose": "damage", "text": "2d20+10 [8, 19] + 10 (Attack)", "total": 47}


def test_point_8_outcome_lines_carry_the_change_they_tell_of(client, db):
    from tests.table import table  # noqa: PLC0415

    users, _, battle = table()
    client.force_login(users["gm"])
    state = services.load_state(battle)
    response = client.post(
        reverse("battle_act", args=[battle.pk]),
        {"kind": "gm.skip_turn", "expected_seq": str(battle.seq)},
        **HX,
    )
    battle.refresh_from_db()
    assert response.status_code == 200
    assert f'data-seq="{battle.seq}"' in response.content.decode()
    assert state.current().name in response.content.decode()  # "The GM skips Ayla's turn."


@pytest.mark.django_db
def test_fewer_clicks_a_new_account_lands_on_the_new_campaign_form(client):
    response = client.post(
        reverse("signup"),
        {"username": "newgm", "password1": "a-long-pass-phrase-7", "password2": "a-long-pass-phrase-7"},
    )
    assert response.status_code == 302 and response["Location"] == reverse("campaign_create")


def test_fewer_clicks_a_new_campaign_comes_with_its_invite_link_ready_to_copy(as_user, gm):
    client = as_user(gm)
    from tests.web.conftest import options_post  # noqa: PLC0415
    from vtt.models import Campaign, Invite  # noqa: PLC0415

    data = {"name": "Keep", "ruleset": "luck", "options_for": "luck", **options_post("luck")}
    response = client.post(reverse("campaign_create"), data)
    assert response.status_code == 302

    campaign = Campaign.objects.get(name="Keep")
    invite = Invite.objects.get(campaign=campaign)
    assert (invite.role, invite.max_uses) == ("player", 6)
    page = client.get(response["Location"]).content.decode()
    assert "Invite your players" in page and reverse("join", args=[invite.token]) in page
    assert 'data-copy="first-invite"' in page


def test_fewer_clicks_a_first_battle_is_ready_with_the_party_and_one_monster(as_user, gm, player):
    campaign = _campaign_with_party(gm, player, "luck")
    client = as_user(gm)
    page = client.get(reverse("battle_new", args=[campaign.pk])).content.decode()
    counts = re.findall(r'<input type="number" name="(tpl_[a-z0-9-]+)" value="(\d+)"', page)
    assert counts and counts[0][1] == "1" and all(v == "0" for _, v in counts[1:])
    assert re.search(r'name="party"[^>]*checked', page)


@pytest.mark.parametrize("key", sorted(RULESETS))
def test_point_7_every_house_rule_waits_under_more_at_its_default(as_user, gm, key):
    page = as_user(gm).get(reverse("campaign_create") + f"?ruleset={key}").content.decode()
    shown, _, more = page.partition('<details class="more-rules"')
    fields = list(get_ruleset(key).option_schema())
    assert shown.count('name="opt_') == 0
    assert "More: house rules" in more and "at the ruleset's defaults" in more
    assert more.count('name="opt_') == len(fields)


def test_point_7_the_campaign_pages_house_rules_card_says_it_opens(as_user, gm):
    campaign = make_campaign(gm, ruleset="luck")
    page = as_user(gm).get(reverse("campaign", args=[campaign.pk])).content.decode()
    assert re.search(
        r"<summary><strong>House rules</strong> <span[^>]*>\d+ rules of D20 Luck, the defaults for new battles"
        r" · show them</span>",
        page,
    )


def test_point_6_the_battle_page_has_a_fold_for_the_phones_action_sheet(as_user, gm, player):
    campaign = _campaign_with_party(gm, player, "luck")
    client = as_user(gm)
    client.post(
        reverse("battle_new", args=[campaign.pk]), {"name": "B", "width": "12", "height": "10", "party": "on"}
    )
    battle = Battle.objects.get()
    page = client.get(reverse("battle", args=[battle.pk])).content.decode()
    assert 'data-dock-fold aria-controls="actions" aria-expanded="true">Hide actions</button>' in page
    assert "the bar below the board" not in page and "press “Start the battle”" in page
