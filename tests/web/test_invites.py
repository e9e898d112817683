"""Invite links: create (GM), join, and the clear refusals: expired, used up, already a member."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone
from django.utils.html import escape

from tests.table import make_user
from vtt.models import Invite, InviteError, Membership, Role


@pytest.fixture
def invite(campaign, gm):
    return Invite.objects.create(campaign=campaign, created_by=gm, role=Role.PLAYER, max_uses=2)


def test_gm_creates_an_invite_link_with_htmx(as_user, gm, campaign):
    response = as_user(gm).post(
        reverse("invite_create", args=[campaign.pk]),
        {"role": "observer", "expires_in": "1", "max_uses": "5"},
        HTTP_HX_REQUEST="true",
    )
    assert response.status_code == 200
    invite = Invite.objects.get()
    assert (invite.role, invite.max_uses, invite.uses, invite.created_by) == ("observer", 5, 0, gm)
    assert timedelta(hours=23) < invite.expires_at - timezone.now() <= timedelta(days=1)
    page = response.content.decode()
    assert page.lstrip().startswith('<section id="invites"')
    assert reverse("join", args=[invite.token]) in page
    assert 'hx-swap-oob="true"' in page and "Invite link created" in page


def test_bad_invite_settings_create_nothing(as_user, gm, campaign):
    response = as_user(gm).post(
        reverse("invite_create", args=[campaign.pk]),
        {"role": "king", "expires_in": "9999", "max_uses": "0"},
        HTTP_HX_REQUEST="true",
    )
    assert response.status_code == 200
    assert not Invite.objects.exists()
    page = response.content.decode()
    assert "Select a valid choice" in page and "greater than or equal to 1" in page


def test_valid_invite_joins_with_its_role_and_counts_a_use(as_user, invite, outsider):
    client = as_user(outsider)
    page = client.get(reverse("join", args=[invite.token]))
    assert page.status_code == 200 and "Join the campaign" in page.content.decode()
    response = client.post(reverse("join", args=[invite.token]))
    assert response.status_code == 302 and response["Location"] == invite.campaign.get_absolute_url()
    assert Membership.objects.get(user=outsider, campaign=invite.campaign).role == Role.PLAYER
    invite.refresh_from_db()
    assert invite.uses == 1


def test_expired_invite_says_so_and_changes_nothing(as_user, invite, outsider):
    Invite.objects.filter(pk=invite.pk).update(expires_at=timezone.now() - timedelta(seconds=1))
    client = as_user(outsider)
    page = client.get(reverse("join", args=[invite.token]))
    assert page.status_code == 410 and "This invite link has expired." in page.content.decode()
    response = client.post(reverse("join", args=[invite.token]))
    assert response.status_code == 410 and "expired" in response.content.decode()
    assert not Membership.objects.filter(user=outsider).exists()
    invite.refresh_from_db()
    assert invite.uses == 0


def test_used_up_invite_says_so(as_user, invite, db):
    first, second, third = (make_user(name) for name in ("first", "second", "third"))
    for user in (first, second):
        assert as_user(user).post(reverse("join", args=[invite.token])).status_code == 302
    response = as_user(third).post(reverse("join", args=[invite.token]))
    assert response.status_code == 410
    assert "This invite link has been used up." in response.content.decode()
    assert not Membership.objects.filter(user=third).exists()
    invite.refresh_from_db()
    assert (invite.uses, invite.is_valid(), invite.problem()) == (2, False, Invite.USED_UP)


def test_already_member_keeps_role_and_uses_nothing(as_user, invite, observer):
    response = as_user(observer).post(reverse("join", args=[invite.token]), follow=True)
    assert "You are already a member" in response.content.decode()
    assert Membership.objects.get(user=observer, campaign=invite.campaign).role == Role.OBSERVER
    invite.refresh_from_db()
    assert invite.uses == 0


def test_member_sees_open_link_even_when_invite_is_used_up(as_user, invite, player):
    Invite.objects.filter(pk=invite.pk).update(uses=2)
    page = as_user(player).get(reverse("join", args=[invite.token]))
    assert page.status_code == 200 and "already a member" in page.content.decode()


def test_point_4_the_invite_page_welcomes_with_who_invites_to_what_and_a_name_first(client, invite):
    url = reverse("join", args=[invite.token])
    response = client.get(url)
    page = response.content.decode()
    campaign = invite.campaign
    assert response.status_code == 200
    assert f"{invite.created_by.get_username()} invites you to {campaign.name}" in page
    assert escape(campaign.ruleset_name) in page and "as <strong>player</strong>" in page
    # A name comes first (tests/web/test_guests.py); sign-up and log-in follow, both carrying the invite.
    assert page.index('name="name"') < page.rindex(f"{reverse('signup')}?next={url}")
    assert page.count(f"{reverse('signup')}?next={url}") == 2  # the page's link and the top bar's
    assert page.count(f"{reverse('login')}?next={url}") == 2


@pytest.mark.parametrize("link", ["signup", "login"])
def test_point_4_the_invite_survives_sign_up_or_log_in_from_any_link(client, invite, link, django_user_model):
    join_url = reverse("join", args=[invite.token])
    if link == "signup":
        data = {
            "username": "newbie",
            "password1": "a-long-pass-phrase-7",
            "password2": "a-long-pass-phrase-7",
        }
    else:
        django_user_model.objects.create_user("newbie", password="a-long-pass-phrase-7")
        data = {"username": "newbie", "password": "a-long-pass-phrase-7"}
    response = client.post(reverse(link), {**data, "next": join_url})
    # Joining is done on submit: the new player lands on the campaign, told to make a character.
    assert response.status_code == 302 and response["Location"] == invite.campaign.get_absolute_url()
    assert Membership.objects.filter(
        user__username="newbie", campaign=invite.campaign, role=Role.PLAYER
    ).exists()
    page = client.get(response["Location"]).content.decode()
    assert "Make your character" in page


def test_point_4_invite_links_have_copy_and_share_buttons(as_user, gm, invite):
    page = as_user(gm).get(invite.campaign.get_absolute_url()).content.decode()
    assert f'data-copy="invite-{invite.pk}"' in page and f'data-share="invite-{invite.pk}"' in page
    assert "vtt/campaign.js" in page


def test_unknown_token_is_404(as_user, outsider, db):
    assert as_user(outsider).get(reverse("join", args=["nope"])).status_code == 404


def test_redeem_raises_with_the_reason(invite, outsider):
    Invite.objects.filter(pk=invite.pk).update(expires_at=timezone.now() - timedelta(days=1))
    invite.refresh_from_db()
    with pytest.raises(InviteError, match="expired"):
        invite.redeem(outsider)


def test_revoked_invite_is_gone(as_user, gm, invite):
    response = as_user(gm).post(
        reverse("invite_revoke", args=[invite.campaign_id, invite.pk]), HTTP_HX_REQUEST="true"
    )
    assert response.status_code == 200 and not Invite.objects.exists()
    assert as_user(gm).get(reverse("join", args=[invite.token])).status_code == 404


def test_signup_then_join_through_next(client, invite):
    join_url = reverse("join", args=[invite.token])
    response = client.post(
        reverse("signup"),
        {
            "username": "newbie",
            "password1": "a-long-pass-phrase-7",
            "password2": "a-long-pass-phrase-7",
            "next": join_url,
        },
    )
    assert response.status_code == 302 and response["Location"] == invite.campaign.get_absolute_url()
    assert Membership.objects.filter(user__username="newbie", role=Role.PLAYER).exists()
    assert client.post(join_url).status_code == 302  # joining again changes nothing


def test_signup_refuses_an_offsite_next(client, db):
    response = client.post(
        reverse("signup"),
        {
            "username": "x1",
            "password1": "a-long-pass-phrase-7",
            "password2": "a-long-pass-phrase-7",
            "next": "https://evil.example/",
        },
    )
    # Not the offsite page: a new account's own first step, making a campaign.
    assert response.status_code == 302 and response["Location"] == reverse("campaign_create")
