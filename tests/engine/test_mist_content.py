"""Mist content pack (ENG-10), sheets, refusals of malformed or illegal actions (ENG-4), legal actions (ENG-5)."""

from __future__ import annotations

import pytest

from combat.engine.actions import Refusal
from combat.engine.core import legal_actions, new_battle_event
from combat.engine.rulesets import get_ruleset
from combat.engine.rulesets.mist import Mist
from combat.engine.rulesets.mist.content import HEROES, MONSTERS, STARTER, validate_mist_content
from combat.engine.testing import Battle


def test_starter_pack_heroes_and_monsters_are_valid():
    # RULE: ENG-10
    for sheet in [*HEROES.values(), *MONSTERS.values()]:
        clean, errors = Mist.validate_sheet(sheet)
        assert errors == {}
        assert set(clean["abilities"]) <= set(STARTER["abilities"])
    assert len(MONSTERS) == 2
    knight = HEROES["Knight"]
    assert knight["heavy_armor"] and knight["rampart"] == 1
    kinds = {STARTER["abilities"][a]["type"] for s in HEROES.values() for a in s["abilities"]}
    assert {"chain", "finisher", "static", "simple", "move"} <= kinds
    assert STARTER["abilities"]["flame_burst"]["area"] == 1
    assert STARTER["abilities"]["darkness"]["save"] == "res"
    assert STARTER["abilities"]["cure"]["heal"]
    assert get_ruleset("mist") is Mist


def test_custom_content_is_validated():
    # RULE: ENG-10
    bad = {
        "abilities": {
            "zap": {"name": "Zap", "type": "chain", "status": "frozen"},
            "nothing": {"name": "Nothing", "type": "chain"},
            "hop": {"name": "Hop", "type": "chain", "leap": True},
        }
    }
    errors = validate_mist_content(bad)[1]
    assert errors["abilities.zap.status"] == ["Name a defined status."]
    assert errors["abilities.nothing.__all__"][0].startswith("Give the ability an effect")
    assert errors["abilities.hop.type"] == ["A leap is a move action."]
    with pytest.raises(ValueError, match="Invalid content"):
        new_battle_event("mist", {}, 1, 5, 5, content=bad)
    good = {
        "statuses": {"frozen": {"name": "Frozen", "blocks": ["movement"]}},
        "abilities": {"ice": {"name": "Ice", "type": "chain", "status": "frozen", "save": "spi"}},
    }
    clean, errors = validate_mist_content(good)
    assert errors == {} and clean["abilities"]["ice"]["save_against"] == "mnd"


def test_sheets_naming_unknown_abilities_or_bad_resistances_are_refused():
    # RULE: ENG-4
    b = Battle("mist")
    out = b.try_act("setup.add_combatant", name="X", side="party", sheet={"abilities": ["fly"]}, pos=[0, 0])
    assert out == Refusal("Unknown abilities: fly.")
    out = b.try_act("setup.add_combatant", name="X", side="party", sheet={"resistances": "fire"}, pos=[0, 0])
    assert out == Refusal("Invalid sheet: resistances: 'fire': write element:amount, e.g. fire:10.")
    assert b.state.combatants == {}


def test_illegal_or_malformed_actions_are_refused_and_change_nothing():
    # RULE: ENG-4
    b = Battle("mist", width=10, height=10)
    k = b.add("Knight", "party", (2, 2), controller="7", **HEROES["Knight"])
    m = b.add("Mage", "party", (2, 3), controller="8", **HEROES["Mage"])
    g = b.add("Goblin", "enemy", (3, 2), **MONSTERS["Goblin"])
    b.act("setup.start", dice=[20, 1, 1])
    before = b.state.to_dict()
    cases = [
        (("move", k), {"path": "north"}, "Give the path as a list of squares."),
        (("move", k), {"path": [[2, 2], [99, 2]]}, "Square [99, 2] is not on the board."),
        (("move", k), {}, "Choose where to move."),
        (("move", k), {"to": [9, 9]}, "Knight cannot reach that square this turn."),
        (("ability", k), {"ability": "fire_bolt", "targets": [g]}, "Knight does not have that ability."),
        (("ability", k), {"ability": "strike", "targets": [m]}, "Choose an enemy."),
        (("ability", k), {"ability": "strike", "targets": "c3"}, "Choose one target."),
        (("ability", k), {"ability": "strike", "targets": ["c99"]}, "No such combatant."),
        (("ability", k), {"ability": "leap", "square": [2, 3]}, "Leap to a free square."),
        (("ability", k), {"ability": "leap", "square": [9, 9]}, "That square is out of range (14 > 3)."),
        (("ability", k), {"ability": "leap", "square": "x"}, "Choose a square on the board."),
        (("rampart", k), {"on": "yes"}, "Say on (true) or off (false)."),
    ]
    for (kind, actor), params, reason in cases:
        assert b.try_act(kind, actor, **params) == Refusal(reason), (kind, params)
    assert b.state.to_dict() == before


def test_legal_actions_list_costs_targets_and_reasons():
    # RULE: ENG-5
    b = Battle("mist", width=10, height=10)
    k = b.add("Knight", "party", (2, 2), controller="7", **HEROES["Knight"])
    g = b.add("Goblin", "enemy", (3, 2), **MONSTERS["Goblin"])
    b.act("setup.start", dice=[20, 1])
    opts = {(o.kind, o.params.get("ability")): o for o in legal_actions(b.state, k)}
    assert opts[("ability", "strike")].targets == [g]
    assert opts[("ability", "strike")].cost == {"slots": 1}
    assert opts[("ability", "crushing_blow")].cost == {"slots": 2}
    assert opts[("double_move", None)].cost == {"slots": 3}
    assert opts[("rampart", None)].params == {"on": True}
    assert [3, 2] not in opts[("move", None)].squares and [2, 6] in opts[("move", None)].squares
    assert [2, 7] not in opts[("move", None)].squares  # Movement 4
    assert opts[("end_turn", None)].available
    b.act("double_move", k)
    opts = {(o.kind, o.params.get("ability")): o for o in legal_actions(b.state, k)}
    assert (opts[("ability", "strike")].available, opts[("ability", "strike")].reason) == (
        False,
        "Needs 1 action slot; 0 left.",
    )
    assert opts[("disengage", None)].available  # the first simple action is still free


def test_spell_options_show_their_mp_cost():
    # RULE: ENG-5
    # RULE: MIST-MP-2
    b = Battle("mist", width=10, height=10)
    m = b.add("Mage", "party", (2, 2), controller="8", **HEROES["Mage"])
    b.add("Goblin", "enemy", (4, 2), **MONSTERS["Goblin"])
    b.act("setup.start", dice=[20, 1])
    opts = {o.params.get("ability"): o for o in legal_actions(b.state, m) if o.kind == "ability"}
    assert opts["fire_bolt"].cost == {"slots": 1, "mp": 2} and opts["fire_bolt"].label == "Fire Bolt (2 MP)"
    assert opts["darkness"].cost == {"slots": 0, "mp": 3}  # the first simple action is free
    assert opts["flame_burst"].cost == {"slots": 2, "mp": 5} and [4, 2] in opts["flame_burst"].squares
