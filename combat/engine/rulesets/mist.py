"""Mist & Rampart (source: seeds/000). Grid board, action slots, ramparts."""

from __future__ import annotations

from combat.engine.rulesets.base import Ruleset
from combat.engine.schema import Field, SheetSchema


class Mist(Ruleset):
    key = "mist"
    name = "Mist & Rampart"
    board = "grid"
    source = "000_6696e0bb94cf9e52.txt"
    options = (
        Field("initiative_die", "Initiative die", "choice", default="1d20", choices=("1d20", "1d10", "2d6", "1d100"),
              help="MIST-INIT-1"),
        Field("disengage_type", "Disengage action type", "choice", default="simple", choices=("simple", "static"),
              help="MIST-RAMP-4"),
        Field("accuracy_adds_d100", "Accuracy check adds 1d100", "bool", default=True, help="MIST-HIT-1"),
        Field("weakness_multiplier", "Weakness damage multiplier", "int", default=2, min=1, max=5,
              help="MIST-DMG-2: applied after reduction."),
    )
    sheet_schema = SheetSchema((
        Field("hp", "Max HP", "int", min=1, max=99999, default=100),
        Field("lp", "Max LP", "int", min=1, max=99, default=3),
        Field("mp_gain", "MP Gain", "int", min=0, max=99, default=0),
        Field("initiative", "Initiative bonus", "int", min=-50, max=100, default=0),
        Field("accuracy", "Accuracy", "int", min=-100, max=999, default=50),
        Field("evasion", "Evasion", "int", min=0, max=999, default=60),
        Field("defense", "DEF", "int", min=0, max=9999, default=10),
        Field("magic_defense", "MDF", "int", min=0, max=9999, default=10),
        Field("res", "RES", "int", min=0, max=999, default=30),
        Field("spi", "SPI", "int", min=0, max=999, default=30),
        Field("dex", "DEX", "int", min=0, max=999, default=30),
        Field("mnd", "MND", "int", min=0, max=999, default=30),
        Field("speed", "Speed", "int", min=0, max=999, default=10),
        Field("movement", "Movement", "int", min=0, max=50, default=4),
        Field("action_slots", "Action slots", "int", min=1, max=10, default=3),
        Field("heavy_armor", "Wears heavy armor", "bool", required=False, default=False),
        Field("rampart", "Rampart range (0 = none)", "int", min=0, max=10, default=0),
        Field("resistances", "Element resistances (element:amount, ...)", "str", required=False, default=""),
        Field("weaknesses", "Element weaknesses (comma separated)", "str", required=False, default=""),
        Field("abilities", "Abilities", "list", required=False, default=[]),
    ))
