"""Action Block (source: seeds/004). Grid of 5 ft squares, Strength and Speed Points."""

from __future__ import annotations

from combat.engine.rulesets.base import Ruleset
from combat.engine.schema import Field, SheetSchema


class ActionBlock(Ruleset):
    key = "action-block"
    name = "Action Block"
    board = "grid"
    source = "004_b1d5fda312bebd08.txt"
    options = (
        Field("insanity", "Insanity roll", "choice", default="gm_prompt", choices=("gm_prompt", "off"),
              help="BLOCK-INS-1: the engine raises a GM prompt with the roll."),
    )
    sheet_schema = SheetSchema((
        Field("hp", "Max HP", "int", min=1, max=9999, default=30),
        Field("max_strength", "Maximum Strength Points", "int", min=0, max=999, default=20),
        Field("max_speed", "Maximum Speed Points", "int", min=0, max=999, default=20),
        Field("equipment_weight", "Total Equipment Weight", "int", min=0, max=999, default=0),
        Field("armor_speed_reduction", "Armor Speed Point Reduction", "int", min=0, max=999, default=0),
        Field("passive_evasion", "Passive Evasion", "int", min=0, max=99, default=7),
        Field("pdr", "Physical Damage Reduction", "int", min=0, max=999, default=0),
        Field("sdr", "Spell Damage Reduction", "int", min=0, max=999, default=0),
        Field("pdr_boost", "PDR Boost", "int", min=0, max=99, default=0),
        Field("sdr_boost", "SDR Boost", "int", min=0, max=99, default=0),
        Field("dodge_boost", "Dodge Boost", "int", min=0, max=99, default=0),
        Field("melee_boost", "Melee Boost", "int", min=0, max=99, default=0),
        Field("gun_boost", "Gun Boost", "int", min=0, max=99, default=0),
        Field("grapple_boost", "Grapple Accuracy Boost", "int", min=0, max=99, default=0),
        Field("damage_bonus", "Damage Dealt Bonus", "int", min=-99, max=99, default=0),
        Field("offensive_spell_boost", "Offensive Spell Boost", "int", min=0, max=99, default=0),
        Field("defensive_spell_boost", "Defensive Spell Boost", "int", min=0, max=99, default=0),
        Field("general_spell_boost", "General Spell Boost", "int", min=0, max=99, default=0),
        Field("ghost_power", "Ghost Power", "int", min=0, max=999, default=0),
        Field("charisma", "Charisma", "int", min=0, max=99, default=0),
        Field("abilities", "Weapons and abilities", "list", required=False, default=[]),
    ))
