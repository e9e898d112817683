"""Mist & Rampart ramparts: zones, free attacks through reaction windows, Disengage."""

from __future__ import annotations

from combat.engine.actions import Refusal
from combat.engine.core import legal_actions
from combat.engine.rulesets.mist.content import HEROES, MONSTERS
from combat.engine.testing import Battle

KNIGHT = {**HEROES["Knight"], "abilities": ["strike", "crushing_blow", "shield_bash", "leap"]}
GOBLIN = {**MONSTERS["Goblin"], "evasion": 50}
GOLEM = MONSTERS["Iron Golem"]


def guarded(goblin_pos=(3, 2), options=None, knight=None, goblin=None):
    """Knight (user 7) at (2,2) turns Rampart 1 on and ends the turn; the Goblin's turn begins."""
    b = Battle("mist", options, width=10, height=10)
    k = b.add("Knight", "party", (2, 2), controller="7", **(knight or KNIGHT))
    g = b.add("Goblin", "enemy", goblin_pos, **(goblin or GOBLIN))
    b.act("setup.start", dice=[15, 5])
    ev = b.act("rampart", k, on=True)
    assert ev[0].type == "rampart.toggled" and b.c(k).resources["slots"] == 3  # no slot cost
    b.act("end_turn", k)
    assert b.state.current().id == g
    return b, k, g


def test_rampart_toggles_without_slot_cost_for_heavy_armor_only():
    # RULE: MIST-RAMP-1
    b, k, g = guarded()
    assert b.c(k).extra["rampart_on"] is True
    b.act("end_turn", g, dice=[15, 5])
    b.act("rampart", k, on=False)
    assert b.c(k).extra["rampart_on"] is False
    assert b.try_act("rampart", k, on=False) == Refusal("The rampart is already off.")
    b2 = Battle("mist")
    m = b2.add("Mage", "party", (0, 0), **HEROES["Mage"])
    b2.add("Goblin", "enemy", (5, 0), **GOBLIN)
    b2.act("setup.start", dice=[20, 1])
    assert b2.try_act("rampart", m, on=True) == Refusal(
        "Mage has no Rampart (it needs heavy armor or a job that grants it)."
    )
    assert not any(o.kind == "rampart" for o in legal_actions(b2.state, m))


def test_leaving_the_zone_opens_a_reaction_window_for_the_holder():
    # RULE: MIST-RAMP-2
    # RULE: MIST-RAMP-3
    b, k, g = guarded()
    ev = b.act("move", g, path=[[4, 2], [5, 2]])
    assert b.types(ev) == ["decision.opened"]
    p = b.state.pending
    assert (p.combatant, p.controller) == (k, "7")
    assert p.choice_keys() == ["strike", "pass"]  # Chain 1 only: not the finisher, the static or the leap
    assert b.c(g).pos == [3, 2]  # the attack comes before the move completes
    assert b.try_act("end_turn", g).reason.startswith("Waiting for Knight to answer")
    assert [o.params["choice"] for o in legal_actions(b.state, k)] == ["strike", "pass"]
    ev = b.act("answer", k, dice=[40, 10, 10], decision=p.id, choice="strike")
    hit = next(e for e in ev if e.type == "attack.rolled")
    assert (hit.data["roll"], hit.data["accuracy"], hit.data["evasion"], hit.data["hit"]) == (
        40,
        60,
        50,
        True,
    )  # 40 + 60 >= 50
    dmg = next(e for e in ev if e.type == "damage.dealt")
    assert dmg.data["amount"] == 10 + 10 + 20 + 10 - 8  # 2d20+20, attack 10, DEF 8
    assert b.types(ev)[-1] == "moved"
    assert b.c(g).pos == [5, 2]
    assert b.c(g).resources["move"] == 3
    assert b.c(k).resources["slots"] == 3  # a free attack


def test_passing_through_provokes_stopping_inside_does_not():
    # RULE: MIST-RAMP-2
    b, k, g = guarded(goblin_pos=(4, 2))
    b.act("move", g, path=[[3, 2]])  # into the zone and stop: nothing
    assert b.state.pending is None and b.c(g).pos == [3, 2]
    b, k, g = guarded(goblin_pos=(4, 1))
    ev = b.act("move", g, path=[[3, 1], [2, 1], [1, 1]])  # (2,1) is in Rampart 1 of (2,2)
    assert b.types(ev) == ["moved", "decision.opened"]
    assert b.c(g).pos == [2, 1]
    b.act("answer", None, decision=b.state.pending.id, choice="pass")  # the GM answers for the player
    assert b.c(g).pos == [1, 1]


def test_allies_and_disengaged_enemies_move_freely():
    # RULE: MIST-RAMP-2
    # RULE: MIST-RAMP-4
    b, k, g = guarded()
    ev = b.act("disengage", g)
    assert "spend" not in ev[0].data  # simple: the first is free
    b.act("move", g, path=[[4, 2], [5, 2]])
    assert b.state.pending is None and b.c(g).pos == [5, 2]
    b = Battle("mist")
    k = b.add("Knight", "party", (2, 2), controller="7", **KNIGHT)
    m = b.add("Mage", "party", (3, 2), controller="8", **HEROES["Mage"])
    b.add("Goblin", "enemy", (9, 7), **GOBLIN)
    b.act("setup.start", dice=[20, 10, 1])
    b.act("rampart", k, on=True)
    b.act("end_turn", k)
    b.act("move", m, path=[[4, 2]])
    assert b.state.pending is None


def test_disengage_type_is_a_house_rule():
    # RULE: MIST-RAMP-4
    b, k, g = guarded(options={"disengage_type": "static"})
    ev = b.act("disengage", g)
    assert ev[0].data["spend"] == {"slots": 1}
    assert b.try_act("disengage", g) == Refusal("Already disengaged this turn.")
    b, k, g = guarded()
    b.act("ability", g, ability="tumble")  # a similar ability: Chain 1 that counts as Disengage
    b.act("move", g, path=[[4, 2]])
    assert b.state.pending is None


def test_npc_holder_attacks_by_default_policy():
    # RULE: MIST-RAMP-3
    b = Battle("mist")
    k = b.add("Knight", "party", (2, 2), controller="7", **KNIGHT)
    o = b.add("Golem", "enemy", (3, 2), **GOLEM)
    b.act("setup.start", dice=[1, 20])
    b.act("rampart", o, on=True)
    b.act("end_turn", o)
    ev = b.act("move", k, dice=[99, 1, 1], path=[[1, 2]])
    assert [e.data.get("by") for e in ev if e.type == "decision.answered"] == ["policy"]
    assert next(e for e in ev if e.type == "damage.dealt").data["amount"] == 1 + 1 + 20 + 15 - 30
    assert b.c(k).pos == [1, 2] and b.state.pending is None


def test_rampart_n_reaches_diagonals_and_one_attack_per_move():
    # RULE: MIST-RAMP-1
    # RULE: MIST-RANGE-1
    b, k, g = guarded(goblin_pos=(3, 3), knight={**KNIGHT, "rampart": 2})
    b.act("move", g, path=[[4, 3], [5, 3]])  # leaves (3,3), then (4,3), both inside Rampart 2
    b.act("answer", k, decision=b.state.pending.id, choice="pass")
    assert b.c(g).pos == [5, 3] and b.state.pending is None


def test_a_felled_mover_stops_where_it_was_hit():
    # RULE: MIST-RAMP-3
    b, k, g = guarded(goblin={**GOBLIN, "hp": 10})
    b.act("move", g, path=[[4, 2], [5, 2]])
    ev = b.act("answer", k, dice=[50, 5, 5], decision=b.state.pending.id, choice="strike")
    assert b.c(g).ko and b.c(g).pos == [3, 2]
    assert "move.stopped" in b.types(ev)
    assert b.state.phase == "ended"  # the only enemy is down (ENG-9)


def test_moving_to_a_square_prefers_a_path_around_the_rampart():
    # RULE: MIST-RAMP-2
    b, k, g = guarded(goblin_pos=(4, 1))
    ev = b.act("move", g, to=[1, 1])  # 5 steps around (2,1) rather than 3 through it
    assert b.state.pending is None and b.c(g).pos == [1, 1]
    assert ev[0].data["path"] == [[4, 1], [3, 1], [3, 0], [2, 0], [1, 0], [1, 1]]
    b, k, g = guarded(goblin_pos=(4, 1), goblin={**GOBLIN, "movement": 3})
    b.act("move", g, to=[1, 1])  # too far around: the short way provokes
    assert b.state.pending is not None and b.c(g).pos == [2, 1]
