"""Paradigm Rows: house rules (options) and the character sheet."""

from __future__ import annotations

from combat.engine.schema import Field, SheetSchema

OPTIONS = (
    Field(
        "initiative_die",
        "Initiative die",
        "choice",
        default="1d20",
        choices=("1d20", "1d10", "2d6"),
        help="The die each combatant rolls for initiative, before adding its initiative bonus.",
    ),
    Field(
        "melee_front_only",
        "Melee targets only the enemy front row",
        "bool",
        default=True,
        help="On: melee attacks reach only the enemy front row while someone stands in it.",
    ),
    Field(
        "allow_flee",
        "Players may flee",
        "bool",
        default=True,
        help="On: players may try to run from the battle.",
    ),
    Field(
        "anima_after_battle",
        "Anima after a battle",
        "choice",
        default="carry",
        choices=("carry", "restore"),
        labels=("What is left carries to the next battle", "Back to the sheet's Anima"),
        help="Whether Anima spent in a battle comes back afterwards.",
    ),
)
SHEET = SheetSchema(
    (
        Field("tier", "Tier", "int", min=1, max=10, default=1),
        Field("hp", "Max HP", "int", min=1, max=99999, default=30),
        Field("initiative", "Initiative bonus", "int", min=-20, max=50, default=0),
        Field("attack_bonus", "Attack bonus", "int", min=-20, max=99, default=0),
        Field("weapon_damage", "Weapon damage dice", "str", default="1d6", max_length=30),
        Field("defense", "DEF", "int", min=0, max=999, default=0),
        Field("magic_defense", "MDEF", "int", min=0, max=999, default=0),
        Field("anima", "Anima", "int", min=0, max=99, default=0),
        Field("job", "Current job", "str", required=False, default="", max_length=60, content=("jobs",)),
        Field("jobs", "Jobs", "list", required=False, default=[], content=("jobs",)),
        Field("abilities", "Abilities", "list", required=False, default=[], content=("abilities",)),
        Field(
            "row",
            "Starting row",
            "choice",
            default="front",
            choices=("front", "back"),
            labels=("Front", "Back"),
        ),
        Field("magic_bonus", "Magic bonus", "int", required=False, min=-20, max=99, default=0),
        Field(
            "weapon",
            "Equipped weapon",
            "str",
            required=False,
            default="",
            max_length=40,
            content=("weapons",),
        ),
        Field(
            "accessory",
            "Equipped accessory",
            "str",
            required=False,
            default="",
            max_length=40,
            content=("accessories",),
        ),
        Field(
            "gear",
            "Carried weapons and accessories (to swap)",
            "list",
            required=False,
            default=[],
            content=("weapons", "accessories"),
        ),
        Field(
            "items",
            "Items brought to the party inventory",
            "list",
            required=False,
            default=[],
            content=("items",),
        ),
        Field("eidolon", "Eidolon", "str", required=False, default="", max_length=40, content=("eidolons",)),
    )
)
