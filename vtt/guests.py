"""Guest seats: the name form of an invite link, keeping a guest account, what a guest may reach, and
deleting the throwaway tables of "Try a battle" once they are a day old.

A guest (``vtt.guest_models.Guest``) is in one campaign. It reaches that campaign's pages as any
member of its role does (``vtt.access`` finds its membership) and nothing else: no other campaign
(it can join none: ``may_join``), no new campaign (``may_create_campaigns``), not the admin (it is no
staff). Its username is generated (``GUEST_PREFIX``), never chosen: no sign-up takes that prefix, so
``is_guest`` needs no query.

>>> is_guest(type("U", (), {"is_authenticated": True, "username": "guest-1a2b"})())
True
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django import forms
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from vtt.forms import SignupForm
from vtt.guest_models import GUEST_PREFIX, Guest
from vtt.models import Campaign
from vtt.names import display_name

__all__ = ["display_name", "is_guest", "may_create_campaigns", "may_join"]

NAME_MAX = 40  # a display name: what the table calls a player
TRIAL_LIFETIME = timedelta(days=1)  # a throwaway table and its guest are deleted after this


def is_guest(user: Any) -> bool:
    """An account made from a name alone that its owner has not kept yet (no query: its generated name)."""
    return bool(getattr(user, "is_authenticated", False)) and str(getattr(user, "username", "")).startswith(
        GUEST_PREFIX
    )


def may_create_campaigns(user: Any) -> bool:
    return not is_guest(user)


def may_join(user: Any, campaign_id: int) -> bool:
    """A guest joins no campaign but its own (it is already in that one); anyone else may join."""
    return not is_guest(user) or Guest.campaign_of(user) == campaign_id


class GuestNameForm(forms.Form):
    """The one field of an invite link: the name the table will call the player."""

    name = forms.CharField(
        label="Your name",
        max_length=NAME_MAX,
        help_text="What the table calls you. You can keep this seat later with a password.",
        widget=forms.TextInput(
            attrs={"autocomplete": "nickname", "autocapitalize": "words", "enterkeyhint": "go"}
        ),
    )

    def clean_name(self) -> str:
        name: str = " ".join(self.cleaned_data["name"].split())
        if not name or not name.isprintable():
            raise ValidationError("Type the name the table will call you.", code="blank")
        return name


class KeepAccountForm(SignupForm):
    """A guest keeps its account: a username and a password for the same user (its characters stay its own)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.initial["username"] = ""  # the generated name is not a suggestion
        self.fields["username"].help_text = "You log in with it, on any device. Letters, digits and @ . + - _"

    def save(self, commit: bool = True) -> User:
        with transaction.atomic():
            user = super().save(commit)
            Guest.objects.filter(user=user).delete()
        return user


def delete_old_trials(age: timedelta = TRIAL_LIFETIME, now: Any = None) -> tuple[int, int]:
    """Delete the throwaway tables made at least ``age`` ago (their battles, characters and chat go with
    them), their guest accounts, and guest accounts as old whose campaign is gone; returns (tables,
    accounts) deleted. A guest who kept its account keeps it; nothing else is touched."""
    cutoff = (now or timezone.now()) - age
    with transaction.atomic():
        tables = Campaign.objects.filter(throwaway=True, created__lte=cutoff)
        campaigns = list(tables.values_list("pk", flat=True))
        users = set(Guest.objects.filter(campaign_id__in=campaigns).values_list("user_id", flat=True))
        orphans = User.objects.filter(
            username__startswith=GUEST_PREFIX, date_joined__lte=cutoff, guest__isnull=True
        ).values_list("pk", flat=True)
        users.update(orphans)
        Campaign.objects.filter(pk__in=campaigns).delete()
        _, deleted = User.objects.filter(pk__in=users, username__startswith=GUEST_PREFIX).delete()
    return len(campaigns), deleted.get(User._meta.label, 0)
