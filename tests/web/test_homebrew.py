"""Homebrew content per campaign: forms generated from the ruleset's content schema, checked by the ruleset."""

from __future__ import annotations

import html
import json

import pytest

from combat import services
from combat.engine.core import legal_actions
from combat.engine.rulesets import RULESETS
from combat.models import Battle
from tests.content import CASES, form_data
from tests.table import make_campaign, make_character, make_user
from vtt import homebrew, homebrew_views
from vtt.content import campaign_content
from vtt.models import Character, ContentEntry

pytestmark = pytest.mark.django_db


@pytest.fixture
def gm(db):
    return make_user("gm")


@pytest.mark.parametrize("ruleset", list(RULESETS))
def test_every_kind_has_a_generated_form(client, gm, ruleset):
    campaign = make_campaign(gm, ruleset)
    client.force_login(gm)
    page = client.get(f"/campaigns/{campaign.pk}/content/")
    assert page.status_code == 200
    for kind in homebrew.kinds_of(campaign.ruleset_class):
        form = client.get(f"/campaigns/{campaign.pk}/content/{kind}/new/")
        assert form.status_code == 200, kind
        schema = homebrew.schema_for(campaign.ruleset_class, kind)
        body = form.content.decode()
        assert all(f'name="def_{f.key}"' in body or f.kind == "list" for f in schema), kind


def post_entry(client, campaign, kind, values):
    return client.post(f"/campaigns/{campaign.pk}/content/{kind}/new/", form_data(values))


@pytest.mark.parametrize("ruleset", list(CASES))
def test_an_invalid_entry_is_refused_on_its_field(client, gm, ruleset):
    campaign = make_campaign(gm, ruleset)
    client.force_login(gm)
    kind, values, field = CASES[ruleset]["invalid"]
    response = post_entry(client, campaign, kind, values)
    assert response.status_code == 200
    body = response.content.decode()
    assert f'id="id_def_{field}_error"' in body
    assert not ContentEntry.objects.exists()


def _turn_of(battle_id, gm, cid):
    """Skip turns (GM) until ``cid`` acts and nothing waits for an answer."""
    from combat.models import Battle

    for _ in range(40):
        state = services.load_state(Battle.objects.get(pk=battle_id))
        if state.pending is not None:
            p = state.pending
            assert services.answer_decision(battle_id, gm, p.id, p.default).ok
            continue
        current = state.current()
        if current is not None and current.id == cid:
            return state
        assert services.gm_override(battle_id, gm, {"kind": "gm.skip_turn", "params": {}}).ok
    raise AssertionError("never reached that combatant's turn")


@pytest.mark.parametrize("ruleset", list(CASES))
def test_homebrew_made_in_the_forms_is_usable_in_a_battle(client, gm, ruleset):
    """A homebrew ability, item and monster, created through the web forms, fight in a new battle: the ability
    is in the action menu with its cost and resolves with its own dice."""
    case = CASES[ruleset]
    campaign = make_campaign(gm, ruleset)
    client.force_login(gm)
    kind, values, cost, dice = case["ability"]
    assert post_entry(client, campaign, kind, values).status_code == 302
    ability_key = ContentEntry.objects.get(campaign=campaign, kind=kind).key
    item_key = None
    if case["item"]:
        ikind, ivalues = case["item"]
        assert post_entry(client, campaign, ikind, ivalues).status_code == 302
        item_key = ContentEntry.objects.get(campaign=campaign, kind=ikind).key
    base = next(iter(homebrew.builtin(campaign.ruleset_class)[homebrew.MONSTERS].values()))
    monster = {**base, "name": "Frost Wight"}
    assert post_entry(client, campaign, homebrew.MONSTERS, monster).status_code == 302
    entry = ContentEntry.objects.get(campaign=campaign, kind=homebrew.MONSTERS)
    assert client.post(f"/campaigns/{campaign.pk}/content/monsters/{entry.key}/character/").status_code == 302
    wight = Character.objects.get(campaign=campaign, name="Frost Wight")
    # the sheet pickers offer built-in and homebrew content together
    offered = campaign_content(campaign)
    assert ability_key in offered[kind] and set(campaign.ruleset_class.content[kind]) <= set(offered[kind])
    abilities_field, items_field = case["fields"]
    sheet = {k: v for k, v in base.items() if k != "name"}
    sheet[abilities_field] = [ability_key]
    if items_field:
        sheet[items_field] = [*sheet.get(items_field, []), item_key]
    hero = make_character(campaign, "Hero", **sheet)
    result = services.create_battle(campaign, gm, "Test", 10, 10, ruleset=campaign.ruleset, seed=11)
    assert result.ok, result.reason
    bid = result.battle_id
    rows = campaign.ruleset_class.board == "rows"
    for character, place in ((hero, [0, 0]), (wight, [2, 0])):
        r = services.add_combatant(bid, gm, character, **({"row": "front"} if rows else {"pos": place}))
        assert r.ok, r.reason
    assert services.start_battle(bid, gm).ok
    state = services.load_state(Battle.objects.get(pk=bid))
    hero_id = next(c.id for c in state.combatants.values() if c.name == "Hero")
    wight_id = next(c.id for c in state.combatants.values() if c.name == "Frost Wight")
    state = _turn_of(bid, gm, hero_id)
    options = [o for o in legal_actions(state, hero_id) if values["name"] in o.label]
    assert options, [o.label for o in legal_actions(state, hero_id)]
    option = options[0]
    assert option.cost == cost and option.available, option
    params = {**option.params, "targets": [wight_id]}
    r = services.submit_action(bid, gm, {"kind": option.kind, "actor": hero_id, "params": params})
    assert r.ok, r.reason
    events = r.events
    if case.get("then"):
        follow = next(o for o in legal_actions(r.state, hero_id) if o.kind == case["then"])
        r = services.submit_action(
            bid,
            gm,
            {"kind": follow.kind, "actor": hero_id, "params": {**follow.params, "targets": [wight_id]}},
        )
        assert r.ok, r.reason
        events = events + r.events
    rolled = [roll["expr"] for e in events for roll in e.data.get("rolls", [])]
    assert dice in rolled, rolled


def test_an_entry_in_use_can_be_edited_but_not_deleted_and_new_battles_take_the_new_version(client, gm):
    campaign = make_campaign(gm, "luck")
    client.force_login(gm)
    kind, values, _, _ = CASES["luck"]["ability"]
    post_entry(client, campaign, kind, values)
    entry = ContentEntry.objects.get(campaign=campaign)
    make_character(campaign, "Mira", abilities=[entry.key])
    old = services.create_battle(campaign, gm, "Before", 6, 6, ruleset="luck")
    edited = client.post(
        f"/campaigns/{campaign.pk}/content/{kind}/{entry.key}/", form_data({**values, "bonus": 9})
    )
    assert edited.status_code == 302
    entry.refresh_from_db()
    assert entry.data["bonus"] == 9
    new = services.create_battle(campaign, gm, "After", 6, 6, ruleset="luck")
    assert new.state.extra["content"][kind][entry.key]["bonus"] == 9
    assert (
        old.state.extra["content"][kind][entry.key]["bonus"] == 1
    )  # a battle keeps the version it began with
    refused = client.post(f"/campaigns/{campaign.pk}/content/{kind}/{entry.key}/delete/", follow=True)
    assert "in use" in refused.content.decode() and "the character Mira" in refused.content.decode()
    assert ContentEntry.objects.filter(pk=entry.pk).exists()
    Character.objects.filter(name="Mira").delete()
    assert client.post(f"/campaigns/{campaign.pk}/content/{kind}/{entry.key}/delete/").status_code == 302
    assert not ContentEntry.objects.filter(pk=entry.pk).exists()


def test_a_running_battle_using_an_entry_is_named_when_deletion_is_refused(client, gm):
    campaign = make_campaign(gm, "luck")
    client.force_login(gm)
    kind, values, _, _ = CASES["luck"]["ability"]
    post_entry(client, campaign, kind, values)
    entry = ContentEntry.objects.get(campaign=campaign)
    hero = make_character(campaign, "Mira", abilities=[entry.key])
    result = services.create_battle(campaign, gm, "Bridge fight", 6, 6, ruleset="luck")
    assert services.add_combatant(result.battle_id, gm, hero, pos=[0, 0]).ok
    hero.delete()
    assert homebrew.uses(campaign, kind, entry.key) == ["the running battle Bridge fight"]


def test_copying_a_built_in_entry_prefills_the_form_and_keeps_the_original(client, gm):
    campaign = make_campaign(gm, "luck")
    client.force_login(gm)
    page = client.get(f"/campaigns/{campaign.pk}/content/abilities/new/?copy=fire_bolt").content.decode()
    assert 'value="Fire Bolt (copy)"' in page and 'value="2d6"' in page
    assert (
        client.post(
            f"/campaigns/{campaign.pk}/content/abilities/new/",
            form_data(
                {**campaign.ruleset_class.content["abilities"]["fire_bolt"], "name": "Fire Bolt (copy)"}
            ),
        ).status_code
        == 302
    )
    entry = ContentEntry.objects.get(campaign=campaign)
    assert (
        entry.key != "fire_bolt"
        and campaign_content(campaign)["abilities"]["fire_bolt"]["name"] == "Fire Bolt"
    )


def test_players_get_403_and_strangers_404_on_the_content_pages(client, gm):
    player, outsider = make_user("player"), make_user("outsider")
    campaign = make_campaign(gm, "luck", player=[player])
    urls = [
        f"/campaigns/{campaign.pk}/content/",
        f"/campaigns/{campaign.pk}/content/abilities/new/",
        f"/campaigns/{campaign.pk}/content/export/",
        f"/campaigns/{campaign.pk}/content/import/",
    ]
    for user, status in ((player, 403), (outsider, 404)):
        client.force_login(user)
        for url in urls:
            assert client.get(url).status_code == status, url
        assert client.post(urls[1], form_data(CASES["luck"]["ability"][1])).status_code == status
    assert not ContentEntry.objects.exists()


# --- content packs as files -----------------------------------------------------------------------


def _upload(body: bytes):
    from django.core.files.uploadedfile import SimpleUploadedFile

    return SimpleUploadedFile("pack.json", body, content_type="application/json")


@pytest.mark.parametrize("ruleset", list(CASES))
def test_a_content_pack_exports_and_imports_into_another_campaign_after_a_preview(client, gm, ruleset):
    source = make_campaign(gm, ruleset, name="Source")
    target = make_campaign(gm, ruleset, name="Target")
    client.force_login(gm)
    case = CASES[ruleset]
    for kind, values in [case["ability"][:2], *([case["item"]] if case["item"] else [])]:
        assert post_entry(client, source, kind, values).status_code == 302
    base = next(iter(homebrew.builtin(source.ruleset_class)[homebrew.MONSTERS].values()))
    assert post_entry(client, source, homebrew.MONSTERS, {**base, "name": "Frost Wight"}).status_code == 302
    exported = client.get(f"/campaigns/{source.pk}/content/export/")
    assert exported.status_code == 200 and "attachment" in exported["Content-Disposition"]
    preview = client.post(f"/campaigns/{target.pk}/content/import/", {"file": _upload(exported.content)})
    body = preview.content.decode()
    assert preview.status_code == 200 and "Ice Lance" in body and "Frost Wight" in body
    assert not ContentEntry.objects.filter(campaign=target).exists()  # nothing written before confirming
    digest = client.session[homebrew_views.PENDING_IMPORT]["digest"]
    assert client.post(f"/campaigns/{target.pk}/content/import/", {"confirm": digest}).status_code == 302
    assert homebrew.entries(target) == homebrew.entries(source)
    again = client.post(f"/campaigns/{target.pk}/content/import/", {"file": _upload(exported.content)})
    assert "Replaced" in again.content.decode()


def _pack(**changes) -> bytes:
    pack = {
        "format": "vtt-content",
        "version": 1,
        "ruleset": "luck",
        "name": "x",
        "content": {"abilities": {"ice_lance": CASES["luck"]["ability"][1]}},
    }
    pack.update(changes)
    return json.dumps(pack).encode()


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        (b"{not json", "not valid JSON"),
        (b" " * (2 * 1024 * 1024 + 10), "too large"),
        (_pack(ruleset="mist"), "another ruleset"),
        (b'{"format": "vtt-content", "format": "vtt-content"}', "twice"),
        (_pack(colour="red"), "unknown parts"),
        (_pack(content={"spells": {}}), "no content of kind: spells"),
        (
            _pack(content={"abilities": {"ice_lance": {**CASES["luck"]["ability"][1], "range": 999}}}),
            "Ice Lance (abilities and spells): Range (squares): Must be at most 50.",
        ),
        (
            _pack(content={"abilities": {"ice_lance": {**CASES["luck"]["ability"][1], "glow": 1}}}),
            "Ice Lance (abilities and spells): Unknown fields: glow.",
        ),
        (b'{"a":' * 40 + b"1" + b"}" * 40, "nested too deeply"),
        (_pack(version=7), "another version"),
    ],
)
def test_a_bad_content_pack_is_refused_with_the_reason_and_nothing_is_written(client, gm, body, reason):
    campaign = make_campaign(gm, "luck")
    client.force_login(gm)
    response = client.post(f"/campaigns/{campaign.pk}/content/import/", {"file": _upload(body)})
    assert response.status_code == 400
    assert reason in html.unescape(response.content.decode())
    assert not ContentEntry.objects.exists()
