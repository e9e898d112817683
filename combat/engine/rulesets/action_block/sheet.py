"""Action Block: house rules (options) and the character sheet."""

from __future__ import annotations

from combat.engine.schema import Field, SheetSchema

OPTIONS = (
    Field(
        "insanity",
        "Insanity roll",
        "choice",
        default="gm_prompt",
        choices=("gm_prompt", "off"),
        labels=("The GM is asked, with the roll", "Off"),
        help="When a character faces something horrifying, the GM gets a prompt with its insanity roll.",
    ),
    Field(
        "points_restore",
        "Speed and Strength Points restored",
        "choice",
        default="battle_start",
        choices=("battle_start", "each_block"),
        labels=("At the start of a battle", "At every block"),
        help="When characters get their Speed and Strength Points back.",
    ),
    Field(
        "insanity_every_hit",
        "Insanity Roll on every hit below Ghost Power",
        "bool",
        default=True,
        help="On: each time HP is reduced while below Ghost Power. Off: only when HP first drops below it.",
    ),
)
SHEET = SheetSchema(
    (
        Field("hp", "Max HP", "int", min=1, max=9999, default=30),
        Field("max_strength", "Maximum Strength Points", "int", min=0, max=999, default=20),
        Field("max_speed", "Maximum Speed Points", "int", min=0, max=999, default=20),
        Field("equipment_weight", "Other equipment weight", "int", min=0, max=999, default=0),
        Field(
            "armor_speed_reduction",
            "Armor Speed Point Reduction (no named armor)",
            "int",
            min=0,
            max=999,
            default=0,
        ),
        Field("passive_evasion", "Passive Evasion (no named armor)", "int", min=0, max=99, default=7),
        Field("evasion_bonus", "Evasion bonus", "int", required=False, min=-20, max=20, default=0),
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
        Field(
            "movement",
            "Movement (squares per Movement action)",
            "int",
            required=False,
            min=0,
            max=40,
            default=6,
        ),
        Field(
            "armor",
            "Armor (blank = unarmored)",
            "str",
            required=False,
            default="",
            max_length=40,
            content=("armors",),
        ),
        Field("weapons", "Weapons and shields", "list", required=False, default=[], content=("weapons",)),
        Field(
            "abilities",
            "Spells and charisma skills",
            "list",
            required=False,
            default=[],
            content=("spells", "charisma_skills"),
        ),
        Field(
            "attack_modifiers",
            "Attack modifiers",
            "list",
            required=False,
            default=[],
            content=("attack_modifiers",),
        ),
        Field(
            "spell_modifiers",
            "Spell casting modifiers",
            "list",
            required=False,
            default=[],
            content=("spell_modifiers",),
        ),
    )
)
