from __future__ import annotations

import pytest

from combat.engine.rulesets import RULESETS, UnknownRuleset, get_ruleset
from combat.engine.schema import Field, SheetSchema


@pytest.mark.parametrize("key", sorted(RULESETS))
def test_default_sheet_of_every_ruleset_is_valid(key):
    ruleset = get_ruleset(key)
    clean, errors = ruleset.validate_sheet(ruleset.sheet_schema.defaults())
    assert errors == {}
    assert clean["hp"] >= 1


@pytest.mark.parametrize("key", sorted(RULESETS))
def test_missing_stats_are_reported_per_field(key):
    ruleset = get_ruleset(key)
    _, errors = ruleset.validate_sheet({})
    assert errors["hp"] == ["This field is required."]


def test_wrong_types_and_negative_maxima_are_refused():
    ruleset = get_ruleset("mist")
    sheet = ruleset.sheet_schema.defaults() | {"hp": "lots", "lp": -1, "heavy_armor": "maybe"}
    _, errors = ruleset.validate_sheet(sheet)
    assert errors == {
        "hp": ["Enter a whole number."],
        "lp": ["Must be at least 1."],
        "heavy_armor": ["Enter yes or no."],
    }


def test_unknown_fields_and_non_objects_are_refused():
    schema = SheetSchema((Field("hp", "HP", min=1),))
    assert schema.validate({"hp": 3, "evil": 1})[1] == {"__all__": ["Unknown fields: evil."]}
    assert schema.validate(["hp"])[1] == {"__all__": ["Expected an object of named values."]}


def test_unknown_ruleset_is_an_error():
    with pytest.raises(UnknownRuleset):
        get_ruleset("chess")


@pytest.mark.parametrize("key", sorted(RULESETS))
def test_options_default_and_validate(key):
    ruleset = get_ruleset(key)
    clean, errors = ruleset.validate_options({})
    assert errors == {}
    assert clean == ruleset.default_options()
    _, errors = ruleset.validate_options({"hide_enemy_hp": "perhaps"})
    assert "hide_enemy_hp" in errors


def test_nul_characters_are_refused_in_text_and_lists():
    schema = SheetSchema((Field("name", "Name", "str"), Field("tags", "Tags", "list", required=False)))
    _, errors = schema.validate({"name": "a\x00b", "tags": ["ok", "b\x00"]})
    assert errors == {
        "name": ["Text may not contain NUL characters."],
        "tags": ["Each entry is text of at most 200 characters, without NUL."],
    }
