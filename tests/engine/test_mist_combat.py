"""Mist & Rampart combat with worked numbers: MP, accuracy, damage, KO and LP, range, area, saves."""

from __future__ import annotations

from combat.engine.actions import Refusal
from combat.engine.core import legal_actions
from combat.engine.rulesets.mist.content import HEROES, MONSTERS
from combat.engine.testing import Battle

KNIGHT = HEROES["Knight"]
MAGE = HEROES["Mage"]
CLERIC = HEROES["Cleric"]
GOBLIN = MONSTERS["Goblin"]


def fight(attacker, target, options=None, content=None, target_pos=(3, 2), dice=(20, 1)):
    """Attacker (party, user 7) at (2,2) acts first against the target (enemy)."""
    b = Battle("mist", options, width=10, height=10, content=content)
    a = b.add("Attacker", "party", (2, 2), controller="7", **attacker)
    t = b.add("Target", "enemy", target_pos, **target)
    b.act("setup.start", dice=list(dice))
    assert b.state.current().id == a
    return b, a, t


def dealt(events):
    return [(e.data["target"], e.data["amount"]) for e in events if e.type == "damage.dealt"]


# --- MP -------------------------------------------------------------------------------------------


def test_mp_starts_at_zero_and_grows_each_initiative():
    # RULE: MIST-MP-1
    b = Battle("mist")
    m = b.add("Mage", "party", (0, 0), controller="8", **MAGE)  # MP Gain 2
    g = b.add("Goblin", "enemy", (5, 0), **GOBLIN)
    assert b.c(m).resources["mp"] == 0
    b.act("setup.start", dice=[20, 1])
    assert (b.c(m).resources["mp"], b.c(g).resources["mp"]) == (7, 5)
    b.act("end_turn", m)
    b.act("end_turn", g, dice=[20, 1])
    assert (b.c(m).resources["mp"], b.c(g).resources["mp"]) == (14, 10)


def test_mp_costs_are_needed_and_consumed():
    # RULE: MIST-MP-2
    b, m, g = fight({**MAGE, "mp_gain": 0}, GOBLIN, target_pos=(6, 2))
    b.act("ability", m, dice=[90, 1, 1], ability="fire_bolt", targets=[g])
    assert b.c(m).resources["mp"] == 3
    assert b.try_act("ability", m, ability="flame_burst", square=[6, 2]) == Refusal(
        "Needs 5 MP; Attacker has 3."
    )
    burst = next(o for o in legal_actions(b.state, m) if o.params.get("ability") == "flame_burst")
    assert (burst.available, burst.reason) == (False, "Needs 5 MP; Attacker has 3.")


# --- accuracy -------------------------------------------------------------------------------------


def test_accuracy_check_1d100_plus_accuracy_meets_evasion():
    # RULE: MIST-HIT-1
    attacker = {**KNIGHT, "accuracy": 50}
    b, a, t = fight(attacker, {**GOBLIN, "evasion": 60})
    ev = b.act("ability", a, dice=[10, 1, 1], ability="strike", targets=[t])  # 10 + 50 = 60: hit
    assert len(dealt(ev)) == 1
    ev = b.act("ability", a, dice=[9], ability="strike", targets=[t])  # 59: miss, no damage roll
    assert [e.data["hit"] for e in ev if e.type == "attack.rolled"] == [False]
    assert dealt(ev) == []


def test_accuracy_without_the_d100_house_rule():
    # RULE: MIST-HIT-1
    b, a, t = fight({**KNIGHT, "accuracy": 60}, {**GOBLIN, "evasion": 60}, {"accuracy_adds_d100": False})
    ev = b.act("ability", a, dice=[1, 1], ability="strike", targets=[t])  # only the damage dice
    assert len(dealt(ev)) == 1
    b2, a2, t2 = fight({**KNIGHT, "accuracy": 59}, {**GOBLIN, "evasion": 60}, {"accuracy_adds_d100": False})
    assert dealt(b2.act("ability", a2, ability="strike", targets=[t2])) == []


# --- damage ---------------------------------------------------------------------------------------


def test_source_example_100_physical_damage_on_20_def_takes_80_hp():
    # RULE: MIST-DMG-1
    b, a, t = fight({**KNIGHT, "attack": 40}, {**GOBLIN, "defense": 20, "hp": 200})
    ev = b.act("ability", a, dice=[99, 20, 20], ability="strike", targets=[t])  # 2d20+20 = 60, +40 attack
    assert next(e for e in ev if e.type == "damage.dealt").data["raw"] == 100
    assert dealt(ev) == [(t, 80)]
    assert b.c(t).hp == 120


def test_magical_damage_is_reduced_by_mdf_and_element_resistance():
    # RULE: MIST-DMG-1
    target = {**GOBLIN, "magic_defense": 10, "resistances": "fire:15", "weaknesses": "", "hp": 200}
    b, m, t = fight(MAGE, target, target_pos=(6, 2))
    ev = b.act("ability", m, dice=[99, 10, 10], ability="fire_bolt", targets=[t])  # 2d20+10 +10 magic = 40
    assert dealt(ev) == [(t, 40 - 10 - 15)]


def test_irreducible_damage_and_weakness_after_reduction():
    # RULE: MIST-DMG-2
    content = {
        "abilities": {
            "true_strike": {"name": "True Strike", "type": "chain", "damage": "2d20", "irreducible": True}
        }
    }
    b, a, t = fight(
        {**KNIGHT, "attack": 0, "abilities": ["true_strike"]}, {**GOBLIN, "defense": 50}, content=content
    )
    assert dealt(b.act("ability", a, dice=[99, 15, 15], ability="true_strike", targets=[t])) == [(t, 30)]
    target = {**GOBLIN, "magic_defense": 5, "weaknesses": "fire", "hp": 300}  # the Goblin is weak to fire
    b, m, t = fight(MAGE, target, target_pos=(6, 2))
    assert dealt(b.act("ability", m, dice=[99, 10, 10], ability="fire_bolt", targets=[t])) == [
        (t, (40 - 5) * 2)
    ]
    b, m, t = fight(MAGE, target, {"weakness_multiplier": 3}, target_pos=(6, 2))
    assert dealt(b.act("ability", m, dice=[99, 10, 10], ability="fire_bolt", targets=[t])) == [
        (t, (40 - 5) * 3)
    ]


# --- KO, LP, death ----------------------------------------------------------------------------------


def test_zero_hp_or_less_is_ko_and_unconscious():
    # RULE: MIST-KO-1
    b = Battle("mist")
    a = b.add("Knight", "party", (2, 2), controller="7", **KNIGHT)
    t = b.add("Goblin", "enemy", (3, 2), **{**GOBLIN, "hp": 30, "defense": 0})
    b.add("Goblin 2", "enemy", (7, 7), **GOBLIN)
    b.act("setup.start", dice=[20, 1, 2])
    ev = b.act("ability", a, dice=[99, 20, 20], ability="strike", targets=[t])  # 70 on 30 HP
    e = next(e for e in ev if e.type == "damage.dealt")
    assert (e.data["hp"], e.data["ko"]) == (0, True)
    assert b.c(t).ko and b.c(t).alive and b.c(t).resources["lp"] == 1
    b.act("end_turn", a)
    assert b.state.current().name == "Goblin 2"  # the KO goblin's turn is skipped


def test_a_trait_may_keep_a_ko_character_conscious():
    # RULE: MIST-KO-1
    b, a, t = fight(KNIGHT, {**GOBLIN, "conscious_at_ko": True, "hp": 10, "defense": 0})
    b.act("ability", a, dice=[99, 1, 1], ability="strike", targets=[t])
    assert b.c(t).ko and b.state.phase == "active"
    b.act("end_turn", a)
    assert b.state.current().id == t


def test_while_ko_each_damage_instance_costs_exactly_one_lp():
    # RULE: MIST-KO-2
    b, a, t = fight(KNIGHT, {**GOBLIN, "lp": 3, "conscious_at_ko": True, "defense": 0})
    b.act("gm.set_hp", combatant=t, hp=0)
    ev = b.act("ability", a, dice=[99, 20, 20], ability="strike", targets=[t])  # a 70-point hit
    lost = next(e for e in ev if e.type == "lp.lost")
    assert (lost.data["amount"], lost.data["lp"]) == (70, 2)
    assert b.c(t).hp == 0 and b.c(t).resources["lp"] == 2
    b.act("ability", a, dice=[99, 1, 1], ability="strike", targets=[t])  # a small hit: still exactly 1
    assert b.c(t).resources["lp"] == 1


def test_zero_lp_is_death():
    # RULE: MIST-KO-3
    b, a, t = fight(KNIGHT, {**GOBLIN, "lp": 1, "conscious_at_ko": True})
    b.act("gm.set_hp", combatant=t, hp=0)
    ev = b.act("ability", a, dice=[99, 5, 5], ability="strike", targets=[t])
    assert next(e for e in ev if e.type == "lp.lost").data["alive"] is False
    assert not b.c(t).alive
    assert b.state.phase == "ended" and b.state.result["winner"] == "party"


def test_healing_lifts_ko():
    # RULE: MIST-KO-1
    b, c, t = fight(CLERIC, GOBLIN, target_pos=(8, 8))
    b.act("gm.add_combatant", name="Squire", side="party", sheet={"hp": 50}, pos=[2, 3])
    squire = next(cid for cid, x in b.state.combatants.items() if x.name == "Squire")
    b.act("gm.set_hp", combatant=squire, hp=0)
    ev = b.act("ability", c, dice=[1, 1], ability="cure", targets=[squire])  # 2d20+20 + 5 magic
    assert next(e for e in ev if e.type == "healed").data["amount"] == 27
    assert b.c(squire).hp == 27 and not b.c(squire).ko


# --- range and area ---------------------------------------------------------------------------------


def test_range_counts_cardinal_steps():
    # RULE: MIST-RANGE-1
    b, a, t = fight(KNIGHT, GOBLIN, target_pos=(3, 3))  # diagonal: range 2
    assert b.try_act("ability", a, ability="strike", targets=[t]) == Refusal(
        "Target is out of range (2 > 1)."
    )
    strike = next(o for o in legal_actions(b.state, a) if o.params.get("ability") == "strike")
    assert (strike.available, strike.reason) == (False, "No target in range.")
    content = {"abilities": {"spear": {"name": "Spear", "type": "chain", "range": 2, "damage": "1d20"}}}
    b, a, t = fight({**KNIGHT, "abilities": ["spear"]}, GOBLIN, content=content, target_pos=(3, 3))
    assert len(dealt(b.act("ability", a, dice=[99, 10], ability="spear", targets=[t]))) == 1


def test_area_affects_every_square_within_manhattan_n():
    # RULE: MIST-AOE-1
    b = Battle("mist", width=10, height=10)
    m = b.add("Mage", "party", (2, 5), controller="8", **MAGE)
    k = b.add("Knight", "party", (5, 4), controller="7", **KNIGHT)
    g1 = b.add("G1", "enemy", (5, 5), **GOBLIN)
    g2 = b.add("G2", "enemy", (6, 5), **GOBLIN)
    g3 = b.add("G3", "enemy", (6, 6), **GOBLIN)  # diagonal of the centre: outside area 1
    b.act("setup.start", dice=[20, 1, 2, 3, 4])
    ev = b.act("ability", m, dice=[1, 1, 1, 1, 1, 1, 1, 1, 1], ability="flame_burst", square=[5, 5])
    hit = {t for t, _ in dealt(ev)}
    assert hit == {k, g1, g2}  # "affects all": the Knight in the area is hit too
    assert g3 not in hit
    assert next(e for e in ev if e.type == "ability.used").data["spend"] == {"slots": 2, "mp": 5}


# --- saving throws ----------------------------------------------------------------------------------


def test_source_example_mnd_100_vs_res_40_avoided_on_60_not_on_59():
    # RULE: MIST-SAVE-1
    assert MAGE["mnd"] == 100
    b, m, t = fight(MAGE, {**GOBLIN, "res": 40}, target_pos=(5, 2))
    ev = b.act("ability", m, dice=[60], ability="darkness", targets=[t])
    save = next(e for e in ev if e.type == "save.rolled")
    assert (save.data["roll"], save.data["value"], save.data["target_number"], save.data["avoided"]) == (
        60,
        40,
        100,
        True,
    )
    assert "blind" not in b.c(t).statuses
    ev = b.act("ability", m, dice=[59], ability="darkness", targets=[t])
    assert next(e for e in ev if e.type == "save.rolled").data["avoided"] is False
    assert b.c(t).statuses["blind"]["duration"] == 2


def test_blind_lowers_accuracy():
    # RULE: MIST-SAVE-1
    b, k, g = fight(KNIGHT, {**GOBLIN, "evasion": 60})
    b.act("gm.add_status", combatant=k, status="blind", duration=2)
    ev = b.act("ability", k, dice=[49], ability="strike", targets=[g])  # 49 + 60 - 50 = 59 < 60
    assert [e.data["accuracy"] for e in ev if e.type == "attack.rolled"] == [10]
    assert dealt(ev) == []


def test_some_sources_allow_no_saving_throw():
    # RULE: MIST-SAVE-2
    b, m, t = fight(MAGE, {**HEROES["Mage"], "abilities": ["fire_bolt"]}, target_pos=(4, 2))
    ev = b.act("ability", m, ability="hush", targets=[t])  # no dice at all
    assert "save.rolled" not in b.types(ev)
    assert b.c(t).statuses["silence"]["duration"] == 2
    b.act("end_turn", m)
    assert b.try_act("ability", t, ability="fire_bolt", targets=[m]) == Refusal(
        "Target cannot cast spells (Silence)."
    )


def test_statuses_wear_off_at_the_end_of_their_bearers_turns():
    b, m, t = fight(MAGE, GOBLIN, target_pos=(4, 2))
    b.act("ability", m, ability="hush", targets=[t])
    b.act("end_turn", m)
    b.act("end_turn", t, dice=[20, 1])
    assert b.c(t).statuses["silence"]["duration"] == 1
    b.act("end_turn", m)
    b.act("end_turn", t, dice=[20, 1])
    assert "silence" not in b.c(t).statuses


def test_a_hit_fully_absorbed_is_no_damage_instance_while_ko():
    # RULE: MIST-KO-2
    b, a, t = fight({**KNIGHT, "attack": 0}, {**GOBLIN, "lp": 3, "defense": 200, "conscious_at_ko": True})
    b.act("gm.set_hp", combatant=t, hp=0)
    ev = b.act("ability", a, dice=[99, 5, 5], ability="strike", targets=[t])  # 30 against DEF 200
    assert dealt(ev) == [(t, 0)] and "lp.lost" not in b.types(ev)
    assert b.c(t).resources["lp"] == 3
