"""The toy ruleset of docs/RULESET_GUIDE.md, built from the guide's code: the core runs it unchanged.

It has rows instead of a grid, a per-turn AP pool that ends the turn when spent,
a reaction window opened by a round-end hook (like a phase where players choose),
and a defensive reaction declared before the attack roll (like a dodge).
"""

from __future__ import annotations

import pytest

from combat.engine.actions import Refusal
from combat.engine.rulesets import RULESETS, event_type
from combat.engine.rulesets.base import Ruleset
from combat.engine.testing import Battle
from tests.engine.package_shape import shape_problems
from tests.toy import GUIDE, build_toy_from_the_guide, guide_modules


def test_the_guide_builds_a_ruleset_of_the_same_shape(tmp_path):
    assert sorted(name for name, _ in guide_modules()) == [
        "toy/__init__.py",
        "toy/actions.py",
        "toy/content.py",
        "toy/events.py",
        "toy/rules.py",
        "toy/sheet.py",
        "toy/tactics.py",
    ]
    toy = build_toy_from_the_guide(tmp_path)
    assert issubclass(toy, Ruleset) and toy.key == "toy" and toy.board == "rows"
    assert all(callable(fn) for fn in toy.actions.values()) and set(toy.actions) == {"hit", "shift", "brood"}
    assert set(toy.params) == set(toy.actions)  # its action kinds are its own
    assert shape_problems(toy) == []  # the table of the guide holds for the guide's own example
    assert "        toy.Toy," in GUIDE.read_text()  # step 6: one line in the registry


@pytest.fixture
def toy(monkeypatch, tmp_path):
    monkeypatch.setitem(RULESETS, "toy", build_toy_from_the_guide(tmp_path))
    b = Battle("toy")
    p = b.add("Pia", "party", controller="3", row="back")
    q = b.add("Quo", "enemy", row="front", kind="monster")
    b.act("setup.start")
    return b, p, q


def test_a_new_ruleset_plugs_in_without_touching_the_core(toy):
    # RULE: ENG-6
    b, p, q = toy
    assert b.state.order == [q, p] and b.c(p).row == "back"
    b.act("shift", q)
    ev = b.act("shift", q)  # AP spent: the ruleset ends the turn itself
    assert "turn.ended" in b.types(ev) and b.state.current().id == p
    ev = b.act("hit", p, dice=[5, 4], targets=[q])  # the monster dodges by policy: 9 >= 8 still hits
    assert b.types(ev)[:3] == ["attack.declared", "decision.opened", "decision.answered"]
    assert b.c(q).hp == 7


def test_a_new_ruleset_brings_its_own_event_and_its_sentence(toy):
    # RULE: ENG-2
    from combat.engine.events import event_problems
    from combat.engine.log import describe

    b, p, q = toy
    b.act("end_turn", q)
    ev = b.act("hit", p, dice=[2, 2], targets=[q])  # dodged: 4 < 8
    missed = ev[-1]
    assert missed.type == "attack.missed" and event_problems(missed, RULESETS["toy"].events) == []
    assert event_type("attack.missed") is RULESETS["toy"].events["attack.missed"]
    names = {c.id: c.name for c in b.state.combatants.values()}
    assert describe(9, missed.type, missed.data, names, set())["text"] == "Quo ducks under Pia's blow."


def test_a_hook_may_pause_the_round_flow_for_a_decision(toy):
    # RULE: ENG-6
    b, p, q = toy
    b.act("end_turn", q)
    ev = b.act("end_turn", p)  # end of round: the hook asks Pia (a player) whether to advance
    assert b.types(ev)[-2:] == ["decision.opened", "battle.extra"]
    assert b.state.pending.prompt == "Advance to the front row?" and b.state.round == 1
    assert b.try_act("end_turn", p).reason.startswith("Waiting for Pia to answer")
    ev = b.act("answer", p, choice="yes")
    assert b.types(ev) == [
        "decision.answered",
        "row.changed",
        "battle.extra",
        "round.ended",
        "round.started",
        "turn.started",
        "resources.set",
    ]
    assert b.c(p).row == "front"
    assert (b.state.round, b.state.current().id, b.state.extra["flow"]) == (2, q, None)
    assert b.rebuilt().to_dict() == b.state.to_dict()


def test_a_player_reaction_before_the_roll(toy):
    # RULE: ENG-6
    b, p, q = toy
    b.act("end_turn", q)
    b.act("hit", p, dice=[2, 2], targets=[q])  # monster dodged: 4 < 8 misses
    assert b.c(q).hp == 10
    b.act("end_turn", p)
    b.act("answer", p, choice="no")
    b.act("hit", q, targets=[p])
    assert b.state.pending.controller == "3"
    b.act("answer", p, dice=[2, 2], choice="take")  # 4 >= 4 hits
    assert b.c(p).hp == 7


def test_a_gm_only_prompt_is_answered_by_the_gm_alone(toy):
    # RULE: ENG-6
    from combat.engine.core import legal_actions, view_for
    from combat.engine.view import Viewer

    b, p, q = toy
    b.act("end_turn", q)
    b.act("brood", p, dice=[17])
    assert b.state.pending.gm_only and b.state.pending.controller is None
    assert legal_actions(b.state, p) == []
    assert view_for(b.state, Viewer("player", "3"))["pending"]["options"] == []
    assert b.try_act("answer", p, choice="panic") == Refusal("Only the GM answers this.")
    ev = b.act("answer", None, choice="panic")
    assert ev[0].data["by"] == "gm" and b.state.pending is None


def test_the_guide_s_tactics_play_its_toy_through_the_shared_frame(toy):
    # RULE: ENG-5
    from combat.engine.tactics import tactics_for

    b, p, q = toy
    choice = tactics_for(b.state).choose(b.state)
    assert choice.action.kind == "hit" and choice.action.params == {"targets": [p]}
    assert choice.reason == "Quo hits Pia: Pia is in reach."
