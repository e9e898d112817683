"""Property tests: random Paradigm Rows battles keep the engine's and the rules' invariants.

Random sequences of legal actions (phase prompts, eidolons, held turns and
GM overrides included) never break HP, AP, Anima, status or inventory
bounds, never leave a stray turn slot, only the current actor or the
addressee of a pending decision may act, and replaying the log rebuilds
exactly the incrementally applied state (also for every shorter prefix:
undo). Any malformed input is refused cleanly.
"""

from __future__ import annotations

import random
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from combat.engine.actions import Action
from combat.engine.context import rules_for
from combat.engine.core import new_battle_event, replay, resolve
from combat.engine.dice import Dice
from combat.engine.rulesets.paradigm.content import HEROES, MONSTERS, STARTER
from tests.engine.properties import (
    accepted_or_refused_cleanly,
    build_battle,
    gm_action,
    junk_actions,
    play_out,
    play_random,
    random_battles,
)

SHEETS = [*HEROES.values(), *MONSTERS.values()]

stat_tweaks = st.fixed_dictionaries(
    {
        "hp": st.integers(1, 50),
        "tier": st.integers(1, 10),
        "initiative": st.integers(-2, 4),
        "attack_bonus": st.integers(-1, 4),
        "defense": st.integers(0, 5),
        "magic_defense": st.integers(0, 5),
        "anima": st.integers(0, 6),
    }
)
fighter = st.tuples(
    st.sampled_from(SHEETS), stat_tweaks, st.booleans(), st.sampled_from(["front", "back"])
).map(lambda t: ({**t[0], **t[1]}, t[2], t[3]))


def _check_invariants(state, log):
    assert state.seq == len(log)  # contiguous: one seq per event, none skipped
    rules = rules_for(state)
    eidolons = Counter()
    for c in state.combatants.values():
        assert 0 <= c.hp <= c.max_hp, (c.name, c.hp, c.max_hp)
        assert c.ko == (c.hp <= 0)
        assert 0 <= c.resources["ap"] <= 3 and c.resources["anima"] >= 0  # PARA-AP-1
        assert c.row in ("front", "back")
        for s in c.statuses.values():
            assert s["duration"] >= 1
        if c.extra.get("eidolon_of"):
            eidolons[c.side] += 1
    assert all(n == 1 for n in eidolons.values())  # one eidolon per side at most
    for cid, n in Counter(state.order).items():
        assert cid in state.combatants and n <= 2  # a held turn is the only second slot
    for side, used in state.extra.get("items_used", {}).items():
        brought = Counter(
            i for c in state.combatants.values() if c.side == side for i in c.sheet.get("items", ())
        )
        assert all(0 < n <= brought[k] for k, n in used.items())  # PARA-ACT-ITEM
    if state.phase == "active" and state.pending is None:
        cur = state.current()
        assert cur is not None and rules.can_take_turn(state, cur) and not cur.extra.get("fled")


def _gm_action(state, rng):
    return gm_action(state, rng, STARTER["statuses"], lambda r: {"row": r.choice(["front", "back"])})


def _setup(party, enemies, seed, options):
    roster = [("P", "party", f) for f in party] + [("E", "enemy", f) for f in enemies]
    params = [
        {
            "name": f"{prefix}{i}",
            "side": side,
            "sheet": sheet,
            "row": row,
            "kind": "pc" if side == "party" and pc else "npc" if side == "party" else "monster",
            "controller": str(i) if side == "party" and pc else None,
        }
        for i, (prefix, side, (sheet, pc, row)) in enumerate(roster)
    ]
    return build_battle("paradigm", options, seed, 8, 6, params)


@random_battles(
    fighter,
    {
        "initiative_die": st.sampled_from(["1d20", "1d10", "2d6"]),
        "melee_front_only": st.booleans(),
        "allow_flee": st.booleans(),
        "npc_reactions": st.sampled_from(["auto", "ask"]),
    },
    max_steps=150,
    max_examples=40,
)
def test_random_paradigm_battles_keep_invariants_and_replay(party, enemies, seed, options, steps):
    # RULE: ENG-1
    # RULE: ENG-8
    # RULE: PARA-AP-1
    # RULE: PARA-ACT-HOLD
    # RULE: PARA-EID-1
    rng = random.Random(seed)
    log, state = _setup(party, enemies, seed, options)
    play_random(
        state,
        log,
        rng,
        seed,
        steps,
        check=_check_invariants,
        gm=_gm_action,
        gm_rate=0.06,
        end_turn_weight=0.1,
    )


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**31))
def test_whole_battles_with_the_starter_cast_end_and_replay_identically(seed):
    # RULE: ENG-1
    # RULE: ENG-9
    rng = random.Random(seed)
    party = [(s, True, s["row"]) for s in HEROES.values()]
    enemies = [(s, False, s["row"]) for s in MONSTERS.values()]
    log, state = _setup(party, enemies, seed, {})
    state = play_out(state, log, rng, seed, 3000, _check_invariants)
    assert state.phase == "ended" and state.result["by"] == "rules"


TEMPLATES = {
    "attack": {"targets": ["c2"]},
    "ability": {"ability": "fire", "targets": ["c2"]},
    "item": {"item": "potion", "targets": ["c1"]},
    "change_row": {},
    "hold": {"targets": ["c2"]},
    "interact": {"object": "lever"},
    "swap": {"slot": "weapon", "equip": "axe"},
    "flee": {},
    "summon": {},
    "end_turn": {},
    "answer": {"choice": "keep"},
    "gm.move": {"combatant": "c1", "row": "back"},
    "gm.set_resource": {"combatant": "c1", "resource": "anima", "value": 3},
    "gm.add_status": {"combatant": "c1", "status": "poison", "duration": 1},
    "setup.add_combatant": {"name": "X", "side": "enemy", "sheet": {"hp": 3}, "row": "back"},
    "gm.remove_combatant": {"combatant": "c2"},
    "nonsense": {},
}
actions = junk_actions(
    TEMPLATES,
    [
        "c1",
        "c2",
        "c3",
        "fire",
        "potion",
        "bomb",
        "weapon",
        "armor",
        "axe",
        "lever",
        "keep",
        "advance",
        "job:ranger",
        "front",
        "back",
    ],
    {"target", "decision", "object", "slot"},
)


@settings(max_examples=300, deadline=None)
@given(
    action=actions,
    actor=st.sampled_from(["current", "current", None, "c1", "c2", "c9"]),
    started=st.booleans(),
    jobs=st.booleans(),
)
def test_any_input_is_accepted_or_refused_cleanly(action, actor, started, jobs):
    # RULE: ENG-4
    knight = dict(HEROES["Knight"], jobs=["knight", "ranger"] if jobs else [])
    mage = dict(HEROES["Mage"], anima=5)
    log = [
        new_battle_event(
            "paradigm",
            {"npc_reactions": "ask"},
            1,
            6,
            6,
            content={"objects": {"lever": {"name": "Lever", "ability": "rockfall"}}},
        )
    ]
    state = replay(log)
    for name, side, sheet in (
        ("Kay", "party", knight),
        ("Ogre", "enemy", MONSTERS["Ogre"]),
        ("May", "party", mage),
    ):
        events, state = resolve(
            state,
            Action(
                "setup.add_combatant", None, {"name": name, "side": side, "sheet": sheet, "controller": "5"}
            ),
            Dice(1),
        )
        log += events
    if started:
        events, state = resolve(state, Action("setup.start"), Dice(1, 5))
        log += events
    kind, params = action
    accepted_or_refused_cleanly(state, log, kind, actor, params)
