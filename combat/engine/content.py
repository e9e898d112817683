"""Content definitions as validated data (ENG-10): abilities, weapons, items, statuses.

A ruleset describes each kind of definition with a ``DefinitionKind``: a
``SheetSchema`` of fields plus an optional cross-field check. A content
pack is ``{kind: {key: definition}}``; ``validate_pack`` returns the clean
pack and errors keyed ``"kind.key.field"`` so a GM's form can show each one.

>>> kinds = {"statuses": DefinitionKind("statuses", SheetSchema((Field("name", "Name", "str"),)))}
>>> validate_pack(kinds, {"statuses": {"stun": {"name": "Stun"}}})
({'statuses': {'stun': {'name': 'Stun'}}}, {})
>>> validate_pack(kinds, {"statuses": {"Bad Key": {}}})[1]
{'statuses.Bad Key': ['Keys are lower-case letters, digits and _ (at most 40).'], 'statuses.Bad Key.name': ['This field is required.']}
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from combat.engine.schema import Field, SheetSchema

KEY_RE = re.compile(r"^[a-z][a-z0-9_]{0,39}$")
MAX_DEFINITIONS = 200

__all__ = ["DefinitionKind", "Field", "SheetSchema", "named_kind", "validate_pack"]


def named_kind(key: str, label: str, kinds: tuple[str, ...], help: str) -> tuple[Field, Field]:
    """The two fields a definition starts with in every ruleset: its name, and which of ``kinds`` it is
    (``key``: "type" of an ability, "kind" of a weapon...), with ``help`` saying what each kind does."""
    return Field("name", "Name", "str", max_length=60), Field(key, label, "choice", choices=kinds, help=help)


@dataclass(frozen=True)
class DefinitionKind:
    """One kind of definition: its fields, and a check of the clean values across fields.

    ``check(clean, pack)`` returns ``{field: [messages]}``; ``pack`` is the
    whole clean pack so references (an ability's status) can be checked.
    """

    name: str
    schema: SheetSchema
    check: Callable[[dict[str, Any], dict[str, Any]], dict[str, list[str]]] | None = None


def validate_pack(
    kinds: dict[str, DefinitionKind], pack: Any, base: dict[str, dict[str, Any]] | None = None
) -> tuple[dict[str, Any], dict[str, list[str]]]:
    """Validate a whole content pack; ``base`` (the starter pack) resolves references too."""
    if not isinstance(pack, dict):
        return {}, {"__all__": ["A content pack is an object of definition kinds."]}
    errors: dict[str, list[str]] = {}
    unknown = sorted(set(pack) - set(kinds))
    if unknown:
        errors["__all__"] = [f"Unknown definition kinds: {', '.join(map(str, unknown))}."]
    clean: dict[str, Any] = {}
    for kname, kind in kinds.items():
        defs = pack.get(kname) or {}
        if not isinstance(defs, dict):
            errors[kname] = ["Expected an object of definitions by key."]
            continue
        if len(defs) > MAX_DEFINITIONS:
            errors[kname] = [f"At most {MAX_DEFINITIONS} definitions."]
            continue
        out = {}
        for key, raw in defs.items():
            where = f"{kname}.{key}"
            if not isinstance(key, str) or not KEY_RE.match(key):
                errors[where] = ["Keys are lower-case letters, digits and _ (at most 40)."]
            values, errs = kind.schema.validate(raw)
            for fkey, msgs in errs.items():
                errors.setdefault(f"{where}.{fkey}" if fkey != "__all__" else where, []).extend(msgs)
            if not errs:
                out[key] = values
        if out:
            clean[kname] = out
    merged = {k: {**(base or {}).get(k, {}), **clean.get(k, {})} for k in kinds}
    for kname, kind in kinds.items():
        if kind.check is None:
            continue
        for key, values in clean.get(kname, {}).items():
            for fkey, msgs in kind.check(values, merged).items():
                errors.setdefault(f"{kname}.{key}.{fkey}", []).extend(msgs)
    return (clean if not errors else {}), errors
