"""Every registered ruleset goes through the shared suites (``tests/engine/suites.py``).

The keys come from the registry at collection: a ruleset added to ``combat/engine/rulesets/__init__.py``
is in every test here at the next run, with no edit (docs/RULESET_GUIDE.md).
"""

from __future__ import annotations

import pytest

from combat.engine.rulesets import RULESETS
from tests.engine.suites import properties_hold, tactics_play_fair

KEYS = sorted(RULESETS)
SEEDS = range(4)


@pytest.mark.parametrize("key", KEYS)
def test_random_battles_keep_the_invariants_replay_and_undo(key, tally):
    # RULE: ENG-1
    # RULE: ENG-4
    # RULE: ENG-7
    # RULE: ENG-8
    for seed in SEEDS:
        tally["events"] += properties_hold(key, seed)
    assert tally["events"] > 10 * len(SEEDS)  # the battles were played, not just set up


@pytest.mark.parametrize("key", KEYS)
def test_the_tactics_take_offered_options_end_the_fight_and_repeat_under_a_seed(key, tally):
    # RULE: ENG-5
    # RULE: ENG-9
    for seed in SEEDS:
        tally[f"won by {tactics_play_fair(key, seed)}"] += 1
    assert sum(tally.values()) == len(SEEDS)
