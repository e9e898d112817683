"""Forms generated from ruleset schemas, shared by the pages and the admin.

A schema ``Field`` becomes one Django form field whose cleaning *is* the
schema's cleaning, so a page, the admin and the engine all give the same
message for the same bad value.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django import forms
from django.contrib.auth.forms import UserCreationForm
from django.core.exceptions import NON_FIELD_ERRORS, ValidationError
from django.utils import timezone

from combat.engine.rulesets import RULESETS, get_ruleset, ruleset_choices
from combat.engine.schema import Field, SheetSchema
from vtt.models import Campaign, Character, CharacterKind, Invite, Membership, Role, has_nul

SHEET_PREFIX = "sheet_"
OPTION_PREFIX = "opt_"


class CommaListInput(forms.TextInput):
    """A list of names edited as ``a, b, c``."""

    def format_value(self, value):
        if isinstance(value, list | tuple):
            value = ", ".join(str(v) for v in value)
        return super().format_value(value)


class SchemaFormField(forms.Field):
    """A form field that cleans with a schema ``Field``."""

    def __init__(self, spec: Field, **kwargs):
        self.spec = spec
        kwargs.setdefault("label", spec.label)
        kwargs.setdefault("help_text", spec.help)
        kwargs.setdefault("initial", spec.default)
        kwargs.setdefault("widget", widget_for(spec))
        super().__init__(required=False, **kwargs)
        if spec.required and spec.kind not in ("bool", "list"):
            self.widget.attrs["required"] = True

    def clean(self, value):
        if has_nul(value):
            raise ValidationError("Null characters are not allowed.", code="null_characters_not_allowed")
        try:
            return self.spec.clean(value)
        except ValueError as exc:
            raise ValidationError(str(exc), code="invalid") from None

    def has_changed(self, initial, data):
        try:
            return self.spec.clean(data) != initial
        except ValueError:
            return True


def widget_for(spec: Field) -> forms.Widget:
    if spec.kind == "int":
        attrs: dict[str, Any] = {"inputmode": "numeric", "step": 1}
        if spec.min is not None:
            attrs["min"] = spec.min
        if spec.max is not None:
            attrs["max"] = spec.max
        return forms.NumberInput(attrs=attrs)
    if spec.kind == "bool":
        return forms.CheckboxInput()
    if spec.kind == "choice":
        return forms.Select(choices=[(c, c.replace("_", " ")) for c in spec.choices])
    if spec.kind == "list":
        if spec.choices:
            return forms.CheckboxSelectMultiple(choices=[(c, c) for c in spec.choices])
        return CommaListInput(attrs={"placeholder": "comma, separated, names"})
    return forms.TextInput(attrs={"maxlength": spec.max_length})


def add_schema_fields(form: forms.BaseForm, schema: SheetSchema, prefix: str, values: dict | None) -> None:
    """Append one form field per schema field, pre-filled from ``values``."""
    values = values or {}
    for spec in schema:
        field = SchemaFormField(spec)
        if spec.key in values:
            field.initial = values[spec.key]
        form.fields[prefix + spec.key] = field


def collect(form: forms.BaseForm, schema: SheetSchema, prefix: str) -> tuple[dict, dict[str, list[str]]]:
    """Gather cleaned schema fields into a dict and validate it as a whole."""
    data = {spec.key: form.cleaned_data.get(prefix + spec.key) for spec in schema}
    return schema.validate(data)


def report(form: forms.BaseForm, errors: dict[str, list[str]], prefix: str) -> None:
    """Put whole-dict errors on their fields, unless the field already said why."""
    for key, messages in errors.items():
        name = prefix + key if prefix + key in form.fields else None
        if name in form.errors:
            continue
        for message in messages:
            form.add_error(name, message)


class SchemaFieldsMixin:
    """Template helpers: the generated fields as bound fields, grouped."""

    schema_prefix = ""

    def schema_fields(self):
        return [self[name] for name in self.fields if name.startswith(self.schema_prefix)]

    def _update_errors(self, errors):
        # The model reports sheet/option problems on a JSON field the form does not show.
        if hasattr(errors, "error_dict"):
            for name in list(errors.error_dict):
                if name not in self.fields and name != NON_FIELD_ERRORS:
                    errors.error_dict.setdefault(NON_FIELD_ERRORS, []).extend(errors.error_dict.pop(name))
        super()._update_errors(errors)


# --- campaigns ---------------------------------------------------------------------------------


class CampaignForm(SchemaFieldsMixin, forms.ModelForm):
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

    def __init__(self, *args, ruleset_key: str | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        if self.instance.pk:
            key = self.instance.ruleset
        else:
            key = ruleset_key or (self.data.get("ruleset") if self.is_bound else None)
        if key not in RULESETS:
            key = next(iter(RULESETS))
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

    def clean(self):
        cleaned = super().clean()
        ruleset = cleaned.get("ruleset")
        if self.is_bound and not self.instance.pk and ruleset and cleaned.get("options_for") != ruleset:
            self.ruleset_changed = True
            raise ValidationError("The house rules below are for the newly chosen ruleset: review them and save again.")
        if self.errors:
            return cleaned
        options, errors = collect(self, self.option_schema, OPTION_PREFIX)
        report(self, errors, OPTION_PREFIX)
        self.instance.options = options
        return cleaned


# --- invites -----------------------------------------------------------------------------------

EXPIRY_CHOICES = [("1", "1 day"), ("7", "7 days"), ("30", "30 days")]


class InviteForm(forms.ModelForm):
    expires_in = forms.TypedChoiceField(choices=EXPIRY_CHOICES, coerce=int, initial="7", label="Expires in")
    max_uses = forms.IntegerField(min_value=1, max_value=100, initial=1, label="Uses")

    class Meta:
        model = Invite
        fields = ("role", "max_uses")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["role"].choices = [(Role.PLAYER, "Player"), (Role.OBSERVER, "Observer"), (Role.GM, "Game master")]

    def save(self, commit=True):
        self.instance.expires_at = timezone.now() + timedelta(days=self.cleaned_data["expires_in"])
        return super().save(commit)


# --- characters --------------------------------------------------------------------------------


class CharacterFormBase(SchemaFieldsMixin, forms.ModelForm):
    """Model fields plus one field per stat of the campaign's ruleset schema.

    Subclasses set ``sheet_schema`` (see ``character_form_class``). Stats are
    checked field by field; the model's own check is the last line of defence
    and its sheet errors are shown above the form.
    """

    schema_prefix = SHEET_PREFIX
    sheet_schema: SheetSchema | None = None
    portrait = forms.URLField(
        max_length=500, required=False, assume_scheme="https", help_text="Optional link to an image (https://...)."
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if self.sheet_schema is None:
            return
        values = self.instance.sheet if self.instance.pk else self.sheet_schema.defaults()
        if self.sheet_schema.fields and SHEET_PREFIX + self.sheet_schema.fields[0].key in self.fields:
            # Declared on the class (admin forms): only the initial values are per instance.
            for spec in self.sheet_schema:
                if spec.key in values:
                    self.initial.setdefault(SHEET_PREFIX + spec.key, values[spec.key])
        else:
            add_schema_fields(self, self.sheet_schema, SHEET_PREFIX, values)

    def clean(self):
        cleaned = super().clean()
        if self.sheet_schema is None:
            if not self.instance.sheet and cleaned.get("campaign"):
                self.instance.sheet = cleaned["campaign"].ruleset_class.sheet_schema.defaults()
            return cleaned
        sheet, errors = collect(self, self.sheet_schema, SHEET_PREFIX)
        report(self, errors, SHEET_PREFIX)
        if not errors:
            self.instance.sheet = sheet
        return cleaned


def character_form_class(schema: SheetSchema | None, fields=("campaign", "name", "kind", "owner", "portrait")):
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


class CharacterForm(CharacterFormBase):
    """The page form: what may be chosen depends on the editor's role."""

    class Meta:
        model = Character
        fields = ("name", "kind", "owner", "portrait")

    def __init__(self, *args, campaign: Campaign, membership: Membership, **kwargs):
        self.sheet_schema = campaign.ruleset_class.sheet_schema
        super().__init__(*args, **kwargs)
        self.instance.campaign = campaign
        members = campaign.memberships.filter(role__in=(Role.GM, Role.PLAYER)).select_related("user")
        owner = self.fields["owner"]
        owner.queryset = owner.queryset.filter(pk__in=[m.user_id for m in members])
        owner.label_from_instance = lambda user: user.get_username()
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


class SignupForm(UserCreationForm):
    class Meta(UserCreationForm.Meta):
        fields = ("username",)
