"""One vocabulary of action parameters: every action the rulesets offer or accept fits ``ACTION_PARAMS`` or the
parameters its ruleset registers (``Ruleset.params``)."""

from __future__ import annotations

from collections import Counter

import pytest

from combat.engine.actions import ACTION_PARAMS, Action, Refusal, chosen_params, param_problems
from combat.engine.core import legal_actions, replay, resolve, undo_cut
from combat.engine.dice import Dice, ScriptedDice
from combat.engine.gm import GM_ACTIONS, SETUP_ACTIONS
from combat.engine.rulesets import RULESETS
from combat.engine.rulesets.action_block import ActionBlock
from combat.engine.rulesets.luck import Luck
from combat.engine.rulesets.mist import Mist
from combat.engine.rulesets.paradigm import Paradigm
from tests.engine.properties import random_battle
from tests.stored_logs import as_stored, old_log


def test_the_reference_names_every_action_kind_of_every_ruleset():
    kinds = {"end_turn", "answer"} | set(SETUP_ACTIONS) | set(GM_ACTIONS)
    own: set[str] = set()
    for ruleset in RULESETS.values():
        kinds |= set(ruleset.actions)
        own |= set(ruleset.params)
        assert set(ruleset.params) <= set(ruleset.actions), ruleset.key  # parameters of kinds it resolves
        assert set(ruleset.actions) <= set(ACTION_PARAMS) | set(ruleset.params), ruleset.key
    assert set(ACTION_PARAMS) | own == kinds
    # a ruleset's own kind is no other ruleset's: the generic ones are the kinds two or more share
    counts = Counter(
        kind for ruleset in RULESETS.values() for kind in set(ruleset.params) - set(ACTION_PARAMS)
    )
    assert max(counts.values()) == 1, counts


def test_param_problems_names_what_departs_from_the_reference():
    assert param_problems("ability", {"weapon": "sword", "targets": ["c2"], "to": [1, 0]}, Luck.params) == []
    assert param_problems("move", {"to": [1, 2]}) == []
    assert param_problems("ability", {"ability": "weapon:sword", "step": [1, 0]}) == [
        "step: not a parameter of this action"
    ]
    assert param_problems("ability", {"weapon": "sword", "item": "potion"}) == [
        "exactly one of ability, weapon, item"
    ]
    assert param_problems("move", {}) == ["exactly one of to, path"]
    assert param_problems("hold", {"targets": "c2"}, Paradigm.params) == ["targets: 'c2' is not a list"]
    assert param_problems("ability", {"ability": "mend", "target": "c2"}) == [
        "target: not a parameter of this action"
    ]
    assert param_problems("gm.move", {"combatant": "c1", "pos": [1, 1]}) == [
        "pos: not a parameter of this action"
    ]
    assert param_problems("gm.set_hp", {"combatant": "c1", "hp": True}) == ["hp: True is not a whole number"]
    assert param_problems("gm.add_status", {"combatant": "c1"}) == ["status: missing"]
    assert param_problems("teleport", {}) == ["unknown action kind 'teleport'"]
    assert param_problems("hold", {}) == ["unknown action kind 'hold'"]  # Paradigm's own: not generic
    # a ruleset's own kinds say what they require
    assert param_problems("item", {"targets": ["c2"]}, Paradigm.params) == ["item: missing"]
    assert param_problems("swap", {"equip": ""}, Paradigm.params) == ["slot: missing"]
    assert param_problems("cast_spell", {"modifiers": []}, ActionBlock.params) == ["spell: missing"]
    assert param_problems("charisma", {"targets": ["c2"]}, ActionBlock.params) == ["skill: missing"]
    assert param_problems("rampart", {"on": "yes"}, Mist.params) == ["on: 'yes' is not yes or no"]


def test_a_picked_square_is_the_goal_of_a_move_and_the_aim_of_anything_else():
    assert chosen_params("move", {}, square=[2, 3]) == {"to": [2, 3]}
    assert chosen_params("ability", {"ability": "leap"}, square=[2, 3]) == {
        "ability": "leap",
        "square": [2, 3],
    }
    assert chosen_params("attack", {"weapon": "pistol"}, ["c2"]) == {"weapon": "pistol", "targets": ["c2"]}


def _submissions(option):
    """Every way the page can submit ``option``: each target, each square, or as it is."""
    if option.targets:
        return [chosen_params(option.kind, option.params, [t]) for t in option.targets]
    if option.squares:
        return [chosen_params(option.kind, option.params, square=sq) for sq in option.squares]
    return [chosen_params(option.kind, option.params)]


@pytest.mark.parametrize("key", sorted(RULESETS))
def test_every_offered_and_every_accepted_action_fits_the_reference(key):
    offered: set[str] = set()
    accepted: set[str] = set()
    own = RULESETS[key].params
    for seed in range(4):

        def seen(state, action, out):
            assert param_problems(action.kind, action.params, own) == [], (action.kind, action.params)
            if not isinstance(out, Refusal):
                accepted.add(action.kind)
            current = state.current()
            for option in legal_actions(state, current.id) if current is not None else []:
                if not option.available:  # a greyed-out button sends nothing
                    continue
                offered.add(option.kind)
                for params in _submissions(option):
                    assert param_problems(option.kind, params, own) == [], (option.kind, params)

        random_battle(key, seed, seen)
    # the battles went far enough to offer every kind of the ruleset (no battlefield object in the starters)
    assert set(RULESETS[key].actions) - offered <= {"interact"}
    assert accepted - {"answer"} <= offered | set(GM_ACTIONS)


def test_the_log_names_what_was_used_in_words_in_either_form():
    from combat.engine.log import describe

    names = {"c1": "Ash", "c2": "Orc"}
    for data in (
        {"actor": "c1", "weapon": "long_sword", "targets": ["c2"]},
        {"actor": "c1", "ability": "weapon:long_sword", "targets": ["c2"]},  # stored before
    ):
        assert describe(1, "ability.used", data, names, set())["text"] == "Ash uses long sword on Orc."
    for data in ({"actor": "c1", "item": "ether"}, {"actor": "c1", "ability": "item:ether", "item": "ether"}):
        assert describe(1, "ability.used", data, names, set())["text"] == "Ash uses ether."


def test_a_battle_stored_before_the_names_changed_replays_undoes_and_plays_on():
    """The log holds events, never actions: a D20 Luck battle recorded with ``ability: "weapon:sword"``
    and ``step`` (its ability events and the pending parry still name ``weapon:claws``) replays to its
    snapshot, undoes action by action, and goes on with today's names."""
    # RULE: ENG-8
    # RULE: ENG-1
    log, snapshot = old_log()
    state = replay(log)
    assert as_stored(state.to_dict()) == snapshot  # all but the past the replay keeps
    assert state.pending is not None and state.pending.resume["ability"] == "weapon:claws"
    # undo the Orc's attack (a whole action), then Ash's potion, then her sword stroke with its free step
    cut = undo_cut(log)
    assert log[cut].type == "ability.used" and log[cut].data["ability"] == "weapon:claws"
    earlier = replay(log[:cut])
    assert earlier.pending is None and earlier.current().name == "Orc"
    cut = undo_cut(log[:cut])  # the end of Ash's turn
    cut = undo_cut(log[:cut])
    assert log[cut].data["item"] == "healing_potion"
    cut = undo_cut(log[:cut])
    assert log[cut].type == "moved" and log[cut].data.get("free") is True
    # the pending parry is answered, then Ash fights on with today's names
    dice = ScriptedDice([3])
    out = resolve(state, Action("answer", state.pending.combatant, {"choice": "parry"}), dice)
    assert not isinstance(out, Refusal), out
    events, state = out
    assert [e.type for e in events][:2] == ["decision.answered", "interrupt.used"]
    # the claws paused in the old resume data hit under today's name
    dealt = next(e for e in events if e.type == "damage.dealt")
    assert dealt.data["weapon"] == "claws" and "ability" not in dealt.data
    while state.current().name != "Ash":
        events, state = resolve(state, Action("end_turn", state.current().id), Dice(1, state.seq))
    ash, orc = (c.id for c in sorted(state.combatants.values(), key=lambda c: c.name))
    sword = next(o for o in legal_actions(state, ash) if o.params == {"weapon": "sword"})
    assert sword.available and orc in sword.targets
    out = resolve(
        state, Action("ability", ash, chosen_params("ability", sword.params, [orc])), ScriptedDice([12, 5])
    )
    assert not isinstance(out, Refusal), out
    assert out[0][0].data["weapon"] == "sword" and "ability" not in out[0][0].data
    old = resolve(state, Action("ability", ash, {"ability": "weapon:sword", "targets": [orc]}), Dice(1))
    assert old == Refusal("Ash has no such ability.")  # yesterday's page is refused in words, nothing changes
