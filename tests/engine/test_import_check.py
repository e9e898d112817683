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


def test_forged_bonuses_and_totals_checks_keep_an_ability_used_after_its_free_step():
    """An action's rolls are made again from the rules: an ability whose target is in reach only after
    the step it allows (LUCK-ACT-3) is rebuilt with that step, and a bonus forged into it is named."""
    # RULE: LUCK-ACT-3
    from combat.engine.core import new_battle_event
    from combat.engine.events import Event
    from combat.engine.rulesets.luck import HEROES, MONSTERS
    from combat.import_rolls import rolls_problem

    log = [new_battle_event("luck", {}, 11, 8, 4)]
    state = replay(log)
    for name, side, sheet, pos in (
        ("Ayla", "party", HEROES["Fighter"], [0, 0]),
        ("Gob", "enemy", MONSTERS["Goblin Skirmisher"], [2, 0]),
    ):
        params = {"name": name, "side": side, "kind": "pc" if side == "party" else "monster", "sheet": sheet}
        events, state = resolve(
            state, Action("setup.add_combatant", None, {**params, "pos": pos}), Dice(11, state.seq)
        )
        log += events
    events, state = resolve(state, Action("setup.start"), Dice(11, state.seq))
    log += events
    ayla = next(c for c in state.combatants.values() if c.name == "Ayla")
    gob = next(c for c in state.combatants.values() if c.name == "Gob")
    if state.current().id != ayla.id:
        events, state = resolve(state, Action("end_turn", gob.id), Dice(11, state.seq))
        log += events
    blow = Action("ability", ayla.id, {"weapon": "sword", "targets": [gob.id], "to": [1, 0]})
    events, state = resolve(state, blow, Dice(11, state.seq))
    log += events
    assert [e.type for e in events][:2] == ["moved", "ability.used"]
    copied = [Event(e.type, json.loads(json.dumps(e.data))) for e in log]
    assert rolls_problem(copied, 11) is None
    luck = next(e for e in copied if e.type == "luck.rolled" and e.data["actor"] == ayla.id)
    luck.data["rolls"][0]["adds"] = [{"value": 40, "from": "Forged blessing"}]
    luck.data["rolls"][0]["result"] = luck.data["rolls"][0]["total"] + 40
    problem = rolls_problem(copied, 11)
    assert problem is not None and "(luck.rolled): rolls[0].adds is not what" in problem
