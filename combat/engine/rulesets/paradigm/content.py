"""Paradigm Rows content: definition schemas (ENG-10), the starter pack, sample heroes and monsters.

Jobs, abilities, weapons, accessories, items, statuses, eidolons and
battlefield objects are data; the rules that read them are code
(``rules``, ``actions``, ``phases``). A GM's custom
pack rides in ``battle.created`` and may add to or replace starter
definitions; ``objects`` (things to Interact with, PARA-ACT-INTERACT) only
come from a battle's own pack.

>>> validate_paradigm_content({"abilities": {"zap": {"name": "Zap", "type": "magical", "dice": "2d"}}})[1]
{'abilities.zap.dice': ['The roller does not understand “2d”. Say how many faces, like 2d6.']}
"""

from __future__ import annotations

from typing import Any

from combat.engine.content import DefinitionKind, Field, SheetSchema, named_kind, validate_pack
from combat.engine.dice import check_expr

ABILITY_TYPES = ("physical", "magical", "heal", "status", "cleanse")
TARGETS = ("enemy", "ally", "self", "all_enemies", "all_allies")
TIMINGS = ("now", "effect")
BLOCKS = ("actions", "melee", "abilities")


def _mods() -> tuple[Field, ...]:
    return (
        Field("attack", "Attack bonus", "int", required=False, default=0, min=-99, max=99),
        Field("magic", "Magic bonus", "int", required=False, default=0, min=-99, max=99),
        Field("defense", "DEF bonus", "int", required=False, default=0, min=-99, max=99),
        Field("magic_defense", "MDEF bonus", "int", required=False, default=0, min=-99, max=99),
    )


ABILITY_SCHEMA = SheetSchema(
    (
        *named_kind(
            "type",
            "Type",
            ABILITY_TYPES,
            "physical (against DEF) or magical (against MDEF) damage, heal, status, cleanse (end statuses).",
        ),
        Field("target", "Targets", "choice", required=False, default="enemy", choices=TARGETS),
        Field("cost", "AP cost", "int", required=False, default=1, min=0, max=3),
        Field("dice", "Dice", "str", required=False, default="", max_length=40),
        Field("bonus", "Bonus added to the dice", "int", required=False, default=0, min=-99, max=99),
        Field("melee", "Melee (enemy front row only)", "bool", required=False, default=False),
        Field("status", "Status applied", "str", required=False, default="", max_length=40),
        Field("duration", "Status duration (Effect Phases)", "int", required=False, default=2, min=1, max=20),
        Field(
            "timing",
            "Takes effect",
            "choice",
            required=False,
            default="now",
            choices=TIMINGS,
            help="now, or in the next Effect Phase, like a Priest's Prayer.",
        ),
        Field("description", "Description", "str", required=False, default="", max_length=300),
    )
)

JOB_SCHEMA = SheetSchema(
    (
        Field("name", "Name", "str", max_length=60),
        Field("abilities", "Job abilities", "list", required=False, default=[]),
        *_mods(),
    )
)

WEAPON_SCHEMA = SheetSchema(
    (
        Field("name", "Name", "str", max_length=60),
        Field("dice", "Damage dice", "str", max_length=40),
        Field("attack", "Attack bonus", "int", required=False, default=0, min=-99, max=99),
    )
)

ACCESSORY_SCHEMA = SheetSchema((Field("name", "Name", "str", max_length=60), *_mods()))

ITEM_SCHEMA = SheetSchema(
    (
        Field("name", "Name", "str", max_length=60),
        Field(
            "type", "Effect", "choice", choices=("heal", "physical", "magical", "status", "cleanse", "anima")
        ),
        Field("target", "Targets", "choice", required=False, default="ally", choices=TARGETS),
        Field("dice", "Dice", "str", required=False, default="", max_length=40),
        Field("bonus", "Bonus", "int", required=False, default=0, min=-99, max=99),
        Field("status", "Status applied", "str", required=False, default="", max_length=40),
        Field("duration", "Status duration", "int", required=False, default=2, min=1, max=20),
    )
)

STATUS_SCHEMA = SheetSchema(
    (
        Field("name", "Name", "str", max_length=40),
        Field("blocks", "Prevents", "list", required=False, default=[], choices=BLOCKS),
        Field("damage", "Damage each Effect Phase (dice)", "str", required=False, default="", max_length=40),
        Field(
            "healing", "Healing each Effect Phase (dice)", "str", required=False, default="", max_length=40
        ),
        *_mods(),
        Field("description", "Description", "str", required=False, default="", max_length=300),
    )
)

EIDOLON_SCHEMA = SheetSchema(
    (
        Field("name", "Name", "str", max_length=60),
        Field("hp", "HP", "int", min=1, max=99999),
        Field("attack", "Attack bonus", "int", required=False, default=0, min=-99, max=99),
        Field("magic", "Magic bonus", "int", required=False, default=0, min=-99, max=99),
        Field("defense", "DEF", "int", required=False, default=0, min=0, max=999),
        Field("magic_defense", "MDEF", "int", required=False, default=0, min=0, max=999),
        Field("abilities", "Listed abilities", "list", required=False, default=[]),
    )
)

OBJECT_SCHEMA = SheetSchema(
    (
        Field("name", "Name", "str", max_length=60),
        Field("ap", "AP per interaction", "int", required=False, default=1, min=1, max=3),
        Field(
            "whole_turns",
            "Whole turns needed (0 = a simple action)",
            "int",
            required=False,
            default=0,
            min=0,
            max=5,
        ),
        Field(
            "ability",
            "Effect when done (an ability hitting all enemies, all allies or the user)",
            "str",
            required=False,
            default="",
            max_length=40,
        ),
        Field("uses", "Times it can be completed", "int", required=False, default=1, min=1, max=20),
        Field("description", "Description", "str", required=False, default="", max_length=300),
    )
)


def _dice(
    values: dict[str, Any], errors: dict[str, list[str]], key: str = "dice", required: bool = False
) -> None:
    expr = values.get(key, "")
    if expr or required:
        msg = check_expr(expr)
        if msg:
            errors.setdefault(key, []).append(msg)


def _refs(
    values: dict[str, Any], pack: dict[str, Any], key: str, kind: str, errors: dict[str, list[str]]
) -> None:
    missing = [k for k in values.get(key, ()) if k not in pack.get(kind, {})]
    if missing:
        errors.setdefault(key, []).append(f"Undefined {kind}: {', '.join(missing)}.")


def _check_effect(values: dict[str, Any], pack: dict[str, Any]) -> dict[str, list[str]]:
    errors: dict[str, list[str]] = {}
    kind = values["type"]
    _dice(values, errors, required=kind in ("physical", "magical", "heal"))
    if kind == "status" and values.get("status") not in pack.get("statuses", {}):
        errors.setdefault("status", []).append("Name a defined status.")
    if kind in ("heal", "cleanse", "anima") and values["target"] in ("enemy", "all_enemies"):
        errors.setdefault("target", []).append("Healing and cleansing target allies or self.")
    return errors


def _check_job(values: dict[str, Any], pack: dict[str, Any]) -> dict[str, list[str]]:
    errors: dict[str, list[str]] = {}
    _refs(values, pack, "abilities", "abilities", errors)
    return errors


def _check_weapon(values: dict[str, Any], pack: dict[str, Any]) -> dict[str, list[str]]:
    errors: dict[str, list[str]] = {}
    _dice(values, errors, required=True)
    return errors


def _check_status(values: dict[str, Any], pack: dict[str, Any]) -> dict[str, list[str]]:
    errors: dict[str, list[str]] = {}
    _dice(values, errors, "damage")
    _dice(values, errors, "healing")
    return errors


def _check_object(values: dict[str, Any], pack: dict[str, Any]) -> dict[str, list[str]]:
    errors: dict[str, list[str]] = {}
    key = values.get("ability")
    if key:
        a = pack.get("abilities", {}).get(key)
        if a is None:
            errors.setdefault("ability", []).append("Name a defined ability.")
        elif a["target"] not in ("all_enemies", "all_allies", "self"):
            errors.setdefault("ability", []).append(
                "The effect must hit all enemies, all allies or the user."
            )
    return errors


KINDS = {
    "abilities": DefinitionKind("abilities", ABILITY_SCHEMA, _check_effect),
    "jobs": DefinitionKind("jobs", JOB_SCHEMA, _check_job),
    "weapons": DefinitionKind("weapons", WEAPON_SCHEMA, _check_weapon),
    "accessories": DefinitionKind("accessories", ACCESSORY_SCHEMA),
    "items": DefinitionKind("items", ITEM_SCHEMA, _check_effect),
    "statuses": DefinitionKind("statuses", STATUS_SCHEMA, _check_status),
    "eidolons": DefinitionKind("eidolons", EIDOLON_SCHEMA, _check_job),
    "objects": DefinitionKind("objects", OBJECT_SCHEMA, _check_object),
}

_RAW_STARTER: dict[str, dict[str, dict[str, Any]]] = {
    "statuses": {
        "poison": {"name": "Poison", "damage": "1d4", "description": "1d4 damage each Effect Phase."},
        "regen": {"name": "Regen", "healing": "1d4", "description": "Heals 1d4 each Effect Phase."},
        "stun": {"name": "Stun", "blocks": ["actions"], "description": "Can only end the turn."},
        "silence": {"name": "Silence", "blocks": ["abilities"], "description": "No abilities."},
        "protect": {"name": "Protect", "defense": 3, "description": "DEF +3."},
        "weaken": {"name": "Weaken", "attack": -2, "description": "Attack -2."},
    },
    "abilities": {
        "power_strike": {
            "name": "Power Strike",
            "type": "physical",
            "cost": 2,
            "dice": "2d6",
            "bonus": 2,
            "melee": True,
        },
        "shield_wall": {
            "name": "Shield Wall",
            "type": "status",
            "target": "all_allies",
            "cost": 1,
            "status": "protect",
            "duration": 2,
        },
        "fire": {"name": "Fire", "type": "magical", "cost": 1, "dice": "1d8", "bonus": 1},
        "blizzard": {
            "name": "Blizzard",
            "type": "magical",
            "target": "all_enemies",
            "cost": 2,
            "dice": "1d6",
        },
        "cure": {"name": "Cure", "type": "heal", "target": "ally", "cost": 1, "dice": "2d4", "bonus": 1},
        "prayer": {
            "name": "Prayer",
            "type": "heal",
            "target": "all_allies",
            "cost": 1,
            "dice": "1d6",
            "timing": "effect",
            "description": "Heals every ally in the next Effect Phase.",
        },
        "esuna": {"name": "Esuna", "type": "cleanse", "target": "ally", "cost": 1},
        "venom_shot": {"name": "Venom Shot", "type": "status", "cost": 1, "status": "poison", "duration": 3},
        "aimed_shot": {"name": "Aimed Shot", "type": "physical", "cost": 1, "dice": "1d8", "bonus": 1},
        "bite": {"name": "Bite", "type": "physical", "cost": 1, "dice": "1d6", "bonus": 1, "melee": True},
        "howl": {
            "name": "Howl",
            "type": "status",
            "target": "all_enemies",
            "cost": 1,
            "status": "weaken",
            "duration": 1,
        },
        "crush": {"name": "Crush", "type": "physical", "cost": 2, "dice": "2d8", "melee": True},
        "hellfire": {
            "name": "Hellfire",
            "type": "magical",
            "target": "all_enemies",
            "cost": 1,
            "dice": "2d6",
            "bonus": 2,
        },
        "flame_claw": {
            "name": "Flame Claw",
            "type": "physical",
            "cost": 1,
            "dice": "1d10",
            "bonus": 2,
            "melee": True,
        },
        "rockfall": {
            "name": "Rockfall",
            "type": "physical",
            "target": "all_enemies",
            "cost": 0,
            "dice": "1d6",
        },
    },
    "jobs": {
        "knight": {"name": "Knight", "abilities": ["power_strike", "shield_wall"], "defense": 2},
        "black_mage": {"name": "Black Mage", "abilities": ["fire", "blizzard"], "magic": 2},
        "white_mage": {"name": "White Mage", "abilities": ["cure", "prayer", "esuna"], "magic_defense": 2},
        "ranger": {"name": "Ranger", "abilities": ["aimed_shot", "venom_shot"], "attack": 1},
        "brute": {"name": "Brute", "abilities": ["crush"], "attack": 2},
        "shaman": {"name": "Shaman", "abilities": ["howl", "fire"], "magic": 1},
    },
    "weapons": {
        "sword": {"name": "Sword", "dice": "1d8", "attack": 1},
        "staff": {"name": "Staff", "dice": "1d4"},
        "bow": {"name": "Bow", "dice": "1d6", "attack": 1},
        "axe": {"name": "Axe", "dice": "1d10"},
    },
    "accessories": {
        "iron_ring": {"name": "Iron Ring", "defense": 1},
        "power_band": {"name": "Power Band", "attack": 2},
        "mage_charm": {"name": "Mage Charm", "magic": 2},
    },
    "items": {
        "potion": {"name": "Potion", "type": "heal", "target": "ally", "dice": "2d4", "bonus": 2},
        "antidote": {"name": "Antidote", "type": "cleanse", "target": "ally"},
        "ether": {"name": "Ether", "type": "anima", "target": "ally", "bonus": 2},
        "bomb": {"name": "Bomb", "type": "magical", "target": "all_enemies", "dice": "1d6"},
    },
    "eidolons": {
        "ifrit": {
            "name": "Ifrit",
            "hp": 30,
            "attack": 2,
            "magic": 2,
            "defense": 2,
            "magic_defense": 1,
            "abilities": ["hellfire", "flame_claw"],
        },
    },
}

STARTER, _errors = validate_pack(KINDS, _RAW_STARTER)
assert not _errors, _errors

DEMO_PARTY = ("Kael", "Lyra")
"""Names of the demo's two player characters (they take the first ``HEROES`` sheets)."""

HEROES: dict[str, dict[str, Any]] = {
    "Knight": {
        "tier": 1,
        "hp": 36,
        "initiative": 1,
        "attack_bonus": 2,
        "weapon_damage": "1d4",
        "defense": 3,
        "magic_defense": 1,
        "magic_bonus": 0,
        "anima": 0,
        "job": "knight",
        "jobs": ["knight", "ranger"],
        "abilities": [],
        "weapon": "sword",
        "accessory": "iron_ring",
        "gear": ["axe", "power_band"],
        "items": ["potion", "antidote"],
        "eidolon": "",
        "row": "front",
    },
    "Mage": {
        "tier": 1,
        "hp": 24,
        "initiative": 2,
        "attack_bonus": 0,
        "weapon_damage": "1d4",
        "defense": 1,
        "magic_defense": 3,
        "magic_bonus": 2,
        "anima": 3,
        "job": "black_mage",
        "jobs": ["black_mage", "white_mage"],
        "abilities": [],
        "weapon": "staff",
        "accessory": "mage_charm",
        "gear": [],
        "items": ["potion", "ether", "bomb"],
        "eidolon": "ifrit",
        "row": "back",
    },
    "Ranger": {
        "tier": 6,
        "hp": 28,
        "initiative": 3,
        "attack_bonus": 1,
        "weapon_damage": "1d4",
        "defense": 2,
        "magic_defense": 2,
        "magic_bonus": 0,
        "anima": 0,
        "job": "ranger",
        "jobs": ["ranger", "white_mage"],
        "abilities": [],
        "weapon": "bow",
        "accessory": "",
        "gear": ["sword"],
        "items": ["potion"],
        "eidolon": "",
        "row": "back",
    },
}
"""Sample player characters (valid Paradigm sheets naming starter content) for demos, tests and the bench."""

MONSTERS: dict[str, dict[str, Any]] = {
    "Goblin": {
        "tier": 1,
        "hp": 20,
        "initiative": 2,
        "attack_bonus": 1,
        "weapon_damage": "1d6",
        "defense": 1,
        "magic_defense": 0,
        "anima": 0,
        "abilities": ["bite"],
        "row": "front",
    },
    "Ogre": {
        "tier": 3,
        "hp": 45,
        "initiative": 0,
        "attack_bonus": 2,
        "weapon_damage": "1d8",
        "defense": 2,
        "magic_defense": 1,
        "anima": 0,
        "job": "brute",
        "jobs": ["brute", "shaman"],
        "row": "front",
    },
    "Goblin Shaman": {
        "tier": 2,
        "hp": 18,
        "initiative": 1,
        "attack_bonus": 0,
        "weapon_damage": "1d4",
        "defense": 0,
        "magic_defense": 2,
        "magic_bonus": 1,
        "anima": 0,
        "job": "shaman",
        "jobs": ["shaman"],
        "items": ["potion"],
        "row": "back",
    },
}
"""Monster stat blocks by name: valid Paradigm sheets for seeding battles."""


def validate_paradigm_content(pack: Any) -> tuple[dict[str, Any], dict[str, list[str]]]:
    """Validate a custom Paradigm content pack; references may name starter definitions."""
    return validate_pack(KINDS, pack, base=STARTER)
