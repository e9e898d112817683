"""D20 Luck rules with worked numbers (scripted dice). Each test names its rule."""

from __future__ import annotations

from combat.engine.actions import Refusal
from combat.engine.core import legal_actions
from combat.engine.testing import Battle
from tests.engine.luck_duel import ASH, ORC, duel

# --- initiative ----------------------------------------------------------------------------


def test_initiative_is_d20_plus_score_highest_first():
    # RULE: LUCK-INIT-1
    b = Battle("luck")
    a = b.add("Ash", pos=(0, 0), initiative=3)
    o = b.add("Orc", "enemy", (1, 0), initiative=1)
    ev = b.act("setup.start", dice=[10, 15])
    rolled = [
        (e.data["combatant"], e.data["total"], e.rolls[0]["faces"])
        for e in ev
        if e.type == "initiative.rolled"
    ]
    assert rolled == [(a, 13, [10]), (o, 16, [15])]
    assert b.state.order == [o, a]
    assert b.state.current().id == o


def test_initiative_ties_go_to_higher_bonus_then_roll_off():
    # RULE: LUCK-INIT-2
    b = Battle("luck")
    a = b.add("Ash", pos=(0, 0), initiative=3)
    o = b.add("Orc", "enemy", (1, 0), initiative=1)
    b.act("setup.start", dice=[10, 12])  # 13 and 13: Ash's bonus 3 beats 1
    assert b.state.order == [a, o]
    b = Battle("luck")
    a = b.add("Ash", pos=(0, 0), initiative=2)
    o = b.add("Orc", "enemy", (1, 0), initiative=2)
    ev = b.act("setup.start", dice=[10, 10, 7, 7, 3, 12])  # tie, roll-off tie 7-7, then 3 vs 12
    assert [e.data["total"] for e in ev if e.type == "initiative.rolloff"] == [7, 7, 3, 12]
    assert b.state.order == [o, a]


# --- actions ----------------------------------------------------------------------------------


def test_two_standard_actions_per_turn():
    # RULE: LUCK-ACT-1
    b, a, o, _ = duel()
    assert b.c(a).resources["actions"] == 2
    b.act("move", a, to=[0, 3])
    b.act("move", a, to=[0, 5])
    assert b.c(a).resources["actions"] == 0
    assert b.try_act("move", a, to=[0, 6]) == Refusal("No actions left.")
    move = next(o for o in legal_actions(b.state, a) if o.kind == "move")
    assert (move.available, move.reason) == (False, "No actions left.")
    b.act("end_turn", a)
    b.act("end_turn", o)
    assert b.c(a).resources["actions"] == 2


def test_move_up_to_five_squares_costs_one_action():
    # RULE: LUCK-ACT-2
    b, a, o, _ = duel()
    ev = b.act("move", a, to=[5, 5])
    assert ev[0].type == "moved" and ev[0].data["spend"] == {"actions": 1}
    assert len(ev[0].data["path"]) == 6 and b.c(a).pos == [5, 5]
    assert b.c(a).resources["actions"] == 1
    assert b.try_act("move", a, to=[5, 11]) == Refusal("That square is not on the board.")
    assert b.try_act("move", a, path=[[5, 6], [5, 7], [6, 7], [7, 7], [8, 7], [9, 7]]) == Refusal(
        "Too far: 6 squares, at most 5."
    )
    assert b.try_act("move", a, to=[1, 0]) == Refusal("No path of at most 5 squares to there.")


def test_an_ability_may_include_a_one_square_step():
    # RULE: LUCK-ACT-3
    b, a, o, _ = duel(orc_pos=(2, 0))
    assert b.try_act("ability", a, weapon="sword", targets=[o]) == Refusal("Orc is out of range.")
    ev = b.act("ability", a, dice=[12, 5], weapon="sword", targets=[o], to=[1, 1])
    assert ev[0].type == "moved" and ev[0].data["free"] and b.c(a).pos == [1, 1]
    assert b.c(a).resources["actions"] == 1  # the step cost nothing more
    assert b.try_act("ability", a, weapon="sword", targets=[o], to=[3, 3]) == Refusal(
        "The free step must go to a free neighbouring square."
    )


def test_interrupt_once_per_own_turn_cycle_as_a_reaction_window():
    # RULE: LUCK-ACT-4
    # RULE: ENG-6
    b, a, o, _ = duel()
    b.act("end_turn", a)
    ev = b.act("ability", o, dice=[10, 3, 4], weapon="claws", targets=[a])  # 3+4+1 = 8 raw
    assert ev[-1].type == "decision.opened"
    d = b.state.pending
    assert (d.combatant, d.controller, d.default) == (a, "7", "parry")
    assert d.choice_keys() == ["parry", "pass"]
    assert b.try_act("end_turn", o).reason.startswith("Waiting for Ash to answer")
    assert b.try_act("answer", o, decision=d.id, choice="parry") == Refusal(
        "This question is not addressed to that combatant."
    )
    assert [x.kind for x in legal_actions(b.state, a)] == ["answer", "answer"]
    ev = b.act("answer", a, dice=[5], decision=d.id, choice="parry")  # 5+1 = 6 parried
    dealt = next(e for e in ev if e.type == "damage.dealt").data
    assert (dealt["raw"], dealt["reduced"], dealt["defense"], dealt["amount"]) == (8, 6, 1, 1)
    assert b.c(a).hp == 19 and b.c(a).resources["interrupt"] == 0
    ev = b.act("ability", o, dice=[10, 3, 4], weapon="claws", targets=[a])  # no second interrupt
    assert b.state.pending is None and b.c(a).hp == 19 - 7
    b.act("end_turn", o)
    assert b.c(a).resources["interrupt"] == 1  # a new cycle starts with Ash's own turn


def test_interrupt_option_per_round_and_npc_default_policy():
    # RULE: LUCK-ACT-4
    # RULE: ENG-6
    orc = dict(ORC, abilities=["recover", "parry"])
    b, a, o, _ = duel({"interrupt_window": "round"}, orc=orc)
    ev = b.act("ability", a, dice=[12, 6, 3], weapon="sword", targets=[o])  # raw 7, parry 3+1
    types = b.types(ev)
    assert types[types.index("decision.opened") + 1] == "decision.answered"
    answered = next(e for e in ev if e.type == "decision.answered").data
    assert (answered["choice"], answered["by"]) == ("parry", "policy")
    assert next(e for e in ev if e.type == "damage.dealt").data["amount"] == 7 - 4 - 2
    b.act("end_turn", a)
    assert b.c(o).resources["interrupt"] == 0  # own turn does not reset it under the round option
    b.act("end_turn", o)
    assert b.c(o).resources["interrupt"] == 1  # round 2 started
    asked = Battle("luck", {"npc_reactions": "ask"})
    a2 = asked.add("Ash", "party", (0, 0), controller="7", **ASH)
    o2 = asked.add("Orc", "enemy", (1, 0), **orc)
    asked.act("setup.start", dice=[15, 1])
    asked.act("ability", a2, dice=[12, 6], weapon="sword", targets=[o2])
    assert asked.state.pending.controller is None  # the GM answers for the orc
    ev = asked.act("answer", None, choice="pass")
    assert next(e for e in ev if e.type == "damage.dealt").data["amount"] == 7 - 2


def test_free_actions_cost_neither_standard_nor_interrupt_actions():
    # RULE: LUCK-ACT-5
    content = {
        "abilities": {
            "taunt": {
                "name": "Taunt",
                "type": "status",
                "status": "slow",
                "cost": 0,
                "range": 3,
                "dice": "1d4",
                "defense": "resist",
            }
        }
    }
    b, a, o, _ = duel(ash=dict(ASH, abilities=["taunt"]), content=content)
    for _ in range(3):
        b.act("ability", a, dice=[12, 1], ability="taunt", targets=[o])
    assert b.c(a).resources == {"actions": 2, "interrupt": 1}


# --- luck roll ------------------------------------------------------------------------------------


def test_luck_roll_is_a_d20_plus_granted_bonus_against_hostile_targets():
    # RULE: LUCK-HIT-1
    b, a, o, _ = duel(ash=dict(ASH, luck_bonus=1))
    ev = b.act("ability", a, dice=[5, 4], weapon="sword", targets=[o])  # 5 + 1 = 6: a hit
    luck = next(e for e in ev if e.type == "luck.rolled")
    assert (luck.data["roll"], luck.data["bonus"], luck.data["total"], luck.data["outcome"]) == (
        5,
        1,
        6,
        "hit",
    )
    assert luck.rolls == [
        {
            "expr": "1d20",
            "faces": [5],
            "total": 5,
            "purpose": "luck roll",
            "adds": [{"value": 1, "from": "Luck bonus"}],
            "result": 6,
        }
    ]


def test_friendly_targets_are_hit_automatically():
    # RULE: LUCK-HIT-2
    b, a, o, bo = duel(ally=True)
    b.act("gm.set_hp", combatant=bo, hp=5)
    ev = b.act("ability", a, dice=[1, 1], ability="mend", targets=[bo])  # only the 2d4 heal is rolled
    luck = next(e for e in ev if e.type == "luck.rolled").data
    assert luck["auto"] and luck["outcome"] == "hit" and "rolls" not in luck
    assert b.c(bo).hp == 5 + 1 + 1 + 2


def test_miss_hit_and_crit_ranges_and_widened_ranges():
    # RULE: LUCK-HIT-3
    outcomes = {}
    for face in (1, 5, 6, 19, 20):
        b, a, o, _ = duel()
        dice = [face] if face <= 5 else [face, 1] if face < 20 else [face, 1, 1]
        ev = b.act("ability", a, dice=dice, weapon="sword", targets=[o])
        outcomes[face] = next(e for e in ev if e.type == "luck.rolled").data["outcome"]
    assert outcomes == {1: "miss", 5: "miss", 6: "hit", 19: "hit", 20: "crit"}
    content = {
        "abilities": {
            "wild_swing": {
                "name": "Wild Swing",
                "type": "physical",
                "dice": "1d8",
                "melee": True,
                "miss_max": 7,
                "crit_min": 18,
            }
        }
    }
    b, a, o, _ = duel(ash=dict(ASH, abilities=["wild_swing"]), content=content)
    ev = b.act("ability", a, dice=[7], ability="wild_swing", targets=[o])
    assert b.types(ev)[-1] == "ability.missed"
    ev = b.act("ability", a, dice=[18, 3, 3], ability="wild_swing", targets=[o])
    assert next(e for e in ev if e.type == "luck.rolled").data["outcome"] == "crit"


# --- damage ---------------------------------------------------------------------------------------------


def test_crit_rolls_dice_and_adds_bonus_crit_damage_times():
    # RULE: LUCK-CRIT-1
    b, a, o, _ = duel()
    ev = b.act("ability", a, dice=[20, 4, 6], weapon="sword", targets=[o])  # (4+1) + (6+1) = 12
    rolled = next(e for e in ev if e.type == "damage.rolled").data
    assert (rolled["raw"], rolled["crit"], rolled["times"]) == (12, True, 2)
    assert b.c(o).hp == 20 - (12 - 2)
    b, a, o, _ = duel(ash=dict(ASH, crit_damage=3))
    b.act("ability", a, dice=[20, 1, 2, 3], weapon="sword", targets=[o])  # 2 + 3 + 4 = 9
    assert b.c(o).hp == 20 - (9 - 2)


def test_healing_and_statuses_never_crit():
    # RULE: LUCK-CRIT-2
    b, a, o, _ = duel()
    ev = b.act("ability", a, dice=[20, 6], ability="stunning_blow", targets=[o])  # one 1d8: 6 + 2 - armor 2
    assert b.c(o).statuses["stun"]["power"] == 6
    assert [r["purpose"] for e in ev for r in e.rolls] == ["luck roll", "status"]
    b.act("gm.set_hp", combatant=a, hp=5)
    ev = b.act("ability", a, dice=[2, 3], ability="mend", targets=[a])
    assert b.c(a).hp == 5 + 2 + 3 + 2
    assert not any(e.data.get("crit") for e in ev)


def test_physical_damage_minus_armor_only_positive():
    # RULE: LUCK-DMG-1
    b, a, o, _ = duel()
    ev = b.act("ability", a, dice=[12, 6], weapon="sword", targets=[o])  # 6+1 = 7 - armor 2
    assert next(e for e in ev if e.type == "damage.dealt").data["amount"] == 5
    ev = b.act("ability", a, dice=[12, 1], weapon="sword", targets=[o])  # 1+1 = 2 - armor 2 = 0
    assert next(e for e in ev if e.type == "damage.dealt").data["amount"] == 0
    assert b.c(o).hp == 15


def test_magical_damage_minus_resist():
    # RULE: LUCK-DMG-2
    b, a, o, _ = duel(orc=dict(ORC, armor=9, resist=3))
    b.act("ability", a, dice=[12, 3, 4], ability="fire_bolt", targets=[o])  # 7 - resist 3
    assert b.c(o).hp == 16


def test_healing_is_not_reduced_by_defenses_and_caps_at_max():
    # RULE: LUCK-HEAL-1
    b, a, o, _ = duel(ash=dict(ASH, armor=5, resist=5))
    b.act("gm.set_hp", combatant=a, hp=4)
    ev = b.act("ability", a, dice=[3, 4], ability="mend", targets=[a])
    assert next(e for e in ev if e.type == "healed").data["amount"] == 9
    assert b.c(a).hp == 13
    b.act("ability", a, dice=[4, 4], item="healing_potion", targets=[a])
    assert b.c(a).hp == 20  # 13 + 10 capped at max
    assert b.try_act("end_turn", a) and b.c(a).extra["items_used"] == {"healing_potion": 1}


# --- statuses ---------------------------------------------------------------------------------------------------


def test_status_applies_on_positive_difference_with_that_power():
    # RULE: LUCK-STAT-1
    b, a, o, _ = duel(orc=dict(ORC, armor=3))
    ev = b.act(
        "ability", a, dice=[12, 1], ability="stunning_blow", targets=[o]
    )  # 1+2 - armor 3 = 0: resisted
    assert b.types(ev)[-1] == "status.resisted" and b.c(o).statuses == {}
    b.act("ability", a, dice=[12, 5], ability="stunning_blow", targets=[o])  # 5+2 - 3 = 4
    assert b.c(o).statuses["stun"] == {"power": 4, "duration": 1, "by": a, "value": 7, "defense": 3}
    b, a, o, _ = duel({"status_power": "roll"})
    b.act("ability", a, dice=[12, 5], ability="stunning_blow", targets=[o])
    assert b.c(o).statuses["stun"]["power"] == 7


def test_statuses_expire_after_their_duration():
    # RULE: LUCK-STAT-2
    b, a, o, _ = duel()
    b.act("ability", a, dice=[12, 5], ability="frost_snare", targets=[o])  # 5+1 - resist 2 = 4, 2 turns
    assert b.c(o).statuses["slow"]["duration"] == 2
    b.act("end_turn", a)
    b.act("end_turn", o)
    assert b.c(o).statuses["slow"]["duration"] == 1
    b.act("end_turn", a)
    ev = b.act("end_turn", o)
    assert ("status.removed", "expired") in [(e.type, e.data.get("reason")) for e in ev]
    assert b.c(o).statuses == {}


def test_recover_rolls_d20_against_power():
    # RULE: LUCK-STAT-3
    b, a, o, _ = duel()
    b.act("gm.add_status", combatant=a, status="stun", power=6, duration=3)
    ev = b.act("ability", a, dice=[5], ability="recover", status="stun")
    assert b.types(ev)[-1] == "recover.failed" and "stun" in b.c(a).statuses
    b.act("ability", a, dice=[6], ability="recover", status="stun")
    assert b.c(a).statuses == {}
    b, a, o, _ = duel({"recover_rule": "automatic"})
    b.act("gm.add_status", combatant=a, status="stun", power=19, duration=3)
    b.act("ability", a, ability="recover", status="stun")
    assert b.c(a).statuses == {}


def test_a_status_does_not_stack_with_itself():
    # RULE: LUCK-STAT-4
    b, a, o, _ = duel(orc=dict(ORC, armor=0))
    b.act("gm.add_status", combatant=o, status="stun", power=3, duration=1)
    b.act("ability", a, dice=[12, 3], ability="stunning_blow", targets=[o])  # 3+2 = power 5 replaces 3
    assert b.c(o).statuses["stun"]["power"] == 5
    ev = b.act("ability", a, dice=[12, 1], ability="stunning_blow", targets=[o])  # 1+2 = 3 < 5: kept
    assert b.types(ev)[-1] == "status.kept" and b.c(o).statuses["stun"]["power"] == 5
    assert list(b.c(o).statuses) == ["stun"]


def test_different_statuses_coexist_and_are_recovered_separately():
    # RULE: LUCK-STAT-5
    b, a, o, _ = duel()
    b.act("gm.add_status", combatant=a, status="stun", power=4, duration=3)
    b.act("gm.add_status", combatant=a, status="slow", power=2, duration=3)
    labels = [x.label for x in legal_actions(b.state, a) if x.params.get("ability") == "recover"]
    assert labels == ["Recover: Stun (power 4)", "Recover: Slow (power 2)"]
    b.act("ability", a, dice=[2], ability="recover", status="slow")
    assert list(b.c(a).statuses) == ["stun"]


def test_stun_and_blind_stop_actions_and_movement_but_not_recover():
    # RULE: LUCK-STAT-6
    for status, name in (("stun", "Stun"), ("blind", "Blind")):
        b, a, o, _ = duel()
        b.act("gm.add_status", combatant=a, status=status, power=3, duration=1)
        assert b.try_act("move", a, to=[0, 2]) == Refusal(f"{name}: cannot move.")
        assert b.try_act("ability", a, weapon="sword", targets=[o]) == Refusal(f"{name}: cannot act.")
        options = {x.label: (x.available, x.reason) for x in legal_actions(b.state, a)}
        assert options["Fire Bolt"] == (False, f"{name}: cannot act.")
        assert options[f"Recover: {name} (power 3)"] == (True, "")
        b.act("ability", a, dice=[3], ability="recover", status=status)
        assert b.c(a).statuses == {}


def test_sleep_stops_everything_until_damage():
    # RULE: LUCK-STAT-7
    b, a, o, _ = duel()
    b.act("ability", a, dice=[12, 8], ability="lullaby", targets=[o])  # 8 - resist 2 = power 6
    assert b.c(o).statuses["sleep"]["power"] == 6
    b.act("end_turn", a)
    assert b.try_act("ability", o, weapon="claws", targets=[a]) == Refusal("Sleep: cannot act.")
    assert b.try_act("move", o, to=[3, 3]) == Refusal("Sleep: cannot move.")
    b.act("end_turn", o)
    ev = b.act("ability", a, dice=[12, 4], weapon="sword", targets=[o])  # 5 - 2 = 3 damage
    assert ("status.removed", "damaged") in [(e.type, e.data.get("reason")) for e in ev]
    assert b.c(o).statuses == {}


def test_slow_halves_movement():
    # RULE: LUCK-STAT-8
    b, a, o, _ = duel()
    b.act("gm.add_status", combatant=a, status="slow", power=2, duration=2)
    assert b.try_act("move", a, path=[[0, 1], [0, 2], [0, 3]]) == Refusal("Too far: 3 squares, at most 2.")
    b.act("move", a, to=[0, 2])
    move = next(x for x in legal_actions(b.state, a) if x.kind == "move")
    assert max(abs(x - 0) for x, _ in move.squares) <= 2
    b.act("ability", a, dice=[12, 3, 3], ability="fire_bolt", targets=[o])  # actions as normal


def test_silence_stops_spells_only():
    # RULE: LUCK-STAT-9
    b, a, o, _ = duel()
    b.act("gm.add_status", combatant=a, status="silence", power=2, duration=2)
    assert b.try_act("ability", a, ability="fire_bolt", targets=[o]) == Refusal(
        "Silence: cannot cast spells."
    )
    reasons = {x.label: x.reason for x in legal_actions(b.state, a)}
    assert reasons["Mend"] == "Silence: cannot cast spells."
    b.act("ability", a, dice=[12, 3], weapon="sword", targets=[o])
    b.act("move", a, to=[0, 3])


def test_disarm_stops_melee_only():
    # RULE: LUCK-STAT-10
    b, a, o, _ = duel()
    b.act("gm.add_status", combatant=a, status="disarm", power=2, duration=2)
    assert b.try_act("ability", a, weapon="sword", targets=[o]) == Refusal(
        "Disarm: cannot make melee attacks."
    )
    b.act("ability", a, dice=[12, 3, 3], ability="fire_bolt", targets=[o])
    b.act("move", a, to=[0, 3])


def test_knockout_ends_the_battle():
    # RULE: ENG-9
    b, a, o, _ = duel(orc=dict(ORC, hp=3, armor=0))
    ev = b.act("ability", a, dice=[12, 4], weapon="sword", targets=[o])  # 5 damage
    dealt = next(e for e in ev if e.type == "damage.dealt").data
    assert (dealt["hp"], dealt["ko"]) == (0, True)
    assert b.types(ev)[-1] == "battle.ended" and b.state.result["winner"] == "party"
    assert b.rebuilt().to_dict() == b.state.to_dict()


def test_moves_go_around_walls_and_enemies_and_through_allies():
    # RULE: LUCK-ACT-2
    b = Battle("luck", {"grid_metric": "manhattan"}, blocked=[[1, 0], [1, 1]])
    a = b.add("Ash", "party", (0, 0), initiative=9)
    b.add("Bo", "party", (0, 1))
    o = b.add("Orc", "enemy", (1, 2))
    b.act("setup.start", dice=[10, 1, 2])
    assert b.try_act("move", a, to=[2, 0]) == Refusal(
        "No path of at most 5 squares to there."
    )  # 7 steps around
    ev = b.act("move", a, to=[0, 3])  # through Bo, around nothing: 3 cardinal steps
    assert ev[0].data["path"] == [[0, 0], [0, 1], [0, 2], [0, 3]]
    assert b.try_act("move", a, path=[[1, 3], [1, 2]]) == Refusal("The path is blocked.")  # the orc's square
    assert b.c(o).pos == [1, 2]


def test_an_item_button_says_how_many_are_left():
    # RULE: ENG-5
    b, a, o, _ = duel(ash=dict(ASH, items=["healing_potion"] * 3))
    b.act("gm.set_hp", combatant=a, hp=4)

    def potion():
        return next(x for x in legal_actions(b.state, a) if x.params.get("item") == "healing_potion")

    assert (potion().label, potion().available) == ("Healing Potion (x3)", True)
    b.act("ability", a, dice=[4, 4], item="healing_potion", targets=[a])
    assert potion().label == "Healing Potion (x2)"
