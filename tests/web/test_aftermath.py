"""Battles change the campaign: the end-of-battle summary, applied to the sheets only when the GM confirms.

Each ruleset's carry-over rule is named in its test (the rule and the sentence it rests on)."""

from __future__ import annotations

import html

import pytest

from combat import aftermath, services
from combat.engine.core import legal_actions
from combat.engine.rulesets import RULESETS, get_ruleset
from combat.models import Battle
from tests.table import make_campaign, make_character, make_user
from vtt.models import Character

pytestmark = pytest.mark.django_db


def _battle(campaign, gm, *characters, seed=5):
    ruleset = campaign.ruleset_class
    result = services.create_battle(
        campaign, gm, "Ford", 8, 8, ruleset=ruleset.key, seed=seed, options=campaign.house_rules()
    )
    assert result.ok, result.reason
    for i, ch in enumerate(characters):
        place = {"row": "front"} if ruleset.board == "rows" else {"pos": [0 if ch.kind == "pc" else 2, i]}
        assert services.add_combatant(result.battle_id, gm, ch, **place).ok
    assert services.start_battle(result.battle_id, gm).ok
    return result.battle_id


def _cid(battle_id, name):
    state = services.load_state(Battle.objects.get(pk=battle_id))
    return next(c.id for c in state.combatants.values() if c.name == name)


def _gm(battle_id, gm, kind, **params):
    r = services.gm_override(battle_id, gm, {"kind": kind, "params": params})
    assert r.ok, r.reason
    return r


def _end(battle_id, gm):
    _gm(battle_id, gm, "gm.end_battle", winner="party", reason="The ford is held")
    return Battle.objects.get(pk=battle_id)


def _rule(rows, name, label):
    s = next(s for s in rows if s.character.name == name)
    return next(line for line in s.lines if line.label == label)


@pytest.fixture
def gm(db):
    return make_user("gm")


def test_mist_lp_lost_carries_to_the_sheet_and_mp_resets(client, gm):
    """Carry-over rule "LP" (Mist & Rampart): "If a character's LP reaches 0, they are Dead." and nothing
    gives LP back, so LP lost stays lost; rule "MP" resets: "a character will begin combat with 0 MP"."""
    campaign = make_campaign(gm, "mist")
    hero = make_character(campaign, "Kael", lp=4)
    foe = make_character(campaign, "Ogre", kind="monster")
    bid = _battle(campaign, gm, hero, foe)
    _gm(bid, gm, "gm.set_resource", combatant=_cid(bid, "Kael"), resource="lp", value=1)
    battle = _end(bid, gm)
    rows = aftermath.summary(battle)
    lp = _rule(rows, "Kael", "LP")
    assert lp.carries and lp.field == "lp_lost" and (lp.before, lp.after) == (0, 3) and "dead" in lp.why
    mp = _rule(rows, "Kael", "MP")
    assert not mp.carries and "0 MP" in mp.why and not mp.input_name
    client.force_login(gm)
    page = client.get(f"/battles/{bid}/summary").content.decode()
    assert "Kael" in page and "LP" in page and f'name="c{hero.pk}_lp_lost"' in page
    hero.refresh_from_db()
    assert hero.sheet.get("lp_lost", 0) == 0  # seeing the summary writes nothing
    assert client.post(f"/battles/{bid}/summary", {}).status_code == 302
    hero.refresh_from_db()
    assert hero.sheet["lp_lost"] == 3
    assert Battle.objects.get(pk=bid).applied is not None
    # the next battle starts Kael with the LP left
    nxt = services.create_battle(campaign, gm, "Next", 6, 6, ruleset="mist")
    r = services.add_combatant(nxt.battle_id, gm, Character.objects.get(pk=hero.pk), pos=[0, 0])
    assert r.state.combatants[_cid(nxt.battle_id, "Kael")].resources["lp"] == 1


def test_luck_items_used_are_gone_from_the_sheet(client, gm):
    """Carry-over rule "Items" (D20 Luck, a house rule: the source is silent): the sheet lists an item once per
    use, so a potion drunk in battle is gone; rule "HP" restores (house rule)."""
    campaign = make_campaign(gm, "luck")
    ruleset = get_ruleset("luck")
    hero = make_character(campaign, "Mira", **{**ruleset.heroes["Fighter"], "items": ["healing_potion"] * 2})
    foe = make_character(campaign, "Bear", kind="monster", **ruleset.monsters["Cave Bear"])
    bid = _battle(campaign, gm, hero, foe)
    mira = _cid(bid, "Mira")
    for _ in range(6):
        state = services.load_state(Battle.objects.get(pk=bid))
        if state.current().id == mira:
            break
        _gm(bid, gm, "gm.skip_turn")
    _gm(bid, gm, "gm.set_hp", combatant=mira, hp=5)
    state = services.load_state(Battle.objects.get(pk=bid))
    potion = next(o for o in legal_actions(state, mira) if "Healing Potion" in o.label)
    r = services.submit_action(
        bid, gm, {"kind": potion.kind, "actor": mira, "params": {**potion.params, "targets": [mira]}}
    )
    assert r.ok, r.reason
    battle = _end(bid, gm)
    rows = aftermath.summary(battle)
    items = _rule(rows, "Mira", "Items")
    assert items.carries and items.after == ["healing_potion"] and "used up" in items.why
    assert not _rule(rows, "Mira", "HP").carries
    assert "Healing Potion x1" in next(s for s in rows if s.character.name == "Mira").used
    client.force_login(gm)
    assert client.post(f"/battles/{bid}/summary", {}).status_code == 302
    hero.refresh_from_db()
    assert hero.sheet["items"] == ["healing_potion"]


def test_paradigm_anima_left_carries_by_default_and_the_gm_may_adjust_first(client, gm):
    """Carry-over rule "Anima" (Paradigm Rows, house rule "Anima after a battle", default carry: the source does
    not say whether spent Anima comes back). The GM adjusts the value before applying."""
    campaign = make_campaign(gm, "paradigm")
    ruleset = get_ruleset("paradigm")
    hero = make_character(campaign, "Lio", **{**ruleset.heroes["Knight"], "anima": 5})
    foe = make_character(campaign, "Gob", kind="monster", **ruleset.monsters["Goblin"])
    bid = _battle(campaign, gm, hero, foe)
    _gm(bid, gm, "gm.set_resource", combatant=_cid(bid, "Lio"), resource="anima", value=2)
    _end(bid, gm)
    client.force_login(gm)
    name = f"c{hero.pk}_anima"
    bad = client.post(f"/battles/{bid}/summary", {name: "-4"})
    assert bad.status_code == 400 and "at least 0" in bad.content.decode()
    hero.refresh_from_db()
    assert hero.sheet["anima"] == 5 and Battle.objects.get(pk=bid).applied is None  # nothing written
    assert client.post(f"/battles/{bid}/summary", {name: "3"}).status_code == 302
    hero.refresh_from_db()
    assert hero.sheet["anima"] == 3
    again = client.post(f"/battles/{bid}/summary", {name: "0"}, follow=True)
    assert "already applied" in again.content.decode()
    hero.refresh_from_db()
    assert hero.sheet["anima"] == 3
    campaign.options = {**campaign.options, "anima_after_battle": "restore"}
    campaign.save()
    bid2 = _battle(campaign, gm, hero, foe)
    _gm(bid2, gm, "gm.set_resource", combatant=_cid(bid2, "Lio"), resource="anima", value=0)
    anima = _rule(aftermath.summary(_end(bid2, gm)), "Lio", "Anima")
    assert not anima.carries


def test_action_block_points_reset_and_nothing_is_written_without_confirmation(client, gm):
    """Carry-over rule "Speed and Strength Points" (Action Block) resets: "Each character starts battle with their
    [Current Speed Points] and [Current Strength Points] restored." An unconfirmed summary changes nothing."""
    campaign = make_campaign(gm, "action-block")
    ruleset = get_ruleset("action-block")
    hero = make_character(campaign, "Vex", **ruleset.heroes["Duelist"])
    foe = make_character(campaign, "Ghoul", kind="monster", **ruleset.monsters["Ghoul"])
    bid = _battle(campaign, gm, hero, foe)
    _gm(bid, gm, "gm.set_resource", combatant=_cid(bid, "Vex"), resource="speed", value=1)
    _gm(bid, gm, "gm.set_hp", combatant=_cid(bid, "Vex"), hp=3)
    before = dict(Character.objects.get(pk=hero.pk).sheet)
    battle = _end(bid, gm)
    points = _rule(aftermath.summary(battle), "Vex", "Speed and Strength Points")
    assert not points.carries and "back to full" in points.why
    client.force_login(gm)
    page = client.get(f"/battles/{bid}/summary").content.decode()
    assert "Vex" in page and "3 / " in page
    assert Character.objects.get(pk=hero.pk).sheet == before and Battle.objects.get(pk=bid).applied is None


def test_only_the_gm_applies_and_only_an_ended_battle(client, gm):
    player, outsider = make_user("player"), make_user("outsider")
    campaign = make_campaign(gm, "mist", player=[player])
    hero = make_character(campaign, "Kael", owner=player)
    foe = make_character(campaign, "Ogre", kind="monster")
    bid = _battle(campaign, gm, hero, foe)
    client.force_login(gm)
    running = client.post(f"/battles/{bid}/summary", {}, follow=True)
    assert "still running" in running.content.decode()
    _end(bid, gm)
    client.force_login(player)
    assert client.post(f"/battles/{bid}/summary", {}).status_code == 403
    client.force_login(outsider)
    assert client.get(f"/battles/{bid}/summary").status_code == 404
    assert Battle.objects.get(pk=bid).applied is None


@pytest.mark.parametrize("ruleset", sorted(RULESETS))
def test_the_house_rules_show_every_reading_and_what_carries_between_battles(client, gm, ruleset):
    campaign = make_campaign(gm, ruleset)
    client.force_login(gm)

    page = html.unescape(client.get(f"/campaigns/{campaign.pk}/").content.decode())
    rules = campaign.ruleset_class
    for sentence in rules.readings:
        assert sentence in page
    for rule in rules.carry_over:
        assert rule.why in page
