"""Paradigm Rows: rounds, initiative, AP and the turn actions, with worked numbers (scripted dice)."""

from __future__ import annotations

from combat.engine.actions import Refusal
from combat.engine.core import legal_actions
from combat.engine.testing import Battle
from tests.engine.paradigm_duel import duel, option

# --- rounds and initiative ----------------------------------------------------------------------


def test_initiative_is_the_die_plus_bonus_highest_first_ties_by_bonus_then_roll_off():
    # RULE: PARA-INIT-1
    b = Battle("paradigm")
    a = b.add("Ash", initiative=3)
    o = b.add("Orc", "enemy", initiative=1)
    ev = b.act("setup.start", dice=[10, 15])
    assert [(e.data["combatant"], e.data["total"]) for e in ev if e.type == "initiative.rolled"] == [
        (a, 13),
        (o, 16),
    ]
    assert b.state.order == [o, a]
    b = Battle("paradigm")
    a = b.add("Ash", initiative=3)
    o = b.add("Orc", "enemy", initiative=1)
    b.act("setup.start", dice=[10, 12])  # 13 and 13: Ash's higher bonus wins
    assert b.state.order == [a, o]
    b = Battle("paradigm")
    a = b.add("Ash", initiative=2)
    o = b.add("Orc", "enemy", initiative=2)
    ev = b.act("setup.start", dice=[10, 10, 7, 7, 3, 12])  # tie, roll-off tie, then 3 against 12
    assert [e.data["total"] for e in ev if e.type == "initiative.rolloff"] == [7, 7, 3, 12]
    assert b.state.order == [o, a]
    b = Battle("paradigm", {"initiative_die": "2d6"})
    a = b.add("Ash", initiative=3)
    o = b.add("Orc", "enemy", initiative=1)
    b.act("setup.start", dice=[3, 4, 6, 6])  # 3+4+3 = 10 against 6+6+1 = 13
    assert b.state.order == [o, a]


def test_a_round_is_action_then_effect_then_paradigm_phase_and_round_one_starts_with_paradigm():
    # RULE: PARA-ROUND-1
    b = Battle("paradigm")
    a = b.add("Ash", controller="7", jobs=["knight", "ranger"], job="knight")
    o = b.add("Orc", "enemy")
    ev = b.act("setup.start", dice=[15, 10])
    flow = [
        (e.type, e.data.get("phase") or e.data.get("round"))
        for e in ev
        if e.type in ("round.started", "phase.started", "decision.opened", "turn.started")
    ]
    assert flow == [("round.started", 1), ("phase.started", "paradigm"), ("decision.opened", None)]
    ev = b.act("answer", a, choice="keep")
    assert b.types(ev)[-3:] == ["battle.extra", "turn.started", "turn.prepared"] and b.state.current().id == a
    b.act("end_turn", a)
    ev = b.act("end_turn", o)
    flow = [
        (e.type, e.data.get("phase") or e.data.get("round"))
        for e in ev
        if e.type in ("turn.ended", "phase.started", "decision.opened", "round.ended")
    ]
    assert flow == [
        ("turn.ended", None),
        ("phase.started", "effect"),
        ("phase.started", "paradigm"),
        ("decision.opened", None),
    ]
    ev = b.act("answer", a, choice="keep")
    assert [e.type for e in ev if e.type.startswith(("round.", "phase."))] == ["round.ended", "round.started"]
    assert (b.state.round, b.state.current().id) == (2, a)  # no second paradigm phase at a round's start


# --- AP ------------------------------------------------------------------------------------------


def test_tier_one_to_five_has_two_ap_and_tier_six_to_ten_three():
    # RULE: PARA-AP-1
    b, a, o, _ = duel(ash={"tier": 5}, orc={"tier": 6})
    assert b.c(a).resources["ap"] == 2
    assert option(b, a, "change_row").cost == {"ap": 1}
    b.act("end_turn", a)
    assert b.c(o).resources["ap"] == 3


def test_the_turn_ends_when_ap_runs_out():
    # RULE: PARA-AP-2
    b, a, o, _ = duel()
    ev = b.act("change_row", a)
    assert "turn.ended" not in b.types(ev) and b.c(a).resources["ap"] == 1
    ev = b.act("change_row", a)
    assert "turn.ended" in b.types(ev) and b.state.current().id == o
    assert b.try_act("change_row", a).reason.startswith("It is not Ash's turn")


# --- actions -------------------------------------------------------------------------------------


def test_basic_attack_is_weapon_dice_plus_attack_minus_def_at_least_zero():
    # RULE: PARA-ACT-ATTACK
    b, a, o, _ = duel()
    ev = b.act("attack", a, dice=[5], targets=[o])  # 5 + 2 - 1 = 6
    hit = next(e for e in ev if e.type == "damage.dealt")
    assert (hit.data["raw"], hit.data["defense"], hit.data["amount"], b.c(o).hp) == (7, 1, 6, 14)
    assert hit.rolls[0]["faces"] == [5] and b.c(a).resources["ap"] == 1
    b, a, o, _ = duel(ash={"weapon": "sword", "accessory": "power_band"})
    b.act("attack", a, dice=[8], targets=[o])  # sword 1d8: 8 + 2 + sword 1 + band 2 - 1 = 12
    assert b.c(o).hp == 8
    b, a, o, _ = duel(orc={"defense": 20})
    ev = b.act("attack", a, dice=[1], targets=[o])
    assert next(e for e in ev if e.type == "damage.dealt").data["amount"] == 0 and b.c(o).hp == 20
    assert b.try_act("attack", a, targets=[a]) == Refusal("Choose an enemy.")


def test_melee_reaches_only_the_enemy_front_row_unless_the_gm_says_otherwise():
    # RULE: PARA-MELEE-1
    b, a, o, _ = duel(orc_row="back", ash={"abilities": ["fire"]})
    assert b.try_act("attack", a, dice=[5], targets=[o]) == Refusal(
        "Orc is in the back row: melee reaches only the front row."
    )
    attack = option(b, a, "attack")
    assert (attack.available, attack.reason) == (False, "No enemy in reach.")
    b.act("ability", a, dice=[4], ability="fire", targets=[o])  # not melee: 4 + 1 + 0 - 2 = 3
    assert b.c(o).hp == 17
    b, a, o, _ = duel({"melee_front_only": False}, orc_row="back")
    b.act("attack", a, dice=[5], targets=[o])
    assert b.c(o).hp == 14


def test_use_ability_from_archetype_and_current_job_at_its_ap_cost():
    # RULE: PARA-ACT-ABILITY
    b, a, o, _ = duel(ash={"job": "black_mage", "magic_bonus": 1, "abilities": ["power_strike"]})
    labels = {x.params["ability"]: x.cost for x in legal_actions(b.state, a) if x.kind == "ability"}
    assert labels == {"power_strike": {"ap": 2}, "fire": {"ap": 1}, "blizzard": {"ap": 2}}
    ev = b.act("ability", a, dice=[6], ability="fire", targets=[o])  # 6 + 1 + magic 1 + job 2 - MDEF 2 = 8
    assert next(e for e in ev if e.type == "damage.dealt").data["amount"] == 8 and b.c(o).hp == 12
    assert b.try_act("ability", a, ability="power_strike", targets=[o]) == Refusal(
        "Not enough AP (1 left, 2 needed)."
    )
    assert b.try_act("ability", a, ability="cure", targets=[a]) == Refusal("Ash has no such ability now.")


def test_items_come_from_the_party_inventory_and_are_removed_once_used():
    # RULE: PARA-ACT-ITEM
    b, a, o, x = duel(ash={"items": ["potion"]}, bo={"items": ["potion", "bomb"]})
    assert [(i.params["item"], i.label) for i in legal_actions(b.state, a) if i.kind == "item"] == [
        ("bomb", "Bomb (x1)"),
        ("potion", "Potion (x2)"),
    ]
    b.act("gm.set_hp", combatant=x, hp=10)
    ev = b.act("item", a, dice=[3, 4], item="potion", targets=[x])  # 2d4 + 2 = 9
    assert next(e for e in ev if e.type == "healed").data["amount"] == 9 and b.c(x).hp == 19
    assert b.c(a).resources["ap"] == 1
    ev = b.act("item", a, dice=[5], item="bomb")  # everyone on the other side: 5 + 0 - MDEF 2 = 3
    assert b.c(o).hp == 17 and "turn.ended" in b.types(ev)
    b.act("end_turn", o)
    b.act(
        "item", x, dice=[1, 1], item="potion", targets=[a]
    )  # Bo uses the potion Ash brought... the last one
    assert b.try_act("item", x, item="potion", targets=[a]) == Refusal(
        "The party inventory has no such item."
    )
    assert b.rebuilt().to_dict() == b.state.to_dict()


def test_move_switches_between_own_front_and_back_row_for_one_ap():
    # RULE: PARA-ACT-MOVE
    b, a, o, _ = duel()
    assert option(b, a, "change_row").label == "Move to the back row"
    b.act("change_row", a)
    assert b.c(a).row == "back" and b.c(a).resources["ap"] == 1
    assert option(b, a, "change_row").label == "Move to the front row"


def test_hold_ap_gives_a_one_ap_held_turn_after_the_chosen_character_once_per_round():
    # RULE: PARA-ACT-HOLD
    # RULE: PARA-ACT-END
    b, a, o, x = duel(bo={})
    assert option(b, a, "hold").targets == [o, x]
    b.act("hold", a, targets=[o])
    assert b.state.order == [a, o, a, x] and b.c(a).resources["ap"] == 1
    assert b.try_act("hold", a, targets=[x]) == Refusal("AP can be held only once per round.")
    ev = b.act("end_turn", a)  # the remaining non-held AP is lost...
    lost = next(e for e in ev if e.type == "resources.set").data
    assert (lost["combatant"], lost["resources"], lost["reason"]) == (a, {"ap": 0}, "turn ended")
    b.act("end_turn", o)  # ...but the held turn still comes, right after Orc's
    assert b.state.current().id == a and b.c(a).resources["ap"] == 1 and b.c(a).extra["held_turn"]
    ev = b.act("change_row", a)
    assert "turn.ended" in b.types(ev) and b.state.order == [a, o, x] and b.state.current().id == x
    b.act("end_turn", x)
    assert (b.state.round, b.state.current().id, b.c(a).resources["ap"]) == (2, a, 2)
    b.act("end_turn", a)
    assert b.try_act("hold", o, targets=[a]) == Refusal("Choose a character acting after you this round.")
    assert b.rebuilt().to_dict() == b.state.to_dict()


PACK = {
    "objects": {
        "lever": {"name": "Lever", "ap": 1, "ability": "rockfall"},
        "drawbridge": {"name": "Drawbridge", "whole_turns": 2},
    }
}


def test_interact_with_a_gm_defined_object_simple_or_over_whole_turns():
    # RULE: PARA-ACT-INTERACT
    b, a, o, _ = duel(content=PACK)
    ev = b.act("interact", a, dice=[4], object="lever")  # Rockfall on every enemy: 4 + attack 2 - DEF 1 = 5
    assert b.c(o).hp == 15 and b.c(a).resources["ap"] == 1
    assert next(e for e in ev if e.type == "object.used").data["done"] is True
    assert b.try_act("interact", a, object="lever") == Refusal("Lever has been used up.")
    assert b.try_act("interact", a, object="drawbridge") == Refusal(
        "Drawbridge takes a whole turn: start it with all your AP."
    )
    assert b.try_act("interact", a, object="window") == Refusal("There is no such object here.")
    b.act("end_turn", a)
    b.act("end_turn", o)
    ev = b.act("interact", a, object="drawbridge")  # the whole turn: 2 AP, 1 of 2 turns
    assert "turn.ended" in b.types(ev) and b.state.extra["objects"]["drawbridge"] == {
        "progress": 1,
        "done": 0,
    }
    b.act("end_turn", o)
    ev = b.act("interact", a, object="drawbridge")
    assert next(e for e in ev if e.type == "object.used").data["done"] is True
    assert b.state.extra["objects"]["drawbridge"] == {"progress": 0, "done": 1}


def test_swap_a_weapon_or_accessory_from_own_inventory_never_armor():
    # RULE: PARA-ACT-SWAP
    b, a, o, _ = duel(ash={"weapon": "sword", "gear": ["axe", "iron_ring"]})
    labels = [x.label for x in legal_actions(b.state, a) if x.kind == "swap"]
    assert labels == ["Put away Sword", "Equip Axe", "Equip Iron Ring"]
    b.act("swap", a, slot="weapon", equip="axe")
    assert (b.c(a).extra["weapon"], b.c(a).extra["gear"]) == ("axe", ["iron_ring", "sword"])
    assert b.c(a).resources["ap"] == 1
    b.act("attack", a, dice=[10], targets=[o])  # axe 1d10: 10 + 2 - 1 = 11
    assert b.c(o).hp == 9
    b.act("end_turn", o)
    assert b.try_act("swap", a, slot="armor", equip="plate") == Refusal(
        "Armor cannot be put on or taken off during battle."
    )
    assert b.try_act("swap", a, slot="weapon", equip="bow") == Refusal("Ash carries no such weapon.")
    b.act("swap", a, slot="accessory", equip="iron_ring")
    assert b.c(a).extra["accessory"] == "iron_ring"


def test_flee_from_the_back_row_leaves_after_the_effect_phase_and_all_pcs_fled_ends_without_xp():
    # RULE: PARA-ACT-FLEE
    b, a, o, _ = duel()
    assert b.try_act("flee", a) == Refusal("Only from the back row.")
    b.act("change_row", a)
    ev = b.act("flee", a)
    assert "turn.ended" in b.types(ev) and b.c(a).extra["fleeing"] and not b.c(a).extra.get("fled")
    assert b.state.phase == "active"
    ev = b.act("end_turn", o)  # Effect Phase: Ash leaves; every player character has fled
    assert b.types(ev).index("combatant.fled") < b.types(ev).index("battle.ended")
    assert b.state.result == {
        "winner": None,
        "reason": "Every player character fled: no XP or items.",
        "by": "rules",
        "fled": True,
        "xp": False,
    }
    b, a, o, _ = duel({"allow_flee": False}, ash_row="back")
    assert b.try_act("flee", a) == Refusal("The GM does not allow fleeing in this battle.")
    assert option(b, a, "flee").available is False


def test_the_gm_removing_a_holder_removes_its_held_slot_too():
    # RULE: ENG-7
    # RULE: PARA-ACT-HOLD
    b, a, o, x = duel(bo={})
    b.act("hold", a, targets=[o])
    b.act("gm.remove_combatant", combatant=a)
    assert b.state.order == [o, x] and b.state.current().id == o
    b.act("end_turn", o)
    b.act("end_turn", x)
    assert (b.state.round, b.state.current().id) == (2, o)
    assert b.rebuilt().to_dict() == b.state.to_dict()
