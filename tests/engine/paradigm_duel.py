"""A Paradigm Rows duel for the engine tests: Ash (party) against an Orc, and a legal option by kind."""

from __future__ import annotations

from combat.engine.core import legal_actions
from combat.engine.testing import Battle

ASH = {
    "tier": 1,
    "hp": 30,
    "initiative": 0,
    "attack_bonus": 2,
    "weapon_damage": "1d6",
    "defense": 1,
    "magic_defense": 1,
}
ORC = {
    "tier": 1,
    "hp": 20,
    "initiative": 0,
    "attack_bonus": 1,
    "weapon_damage": "1d6",
    "defense": 1,
    "magic_defense": 2,
}


def duel(options=None, ash=None, orc=None, orc_row="front", ash_row="front", bo=None, content=None):
    """Ash (party, user 7) acts first, then Orc (enemy monster), then Bo (party, user 8) when given."""
    b = Battle("paradigm", options, content=content)
    a = b.add("Ash", "party", controller="7", row=ash_row, **{**ASH, **(ash or {})})
    o = b.add("Orc", "enemy", row=orc_row, **{**ORC, **(orc or {})})
    dice = [15, 10]
    x = None
    if bo is not None:
        x = b.add("Bo", "party", controller="8", row="front", **{**ASH, **bo})
        dice.append(5)
    b.act("setup.start", dice=dice)
    assert b.state.current().id == a and b.state.pending is None
    return b, a, o, x


def option(b, actor, kind, **params):
    return next(
        o
        for o in legal_actions(b.state, actor)
        if o.kind == kind and all(o.params.get(k) == v for k, v in params.items())
    )
