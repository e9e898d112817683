"""D20 Luck content: definition schemas (ENG-10), the starter pack, and monster stat blocks.

Abilities, weapons, items and statuses are data; the rules that read them
are code in ``luck.py``. A GM's custom pack is validated with
``validate_luck_content`` and may add to or replace starter definitions.

>>> validate_luck_content({"abilities": {"zap": {"name": "Zap", "type": "magical", "dice": "2d"}}})[1]
{'abilities.zap.dice': ['The roller does not understand “2d”. Say how many faces, like 2d6.']}
"""

from __future__ import annotations

from typing import Any

from combat.engine.content import DefinitionKind, Field, SheetSchema, named_kind, validate_pack
from combat.engine.dice import check_expr

ABILITY_TYPES = ("physical", "magical", "heal", "status", "recover", "interrupt")
TARGETS = ("enemy", "ally", "self", "any")
BLOCKS = ("actions", "movement", "spells", "melee")

ABILITY_SCHEMA = SheetSchema(
    (
        *named_kind(
            "type",
            "Type",
            ABILITY_TYPES,
            "physical/magical damage, heal, status, recover (end a status), interrupt (a reaction).",
        ),
        Field("target", "Targets", "choice", required=False, default="enemy", choices=TARGETS),
        Field("range", "Range (squares)", "int", required=False, default=1, min=0, max=50),
        Field(
            "area",
            "Burst radius around the chosen square (0 = one target)",
            "int",
            required=False,
            default=0,
            min=0,
            max=5,
        ),
        Field("dice", "Dice", "str", required=False, default="", max_length=40),
        Field("bonus", "Bonus added to the dice", "int", required=False, default=0, min=-50, max=50),
        Field("cost", "Standard actions", "int", required=False, default=1, min=0, max=2),
        Field("melee", "Melee attack", "bool", required=False, default=False),
        Field("spell", "Spell", "bool", required=False, default=False),
        Field("status", "Status applied", "str", required=False, default="", max_length=40),
        Field("duration", "Status duration (own turns)", "int", required=False, default=2, min=1, max=20),
        Field(
            "defense",
            "Status rolls against",
            "choice",
            required=False,
            default="armor",
            choices=("armor", "resist"),
        ),
        Field("miss_max", "Luck roll misses up to", "int", required=False, default=5, min=0, max=19),
        Field("crit_min", "Luck roll crits from", "int", required=False, default=20, min=2, max=30),
        Field(
            "trigger",
            "Interrupt trigger",
            "choice",
            required=False,
            default="physical",
            choices=("physical", "magical", "any"),
            help="Which incoming hits an interrupt answers.",
        ),
        Field("description", "Description", "str", required=False, default="", max_length=300),
    )
)

WEAPON_SCHEMA = SheetSchema(
    (
        Field("name", "Name", "str", max_length=60),
        Field("dice", "Damage dice", "str", max_length=40),
        Field("bonus", "Damage bonus", "int", required=False, default=0, min=-50, max=50),
        Field("range", "Range (squares)", "int", required=False, default=1, min=1, max=50),
        Field("melee", "Melee weapon", "bool", required=False, default=True),
        Field(
            "damage",
            "Damage type",
            "choice",
            required=False,
            default="physical",
            choices=("physical", "magical"),
        ),
    )
)

ITEM_SCHEMA = SheetSchema(
    (
        Field("name", "Name", "str", max_length=60),
        Field("type", "Effect", "choice", choices=("heal", "physical", "magical", "status")),
        Field("target", "Targets", "choice", required=False, default="ally", choices=TARGETS),
        Field("range", "Range (squares)", "int", required=False, default=1, min=0, max=50),
        Field("dice", "Dice", "str", max_length=40),
        Field("bonus", "Bonus", "int", required=False, default=0, min=-50, max=50),
        Field("status", "Status applied", "str", required=False, default="", max_length=40),
        Field("duration", "Status duration", "int", required=False, default=2, min=1, max=20),
        Field(
            "defense",
            "Status rolls against",
            "choice",
            required=False,
            default="resist",
            choices=("armor", "resist"),
        ),
    )
)

STATUS_SCHEMA = SheetSchema(
    (
        Field("name", "Name", "str", max_length=40),
        Field("blocks", "Prevents", "list", required=False, default=[], choices=BLOCKS),
        Field("move_percent", "Movement kept (%)", "int", required=False, default=100, min=0, max=100),
        Field("ends_on_damage", "Ends when damaged", "bool", required=False, default=False),
        Field("description", "Description", "str", required=False, default="", max_length=300),
    )
)


def _check_dice(values: dict[str, Any], errors: dict[str, list[str]], required: bool) -> None:
    expr = values.get("dice", "")
    if expr or required:
        msg = check_expr(expr)
        if msg:
            errors.setdefault("dice", []).append(msg)


def _check_status_ref(values: dict[str, Any], pack: dict[str, Any], errors: dict[str, list[str]]) -> None:
    if values.get("type") == "status" and values.get("status") not in pack.get("statuses", {}):
        errors.setdefault("status", []).append("Name a defined status.")


def _check_ability(values: dict[str, Any], pack: dict[str, Any]) -> dict[str, list[str]]:
    errors: dict[str, list[str]] = {}
    kind = values["type"]
    _check_dice(values, errors, kind not in ("recover",))
    _check_status_ref(values, pack, errors)
    if values["miss_max"] >= values["crit_min"]:
        errors.setdefault("crit_min", []).append("The crit range must start above the miss range.")
    if kind in ("heal",) and values["target"] == "enemy":
        errors.setdefault("target", []).append("Healing targets allies or self.")
    if kind == "recover" and values["target"] != "self":
        errors.setdefault("target", []).append("Recover targets its user (self).")
    if values["melee"] and values["spell"]:
        errors.setdefault("spell", []).append("An ability is a melee attack or a spell, not both.")
    return errors


def _check_weapon(values: dict[str, Any], pack: dict[str, Any]) -> dict[str, list[str]]:
    errors: dict[str, list[str]] = {}
    _check_dice(values, errors, True)
    if values["melee"] and values["range"] > 2:
        errors.setdefault("range", []).append("A melee weapon reaches at most 2 squares.")
    return errors


def _check_item(values: dict[str, Any], pack: dict[str, Any]) -> dict[str, list[str]]:
    errors: dict[str, list[str]] = {}
    _check_dice(values, errors, True)
    _check_status_ref(values, pack, errors)
    return errors


KINDS = {
    "abilities": DefinitionKind("abilities", ABILITY_SCHEMA, _check_ability),
    "weapons": DefinitionKind("weapons", WEAPON_SCHEMA, _check_weapon),
    "items": DefinitionKind("items", ITEM_SCHEMA, _check_item),
    "statuses": DefinitionKind("statuses", STATUS_SCHEMA),
}

_RAW_STARTER: dict[str, dict[str, dict[str, Any]]] = {
    "statuses": {
        "stun": {
            "name": "Stun",
            "blocks": ["actions", "movement"],
            "description": "No actions, no movement.",
        },
        "blind": {
            "name": "Blind",
            "blocks": ["actions", "movement"],
            "description": "No actions, no movement.",
        },
        "sleep": {
            "name": "Sleep",
            "blocks": ["actions", "movement"],
            "ends_on_damage": True,
            "description": "No actions, no movement; any damage wakes.",
        },
        "slow": {"name": "Slow", "move_percent": 50, "description": "Movement halved."},
        "silence": {"name": "Silence", "blocks": ["spells"], "description": "No spells."},
        "disarm": {"name": "Disarm", "blocks": ["melee"], "description": "No melee attacks."},
    },
    "weapons": {
        "sword": {"name": "Sword", "dice": "1d8", "bonus": 1, "range": 1, "melee": True},
        "bow": {"name": "Bow", "dice": "1d6", "bonus": 1, "range": 8, "melee": False},
        "claws": {"name": "Claws", "dice": "2d4", "bonus": 1, "range": 1, "melee": True},
        "spear": {"name": "Crude spear", "dice": "1d6", "bonus": 0, "range": 2, "melee": True},
    },
    "abilities": {
        "fire_bolt": {"name": "Fire Bolt", "type": "magical", "range": 6, "dice": "2d6", "spell": True},
        "flame_burst": {
            "name": "Flame Burst",
            "type": "magical",
            "range": 5,
            "area": 1,
            "dice": "1d6",
            "spell": True,
            "cost": 2,
            "description": "Hits every enemy next to the chosen square.",
        },
        "mend": {
            "name": "Mend",
            "type": "heal",
            "target": "ally",
            "range": 4,
            "dice": "2d4",
            "bonus": 2,
            "spell": True,
        },
        "stunning_blow": {
            "name": "Stunning Blow",
            "type": "status",
            "status": "stun",
            "range": 1,
            "melee": True,
            "dice": "1d8",
            "bonus": 2,
            "defense": "armor",
            "duration": 1,
        },
        "flash": {
            "name": "Flash",
            "type": "status",
            "status": "blind",
            "range": 4,
            "spell": True,
            "dice": "1d8",
            "defense": "resist",
            "duration": 1,
        },
        "lullaby": {
            "name": "Lullaby",
            "type": "status",
            "status": "sleep",
            "range": 5,
            "spell": True,
            "dice": "1d10",
            "defense": "resist",
            "duration": 3,
        },
        "frost_snare": {
            "name": "Frost Snare",
            "type": "status",
            "status": "slow",
            "range": 5,
            "spell": True,
            "dice": "1d8",
            "bonus": 1,
            "defense": "resist",
            "duration": 2,
        },
        "hush": {
            "name": "Hush",
            "type": "status",
            "status": "silence",
            "range": 5,
            "spell": True,
            "dice": "1d8",
            "defense": "resist",
            "duration": 2,
        },
        "disarming_strike": {
            "name": "Disarming Strike",
            "type": "status",
            "status": "disarm",
            "range": 1,
            "melee": True,
            "dice": "1d8",
            "bonus": 1,
            "defense": "armor",
            "duration": 2,
        },
        "recover": {
            "name": "Recover",
            "type": "recover",
            "target": "self",
            "range": 0,
            "description": "Try to end one status early: 1d20 against its power.",
        },
        "parry": {
            "name": "Parry",
            "type": "interrupt",
            "target": "self",
            "range": 0,
            "dice": "1d6",
            "bonus": 1,
            "cost": 0,
            "melee": True,
            "trigger": "physical",
            "description": "Interrupt: reduce an incoming physical hit by 1d6+1.",
        },
    },
    "items": {
        "healing_potion": {
            "name": "Healing Potion",
            "type": "heal",
            "target": "ally",
            "range": 1,
            "dice": "2d4",
            "bonus": 2,
        },
    },
}

STARTER, _errors = validate_pack(KINDS, _RAW_STARTER)
assert not _errors, _errors

MONSTERS: dict[str, dict[str, Any]] = {
    "Goblin Skirmisher": {
        "hp": 14,
        "initiative": 3,
        "armor": 1,
        "resist": 1,
        "movement": 6,
        "luck_bonus": 0,
        "crit_damage": 2,
        "abilities": ["recover", "parry"],
        "weapons": ["spear"],
        "items": [],
    },
    "Cave Bear": {
        "hp": 30,
        "initiative": 0,
        "armor": 2,
        "resist": 0,
        "movement": 5,
        "luck_bonus": 0,
        "crit_damage": 3,
        "abilities": ["stunning_blow", "recover"],
        "weapons": ["claws"],
        "items": [],
    },
}
"""Monster stat blocks by name: valid Luck sheets (``Luck.validate_sheet``) for seeding battles."""

DEMO_PARTY = ("Tamsin", "Odo")
"""Names of the demo's two player characters (they take the first ``HEROES`` sheets)."""

HEROES: dict[str, dict[str, Any]] = {
    "Fighter": {
        "hp": 24,
        "initiative": 2,
        "armor": 2,
        "resist": 0,
        "movement": 5,
        "luck_bonus": 0,
        "crit_damage": 2,
        "abilities": ["stunning_blow", "disarming_strike", "recover", "parry"],
        "weapons": ["sword"],
        "items": ["healing_potion"],
    },
    "Mage": {
        "hp": 16,
        "initiative": 1,
        "armor": 0,
        "resist": 2,
        "movement": 5,
        "luck_bonus": 0,
        "crit_damage": 2,
        "abilities": ["fire_bolt", "flame_burst", "flash", "lullaby", "hush", "recover"],
        "weapons": [],
        "items": [],
    },
    "Ranger": {
        "hp": 18,
        "initiative": 3,
        "armor": 1,
        "resist": 1,
        "movement": 6,
        "luck_bonus": 1,
        "crit_damage": 2,
        "abilities": ["frost_snare", "mend", "recover"],
        "weapons": ["bow"],
        "items": ["healing_potion"],
    },
}
"""Sample player characters (valid Luck sheets) for demos and tests."""


def validate_luck_content(pack: Any) -> tuple[dict[str, Any], dict[str, list[str]]]:
    """Validate a custom Luck content pack; references may name starter definitions."""
    return validate_pack(KINDS, pack, base=STARTER)
