"""The pages' forms: campaigns, invites, characters, accounts, pictures.

The sheet's and the house rules' fields come from the ruleset's schemas (``vtt.schema_forms``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import timedelta
from typing import IO, Any

from confusable_homoglyphs import confusables
from django import forms
from django.contrib.auth import get_user_model
from django.contrib.auth.forms import AuthenticationForm, UserCreationForm
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from combat.engine.actions import has_nul
from combat.engine.rulesets import RULESETS, get_ruleset, ruleset_choices
from combat.engine.schema import SheetSchema
from vtt.content import campaign_content, content_choices
from vtt.forminput import InputRefused
from vtt.guest_models import GUEST_PREFIX
from vtt.images import BadImage, MapPicture, Portrait, map_from, portrait_from
from vtt.models import (
    AccountName,
    Campaign,
    Character,
    CharacterKind,
    Invite,
    MapImage,
    Membership,
    Role,
    delete_files,
)
from vtt.schema_forms import (
    OPTION_PREFIX,
    SHEET_PREFIX,
    ContentFormField,
    SchemaFieldsMixin,
    SchemaFormField,
    add_schema_fields,
    collect,
    report,
)

# --- campaigns ---------------------------------------------------------------------------------


class CampaignForm(SchemaFieldsMixin, forms.ModelForm[Campaign]):
    """Name, ruleset and that ruleset's house rules (one field per option).

    ``options_for`` records which ruleset the shown options belong to; when the
    ruleset changes without the options being swapped (no JavaScript), the form
    is shown again with the new ruleset's defaults instead of saving.
    """

    schema_prefix = OPTION_PREFIX
    ruleset = forms.ChoiceField(choices=ruleset_choices, label="Ruleset")
    options_for = forms.CharField(widget=forms.HiddenInput, required=False)

    class Meta:
        model = Campaign
        fields = ("name", "ruleset")

    def __init__(self, *args: Any, ruleset_key: str | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if self.instance.pk:
            wanted: object = self.instance.ruleset
        else:
            wanted = ruleset_key or (self.data.get("ruleset") if self.is_bound else None)
        key = wanted if isinstance(wanted, str) and wanted in RULESETS else next(iter(RULESETS))
        self.ruleset_key = key
        self.option_schema = get_ruleset(key).option_schema()
        if self.instance.pk:
            self.fields["ruleset"].disabled = True
            self.fields["ruleset"].help_text = "The ruleset is fixed once the campaign exists."
        self.initial["ruleset"] = key
        self.initial["options_for"] = key
        values = self.instance.options if self.instance.pk and self.instance.ruleset == key else None
        add_schema_fields(self, self.option_schema, OPTION_PREFIX, values)
        self.ruleset_changed = False

    @property
    def ruleset_cards(self) -> list[dict[str, str]]:
        """Each ruleset a new campaign may take: its key, its name and what kind of game it is."""
        return [{"key": key, "name": r.name, "summary": r.summary} for key, r in RULESETS.items()]

    def clean(self) -> dict[str, Any]:
        super().clean()
        cleaned = self.cleaned_data
        ruleset = cleaned.get("ruleset")
        if self.is_bound and not self.instance.pk and ruleset and cleaned.get("options_for") != ruleset:
            self.ruleset_changed = True
            raise ValidationError(
                "The house rules below are for the newly chosen ruleset: review them and save again."
            )
        if self.errors:
            return cleaned
        options, errors = collect(self, self.option_schema, OPTION_PREFIX)
        report(self, errors, OPTION_PREFIX)
        self.instance.options = options
        return cleaned


# --- invites -----------------------------------------------------------------------------------

EXPIRY_CHOICES = [("1", "1 day"), ("7", "7 days"), ("30", "30 days")]


class InviteForm(forms.ModelForm[Invite]):
    expires_in = forms.TypedChoiceField(choices=EXPIRY_CHOICES, coerce=int, initial="7", label="Expires in")
    max_uses = forms.IntegerField(min_value=1, max_value=100, initial=1, label="Uses")

    class Meta:
        model = Invite
        fields = ("role", "max_uses")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        role = self.fields["role"]
        assert isinstance(role, forms.ChoiceField)
        role.choices = [
            (Role.PLAYER, "Player"),
            (Role.OBSERVER, "Observer"),
            (Role.GM, "Game master"),
        ]

    def save(self, commit: bool = True) -> Invite:
        self.instance.expires_at = timezone.now() + timedelta(days=self.cleaned_data["expires_in"])
        return super().save(commit)


# --- characters --------------------------------------------------------------------------------


class CharacterFormBase(SchemaFieldsMixin, forms.ModelForm[Character]):
    """Model fields plus one field per stat of the campaign's ruleset schema.

    Subclasses set ``sheet_schema`` (see ``character_form_class``). Stats are
    checked field by field; the model's own check is the last line of defence
    and its sheet errors are shown above the form.
    """

    schema_prefix = SHEET_PREFIX
    sheet_schema: SheetSchema | None = None
    portrait_file = forms.FileField(
        required=False,
        label="Portrait",
        help_text="Optional: a PNG, JPEG or WebP picture up to 10 MB and 4096 pixels a side.",
        widget=forms.FileInput(attrs={"accept": "image/png,image/jpeg,image/webp"}),
    )
    remove_portrait = forms.BooleanField(required=False, label="Remove the portrait")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if self.sheet_schema is None:
            return
        # A saved character shows its sheet; a new one its template's (see CharacterForm) or the defaults.
        values = (
            self.instance.sheet if self.instance.pk or self.instance.sheet else self.sheet_schema.defaults()
        )
        if self.sheet_schema.fields and SHEET_PREFIX + self.sheet_schema.fields[0].key in self.fields:
            # Declared on the class (admin forms): only the initial values are per instance.
            for spec in self.sheet_schema:
                if spec.key in values:
                    self.initial.setdefault(SHEET_PREFIX + spec.key, values[spec.key])
        else:
            add_schema_fields(self, self.sheet_schema, SHEET_PREFIX, values)

    def clean_portrait_file(self) -> Portrait | None:
        upload = self.cleaned_data.get("portrait_file")
        if not upload:
            return None
        try:
            return portrait_from(upload)
        except BadImage as exc:
            raise forms.ValidationError(str(exc), code="bad_image") from exc

    def save(self, commit: bool = True) -> Character:
        """Stores the re-encoded portrait files, then the character; replaced files are removed after commit."""
        character = self.instance
        picture = self.cleaned_data.get("portrait_file")
        old: list[str] = []
        if picture is not None:
            old = character.set_portrait(picture)
        elif self.cleaned_data.get("remove_portrait"):
            old = character.clear_portrait()
        saved: Character = super().save(commit)
        if old:
            transaction.on_commit(lambda: delete_files(old))
        return saved

    def clean(self) -> dict[str, Any]:
        super().clean()
        cleaned = self.cleaned_data
        if self.sheet_schema is None:
            if not self.instance.sheet and cleaned.get("campaign"):
                self.instance.sheet = cleaned["campaign"].ruleset_class.sheet_schema.defaults()
            return cleaned
        sheet, errors = collect(self, self.sheet_schema, SHEET_PREFIX)
        report(self, errors, SHEET_PREFIX)
        if not errors:
            self.instance.sheet = sheet
        return cleaned


def character_form_class(
    schema: SheetSchema | None, fields: tuple[str, ...] = ("campaign", "name", "kind", "owner")
) -> type[CharacterFormBase]:
    """A form class with one declared field per stat of ``schema`` (the admin's).

    With ``schema=None`` (adding a character before its campaign is known) the
    sheet starts as the campaign ruleset's defaults.
    """
    attrs: dict[str, Any] = {
        "Meta": type("Meta", (), {"model": Character, "fields": fields}),
        "sheet_schema": schema,
    }
    for spec in schema or ():
        attrs[SHEET_PREFIX + spec.key] = SchemaFormField(spec)
    return type("CharacterSheetForm", (CharacterFormBase,), attrs)


def _username(user: User) -> str:
    return user.get_username()


class CharacterForm(CharacterFormBase):
    """The page form: what may be chosen depends on the editor's role."""

    class Meta:
        model = Character
        fields = ("name", "kind", "owner")

    def __init__(
        self,
        *args: Any,
        campaign: Campaign,
        membership: Membership,
        sheet: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        self.sheet_schema = campaign.ruleset_class.sheet_schema
        if sheet is not None and not kwargs.get("instance"):
            kwargs["instance"] = Character(sheet=sheet)
        super().__init__(*args, **kwargs)
        self.instance.campaign = campaign
        content = campaign_content(campaign)
        for spec in self.sheet_schema:
            name = SHEET_PREFIX + spec.key
            if spec.content and name in self.fields:
                old = self.fields[name]
                current = self.initial.get(name, old.initial)
                self.fields[name] = ContentFormField(
                    spec, content_choices(content, spec), current, initial=old.initial
                )
        members = campaign.memberships.filter(role__in=(Role.GM, Role.PLAYER)).select_related("user")
        owner = self.fields["owner"]
        assert isinstance(owner, forms.ModelChoiceField)
        assert owner.queryset is not None
        owner.queryset = owner.queryset.filter(pk__in=[m.user_id for m in members])
        owner.label_from_instance = _username  # type: ignore[method-assign,assignment]  # per-instance override (Django docs)
        owner.empty_label = "Nobody (GM controls it)"
        if not membership.is_gm:
            # Players make and edit their own PCs only.
            self.fields["kind"].disabled = True
            self.fields["owner"].disabled = True
            self.initial["kind"] = CharacterKind.PC
            self.initial["owner"] = membership.user_id
            if not self.instance.pk:
                self.instance.kind = CharacterKind.PC
                self.instance.owner_id = membership.user_id


# --- accounts ----------------------------------------------------------------------------------


UNAVAILABLE = "That username is not available. Choose another."


def username_skeleton(name: str) -> str:
    """What a name looks like (``vtt.names.skeleton``): lookalike names share it."""
    return AccountName.key(name)


def username_taken(name: str) -> bool:
    """An account exists with this name, with it in another case, or with a name that looks the same."""
    return AccountName.taken(name) or get_user_model().objects.filter(username=name).exists()


class LoginForm(AuthenticationForm):
    """Django's log-in form. A name longer than any account's is no typing mistake (the input stops at the
    limit): it is refused with the site's 400 (``vtt.forminput``) before it reaches the lockout's table."""

    def clean(self) -> dict[str, Any]:
        field = self.fields["username"]
        limit = (field.max_length if isinstance(field, forms.CharField) else None) or 150
        if len(str(self.data.get("username", ""))) > limit:
            raise InputRefused("That name is longer than any account's.")
        return super().clean()


class SignupForm(UserCreationForm[User]):
    """A new account. The name is normalised (NFKC, as Django does) and refused, with one message that
    does not say why, when it is taken in any case or looks like a taken one ("аlice" in Cyrillic)."""

    class Meta(UserCreationForm.Meta):
        fields = ("username",)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # One line each, so that the button stays on a phone's screen (Django's list of four rules does not).
        self.fields["username"].help_text = "Letters, digits and @ . + - _ only."
        self.fields["password1"].help_text = "At least 8 characters, not only digits, not a common password."

    def clean_username(self) -> str:
        # Called only once the field cleaned, so the name is there (a str, maybe empty).
        username: str = self.cleaned_data["username"]
        if not username:
            return username
        if confusables.is_dangerous(username):
            raise ValidationError(
                "Write your username in one alphabet (do not mix, say, Latin and Cyrillic letters).",
                code="mixed_scripts",
            )
        if username_taken(username) or username.lower().startswith(GUEST_PREFIX):
            raise ValidationError(UNAVAILABLE, code="unavailable")
        return username

    def validate_unique(self) -> None:
        """The name's uniqueness is ``clean_username``'s (one message); the database still enforces it."""
        exclude = self._get_validation_exclusions()  # type: ignore[attr-defined]  # private: not in django-stubs
        exclude.add("username")
        try:
            self.instance.validate_unique(exclude=exclude)
        except ValidationError as exc:
            self._update_errors(exc)  # type: ignore[attr-defined]  # private: not in django-stubs


# --- images ------------------------------------------------------------------------------------


class ImageUploadField(forms.FileField):
    """A file field whose cleaned value is the checked picture (``convert``), or a clear refusal."""

    def __init__(
        self, *args: Any, convert: Callable[[IO[bytes]], MapPicture | Portrait] = map_from, **kwargs: Any
    ) -> None:
        self.convert = convert
        kwargs.setdefault("widget", forms.FileInput(attrs={"accept": "image/png,image/jpeg,image/webp"}))
        super().__init__(*args, **kwargs)

    def clean(self, data: Any, initial: Any = None) -> MapPicture | Portrait | None:
        upload = super().clean(data, initial)
        if not upload:
            return None
        try:
            return self.convert(upload)
        except BadImage as exc:
            raise ValidationError(str(exc), code="bad_image") from exc


class MapUploadForm(forms.Form):
    """A new map for the campaign's library."""

    name = forms.CharField(max_length=100, label="Name", help_text="For example “Ruined bridge”.")
    image = ImageUploadField(
        label="Image", help_text="PNG, JPEG or WebP, up to 10 MB and 4096 pixels a side."
    )

    def clean_name(self) -> str:
        name: str = self.cleaned_data["name"].strip()
        if has_nul(name):
            raise ValidationError("Null characters are not allowed.")
        return name


class BattleMapForm(forms.Form):
    """A battle's map: a new upload or one from the library, and how the grid lies over it."""

    image = ImageUploadField(
        required=False,
        label="Upload a new map",
        help_text="PNG, JPEG or WebP, up to 10 MB and 4096 pixels a side. It joins the library.",
    )
    library = forms.ChoiceField(required=False, label="Or pick one from the library")
    fit = forms.BooleanField(
        required=False,
        initial=True,
        label="Stretch the image over the whole board",
        help_text="Untick to line the image's own grid up with the board's squares below.",
    )
    grid_cols = forms.IntegerField(
        required=False,
        min_value=1,
        max_value=200,
        label="Squares across the image",
        help_text="How many squares the picture's width holds.",
    )
    grid_offset_x = forms.IntegerField(
        required=False,
        min_value=0,
        max_value=4096,
        initial=0,
        label="Grid starts this many pixels from the left",
    )
    grid_offset_y = forms.IntegerField(
        required=False, min_value=0, max_value=4096, initial=0, label="and this many pixels from the top"
    )

    def __init__(
        self, *args: Any, maps: Iterable[MapImage] = (), current: MapImage | None = None, **kwargs: Any
    ) -> None:
        super().__init__(*args, **kwargs)
        self.maps = {str(m.pk): m for m in maps}
        choices = [("", "No map")] + [(str(m.pk), m.name) for m in maps]
        library = self.fields["library"]
        assert isinstance(library, forms.ChoiceField)
        library.choices = choices
        if current is not None:
            self.initial.setdefault("library", str(current.pk))

    def clean_library(self) -> MapImage | None:
        value = self.cleaned_data.get("library") or ""
        return self.maps.get(value)

    def clean(self) -> dict[str, Any]:
        super().clean()
        cleaned = self.cleaned_data
        if (
            not cleaned.get("fit")
            and (cleaned.get("image") or cleaned.get("library"))
            and not cleaned.get("grid_cols")
        ):
            self.add_error(
                "grid_cols", "Say how many squares the picture's width holds, or stretch it over the board."
            )
        return cleaned
