"""What the table shows is what happened, through the web layer (the HTMX action and the battle page).

Issue 23, point 1: the player's log dropped their own flat bonuses ("damage: 1d8 [5] = 5" where the
GM's log and the HP lost said 6). A player hits an enemy in D20 Luck, Mist & Rampart and Paradigm
Rows, with the enemy's HP hidden and its defences at 0, so the HP it loses is the roll's total: the
player's own damage roll, the GM's and the HP lost agree, and the roll shows each flat bonus with what
it comes from.

Point 3: an outcome line tells what the action's events did once every reaction resolved: a Luck hit
parried down to 0 says the monster took no damage, never "is hurt".
"""

from __future__ import annotations

import json
import re

import pytest
from django.urls import reverse

from combat import services
from combat.engine.core import legal_actions
from combat.models import Battle, BattleEvent
from tests.table import make_campaign
from vtt.content import character_templates
from vtt.models import Character, CharacterKind

HX = {"HTTP_HX_REQUEST": "true"}
ROLL = re.compile(r'<span class="roll">damage: ([^<]*) = <b>(-?\d+)</b></span>')

# Per ruleset: the hero, their flat damage bonus and what it comes from, the enemy, its defences at 0.
DUELS = {
    "luck": ("Fighter", {}, "+ 1 (Sword)", "Goblin Skirmisher", {"armor": 0, "resist": 0, "abilities": []}),
    "mist": ("Knight", {"attack": 10}, "+ 10 (Attack)", "Goblin", {"defense": 0, "evasion": 0}),
    "paradigm": ("Knight", {"attack_bonus": 3}, "(Attack)", "Goblin", {"defense": 0}),
}


def _duel(gm, player, key: str, **enemy_extra) -> tuple[Battle, str, str]:
    hero, hero_changes, _, enemy, enemy_changes = DUELS[key]
    enemy_changes = enemy_changes | enemy_extra
    campaign = make_campaign(gm, ruleset=key, player=[player])
    pc = Character.objects.create(
        campaign=campaign,
        name="Mira",
        owner=player,
        sheet=character_templates(campaign, "pc")[hero] | hero_changes,
    )
    foe = Character.objects.create(
        campaign=campaign,
        name="Grul",
        kind=CharacterKind.MONSTER,
        sheet=character_templates(campaign, "monster")[enemy] | enemy_changes | {"hp": 500},
    )
    battle_id = services.create_battle(campaign, gm, "Duel", 6, 4, ruleset=key, seed=11).battle_id
    rows = key == "paradigm"
    assert services.add_combatant(battle_id, gm, pc, **({"row": "front"} if rows else {"pos": [1, 1]})).ok
    assert services.add_combatant(battle_id, gm, foe, **({"row": "front"} if rows else {"pos": [2, 1]})).ok
    assert services.start_battle(battle_id, gm).ok
    state = services.load_state(Battle.objects.get(pk=battle_id))
    ids = {c.name: cid for cid, c in state.combatants.items()}
    return Battle.objects.get(pk=battle_id), ids["Mira"], ids["Grul"]


def _play(
    as_user, gm, player, battle: Battle, mira: str, grul: str, until, steps: int = 80
) -> tuple[int, str]:
    """Mira attacks Grul from the player's page (the GM skips Grul's turns and lets reactions go by their
    default) until ``until(event)`` holds for an event of Mira's action; that event's seq and the reply."""
    for _ in range(steps):
        battle.refresh_from_db()
        state = services.load_state(battle)
        if state.pending is not None:
            who, data = gm, {"kind": "answer", "decision": state.pending.id, "choice": state.pending.default}
        elif state.current() is not None and state.current().id == mira:
            option = next(
                (
                    o
                    for o in legal_actions(state, mira)
                    if o.available and grul in o.targets and o.kind in ("ability", "attack")
                ),
                None,
            )
            if option is None:
                who, data = player, {"kind": "end_turn", "actor": mira}
            else:
                who = player
                data = {
                    "kind": option.kind,
                    "actor": mira,
                    "params": json.dumps(option.params),
                    "target": grul,
                }
        else:
            who, data = gm, {"kind": "gm.skip_turn"}
        response = as_user(who).post(
            reverse("battle_act", args=[battle.pk]), {**data, "expected_seq": str(battle.seq)}, **HX
        )
        assert response.status_code == 200, response.content.decode()[:400]
        for event in BattleEvent.objects.filter(battle=battle, seq__gt=battle.seq).order_by("seq"):
            if until(event):
                return event.seq, response.content.decode()
    pytest.fail("it never happened")


def _hit(as_user, gm, player, battle: Battle, mira: str, grul: str) -> tuple[int, str]:
    """Mira attacks Grul until a damage roll of hers lands."""

    def rolled_damage(event) -> bool:
        rolls = event.data.get("rolls") or []
        return event.data.get("actor") == mira and any(r.get("purpose") == "damage" for r in rolls)

    return _play(as_user, gm, player, battle, mira, grul, rolled_damage)


def _entry(html: str, seq: int) -> str:
    match = re.search(rf'<li class="entry[^"]*" data-seq="{seq}"[^>]*>(.*?)</li>', html, re.S)
    assert match, f"no log entry {seq}"
    return match.group(1)


@pytest.mark.parametrize("key", sorted(DUELS))
def test_the_players_own_damage_roll_shows_the_gms_total_and_the_hp_lost(as_user, gm, player, key):
    battle, mira, grul = _duel(gm, player, key)
    hp_before = services.load_state(battle).combatants[grul].hp
    seq, reply = _hit(as_user, gm, player, battle, mira, grul)
    battle.refresh_from_db()
    hp_lost = hp_before - services.load_state(battle).combatants[grul].hp
    player_page = as_user(player).get(reverse("battle", args=[battle.pk])).content.decode()
    gm_page = as_user(gm).get(reverse("battle", args=[battle.pk])).content.decode()
    assert "Grul" in player_page and "4321" not in player_page
    shown = {
        "player's reply": ROLL.findall(_entry(reply, seq)),
        "player's page": ROLL.findall(_entry(player_page, seq)),
        "GM's page": ROLL.findall(_entry(gm_page, seq)),
    }
    assert shown["player's page"], shown
    assert shown["player's reply"] == shown["player's page"] == shown["GM's page"], shown
    total = sum(int(t) for _, t in shown["player's page"])
    assert total == hp_lost, (shown, hp_lost)  # the enemy's defences are 0: it loses the roll's total
    bonus = DUELS[key][2]
    assert all(bonus in text for text, _ in shown["player's page"]), shown


def _outcome(html: str) -> str:
    match = re.search(r'<p class="msg ok outcome"[^>]*>(.*?)</p>', html, re.S)
    assert match, html[:300]
    return match.group(1)


def test_a_luck_hit_parried_to_0_says_the_monster_took_no_damage(as_user, gm, player):
    # Grul parries (his reaction, as an NPC's, is automatic); his armour makes a 0 likely.
    battle, mira, grul = _duel(gm, player, "luck", abilities=["parry"], armor=2)

    def parried_to_0(event) -> bool:
        d = event.data
        return (
            event.type == "damage.dealt" and d.get("target") == grul and d["amount"] == 0 and d["reduced"] > 0
        )

    seq, reply = _play(as_user, gm, player, battle, mira, grul, parried_to_0, steps=300)
    line = _outcome(reply)
    assert "is hurt" not in line and "Grul takes no damage" in line, line
    assert "Grul interrupts Mira with Parry" in line, line
    player_page = as_user(player).get(reverse("battle", args=[battle.pk])).content.decode()
    assert "Grul takes no physical damage." in _entry(player_page, seq)


def _until_mira_is_asked(as_user, gm, battle: Battle, mira: str) -> None:
    for _ in range(40):
        battle.refresh_from_db()
        state = services.load_state(battle)
        if state.pending is not None and state.pending.combatant == mira:
            return
        data = (
            {"kind": "answer", "decision": state.pending.id, "choice": state.pending.default}
            if state.pending is not None
            else {"kind": "gm.skip_turn"}
        )
        response = as_user(gm).post(
            reverse("battle_act", args=[battle.pk]), {**data, "expected_seq": str(battle.seq)}, **HX
        )
        assert response.status_code == 200
    pytest.fail("Mira was never asked")


def test_the_paradigm_job_switch_is_asked_of_mira_about_the_choice(as_user, gm, player):
    """Point 4: Mira's own Paradigm Phase asks her "Switch job before your turn?"; nobody tells her that
    Mira may react, nor that she waits for her own turn."""
    battle, mira, _ = _duel(gm, player, "paradigm")
    _until_mira_is_asked(as_user, gm, battle, mira)
    page = as_user(player).get(reverse("battle", args=[battle.pk])).content.decode()
    prompt = re.search(r'<section id="prompt".*?</section>', page, re.S).group(0)
    assert re.search(r'<h2 id="prompt-title">Switch job before your turn\?</h2>', prompt), prompt
    assert "Paradigm Phase" in prompt and "Keep Knight" in prompt
    assert "may react" not in page and "Waiting: Mira" not in page and "Mira's turn" not in page
    actions = re.search(r'<section id="actions".*?</section>', page, re.S).group(0)
    assert "Choose your answer above first." in actions, actions
    assert "Mira decides whether to switch job." in page
    gm_page = as_user(gm).get(reverse("battle", args=[battle.pk])).content.decode()
    gm_prompt = re.search(r'<section id="prompt".*?</section>', gm_page, re.S).group(0)
    assert "Answer for Mira: Paradigm Phase" in gm_prompt and "Switch job before your turn?" in gm_prompt
    # Her answer is told in the words of the option she chose.
    battle.refresh_from_db()
    state = services.load_state(battle)
    response = as_user(player).post(
        reverse("battle_act", args=[battle.pk]),
        {
            "kind": "answer",
            "actor": mira,
            "decision": state.pending.id,
            "choice": "keep",
            "expected_seq": str(battle.seq),
        },
        **HX,
    )
    assert response.status_code == 200
    assert "Mira chooses: Keep Knight." in response.content.decode()


def test_while_the_paradigm_phase_asks_mira_the_tracker_says_the_table_waits_for_her(as_user, gm, player):
    """Nobody acts while a Paradigm Phase asks: the tracker names whom the table waits for, not the
    combatant whose turn came last (or comes first), at the first round's phase and at a round's end."""
    battle, mira, grul = _duel(gm, player, "paradigm")
    asked_in = set()
    for _ in range(2):
        _until_mira_is_asked(as_user, gm, battle, mira)
        battle.refresh_from_db()
        state = services.load_state(battle)
        assert state.pending.trigger == "Paradigm Phase"
        asked_in.add(state.extra["flow"]["at"])
        for user in (gm, player):
            page = as_user(user).get(reverse("battle", args=[battle.pk])).content.decode()
            head = re.search(r'<div id="tracker-head".*?</div>', page, re.S).group(0)
            assert "Now acting" not in head, head
            assert "Waiting for Mira to choose (Paradigm Phase)." in head, head
            order = re.search(r'<ol class="order">.*?</ol>', page, re.S).group(0)
            assert 'class="tag">acting<' not in order and "acting now" not in page
        response = as_user(player).post(
            reverse("battle_act", args=[battle.pk]),
            {"kind": "answer", "actor": mira, "decision": state.pending.id, "choice": "keep", **_seq(battle)},
            **HX,
        )
        assert response.status_code == 200
        page = as_user(player).get(reverse("battle", args=[battle.pk])).content.decode()
        assert "Now acting:" in re.search(r'<div id="tracker-head".*?</div>', page, re.S).group(0)
    assert asked_in == {"turn", "round_end"}  # at the first round's start, then at a round's end


def _seq(battle: Battle) -> dict[str, str]:
    battle.refresh_from_db()
    return {"expected_seq": str(battle.seq)}


def test_a_sheet_carries_three_potions_used_one_at_a_time_and_written_back_as_a_count(as_user, gm, player):
    """Point 6: the sheet form takes a number of each item; in battle the potions are used one at a
    time; the summary writes back what is left; a potion at full HP is offered greyed with why."""
    campaign = make_campaign(gm, ruleset="luck", player=[player])
    sheet = character_templates(campaign, "pc")["Fighter"]
    form = as_user(player).get(reverse("character_create", args=[campaign.pk])).content.decode()
    assert 'name="sheet_items-healing_potion"' in form and 'aria-label="How many: Healing Potion"' in form
    data = {"name": "Mira", "kind": "pc"}
    for key, value in sheet.items():
        if key == "items":
            continue
        if isinstance(value, list):
            data[f"sheet_{key}"] = value
        elif isinstance(value, bool):
            if value:
                data[f"sheet_{key}"] = "on"
        else:
            data[f"sheet_{key}"] = str(value)
    data["sheet_items-healing_potion"] = "3"
    response = as_user(player).post(reverse("character_create", args=[campaign.pk]), data)
    assert response.status_code == 302, response.content.decode()[:2000]
    mira = Character.objects.get(name="Mira")
    assert mira.sheet["items"] == ["healing_potion"] * 3
    page = as_user(player).get(reverse("character", args=[campaign.pk, mira.pk])).content.decode()
    assert "Healing Potion ×3" in page
    foe = Character.objects.create(
        campaign=campaign,
        name="Grul",
        kind=CharacterKind.MONSTER,
        sheet=character_templates(campaign, "monster")["Goblin Skirmisher"] | {"hp": 500},
    )
    bid = services.create_battle(campaign, gm, "Duel", 6, 4, ruleset="luck", seed=3).battle_id
    assert services.add_combatant(bid, gm, mira, pos=[1, 1]).ok
    assert services.add_combatant(bid, gm, foe, pos=[4, 1]).ok
    assert services.start_battle(bid, gm).ok
    state = services.load_state(Battle.objects.get(pk=bid))
    mid = next(cid for cid, c in state.combatants.items() if c.name == "Mira")
    for _ in range(10):
        state = services.load_state(Battle.objects.get(pk=bid))
        if state.current().id == mid:
            break
        assert services.gm_override(bid, gm, {"kind": "gm.skip_turn", "params": {}}).ok
    potion = next(o for o in legal_actions(state, mid) if o.params.get("item") == "healing_potion")
    assert (potion.available, potion.reason) == (False, "Everyone in reach is at full HP.")
    # Hurt, Mira drinks one potion; two are left on her sheet after the battle.
    assert services.gm_override(bid, gm, {"kind": "gm.set_hp", "params": {"combatant": mid, "hp": 5}}).ok
    state = services.load_state(Battle.objects.get(pk=bid))
    potion = next(o for o in legal_actions(state, mid) if o.params.get("item") == "healing_potion")
    assert potion.available and potion.targets == [mid]
    battle = Battle.objects.get(pk=bid)
    response = as_user(player).post(
        reverse("battle_act", args=[bid]),
        {
            "kind": "ability",
            "actor": mid,
            "params": json.dumps(potion.params),
            "target": mid,
            "expected_seq": str(battle.seq),
        },
        **HX,
    )
    assert response.status_code == 200
    assert "Mira heals" in response.content.decode()
    assert services.gm_override(bid, gm, {"kind": "gm.end_battle", "params": {"winner": "party"}}).ok
    summary = as_user(gm).get(reverse("battle_summary", args=[bid])).content.decode()
    assert "Healing Potion ×3" in summary and "Healing Potion ×2" in summary, summary
    assert as_user(gm).post(reverse("battle_summary", args=[bid]), {}).status_code == 302
    mira.refresh_from_db()
    assert mira.sheet["items"] == ["healing_potion"] * 2
    page = as_user(player).get(reverse("character", args=[campaign.pk, mira.pk])).content.decode()
    assert "Healing Potion ×2" in page
