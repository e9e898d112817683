"""Mist & Rampart: house rules (options) and the character sheet."""

from __future__ import annotations

from combat.engine.schema import Field, SheetSchema

OPTIONS = (
    Field(
        "initiative_die",
        "Initiative die",
        "choice",
        default="1d20",
        choices=("1d20", "1d10", "2d6", "1d100"),
        help="The die each combatant rolls for initiative, before adding its initiative bonus.",
    ),
    Field(
        "disengage_type",
        "Disengage action type",
        "choice",
        default="simple",
        choices=("simple", "static"),
        labels=("Simple action", "Static action (once a turn)"),
        help="What stepping away from a guarding enemy costs.",
    ),
    Field(
        "accuracy_adds_d100",
        "Accuracy check adds 1d100",
        "bool",
        default=True,
        help="On: an attack hits when Accuracy + 1d100 reaches the target's Evasion. Off: Accuracy alone must.",
    ),
    Field(
        "weakness_multiplier",
        "Weakness damage multiplier",
        "int",
        default=2,
        min=1,
        max=5,
        help="Damage against a weakness is multiplied by this, after DEF or MDF are taken off.",
    ),
    Field(
        "initiative_rolls",
        "Who rolls initiative",
        "choice",
        default="able",
        choices=("able", "living"),
        labels=("Those able to act (the knocked out sit the round out)", "Everyone still alive"),
        help="Whether a knocked-out combatant still rolls initiative.",
    ),
    Field(
        "rampart_attacks",
        "Rampart attacks",
        "choice",
        default="once_per_move",
        choices=("once_per_move", "every_square"),
        labels=("Once per move from each rampart", "Each square left inside a rampart"),
        help="How often one rampart's holder may attack a single move through it.",
    ),
)
SHEET = SheetSchema(
    (
        Field("hp", "Max HP", "int", min=1, max=99999, default=100),
        Field("lp", "Max LP", "int", min=1, max=99, default=3),
        Field("lp_lost", "LP lost in earlier battles", "int", required=False, min=0, max=99, default=0),
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
        Field("attack", "Physical damage bonus", "int", required=False, min=-999, max=999, default=0),
        Field(
            "magic", "Magical damage and healing bonus", "int", required=False, min=-999, max=999, default=0
        ),
        Field("conscious_at_ko", "Stays conscious when KO", "bool", required=False, default=False),
        Field("resistances", "Element resistances (element:amount, ...)", "str", required=False, default=""),
        Field("weaknesses", "Element weaknesses (comma separated)", "str", required=False, default=""),
        Field("abilities", "Abilities", "list", required=False, default=[], content=("abilities",)),
    )
)
