"""Paradigm Rows (source: seeds/001 and seeds/003). Front and back rows per side."""

from __future__ import annotations

from combat.engine.rulesets.base import Ruleset
from combat.engine.schema import Field, SheetSchema


class Paradigm(Ruleset):
    key = "paradigm"
    name = "Paradigm Rows"
    board = "rows"
    source = "001_0762b94f804b6465.txt"
    options = (
        Field("initiative_die", "Initiative die", "choice", default="1d20", choices=("1d20", "1d10", "2d6"),
              help="PARA-INIT-1"),
        Field("melee_front_only", "Melee targets only the enemy front row", "bool", default=True,
              help="PARA-MELEE-1"),
        Field("allow_flee", "Players may flee", "bool", default=True, help="PARA-ACT-FLEE"),
    )
    sheet_schema = SheetSchema((
        Field("tier", "Tier", "int", min=1, max=10, default=1),
        Field("hp", "Max HP", "int", min=1, max=99999, default=30),
        Field("initiative", "Initiative bonus", "int", min=-20, max=50, default=0),
        Field("attack_bonus", "Attack bonus", "int", min=-20, max=99, default=0),
        Field("weapon_damage", "Weapon damage dice", "str", default="1d6", max_length=30),
        Field("defense", "DEF", "int", min=0, max=999, default=0),
        Field("magic_defense", "MDEF", "int", min=0, max=999, default=0),
        Field("anima", "Anima", "int", min=0, max=99, default=0),
        Field("job", "Current job", "str", required=False, default="", max_length=60),
        Field("jobs", "Jobs", "list", required=False, default=[]),
        Field("abilities", "Abilities", "list", required=False, default=[]),
        Field("row", "Starting row", "choice", default="front", choices=("front", "back")),
    ))
