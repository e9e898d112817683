"""Every registered ruleset, and the grid ruleset of docs/RULESET_GUIDE.md built from its code blocks,
plays a battle through the pages (``tests/web/ruleset_pages.py``). The keys come from the registry at
collection: a new ruleset is covered at the next run with no edit."""

from __future__ import annotations

import pytest

from combat.engine.rulesets import RULESETS
from tests.toy import build_grid_from_the_guide
from tests.web.ruleset_pages import a_battle_through_the_pages

pytestmark = pytest.mark.django_db
GUIDE_GRID = "grid (docs/RULESET_GUIDE.md)"


@pytest.mark.parametrize("key", [*sorted(RULESETS), GUIDE_GRID])
def test_a_battle_of_each_ruleset_is_played_through_the_pages(client, gm, player, key, monkeypatch, tmp_path):
    # RULE: ENG-5
    if key == GUIDE_GRID:
        grid = build_grid_from_the_guide(tmp_path)
        monkeypatch.setitem(RULESETS, grid.key, grid)
        key = grid.key
    assert a_battle_through_the_pages(client, gm, player, key) > 0
