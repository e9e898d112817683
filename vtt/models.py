"""Campaigns, who is in them, their invite links and their characters.

Sheets and house rules are JSON validated against the campaign's ruleset
(``combat.engine.rulesets``): the schema lives with the ruleset, the models
only store what it accepts.
"""

from __future__ import annotations

import contextlib
import secrets
from collections.abc import Iterable
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.core.validators import MinValueValidator
from django.db import models, transaction
from django.db.models.signals import post_delete, post_save
from django.urls import reverse
from django.utils import timezone

from combat.engine.actions import has_nul
from combat.engine.rulesets import RULESETS, UnknownRuleset, get_ruleset, ruleset_choices
from combat.engine.rulesets.base import Ruleset
from combat.engine.schema import SheetSchema
from vtt.content import campaign_content, check_sheet

if TYPE_CHECKING:
    from django.contrib.auth.models import User

    from vtt.images import MapPicture, Portrait


def validate_ruleset_key(value: str) -> None:
    if value not in RULESETS:
        raise ValidationError("Unknown ruleset %(value)r.", params={"value": value}, code="unknown_ruleset")


def schema_errors_as_messages(schema: SheetSchema, errors: dict[str, list[str]]) -> list[str]:
    """``{"hp": ["Must be at least 1."]}`` -> ``["Max HP: Must be at least 1."]``."""
    messages: list[str] = []
    for key, items in errors.items():
        field = schema.get(key)
        prefix = f"{field.label}: " if field else ""
        messages.extend(prefix + item for item in items)
    return messages


class Role(models.TextChoices):
    GM = "gm", "Game master"
    PLAYER = "player", "Player"
    OBSERVER = "observer", "Observer"


class Campaign(models.Model):
    name = models.CharField(max_length=100)
    ruleset = models.CharField(max_length=40, validators=[validate_ruleset_key])
    options = models.JSONField(default=dict, blank=True, help_text="House rules, validated by the ruleset.")
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="owned_campaigns"
    )
    created = models.DateTimeField(auto_now_add=True)
    # A table made by "Try a battle" for one visitor: deleted with its guest after a day (cleanup_trials).
    throwaway = models.BooleanField(default=False, editable=False)

    class Meta:
        ordering = ("name", "pk")

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse("campaign", args=[self.pk])

    @property
    def ruleset_class(self) -> type[Ruleset]:
        """The ruleset plugin; raises ``UnknownRuleset`` for a key no longer registered."""
        return get_ruleset(self.ruleset)

    @property
    def ruleset_name(self) -> str:
        return dict(ruleset_choices()).get(self.ruleset, self.ruleset)

    def house_rules(self) -> dict[str, Any]:
        """Options with defaults filled in (what the engine should use)."""
        clean, errors = self.ruleset_class.validate_options(self.options)
        return clean if not errors else self.ruleset_class.default_options()

    def clean(self) -> None:
        if self.ruleset not in RULESETS:
            raise ValidationError({"ruleset": "Unknown ruleset."})
        if self.pk:
            before = Campaign.objects.filter(pk=self.pk).values_list("ruleset", flat=True).first()
            if before and before != self.ruleset and self.characters.exists():
                raise ValidationError({"ruleset": "The ruleset of a campaign with characters cannot change."})
        if has_nul(self.options):
            raise ValidationError({"options": "Null characters are not allowed."})
        clean, errors = self.ruleset_class.validate_options(self.options)
        if errors:
            schema = self.ruleset_class.option_schema()
            raise ValidationError({"options": schema_errors_as_messages(schema, errors)})
        self.options = clean


class Membership(models.Model):
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships")
    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="memberships")
    role = models.CharField(max_length=10, choices=Role.choices, default=Role.PLAYER)
    joined = models.DateTimeField(auto_now_add=True)

    class Meta:
        # No default ordering: membership checks run on every battle action; a join to sort would waste time.
        constraints = [models.UniqueConstraint(fields=("user", "campaign"), name="one_membership_per_user")]

    def __str__(self) -> str:
        return f"{self.user} in {self.campaign} ({self.get_role_display()})"

    @property
    def is_gm(self) -> bool:
        return self.role == Role.GM

    @property
    def is_player(self) -> bool:
        return self.role == Role.PLAYER

    @property
    def is_observer(self) -> bool:
        return self.role == Role.OBSERVER


def new_invite_token() -> str:
    return secrets.token_urlsafe(24)


def default_invite_expiry() -> datetime:
    return timezone.now() + timedelta(days=7)


class InviteError(Exception):
    """An invite that cannot be used; ``str(exc)`` says why."""


class Invite(models.Model):
    EXPIRED = "This invite link has expired."
    USED_UP = "This invite link has been used up."

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="invites")
    token = models.CharField(max_length=64, unique=True, default=new_invite_token, editable=False)
    role = models.CharField(max_length=10, choices=Role.choices, default=Role.PLAYER)
    expires_at = models.DateTimeField(default=default_invite_expiry)
    max_uses = models.PositiveIntegerField(default=1, validators=[MinValueValidator(1)])
    uses = models.PositiveIntegerField(default=0)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ("-created", "-pk")

    def __str__(self) -> str:
        return f"Invite to {self.campaign} as {self.get_role_display()}"

    def get_absolute_url(self) -> str:
        return reverse("join", args=[self.token])

    def problem(self, now: datetime | None = None) -> str | None:
        """Why this invite cannot be used now, or ``None`` when it can."""
        now = now or timezone.now()
        if self.expires_at <= now:
            return self.EXPIRED
        if self.uses >= self.max_uses:
            return self.USED_UP
        return None

    def is_valid(self, now: datetime | None = None) -> bool:
        return self.problem(now) is None

    @property
    def uses_left(self) -> int:
        return max(0, self.max_uses - self.uses)

    def redeem(self, user: User) -> tuple[Membership, bool]:
        """Make ``user`` a member; returns ``(membership, created)``.

        Locks the invite row so two people cannot take the last use. A user
        who is already a member keeps their role and uses nothing up.
        Raises ``InviteError`` when the invite is expired or used up.
        """
        with transaction.atomic():
            invite = Invite.objects.select_for_update().get(pk=self.pk)
            existing = Membership.objects.filter(user=user, campaign_id=invite.campaign_id).first()
            if existing:
                return existing, False
            reason = invite.problem()
            if reason:
                raise InviteError(reason)
            membership = Membership.objects.create(
                user=user, campaign_id=invite.campaign_id, role=invite.role
            )
            invite.uses += 1
            invite.save(update_fields=["uses"])
        self.uses = invite.uses
        return membership, True


class CharacterKind(models.TextChoices):
    PC = "pc", "Player character"
    NPC = "npc", "Non-player character"
    MONSTER = "monster", "Monster"


class Character(models.Model):
    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="characters")
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="characters",
        help_text="The player who controls it; empty for NPCs and monsters.",
    )
    kind = models.CharField(max_length=10, choices=CharacterKind.choices, default=CharacterKind.PC)
    name = models.CharField(max_length=100)
    # Uploaded portraits, re-encoded by vtt.images and served by vtt.media to campaign members only.
    portrait = models.FileField(max_length=200, blank=True, editable=False)  # sheet size
    portrait_token = models.FileField(max_length=200, blank=True, editable=False)  # round, for the board
    # Why an old portrait link is gone (links to other sites are no longer shown); cleared by a new upload.
    portrait_notice = models.CharField(max_length=300, blank=True, editable=False)
    sheet = models.JSONField(default=dict, blank=True)
    created = models.DateTimeField(auto_now_add=True)
    updated = models.DateTimeField(auto_now=True)

    FILE_FIELDS = ("portrait", "portrait_token")

    class Meta:
        ordering = ("kind", "name", "pk")

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse("character", args=[self.campaign_id, self.pk])

    @property
    def ruleset_class(self) -> type[Ruleset]:
        return self.campaign.ruleset_class

    @property
    def portrait_url(self) -> str:
        return media_url(self.portrait.name)

    @property
    def portrait_token_url(self) -> str:
        return media_url(self.portrait_token.name)

    def set_portrait(self, picture: Portrait) -> list[str]:
        """Store a checked ``vtt.images.Portrait``; returns the names it replaces (delete them after commit)."""
        from vtt.images import new_stem

        old = [f.name for f in (self.portrait, self.portrait_token) if f.name]
        stem = new_stem(self.campaign_id, "portraits")
        self.portrait.save(f"{stem}-sheet.webp", ContentFile(picture.sheet), save=False)
        self.portrait_token.save(f"{stem}-token.webp", ContentFile(picture.token), save=False)
        self.portrait_notice = ""
        return old

    def clear_portrait(self) -> list[str]:
        old = [f.name for f in (self.portrait, self.portrait_token) if f.name]
        self.portrait = self.portrait_token = ""
        return old

    def clean(self) -> None:
        if not self.campaign_id:
            return  # the missing campaign is reported on its own field
        errors: dict[str, list[str]] = {}
        if (
            self.owner_id
            and not Membership.objects.filter(campaign_id=self.campaign_id, user_id=self.owner_id).exists()
        ):
            errors["owner"] = ["The owner must be a member of the campaign."]
        if has_nul(self.sheet):
            errors["sheet"] = ["Null characters are not allowed."]
            raise ValidationError(errors)
        try:
            ruleset = self.campaign.ruleset_class
        except UnknownRuleset:
            errors["sheet"] = ["The campaign's ruleset is unknown."]
        else:
            clean, sheet_errors = ruleset.validate_sheet(self.sheet)
            if not sheet_errors:
                # Names of weapons, abilities... must be the campaign's content (a name is taken as its key).
                clean, sheet_errors = check_sheet(
                    ruleset.sheet_schema, clean, campaign_content(self.campaign)
                )
            if sheet_errors:
                errors["sheet"] = schema_errors_as_messages(ruleset.sheet_schema, sheet_errors)
            else:
                self.sheet = clean
        if errors:
            raise ValidationError(errors)


def media_url(name: str | None) -> str:
    """The site's URL of a stored image (served by ``vtt.media.serve``, whatever the storage), or ""."""
    return reverse("media", args=[name]) if name else ""


def delete_files(names: Iterable[str]) -> None:
    """Remove stored files that nothing points to any more (best effort: ``vtt.media`` serves only files a
    row still names, so a leftover file is never shown)."""
    for name in names:
        if name:
            with contextlib.suppress(Exception):  # a storage hiccup must not fail the request
                default_storage.delete(name)


def _files_of_deleted(
    sender: type[Character | MapImage], instance: Character | MapImage, **kwargs: Any
) -> None:
    """A deleted character's portraits or library map's files go once the deletion commits (a page, the
    admin, or a whole campaign deleted with them)."""
    names = [f.name for f in (getattr(instance, n) for n in sender.FILE_FIELDS) if f and f.name]
    if names:
        transaction.on_commit(lambda: delete_files(names))


class MapImage(models.Model):
    """A battle map (or a backdrop) in a campaign's map library."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="maps")
    name = models.CharField(max_length=100)
    image = models.FileField(max_length=200, editable=False)
    thumb = models.FileField(max_length=200, editable=False)
    width = models.PositiveIntegerField(editable=False)
    height = models.PositiveIntegerField(editable=False)
    created = models.DateTimeField(auto_now_add=True)

    FILE_FIELDS = ("image", "thumb")

    class Meta:
        ordering = ("-created", "-pk")

    def __str__(self) -> str:
        return self.name

    @property
    def url(self) -> str:
        return media_url(self.image.name)

    @property
    def thumb_url(self) -> str:
        return media_url(self.thumb.name)

    @classmethod
    def create_from(cls, campaign: Campaign, name: str, picture: MapPicture) -> MapImage:
        """A library map from a checked ``vtt.images.MapPicture``."""
        from vtt.images import new_stem

        stem = new_stem(campaign.pk, "maps")
        item = cls(campaign=campaign, name=name, width=picture.width, height=picture.height)
        item.image.save(f"{stem}-map.webp", ContentFile(picture.image), save=False)
        item.thumb.save(f"{stem}-thumb.webp", ContentFile(picture.thumb), save=False)
        item.save()
        return item


class AccountName(models.Model):
    """What an account's username looks like (``vtt.names.skeleton``): a name that looks like a taken one is
    refused by one equality, the same on every database. Kept by ``_name_saved`` whenever a user is saved."""

    MAX_LENGTH = 600

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, primary_key=True, related_name="+"
    )
    skeleton = models.CharField(max_length=MAX_LENGTH, db_index=True)

    def __str__(self) -> str:
        return self.skeleton

    @classmethod
    def key(cls, username: str) -> str:
        from vtt.names import skeleton

        return skeleton(username)[: cls.MAX_LENGTH]

    @classmethod
    def taken(cls, username: str) -> bool:
        """An account exists whose name looks like ``username`` (in any case, any lookalike letters)."""
        return cls.objects.filter(skeleton=cls.key(username)).exists()


def _name_saved(
    sender: type[User],
    instance: User,
    created: bool = False,
    update_fields: frozenset[str] | None = None,
    **kwargs: Any,
) -> None:
    if created or update_fields is None or "username" in update_fields:
        AccountName.objects.update_or_create(
            user_id=instance.pk, defaults={"skeleton": AccountName.key(instance.get_username())}
        )


class ContentEntry(models.Model):
    """One homebrew definition of a campaign: a spell, an item, a monster... over the ruleset's built-in ones.

    ``kind`` is one of the ruleset's content kinds (or ``monsters``, a stat
    block validated as a sheet), ``key`` its stable name in sheets and battles,
    ``data`` the definition as the ruleset validated it (``vtt.homebrew``).
    An entry with the key of a built-in one replaces it in this campaign.
    """

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="content_entries")
    kind = models.CharField(max_length=40)
    key = models.CharField(max_length=40)
    data = models.JSONField(default=dict)
    created = models.DateTimeField(auto_now_add=True)
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ("kind", "key")
        constraints = [models.UniqueConstraint(fields=("campaign", "kind", "key"), name="one_entry_per_key")]

    def __str__(self) -> str:
        return f"{self.kind}.{self.key}"

    @property
    def name(self) -> str:
        name = self.data.get("name") if isinstance(self.data, dict) else None
        return name if isinstance(name, str) and name else self.key.replace("_", " ").capitalize()


class ChatMessage(models.Model):
    """One line of a campaign's chat: words, dice rolled on the server, or both.

    ``vtt.chat`` is the only writer and decides who may read a line (``audience``):
    everyone, the GMs (and its author), or one member (and its author). ``text`` is
    the words as typed after the command (what an edit starts from); ``parts`` is
    what is shown, in order: words and the rolls made when it was sent.
    """

    class Audience(models.TextChoices):
        ALL = "all", "Everyone"
        GM = "gm", "The GM"
        ONE = "one", "One member"

    class Kind(models.TextChoices):
        SAY = "say", "Message"
        ROLL = "roll", "Roll"

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="chat_messages")
    author = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    kind = models.CharField(max_length=4, choices=Kind.choices, default=Kind.SAY)
    audience = models.CharField(max_length=3, choices=Audience.choices, default=Audience.ALL)
    recipient = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, null=True, blank=True, related_name="+"
    )
    text = models.TextField(blank=True)
    parts = models.JSONField(default=list, blank=True)
    created = models.DateTimeField(auto_now_add=True)
    edited = models.DateTimeField(null=True, blank=True)
    deleted = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [
            models.Index(fields=["campaign", "-id"], name="chat_history"),
            models.Index(fields=["author", "created"], name="chat_rate"),
        ]

    def __str__(self) -> str:
        return f"{self.author} in {self.campaign}: {self.text[:40]}"


# A model of this app kept in a module of its own; imported here so that Django registers it.
from vtt.guest_models import Guest as Guest  # noqa: E402

for _model in (Character, MapImage):
    post_delete.connect(_files_of_deleted, sender=_model, dispatch_uid=f"files-of-deleted-{_model.__name__}")
post_save.connect(_name_saved, sender=settings.AUTH_USER_MODEL, dispatch_uid="account-name-saved")
