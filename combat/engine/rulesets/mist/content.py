"""Mist & Rampart content: definition schemas (ENG-10), the starter pack, monsters and sample heroes.

Abilities and statuses are data; the rules that read them are code in
``mist.py``. An ability's ``type`` is its Mist action type (move, simple,
static, chain, finisher); its ``cost`` is its action-slot cost (a simple
action's cost is fixed by the rules: the first each turn is free, then 1).

>>> validate_mist_content({"abilities": {"zap": {"name": "Zap", "type": "chain", "damage": "2d"}}})[1]
{'abilities.zap.damage': ['The roller does not understand “2d”. Say how many faces, like 2d6.']}
"""

from __future__ import annotations

from typing import Any

from combat.engine.content import DefinitionKind, Field, SheetSchema, named_kind, validate_pack
from combat.engine.dice import check_expr

ACTION_TYPES = ("move", "simple", "static", "chain", "finisher")
TARGETS = ("enemy", "ally", "self", "any", "square")
AFFECTS = ("enemies", "allies", "all")
BLOCKS = ("actions", "movement", "spells")
MODIFIERS = ("accuracy", "evasion", "defense", "magic_defense", "movement", "initiative")

ABILITY_SCHEMA = SheetSchema(
    (
        *named_kind(
            "type",
            "Action type",
            ACTION_TYPES,
            "Move, simple, static (once a turn), chain (repeatable), finisher (ends the turn).",
        ),
        Field(
            "cost",
            "Action slots",
            "int",
            required=False,
            default=1,
            min=0,
            max=10,
            help="Ignored for simple actions (first free, then 1) and move actions (0).",
        ),
        Field("mp", "MP cost", "int", required=False, default=0, min=0, max=999),
        Field(
            "target",
            "Targets",
            "choice",
            required=False,
            default="enemy",
            choices=TARGETS,
            help="square: a square in range (areas, leaps).",
        ),
        Field("range", "Range (cardinal steps)", "int", required=False, default=1, min=0, max=50),
        Field(
            "area",
            "Area around the chosen square (0 = one target)",
            "int",
            required=False,
            default=0,
            min=0,
            max=10,
        ),
        Field(
            "affects", "In the area, affects", "choice", required=False, default="enemies", choices=AFFECTS
        ),
        Field("accuracy_check", "Needs an accuracy check", "bool", required=False, default=True),
        Field("accuracy_bonus", "Accuracy bonus", "int", required=False, default=0, min=-999, max=999),
        Field("damage", "Damage dice", "str", required=False, default="", max_length=40),
        Field(
            "damage_type",
            "Damage type",
            "choice",
            required=False,
            default="physical",
            choices=("physical", "magical"),
            help="Physical damage is reduced by DEF, magical by MDF.",
        ),
        Field("element", "Element", "str", required=False, default="", max_length=20),
        Field("irreducible", "Cannot be reduced", "bool", required=False, default=False),
        Field("heal", "Healing dice", "str", required=False, default="", max_length=40),
        Field("status", "Status inflicted", "str", required=False, default="", max_length=40),
        Field(
            "duration",
            "Status duration (turns of its bearer)",
            "int",
            required=False,
            default=2,
            min=1,
            max=20,
        ),
        Field(
            "save",
            "Saving throw",
            "choice",
            required=False,
            default="none",
            choices=("none", "res", "spi"),
            help="1d100 + the target's RES or SPI; none: no saving throw.",
        ),
        Field(
            "save_against",
            "Save against the user's",
            "choice",
            required=False,
            default="mnd",
            choices=("dex", "mnd"),
        ),
        Field("spell", "Spell", "bool", required=False, default=False),
        Field("disengage", "Also counts as Disengage", "bool", required=False, default=False),
        Field(
            "leap",
            "Leap to the chosen square",
            "bool",
            required=False,
            default=False,
            help="A move action: jump to a free square in range, using up the turn's move.",
        ),
        Field("description", "Description", "str", required=False, default="", max_length=300),
    )
)

STATUS_SCHEMA = SheetSchema(
    (
        Field("name", "Name", "str", max_length=40),
        Field("blocks", "Prevents", "list", required=False, default=[], choices=BLOCKS),
        Field("accuracy", "Accuracy change", "int", required=False, default=0, min=-999, max=999),
        Field("evasion", "Evasion change", "int", required=False, default=0, min=-999, max=999),
        Field("defense", "DEF change", "int", required=False, default=0, min=-999, max=999),
        Field("magic_defense", "MDF change", "int", required=False, default=0, min=-999, max=999),
        Field("movement", "Movement change", "int", required=False, default=0, min=-50, max=50),
        Field(
            "initiative",
            "Initiative change",
            "int",
            required=False,
            default=0,
            min=-100,
            max=100,
            help="Spell effects on the initiative bonus.",
        ),
        Field("description", "Description", "str", required=False, default="", max_length=300),
    )
)


def _check_ability(values: dict[str, Any], pack: dict[str, Any]) -> dict[str, list[str]]:
    errors: dict[str, list[str]] = {}
    for key in ("damage", "heal"):
        if values.get(key):
            msg = check_expr(values[key])
            if msg:
                errors.setdefault(key, []).append(msg)
    status = values.get("status")
    if status and status not in pack.get("statuses", {}):
        errors.setdefault("status", []).append("Name a defined status.")
    effects = values.get("damage") or values.get("heal") or status or values["disengage"] or values["leap"]
    if not effects:
        errors.setdefault("__all__", []).append(
            "Give the ability an effect: damage, healing, a status, disengage or leap."
        )
    if values["leap"]:
        if values["type"] != "move":
            errors.setdefault("type", []).append("A leap is a move action.")
        if values["target"] != "square":
            errors.setdefault("target", []).append("A leap targets a square.")
    if values["area"] and values["target"] != "square":
        errors.setdefault("target", []).append("An area ability targets a square.")
    if values["heal"] and values["target"] == "enemy":
        errors.setdefault("target", []).append("Healing targets allies or self.")
    return errors


KINDS = {
    "abilities": DefinitionKind("abilities", ABILITY_SCHEMA, _check_ability),
    "statuses": DefinitionKind("statuses", STATUS_SCHEMA),
}

_RAW_STARTER: dict[str, dict[str, dict[str, Any]]] = {
    "statuses": {
        "blind": {"name": "Blind", "accuracy": -50, "description": "Accuracy -50."},
        "silence": {"name": "Silence", "blocks": ["spells"], "description": "No spells."},
        "stun": {
            "name": "Stun",
            "blocks": ["actions", "movement"],
            "description": "No actions, no movement.",
        },
        "protect": {"name": "Protect", "defense": 20, "magic_defense": 20, "description": "DEF and MDF +20."},
        "haste": {
            "name": "Haste",
            "initiative": 10,
            "movement": 1,
            "description": "Initiative +10, Movement +1.",
        },
    },
    "abilities": {
        "strike": {
            "name": "Strike",
            "type": "chain",
            "cost": 1,
            "range": 1,
            "damage": "2d20+20",
            "description": "Chain 1 melee attack: usable for rampart attacks.",
        },
        "crushing_blow": {
            "name": "Crushing Blow",
            "type": "finisher",
            "cost": 2,
            "range": 1,
            "damage": "4d20+40",
            "description": "Finisher: a heavy blow that ends the turn at once.",
        },
        "shield_bash": {
            "name": "Shield Bash",
            "type": "static",
            "cost": 1,
            "range": 1,
            "damage": "1d20+10",
            "status": "stun",
            "duration": 1,
            "save": "res",
            "save_against": "dex",
            "description": "Static: once a turn. RES save against the user's DEX or be stunned.",
        },
        "leap": {
            "name": "Leap",
            "type": "move",
            "target": "square",
            "range": 3,
            "leap": True,
            "description": "Move action: jump up to 3 squares, over anyone.",
        },
        "fire_bolt": {
            "name": "Fire Bolt",
            "type": "chain",
            "cost": 1,
            "mp": 2,
            "range": 5,
            "damage": "2d20+10",
            "damage_type": "magical",
            "element": "fire",
            "spell": True,
        },
        "flame_burst": {
            "name": "Flame Burst",
            "type": "static",
            "cost": 2,
            "mp": 5,
            "target": "square",
            "range": 4,
            "area": 1,
            "affects": "all",
            "accuracy_check": False,
            "damage": "3d20+20",
            "damage_type": "magical",
            "element": "fire",
            "spell": True,
            "description": "Area 1: every combatant within 1 square of the chosen one.",
        },
        "darkness": {
            "name": "Darkness",
            "type": "simple",
            "mp": 3,
            "range": 4,
            "accuracy_check": False,
            "status": "blind",
            "duration": 2,
            "save": "res",
            "save_against": "mnd",
            "spell": True,
            "description": "Blind unless the target's RES save meets the caster's MND.",
        },
        "cure": {
            "name": "Cure",
            "type": "chain",
            "cost": 1,
            "mp": 3,
            "target": "ally",
            "range": 3,
            "accuracy_check": False,
            "heal": "2d20+20",
            "spell": True,
        },
        "protect": {
            "name": "Protect",
            "type": "static",
            "cost": 1,
            "mp": 4,
            "target": "ally",
            "range": 3,
            "accuracy_check": False,
            "status": "protect",
            "duration": 3,
            "spell": True,
            "description": "No saving throw: DEF and MDF +20.",
        },
        "hush": {
            "name": "Hush",
            "type": "chain",
            "cost": 1,
            "mp": 2,
            "range": 3,
            "accuracy_check": False,
            "status": "silence",
            "duration": 2,
            "spell": True,
            "description": "Silence with no saving throw.",
        },
        "claw": {"name": "Claw", "type": "chain", "cost": 1, "range": 1, "damage": "2d20+10"},
        "tumble": {
            "name": "Tumble",
            "type": "chain",
            "cost": 1,
            "range": 0,
            "target": "self",
            "accuracy_check": False,
            "disengage": True,
            "description": "Counts as Disengage: no rampart attacks this turn.",
        },
    },
}

STARTER, _errors = validate_pack(KINDS, _RAW_STARTER)
assert not _errors, _errors


def _sheet(**values: Any) -> dict[str, Any]:
    base = {
        "hp": 100,
        "lp": 3,
        "mp_gain": 0,
        "initiative": 0,
        "accuracy": 50,
        "evasion": 60,
        "defense": 10,
        "magic_defense": 10,
        "res": 30,
        "spi": 30,
        "dex": 30,
        "mnd": 30,
        "speed": 10,
        "movement": 4,
        "action_slots": 3,
        "heavy_armor": False,
        "rampart": 0,
        "attack": 0,
        "magic": 0,
        "conscious_at_ko": False,
        "resistances": "",
        "weaknesses": "",
        "abilities": [],
    }
    return {**base, **values}


DEMO_PARTY = ("Aria the Warden", "Bram the Arcanist")
"""Names of the demo's two player characters (they take the first ``HEROES`` sheets)."""

HEROES: dict[str, dict[str, Any]] = {
    "Knight": _sheet(
        hp=320,
        lp=4,
        initiative=2,
        accuracy=60,
        evasion=40,
        defense=30,
        magic_defense=10,
        res=40,
        dex=40,
        speed=8,
        movement=4,
        heavy_armor=True,
        rampart=1,
        attack=10,
        abilities=["strike", "crushing_blow", "shield_bash", "leap"],
    ),
    "Mage": _sheet(
        hp=180,
        lp=3,
        mp_gain=2,
        initiative=4,
        accuracy=55,
        evasion=55,
        defense=5,
        magic_defense=25,
        res=30,
        spi=50,
        mnd=100,
        speed=12,
        movement=4,
        magic=10,
        abilities=["fire_bolt", "flame_burst", "darkness", "hush"],
    ),
    "Cleric": _sheet(
        hp=220,
        lp=3,
        mp_gain=1,
        initiative=1,
        accuracy=50,
        evasion=50,
        defense=15,
        magic_defense=20,
        res=40,
        spi=60,
        mnd=70,
        speed=9,
        movement=4,
        magic=5,
        abilities=["cure", "protect", "strike", "tumble"],
    ),
}
"""Sample player characters (valid Mist sheets) for demos and tests."""

MONSTERS: dict[str, dict[str, Any]] = {
    "Goblin": _sheet(
        hp=140,
        lp=1,
        initiative=3,
        accuracy=55,
        evasion=55,
        defense=8,
        magic_defense=5,
        res=20,
        speed=12,
        movement=5,
        weaknesses="fire",
        abilities=["claw", "tumble"],
    ),
    "Iron Golem": _sheet(
        hp=240,
        lp=1,
        initiative=-2,
        accuracy=50,
        evasion=30,
        defense=25,
        magic_defense=5,
        res=60,
        dex=50,
        speed=4,
        movement=3,
        heavy_armor=True,
        rampart=1,
        attack=15,
        resistances="fire:10",
        weaknesses="lightning",
        abilities=["strike", "crushing_blow", "shield_bash"],
    ),
}
"""Monster stat blocks by name: valid Mist sheets for seeding battles."""


def validate_mist_content(pack: Any) -> tuple[dict[str, Any], dict[str, list[str]]]:
    """Validate a custom Mist content pack; references may name starter definitions."""
    return validate_pack(KINDS, pack, base=STARTER)
