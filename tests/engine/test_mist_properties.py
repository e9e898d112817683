"""Property tests: random Mist & Rampart battles keep the engine's and the rules' invariants.

Random sequences of legal actions (rampart reactions and GM overrides
included) never break HP, LP, MP, slot or movement bounds, never leave two
living tokens on one square, only the current actor or the addressee of a
pending decision may act, and replaying the log rebuilds exactly the
incrementally applied state (also for every shorter prefix: undo).
"""

from __future__ import annotations

import json
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from combat.engine.actions import Action, Refusal
from combat.engine.autoplay import random_action
from combat.engine.core import apply, decide, legal_actions, new_battle_event, replay, resolve
from combat.engine.dice import Dice
from combat.engine.rulesets.mist_content import HEROES, MONSTERS, STARTER
from combat.engine.rulesets.mist_play import can_act

SHEETS = [*HEROES.values(), *MONSTERS.values()]
WIDTH, HEIGHT, WALL = 8, 6, [4, 2]

stat_tweaks = st.fixed_dictionaries({
    "hp": st.integers(1, 300), "lp": st.integers(1, 3), "mp_gain": st.integers(0, 4),
    "initiative": st.integers(-3, 5), "speed": st.integers(0, 3), "movement": st.integers(0, 6),
    "action_slots": st.integers(1, 4), "rampart": st.integers(0, 2), "heavy_armor": st.booleans(),
    "defense": st.integers(0, 40), "evasion": st.integers(0, 120), "conscious_at_ko": st.booleans(),
})
fighter = st.tuples(st.sampled_from(SHEETS), stat_tweaks, st.booleans()).map(lambda t: ({**t[0], **t[1]}, t[2]))


def _check_invariants(state, log):
    assert state.seq == len(log)  # contiguous: one seq per event, none skipped
    squares = []
    for c in state.combatants.values():
        r = c.resources
        assert 0 <= c.hp <= c.max_hp, (c.name, c.hp, c.max_hp)
        assert c.ko == (c.hp <= 0)  # MIST-KO-1
        assert 0 <= r["lp"] <= c.sheet["lp"] and c.alive == (r["lp"] > 0)  # MIST-KO-2/3
        assert r["mp"] >= 0 and r["move"] >= 0 and 0 <= r["slots"] <= c.sheet["action_slots"]
        for s in c.statuses.values():
            assert s["duration"] >= 1
        if c.alive and c.pos is not None:
            assert c.pos not in state.blocked
            squares.append(tuple(c.pos))
    if state.pending is None:
        assert len(squares) == len(set(squares)), squares  # MIST-MOVE-3: nobody ends on another
    if state.phase == "active" and state.pending is None:
        assert state.current() is not None and can_act(state.current())


def _others_are_refused(state, action, rng):
    allowed = state.pending.combatant if state.pending else action.actor
    others = [cid for cid in state.combatants if cid != allowed]
    if not others:
        return
    intruder = rng.choice(others)
    before = state.to_dict()
    if state.pending:
        p = state.pending
        out = decide(state, Action("answer", intruder, {"decision": p.id, "choice": p.default}), Dice(0))
        assert out == Refusal("This question is not addressed to that combatant.")
    else:
        assert isinstance(decide(state, Action("end_turn", intruder), Dice(0)), Refusal)
    assert legal_actions(state, intruder) == []
    assert state.to_dict() == before


def _gm_action(state, rng):
    c = rng.choice(list(state.combatants.values()))
    roll = rng.random()
    if roll < 0.4:
        return Action("gm.set_hp", None, {"combatant": c.id, "hp": rng.randint(0, c.max_hp)})
    if roll < 0.8:
        return Action("gm.add_status", None, {"combatant": c.id, "status": rng.choice(sorted(STARTER["statuses"])),
                                              "duration": rng.randint(1, 3)})
    if roll < 0.9 and state.pending is None:
        return Action("gm.skip_turn", None, {})
    return Action("gm.move", None, {"combatant": c.id, "pos": [rng.randrange(WIDTH), rng.randrange(HEIGHT)]})


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    party=st.lists(fighter, min_size=1, max_size=3),
    enemies=st.lists(fighter, min_size=1, max_size=3),
    seed=st.integers(0, 2**31),
    options=st.fixed_dictionaries({
        "initiative_die": st.sampled_from(["1d20", "1d10", "2d6", "1d100"]),
        "disengage_type": st.sampled_from(["simple", "static"]),
        "accuracy_adds_d100": st.booleans(),
        "weakness_multiplier": st.integers(1, 5),
        "npc_reactions": st.sampled_from(["auto", "ask"]),
    }),
    steps=st.integers(10, 150),
)
def test_random_mist_battles_keep_invariants_and_replay(party, enemies, seed, options, steps):
    # RULE: ENG-1
    # RULE: ENG-8
    # RULE: MIST-RAMP-3
    rng = random.Random(seed)
    log = [new_battle_event("mist", options, seed, WIDTH, HEIGHT, [WALL])]
    state = replay(log)
    for i, (sheet, pc) in enumerate(party):
        params = {"name": f"P{i}", "side": "party", "kind": "pc" if pc else "npc", "sheet": sheet,
                  "controller": str(i) if pc else None, "pos": [0, i]}
        events, state = resolve(state, Action("setup.add_combatant", None, params), Dice(seed, state.seq))
        log += events
    for i, (sheet, _) in enumerate(enemies):
        params = {"name": f"E{i}", "side": "enemy", "sheet": sheet, "pos": [WIDTH - 1, HEIGHT - 1 - i]}
        events, state = resolve(state, Action("setup.add_combatant", None, params), Dice(seed, state.seq))
        log += events
    events, state = resolve(state, Action("setup.start"), Dice(seed, state.seq))
    log += events
    snapshots = {len(log): state.to_dict()}
    _check_invariants(state, log)
    for _ in range(steps):
        action = _gm_action(state, rng) if rng.random() < 0.06 else random_action(state, rng, 0.1)
        if action is None:
            break
        if action.kind != "answer" and not action.kind.startswith("gm."):
            _others_are_refused(state, action, rng)
        before = state.to_dict()
        out = resolve(state, action, Dice(seed, state.seq))
        assert state.to_dict() == before  # deciding never mutates
        if isinstance(out, Refusal):
            assert action.kind.startswith("gm."), (action, out)  # legal actions are always accepted
            continue
        events, new_state = out
        folded = state
        for e in events:
            folded = apply(folded, e)
        assert folded.to_dict() == new_state.to_dict()
        state = new_state
        log += events
        _check_invariants(state, log)
        snapshots[len(log)] = state.to_dict()
    rebuilt = replay(json.loads(json.dumps([e.to_dict() for e in log])))
    assert rebuilt.to_dict() == state.to_dict()
    cut = rng.choice(sorted(snapshots))
    assert replay(log[:cut]).to_dict() == snapshots[cut]


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**31))
def test_whole_mist_battles_with_the_starter_party_replay_identically(seed):
    # RULE: ENG-1
    rng = random.Random(seed)
    log = [new_battle_event("mist", {}, seed, 12, 10, [[6, 4], [6, 5]])]
    state = replay(log)
    roster = [(n, "party", s) for n, s in HEROES.items()] + [(n, "enemy", s) for n, s in MONSTERS.items()]
    for i, (name, side, sheet) in enumerate(roster):
        params = {"name": name, "side": side, "sheet": sheet, "controller": str(i) if side == "party" else None,
                  "pos": [0 if side == "party" else 11, 2 * i]}
        events, state = resolve(state, Action("setup.add_combatant", None, params), Dice(seed, state.seq))
        log += events
    events, state = resolve(state, Action("setup.start"), Dice(seed, state.seq))
    log += events
    for _ in range(400):
        action = random_action(state, rng)
        if action is None:
            break
        out = resolve(state, action, Dice(seed, state.seq))
        assert not isinstance(out, Refusal), (action, out)
        events, state = out
        log += events
        _check_invariants(state, log)
    assert replay(log).to_dict() == state.to_dict()
