"""Form fields generated from ruleset schemas (a character's sheet, a campaign's house rules, a homebrew
entry), shared by the pages, the homebrew pages and the admin.

A schema ``Field`` becomes one Django form field whose cleaning *is* the
schema's cleaning, so a page, the admin and the engine all give the same
message for the same bad value.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django import forms
from django.core.exceptions import NON_FIELD_ERRORS, ValidationError
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

from combat.engine.actions import has_nul
from combat.engine.schema import Field, SheetSchema
from vtt.content import clean_content_value

if TYPE_CHECKING:
    # The mixin below is only ever mixed into forms: type it as one.
    _SchemaFormBase = forms.BaseForm
else:
    _SchemaFormBase = object

SHEET_PREFIX = "sheet_"
OPTION_PREFIX = "opt_"


class CommaListInput(forms.TextInput):
    """A list of names edited as ``a, b, c``."""

    def format_value(self, value: Any) -> Any:
        if isinstance(value, list | tuple):
            value = ", ".join(str(v) for v in value)
        return super().format_value(value)


class SchemaFormField(forms.Field):
    """A form field that cleans with a schema ``Field``."""

    def __init__(self, spec: Field, **kwargs: Any) -> None:
        self.spec = spec
        kwargs.setdefault("label", spec.label)
        kwargs.setdefault("help_text", spec.help)
        kwargs.setdefault("initial", spec.default)
        kwargs.setdefault("widget", widget_for(spec))
        super().__init__(required=False, **kwargs)
        if spec.required and spec.kind not in ("bool", "list"):
            self.widget.attrs["required"] = True

    def clean(self, value: Any) -> Any:
        if has_nul(value):
            raise ValidationError("Null characters are not allowed.", code="null_characters_not_allowed")
        try:
            return self.spec.clean(value)
        except ValueError as exc:
            raise ValidationError(str(exc), code="invalid") from None

    def has_changed(self, initial: Any, data: Any) -> bool:
        try:
            return bool(self.spec.clean(data) != initial)
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
        return forms.Select(choices=[(c, spec.choice_label(c)) for c in spec.choices])
    if spec.kind == "list":
        if spec.choices:
            return forms.CheckboxSelectMultiple(choices=[(c, spec.choice_label(c)) for c in spec.choices])
        return CommaListInput(attrs={"placeholder": "comma, separated, names"})
    return forms.TextInput(attrs={"maxlength": spec.max_length})


MAX_ITEM_COUNT = 99


class QuantityPicker(forms.Widget):
    """How many of each definition a sheet carries ("Potion: 3"), for a list that holds one entry per
    item (the engine counts them: three potions are used one at a time). Posts ``<name>-<key>``
    numbers; reads back the list with each key repeated its number of times."""

    def __init__(self, choices: list[tuple[str, str]], attrs: dict[str, Any] | None = None) -> None:
        super().__init__(attrs)
        self.choices = choices

    def value_from_datadict(self, data: Any, files: Any, name: str) -> Any:
        if name in data and hasattr(data, "getlist"):  # a client without the picker: names, repeated
            return data.getlist(name)
        out: list[str] = []
        for key, _ in self.choices:
            raw = str(data.get(f"{name}-{key}", "") or "0").strip()
            count = int(raw) if raw.isdigit() else 0
            out += [key] * min(count, MAX_ITEM_COUNT)
        return out

    def value_omitted_from_data(self, data: Any, files: Any, name: str) -> bool:
        return name not in data and not any(f"{name}-{key}" in data for key, _ in self.choices)

    def render(
        self, name: str, value: Any, attrs: dict[str, Any] | None = None, renderer: Any = None
    ) -> SafeString:
        counts: dict[str, int] = {}
        for key in value or []:
            counts[str(key)] = counts.get(str(key), 0) + 1
        rows = format_html_join(
            "",
            '<label class="qty"><span>{}</span> <input type="number" name="{}-{}" value="{}" min="0" '
            'max="{}" inputmode="numeric" aria-label="How many: {}"></label>',
            ((label, name, key, counts.get(key, 0), MAX_ITEM_COUNT, label) for key, label in self.choices),
        )
        return format_html('<div class="picker quantities">{}</div>', rows)


class ContentFormField(SchemaFormField):
    """A sheet field naming content: a picker of the campaign's definitions, shown by name.

    A typed name ("Sword") is taken as its key; anything unknown is refused
    with the valid choices listed.
    """

    def __init__(
        self, spec: Field, choices: list[tuple[str, str]], current: Any = None, **kwargs: Any
    ) -> None:
        self.content_choices = choices
        shown = list(choices)
        keys = {key for key, _ in choices}
        extra = current if isinstance(current, list) else [current] if current else []
        shown += [(v, f"{v} (not defined)") for v in extra if isinstance(v, str) and v not in keys]
        if spec.kind == "list" and spec.content == ("items",):
            widget: forms.Widget = QuantityPicker(shown)
        elif spec.kind == "list":
            widget = forms.CheckboxSelectMultiple(choices=shown, attrs={"class": "picker"})
        else:
            widget = forms.Select(choices=[("", "None")] + shown)
        super().__init__(spec, widget=widget, **kwargs)

    def clean(self, value: Any) -> Any:
        if self.spec.kind == "list" and isinstance(value, list | tuple):
            # Ticked boxes, or names typed as "a, b" by a client without the picker.
            value = [part.strip() for item in value for part in str(item).split(",") if part.strip()]
        value = super().clean(value)
        value, error = clean_content_value(self.spec, value, self.content_choices)
        if error:
            raise ValidationError(error, code="unknown_content")
        return value


def add_schema_fields(
    form: forms.BaseForm, schema: SheetSchema, prefix: str, values: dict[str, Any] | None
) -> None:
    """Append one form field per schema field, pre-filled from ``values``."""
    values = values or {}
    for spec in schema:
        field = SchemaFormField(spec)
        if spec.key in values:
            field.initial = values[spec.key]
        form.fields[prefix + spec.key] = field


def collect(
    form: forms.BaseForm, schema: SheetSchema, prefix: str
) -> tuple[dict[str, Any], dict[str, list[str]]]:
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


class SchemaFieldsMixin(_SchemaFormBase):
    """Template helpers: the generated fields as bound fields, grouped."""

    schema_prefix = ""

    def schema_fields(self) -> list[forms.BoundField]:
        return [self[name] for name in self.fields if name.startswith(self.schema_prefix)]

    def _update_errors(self, errors: ValidationError) -> None:
        # The model reports sheet/option problems on a JSON field the form does not show.
        if hasattr(errors, "error_dict"):
            for name in list(errors.error_dict):
                if name not in self.fields and name != NON_FIELD_ERRORS:
                    errors.error_dict.setdefault(NON_FIELD_ERRORS, []).extend(errors.error_dict.pop(name))
        super()._update_errors(errors)  # type: ignore[misc]  # model forms' (private, not in django-stubs)
