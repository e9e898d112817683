"""Action Block content: definition schemas (ENG-10), the starter pack, heroes and monsters.

Weapons (melee, gun, shotgun, Tesla, shield), armors, defensive actions,
attack modifiers, spells, spell casting modifiers, charisma skills and
statuses are data; the rules that read them are code (``rules``
and ``actions``). A GM's custom pack is validated with
``validate_block_content`` and may add to or replace starter definitions.

>>> validate_block_content({"weapons": {"zap": {"name": "Zap", "kind": "tesla", "damage": "2d"}}})[1]
{'weapons.zap.damage': ['The roller does not understand “2d”. Say how many faces, like 2d6.']}
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from combat.engine.content import DefinitionKind, Field, SheetSchema, named_kind, validate_pack
from combat.engine.dice import check_expr

WEAPON_KINDS = ("melee", "gun", "shotgun", "tesla", "shield")
DEFENSE_KINDS = ("dodge", "block", "shield_block", "obstruct")
BLOCKS = ("offensive", "movement", "verbal")


def _costs() -> tuple[Field, Field]:
    return (
        Field("speed_cost", "Speed cost", "int", required=False, default=0, min=0, max=99),
        Field("strength_cost", "Strength cost", "int", required=False, default=0, min=0, max=99),
    )


WEAPON_SCHEMA = SheetSchema(
    (
        *named_kind(
            "kind",
            "Kind",
            WEAPON_KINDS,
            "melee and shield use Melee Range and Melee Boost; guns, shotguns and Teslas Gun Boost.",
        ),
        Field("damage", "Damage Dealt dice", "str", max_length=40),
        Field("to_hit", "To Hit Bonus", "int", required=False, default=0, min=-20, max=20),
        Field("damage_bonus", "Damage Dealt Bonus", "int", required=False, default=0, min=-20, max=50),
        Field(
            "range_ft",
            "Range (feet; melee weapons use Melee Range)",
            "int",
            required=False,
            default=5,
            min=5,
            max=500,
        ),
        Field("weight", "Weight", "int", required=False, default=0, min=0, max=99),
        *_costs(),
        Field(
            "pdr_damage",
            "Physical Damage Reduction Damage (Drill)",
            "int",
            required=False,
            default=0,
            min=0,
            max=20,
        ),
        Field(
            "shield_pdr", "Shield Block PDR bonus (shields)", "int", required=False, default=0, min=0, max=20
        ),
    )
)

ARMOR_SCHEMA = SheetSchema(
    (
        Field("name", "Name", "str", max_length=60),
        Field("passive_evasion", "Passive Evasion", "int", required=False, default=7, min=0, max=30),
        Field("speed_reduction", "Speed Point Reduction", "int", required=False, default=0, min=0, max=99),
        Field("pdr", "Physical Damage Reduction", "int", required=False, default=0, min=0, max=50),
        Field("weight", "Weight", "int", required=False, default=0, min=0, max=99),
    )
)

DEFENSE_SCHEMA = SheetSchema(
    (
        Field("name", "Name", "str", max_length=60),
        Field("kind", "Kind", "choice", choices=DEFENSE_KINDS),
        Field("pdr", "PDR raised by the stance", "int", required=False, default=0, min=0, max=50),
        *_costs(),
    )
)

ATTACK_MOD_SCHEMA = SheetSchema(
    (
        Field("name", "Name", "str", max_length=60),
        Field(
            "applies_to",
            "Applies to",
            "choice",
            required=False,
            default="any",
            choices=("any", "melee", "gun"),
        ),
        Field("to_hit", "To Hit change", "int", required=False, default=0, min=-20, max=20),
        Field("damage_bonus", "Damage Dealt Bonus change", "int", required=False, default=0, min=-20, max=20),
        Field("extra_targets", "Extra targets", "int", required=False, default=0, min=0, max=5),
        *_costs(),
    )
)

SPELL_SCHEMA = SheetSchema(
    (
        Field("name", "Name", "str", max_length=60),
        Field("effect", "Effect", "choice", choices=("damage", "heal")),
        Field("base", "Base Effect dice", "str", max_length=40),
        Field("max_range_ft", "Maximum Range (feet)", "int", required=False, default=30, min=0, max=500),
        Field("targets", "Targets", "choice", required=False, default="enemy", choices=("enemy", "ally")),
        *_costs(),
    )
)

SPELL_MOD_SCHEMA = SheetSchema(
    (
        Field("name", "Name", "str", max_length=60),
        Field("effect_bonus", "Effect bonus", "int", required=False, default=0, min=0, max=20),
        Field("range_bonus_ft", "Range bonus (feet)", "int", required=False, default=0, min=0, max=200),
        Field("extra_targets", "Extra targets", "int", required=False, default=0, min=0, max=5),
        *_costs(),
    )
)

CHARISMA_SCHEMA = SheetSchema(
    (
        Field("name", "Name", "str", max_length=60),
        Field("bonus", "Offensive Charisma Roll bonus", "int", required=False, default=0, min=-10, max=20),
        Field("range_ft", "Range (feet)", "int", required=False, default=30, min=5, max=500),
        Field("max_targets", "Targets at most", "int", required=False, default=1, min=1, max=6),
        Field("effect", "Effect on success", "choice", choices=("speed", "strength", "status")),
        Field("amount", "Points lost", "int", required=False, default=0, min=0, max=50),
        Field("status", "Status given", "str", required=False, default="", max_length=40),
        Field("duration", "Status duration (own turns)", "int", required=False, default=1, min=1, max=20),
        *_costs(),
    )
)

STATUS_SCHEMA = SheetSchema(
    (
        Field("name", "Name", "str", max_length=40),
        Field("blocks", "Prevents", "list", required=False, default=[], choices=BLOCKS),
        Field("timed", "Counts down at the end of its bearer's turns", "bool", required=False, default=True),
        Field("description", "Description", "str", required=False, default="", max_length=300),
    )
)


def _dice(field: str) -> Callable[[dict[str, Any], dict[str, Any]], dict[str, list[str]]]:
    def check(values: dict[str, Any], pack: dict[str, Any]) -> dict[str, list[str]]:
        msg = check_expr(values.get(field, ""))
        return {field: [msg]} if msg else {}

    return check


def _check_charisma(values: dict[str, Any], pack: dict[str, Any]) -> dict[str, list[str]]:
    if values["effect"] == "status" and values["status"] not in pack.get("statuses", {}):
        return {"status": ["Name a defined status."]}
    if values["effect"] != "status" and values["amount"] < 1:
        return {"amount": ["A point-draining skill drains at least 1."]}
    return {}


KINDS = {
    "weapons": DefinitionKind("weapons", WEAPON_SCHEMA, _dice("damage")),
    "armors": DefinitionKind("armors", ARMOR_SCHEMA),
    "defenses": DefinitionKind("defenses", DEFENSE_SCHEMA),
    "attack_modifiers": DefinitionKind("attack_modifiers", ATTACK_MOD_SCHEMA),
    "spells": DefinitionKind("spells", SPELL_SCHEMA, _dice("base")),
    "spell_modifiers": DefinitionKind("spell_modifiers", SPELL_MOD_SCHEMA),
    "charisma_skills": DefinitionKind("charisma_skills", CHARISMA_SCHEMA, _check_charisma),
    "statuses": DefinitionKind("statuses", STATUS_SCHEMA),
}

_RAW_STARTER: dict[str, dict[str, dict[str, Any]]] = {
    "weapons": {
        "longsword": {
            "name": "Longsword",
            "kind": "melee",
            "damage": "2d6",
            "to_hit": 1,
            "damage_bonus": 1,
            "weight": 3,
            "speed_cost": 2,
            "strength_cost": 2,
        },
        "claws": {
            "name": "Claws",
            "kind": "melee",
            "damage": "1d6",
            "damage_bonus": 1,
            "speed_cost": 1,
            "strength_cost": 1,
        },
        "drill": {
            "name": "Hand Drill",
            "kind": "melee",
            "damage": "1d6",
            "weight": 2,
            "speed_cost": 2,
            "strength_cost": 2,
            "pdr_damage": 1,
        },
        "revolver": {
            "name": "Revolver",
            "kind": "gun",
            "damage": "1d8",
            "to_hit": 1,
            "range_ft": 60,
            "weight": 1,
            "speed_cost": 2,
            "strength_cost": 1,
        },
        "shotgun": {
            "name": "Shotgun",
            "kind": "shotgun",
            "damage": "2d6",
            "damage_bonus": 2,
            "range_ft": 20,
            "weight": 3,
            "speed_cost": 3,
            "strength_cost": 1,
        },
        "tesla": {
            "name": "Tesla Coil Gun",
            "kind": "tesla",
            "damage": "1d10",
            "range_ft": 40,
            "weight": 2,
            "speed_cost": 3,
            "strength_cost": 1,
        },
        "buckler": {
            "name": "Buckler",
            "kind": "shield",
            "damage": "1d4",
            "weight": 2,
            "speed_cost": 1,
            "strength_cost": 1,
            "shield_pdr": 2,
        },
    },
    "armors": {
        "leather": {
            "name": "Leather Coat",
            "passive_evasion": 8,
            "speed_reduction": 1,
            "pdr": 1,
            "weight": 2,
        },
        "plate": {"name": "Steel Plate", "passive_evasion": 6, "speed_reduction": 4, "pdr": 4, "weight": 6},
    },
    "defenses": {
        "dodge": {"name": "Dodge", "kind": "dodge", "speed_cost": 2},
        "block": {"name": "Block", "kind": "block", "pdr": 2, "speed_cost": 1, "strength_cost": 1},
        "heavy_block": {
            "name": "Heavy Block",
            "kind": "block",
            "pdr": 4,
            "speed_cost": 1,
            "strength_cost": 3,
        },
        "super_block": {
            "name": "Super Block",
            "kind": "block",
            "pdr": 6,
            "speed_cost": 2,
            "strength_cost": 5,
        },
        "shield_block": {"name": "Shield Block", "kind": "shield_block", "speed_cost": 1},
        "obstruct": {"name": "Obstruct Movement", "kind": "obstruct", "speed_cost": 1, "strength_cost": 1},
    },
    "attack_modifiers": {
        "power_attack": {
            "name": "Power Attack",
            "applies_to": "melee",
            "to_hit": -2,
            "damage_bonus": 3,
            "strength_cost": 2,
        },
        "sweep": {"name": "Sweep", "applies_to": "melee", "to_hit": -1, "extra_targets": 1, "speed_cost": 1},
        "spray": {"name": "Spray", "applies_to": "gun", "to_hit": -2, "extra_targets": 2, "speed_cost": 1},
        "aimed": {"name": "Aimed", "applies_to": "gun", "to_hit": 2, "speed_cost": 2},
    },
    "spells": {
        "ember": {
            "name": "Ember",
            "effect": "damage",
            "base": "2d6",
            "max_range_ft": 40,
            "speed_cost": 2,
            "strength_cost": 1,
        },
        "mend": {
            "name": "Mend",
            "effect": "heal",
            "base": "1d8",
            "max_range_ft": 15,
            "targets": "ally",
            "speed_cost": 2,
        },
    },
    "spell_modifiers": {
        "empower": {"name": "Empower", "effect_bonus": 2, "strength_cost": 2},
        "reach": {"name": "Reach", "range_bonus_ft": 30, "speed_cost": 1},
        "twin": {"name": "Twin", "extra_targets": 1, "speed_cost": 2},
    },
    "charisma_skills": {
        "intimidate": {
            "name": "Intimidate",
            "bonus": 1,
            "effect": "status",
            "status": "shaken",
            "speed_cost": 1,
        },
        "taunt": {
            "name": "Taunt",
            "range_ft": 20,
            "max_targets": 2,
            "effect": "speed",
            "amount": 2,
            "speed_cost": 1,
        },
    },
    "statuses": {
        "grappled": {
            "name": "Grappled",
            "blocks": ["movement"],
            "timed": False,
            "description": "Held: no Movement action until released.",
        },
        "grappling": {
            "name": "Grappling",
            "blocks": ["movement"],
            "timed": False,
            "description": "Holding someone: no Movement action until releasing.",
        },
        "shaken": {"name": "Shaken", "blocks": ["offensive"], "description": "No Offensive action."},
        "insane": {"name": "Insane", "timed": False, "description": "Failed an Insanity Roll: the GM rules."},
    },
}

STARTER, _errors = validate_pack(KINDS, _RAW_STARTER)
assert not _errors, _errors

DEMO_PARTY = ("Vera Stone", "Milo Finch")
"""Names of the demo's two player characters (they take the first ``HEROES`` sheets)."""

HEROES: dict[str, dict[str, Any]] = {
    "Duelist": {
        "hp": 34,
        "max_strength": 24,
        "max_speed": 22,
        "armor": "leather",
        "weapons": ["longsword", "buckler"],
        "melee_boost": 1,
        "dodge_boost": 1,
        "ghost_power": 5,
        "charisma": 1,
        "movement": 6,
        "abilities": ["intimidate"],
        "attack_modifiers": ["power_attack", "sweep"],
    },
    "Gunslinger": {
        "hp": 28,
        "max_strength": 18,
        "max_speed": 26,
        "weapons": ["revolver", "shotgun"],
        "gun_boost": 2,
        "damage_bonus": 1,
        "ghost_power": 4,
        "charisma": 2,
        "movement": 6,
        "abilities": ["taunt"],
        "attack_modifiers": ["spray", "aimed"],
    },
    "Occultist": {
        "hp": 24,
        "max_strength": 16,
        "max_speed": 20,
        "weapons": ["tesla"],
        "general_spell_boost": 1,
        "offensive_spell_boost": 1,
        "defensive_spell_boost": 1,
        "ghost_power": 8,
        "charisma": 3,
        "sdr": 2,
        "movement": 5,
        "abilities": ["ember", "mend", "intimidate"],
        "spell_modifiers": ["empower", "reach", "twin"],
    },
}
"""Sample player characters (valid Action Block sheets) for demos and tests."""

MONSTERS: dict[str, dict[str, Any]] = {
    "Ghoul": {
        "hp": 26,
        "max_strength": 22,
        "max_speed": 21,
        "weapons": ["claws"],
        "melee_boost": 1,
        "grapple_boost": 2,
        "pdr": 1,
        "movement": 6,
        "ghost_power": 6,
    },
    "Drill Automaton": {
        "hp": 36,
        "max_strength": 30,
        "max_speed": 16,
        "armor": "plate",
        "weapons": ["drill"],
        "movement": 4,
        "sdr": 1,
    },
}
"""Monster stat blocks by name: valid Action Block sheets for seeding battles."""


def validate_block_content(pack: Any) -> tuple[dict[str, Any], dict[str, list[str]]]:
    """Validate a custom Action Block content pack; references may name starter definitions."""
    return validate_pack(KINDS, pack, base=STARTER)
