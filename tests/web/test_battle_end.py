"""The end of a battle (issue 36): the summary says who won and in how many rounds, every combatant's HP
and what it spent; it offers a write-back card only for sheets that exist to write to (a player's
character, a campaign NPC), one per character however many copies fought, never for the bestiary's
monsters; and shows no per-turn resources ("Actions 0 / Interrupt 1") as a result.

The battle is made as a GM makes one: the new-battle form, with two goblins from the bestiary."""

from __future__ import annotations

import html
import re

import pytest
from django.urls import reverse

from combat import aftermath, services
from combat.engine.core import legal_actions
from combat.models import Battle
from tests.table import make_campaign, make_user
from vtt.content import character_templates
from vtt.models import Character, CharacterKind

pytestmark = pytest.mark.django_db
GOBLIN = "Goblin Skirmisher"


@pytest.fixture
def ended(client):
    """A D20 Luck battle from the form (Mira, a player's Fighter with two potions; Sela, a campaign NPC,
    twice; two bestiary goblins), Mira drinks a potion, the goblins go down, the rules end it."""
    gm, player = make_user("gm"), make_user("player")
    campaign = make_campaign(gm, "luck", player=[player])
    heroes = character_templates(campaign, "pc")
    Character.objects.create(
        campaign=campaign,
        name="Mira",
        owner=player,
        sheet=heroes["Fighter"] | {"items": ["healing_potion"] * 2},
    )
    sela = Character.objects.create(
        campaign=campaign, name="Sela", kind=CharacterKind.NPC, sheet=heroes["Ranger"]
    )
    client.force_login(gm)
    page = client.get(reverse("battle_new", args=[campaign.pk])).content.decode()
    goblins = re.search(r'name="(tpl_[a-z0-9-]+)"[^>]*>', page).group(1)
    response = client.post(
        reverse("battle_new", args=[campaign.pk]),
        {"name": "Ford", "width": "12", "height": "10", "party": "on", goblins: "2", f"count_{sela.pk}": "2"},
    )
    assert response.status_code == 302
    battle = Battle.objects.get(campaign=campaign)
    assert services.start_battle(battle.pk, gm).ok
    state = services.load_state(Battle.objects.get(pk=battle.pk))
    ids = {c.name: cid for cid, c in state.combatants.items()}
    assert services.gm_override(
        battle.pk, gm, {"kind": "gm.set_hp", "params": {"combatant": ids["Mira"], "hp": 3}}
    ).ok
    for _ in range(12):  # to Mira's turn, where she drinks one potion
        state = services.load_state(Battle.objects.get(pk=battle.pk))
        if state.current().id == ids["Mira"]:
            break
        assert services.gm_override(battle.pk, gm, {"kind": "gm.skip_turn", "params": {}}).ok
    potion = next(o for o in legal_actions(state, ids["Mira"]) if o.params.get("item") == "healing_potion")
    drunk = services.submit_action(
        battle.pk,
        player,
        {"kind": "ability", "actor": ids["Mira"], "params": {**potion.params, "targets": [ids["Mira"]]}},
    )
    assert drunk.ok, drunk.reason
    for c in drunk.state.combatants.values():  # every foe goes down: the rules end the battle
        if c.side == "enemy":
            done = services.gm_override(
                battle.pk, gm, {"kind": "gm.set_hp", "params": {"combatant": c.id, "hp": 0}}
            )
            assert done.ok, done.reason
    return Battle.objects.get(pk=battle.pk), gm, ids


def test_the_summary_says_who_won_and_in_how_many_rounds(client, ended):
    battle, gm, _ = ended
    state = services.load_state(battle)
    assert battle.status == Battle.Status.ENDED and state.result["winner"] in ("party", "enemy")
    said = aftermath.outcome(battle)
    rounds = f"{state.round} round{'s' if state.round != 1 else ''}"
    winner = "The party won" if state.result["winner"] == "party" else "The enemies won"
    assert said.verdict == f"{winner} in {rounds}."
    client.force_login(gm)
    page = html.unescape(client.get(reverse("battle_summary", args=[battle.pk])).content.decode())
    assert f'<h2 id="outcome-title">{winner} in {rounds}.</h2>' in page


def test_every_combatant_at_the_end_with_its_hp_and_what_it_spent(client, ended):
    battle, gm, _ = ended
    fought = {f.name: f for f in aftermath.outcome(battle).fought}
    assert set(fought) == {"Mira", "Sela 1", "Sela 2", f"{GOBLIN} 1", f"{GOBLIN} 2"}
    assert fought[f"{GOBLIN} 1"].down and fought[f"{GOBLIN} 1"].hp == 0
    assert ("Healing Potion", "1 of 2 used") in fought["Mira"].spent
    client.force_login(gm)
    page = html.unescape(client.get(reverse("battle_summary", args=[battle.pk])).content.decode())
    assert f"<strong>{GOBLIN} 2</strong>" in page and "HP 0 / " in page and ", down" in page
    assert "Healing Potion: 1 of 2 used" in page
    # Per-turn resources are no result: no "Actions 0", no "Interrupt 1".
    assert not re.search(r"(?i)<dt>\s*(actions|interrupt)\s*</dt>", page) and "Interrupt 1" not in page


def test_a_write_back_card_for_each_sheet_that_exists_and_none_for_the_bestiarys_monsters(client, ended):
    battle, gm, _ = ended
    cards = [s.character.name for s in aftermath.summary(battle)]
    assert sorted(cards) == ["Mira", "Sela"]  # Sela fought twice: one card; the goblins: none
    client.force_login(gm)
    page = client.get(reverse("battle_summary", args=[battle.pk])).content.decode()
    titles = re.findall(r'<h2 id="sum-\d+">([^<]*)</h2>', page)
    assert sorted(titles) == ["Mira", "Sela"]
    goblin = Character.objects.get(name=GOBLIN)
    before = dict(goblin.sheet)
    assert client.post(reverse("battle_summary", args=[battle.pk]), {}).status_code == 302
    goblin.refresh_from_db()
    assert goblin.kind == CharacterKind.MONSTER and goblin.sheet == before  # nothing went back to it
    assert Character.objects.get(name="Mira").sheet["items"] == ["healing_potion"]  # one potion left


def test_the_summary_stays_the_gms(client, ended):
    battle, _, _ = ended
    client.force_login(Character.objects.get(name="Mira").owner)
    assert client.get(reverse("battle_summary", args=[battle.pk])).status_code == 403
