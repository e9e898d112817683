"""Property tests: random Action Block battles keep the engine's and the rules' invariants.

Random sequences of legal actions (dodge, block, obstruct and insanity
prompts and GM overrides included) never break HP bounds or the
Unconscious/Dead rules, never take Speed or Strength Points below 0 or above
the battle maxima, keep at most one of each action type per turn, never
leave two living tokens on one square, only the current actor or the
addressee of a pending decision may act (the GM alone for the insanity
prompt), and replaying the log rebuilds exactly the incrementally applied
state (also for every shorter prefix: undo).
"""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from combat.engine.actions import Action, Refusal
from combat.engine.core import decide, new_battle_event, replay, resolve
from combat.engine.dice import Dice
from combat.engine.rulesets.action_block import rules as R
from combat.engine.rulesets.action_block.content import HEROES, MONSTERS, STARTER
from tests.engine.properties import (
    accepted_or_refused_cleanly,
    build_battle,
    gm_action,
    junk_actions,
    others_are_refused,
    play_out,
    play_random,
    random_battles,
    random_roster,
    starter_roster,
)

SHEETS = [*HEROES.values(), *MONSTERS.values()]
WIDTH, HEIGHT, WALL = 8, 6, [4, 2]

stat_tweaks = st.fixed_dictionaries(
    {
        "hp": st.integers(1, 40),
        "max_speed": st.integers(0, 30),
        "max_strength": st.integers(0, 30),
        "ghost_power": st.integers(0, 30),
        "pdr": st.integers(0, 4),
        "dodge_boost": st.integers(0, 3),
        "movement": st.integers(0, 6),
        "charisma": st.integers(0, 3),
    }
)
fighter = st.tuples(st.sampled_from(SHEETS), stat_tweaks, st.booleans()).map(
    lambda t: ({**t[0], **t[1]}, t[2])
)


def _check_invariants(state, log, dead):
    assert state.seq == len(log)  # contiguous: one seq per event, none skipped
    squares = []
    for c in state.combatants.values():
        r = c.resources
        assert c.hp <= c.max_hp, (c.name, c.hp, c.max_hp)  # BLOCK-HP-1: "0 or less", so below 0 too
        if c.alive:
            assert c.ko == (c.hp <= 0)  # BLOCK-HP-1
            assert c.id not in dead  # BLOCK-HP-2: the dead never come back
        else:
            dead.add(c.id)
        if state.phase != "setup":  # BLOCK-RES-3/4
            assert 0 <= r["speed"] <= R.battle_speed(state.extra, c.sheet)
            assert 0 <= r["strength"] <= R.battle_strength(state.extra, c.sheet)
        assert 0 <= r["pdr"] <= R.undamaged_pdr(state.extra, c.sheet)  # BLOCK-PDR-1
        assert all(r[slot] in (0, 1) for slot in ("offensive", "movement", "verbal"))  # BLOCK-TURN-1
        if c.alive and c.pos is not None:
            assert c.pos not in state.blocked
            squares.append(tuple(c.pos))
    assert len(squares) == len(set(squares)), squares
    if state.phase == "active" and state.pending is None:
        assert state.current() is not None and state.current().able


def _others_are_refused(state, action, rng):
    """Someone other than the one allowed to act is refused (the current combatant waits on a question)."""
    others_are_refused(state, action, rng, message=None, current_waits=True)


def _gm_action(state, rng):
    return gm_action(
        state,
        rng,
        STARTER["statuses"],
        lambda r: {"to": [r.randrange(WIDTH), r.randrange(HEIGHT)]},
        power=lambda r: 0,
        cuts=(0.4, 0.7, 0.8),
    )


def _gm_alone_answers(state, action):
    if action.kind == "answer" and state.pending.gm_only:  # BLOCK-INS-1: the GM alone
        p = state.pending
        assert isinstance(
            decide(state, Action("answer", p.combatant, {"choice": p.default}), Dice(0)), Refusal
        )


@random_battles(
    fighter,
    {
        "insanity": st.sampled_from(["gm_prompt", "off"]),
        "points_restore": st.sampled_from(["battle_start", "each_block"]),
        "npc_reactions": st.sampled_from(["auto", "ask"]),
    },
    max_steps=150,
    max_examples=40,
)
def test_random_block_battles_keep_invariants_and_replay(party, enemies, seed, options, steps):
    # RULE: ENG-1
    # RULE: ENG-8
    # RULE: BLOCK-RES-4
    # RULE: BLOCK-HP-2
    rng = random.Random(seed)
    roster = random_roster(party, enemies, lambda i: [0, i], lambda i: [WIDTH - 1 - i % 2, HEIGHT - 1 - i])
    log, state = build_battle("action-block", options, seed, WIDTH, HEIGHT, roster, [WALL])
    dead: set[str] = set()
    play_random(
        state,
        log,
        rng,
        seed,
        steps,
        check=lambda s, lg: _check_invariants(s, lg, dead),
        gm=_gm_action,
        gm_rate=0.06,
        end_turn_weight=0.1,
        refused=_others_are_refused,
        before_step=_gm_alone_answers,
    )


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**31), restore=st.sampled_from(["battle_start", "each_block"]))
def test_whole_battles_with_the_starter_party_replay_identically(seed, restore):
    # RULE: ENG-1
    # RULE: ENG-5
    rng = random.Random(seed)
    log, state = build_battle(
        "action-block",
        {"points_restore": restore},
        seed,
        12,
        10,
        starter_roster(HEROES, MONSTERS, 11),
        [[6, 4], [6, 5]],
    )
    dead: set[str] = set()
    play_out(state, log, rng, seed, 400, lambda s, lg: _check_invariants(s, lg, dead))


TEMPLATES = {
    "attack": {"weapon": "longsword", "targets": ["c2"], "modifiers": ["sweep"]},
    "grapple": {"targets": ["c2"]},
    "break_free": {},
    "move": {"to": [1, 3]},
    "cast_spell": {"spell": "ember", "modifiers": ["empower"]},
    "echo_spell": {},
    "activate_spell": {"targets": ["c2"]},
    "charisma": {"skill": "taunt", "targets": ["c2"]},
    "release": {},
    "brace": {},
    "end_turn": {},
    "answer": {"choice": "none"},
    "nonsense": {},
    "gm.set_hp": {"combatant": "c1", "hp": 3},
    "gm.add_status": {"combatant": "c1", "status": "grappled"},
    "gm.set_resource": {"combatant": "c1", "resource": "speed", "value": 1},
}
actions = junk_actions(
    TEMPLATES,
    [
        "c1",
        "c2",
        "longsword",
        "tesla",
        "ember",
        "taunt",
        "sweep",
        "empower",
        "dodge",
        "block",
        "heavy_block+shield_block",
        "none",
        "insane",
        "obstruct",
    ],
    {"path", "decision"},
)


@settings(max_examples=300, deadline=None)
@given(
    action=actions,
    actor=st.sampled_from(["current", "current", None, "c1", "c2", "c9"]),
    pending=st.booleans(),
)
def test_any_input_is_accepted_or_refused_cleanly(action, actor, pending):
    # RULE: ENG-4
    sheet = {
        **HEROES["Occultist"],
        "weapons": ["longsword", "tesla"],
        "attack_modifiers": ["sweep"],
        "max_speed": 30,
        "ghost_power": 0,
        "abilities": ["ember", "taunt"],
    }
    log = [new_battle_event("action-block", {"npc_reactions": "ask"}, 1, 6, 6)]
    state = replay(log)
    for name, side, s, pos in (("Ash", "party", sheet, [0, 0]), ("Orc", "enemy", MONSTERS["Ghoul"], [1, 0])):
        events, state = resolve(
            state,
            Action("setup.add_combatant", None, {"name": name, "side": side, "sheet": s, "pos": pos}),
            Dice(1),
        )
        log += events
    events, state = resolve(state, Action("setup.start"), Dice(1, 5))
    log += events
    if pending:  # Ash attacks: the Orc's dodge window opens
        events, state = resolve(
            state, Action("attack", "c1", {"weapon": "longsword", "targets": ["c2"]}), Dice(1)
        )
        log += events
        assert state.pending is not None
    kind, params = action
    accepted_or_refused_cleanly(state, log, kind, actor, params)
