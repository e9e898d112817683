"""The grid ruleset of docs/RULESET_GUIDE.md, built from the guide's own code blocks, registered, and
run through the shared suites every registered ruleset goes through (``tests/engine/suites.py``).

Nothing outside its package is changed: the test writes the guide's ``grid/`` blocks to a temporary
folder, imports the package and adds it to the registry for the test only.
"""

from __future__ import annotations

import pytest

from combat.engine.rulesets import RULESETS, get_ruleset
from tests.engine.package_shape import shape_problems
from tests.engine.suites import properties_hold, tactics_play_fair
from tests.toy import build_grid_from_the_guide, guide_modules


@pytest.fixture
def grid(monkeypatch, tmp_path):
    ruleset = build_grid_from_the_guide(tmp_path)
    monkeypatch.setitem(RULESETS, ruleset.key, ruleset)
    return ruleset


def test_the_guide_spells_out_a_whole_grid_package(grid):
    assert sorted(path for path, _ in guide_modules("grid")) == [
        "grid/__init__.py",
        "grid/actions.py",
        "grid/content.py",
        "grid/events.py",
        "grid/rules.py",
        "grid/sheet.py",
        "grid/tactics.py",
    ]
    assert get_ruleset("grid") is grid and grid.board == "grid" and set(grid.actions) == {"move", "strike"}
    assert shape_problems(grid) == []  # the guide's table holds for the guide's own example
    for sheet in (*grid.heroes.values(), *grid.monsters.values()):
        assert grid.sheet_schema.validate(sheet)[1] == {}, sheet


@pytest.mark.parametrize("seed", range(4))
def test_the_grid_toy_keeps_the_shared_properties(grid, seed):
    # RULE: ENG-1
    # RULE: ENG-8
    assert properties_hold("grid", seed) > 10


@pytest.mark.parametrize("seed", range(4))
def test_the_grid_toys_tactics_play_fair(grid, seed):
    # RULE: ENG-5
    assert tactics_play_fair("grid", seed) in ("party", "enemy")
