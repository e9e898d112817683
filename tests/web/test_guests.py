"""Guest seats (issue 37): the invite link asks for a name and nothing else; the guest plays in that
campaign alone, keeps the account with a username and a password, and the GM sees and removes guests."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from tests.table import make_campaign
from vtt.content import character_templates
from vtt.guest_models import GUEST_PREFIX, Guest
from vtt.guest_views import GUEST_ELSEWHERE
from vtt.models import Character, CharacterKind, Invite, Membership, Role

PASS = "a-long-pass-phrase-7"


@pytest.fixture
def invite(campaign, gm):
    return Invite.objects.create(campaign=campaign, created_by=gm, role=Role.PLAYER, max_uses=3)


def join_as(name: str, invite: Invite, client: Client | None = None):
    """A visitor opens the link and types a name: (their client, the response)."""
    client = client or Client()
    return client, client.post(reverse("join", args=[invite.token]), {"name": name})


def guest_user(name: str):
    return get_user_model().objects.get(first_name=name, username__startswith=GUEST_PREFIX)


def test_a_name_is_all_the_invite_link_asks(client, invite):
    url = reverse("join", args=[invite.token])
    page = client.get(url).content.decode()
    form = re.search(r'<form method="post" class="join-name".*?</form>', page, re.S)
    assert form is not None
    assert re.findall(r'<input[^>]*name="([^"]+)"', form.group(0)) == ["csrfmiddlewaretoken", "name"]
    assert "Your name" in form.group(0) and "Join the campaign" in form.group(0)
    # Signing up with a password, or logging in, stays one tap away and keeps the invite.
    assert (
        f'href="{reverse("signup")}?next={url}"' in page and f'href="{reverse("login")}?next={url}"' in page
    )


def test_a_guest_is_in_the_campaign_at_once_and_lands_on_the_character_form(invite, campaign):
    client, response = join_as("  Mira  ", invite)
    assert response.status_code == 302
    assert response["Location"] == reverse("character_create", args=[campaign.pk])
    user = guest_user("Mira")  # the name, its spaces trimmed, is the display name
    assert not user.has_usable_password() and not user.is_staff
    assert Membership.objects.get(user=user, campaign=campaign).role == Role.PLAYER
    assert Guest.objects.get(user=user).campaign == campaign
    invite.refresh_from_db()
    assert invite.uses == 1
    page = client.get(response["Location"]).content.decode()
    assert "Welcome to “The Campaign”, Mira." in page
    # A character in two taps: the first template's name is filled in, and the GM's fields are not shown.
    first = next(iter(character_templates(campaign, "pc")))
    assert re.search(rf'name="name"[^>]*value="{first}"', page)
    assert 'name="kind"' not in page and 'name="owner"' not in page


def test_a_blank_name_joins_nobody(client, invite):
    response = client.post(reverse("join", args=[invite.token]), {"name": "   "})
    assert response.status_code == 200 and "Please correct the fields" in response.content.decode()
    assert not Guest.objects.exists()
    invite.refresh_from_db()
    assert invite.uses == 0


@pytest.mark.parametrize("how", ["revoked", "used up", "expired"])
def test_a_revoked_used_up_or_expired_invite_admits_no_one(invite, how):
    if how == "revoked":
        invite.delete()
    elif how == "used up":
        Invite.objects.filter(pk=invite.pk).update(uses=invite.max_uses)
    else:
        Invite.objects.filter(pk=invite.pk).update(expires_at=timezone.now() - timedelta(minutes=1))
    client, response = join_as("Mira", invite)
    assert response.status_code == (404 if how == "revoked" else 410)
    if how != "revoked":
        assert f"This invite link has {'been used up' if how == 'used up' else 'expired'}." in (
            response.content.decode()
        )
    assert not Guest.objects.exists() and not get_user_model().objects.filter(first_name="Mira").exists()
    assert "_auth_user_id" not in client.session


def test_the_last_use_of_an_invite_admits_one_guest_only(invite):
    Invite.objects.filter(pk=invite.pk).update(uses=invite.max_uses - 1)
    assert join_as("First", invite)[1].status_code == 302
    assert join_as("Second", invite)[1].status_code == 410
    assert list(Guest.objects.values_list("user__first_name", flat=True)) == ["First"]


def test_a_game_masters_invite_asks_for_an_account(campaign, gm):
    invite = Invite.objects.create(campaign=campaign, created_by=gm, role=Role.GM)
    client = Client()
    page = client.get(reverse("join", args=[invite.token])).content.decode()
    assert "A game master's seat needs an account." in page and 'name="name"' not in page
    client.post(reverse("join", args=[invite.token]), {"name": "Sneaky"})
    assert not Guest.objects.exists()


def test_keeping_the_account_keeps_the_user_its_seat_and_its_characters(invite, campaign):
    client, _ = join_as("Mira", invite)
    user = guest_user("Mira")
    sheet = next(iter(character_templates(campaign, "pc").values()))
    hero = Character.objects.create(campaign=campaign, owner=user, name="Mira's hero", sheet=sheet)
    page = client.get(reverse("campaign", args=[campaign.pk])).content.decode()
    assert f'href="{reverse("keep_account")}"' in page  # the top bar offers it
    response = client.post(
        reverse("keep_account"), {"username": "mira", "password1": PASS, "password2": PASS}
    )
    assert response.status_code == 302 and response["Location"] == reverse("campaign", args=[campaign.pk])
    kept = get_user_model().objects.get(pk=user.pk)
    assert kept.username == "mira" and kept.first_name == "Mira" and kept.check_password(PASS)
    assert not Guest.objects.filter(user=kept).exists()
    hero.refresh_from_db()
    assert hero.owner_id == kept.pk
    assert Membership.objects.get(user=kept, campaign=campaign).role == Role.PLAYER
    # Still logged in on this device; and from any other with the password.
    assert client.get(reverse("campaign", args=[campaign.pk])).status_code == 200
    assert "Keep your account" not in client.get(reverse("campaigns")).content.decode()
    assert Client().login(username="mira", password=PASS)


@pytest.mark.parametrize("name", ["player", "guest-abc123"])
def test_keeping_refuses_a_taken_or_a_guest_like_username(invite, player, name):
    client, _ = join_as("Mira", invite)
    response = client.post(reverse("keep_account"), {"username": name, "password1": PASS, "password2": PASS})
    assert response.status_code == 200 and "That username is not available." in response.content.decode()
    assert Guest.objects.filter(user=guest_user("Mira")).exists()


def test_a_guest_reaches_nothing_outside_its_campaign(invite, gm, outsider):
    other = make_campaign(gm, name="Elsewhere", player=[outsider])
    elsewhere = Invite.objects.create(campaign=other, created_by=gm, max_uses=5)
    client, _ = join_as("Mira", invite)
    user = guest_user("Mira")
    assert client.get(reverse("campaign", args=[other.pk])).status_code == 404
    admin = client.get(reverse("admin:index"))
    assert admin.status_code == 302 and "/admin/login/" in admin["Location"]
    response = client.get(reverse("campaign_create"))
    assert response.status_code == 302 and response["Location"] == reverse("keep_account")
    # Another campaign's invite link: a guest joins nothing but its own campaign.
    page = client.get(reverse("join", args=[elsewhere.token]))
    assert page.status_code == 410 and GUEST_ELSEWHERE in page.content.decode()
    assert client.post(reverse("join", args=[elsewhere.token])).status_code == 410
    assert not Membership.objects.filter(user=user, campaign=other).exists()
    elsewhere.refresh_from_db()
    assert elsewhere.uses == 0
    # A throwaway table of another visitor does not exist for this guest.
    visitor = Client()
    battle_url = visitor.post(reverse("trial_start"), {"ruleset": "luck"})["Location"]
    table = Membership.objects.exclude(campaign__in=[invite.campaign, other]).get().campaign
    assert client.get(battle_url).status_code == 404
    assert client.get(reverse("campaign", args=[table.pk])).status_code == 404
    assert (
        client.get(reverse("battle_log", args=[int(battle_url.strip("/").rsplit("/", 1)[1])])).status_code
        == 404
    )


def test_the_gm_sees_guests_as_guests_by_their_names(as_user, gm, invite, campaign):
    gm.first_name = "Greta"
    gm.save()
    assert (
        "Greta invites you to The Campaign"
        in Client().get(reverse("join", args=[invite.token])).content.decode()
    )
    join_as("Mira", invite)
    page = as_user(gm).get(reverse("campaign", args=[campaign.pk])).content.decode()
    members = re.search(r'<section id="members".*?</section>', page, re.S).group(0)  # type: ignore[union-attr]
    rows = {
        re.search(r"<span>([^<]+)</span>", li).group(1): li
        for li in re.findall(r"<li>.*?</li>", members, re.S)
    }  # type: ignore[union-attr]
    assert "badge-guest" in rows["Mira"] and "badge-guest" not in rows["player"]
    assert GUEST_PREFIX not in members  # never the generated username


def test_the_gm_removes_a_guest_and_its_account_goes(as_user, gm, invite, campaign):
    guest_client, _ = join_as("Mira", invite)
    user = guest_user("Mira")
    sheet = next(iter(character_templates(campaign, "pc").values()))
    hero = Character.objects.create(campaign=campaign, owner=user, name="Mira's hero", sheet=sheet)
    seat = Membership.objects.get(user=user, campaign=campaign)
    response = as_user(gm).post(reverse("member_remove", args=[campaign.pk, seat.pk]), HTTP_HX_REQUEST="true")
    assert response.status_code == 200 and response.content.decode().lstrip().startswith(
        '<section id="members"'
    )
    assert "Mira was removed from the campaign." in response.content.decode()
    assert not get_user_model().objects.filter(pk=user.pk).exists()
    hero.refresh_from_db()
    assert hero.owner_id is None and hero.kind == CharacterKind.PC  # the character stays, the GM's now
    response = guest_client.get(reverse("campaign", args=[campaign.pk]))
    assert response.status_code == 302 and response["Location"].startswith(reverse("login"))


def test_the_gm_removes_a_member_but_never_themself(as_user, gm, player, campaign):
    client = as_user(gm)
    me = Membership.objects.get(user=gm, campaign=campaign)
    page = client.get(reverse("campaign", args=[campaign.pk])).content.decode()
    assert reverse("member_remove", args=[campaign.pk, me.pk]) not in page
    assert reverse("member_role", args=[campaign.pk, me.pk]) not in page  # no role choice for oneself
    response = client.post(reverse("member_remove", args=[campaign.pk, me.pk]), follow=True)
    assert "You cannot remove yourself" in response.content.decode()
    assert Membership.objects.filter(pk=me.pk).exists()
    seat = Membership.objects.get(user=player, campaign=campaign)
    assert client.post(reverse("member_remove", args=[campaign.pk, seat.pk])).status_code == 302
    assert not Membership.objects.filter(pk=seat.pk).exists()
    assert get_user_model().objects.filter(pk=player.pk).exists()  # an account of its own stays


def test_the_first_invite_link_is_shown_once_with_copy(as_user, gm):
    from tests.web.conftest import options_post  # noqa: PLC0415

    client = as_user(gm)
    data = {"name": "Keep", "ruleset": "luck", "options_for": "luck", **options_post("luck")}
    page = client.get(client.post(reverse("campaign_create"), data)["Location"]).content.decode()
    token = Invite.objects.get().token
    assert page.count(reverse("join", args=[token])) == 1
    assert 'data-copy="first-invite"' in page
