"""Admin: the sheet is edited field by field from the campaign ruleset's schema."""

from __future__ import annotations

import pytest
from django.urls import reverse

from tests.table import make_campaign, make_user
from tests.web.conftest import sheet_post
from vtt.models import Character


@pytest.fixture
def admin_client(client, db):
    client.force_login(make_user("root", is_staff=True, is_superuser=True))
    return client


def change_data(character, sheet, **overrides):
    data = sheet_post(
        character.ruleset_class.sheet_schema,
        sheet,
        name=character.name,
        kind=character.kind,
        owner=str(character.owner_id or ""),
        portrait="",
    )
    data.update(overrides)
    return data


def test_change_form_has_one_field_per_stat_not_json(admin_client, pc):
    page = admin_client.get(reverse("admin:vtt_character_change", args=[pc.pk])).content.decode()
    for spec in pc.ruleset_class.sheet_schema:
        assert f'name="sheet_{spec.key}"' in page
    assert 'name="sheet"' not in page
    assert "Sheet (Mist &amp; Rampart)" in page


def test_admin_saves_a_valid_sheet(admin_client, pc):
    url = reverse("admin:vtt_character_change", args=[pc.pk])
    response = admin_client.post(url, change_data(pc, pc.sheet | {"hp": 321, "movement": 6}))
    assert response.status_code == 302
    pc.refresh_from_db()
    assert (pc.sheet["hp"], pc.sheet["movement"]) == (321, 6)


@pytest.mark.parametrize(
    ("stat", "value", "message"),
    [
        ("hp", "-5", "Must be at least 1."),
        ("lp", "many", "Enter a whole number."),
        ("speed", "", "This field is required."),
    ],
)
def test_admin_refuses_an_invalid_sheet_with_the_fields_error(admin_client, pc, stat, value, message):
    before = dict(pc.sheet)
    url = reverse("admin:vtt_character_change", args=[pc.pk])
    response = admin_client.post(url, change_data(pc, pc.sheet, **{f"sheet_{stat}": value}))
    assert response.status_code == 200
    errors = response.context["adminform"].form.errors
    assert errors[f"sheet_{stat}"] == [message]
    pc.refresh_from_db()
    assert pc.sheet == before


def test_admin_add_with_campaign_fills_the_sheet(admin_client, gm):
    campaign = make_campaign(gm, ruleset="action-block")
    schema = campaign.ruleset_class.sheet_schema
    url = reverse("admin:vtt_character_add") + f"?campaign={campaign.pk}"
    assert 'name="sheet_ghost_power"' in admin_client.get(url).content.decode()
    data = sheet_post(
        schema,
        schema.defaults() | {"ghost_power": 7},
        campaign=str(campaign.pk),
        name="Wraith",
        kind="monster",
        owner="",
        portrait="",
    )
    assert admin_client.post(url, data).status_code == 302
    assert Character.objects.get().sheet["ghost_power"] == 7


def test_admin_add_without_campaign_starts_from_defaults(admin_client, gm):
    campaign = make_campaign(gm, ruleset="paradigm")
    data = {"campaign": str(campaign.pk), "name": "Goblin", "kind": "monster", "owner": "", "portrait": ""}
    assert admin_client.post(reverse("admin:vtt_character_add"), data).status_code == 302
    character = Character.objects.get()
    assert (
        character.sheet
        == campaign.ruleset_class.validate_sheet(campaign.ruleset_class.sheet_schema.defaults())[0]
    )


def test_changelist_filters_by_campaign_and_ruleset(admin_client, gm, pc):
    luck = make_campaign(gm, ruleset="luck", name="Lucky")
    from tests.table import make_character

    make_character(luck, "Tamsin")
    url = reverse("admin:vtt_character_changelist")
    page = admin_client.get(url, {"ruleset": "luck"}).content.decode()
    assert "Tamsin" in page and "Aria" not in page
    page = admin_client.get(url, {"campaign__id__exact": pc.campaign_id}).content.decode()
    assert "Aria" in page and "Tamsin" not in page


def test_campaign_admin_refuses_bad_house_rules(admin_client, campaign):
    url = reverse("admin:vtt_campaign_change", args=[campaign.pk])
    data = {
        "name": campaign.name,
        "ruleset": "mist",
        "owner": str(campaign.owner_id),
        "options": '{"weakness_multiplier": 42}',
        "memberships-TOTAL_FORMS": "0",
        "memberships-INITIAL_FORMS": "0",
    }
    response = admin_client.post(url, data)
    assert response.status_code == 200 and "Must be at most 5." in response.content.decode()
    campaign.refresh_from_db()
    assert campaign.options["weakness_multiplier"] == 2
