"""Mist & Rampart arithmetic, one rule at a time (pure functions, no battle)."""

from __future__ import annotations

from combat.engine.board import manhattan, within
from combat.engine.rulesets.mist import rules as r


def test_source_example_100_physical_on_20_def_leaves_80():
    # RULE: MIST-DMG-1
    assert r.reduced_damage(100, defence=20) == 80
    assert r.damage_against({"defense": 20, "magic_defense": 5}, 100, "physical") == 80


def test_magical_damage_uses_mdf_plus_element_resistance():
    # RULE: MIST-DMG-1
    sheet = {"defense": 50, "magic_defense": 10, "resistances": "ice:15, fire:5"}
    assert r.damage_against(sheet, 60, "magical", "ice") == 35
    assert r.damage_against(sheet, 60, "magical", "fire") == 45
    assert r.damage_against(sheet, 60, "magical", "") == 50
    assert r.damage_against(sheet, 5, "magical", "ice") == 0  # never below zero


def test_irreducible_damage_and_weakness_after_reduction():
    # RULE: MIST-DMG-2
    sheet = {"defense": 20, "magic_defense": 20, "weaknesses": "fire, holy"}
    assert r.damage_against(sheet, 100, "physical", irreducible=True) == 100
    assert r.damage_against(sheet, 50, "magical", "fire") == 60  # (50 - 20) * 2
    assert r.damage_against(sheet, 50, "magical", "fire", weakness_multiplier=3) == 90
    assert r.damage_against(sheet, 50, "magical", "ice") == 30
    assert r.damage_against(sheet, 10, "physical", "holy") == 0


def test_source_example_mnd_100_vs_res_40_avoided_on_60_not_59():
    # RULE: MIST-SAVE-1
    assert r.save_avoids(60, stat=40, against=100)
    assert r.save_avoids(61, stat=40, against=100)
    assert not r.save_avoids(59, stat=40, against=100)


def test_accuracy_meets_or_exceeds_evasion():
    # RULE: MIST-HIT-1
    assert r.accuracy_hits(10, accuracy=50, evasion=60)
    assert not r.accuracy_hits(9, accuracy=50, evasion=60)
    assert r.accuracy_hits(None, accuracy=60, evasion=60)
    assert not r.accuracy_hits(None, accuracy=59, evasion=60)


def test_range_is_manhattan_distance():
    # RULE: MIST-RANGE-1
    assert manhattan((5, 5), (5, 4)) == 1
    assert manhattan((5, 5), (6, 6)) == 2  # a diagonal is range 2
    assert manhattan((5, 5), (7, 6)) == 3


def test_area_n_is_the_manhattan_diamond():
    # RULE: MIST-AOE-1
    assert sorted(within((5, 5), 1, 20, 20, "manhattan")) == [(4, 5), (5, 4), (5, 5), (5, 6), (6, 5)]
    assert len(within((5, 5), 2, 20, 20, "manhattan")) == 13
    assert len(within((5, 5), 3, 20, 20, "manhattan")) == 25
    assert sorted(within((0, 0), 1, 20, 20, "manhattan")) == [(0, 0), (0, 1), (1, 0)]  # clipped at the edge


def test_initiative_ties_broken_by_speed_then_roll_off():
    # RULE: MIST-INIT-2
    calls = []
    rolls = iter([{"c3": 5, "c4": 5}, {"c3": 2, "c4": 9}])

    def roll_off(ids):
        calls.append(ids)
        return next(rolls)

    order = r.initiative_order(
        {"c1": 12, "c2": 12, "c3": 15, "c4": 15, "c5": 20},
        {"c1": 3, "c2": 8, "c3": 4, "c4": 4, "c5": 0},
        roll_off,
    )
    assert order == ["c5", "c4", "c3", "c2", "c1"]
    assert calls == [["c3", "c4"], ["c3", "c4"]]  # the roll-off repeats until resolved


def test_paths_pass_allies_not_enemies():
    # RULE: MIST-MOVE-3
    kw = {"width": 10, "height": 10, "blocked": {(3, 0)}, "allies": {(1, 0)}, "enemies": {(1, 1)}}
    assert r.path_problem([(1, 0), (2, 0)], (0, 0), **kw) == ""
    assert "ally" in r.path_problem([(1, 0)], (0, 0), **kw)
    assert "enemy" in r.path_problem([(0, 1), (1, 1), (2, 1)], (0, 0), **kw)
    assert "blocked" in r.path_problem([(1, 0), (2, 0), (3, 0)], (0, 0), **kw)
    assert "cardinal" in r.path_problem([(1, 1)], (0, 0), **kw)


def test_rampart_provokes_on_leaving_or_passing_through_once_per_holder():
    # RULE: MIST-RAMP-2
    holders = {"k": (5, 5)}
    # Leaving a square inside Rampart 1 provokes at the start square.
    assert r.rampart_provocations((5, 6), [(5, 7)], {"k": 1}, holders) == [(0, "k")]
    # Entering the zone and stopping there does not.
    assert r.rampart_provocations((5, 8), [(5, 7), (5, 6)], {"k": 1}, holders) == []
    # Passing through a zone square without stopping does, at that square.
    assert r.rampart_provocations((3, 6), [(4, 6), (5, 6), (6, 6), (7, 6)], {"k": 1}, holders) == [(2, "k")]
    # Rampart 2 reaches the diagonal; one attack per holder per move.
    assert r.rampart_provocations((6, 6), [(7, 6), (8, 6)], {"k": 2}, holders) == [(0, "k")]
    assert r.rampart_provocations((6, 6), [(7, 6)], {"k": 2}, holders, already={"k"}) == []


def test_resistance_strings_parse_and_report_errors():
    assert r.parse_resistances("Fire:10, ice: 5, junk") == {"fire": 10, "ice": 5}
    assert r.parse_weaknesses(" Fire ,holy,") == {"fire", "holy"}
    assert r.resistance_errors("fire:10, ice") == ["'ice': write element:amount, e.g. fire:10."]
    assert r.resistance_errors("fire:x") == ["'fire:x': the amount must be a whole number."]
    assert r.resistance_errors("") == []
