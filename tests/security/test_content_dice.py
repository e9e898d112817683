"""Issue 22, point 3: dice that parse but cannot be rolled are refused wherever content enters.

``1d0`` (a die without faces), ``1001d6`` (more dice than any roll needs) and
``1d1e1`` (a die that explodes on every face, so never stops) once passed every
check and then broke battles. Each entry path refuses them now with a message
at (or naming) the field: the homebrew forms (every ruleset's dice field), a
content pack's monster and definitions, a character sheet's weapon dice, and a
battle file's content. tests/engine/test_content_dice.py plants them in a
running battle instead.
"""

from __future__ import annotations

import html
import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from combat.engine.dice import check_expr
from combat.engine.rulesets import RULESETS
from combat.models import Battle
from tests.content import CASES, UNROLLABLE, form_data, sheet_post
from tests.table import make_campaign, make_user
from vtt import homebrew
from vtt.models import Character, ContentEntry

pytestmark = pytest.mark.django_db

BAD = UNROLLABLE


@pytest.fixture
def gm(db):
    return make_user("gm")


def _upload(body: bytes) -> SimpleUploadedFile:
    return SimpleUploadedFile("file.json", body, content_type="application/json")


def test_point_3_the_bounds_say_what_is_wrong():
    assert [check_expr(e) for e in BAD] == [
        "A die has 1 to 1000 faces (this one has 0).",
        "At most 100 dice in one roll (this one rolls 1001).",
        "A die may explode or be rerolled on at most half its faces (1d1e1: 1 of 1).",
    ]
    for fine in ("1d20+3", "8d6", "4d6kh3", "1d6e6", "1d10rr1", "100d6", "1d%", "2d6/2"):
        assert check_expr(fine) is None, fine


@pytest.mark.parametrize("expr", BAD)
@pytest.mark.parametrize("ruleset", sorted(CASES))
def test_point_3_the_homebrew_form_refuses_unrollable_dice_on_their_field(client, gm, ruleset, expr):
    campaign = make_campaign(gm, ruleset)
    client.force_login(gm)
    kind, values, field = CASES[ruleset]["invalid"]
    response = client.post(
        f"/campaigns/{campaign.pk}/content/{kind}/new/", form_data({**values, field: expr})
    )
    assert response.status_code == 200
    errors = response.context["form"].errors
    assert f"def_{field}" in errors and check_expr(expr) in errors[f"def_{field}"]
    assert not ContentEntry.objects.exists()


def _pack(ruleset: str, content: dict) -> bytes:
    return json.dumps(
        {"format": "vtt-content", "version": 1, "ruleset": ruleset, "name": "x", "content": content}
    ).encode()


@pytest.mark.parametrize("expr", BAD)
@pytest.mark.parametrize("ruleset", sorted(CASES))
def test_point_3_a_content_pack_with_unrollable_dice_is_refused_naming_the_field(client, gm, ruleset, expr):
    campaign = make_campaign(gm, ruleset)
    client.force_login(gm)
    kind, values, field = CASES[ruleset]["invalid"]
    body = _pack(ruleset, {kind: {"zap": {**values, field: expr}}})
    response = client.post(f"/campaigns/{campaign.pk}/content/import/", {"file": _upload(body)})
    text = html.unescape(response.content.decode())
    label = homebrew.schema_for(RULESETS[ruleset], kind).get(field).label
    assert response.status_code == 400 and f"Zap ({homebrew.kind_label(kind).lower()}): {label}:" in text
    assert check_expr(expr) in text
    assert not ContentEntry.objects.exists()


@pytest.mark.parametrize("expr", BAD)
def test_point_3_a_paradigm_sheet_with_unrollable_weapon_dice_is_refused_everywhere(client, gm, expr):
    """The character form (the model's own check, naming the field), a homebrew monster's form and a pack."""
    campaign = make_campaign(gm, "paradigm")
    client.force_login(gm)
    schema = campaign.ruleset_class.sheet_schema
    post = sheet_post(schema, schema.defaults(), name="Probe", kind="monster", owner="")
    response = client.post(f"/campaigns/{campaign.pk}/characters/new/", {**post, "sheet_weapon_damage": expr})
    assert response.status_code == 200
    assert f"Weapon damage dice: {check_expr(expr)}" in response.context["form"].errors["__all__"]
    assert not Character.objects.exists()
    monster = next(iter(homebrew.builtin(campaign.ruleset_class)[homebrew.MONSTERS].values()))
    bad_monster = {**monster, "name": "Glitch", "weapon_damage": expr}
    response = client.post(f"/campaigns/{campaign.pk}/content/monsters/new/", form_data(bad_monster))
    assert response.status_code == 200 and "def_weapon_damage" in response.context["form"].errors
    body = _pack("paradigm", {homebrew.MONSTERS: {"glitch": bad_monster}})
    response = client.post(f"/campaigns/{campaign.pk}/content/import/", {"file": _upload(body)})
    text = html.unescape(response.content.decode())
    assert response.status_code == 400 and "Glitch (monsters): Weapon damage dice:" in text
    assert not ContentEntry.objects.exists()


@pytest.mark.parametrize("expr", BAD)
def test_point_3_a_battle_file_with_unrollable_content_dice_is_refused(client, gm, expr):
    from combat.engine.core import new_battle_event, replay

    campaign = make_campaign(gm, "luck")
    client.force_login(gm)
    ability = next(iter(RULESETS["luck"].content["abilities"].values()))
    created = new_battle_event("luck", {}, 5, 6, 6)
    created.data["content"] = {"abilities": {"doom": {**ability, "name": "Doom", "dice": expr}}}
    events = [
        created.to_dict(),
        {"type": "battle.ended", "data": {"result": {"winner": None, "reason": "x"}}},
    ]
    body = json.dumps(
        {
            "format": "vtt-battle",
            "version": 1,
            "name": "Forged",
            "ruleset": "luck",
            "seed": 5,
            "events": events,
            "final": replay(events).to_dict(),
        }
    ).encode()
    response = client.post(f"/campaigns/{campaign.pk}/battles/import/", {"file": _upload(body)})
    text = html.unescape(response.content.decode())
    assert response.status_code == 400 and "abilities.doom.dice" in text and check_expr(expr) in text
    assert not Battle.objects.exists()
