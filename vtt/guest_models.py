"""Guest seats: an account made from a name alone, for one campaign.

A player who opens an invite link types a name and is in the campaign at once: a ``Guest`` is that
account's tie to the campaign it was made for (an invite's, or a throwaway table of "Try a battle").
The account has no password and a generated username; the name typed is its display name
(``User.first_name``, ``vtt.names.display_name``). Choosing a username and a password keeps the
account (``vtt.guests.KeepAccountForm``): the same user, the same characters, and no ``Guest`` row.
"""

from __future__ import annotations

import secrets
from typing import TYPE_CHECKING

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import models

if TYPE_CHECKING:
    from django.contrib.auth.models import User

    from vtt.models import Campaign

GUEST_PREFIX = "guest-"


class Guest(models.Model):
    """An account that reaches one campaign only, until its owner keeps it with a username and password."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, primary_key=True, related_name="guest"
    )
    campaign = models.ForeignKey("vtt.Campaign", on_delete=models.CASCADE, related_name="guests")
    created = models.DateTimeField(auto_now_add=True, db_index=True)

    def __str__(self) -> str:
        return f"Guest {self.user_id} of {self.campaign_id}"

    @staticmethod
    def account(name: str) -> User:
        """A new account for a guest named ``name`` (its display name), not tied to a campaign yet."""
        # No password given: an unusable one, so nobody logs in as a guest but through its session.
        user: User = get_user_model().objects.create_user(
            username=GUEST_PREFIX + secrets.token_hex(8), first_name=name
        )
        return user

    @classmethod
    def make(cls, name: str, campaign: Campaign) -> User:
        """A new guest account named ``name`` for ``campaign``; no membership yet."""
        user = cls.account(name)
        cls.objects.create(user=user, campaign=campaign)
        return user

    @classmethod
    def campaign_of(cls, user: object) -> int | None:
        """The id of the campaign a guest account is tied to, or None for an account that is no guest."""
        if not getattr(user, "is_authenticated", False):
            return None
        return (
            cls.objects.filter(user_id=getattr(user, "pk", None))
            .values_list("campaign_id", flat=True)
            .first()
        )
