"""A campaign's own content: definitions validated by its ruleset, merged over the built-in pack.

Each kind of the ruleset's content schema (abilities, weapons, statuses...)
plus ``monsters`` (a stat block: the ruleset's sheet schema and a name) can
be added per campaign. Definitions go through the ruleset's own content check
(the ``validate_pack`` path of the starter packs) with the campaign's other
homebrew, so references between entries are checked too. Battles take the
campaign's pack (``battle_content``) into their ``battle.created`` event.

Content packs travel as JSON files (``export_pack`` / ``read_pack``):
``{"format": "vtt-content", "version": 1, "ruleset": ..., "content": {kind: {key: definition}}}``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from django.db import transaction

from combat.engine.content import KEY_RE, MAX_DEFINITIONS
from combat.engine.rulesets.base import Ruleset
from combat.engine.schema import Field, SheetSchema
from combat.engine.state import BattleState
from vtt import battles
from vtt.jsonfile import MAX_BYTES, JsonRefused, load_json
from vtt.models import Campaign, Character, ContentEntry

MONSTERS = "monsters"
MAX_PACK_BYTES = MAX_BYTES
PACK_FORMAT = "vtt-content"
PACK_VERSION = 1
NAME_FIELD = Field("name", "Name", "str", max_length=60)

KIND_LABELS = {
    "abilities": "Abilities and spells",
    "spells": "Spells",
    "weapons": "Weapons",
    "items": "Items",
    "statuses": "Statuses",
    "jobs": "Jobs",
    "accessories": "Accessories",
    "eidolons": "Eidolons",
    MONSTERS: "Monsters",
}


def kind_label(kind: str) -> str:
    return KIND_LABELS.get(kind, kind.replace("_", " ").capitalize())


def content_kinds(ruleset: type[Ruleset]) -> dict[str, Any]:
    """The ruleset's ``DefinitionKind``s by name (its content schema), in its order."""
    return dict(ruleset.content_kinds or {})


def schema_for(ruleset: type[Ruleset], kind: str) -> SheetSchema | None:
    """The form schema of one kind: a definition's fields, or a monster's name and sheet."""
    if kind == MONSTERS:
        return SheetSchema((NAME_FIELD, *ruleset.sheet_schema.fields))
    found = content_kinds(ruleset).get(kind)
    return found.schema if found is not None else None


def kinds_of(ruleset: type[Ruleset]) -> list[str]:
    return [*content_kinds(ruleset), MONSTERS]


def builtin(ruleset: type[Ruleset]) -> dict[str, dict[str, dict[str, Any]]]:
    """The ruleset's starter content plus its monster stat blocks (named by their names)."""
    out = {kind: dict(defs) for kind, defs in (ruleset.content or {}).items()}
    monsters = ruleset.monsters or {}
    defaults = ruleset.sheet_schema.defaults()
    out[MONSTERS] = {slug(name): {"name": name, **defaults, **sheet} for name, sheet in monsters.items()}
    return out


def slug(name: str) -> str:
    key = re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_")
    if not key or not key[0].isalpha():
        key = "x_" + key
    return key[:40].rstrip("_")


def entries(campaign: Campaign) -> dict[str, dict[str, dict[str, Any]]]:
    """The campaign's homebrew: kind -> key -> definition (monsters included)."""
    out: dict[str, dict[str, dict[str, Any]]] = {}
    for kind, key, data in campaign.content_entries.order_by("kind", "key").values_list(
        "kind", "key", "data"
    ):
        out.setdefault(kind, {})[key] = data
    return out


def battle_content(campaign: Campaign | int) -> dict[str, dict[str, dict[str, Any]]]:
    """The content pack a new battle of this campaign carries (its homebrew definitions, no monsters)."""
    campaign_id = campaign.pk if isinstance(campaign, Campaign) else campaign
    pack: dict[str, dict[str, dict[str, Any]]] = {}
    rows = ContentEntry.objects.filter(campaign_id=campaign_id).exclude(kind=MONSTERS)
    for kind, key, data in rows.order_by("kind", "key").values_list("kind", "key", "data"):
        pack.setdefault(kind, {})[key] = data
    return pack


def merged(campaign: Campaign) -> dict[str, dict[str, dict[str, Any]]]:
    """Built-in content with the campaign's homebrew over it (what sheet pickers offer)."""
    ruleset = campaign.ruleset_class
    out = builtin(ruleset)
    for kind, defs in entries(campaign).items():
        out.setdefault(kind, {}).update(defs)
    return out


def monster_sheets(campaign: Campaign) -> dict[str, dict[str, Any]]:
    """Homebrew monsters by name: valid sheets (without the name)."""
    return {
        d.get("name", key): {k: v for k, v in d.items() if k != "name"}
        for key, d in entries(campaign).get(MONSTERS, {}).items()
    }


# --- validation --------------------------------------------------------------------------------


def _errors_for(errors: dict[str, list[str]], kind: str, key: str) -> tuple[dict[str, list[str]], list[str]]:
    """Split pack errors into this entry's field errors and the rest (said in words)."""
    mine: dict[str, list[str]] = {}
    other: list[str] = []
    prefix = f"{kind}.{key}"
    for where, messages in errors.items():
        if where == prefix:
            mine.setdefault("__all__", []).extend(messages)
        elif where.startswith(prefix + "."):
            mine.setdefault(where[len(prefix) + 1 :], []).extend(messages)
        else:
            other.extend(messages)
    return mine, other


def check_pack(
    ruleset: type[Ruleset], pack: dict[str, dict[str, dict[str, Any]]]
) -> tuple[dict[str, Any], dict[str, list[str]]]:
    """Validate a whole homebrew pack (monsters included) with the ruleset; errors keyed ``kind.key.field``."""
    definitions = {k: v for k, v in pack.items() if k != MONSTERS}
    plugin = ruleset()
    errors: dict[str, list[str]] = {}
    clean: dict[str, Any] = {}
    if definitions:
        errors.update(plugin.validate_content(definitions))
        if not errors:
            clean.update(plugin.clean_content(definitions))
    monsters = pack.get(MONSTERS) or {}
    if not isinstance(monsters, dict):
        errors[MONSTERS] = ["Expected an object of monsters by key."]
        return {}, errors
    state = BattleState(ruleset.key, {}, 0, extra={"content": clean or definitions})
    check_refs = getattr(plugin, "check_sheet_content", None)
    out_monsters = {}
    for key, raw in monsters.items():
        where = f"{MONSTERS}.{key}"
        if not isinstance(key, str) or not KEY_RE.match(key):
            errors.setdefault(where, []).append("Keys are lower-case letters, digits and _ (at most 40).")
        if not isinstance(raw, dict):
            errors.setdefault(where, []).append("Expected an object of named values.")
            continue
        monster_schema = schema_for(ruleset, MONSTERS)
        assert monster_schema is not None  # monsters are a kind of every ruleset
        values, errs = monster_schema.validate(raw)
        if not errs:  # the ruleset's own sheet checks too (a weapon's dice within bounds...)
            errs = ruleset.validate_sheet({k: v for k, v in values.items() if k != "name"})[1]
        for fkey, msgs in errs.items():
            errors.setdefault(f"{where}.{fkey}" if fkey != "__all__" else where, []).extend(msgs)
        if errs:
            continue
        sheet = {k: v for k, v in values.items() if k != "name"}
        problem = check_refs(state, sheet) if check_refs is not None else None
        if problem:
            errors.setdefault(where, []).append(problem)
            continue
        out_monsters[key] = values
    if len(monsters) > MAX_DEFINITIONS:
        errors.setdefault(MONSTERS, []).append(f"At most {MAX_DEFINITIONS} definitions.")
    if out_monsters:
        clean[MONSTERS] = out_monsters
    return (clean if not errors else {}), errors


def validate_entry(
    campaign: Campaign, kind: str, key: str, data: Any
) -> tuple[dict[str, Any], dict[str, list[str]]]:
    """One entry checked with the campaign's other homebrew: (clean definition, errors by field).

    Errors of other entries that the change breaks (a status an ability names)
    come under ``__all__``.
    """
    ruleset = campaign.ruleset_class
    if kind not in kinds_of(ruleset):
        return {}, {"__all__": [f"This ruleset has no {kind_label(kind).lower()}."]}
    pack = entries(campaign)
    pack.setdefault(kind, {})[key] = data
    clean, errors = check_pack(ruleset, pack)
    if not errors:
        return clean[kind][key], {}
    mine, other = _errors_for(errors, kind, key)
    if other:
        mine.setdefault("__all__", []).extend(other)
    return {}, mine


def free_key(campaign: Campaign, kind: str, name: str) -> str:
    """A new key from a name, unused by built-in and homebrew entries of that kind."""
    taken = set(merged(campaign).get(kind, {}))
    base = slug(name)[:36]
    key, n = base, 2
    while key in taken:
        key, n = f"{base}_{n}", n + 1
    return key


# --- where an entry is used ------------------------------------------------------------------


def _names(value: Any, key: str) -> bool:
    if isinstance(value, str):
        return value == key or value.split(":")[0] == key
    if isinstance(value, list | tuple):
        return any(_names(v, key) for v in value)
    if isinstance(value, dict):
        return any(_names(v, key) for v in value.values())
    return False


def uses(campaign: Campaign, kind: str, key: str) -> list[str]:
    """Where an entry is used, in words: characters, homebrew monsters and running battles naming it."""
    where: list[str] = []
    if kind == MONSTERS:
        return where
    field_names = {f.key for f in campaign.ruleset_class.sheet_schema}
    for name, sheet in Character.objects.filter(campaign=campaign).values_list("name", "sheet"):
        if any(_names(v, key) for k, v in (sheet or {}).items() if k in field_names):
            where.append(f"the character {name}")
    for other_key, data in entries(campaign).get(MONSTERS, {}).items():
        if any(_names(v, key) for k, v in data.items() if k in field_names):
            where.append(f"the monster {data.get('name', other_key)}")
    for other_kind, defs in entries(campaign).items():
        if other_kind == MONSTERS:
            continue
        for other_key, data in defs.items():
            if (other_kind, other_key) != (kind, key) and any(_names(v, key) for v in data.values()):
                where.append(f"{data.get('name', other_key)}")
    for name, snapshot in battles.snapshots(campaign.pk, running=True):  # what the battles app registered
        combatants = (snapshot or {}).get("combatants", {}).values()
        if any(_names(c.get("sheet", {}), key) for c in combatants):
            where.append(f"the running battle {name}")
    return where


# --- content packs as files ------------------------------------------------------------------


def export_pack(campaign: Campaign) -> dict[str, Any]:
    return {
        "format": PACK_FORMAT,
        "version": PACK_VERSION,
        "ruleset": campaign.ruleset,
        "name": campaign.name,
        "content": entries(campaign),
    }


@dataclass
class ImportPlan:
    """What an import would do: entries added and replaced, by name; or why it is refused."""

    ok: bool
    reason: str = ""
    problems: list[str] = field(default_factory=list)
    added: list[tuple[str, str, str]] = field(default_factory=list)  # (kind label, key, name)
    replaced: list[tuple[str, str, str]] = field(default_factory=list)
    content: dict[str, dict[str, dict[str, Any]]] = field(default_factory=dict)


def _entry_name(pack: dict[str, Any], where: str) -> str:
    parts = where.split(".")
    if len(parts) >= 2:
        data = (pack.get(parts[0]) or {}).get(parts[1]) if isinstance(pack.get(parts[0]), dict) else None
        name = data.get("name") if isinstance(data, dict) else None
        label = kind_label(parts[0]).lower()
        return f"{name or parts[1]} ({label})"
    return kind_label(parts[0]).lower() if parts[0] != "__all__" else "the file"


def _field_label(ruleset: type[Ruleset], where: str) -> str:
    parts = where.split(".")
    if len(parts) >= 3:
        schema = schema_for(ruleset, parts[0])
        spec = schema.get(parts[2]) if schema is not None else None
        return f"{spec.label}: " if spec is not None else ""
    return ""


def read_pack(campaign: Campaign, raw: bytes | str) -> ImportPlan:
    """Read an uploaded content pack for ``campaign``: the plan, or the reason it is refused."""
    try:
        data = load_json(raw)
    except JsonRefused as exc:
        return ImportPlan(False, str(exc))
    if not isinstance(data, dict) or data.get("format") != PACK_FORMAT:
        return ImportPlan(False, "This is not a content pack exported from a campaign.")
    unknown = sorted(set(data) - {"format", "version", "ruleset", "name", "content"})
    if unknown:
        return ImportPlan(False, f"The file has unknown parts: {', '.join(map(str, unknown))[:200]}.")
    if data.get("version") != PACK_VERSION:
        return ImportPlan(False, "This content pack was written by another version and cannot be read.")
    ruleset = campaign.ruleset_class
    if data.get("ruleset") != ruleset.key:
        return ImportPlan(
            False, f"This content pack is for another ruleset; this campaign plays {ruleset.name}."
        )
    pack = data.get("content")
    if not isinstance(pack, dict) or not all(isinstance(v, dict) for v in pack.values()):
        return ImportPlan(False, "The file's content is not a set of definitions by kind.")
    kinds = kinds_of(ruleset)
    strange = sorted(set(pack) - set(kinds))
    if strange:
        return ImportPlan(
            False, f"This ruleset has no content of kind: {', '.join(map(str, strange))[:200]}."
        )
    combined = entries(campaign)
    for kind, defs in pack.items():
        combined.setdefault(kind, {}).update(defs)
    clean, errors = check_pack(ruleset, combined)
    if errors:
        problems = [
            f"{_entry_name(combined, where)}: {_field_label(ruleset, where)}{' '.join(msgs)}"
            for where, msgs in sorted(errors.items())
        ]
        return ImportPlan(False, "The content pack has invalid entries; nothing was imported.", problems[:50])
    existing = entries(campaign)
    plan = ImportPlan(True)
    for kind, defs in pack.items():
        for key in defs:
            row = (kind_label(kind), key, clean[kind][key].get("name", key))
            (plan.replaced if key in existing.get(kind, {}) else plan.added).append(row)
        plan.content[kind] = {key: clean[kind][key] for key in defs}
    if not plan.added and not plan.replaced:
        return ImportPlan(False, "The content pack is empty.")
    return plan


def apply_pack(campaign: Campaign, content: dict[str, dict[str, dict[str, Any]]]) -> int:
    """Write checked entries (from ``read_pack``) in one transaction; returns how many."""
    count = 0
    with transaction.atomic():
        for kind, defs in content.items():
            for key, data in defs.items():
                ContentEntry.objects.update_or_create(
                    campaign=campaign, kind=kind, key=key, defaults={"data": data}
                )
                count += 1
    return count
