"""A D20 Luck duel for the engine tests: Ash (party) against an Orc, with scripted initiative."""

from __future__ import annotations

from combat.engine.testing import Battle

ASH = {
    "hp": 20,
    "initiative": 5,
    "armor": 1,
    "resist": 1,
    "movement": 5,
    "abilities": [
        "fire_bolt",
        "mend",
        "stunning_blow",
        "recover",
        "parry",
        "lullaby",
        "hush",
        "disarming_strike",
        "flash",
        "frost_snare",
        "flame_burst",
    ],
    "weapons": ["sword", "bow"],
    "items": ["healing_potion"],
}
ORC = {
    "hp": 20,
    "initiative": 0,
    "armor": 2,
    "resist": 2,
    "movement": 5,
    "abilities": ["recover"],
    "weapons": ["claws"],
}


def duel(options=None, ash=None, orc=None, orc_pos=(1, 0), ally=False, content=None):
    """Ash (party, user 7) at (0,0) acts first; Orc (enemy monster) next to her."""
    b = Battle("luck", options, content=content)
    a = b.add("Ash", "party", (0, 0), controller="7", **(ash or ASH))
    o = b.add("Orc", "enemy", orc_pos, **(orc or ORC))
    dice = [15, 1]
    extra = None
    if ally:
        extra = b.add("Bo", "party", (0, 1), controller="8", hp=20, initiative=0)
        dice.append(1)  # Bo: 1, ties with Orc at 1 (equal bonus 0): roll-off below
        dice += [10, 2]  # roll-off: Orc 10, Bo 2
    b.act("setup.start", dice=dice)
    assert b.state.current().id == a
    return b, a, o, extra
