"""Whatever is posted, a form either saves a valid sheet or says why and saves nothing; never a 500."""

from __future__ import annotations

import pytest
from django.urls import reverse
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from combat.engine.rulesets import RULESETS, get_ruleset
from tests.table import make_campaign, make_user
from tests.web.conftest import options_post, sheet_post
from vtt.forminput import REFUSED
from vtt.models import Campaign, Character

junk = st.one_of(
    st.text(max_size=30),
    st.integers(min_value=-(10**12), max_value=10**12).map(str),
    st.sampled_from(["", " ", "1.5", "1e9", "NaN", "on", "true", "-0", "０", "1,2", "\x00"]),
)


@pytest.mark.parametrize("key", sorted(RULESETS))
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_random_sheet_posts_save_valid_sheets_or_nothing(as_user, gm, key, data):
    Character.objects.all().delete()
    campaign = Campaign.objects.filter(ruleset=key).first() or make_campaign(gm, ruleset=key)
    schema = get_ruleset(key).sheet_schema
    post = sheet_post(schema, schema.defaults(), name="Probe", kind="monster", owner="", portrait="")
    for spec in data.draw(st.lists(st.sampled_from(schema.fields), max_size=4, unique_by=lambda f: f.key)):
        post[f"sheet_{spec.key}"] = data.draw(junk)
    response = as_user(gm).post(reverse("character_create", args=[campaign.pk]), post)
    assert response.status_code in ({400} if _has_nul(post) else {200, 302})
    if response.status_code == 302:
        character = Character.objects.get()
        assert get_ruleset(key).validate_sheet(character.sheet)[1] == {}
    else:
        assert not Character.objects.exists()
        assert ("error" if response.status_code == 200 else REFUSED) in response.content.decode()


def _has_nul(post: dict) -> bool:
    """A NUL anywhere in the form: refused before any view, with one message (vtt.forminput)."""
    return any("\x00" in str(value) for value in post.values())


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    values=st.dictionaries(
        st.sampled_from(
            [
                "ruleset",
                "options_for",
                "name",
                "opt_initiative_die",
                "opt_weakness_multiplier",
                "opt_hide_enemy_hp",
            ]
        ),
        junk,
    )
)
def test_random_campaign_posts_never_half_save(as_user, outsider, values):
    Campaign.objects.all().delete()
    post = {"name": "Probe", "ruleset": "mist", "options_for": "mist", **options_post("mist"), **values}
    response = as_user(outsider).post(reverse("campaign_create"), post)
    assert response.status_code in ({400} if _has_nul(post) else {200, 302})
    campaigns = list(Campaign.objects.all())
    if response.status_code == 302:
        (campaign,) = campaigns
        assert campaign.memberships.get().user == outsider
        assert get_ruleset("mist").validate_options(campaign.options)[1] == {}
    else:
        assert campaigns == []


def test_delete_with_htmx_redirects_the_browser(as_user, player, pc):
    response = as_user(player).post(
        reverse("character_delete", args=[pc.campaign_id, pc.pk]), HTTP_HX_REQUEST="true"
    )
    assert response.status_code == 200 and response["HX-Redirect"] == pc.campaign.get_absolute_url()
    assert not Character.objects.filter(pk=pc.pk).exists()


def test_admin_refuses_an_owner_from_outside_the_campaign(client, pc, outsider):
    client.force_login(make_user("root", is_staff=True, is_superuser=True))
    data = sheet_post(
        pc.ruleset_class.sheet_schema, pc.sheet, name=pc.name, kind="pc", owner=str(outsider.pk), portrait=""
    )
    response = client.post(reverse("admin:vtt_character_change", args=[pc.pk]), data)
    assert response.status_code == 200 and "must be a member" in response.content.decode()
    pc.refresh_from_db()
    assert pc.owner.username == "player"


def test_a_portrait_link_is_never_stored_or_shown(as_user, gm, campaign):
    """Portraits are uploads; a posted link (the old form) is ignored, so no viewer's browser fetches it."""
    schema = campaign.ruleset_class.sheet_schema
    post = sheet_post(
        schema,
        schema.defaults(),
        name="X",
        kind="npc",
        owner="",
        portrait="javascript:alert(1)",
        portrait_file="https://tracker.example/pixel.png",
    )
    response = as_user(gm).post(reverse("character_create", args=[campaign.pk]), post, follow=True)
    character = Character.objects.get()
    assert character.portrait.name == "" and character.portrait_token.name == ""
    assert (
        "tracker.example" not in response.content.decode() and "javascript:" not in response.content.decode()
    )


@pytest.mark.parametrize("key", sorted(RULESETS))
def test_nul_characters_in_text_stats_are_refused_not_crashing(as_user, gm, key):
    campaign = make_campaign(gm, ruleset=key)
    schema = get_ruleset(key).sheet_schema
    post = sheet_post(schema, schema.defaults(), name="Probe", kind="monster", owner="", portrait="")
    text_fields = [f for f in schema if f.kind in ("str", "list")]
    for spec in text_fields:
        post[f"sheet_{spec.key}"] = "a\x00b"
    response = as_user(gm).post(reverse("character_create", args=[campaign.pk]), post)
    assert response.status_code == 400 and REFUSED in response.content.decode()
    assert not Character.objects.exists()


def test_model_refuses_nul_characters_anywhere_in_sheet_or_options(gm):
    from django.core.exceptions import ValidationError

    campaign = make_campaign(gm, ruleset="paradigm")
    schema = campaign.ruleset_class.sheet_schema
    character = Character(campaign=campaign, name="X", sheet=schema.defaults() | {"jobs": ["ok", "b\x00d"]})
    with pytest.raises(ValidationError, match="Null characters"):
        character.full_clean()
    campaign.options = {"initiative_die": "1d\x0020"}
    with pytest.raises(ValidationError, match="Null characters"):
        campaign.full_clean()


@pytest.mark.parametrize(
    "url",
    [
        "/campaigns/99999999999999999999999/",
        "/campaigns/99999999999999999999999/characters/1/",
        "/campaigns/1/characters/99999999999999999999999/edit/",
        "/join/" + "x" * 500 + "/",
    ],
)
def test_out_of_range_ids_are_404_not_500(as_user, gm, campaign, url):
    assert as_user(gm).get(url).status_code == 404
