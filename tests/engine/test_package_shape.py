"""Every ruleset package has the shape of the table in docs/RULESET_GUIDE.md."""

from __future__ import annotations

import pathlib
import sys

import pytest

from combat.engine.rulesets import RULESETS
from tests.engine.package_shape import SHAPE, read_shape, shape_problems


def test_the_guide_has_the_table_of_modules_and_hooks():
    assert list(SHAPE) == [
        "__init__.py",
        "sheet.py",
        "content.py",
        "rules.py",
        "actions.py",
        "events.py",
        "tactics.py",
    ]
    assert SHAPE["actions.py"] == ("actions", "params", "resume", "legal_actions")
    assert SHAPE["events.py"] == ("events", "appliers")
    assert "on_turn_start" in SHAPE["__init__.py"] and SHAPE["rules.py"] == ()


@pytest.mark.parametrize("key", sorted(RULESETS))
def test_each_package_has_the_shape_of_the_table(key):
    assert shape_problems(RULESETS[key]) == []


def test_the_check_sees_a_package_that_departs_from_the_table():
    # a table that puts the dispatch table in rules.py, and the events in a module the packages lack
    moved = read_shape(
        "| `rules.py` | x | `actions` |\n| `actions.py` | x | `resume` |\n| `words.py` | x | `events` |\n"
    )
    problems = shape_problems(RULESETS["luck"], moved)
    assert "actions: not from rules.py" in problems and "no words.py" in problems
    assert "resume: not from actions.py" not in problems


def test_every_package_has_its_tactics_behind_the_one_interface():
    from combat.engine.tactics import Tactics

    for key, ruleset in RULESETS.items():
        assert (pathlib.Path(str(sys.modules[ruleset.__module__].__file__)).parent / "tactics.py").exists(), (
            key
        )
        assert isinstance(ruleset.tactics, Tactics), key
        assert type(ruleset.tactics).__module__.endswith(".tactics"), key
        assert type(ruleset.tactics).scored is not Tactics.scored, key  # its own judgement
