"""Action Block rules with worked numbers (scripted dice): order, points, to-hit, damage, defenses."""

from __future__ import annotations

from combat.engine.actions import Refusal
from combat.engine.core import legal_actions
from combat.engine.rulesets.action_block import rules as R
from combat.engine.testing import Battle

ASH = {"max_speed": 30, "max_strength": 30, "weapons": ["longsword"]}  # longsword: to hit +1, damage 2d6+1
ORC = {"max_speed": 10, "max_strength": 20, "hp": 30}


def fight(ash=None, orc=None, options=None, orc_pos=(1, 0), orc_kind=None, orc_controller=None):
    b = Battle("action-block", options, width=14, height=8)
    a = b.add("Ash", "party", (0, 0), controller="1", **{**ASH, **(ash or {})})
    t = b.add("Orc", "enemy", orc_pos, kind=orc_kind, controller=orc_controller, **{**ORC, **(orc or {})})
    b.act("setup.start")
    return b, a, t


def option(b, actor, kind, **params):
    for o in legal_actions(b.state, actor):
        if o.kind == kind and all(o.params.get(k) == v for k, v in params.items()):
            return o
    raise AssertionError(f"no {kind} option {params}")


def test_order_is_descending_maximum_speed_points():
    # RULE: BLOCK-ORDER-1
    b = Battle("action-block")
    ids = [
        b.add(n, side, (i, 0), max_speed=s)
        for i, (n, side, s) in enumerate((("Slow", "party", 10), ("Fast", "enemy", 25), ("Mid", "party", 18)))
    ]
    events = b.act("setup.start")
    assert b.state.order == [ids[1], ids[2], ids[0]]
    assert not [e for e in events if e.rolls]  # no tie: no dice


def test_ties_roll_3d6_against_each_other_until_clear():
    # RULE: BLOCK-ORDER-2
    b = Battle("action-block")
    a = b.add("A", "party", (0, 0), max_speed=20)
    c = b.add("C", "enemy", (3, 0), max_speed=15)
    d = b.add("D", "enemy", (4, 0), max_speed=20)
    # A 3+3+3=9, D 2+3+4=9: tied again; then A 6+6+6=18, D 1+1+1=3
    events = b.act("setup.start", dice=[3, 3, 3, 2, 3, 4, 6, 6, 6, 1, 1, 1])
    assert b.state.order == [a, d, c]
    rolls = [e.rolls[0] for e in events if e.type == "initiative.rolloff"]
    assert [(r["expr"], r["total"]) for r in rolls] == [("3d6", 9), ("3d6", 9), ("3d6", 18), ("3d6", 3)]


def test_battle_maxima_from_equipment_weight_and_armor():
    # RULE: BLOCK-RES-1
    # RULE: BLOCK-RES-2
    # RULE: BLOCK-RES-3
    sheet = {
        "max_strength": 20,
        "max_speed": 20,
        "equipment_weight": 1,
        "armor": "plate",
        "weapons": ["longsword", "buckler"],
    }
    assert R.total_weight({}, sheet) == 1 + 3 + 2 + 6
    assert R.battle_strength({}, sheet) == 20 - 12 == 8
    assert R.battle_speed({}, sheet) == 20 - 4 == 16
    b, a, _ = fight(ash={**sheet, "max_speed": 30})
    assert b.c(a).resources["strength"] == 8 and b.c(a).resources["speed"] == 26


def test_costs_are_paid_and_may_not_go_below_zero():
    # RULE: BLOCK-RES-4
    b, a, t = fight()
    b.act("gm.set_resource", None, combatant=a, resource="strength", value=1)
    opt = option(b, a, "attack", weapon="longsword")
    assert not opt.available and opt.reason == "Needs 2 Strength Points (1 left)."
    out = b.try_act("attack", a, weapon="longsword", targets=[t])
    assert out == Refusal("Needs 2 Strength Points (1 left).")
    b.act("gm.set_resource", None, combatant=a, resource="strength", value=2)
    b.act("attack", a, dice=[1, 1], weapon="longsword", targets=[t])  # 2 + 1 misses Passive Evasion 7
    assert b.c(a).resources["strength"] == 0 and b.c(a).resources["speed"] == 30 - 2


def test_one_offensive_one_movement_one_verbal_per_turn():
    # RULE: BLOCK-TURN-1
    b, a, t = fight(ash={"abilities": ["intimidate"], "charisma": 1})
    b.act("attack", a, dice=[1, 1], weapon="longsword", targets=[t])
    assert b.try_act("attack", a, weapon="longsword", targets=[t]) == Refusal(
        "Offensive action already used this turn."
    )
    assert b.try_act("grapple", a, targets=[t]) == Refusal("Offensive action already used this turn.")
    b.act("charisma", a, dice=[1, 1, 6, 6], skill="intimidate", targets=[t])
    assert b.try_act("charisma", a, skill="intimidate", targets=[t]) == Refusal(
        "Verbal action already used this turn."
    )
    b.act("move", a, to=[0, 3])  # Orc is 3 squares away: no Obstruct
    assert b.try_act("move", a, to=[0, 4]) == Refusal("Movement action already used this turn.")
    b.act("end_turn", a)
    b.act("end_turn", t)
    assert {k: b.c(a).resources[k] for k in ("offensive", "movement", "verbal")} == {
        "offensive": 1,
        "movement": 1,
        "verbal": 1,
    }


def test_defensive_actions_are_only_reactions_addressed_to_the_target():
    # RULE: BLOCK-TURN-2
    # RULE: ENG-6
    b, a, t = fight(options={"npc_reactions": "ask"})
    assert b.try_act("dodge", a) == Refusal("Unknown action.")
    b.act("attack", a, weapon="longsword", targets=[t])
    p = b.state.pending
    assert p.combatant == t and p.controller is None and p.choice_keys() == ["dodge", "none"]
    assert b.try_act("answer", a, choice="none") == Refusal(
        "This question is not addressed to that combatant."
    )
    b.act("answer", None, dice=[1, 2], choice="none")  # the GM answers for the monster
    assert b.state.pending is None


def test_bonus_actions_take_no_action_type_and_brace_is_once_per_block():
    # RULE: BLOCK-TURN-3
    b, a, t = fight(ash={"abilities": ["ember"], "spell_modifiers": []})
    b.act("cast_spell", a, spell="ember")
    b.act("activate_spell", a, dice=[1, 1], targets=[t])  # bonus: no slot spent
    b.act("brace", a)
    assert b.c(a).resources["offensive"] == 1 and b.c(a).resources["movement"] == 1
    assert b.try_act("brace", a) == Refusal("Brace is once per Action Block.")
    assert not option(b, a, "brace").available
    b.act("end_turn", a)
    b.act("end_turn", t)
    b.act("brace", a)  # a new Action Block
    assert b.c(a).extra["brace"] == 1


def test_passive_evasion_from_armor_and_a_hit_on_equal():
    # RULE: BLOCK-EVA-1
    # RULE: BLOCK-HIT-2
    assert R.passive_evasion({}, {}) == 7
    assert R.passive_evasion({}, {"armor": "leather", "evasion_bonus": 1}) == 9
    b, a, t = fight()
    events = b.act("attack", a, dice=[3, 3, 2, 3], weapon="longsword", targets=[t])
    rolled = next(e for e in events if e.type == "attack.rolled").data
    assert (rolled["total"], rolled["evasion"], rolled["hit"]) == (7, 7, True)
    assert b.c(t).hp == 30 - (5 + 1)
    b2, a2, t2 = fight(orc={"armor": "leather"})
    b2.act("attack", a2, dice=[3, 3], weapon="longsword", targets=[t2])  # 7 < 8: miss, no damage roll
    assert b2.c(t2).hp == 30


def test_dodge_uses_active_evasion_declared_before_the_roll():
    # RULE: BLOCK-EVA-2
    # RULE: BLOCK-DEF-1
    b, a, t = fight(orc={"dodge_boost": 2}, options={"npc_reactions": "ask"})
    events = b.act("attack", a, weapon="longsword", targets=[t])
    assert events[-1].type == "decision.opened" and not any(e.rolls for e in events)
    assert "Active Evasion 9 instead of Passive 7" in b.state.pending.options[0]["label"]
    events = b.act("answer", t, dice=[4, 3], choice="dodge")  # 7 + 1 = 8 < 9
    rolled = next(e for e in events if e.type == "attack.rolled").data
    assert (rolled["total"], rolled["evasion"], rolled["dodged"], rolled["hit"]) == (8, 9, True, False)
    assert b.c(t).resources["speed"] == 10 - 2  # Dodge costs 2 Speed


def test_to_hit_bonus_and_shotgun_base_roll():
    # RULE: BLOCK-HIT-1
    b, a, t = fight(ash={"weapons": ["shotgun"], "gun_boost": 2}, orc_pos=(3, 0))
    events = b.act("attack", a, dice=[5, 1, 1], weapon="shotgun", targets=[t])  # 1d6: 5 + 0 + 2 = 7 hits
    rolled = next(e for e in events if e.type == "attack.rolled")
    assert rolled.rolls[0]["expr"] == "1d6" and rolled.data["total"] == 7
    assert b.c(t).hp == 30 - (2 + 2 + 2)  # 2d6 1+1, shotgun bonus 2, Gun Boost 2
    assert R.to_hit_bonus({"melee_boost": 2}, {"kind": "melee", "to_hit": 1}) == 3
    assert R.to_hit_bonus({"grapple_boost": 3, "melee_boost": 5}, None) == 3


def test_critical_hit_doubles_base_bonus_and_reduction():
    # RULE: BLOCK-CRIT-1
    b, a, t = fight(orc={"pdr": 2})
    events = b.act("attack", a, dice=[6, 6, 3, 4], weapon="longsword", targets=[t])
    dealt = next(e for e in events if e.type == "damage.dealt").data
    assert dealt["crit"] and dealt["amount"] == 2 * 7 + 2 * 1 - 2 * 2 == 12
    assert R.is_crit(12, hit=False) is False
    assert R.damage_dealt(1, 0, 5, crit=True) == 0


def test_damage_is_base_plus_bonus_minus_pdr_at_least_zero():
    # RULE: BLOCK-DMG-1
    b, a, t = fight(ash={"damage_bonus": 2}, orc={"pdr": 1, "pdr_boost": 1})
    b.act("attack", a, dice=[4, 4, 3, 2], weapon="longsword", targets=[t])
    assert b.c(t).hp == 30 - (5 + 1 + 2 - 2)
    b2, a2, t2 = fight(orc={"pdr": 20})
    events = b2.act("attack", a2, dice=[4, 4, 3, 2], weapon="longsword", targets=[t2])
    assert next(e for e in events if e.type == "damage.dealt").data["amount"] == 0


def test_a_tesla_is_reduced_by_spell_damage_reduction():
    # RULE: BLOCK-DMG-2
    b, a, t = fight(ash={"weapons": ["tesla"]}, orc={"pdr": 5, "sdr": 1, "sdr_boost": 1}, orc_pos=(5, 0))
    events = b.act("attack", a, dice=[4, 4, 6], weapon="tesla", targets=[t])
    dealt = next(e for e in events if e.type == "damage.dealt").data
    assert (dealt["reduced_by"], dealt["reduction"], dealt["amount"]) == ("sdr", 2, 4)


def test_block_stances_and_shield_block_after_a_hit_before_damage():
    # RULE: BLOCK-DEF-2
    orc = {"weapons": ["buckler", "claws"], "max_strength": 30}
    b, a, t = fight(orc=orc, options={"npc_reactions": "ask"})
    b.act("attack", a, weapon="longsword", targets=[t])
    events = b.act("answer", t, dice=[4, 4], choice="none")  # hit: 8 + 1 >= 7
    assert events[-1].type == "decision.opened" and "block" in b.state.pending.resume["step"]
    keys = b.state.pending.choice_keys()
    assert {"block", "heavy_block", "super_block", "shield_block", "heavy_block+shield_block"} <= set(keys)
    b.act("answer", t, dice=[5, 6], choice="heavy_block+shield_block")  # PDR +4 +2 (buckler)
    assert b.c(t).hp == 30 - max(0, 11 + 1 - 6)
    assert b.c(t).resources["strength"] == 30 - 2 - 3  # buckler weight 2; Heavy Block 3 Strength
    # the Orc bashes with the shield this Action Block: no Shield Block for it until the next one
    b.act("end_turn", a)
    b.act("attack", t, weapon="buckler", targets=[a])
    b.act("answer", a, dice=[1, 1], choice="none")
    assert b.c(t).extra["shield_used"] is True
    from combat.engine.rulesets.action_block.rules import block_options

    assert all("shield" not in o["key"] for o in block_options(b.state, b.c(t)))


def test_unconscious_at_zero_then_dead_when_hurt_again_and_never_healed():
    # RULE: BLOCK-HP-1
    # RULE: BLOCK-HP-2
    b, a, t = fight(orc={"hp": 5})
    b.act("attack", a, dice=[4, 4, 3, 2], weapon="longsword", targets=[t])
    assert b.c(t).hp == 5 - 6 and b.c(t).ko and b.c(t).alive  # "0 or less": HP goes below 0
    assert b.state.phase == "ended"  # no enemy left able to act
    b2 = Battle("action-block", width=10, height=6)
    a2 = b2.add("Ash", "party", (0, 0), controller="1", **ASH, abilities=["mend"])
    t2 = b2.add("Orc", "enemy", (1, 0), **{**ORC, "hp": 5})
    b2.add("Orc 2", "enemy", (5, 5), max_speed=5)
    b2.act("setup.start")
    b2.act("attack", a2, dice=[4, 4, 3, 2], weapon="longsword", targets=[t2])
    b2.act("end_turn", a2)
    b2.act("end_turn", b2.state.current().id)
    b2.act("attack", a2, dice=[4, 4, 1, 1], weapon="longsword", targets=[t2])
    assert b2.c(t2).alive is False
    b2.act("cast_spell", a2, spell="mend")
    assert t2 not in option(b2, a2, "activate_spell").targets
    b2.act("gm.set_hp", None, combatant=t2, hp=5)
    assert b2.c(t2).alive is False


def test_insanity_roll_is_a_gm_prompt_when_hp_drops_below_ghost_power():
    # RULE: BLOCK-INS-1
    b, a, t = fight(orc={"hp": 10, "ghost_power": 8})
    events = b.act("attack", a, dice=[4, 4, 1, 1, 2, 5], weapon="longsword", targets=[t])  # 3 damage: 10 -> 7
    p = b.state.pending
    assert p.gm_only and p.controller is None and "Insanity Roll: 7" in p.prompt
    assert events[-1].rolls[0]["purpose"] == "insanity roll"
    assert b.try_act("answer", t, choice="insane") == Refusal("Only the GM answers this.")
    b.act("answer", None, choice="insane")
    assert "insane" in b.c(t).statuses
    b2, a2, t2 = fight(orc={"hp": 10, "ghost_power": 8}, options={"insanity": "off"})
    b2.act("attack", a2, dice=[4, 4, 1, 1], weapon="longsword", targets=[t2])
    assert b2.state.pending is None and b2.c(t2).hp == 7


def test_initiate_grapple_hits_on_evasion_and_holds_both():
    # RULE: BLOCK-GRAP-1
    b, a, t = fight(ash={"grapple_boost": 2}, orc={"dodge_boost": 3}, options={"npc_reactions": "ask"})
    b.act("grapple", a, targets=[t])
    assert b.state.pending.combatant == t  # a grapple may be dodged
    events = b.act("answer", t, dice=[4, 4], choice="dodge")  # 8 + 2 = 10 >= 7 + 3
    assert next(e for e in events if e.type == "grapple.rolled").data["hit"]
    assert b.c(a).statuses["grappling"]["holds"] == t and b.c(t).statuses["grappled"]["by"] == a
    b.act("end_turn", a)
    assert b.try_act("move", t, to=[3, 3]) == Refusal("Grappled: no Movement action.")
    assert b.c(a).resources["strength"] == 30 - 3 - 2 and b.c(a).resources["speed"] == 30 - 2


def test_cast_spell_is_verbal_and_enters_the_casting_stance_with_modifiers():
    # RULE: BLOCK-SPELL-1
    b, a, t = fight(ash={"abilities": ["ember"], "spell_modifiers": ["empower", "reach"]}, orc_pos=(12, 0))
    assert b.try_act("cast_spell", a, spell="ember", modifiers=["twin"]) == Refusal(
        "Ash has no modifier 'twin'."
    )
    b.act("cast_spell", a, spell="ember", modifiers=["empower", "reach"])
    assert b.c(a).extra["casting"] == {"spell": "ember", "mods": ["empower", "reach"]}
    assert b.c(a).resources["verbal"] == 0
    assert b.c(a).resources["speed"] == 30 - 2 - 1 and b.c(a).resources["strength"] == 30 - 3 - 1 - 2
    assert t in option(b, a, "activate_spell").targets  # 40 + 30 ft reaches 12 squares
    b.act("end_turn", a)
    b.act("end_turn", t)
    b.act("echo_spell", a)  # the same spell again, paying only the spell's cost
    assert b.c(a).resources["speed"] == 27 - 2


def test_activate_spell_adds_the_spell_boosts_to_the_base_effect():
    # RULE: BLOCK-SPELL-2
    ash = {
        "abilities": ["ember", "mend"],
        "spell_modifiers": ["empower"],
        "general_spell_boost": 1,
        "offensive_spell_boost": 1,
        "defensive_spell_boost": 2,
    }
    b, a, t = fight(ash=ash, orc={"sdr": 2})
    b.act("cast_spell", a, spell="ember", modifiers=["empower"])
    events = b.act("activate_spell", a, dice=[4, 5], targets=[t])
    dealt = next(e for e in events if e.type == "damage.dealt").data
    assert (dealt["effect"], dealt["amount"]) == (
        9 + 1 + 1 + 2 + 2,
        15 - 2,
    )  # base, all three boosts, empower
    assert "casting" in b.c(a).extra and b.c(a).extra["casting"] is None
    b.act("gm.set_hp", None, combatant=a, hp=10)
    b.act("end_turn", a)
    b.act("end_turn", t)
    b.act("cast_spell", a, spell="mend")
    events = b.act("activate_spell", a, dice=[3], targets=[a])
    assert next(e for e in events if e.type == "healed").data["amount"] == 3 + 1 + 1 + 2


def test_charisma_rolls_per_target_and_success_on_equal():
    # RULE: BLOCK-CHA-1
    b = Battle("action-block", width=10, height=6)
    a = b.add("Ash", "party", (0, 0), controller="1", **ASH, abilities=["taunt"], charisma=2)
    t1 = b.add("Orc", "enemy", (2, 0), **ORC, charisma=1)
    t2 = b.add("Orc 2", "enemy", (3, 0), **{**ORC, "max_speed": 9})
    b.act("setup.start")
    # Orc: 3+4+2 = 9 vs 5+3+1 = 9 succeeds; Orc 2: 1+1+2 = 4 vs 6+6 = 12 fails
    events = b.act("charisma", a, dice=[3, 4, 5, 3, 1, 1, 6, 6], skill="taunt", targets=[t1, t2])
    rolled = [e.data for e in events if e.type == "charisma.rolled"]
    assert [(r["offensive"], r["defensive"], r["success"]) for r in rolled] == [(9, 9, True), (4, 12, False)]
    assert b.c(t1).resources["speed"] == 10 - 2 and b.c(t2).resources["speed"] == 9


def test_an_enemy_in_melee_range_may_obstruct_a_movement_action():
    # RULE: BLOCK-MOVE-1
    b, a, t = fight(orc_pos=(2, 1), options={"npc_reactions": "ask"})
    b.act("move", a, to=[5, 0])  # path (0,0) (1,0|1) ... passes next to the Orc
    p = b.state.pending
    assert p.combatant == t and p.choice_keys() == ["obstruct", "none"]
    b.act("answer", t, choice="obstruct")
    assert b.c(a).pos != [5, 0] and max(abs(b.c(a).pos[0] - 2), abs(b.c(a).pos[1] - 1)) <= 1
    assert b.c(t).resources["speed"] == 10 - 1 and b.c(a).resources["movement"] == 0
    b2, a2, t2 = fight(orc_pos=(2, 1), options={"npc_reactions": "ask"})
    b2.act("move", a2, to=[5, 0])
    b2.act("answer", t2, choice="none")
    assert b2.c(a2).pos == [5, 0] and b2.state.pending is None


def test_drilled_pdr_regenerates_one_per_turn_up_to_undamaged():
    # RULE: BLOCK-PDR-1
    b, a, t = fight(ash={"weapons": ["drill"]}, orc={"pdr": 3, "max_speed": 10})
    b.act("attack", a, dice=[4, 4, 6], weapon="drill", targets=[t])  # 6 - 3 = 3 damage, PDR 3 -> 2
    assert b.c(t).resources["pdr"] == 2
    b.act("end_turn", a)
    assert b.c(t).resources["pdr"] == 3  # the Orc's turn started
    b.act("end_turn", t)
    b.act("end_turn", a)
    assert b.c(t).resources["pdr"] == 3


def test_melee_range_is_one_square_and_guns_their_own():
    # RULE: BLOCK-RANGE-1
    b, a, t = fight(orc_pos=(2, 2))
    assert b.try_act("attack", a, weapon="longsword", targets=[t]) == Refusal(
        "Orc is not a valid target in range."
    )
    assert not option(b, a, "attack", weapon="longsword").available
    b2, a2, t2 = fight(orc_pos=(1, 1))  # diagonal neighbour: 5 ft
    assert option(b2, a2, "attack", weapon="longsword").targets == [t2]
    b3, a3, t3 = fight(ash={"weapons": ["revolver"]}, orc_pos=(12, 0))  # 60 ft = 12 squares
    assert option(b3, a3, "attack", weapon="revolver").targets == [t3]
    b4, a4, t4 = fight(ash={"weapons": ["revolver"]}, orc_pos=(13, 0))
    assert option(b4, a4, "attack", weapon="revolver").targets == []


def test_modifiers_chosen_before_the_roll_and_each_target_rolls_separately():
    # RULE: BLOCK-MOD-1
    b = Battle("action-block", width=10, height=6)
    a = b.add("Ash", "party", (1, 1), controller="1", **ASH, attack_modifiers=["sweep"])
    t1 = b.add("Orc", "enemy", (2, 1), **ORC)
    t2 = b.add("Orc 2", "enemy", (0, 0), **{**ORC, "max_speed": 9})
    b.act("setup.start")
    assert b.try_act("attack", a, weapon="longsword", targets=[t1, t2]) == Refusal("At most 1 target.")
    # Orc: 3+3 +1 -1 = 6 < 7 misses; Orc 2: 4+3 +1 -1 = 7 hits, damage 2+2+1
    events = b.act(
        "attack", a, dice=[3, 3, 4, 3, 2, 2], weapon="longsword", modifiers=["sweep"], targets=[t1, t2]
    )
    rolled = [(e.data["target"], e.data["total"], e.data["hit"]) for e in events if e.type == "attack.rolled"]
    assert rolled == [(t1, 6, False), (t2, 7, True)]
    assert b.c(t1).hp == 30 and b.c(t2).hp == 25
    assert b.c(a).resources["speed"] == 30 - 2 - 1


def test_the_log_replays_to_the_same_state():
    # RULE: ENG-1
    b, a, t = fight(orc={"ghost_power": 30}, options={"npc_reactions": "ask"})
    b.act("attack", a, weapon="longsword", targets=[t])
    b.act("answer", t, dice=[4, 4], choice="none")
    b.act("answer", t, dice=[1, 1, 2, 2], choice="block")
    b.act("answer", None, choice="steady")
    assert b.rebuilt().to_dict() == b.state.to_dict()


def test_content_is_validated_data_and_custom_packs_work_in_battle():
    # RULE: ENG-10
    from combat.engine.rulesets.action_block import ActionBlock
    from combat.engine.rulesets.action_block.content import HEROES, MONSTERS, STARTER, validate_block_content

    for sheet in [*HEROES.values(), *MONSTERS.values()]:
        clean, errors = ActionBlock.validate_sheet({**ActionBlock.sheet_schema.defaults(), **sheet})
        assert not errors, errors
    kinds = {w["kind"] for w in STARTER["weapons"].values()}
    assert kinds == {"melee", "gun", "shotgun", "tesla", "shield"} and STARTER["armors"] and STARTER["spells"]
    errors = validate_block_content(
        {
            "weapons": {"axe": {"name": "Axe", "kind": "melee", "damage": "2x"}},
            "charisma_skills": {"glare": {"name": "Glare", "effect": "status", "status": "nope"}},
        }
    )[1]
    assert errors == {
        "weapons.axe.damage": ["The roller does not understand “x”. Write dice like 4d6k3, 1d20+5 or 8d6>5."],
        "charisma_skills.glare.status": ["Name a defined status."],
    }
    pack = {
        "weapons": {
            "axe": {
                "name": "Great Axe",
                "kind": "melee",
                "damage": "1d12",
                "damage_bonus": 2,
                "speed_cost": 3,
                "strength_cost": 3,
                "weight": 4,
            }
        }
    }
    b = Battle("action-block", content=pack)
    refused = b.submit(
        "setup.add_combatant",
        None,
        None,
        {"name": "X", "side": "party", "sheet": {"weapons": ["nope"]}, "pos": [0, 0]},
    )
    assert refused == Refusal("Unknown weapons: nope.")
    a = b.add("Ash", "party", (0, 0), controller="1", max_speed=30, max_strength=30, weapons=["axe"])
    t = b.add("Orc", "enemy", (1, 0), **ORC)
    b.act("setup.start")
    assert b.c(a).resources["strength"] == 30 - 4
    b.act("attack", a, dice=[4, 4, 10], weapon="axe", targets=[t])
    assert b.c(t).hp == 30 - 12 and b.c(a).resources["speed"] == 30 - 3


def test_a_move_waiting_on_obstruct_stops_short_of_a_square_taken_meanwhile():
    # RULE: BLOCK-MOVE-1
    # While the Orc decides, the GM moves a Goblin onto the end of Ash's path: Ash goes no further
    # than the last free square, never onto the Goblin's (found by the property test, seed 2775).
    # With an ally put on the square before it too, Ash may cross that one but not stop there.
    for ally_there, stops in ((False, [3, 0]), (True, [2, 0])):
        b = Battle("action-block", {"npc_reactions": "ask"}, width=14, height=8)
        a = b.add("Ash", "party", (0, 0), controller="1", **ASH)
        t = b.add("Orc", "enemy", (2, 1), **ORC)
        g = b.add("Goblin", "enemy", (9, 5), max_speed=0, hp=5)  # no Speed: it cannot obstruct
        bea = b.add("Bea", "party", (9, 3), controller="2", max_speed=5)
        b.act("setup.start")
        b.act("move", a, path=[[1, 0], [2, 0], [3, 0], [4, 0]])
        p = b.state.pending
        assert p.combatant == t and b.c(a).pos == [1, 0]  # asked before Ash steps next to the Orc
        b.act("gm.move", None, combatant=g, to=[4, 0])
        if ally_there:
            b.act("gm.move", None, combatant=bea, to=[3, 0])
        b.act("answer", t, choice="none")
        assert b.c(a).pos == stops and b.c(g).pos == [4, 0] and b.state.pending is None
        squares = [tuple(c.pos) for c in b.state.combatants.values() if c.alive and c.pos is not None]
        assert len(squares) == len(set(squares))
    # The GM moves Ash itself while the Orc decides: the move does not pull Ash back onto its path.
    b, a, t = fight(orc_pos=(2, 1), options={"npc_reactions": "ask"})
    b.act("move", a, path=[[1, 0], [2, 0], [3, 0], [4, 0]])
    b.act("gm.move", None, combatant=a, to=[0, 5])
    b.act("answer", t, choice="none")
    assert b.c(a).pos == [0, 5] and b.state.pending is None


def test_obstruct_is_never_offered_while_crossing_an_ally():
    # RULE: BLOCK-MOVE-1
    b = Battle("action-block", {"npc_reactions": "ask"}, width=6, height=2)
    a = b.add("Ash", "party", (0, 0), controller="1", **ASH)
    b.add("Bea", "party", (1, 0), controller="2", max_speed=20)
    t = b.add("Orc", "enemy", (2, 1), **ORC)
    b.act("setup.start")
    b.act("move", a, path=[[1, 0], [2, 0], [3, 0]])  # (1, 0) is Bea's square, next to the Orc
    p = b.state.pending
    assert p.combatant == t and p.resume["at"] == 2 and b.c(a).pos == [2, 0]  # asked where Ash may stop
    b.act("answer", t, choice="obstruct")
    assert b.c(a).pos == [2, 0] and b.c(a).pos != b.c(b.state.order[1]).pos
