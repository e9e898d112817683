"""The content a campaign's sheets may name, and the ready-made sheets its ruleset ships.

Every page that offers content (a weapon, an ability, a job...) reads it
through ``campaign_content``: one place to add a campaign's own definitions
to the ruleset's starter pack. Choices are shown by their definitions'
display names, never by their keys.

>>> # campaign_content(campaign)["weapons"]["sword"]["name"]
>>> # 'Sword'
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from combat.engine.schema import Field, SheetSchema

if TYPE_CHECKING:
    from vtt.models import Campaign


def campaign_content(campaign: Campaign) -> dict[str, dict[str, dict[str, Any]]]:
    """kind -> key -> definition: what the campaign's sheets may name (the starter pack, its homebrew over it)."""
    from vtt.homebrew import MONSTERS, merged  # homebrew reads the models; this module is read by forms

    return {kind: defs for kind, defs in merged(campaign).items() if kind != MONSTERS}


def display_name(key: str, definition: Any) -> str:
    if isinstance(definition, dict) and isinstance(definition.get("name"), str) and definition["name"]:
        name: str = definition["name"]
        return name
    return key.replace("_", " ").capitalize()


def content_choices(content: dict[str, dict[str, dict[str, Any]]], spec: Field) -> list[tuple[str, str]]:
    """(key, display name) of every definition a content field may name, in the pack's order."""
    seen: dict[str, str] = {}
    for kind in spec.content:
        for key, definition in (content.get(kind) or {}).items():
            seen.setdefault(key, display_name(key, definition))
    return list(seen.items())


def _noun(spec: Field) -> str:
    return spec.label.split(" (")[0].lower()


def resolve(choices: list[tuple[str, str]], value: str) -> str | None:
    """The key a typed value means: a key, or a display name in any case; None when unknown."""
    keys = dict(choices)
    if value in keys:
        return value
    folded = value.strip().casefold()
    for key, name in choices:
        if name.casefold() == folded or key.casefold() == folded.replace(" ", "_"):
            return key
    return None


def clean_content_value(spec: Field, value: Any, choices: list[tuple[str, str]]) -> tuple[Any, str | None]:
    """A content field's value with names turned into keys, or an error listing the valid choices."""
    if spec.kind == "list":
        items = list(value or [])
    elif isinstance(value, str) and value:
        items = [value]
    else:
        return value, None
    keys, unknown = [], []
    for item in items:
        key = resolve(choices, str(item))
        if key is None:
            unknown.append(str(item))
        else:
            keys.append(key)
    if unknown:
        valid = ", ".join(name for _, name in choices) or "nothing is defined yet"
        return value, f"Unknown {_noun(spec)}: {', '.join(unknown)}. Choose from: {valid}."
    return (keys if spec.kind == "list" else keys[0]), None


def check_sheet(
    schema: SheetSchema, sheet: dict[str, Any], content: dict[str, dict[str, dict[str, Any]]]
) -> tuple[dict[str, Any], dict[str, list[str]]]:
    """The sheet with content names turned into keys, and errors for names the content lacks."""
    out = dict(sheet)
    errors: dict[str, list[str]] = {}
    for spec in schema:
        if not spec.content or spec.key not in sheet:
            continue
        value, error = clean_content_value(spec, sheet[spec.key], content_choices(content, spec))
        if error:
            errors[spec.key] = [error]
        else:
            out[spec.key] = value
    return out, errors


def character_templates(campaign: Campaign, kind: str) -> dict[str, dict[str, Any]]:
    """Ready-made sheets: ``kind`` "pc" (the ruleset's heroes) or "monster" (its monsters and the campaign's own).

    Each is the schema's defaults with the template's values, valid for the
    campaign's content (so a character made from one can fight at once).
    """
    from vtt.homebrew import monster_sheets

    ruleset = campaign.ruleset_class
    shipped = ruleset.heroes if kind == "pc" else {**(ruleset.monsters or {}), **monster_sheets(campaign)}
    content = campaign_content(campaign)
    out: dict[str, dict[str, Any]] = {}
    for name, values in (shipped or {}).items():
        sheet, errors = ruleset.validate_sheet(ruleset.sheet_schema.defaults() | dict(values))
        if errors:
            continue
        sheet, errors = check_sheet(ruleset.sheet_schema, sheet, content)
        if not errors:
            out[name] = sheet
    return out


def template_slug(name: str) -> str:
    return "".join(ch if ch.isalnum() else "-" for ch in name.lower()).strip("-")


def bestiary(campaign: Campaign) -> list[dict[str, Any]]:
    """The monsters a battle may bring in with no character made first, by name: the ruleset's own
    (its content's monsters), then the campaign's homebrew ones (a homebrew monster of the same name
    replaces the ruleset's). Each entry: ``name``, ``sheet`` (valid for the campaign's content),
    ``homebrew`` (the campaign's own) and ``max_hp``. A GM-made monster of the campaign is a character
    (the new-battle form lists those first)."""
    from vtt.homebrew import monster_sheets

    ruleset = campaign.ruleset_class
    own = monster_sheets(campaign)
    templates = character_templates(campaign, "monster")
    rules = ruleset()
    out = []
    for name, sheet in templates.items():
        out.append(
            {
                "name": name,
                "sheet": sheet,
                "homebrew": name in own,
                "max_hp": rules.init_combatant(sheet).get("max_hp"),
            }
        )
    return out
