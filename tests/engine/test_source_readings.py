"""Readings of the sources made explicit: each test quotes the sentence it reads, and checks the engine
follows it (or the house-rule option that settles what the sentence leaves open)."""

from __future__ import annotations

import random

from combat.engine.actions import Action
from combat.engine.autoplay import random_action
from combat.engine.core import resolve
from combat.engine.dice import Dice
from combat.engine.rulesets import RULESETS
from combat.engine.rulesets.luck.rules import move_allowance
from combat.engine.rulesets.mist.rules import rampart_provocations
from combat.engine.testing import Battle

ASH = {"max_speed": 30, "max_strength": 30, "weapons": ["longsword"]}  # longsword: to hit +1, damage 2d6+1
ORC = {"max_speed": 10, "max_strength": 20, "hp": 10}


def _fight(orc=None, options=None):
    b = Battle("action-block", options, width=14, height=8)
    a = b.add("Ash", "party", (0, 0), controller="1", **ASH)
    t = b.add("Orc", "enemy", (1, 0), **{**ORC, **(orc or {})})
    b.act("setup.start")
    return b, a, t


def _next_turn_of(b, cid):
    """End the current turn, then every other one until ``cid`` acts again."""
    b.act("end_turn", b.state.current().id)
    while b.state.current().id != cid:
        b.act("end_turn", b.state.current().id)


def test_action_block_hp_goes_below_zero_and_healing_counts_up_from_there():
    """Source (Action Block): "If the target's [Current Health Points] is reduced to 0 or less, the target
    becomes [Unconscious]." HP is not stopped at 0: a heal must first bring it back above 0."""
    # RULE: BLOCK-HP-1
    b = Battle("action-block", width=10, height=6)
    orc = b.add("Orc", "enemy", (2, 0), max_speed=30, max_strength=30, weapons=["longsword"])
    ash = b.add("Ash", "party", (0, 0), controller="1", max_speed=20, max_strength=20, abilities=["mend"])
    bo = b.add("Bo", "party", (1, 0), kind="npc", max_speed=10, max_strength=10, hp=10)
    b.act("setup.start")
    assert b.state.current().id == orc
    events = b.act("attack", orc, dice=[4, 4, 6, 6], weapon="longsword", targets=[bo])  # 12 + 1 = 13 damage
    dealt = next(e for e in events if e.type == "damage.dealt").data
    assert (dealt["hp"], b.c(bo).hp, b.c(bo).ko, b.c(bo).alive) == (-3, -3, True, True)
    _next_turn_of(b, ash)
    b.act("cast_spell", ash, spell="mend")
    b.act("activate_spell", ash, dice=[3], targets=[bo])  # -3 + 3 = 0: still Unconscious
    assert (b.c(bo).hp, b.c(bo).ko) == (0, True)
    _next_turn_of(b, ash)
    b.act("cast_spell", ash, spell="mend")
    b.act("activate_spell", ash, dice=[2], targets=[bo])
    assert (b.c(bo).hp, b.c(bo).ko) == (2, False)
    assert b.rebuilt().to_dict() == b.state.to_dict()


def test_action_block_spell_effect_adds_all_three_spell_boosts():
    """Source (Action Block): "The [Effect] is calculated by adding all [Offensive Spell Boost], [Defensive
    Spell Boost], and [General Spell Boost] effects the [Base Effect]." All three, for damage and healing."""
    # RULE: BLOCK-SPELL-2
    b = Battle("action-block", width=14, height=8)
    a = b.add(
        "Ash",
        "party",
        (0, 0),
        controller="1",
        **ASH,
        abilities=["ember", "mend"],
        general_spell_boost=1,
        offensive_spell_boost=2,
        defensive_spell_boost=4,
    )
    t = b.add("Orc", "enemy", (1, 0), **{**ORC, "hp": 40})
    b.act("setup.start")
    b.act("cast_spell", a, spell="ember")
    events = b.act("activate_spell", a, dice=[4, 5], targets=[t])
    assert next(e for e in events if e.type == "damage.dealt").data["effect"] == 9 + 1 + 2 + 4
    b.act("gm.set_hp", None, combatant=a, hp=10)
    _next_turn_of(b, a)
    b.act("cast_spell", a, spell="mend")
    events = b.act("activate_spell", a, dice=[3], targets=[a])
    assert next(e for e in events if e.type == "healed").data["amount"] == 3 + 1 + 2 + 4


def test_action_block_insanity_prompt_comes_at_every_hit_below_ghost_power():
    """Source (Action Block): "If the target's [Current Health Points] are reduced to less than their [Current
    Ghost Power], then the character may have to make an [Insanity Roll]." Each reduction below Ghost Power
    asks again; the option ``insanity_every_hit`` off asks only when HP first drops below it."""
    # RULE: BLOCK-INS-1
    for every_hit, prompts in ((True, 2), (False, 1)):
        b, a, t = _fight(orc={"hp": 20, "ghost_power": 15}, options={"insanity_every_hit": every_hit})
        b.act("attack", a, dice=[4, 4, 3, 3, 2, 5], weapon="longsword", targets=[t])  # 7 damage: 20 -> 13
        assert b.state.pending is not None and b.state.pending.gm_only
        b.act("answer", None, choice="steady")
        _next_turn_of(b, a)
        dice = [4, 4, 1, 1] + ([3, 3] if every_hit else [])  # 3 damage: 13 -> 10, still below 15
        events = b.act("attack", a, dice=dice, weapon="longsword", targets=[t])
        assert b.c(t).hp == 10
        opened = [
            e for e in b.log if e.type == "decision.opened" and "Insanity" in e.data["decision"]["prompt"]
        ]
        assert len(opened) == prompts, (every_hit, [e.type for e in events])


def test_luck_slow_rounding_is_a_house_rule():
    """Source (D20 Luck): "Slow - Your character moves at 1/2 speed, but can otherwise use their actions as
    normal." Half of an odd Movement is not said: rounded down by default, the ``slow_rounding`` option rounds up."""
    # RULE: LUCK-STAT-8
    for rounding, squares in (("down", 2), ("up", 3)):
        b = Battle("luck", {"slow_rounding": rounding})
        c = b.add("Runner", "party", (0, 0), movement=5)
        b.add("Goblin", "enemy", (5, 5))
        b.act("setup.start", dice=[10, 5])
        b.act("gm.add_status", None, combatant=c, status="slow", power=3, duration=2)
        assert move_allowance(b.state, b.c(c)) == squares
    assert RULESETS["luck"].default_options()["slow_rounding"] == "down"


def test_mist_who_rolls_initiative_is_a_house_rule():
    """Source (Mist & Rampart): "Turn order is determined by initiative, which is rolled at the beginning of every
    round of combat by all active participants." Whether a knocked-out character is "active" is not said:
    by default only those able to act roll; ``initiative_rolls = living`` has every living one roll."""
    # RULE: MIST-INIT-1
    for option, rollers in (("able", 2), ("living", 3)):
        b = Battle("mist", {"initiative_rolls": option})
        ids = [
            b.add(n, side, (i, 0))
            for i, (n, side) in enumerate((("A", "party"), ("B", "party"), ("E", "enemy")))
        ]
        out = resolve(b.state, Action("setup.start"), Dice(3, b.state.seq))
        _, b.state = out
        b.log += out[0]
        b.act("gm.set_hp", None, combatant=ids[1], hp=0)
        rng = random.Random(1)
        while b.state.round < 2:
            events, b.state = resolve(b.state, Action("end_turn", b.state.current().id), Dice(3, b.state.seq))
            b.log += events
        second = [e for e in events if e.type == "initiative.rolled"]
        assert len(second) == rollers, option
        assert random_action(b.state, rng) is not None


def test_mist_rampart_attacks_once_per_move_or_at_every_square():
    """Source (Mist & Rampart): "If a character passes through a square under a enemies Rampart ability and does not
    stop, they will similarly provoke a free attack." How many attacks one move provokes is not said: once per
    move from each rampart by default; ``rampart_attacks = every_square`` provokes at each square left."""
    # RULE: MIST-RAMP-2
    zones, holders = {"h": 2}, {"h": [5, 5]}
    path = [[5, 4], [6, 4], [7, 4], [8, 4]]  # from (4, 4): leaves (4,4), (5,4), (6,4) inside Rampart 2
    assert rampart_provocations([4, 4], path, zones, holders) == [(0, "h")]
    assert rampart_provocations([4, 4], path, zones, holders, once=False) == [(0, "h"), (1, "h"), (2, "h")]
    assert rampart_provocations([4, 4], path, zones, holders, ["h"], once=False) == [(1, "h"), (2, "h")]
    for option, attacks in (("once_per_move", 1), ("every_square", 3)):
        b = Battle("mist", {"rampart_attacks": option, "npc_reactions": "auto"}, width=12, height=10)
        guard = b.add(
            "Guard", "enemy", (5, 5), rampart=2, abilities=["strike"], initiative=50, speed=50, hp=900
        )
        runner = b.add("Runner", "party", (4, 4), hp=9000, lp=9, movement=6, initiative=-50)
        for kind, actor, params in (
            ("setup.start", None, {}),
            ("rampart", guard, {"on": True}),
            ("end_turn", guard, {}),
        ):
            events, b.state = resolve(b.state, Action(kind, actor, params), Dice(5, b.state.seq))
            b.log += events
        assert b.state.current().id == runner
        events, b.state = resolve(b.state, Action("move", runner, {"path": path}), Dice(5, b.state.seq))
        b.log += events
        used = [e for e in events if e.type == "ability.used" and e.data.get("reaction")]
        assert len(used) == attacks, option
        assert b.state.combatants[runner].pos == [8, 4]


def test_every_reading_is_an_option_or_a_sentence_for_the_gm():
    """Every ruleset states its remaining readings of silent sources as sentences the GM sees."""
    for ruleset in RULESETS.values():
        assert ruleset.readings and all(isinstance(s, str) and s.endswith(".") for s in ruleset.readings)
        assert "Readings where the source is silent (documented, not options)" not in (ruleset.__doc__ or "")
