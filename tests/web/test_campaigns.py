"""Creating and editing campaigns; house rules generated from the ruleset's options."""

from __future__ import annotations

import pytest
from django.db import IntegrityError
from django.urls import reverse

from combat.engine.rulesets import RULESETS, get_ruleset
from tests.web.conftest import options_post
from vtt.models import Campaign, Membership, Role


@pytest.mark.parametrize("key", sorted(RULESETS))
def test_create_campaign_with_default_house_rules_makes_creator_gm(as_user, outsider, key):
    data = {"name": f"New {key}", "ruleset": key, "options_for": key, **options_post(key)}
    response = as_user(outsider).post(reverse("campaign_create"), data)
    campaign = Campaign.objects.get()
    assert response.status_code == 302 and response["Location"] == campaign.get_absolute_url()
    assert (campaign.ruleset, campaign.owner, campaign.options) == (
        key,
        outsider,
        get_ruleset(key).default_options(),
    )
    assert Membership.objects.get(campaign=campaign).role == Role.GM


def test_house_rule_choices_are_kept(as_user, outsider):
    data = {
        "name": "Misty",
        "ruleset": "mist",
        "options_for": "mist",
        **options_post("mist", initiative_die="2d6", weakness_multiplier=3, hide_enemy_hp=False),
    }
    as_user(outsider).post(reverse("campaign_create"), data)
    options = Campaign.objects.get().options
    assert (options["initiative_die"], options["weakness_multiplier"], options["hide_enemy_hp"]) == (
        "2d6",
        3,
        False,
    )


def test_bad_house_rule_is_refused_on_its_field(as_user, outsider):
    data = {
        "name": "Misty",
        "ruleset": "mist",
        "options_for": "mist",
        **options_post("mist", weakness_multiplier=99, initiative_die="3d4"),
    }
    response = as_user(outsider).post(reverse("campaign_create"), data)
    page = response.content.decode()
    assert response.status_code == 200
    assert 'id="id_opt_weakness_multiplier_error"' in page and "Must be at most 5." in page
    assert 'id="id_opt_initiative_die_error"' in page
    assert not Campaign.objects.exists() and not Membership.objects.exists()


def test_unknown_ruleset_is_refused(as_user, outsider):
    response = as_user(outsider).post(
        reverse("campaign_create"), {"name": "X", "ruleset": "chess", "options_for": "chess"}
    )
    assert response.status_code == 200 and "Select a valid choice" in response.content.decode()
    assert not Campaign.objects.exists()


def test_changing_ruleset_swaps_house_rules_with_htmx(as_user, outsider):
    response = as_user(outsider).get(
        reverse("campaign_create"), {"ruleset": "paradigm"}, HTTP_HX_REQUEST="true"
    )
    page = response.content.decode()
    assert page.lstrip().startswith('<fieldset id="house-rules"')
    assert "<html" not in page
    for spec in get_ruleset("paradigm").option_schema():
        assert f'name="opt_{spec.key}"' in page
    assert 'name="opt_weakness_multiplier"' not in page  # a Mist option
    assert 'name="options_for" value="paradigm"' in page


def test_full_page_shows_first_ruleset_house_rules_with_defaults(as_user, outsider):
    page = as_user(outsider).get(reverse("campaign_create")).content.decode()
    first = next(iter(RULESETS))
    for spec in get_ruleset(first).option_schema():
        assert f'name="opt_{spec.key}"' in page
    assert 'hx-get="/campaigns/new/"' in page


def test_ruleset_changed_without_javascript_shows_new_rules_instead_of_saving(as_user, outsider):
    data = {"name": "Switch", "ruleset": "luck", "options_for": "mist", **options_post("mist")}
    response = as_user(outsider).post(reverse("campaign_create"), data)
    page = response.content.decode()
    assert response.status_code == 200 and not Campaign.objects.exists()
    assert 'name="opt_recover_rule"' in page and 'value="Switch"' in page
    assert "Review the house rules" in page


def test_nothing_half_saved_when_the_gm_membership_cannot_be_written(as_user, outsider, monkeypatch):
    def broken(*args, **kwargs):
        raise IntegrityError("simulated failure")

    monkeypatch.setattr(Membership.objects, "create", broken)
    data = {"name": "Doomed", "ruleset": "luck", "options_for": "luck", **options_post("luck")}
    with pytest.raises(IntegrityError):
        as_user(outsider).post(reverse("campaign_create"), data)
    assert not Campaign.objects.exists()


def test_gm_edits_name_and_house_rules_but_not_ruleset(as_user, gm, campaign):
    data = {"name": "Renamed", "ruleset": "luck", **options_post("mist", disengage_type="static")}
    response = as_user(gm).post(reverse("campaign_edit", args=[campaign.pk]), data)
    assert response.status_code == 302
    campaign.refresh_from_db()
    assert (campaign.name, campaign.ruleset, campaign.options["disengage_type"]) == (
        "Renamed",
        "mist",
        "static",
    )


def test_gm_changes_a_role_but_never_removes_the_last_gm(as_user, gm, observer, campaign):
    client = as_user(gm)
    observer_m = Membership.objects.get(user=observer, campaign=campaign)
    response = client.post(
        reverse("member_role", args=[campaign.pk, observer_m.pk]), {"role": "player"}, HTTP_HX_REQUEST="true"
    )
    assert response.status_code == 200 and response.content.decode().lstrip().startswith(
        '<section id="members"'
    )
    observer_m.refresh_from_db()
    assert observer_m.role == Role.PLAYER
    gm_m = Membership.objects.get(user=gm, campaign=campaign)
    response = client.post(
        reverse("member_role", args=[campaign.pk, gm_m.pk]), {"role": "observer"}, follow=True
    )
    assert "You cannot change your own role" in response.content.decode()
    gm_m.refresh_from_db()
    assert gm_m.role == Role.GM
    # A second GM may demote the first, but then not be demoted by anyone: one GM stays.
    observer_m.role = Role.GM
    observer_m.save()
    assert (
        client.post(reverse("member_role", args=[campaign.pk, observer_m.pk]), {"role": "player"}).status_code
        == 302
    )
    observer_m.refresh_from_db()
    assert observer_m.role == Role.PLAYER
    assert (
        client.post(reverse("member_role", args=[campaign.pk, gm_m.pk]), {"role": "king"}).status_code == 400
    )


def test_campaign_page_lists_members_characters_battles_and_gm_invites(
    as_user, gm, player, campaign, pc, monster
):
    page = as_user(gm).get(reverse("campaign", args=[campaign.pk])).content.decode()
    for text in (
        "player",
        "observer",
        "Aria",
        "Stone Golem",
        'id="battles"',
        'id="invites"',
        "Create invite link",
    ):
        assert text in page
    page = as_user(player).get(reverse("campaign", args=[campaign.pk])).content.decode()
    assert 'id="invites"' not in page and "Stone Golem" not in page  # not met in a battle yet
    assert reverse("character_edit", args=[campaign.pk, pc.pk]) in page
    assert reverse("character", args=[campaign.pk, monster.pk]) not in page


def test_home_welcomes_visitors_and_sends_members_to_their_campaigns(client, as_user, gm, campaign):
    assert "Log in" in client.get("/").content.decode()
    response = as_user(gm).get("/")
    assert response.status_code == 302 and response["Location"] == reverse("campaigns")


def test_base_page_loads_htmx_with_ws_and_sends_csrf_header(as_user, gm, campaign):
    page = as_user(gm).get(reverse("campaign", args=[campaign.pk])).content.decode()
    assert "django_htmx/htmx-2.min.js" in page and "django_htmx/ext/hx-ws-2.min.js" in page
    assert 'hx-headers=\'{"X-CSRFToken":' in page
    assert 'href="#main"' in page and '<main id="main"' in page
