"""Issue 22, point 2: the import checks never refuse a record the table wrote.

``combat.import_check`` refuses forged battle files (tests/web/test_battle_archive.py,
tests/security/test_fuzz.py); every random battle of every ruleset, ended and
exported as the site exports it, passes them and is kept exactly as written.
"""

from __future__ import annotations

import json

import pytest

from combat.engine.actions import Action
from combat.engine.core import replay, resolve
from combat.engine.dice import Dice
from combat.engine.rulesets import RULESETS
from combat.import_check import check_battle_file
from tests.engine.properties import random_battle


@pytest.mark.parametrize("ruleset", sorted(RULESETS))
def test_random_battles_of_every_ruleset_pass_the_import_checks(ruleset):
    """The checks refuse forgeries, never a record the table wrote: random battles, ended, export and import."""
    for seed in range(4):
        log = random_battle(ruleset, seed)
        state = replay(log)
        if state.phase != "ended":
            events, state = resolve(state, Action("gm.end_battle"), Dice(state.seed, state.seq))
            log += events
        data = {
            "format": "vtt-battle",
            "version": 1,
            "name": "Random",
            "ruleset": ruleset,
            "seed": state.seed,
            "events": [e.to_dict() for e in log],
            "final": state.to_dict(),
        }
        checked = check_battle_file(ruleset, json.dumps(data))
        assert not isinstance(checked, str), (seed, checked)
        assert [e.to_dict() for e in checked.events] == data["events"]
