"""Mist & Rampart turn structure with worked numbers: initiative, slots, moves, action types."""

from __future__ import annotations

from combat.engine.actions import Refusal
from combat.engine.core import legal_actions
from combat.engine.rulesets.mist.content import HEROES, MONSTERS
from combat.engine.testing import Battle

KNIGHT = {**HEROES["Knight"], "abilities": ["strike", "crushing_blow", "shield_bash", "leap", "tumble"]}
MAGE = HEROES["Mage"]
GOBLIN = MONSTERS["Goblin"]


def duel(options=None, knight=None, goblin=None, goblin_pos=(6, 2), content=None):
    """Knight (party, user 7) at (2,2) acts first (initiative 2 + 15 vs Goblin 3 + 5)."""
    b = Battle("mist", options, width=10, height=10, content=content)
    k = b.add("Knight", "party", (2, 2), controller="7", **(knight or KNIGHT))
    g = b.add("Goblin", "enemy", goblin_pos, **(goblin or GOBLIN))
    b.act("setup.start", dice=[15, 5])
    assert b.state.current().id == k
    return b, k, g


def end_round(b, *ids, dice):
    """End each given turn in order; the last one starts a new round with ``dice`` for initiative."""
    for cid in ids[:-1]:
        b.act("end_turn", cid)
    return b.act("end_turn", ids[-1], dice=dice)


# --- initiative -----------------------------------------------------------------------------------


def test_initiative_is_rerolled_at_the_start_of_every_round():
    # RULE: MIST-INIT-1
    b, k, g = duel()
    first = [
        (e.data["combatant"], e.data["total"], e.rolls[0]["faces"])
        for e in b.log
        if e.type == "initiative.rolled"
    ]
    assert first == [(k, 17, [15]), (g, 8, [5])]  # 1d20 + initiative bonus (2 and 3)
    events = end_round(b, k, g, dice=[2, 19])
    again = [(e.data["combatant"], e.data["total"]) for e in events if e.type == "initiative.rolled"]
    assert again == [(k, 4), (g, 22)]
    assert b.state.round == 2
    assert b.state.order == [g, k]
    assert b.state.current().id == g


def test_initiative_die_is_a_house_rule():
    # RULE: MIST-INIT-1
    b = Battle("mist", {"initiative_die": "1d100"})
    a = b.add("A", "party", (0, 0))
    o = b.add("O", "enemy", (5, 0))
    ev = b.act("setup.start", dice=[90, 40])
    assert [e.rolls[0]["expr"] for e in ev if e.type == "initiative.rolled"] == ["1d100", "1d100"]
    assert b.state.order == [a, o]


def test_tied_initiative_goes_to_higher_speed_then_roll_off():
    # RULE: MIST-INIT-2
    b = Battle("mist")
    a = b.add("A", "party", (0, 0), speed=5)
    o = b.add("O", "enemy", (5, 0), speed=9)
    b.act("setup.start", dice=[10, 10])  # both 10: O is faster
    assert b.state.order == [o, a]
    b = Battle("mist")
    a = b.add("A", "party", (0, 0), speed=7)
    o = b.add("O", "enemy", (5, 0), speed=7)
    ev = b.act("setup.start", dice=[10, 10, 4, 4, 18, 3])  # tie, same Speed: roll-offs 4-4 then 18-3
    assert [e.data["total"] for e in ev if e.type == "initiative.rolloff"] == [4, 4, 18, 3]
    assert b.state.order == [a, o]


def test_ko_combatants_do_not_roll_initiative_and_are_skipped():
    # RULE: MIST-INIT-1
    # RULE: MIST-KO-1
    b = Battle("mist")
    k = b.add("Knight", "party", (0, 0), controller="7", **KNIGHT)
    g1 = b.add("Goblin 1", "enemy", (5, 0), **GOBLIN)
    g2 = b.add("Goblin 2", "enemy", (5, 5), **GOBLIN)
    b.act("setup.start", dice=[15, 10, 5])
    b.act("gm.set_hp", combatant=g1, hp=0)
    assert b.c(g1).ko
    b.act("end_turn", k)  # Goblin 1 is skipped: Goblin 2 is next
    assert b.state.current().id == g2
    ev = b.act("end_turn", g2, dice=[3, 9])
    assert [e.data["combatant"] for e in ev if e.type == "initiative.rolled"] == [k, g2]
    assert b.state.order == [g2, k]


# --- slots ----------------------------------------------------------------------------------------


def test_three_action_slots_by_default_and_per_sheet():
    # RULE: MIST-SLOT-1
    b, k, g = duel(goblin_pos=(3, 2))
    assert b.c(k).resources["slots"] == 3
    for _ in range(3):  # Strike is Chain 1
        b.act("ability", k, dice=[1, 1, 1], ability="strike", targets=[g])
    assert b.c(k).resources["slots"] == 0
    assert b.try_act("ability", k, ability="strike", targets=[g]) == Refusal("Needs 1 action slot; 0 left.")
    strike = next(o for o in legal_actions(b.state, k) if o.params.get("ability") == "strike")
    assert (strike.available, strike.reason) == (False, "Needs 1 action slot; 0 left.")
    b2, k2, _ = duel(knight={**KNIGHT, "action_slots": 5})
    assert b2.c(k2).resources["slots"] == 5


# --- movement -------------------------------------------------------------------------------------


def test_free_move_up_to_movement_split_between_actions():
    # RULE: MIST-MOVE-1
    b, k, g = duel(goblin_pos=(5, 3))
    b.act("move", k, path=[[3, 2], [4, 2]])
    assert (b.c(k).resources["move"], b.c(k).resources["slots"]) == (2, 3)
    b.act("move", k, to=[4, 3])  # the rest of the move after something else
    assert b.c(k).pos == [4, 3]
    assert b.c(k).resources["move"] == 1
    assert b.try_act("move", k, path=[[4, 4], [4, 5]]) == Refusal(
        "That is 2 squares; Knight has 1 left this turn."
    )
    assert b.try_act("move", k, path=[[5, 3]]) == Refusal(
        "Square [5, 3] holds an enemy: you cannot pass through it."
    )
    assert b.try_act("move", k, path=[[5, 4]]) == Refusal("Step 1 to [5, 4] is not one cardinal step.")


def test_move_split_around_an_action():
    # RULE: MIST-MOVE-1
    b, k, g = duel(goblin_pos=(5, 2))
    b.act("move", k, path=[[3, 2], [4, 2]])
    b.act("ability", k, dice=[50, 10, 10], ability="strike", targets=[g])
    b.act("move", k, path=[[4, 3], [4, 4]])
    assert b.c(k).pos == [4, 4] and b.c(k).resources["move"] == 0
    assert b.try_act("move", k, to=[4, 5]) == Refusal("No movement left this turn.")


def test_double_move_spends_all_slots_only_if_none_spent():
    # RULE: MIST-MOVE-2
    b, k, g = duel(goblin_pos=(9, 9))
    b.act("move", k, path=[[2, 3]])  # moving spends no slot
    ev = b.act("double_move", k)
    assert ev[0].data["spend"] == {"slots": 3}
    assert b.c(k).resources["slots"] == 0
    assert b.c(k).resources["move"] == 3 + 4  # 8 squares this turn in all
    b.act("move", k, to=[2, 9])  # 6 squares down... then one more
    assert b.c(k).resources["move"] == 1
    b.act("end_turn", k)
    b.act("end_turn", g, dice=[15, 5])
    b.act("ability", k, ability="tumble")  # Chain 1: a slot is spent
    assert b.try_act("double_move", k) == Refusal("Only before spending any action slot.")


def test_pass_through_allies_but_not_enemies():
    # RULE: MIST-MOVE-3
    b = Battle("mist", width=10, height=10)
    k = b.add("Knight", "party", (0, 0), controller="7", **KNIGHT)
    b.add("Mage", "party", (1, 0), controller="8", **MAGE)
    b.add("Goblin", "enemy", (0, 1), **GOBLIN)
    b.act("setup.start", dice=[20, 1, 1])
    assert b.state.current().id == k
    assert b.try_act("move", k, to=[1, 0]) == Refusal(
        "Square [1, 0] holds an ally: you may pass through but not stop there."
    )
    b.act("move", k, path=[[1, 0], [2, 0]])  # through the Mage
    assert b.c(k).pos == [2, 0]
    squares = next(o for o in legal_actions(b.state, k) if o.kind == "move").squares
    assert [1, 0] not in squares and [0, 1] not in squares and [0, 0] in squares
    assert b.try_act("move", k, path=[[1, 0], [0, 0], [0, 1]]) == Refusal(
        "Square [0, 1] holds an enemy: you cannot pass through it."
    )


# --- action types ---------------------------------------------------------------------------------


def test_move_action_costs_no_slot_but_uses_up_the_move():
    # RULE: MIST-TYPE-1
    b, k, g = duel()
    ev = b.act("ability", k, ability="leap", square=[2, 5])
    assert ev[0].data["spend"] == {"move": 4}
    assert b.c(k).pos == [2, 5]
    assert b.c(k).resources["slots"] == 3
    assert b.try_act("move", k, to=[2, 6]) == Refusal("The move action is used up this turn.")
    b.act("end_turn", k)
    b.act("end_turn", g, dice=[15, 5])
    b.act("move", k, to=[2, 6])
    assert b.try_act("ability", k, ability="leap", square=[2, 8]) == Refusal(
        "A move action needs the turn's whole move; some of it is spent."
    )


def test_first_simple_action_is_free_then_one_slot():
    # RULE: MIST-TYPE-2
    b = Battle("mist", width=10, height=10)
    m = b.add("Mage", "party", (2, 2), controller="8", **{**MAGE, "mp_gain": 20})
    g = b.add("Goblin", "enemy", (4, 2), **GOBLIN)
    b.act("setup.start", dice=[15, 1])
    ev = b.act("ability", m, dice=[1], ability="darkness", targets=[g])  # save 1 + 20 < 30: blinded
    assert "spend" in ev[0].data and ev[0].data["spend"] == {"mp": 3}
    assert b.c(m).resources["slots"] == 3
    b.act("ability", m, dice=[99], ability="darkness", targets=[g])
    assert b.c(m).resources["slots"] == 2
    b.act("ability", m, dice=[99], ability="darkness", targets=[g])
    assert b.c(m).resources["slots"] == 1


def test_static_action_once_per_turn_does_not_end_it():
    # RULE: MIST-TYPE-3
    b, k, g = duel(goblin_pos=(3, 2))
    b.act("ability", k, dice=[1, 10, 99], ability="shield_bash", targets=[g])  # hit, damage, save made
    assert b.state.current().id == k
    assert b.try_act("ability", k, ability="shield_bash", targets=[g]) == Refusal(
        "Only one static action per turn."
    )
    b.act("ability", k, dice=[1, 10, 10], ability="strike", targets=[g])  # combines with other types
    assert b.c(k).resources["slots"] == 1


def test_chain_actions_repeat_while_slots_allow():
    # RULE: MIST-TYPE-4
    b, k, g = duel(goblin_pos=(3, 2))
    for left in (2, 1, 0):
        b.act("ability", k, dice=[1, 1, 1], ability="strike", targets=[g])
        assert b.c(k).resources["slots"] == left


def test_finisher_ends_the_turn_at_once():
    # RULE: MIST-TYPE-5
    b, k, g = duel(goblin_pos=(3, 2))
    ev = b.act("ability", k, dice=[50, 1, 1, 1, 1], ability="crushing_blow", targets=[g])
    assert ev[0].data["spend"] == {"slots": 2}
    assert "turn.ended" in b.types(ev)
    assert b.state.current().id == g
    assert b.try_act("move", k, to=[2, 3]).reason.startswith("It is not Knight's turn")


def test_effects_change_the_initiative_bonus():
    # RULE: MIST-INIT-1
    b, k, g = duel()
    b.act("gm.add_status", combatant=g, status="haste", duration=3)
    b.act("end_turn", k)
    ev = b.act("end_turn", g, dice=[10, 10])
    assert [
        (e.data["combatant"], e.data["bonus"], e.data["total"]) for e in ev if e.type == "initiative.rolled"
    ] == [(k, 2, 12), (g, 13, 23)]
