"""Typed field definitions for character sheets and ruleset options.

A ruleset declares its sheet as a ``SheetSchema`` (a tuple of ``Field``) and its
house rules as a tuple of ``Option``. Both validate plain dicts (what is stored
as JSON) and return ``(clean, errors)``: ``errors`` maps a field key to a list of
human-readable messages, empty when the data is valid.

>>> schema = SheetSchema((Field("hp", "HP", "int", min=1),))
>>> schema.validate({"hp": "12"})
({'hp': 12}, {})
>>> schema.validate({"hp": 0})[1]
{'hp': ['Must be at least 1.']}
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

KINDS = ("int", "str", "bool", "choice", "list")


@dataclass(frozen=True)
class Field:
    """One value of a sheet or an option.

    kind: ``int`` (with optional min/max), ``str`` (max_length), ``bool``,
    ``choice`` (one of ``choices``), ``list`` (of strings, each one of
    ``choices`` when choices are given; stored as a list).

    ``labels``: what a person reads for each of ``choices`` (same order; the
    value in words when empty). ``content``: the content kinds (``"weapons"``,
    ``"abilities"``...) whose keys a ``str`` or ``list`` field names; pages
    offer those definitions as a picker.
    """

    key: str
    label: str
    kind: str = "int"
    required: bool = True
    default: Any = None
    min: int | None = None
    max: int | None = None
    max_length: int = 200
    choices: tuple[str, ...] = ()
    help: str = ""
    group: str = ""
    labels: tuple[str, ...] = ()
    content: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"Field {self.key!r}: unknown kind {self.kind!r}")

    def choice_label(self, value: Any) -> str:
        """The words shown for one of ``choices`` (``"own_turn_cycle"`` -> its label)."""
        if value in self.choices and len(self.labels) == len(self.choices):
            return self.labels[self.choices.index(value)]
        return str(value).replace("_", " ")

    def clean(self, raw: Any) -> Any:
        """Return the typed value or raise ``ValueError`` with a message."""
        if raw is None or (isinstance(raw, str) and raw.strip() == "" and self.kind != "str"):
            if self.required:
                raise ValueError("This field is required.")
            return self.default
        if self.kind == "int":
            return self._clean_int(raw)
        if self.kind == "str":
            if not isinstance(raw, str):
                raise ValueError("Enter text.")
            raw = raw.strip()
            if self.required and not raw:
                raise ValueError("This field is required.")
            if len(raw) > self.max_length:
                raise ValueError(f"At most {self.max_length} characters.")
            if "\x00" in raw:
                raise ValueError("Text may not contain NUL characters.")
            return raw
        if self.kind == "bool":
            if isinstance(raw, bool):
                return raw
            if isinstance(raw, str) and raw.lower() in {"1", "true", "on", "yes"}:
                return True
            if isinstance(raw, str) and raw.lower() in {"0", "false", "off", "no", ""}:
                return False
            if isinstance(raw, int) and raw in (0, 1):
                return bool(raw)
            raise ValueError("Enter yes or no.")
        if self.kind == "choice":
            if not isinstance(raw, str) or raw not in self.choices:
                raise ValueError(f"Choose one of: {', '.join(self.choice_label(c) for c in self.choices)}.")
            return raw
        return self._clean_list(raw)

    def _clean_int(self, raw: Any) -> int:
        """A whole number within the field's bounds."""
        if isinstance(raw, bool):
            raise ValueError("Enter a whole number.")
        if isinstance(raw, float):
            if not raw.is_integer():
                raise ValueError("Enter a whole number.")
            raw = int(raw)
        if isinstance(raw, str):
            try:
                raw = int(raw.strip())
            except ValueError:
                raise ValueError("Enter a whole number.") from None
        if not isinstance(raw, int):
            raise ValueError("Enter a whole number.")
        if abs(raw) > 10**9:
            raise ValueError("Number is too large.")
        if self.min is not None and raw < self.min:
            raise ValueError(f"Must be at least {self.min}.")
        if self.max is not None and raw > self.max:
            raise ValueError(f"Must be at most {self.max}.")
        return raw

    def _clean_list(self, raw: Any) -> list[str]:
        """A list of names (or one comma-separated text), each of the field's ``choices`` when it has any."""
        if isinstance(raw, str):
            raw = [item.strip() for item in raw.split(",") if item.strip()]
        if not isinstance(raw, list | tuple) or not all(isinstance(item, str) for item in raw):
            raise ValueError("Enter a list of names.")
        if len(raw) > 100:
            raise ValueError("At most 100 entries.")
        if any("\x00" in item or len(item) > self.max_length for item in raw):
            raise ValueError(f"Each entry is text of at most {self.max_length} characters, without NUL.")
        if self.choices:
            unknown = [item for item in raw if item not in self.choices]
            if unknown:
                raise ValueError(f"Unknown: {', '.join(unknown)}.")
        return list(raw)


@dataclass(frozen=True)
class SheetSchema:
    """An ordered set of fields; validates a whole sheet or option dict."""

    fields: tuple[Field, ...] = field(default_factory=tuple)

    def __post_init__(self) -> None:
        keys = [f.key for f in self.fields]
        if len(keys) != len(set(keys)):
            raise ValueError("Duplicate field keys in schema")

    def __iter__(self) -> Iterator[Field]:
        return iter(self.fields)

    def get(self, key: str) -> Field | None:
        return next((f for f in self.fields if f.key == key), None)

    def defaults(self) -> dict[str, Any]:
        """Initial values for a new sheet (forms pre-fill these)."""
        return {f.key: f.default for f in self.fields if f.default is not None}

    def validate(
        self, data: Any, *, allow_unknown: bool = False
    ) -> tuple[dict[str, Any], dict[str, list[str]]]:
        if not isinstance(data, Mapping):
            return {}, {"__all__": ["Expected an object of named values."]}
        clean: dict[str, Any] = {}
        errors: dict[str, list[str]] = {}
        for f in self.fields:
            try:
                value = f.clean(data.get(f.key))
            except ValueError as exc:
                errors.setdefault(f.key, []).append(str(exc))
                continue
            if value is not None:
                clean[f.key] = value
        unknown = sorted(set(data) - {f.key for f in self.fields})
        if unknown and not allow_unknown:
            errors.setdefault("__all__", []).append(f"Unknown fields: {', '.join(map(str, unknown))}.")
        return clean, errors
