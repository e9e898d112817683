"""D20 Luck: house rules (options) and the character sheet."""

from __future__ import annotations

from combat.engine.schema import Field, SheetSchema

OPTIONS = (
    Field(
        "interrupt_window",
        "Interrupt once per",
        "choice",
        default="own_turn_cycle",
        choices=("own_turn_cycle", "round"),
        labels=("Between two of one's own turns", "Round"),
        help="How often a character may interrupt (parry...): once between two of its own turns, or once a round.",
    ),
    Field(
        "status_power",
        "Status power",
        "choice",
        default="difference",
        choices=("difference", "roll"),
        labels=("How much the roll beat the defense", "The roll itself"),
        help="How strong a status is when it lands: what it takes to shake it off.",
    ),
    Field(
        "recover_rule",
        "Recover",
        "choice",
        default="d20_vs_power",
        choices=("d20_vs_power", "automatic"),
        labels=("Roll 1d20: a roll of at least the status's power ends it", "Always works"),
        help="What happens when a character uses Recover to end a status early.",
    ),
    Field(
        "grid_metric",
        "Counting squares",
        "choice",
        default="chebyshev",
        choices=("chebyshev", "manhattan"),
        labels=("A diagonal step counts as 1 square", "Only straight steps (a diagonal counts as 2)"),
        help="How distances and moves are counted on the grid.",
    ),
    Field(
        "slow_rounding",
        "Reduced movement",
        "choice",
        default="down",
        choices=("down", "up"),
        labels=("Rounded down (5 squares halved: 2)", "Rounded up (5 squares halved: 3)"),
        help="Slow halves movement: how to round an odd number of squares.",
    ),
)
SHEET = SheetSchema(
    (
        Field("hp", "Max HP", "int", min=1, max=9999, default=20),
        Field("initiative", "Initiative score", "int", min=-20, max=50, default=0),
        Field("armor", "Armor", "int", min=0, max=999, default=0),
        Field("resist", "Resist", "int", min=0, max=999, default=0),
        Field("movement", "Movement (squares per move)", "int", min=0, max=50, default=5),
        Field("luck_bonus", "Luck roll bonus", "int", min=-10, max=10, default=0),
        Field("crit_damage", "Crit damage multiplier", "int", min=2, max=5, default=2),
        Field("abilities", "Abilities", "list", required=False, default=[], content=("abilities",)),
        Field("weapons", "Weapons", "list", required=False, default=[], content=("weapons",)),
        Field("items", "Items (how many of each)", "list", required=False, default=[], content=("items",)),
    )
)
