"""The generic engine core: setup, turn order, GM overrides, replay, refusals, views."""

from __future__ import annotations

import json

import pytest

from combat.engine.actions import Action, Refusal
from combat.engine.core import apply, decide, legal_actions, new_battle_event, replay, undo_cut, view_for
from combat.engine.dice import ScriptedDice
from combat.engine.events import Event
from combat.engine.testing import Battle
from combat.engine.view import Viewer


def _duel(options=None):
    b = Battle("luck", options)
    a = b.add("Ash", "party", (0, 0), controller="7", hp=12, initiative=3)
    o = b.add("Orc", "enemy", (3, 0), hp=10, initiative=1)
    b.act("setup.start", dice=[10, 10])  # Ash 13, Orc 11
    return b, a, o


def test_setup_adds_combatants_with_sequential_ids():
    b = Battle("luck")
    assert b.add("Ash", pos=(0, 0)) == "c1"
    assert b.add("Orc", "enemy", (1, 1)) == "c2"
    assert b.c("c2").hp == 20  # sheet default


def test_state_round_trips_through_json():
    # RULE: ENG-1
    b, a, o = _duel()
    snapshot = json.loads(json.dumps(b.state.to_dict()))
    assert type(b.state).from_dict(snapshot).to_dict() == b.state.to_dict()
    assert b.rebuilt().to_dict() == b.state.to_dict()


def test_decide_never_mutates_and_apply_is_pure():
    # RULE: ENG-1
    b, a, o = _duel()
    before = b.state.to_dict()
    events = decide(b.state, Action("end_turn", a), ScriptedDice([]))
    assert b.state.to_dict() == before
    after = b.state
    for e in events:
        after = apply(after, e)
    assert b.state.to_dict() == before
    assert after.current().id == o


def test_wrong_turn_and_unknown_actions_are_refused_and_change_nothing():
    # RULE: ENG-4
    b, a, o = _duel()
    before = b.state.to_dict()
    assert b.try_act("end_turn", o) == Refusal("It is not Orc's turn (it is Ash's).")
    assert b.try_act("fly", a) == Refusal("Unknown action.")
    assert isinstance(Action.from_dict({"kind": "end_turn", "params": "x"}), Refusal)
    assert decide(b.state, {"kind": None}, ScriptedDice([])) == Refusal("Unknown action.")
    assert b.state.to_dict() == before


def test_turns_cycle_and_rounds_advance():
    b, a, o = _duel()
    assert (b.state.round, b.state.current().id) == (1, a)
    b.act("end_turn", a)
    b.act("end_turn", o)
    assert (b.state.round, b.state.current().id) == (2, a)


def test_gm_overrides_are_events():
    # RULE: ENG-7
    b, a, o = _duel()
    ev = b.act("gm.set_hp", combatant=o, hp=4)
    assert [(e.type, e.data["hp"], e.data["by"]) for e in ev] == [("hp.set", 4, "gm")]
    b.act("gm.add_status", combatant=a, status="slow", power=3, duration=2)
    assert b.c(a).statuses["slow"] == {"power": 3, "duration": 2}
    b.act("gm.remove_status", combatant=a, status="slow")
    assert b.c(a).statuses == {}
    b.act("gm.move", combatant=a, to=[1, 1])
    assert b.c(a).pos == [1, 1]
    b.act("gm.set_resource", combatant=a, resource="actions", value=1)
    assert b.c(a).resources["actions"] == 1
    b.act("gm.skip_turn")
    assert b.state.current().id == o
    c3 = b.act("gm.add_combatant", name="Wolf", side="enemy", sheet={"hp": 5}, pos=[5, 5])[0].data[
        "combatant"
    ]["id"]
    assert b.state.order[-1] == c3
    b.act("gm.remove_combatant", combatant=c3)
    assert c3 not in b.state.combatants
    assert b.try_act("gm.set_hp", combatant=o, hp=99) == Refusal("HP must be a whole number from 0 to 10.")
    b.act("gm.end_battle", reason="Truce")
    assert b.state.phase == "ended"
    assert b.state.result == {"winner": None, "reason": "Truce", "by": "gm"}
    assert b.rebuilt().to_dict() == b.state.to_dict()


def test_undo_is_a_replay_of_the_shorter_log():
    # RULE: ENG-8
    b, a, o = _duel()
    mark = b.state.to_dict()
    n = len(b.log)
    b.act("gm.set_hp", combatant=o, hp=4)
    b.act("gm.move", combatant=a, to=[2, 2])
    assert len(b.log) == n + 2
    undone_once = replay(b.log[:-1])
    assert undone_once.combatants[a].pos == [0, 0]
    assert undone_once.combatants[o].hp == 4
    undone_twice = replay(b.log[:-2])
    assert undone_twice.to_dict() == mark


def test_victory_when_one_side_cannot_act_and_gm_end():
    # RULE: ENG-9
    b, a, o = _duel()
    ev = b.act("gm.set_hp", combatant=o, hp=0)
    assert b.types(ev) == ["hp.set", "battle.ended"]
    assert b.state.result == {
        "winner": "party",
        "reason": "Only the party side can still act.",
        "by": "rules",
    }
    assert b.try_act("end_turn", a) == Refusal("The battle is over.")


def test_replay_needs_battle_created_and_events_round_trip():
    # RULE: ENG-1
    with pytest.raises(ValueError):
        replay([Event("round.started", {"round": 1})])
    b, a, o = _duel()
    dumped = json.loads(json.dumps([e.to_dict() for e in b.log]))
    assert replay(dumped).to_dict() == b.state.to_dict()


def test_bad_battle_definitions_raise_clear_errors():
    with pytest.raises(ValueError, match="Unknown ruleset"):
        new_battle_event("chess", {}, 1, 5, 5)
    with pytest.raises(ValueError, match="Board size"):
        new_battle_event("luck", {}, 1, 0, 5)
    with pytest.raises(ValueError, match="hide_enemy_hp"):
        new_battle_event("luck", {"hide_enemy_hp": "perhaps"}, 1, 5, 5)


def test_legal_actions_only_for_current_actor():
    # RULE: ENG-5
    b, a, o = _duel()
    assert legal_actions(b.state, o) == []
    kinds = [opt.kind for opt in legal_actions(b.state, a)]
    assert "end_turn" in kinds


def test_view_hides_enemy_hp_from_players_only():
    b, a, o = _duel()
    b.act("gm.set_hp", combatant=o, hp=5)
    player = view_for(b.state, Viewer("player", "7"))
    assert player["combatants"][o]["hp"] is None
    # Hidden HP is a coarse state and that state's fixed bar, never the exact ratio (5 of 10 would be 50%).
    assert player["combatants"][o]["hp_bucket"] == "wounded"
    assert player["combatants"][o]["hp_ratio"] == 0.75
    assert "sheet" not in player["combatants"][o]
    assert player["combatants"][a]["hp"] == 12 and player["combatants"][a]["mine"]
    gm = view_for(b.state, Viewer("gm"))
    assert gm["combatants"][o]["hp"] == 5
    shown = Battle("luck", {"hide_enemy_hp": False})
    shown.add("Ash", pos=(0, 0), controller="7")
    o2 = shown.add("Orc", "enemy", (1, 0), hp=8)
    shown.act("setup.start", dice=[10, 3])
    assert view_for(shown.state, Viewer("player", "7"))["combatants"][o2]["hp"] == 8
    json.dumps(gm)


def test_pending_prompt_and_log_numbers_are_shown_only_to_whom_they_concern():
    from combat.engine.view import event_for
    from tests.engine.luck_duel import duel

    b, a, o, _ = duel()
    b.act("end_turn", a)
    ev = b.act("ability", o, dice=[10, 3, 4], weapon="claws", targets=[a])
    mine = view_for(b.state, Viewer("player", "7"))["pending"]
    assert mine["mine"] and [x["key"] for x in mine["options"]] == ["parry", "pass"] and "resume" not in mine
    other = view_for(b.state, Viewer("player", "8"))["pending"]
    assert other["options"] == [] and other["prompt"] == "Waiting for a reaction."
    assert view_for(b.state, Viewer("gm"))["pending"]["resume"]["raw"] == 8
    opened = next(e for e in ev if e.type == "decision.opened")
    assert "resume" not in event_for(opened, b.state, Viewer("player", "7"))["data"]["decision"]
    ev = b.act("answer", a, dice=[1], choice="parry")
    b.act("end_turn", o)
    hit = b.act("ability", a, dice=[12, 5], weapon="sword", targets=[o])
    dealt = next(e for e in hit if e.type == "damage.dealt")
    assert "hp" not in event_for(dealt, b.state, Viewer("player", "7"))["data"]
    assert event_for(dealt, b.state, Viewer("gm"))["data"]["hp"] == 20 - 4
    luck = next(e for e in hit if e.type == "luck.rolled")
    assert event_for(luck, b.state, Viewer("observer"))["data"]["rolls"][0]["faces"] == [12]


def test_undo_can_drop_a_whole_action():
    # RULE: ENG-8
    b, a, o = _duel()
    before = b.state.to_dict()
    ev = b.act("end_turn", a)
    assert b.types(ev) == ["turn.ended", "turn.started", "resources.set"] and ev[0].data["act"] == "end_turn"
    cut = undo_cut(b.log)
    assert cut == len(b.log) - 3
    assert replay(b.log[:cut]).to_dict() == before
    assert undo_cut(b.log[:1]) == 1


def test_setup_place_and_remove():
    b = Battle("luck", blocked=[[2, 2]])
    a = b.add("Ash")
    o = b.add("Orc", "enemy", (1, 1))
    assert b.try_act("setup.place", combatant=a, pos=[2, 2]) == Refusal("That square is blocked.")
    assert b.try_act("setup.place", combatant=a, pos=[1, 1]) == Refusal("Orc already stands there.")
    b.act("setup.place", combatant=a, pos=[0, 1])
    assert b.c(a).pos == [0, 1]
    b.act("setup.remove_combatant", combatant=o)
    assert list(b.state.combatants) == [a]
    assert b.add("Wolf", "enemy", (5, 5)) == "c3"  # ids are never reused
    assert b.rebuilt().to_dict() == b.state.to_dict()


def test_removing_the_current_combatant_passes_the_turn():
    # RULE: ENG-7
    b = Battle("luck")
    a = b.add("Ash", pos=(0, 0), initiative=9)
    o = b.add("Orc", "enemy", (3, 0))
    w = b.add("Wolf", "enemy", (4, 0))
    b.act("setup.start", dice=[10, 5, 1])
    assert b.state.order == [a, o, w]
    b.act("end_turn", a)
    b.act("gm.remove_combatant", combatant=o)
    assert b.state.current().id == w and b.state.order == [a, w]
    b.act("gm.remove_combatant", combatant=w)
    assert b.state.phase == "ended" and b.state.result["winner"] == "party"


def test_refusals_carry_a_code_for_callers():
    # RULE: ENG-4
    from combat.engine.actions import Action, RefusalCode

    b = Battle("luck", width=12, height=4)
    a = b.add("Ayla", "party", pos=(0, 0), hp=10, weapons=["bow"])
    g = b.add("Goblin", "enemy", pos=(11, 3), kind="monster", hp=10)
    b.act("setup.start", dice=[15, 3])
    assert b.state.current().id == a
    assert b.try_act("end_turn", g).code == RefusalCode.NOT_YOUR_TURN
    assert b.try_act("frobnicate", a).code == RefusalCode.BAD_INPUT
    assert Action.from_dict({"kind": "end_turn", "params": []}).code == RefusalCode.BAD_INPUT
    b.act("move", a, to=[1, 1])
    far = b.try_act("ability", a, weapon="bow", targets=[g])
    assert far.code == RefusalCode.OUT_OF_RANGE
    assert b.try_act("ability", a, weapon="bow", targets=[g]) == far  # equal by their words


def test_options_carry_the_board_geometry():
    # RULE: ENG-5
    from combat.engine.rulesets.luck import HEROES

    b = Battle("luck", width=8, height=6, blocked=[[1, 0], [1, 1]])
    a = b.add("Mira", "party", pos=(0, 0), **HEROES["Mage"])
    b.add("Goblin", "enemy", pos=(4, 3), kind="monster", hp=10)
    b.act("setup.start", dice=[15, 3])
    opts = {o.label: o for o in b.options(a)}
    move = opts["Move"]
    assert sorted(move.paths) == sorted(f"{x},{y}" for x, y in move.squares)
    for key, path in move.paths.items():
        assert path[0] == [0, 0] and path[-1] == [int(n) for n in key.split(",")]
        assert len(path) - 1 <= 5 and not any(sq in ([1, 0], [1, 1]) for sq in path)
    assert len(move.paths["2,0"]) - 1 == 4  # 4 steps around the wall: (0,1) -> (1,2) -> (2,1) -> (2,0)
    burst = next(o for o in opts.values() if o.params.get("ability") == "flame_burst")
    assert burst.areas and sorted(burst.areas) == sorted(f"{x},{y}" for x, y in burst.squares)
    for key, cells in burst.areas.items():
        x, y = (int(n) for n in key.split(","))
        assert [x, y] in cells and all(max(abs(cx - x), abs(cy - y)) <= 1 for cx, cy in cells)
        assert any(c == [4, 3] for c in cells)  # every offered centre catches the goblin
    assert move.to_dict()["paths"] == move.paths and "areas" not in move.to_dict()
    assert burst.to_dict()["areas"] == burst.areas
