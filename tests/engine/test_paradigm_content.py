"""Paradigm Rows content as validated data (ENG-10), sheets that name it, and statuses that limit a turn."""

from __future__ import annotations

import pytest

from combat.engine.actions import Refusal
from combat.engine.core import legal_actions, new_battle_event
from combat.engine.rulesets.paradigm import Paradigm
from combat.engine.rulesets.paradigm.content import HEROES, MONSTERS, STARTER, validate_paradigm_content
from combat.engine.testing import Battle
from tests.engine.paradigm_duel import duel


def test_the_starter_pack_and_sample_sheets_are_valid():
    # RULE: ENG-10
    assert validate_paradigm_content(STARTER)[1] == {}
    assert {"jobs", "abilities", "items", "eidolons", "weapons", "accessories", "statuses"} <= set(STARTER)
    b = Battle("paradigm")
    for name, sheet in {**HEROES, **MONSTERS}.items():
        clean, errors = Paradigm.validate_sheet(sheet)
        assert errors == {}, name
        assert Paradigm().check_sheet_content(b.state, clean) is None, name


def test_a_custom_pack_is_checked_field_by_field_and_across_definitions():
    # RULE: ENG-10
    pack = {
        "jobs": {"bard": {"name": "Bard", "abilities": ["song"]}},
        "abilities": {
            "zap": {"name": "Zap", "type": "magical", "dice": "2d"},
            "mend": {"name": "Mend", "type": "heal", "target": "enemy", "dice": "1d4"},
        },
        "objects": {"gate": {"name": "Gate", "ability": "fire"}},
    }
    errors = validate_paradigm_content(pack)[1]
    assert errors == {
        "abilities.zap.dice": ["The roller does not understand “2d”. Say how many faces, like 2d6."],
        "abilities.mend.target": ["Healing and cleansing target allies or self."],
        "jobs.bard.abilities": ["Undefined abilities: song."],
        "objects.gate.ability": ["The effect must hit all enemies, all allies or the user."],
    }
    with pytest.raises(ValueError, match="Invalid content"):
        new_battle_event("paradigm", {}, 1, 4, 4, content=pack)
    assert Paradigm.validate_sheet({"hp": 5, "weapon_damage": "lots"})[1]["weapon_damage"] == [
        "The roller does not understand “lots”. Write dice like 4d6k3, 1d20+5 or 8d6>5."
    ]


def test_sheets_naming_undefined_content_are_refused():
    # RULE: ENG-10
    b = Battle("paradigm")
    out = b.submit("setup.add_combatant", None, None, {"name": "X", "sheet": {"jobs": ["bard"]}})
    assert out == Refusal("Unknown jobs: bard.")
    out = b.submit("setup.add_combatant", None, None, {"name": "X", "sheet": {"eidolon": "bahamut"}})
    assert out == Refusal("Unknown eidolon: bahamut.")
    b.add("Y", job="Black Mage")  # a job written by its name is read as its key
    assert b.c("c1").extra["job"] == "black_mage"


def test_stun_leaves_only_end_turn_and_runs_out_in_the_effect_phase():
    # RULE: ENG-5
    b, a, o, _ = duel()
    b.act("gm.add_status", combatant=a, status="stun", duration=1)
    opts = legal_actions(b.state, a)
    assert [x.kind for x in opts if x.available] == ["end_turn"]
    assert next(x for x in opts if x.kind == "attack").reason == "Stun: can only end the turn."
    assert b.try_act("change_row", a) == Refusal("Stun: can only end the turn.")
    b.act("end_turn", a)
    b.act("end_turn", o)
    assert "stun" not in b.c(a).statuses


def test_cleansing_removes_harmful_statuses_only_and_ether_restores_anima():
    # RULE: PARA-ACT-ITEM
    b, a, o, _ = duel(ash={"items": ["antidote", "ether"]})
    b.act("gm.add_status", combatant=a, status="poison", duration=3)
    b.act("gm.add_status", combatant=a, status="protect", duration=3)
    ev = b.act("item", a, item="antidote", targets=[a])
    assert [e.data["status"] for e in ev if e.type == "status.removed"] == ["poison"]
    assert set(b.c(a).statuses) == {"protect"}
    b.act("item", a, item="ether", targets=[a])  # Anima 0 + 2
    assert b.c(a).resources["anima"] == 2 and b.state.extra["items_used"] == {
        "party": {"antidote": 1, "ether": 1}
    }
