"""Paradigm Rows: the Effect Phase, advancing, the Paradigm Phase and eidolons, with worked numbers."""

from __future__ import annotations

from combat.engine.actions import Refusal
from combat.engine.core import legal_actions
from combat.engine.testing import Battle
from tests.engine.paradigm_duel import ASH, ORC, duel, option


def test_effect_phase_resolves_damage_then_healing_then_statuses():
    # RULE: PARA-EFF-1
    b, a, o, _ = duel(ash={"abilities": ["prayer"]})
    b.act("gm.add_status", combatant=a, status="poison", duration=2)
    ev = b.act("ability", a, ability="prayer")  # heals every ally, but only in the coming Effect Phase
    assert "healed" not in b.types(ev) and b.state.extra["queued"][0]["ability"] == "prayer"
    b.act("end_turn", a)
    ev = b.act("end_turn", o, dice=[3, 5])  # Poison 3 first (30 -> 27), then Prayer 5 (27 -> 30, capped)
    # what caused each is named like the action parameters: the status's own key, the ability's key
    effects = [
        (
            e.type,
            e.data.get("amount"),
            e.data.get("status") if e.type != "status.updated" else None,
            e.data.get("ability"),
        )
        for e in ev
        if e.type in ("damage.dealt", "healed", "status.updated", "status.removed")
    ]
    assert effects == [
        ("damage.dealt", 3, "poison", None),
        ("healed", 3, None, "prayer"),
        ("status.updated", None, None, None),
    ]
    assert b.c(a).hp == 30 and b.c(a).statuses["poison"]["duration"] == 1 and b.state.extra["queued"] == []


def test_statuses_applied_in_the_effect_phase_come_after_damage_and_healing():
    # RULE: PARA-EFF-1
    content = {
        "abilities": {
            "doom": {"name": "Doom", "type": "status", "status": "weaken", "timing": "effect"},
            "quake": {"name": "Quake", "type": "physical", "dice": "1d4", "timing": "effect"},
        }
    }
    b, a, o, _ = duel(ash={"abilities": ["doom", "quake"]}, content=content)
    b.act("ability", a, ability="doom", targets=[o])
    b.act("ability", a, ability="quake", targets=[o])
    ev = b.act("end_turn", o, dice=[4])  # Quake (queued second) still lands before Doom's status
    kinds = [e.type for e in ev if e.type in ("damage.dealt", "status.applied")]
    assert kinds == ["damage.dealt", "status.applied"] and b.c(o).hp == 20 - (4 + 2 - 1)
    assert b.c(o).statuses["weaken"]["duration"] == 2


def test_a_side_facing_an_empty_front_row_may_advance():
    # RULE: PARA-ADV-1
    b, a, o, _ = duel(orc_row="back")
    b.act("end_turn", a)
    b.act("end_turn", o)  # Effect Phase: the enemy front row is empty, the players are asked
    p = b.state.pending
    assert p.combatant == a and p.controller == "7" and p.choice_keys() == ["advance", "stay"]
    ev = b.act("answer", a, choice="advance")
    assert b.types(ev)[:3] == ["decision.answered", "side.advanced", "row.changed"]
    assert b.c(o).row == "front"
    b.act("attack", a, dice=[5], targets=[o])  # now within melee reach
    assert b.c(o).hp == 14
    b, a, o, _ = duel(ash_row="back")  # the monster advances on Ash by its policy
    b.act("end_turn", a)
    ev = b.act("end_turn", o)
    answered = next(e for e in ev if e.type == "decision.answered")
    assert (answered.data["combatant"], answered.data["choice"], answered.data["by"]) == (
        o,
        "advance",
        "policy",
    )
    assert b.c(a).row == "front"


def test_when_both_sides_are_back_row_only_the_players_choose_first():
    # RULE: PARA-ADV-2
    b, a, o, _ = duel(ash_row="back", orc_row="back", options={"npc_reactions": "ask"})
    b.act("end_turn", a)
    b.act("end_turn", o)
    assert b.state.pending.combatant == a  # the players first
    b.act("answer", a, choice="stay")
    assert b.state.pending.combatant == o and b.c(o).row == "back"  # then their enemies
    b.act("answer", None, choice="advance")
    assert (b.c(a).row, b.c(o).row) == ("front", "back")
    assert b.state.round == 2 and b.state.pending is None


def test_paradigm_phase_switches_jobs_keeping_statuses():
    # RULE: PARA-JOB-1
    b = Battle("paradigm")
    a = b.add("Ash", controller="7", **ASH, job="knight", jobs=["knight", "black_mage"])
    o = b.add("Orc", "enemy", **ORC)
    b.act("setup.start", dice=[15, 10])
    assert [x["key"] for x in b.state.pending.options] == ["keep", "job:black_mage"]
    b.act("answer", a, choice="keep")
    b.act("ability", a, ability="shield_wall")  # Protect on every ally: DEF 1 + Knight 2 + Protect 3
    assert {x.params["ability"] for x in legal_actions(b.state, a) if x.kind == "ability"} == {
        "power_strike",
        "shield_wall",
    }
    b.act("end_turn", a)
    b.act("end_turn", o)
    assert (b.state.pending.prompt, b.state.pending.about) == (
        "Switch job before your turn?",
        "whether to switch job",
    )
    ev = b.act("answer", a, choice="job:black_mage")
    assert next(e for e in ev if e.type == "job.switched").data["previous"] == "knight"
    assert {x.params["ability"] for x in legal_actions(b.state, a) if x.kind == "ability"} == {
        "fire",
        "blizzard",
    }
    assert "protect" in b.c(a).statuses
    b.act("end_turn", a)
    ev = b.act("attack", o, dice=[6], targets=[a])  # 6 + 1 - (DEF 1 + Protect 3, no Knight bonus) = 3
    assert next(e for e in ev if e.type == "damage.dealt").data["defense"] == 4 and b.c(a).hp == 27


def test_antagonists_take_their_paradigm_actions_before_the_players():
    # RULE: PARA-JOB-2
    b = Battle("paradigm", {"npc_reactions": "ask"})
    a = b.add("Ash", controller="7", **ASH, job="knight", jobs=["knight", "ranger"])
    o = b.add("Orc", "enemy", **ORC, job="brute", jobs=["brute", "shaman"])
    b.act("setup.start", dice=[15, 10])  # Ash is first in initiative, yet the Orc is asked first
    assert b.state.pending.combatant == o
    assert b.try_act("answer", a, choice="keep") == Refusal(
        "This question is not addressed to that combatant."
    )
    b.act("answer", None, choice="job:shaman")
    assert b.c(o).extra["job"] == "shaman" and b.state.pending.combatant == a
    b.act("answer", a, choice="job:ranger")
    assert b.c(a).extra["job"] == "ranger" and b.state.current().id == a


def summoner():
    """Ash (2 AP, 4 Anima, Ifrit), Orc, then Bo; Ash summons at once."""
    b, a, o, x = duel(ash={"anima": 4, "eidolon": "ifrit"}, bo={})
    ev = b.act("summon", a)
    return b, a, o, x, ev


def test_summoning_costs_three_anima_and_shields_the_summoner_and_allies():
    # RULE: PARA-EID-1
    b, a, o, x, ev = summoner()
    i = next(e for e in ev if e.type == "combatant.added").data["combatant"]["id"]
    assert b.c(a).resources["anima"] == 1 and b.state.order == [a, i, o, x]
    b.act("end_turn", i)
    assert option(b, o, "attack").targets == [i]  # Ash and Bo cannot be targeted
    assert b.try_act("attack", o, targets=[a]) == Refusal("Ash cannot be targeted while an eidolon is out.")
    ev = b.act("end_turn", o)  # Bo cannot act: the round ends, and in round 2 Ash's own turn is skipped too
    assert x not in [e.data["combatant"] for e in ev if e.type == "turn.started"]
    assert b.state.round == 2 and b.state.current().id == i
    b2, a2, *_ = duel(ash={"anima": 2, "eidolon": "ifrit"})
    assert b2.try_act("summon", a2) == Refusal("Needs 3 Anima.")


def test_the_eidolon_acts_with_the_summoners_remaining_ap():
    # RULE: PARA-EID-2
    b, a, o, x = duel(ash={"anima": 4, "eidolon": "ifrit"}, bo={})
    b.act("change_row", a)  # 1 AP spent, 1 left for the eidolon
    ev = b.act("summon", a)
    i = b.state.current().id
    assert b.c(i).name == "Ifrit" and b.c(i).resources["ap"] == 1 and "turn.ended" in b.types(ev)
    ev = b.act("ability", i, dice=[6], ability="flame_claw", targets=[o])  # 6 + 2 + attack 2 - DEF 1 = 9
    assert b.c(o).hp == 11 and "turn.ended" in b.types(ev)


def test_each_later_round_the_summoner_pays_one_anima_or_the_eidolon_leaves():
    # RULE: PARA-EID-3
    b, a, o, x, ev = summoner()
    i = b.state.current().id
    b.act("end_turn", i)
    ev = b.act("end_turn", o)  # round 2: upkeep 1 Anima (1 -> 0)
    assert "eidolon.upkeep" in b.types(ev) and b.c(a).resources["anima"] == 0 and b.c(i).resources["ap"] == 2
    b.act("end_turn", i)
    ev = b.act("end_turn", o)  # round 3: no Anima left, the eidolon disappears and Ash acts again
    gone = next(e for e in ev if e.type == "eidolon.dismissed")
    assert gone.data["reason"] == "no anima" and i not in b.state.combatants
    assert b.state.order == [a, o, x] and b.state.current().id == a
    assert b.rebuilt().to_dict() == b.state.to_dict()


def test_an_eidolon_at_zero_hp_disappears_and_everyone_acts_again():
    # RULE: PARA-EID-4
    b, a, o, x, ev = summoner()
    i = b.state.current().id
    b.act("end_turn", i)
    b.act("gm.set_hp", combatant=i, hp=3)
    ev = b.act("attack", o, dice=[4], targets=[i])  # 4 + 1 - DEF 2 = 3: down to 0
    assert b.types(ev)[2:4] == ["eidolon.dismissed", "combatant.removed"] and i not in b.state.combatants
    assert option(b, o, "attack").targets == [a, x]
    b.act("end_turn", o)
    assert b.state.current().id == x  # Bo acts again this round


def test_the_eidolon_counts_as_front_row_and_uses_only_its_listed_abilities():
    # RULE: PARA-EID-5
    b, a, o, x, ev = summoner()
    i = b.state.current().id
    assert {opt.kind for opt in legal_actions(b.state, i)} == {"ability", "end_turn"}
    assert {opt.params["ability"] for opt in legal_actions(b.state, i) if opt.kind == "ability"} == {
        "hellfire",
        "flame_claw",
    }
    assert b.try_act("attack", i, targets=[o]) == Refusal("An eidolon may only use its listed abilities.")
    assert b.try_act("change_row", i) == Refusal("An eidolon may only use its listed abilities.")
    b.act("gm.move", combatant=i, row="back")
    b.act("end_turn", i)
    assert option(b, o, "attack").targets == [i]  # still front row for melee
