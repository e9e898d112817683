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

import json
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from combat.engine.actions import Action, Refusal
from combat.engine.autoplay import random_action
from combat.engine.core import apply, decide, legal_actions, new_battle_event, replay, resolve
from combat.engine.dice import Dice
from combat.engine.rulesets import action_block_rules as R
from combat.engine.rulesets.action_block_content import HEROES, MONSTERS, STARTER

SHEETS = [*HEROES.values(), *MONSTERS.values()]
WIDTH, HEIGHT, WALL = 8, 6, [4, 2]

stat_tweaks = st.fixed_dictionaries({
    "hp": st.integers(1, 40), "max_speed": st.integers(0, 30), "max_strength": st.integers(0, 30),
    "ghost_power": st.integers(0, 30), "pdr": st.integers(0, 4), "dodge_boost": st.integers(0, 3),
    "movement": st.integers(0, 6), "charisma": st.integers(0, 3),
})
fighter = st.tuples(st.sampled_from(SHEETS), stat_tweaks, st.booleans()).map(lambda t: ({**t[0], **t[1]}, t[2]))


def _check_invariants(state, log, dead):
    assert state.seq == len(log)  # contiguous: one seq per event, none skipped
    squares = []
    for c in state.combatants.values():
        r = c.resources
        assert 0 <= c.hp <= c.max_hp, (c.name, c.hp, c.max_hp)
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
    """Someone other than the one allowed to act is refused, and nothing changes."""
    allowed = state.pending.combatant if state.pending else action.actor
    others = [cid for cid in state.combatants if cid != allowed]
    if not others:
        return
    intruder = rng.choice(others)
    before = state.to_dict()
    if state.pending:
        p = state.pending
        out = decide(state, Action("answer", intruder, {"decision": p.id, "choice": p.default}), Dice(0))
        assert isinstance(out, Refusal)
        assert isinstance(decide(state, Action("end_turn", state.current().id), Dice(0)), Refusal)
    else:
        assert isinstance(decide(state, Action("end_turn", intruder), Dice(0)), Refusal)
    assert legal_actions(state, intruder) == []
    assert state.to_dict() == before


def _gm_action(state, rng):
    c = rng.choice(list(state.combatants.values()))
    roll = rng.random()
    if roll < 0.4:
        return Action("gm.set_hp", None, {"combatant": c.id, "hp": rng.randint(0, c.max_hp)})
    if roll < 0.7:
        return Action("gm.add_status", None, {"combatant": c.id, "status": rng.choice(sorted(STARTER["statuses"])),
                                              "power": 0, "duration": rng.randint(1, 3)})
    if roll < 0.8 and state.pending is None:
        return Action("gm.skip_turn", None, {})
    return Action("gm.move", None, {"combatant": c.id, "pos": [rng.randrange(WIDTH), rng.randrange(HEIGHT)]})


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    party=st.lists(fighter, min_size=1, max_size=3),
    enemies=st.lists(fighter, min_size=1, max_size=3),
    seed=st.integers(0, 2**31),
    options=st.fixed_dictionaries({
        "insanity": st.sampled_from(["gm_prompt", "off"]),
        "points_restore": st.sampled_from(["battle_start", "each_block"]),
        "npc_reactions": st.sampled_from(["auto", "ask"]),
    }),
    steps=st.integers(10, 150),
)
def test_random_block_battles_keep_invariants_and_replay(party, enemies, seed, options, steps):
    # RULE: ENG-1
    # RULE: ENG-8
    # RULE: BLOCK-RES-4
    # RULE: BLOCK-HP-2
    rng = random.Random(seed)
    log = [new_battle_event("action-block", options, seed, WIDTH, HEIGHT, [WALL])]
    state = replay(log)
    for i, (sheet, pc) in enumerate(party):
        params = {"name": f"P{i}", "side": "party", "kind": "pc" if pc else "npc", "sheet": sheet,
                  "controller": str(i) if pc else None, "pos": [0, i]}
        events, state = resolve(state, Action("setup.add_combatant", None, params), Dice(seed, state.seq))
        log += events
    for i, (sheet, _) in enumerate(enemies):
        params = {"name": f"E{i}", "side": "enemy", "sheet": sheet, "pos": [WIDTH - 1 - i % 2, HEIGHT - 1 - i]}
        events, state = resolve(state, Action("setup.add_combatant", None, params), Dice(seed, state.seq))
        log += events
    events, state = resolve(state, Action("setup.start"), Dice(seed, state.seq))
    log += events
    dead: set[str] = set()
    snapshots = {len(log): state.to_dict()}
    _check_invariants(state, log, dead)
    for _ in range(steps):
        action = _gm_action(state, rng) if rng.random() < 0.06 else random_action(state, rng, 0.1)
        if action is None:
            break
        if action.kind != "answer" and not action.kind.startswith("gm."):
            _others_are_refused(state, action, rng)
        if action.kind == "answer" and state.pending.gm_only:  # BLOCK-INS-1: the GM alone
            p = state.pending
            assert isinstance(decide(state, Action("answer", p.combatant, {"choice": p.default}), Dice(0)), Refusal)
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
        _check_invariants(state, log, dead)
        snapshots[len(log)] = state.to_dict()
    rebuilt = replay(json.loads(json.dumps([e.to_dict() for e in log])))
    assert rebuilt.to_dict() == state.to_dict()
    cut = rng.choice(sorted(snapshots))  # undo back to any earlier action boundary
    assert replay(log[:cut]).to_dict() == snapshots[cut]


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**31), restore=st.sampled_from(["battle_start", "each_block"]))
def test_whole_battles_with_the_starter_party_replay_identically(seed, restore):
    # RULE: ENG-1
    # RULE: ENG-5
    rng = random.Random(seed)
    log = [new_battle_event("action-block", {"points_restore": restore}, seed, 12, 10, [[6, 4], [6, 5]])]
    state = replay(log)
    roster = [(n, "party", s) for n, s in HEROES.items()] + [(n, "enemy", s) for n, s in MONSTERS.items()]
    for i, (name, side, sheet) in enumerate(roster):
        params = {"name": name, "side": side, "sheet": sheet, "controller": str(i) if side == "party" else None,
                  "pos": [0 if side == "party" else 11, 2 * i]}
        events, state = resolve(state, Action("setup.add_combatant", None, params), Dice(seed, state.seq))
        log += events
    events, state = resolve(state, Action("setup.start"), Dice(seed, state.seq))
    log += events
    dead: set[str] = set()
    for _ in range(400):
        action = random_action(state, rng)
        if action is None:
            break
        out = resolve(state, action, Dice(seed, state.seq))
        assert not isinstance(out, Refusal), (action, out)
        events, state = out
        log += events
        _check_invariants(state, log, dead)
    assert replay(log).to_dict() == state.to_dict()


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 30) | st.text(max_size=8)
    | st.sampled_from(["c1", "c2", "longsword", "tesla", "ember", "taunt", "sweep", "empower", "dodge", "block",
                       "heavy_block+shield_block", "none", "insane", "obstruct"]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=8,
)
TEMPLATES = {
    "attack": {"weapon": "longsword", "targets": ["c2"], "modifiers": ["sweep"]}, "grapple": {"targets": ["c2"]},
    "break_free": {}, "move": {"to": [1, 3]}, "cast_spell": {"spell": "ember", "modifiers": ["empower"]},
    "echo_spell": {}, "activate_spell": {"targets": ["c2"]}, "charisma": {"skill": "taunt", "targets": ["c2"]},
    "release": {}, "brace": {}, "end_turn": {}, "answer": {"choice": "none"}, "nonsense": {},
    "gm.set_hp": {"combatant": "c1", "hp": 3}, "gm.add_status": {"combatant": "c1", "status": "grappled"},
    "gm.set_resource": {"combatant": "c1", "resource": "speed", "value": 1},
}
PARAM_KEYS = sorted({k for t in TEMPLATES.values() for k in t} | {"path", "decision"})
actions = st.sampled_from(sorted(TEMPLATES)).flatmap(lambda k: st.tuples(
    st.just(k),
    st.dictionaries(st.sampled_from(sorted(TEMPLATES[k])) if TEMPLATES[k] else st.sampled_from(PARAM_KEYS),
                    json_values, max_size=2).map(lambda junk: {**TEMPLATES[k], **junk}),
))


@settings(max_examples=300, deadline=None)
@given(action=actions, actor=st.sampled_from(["current", "current", None, "c1", "c2", "c9"]),
       pending=st.booleans())
def test_any_input_is_accepted_or_refused_cleanly(action, actor, pending):
    # RULE: ENG-4
    sheet = {**HEROES["Occultist"], "weapons": ["longsword", "tesla"], "attack_modifiers": ["sweep"],
             "max_speed": 30, "ghost_power": 0, "abilities": ["ember", "taunt"]}
    log = [new_battle_event("action-block", {"npc_reactions": "ask"}, 1, 6, 6)]
    state = replay(log)
    for name, side, s, pos in (("Ash", "party", sheet, [0, 0]), ("Orc", "enemy", MONSTERS["Ghoul"], [1, 0])):
        events, state = resolve(state, Action("setup.add_combatant", None,
                                              {"name": name, "side": side, "sheet": s, "pos": pos}), Dice(1))
        log += events
    events, state = resolve(state, Action("setup.start"), Dice(1, 5))
    log += events
    if pending:  # Ash attacks: the Orc's dodge window opens
        events, state = resolve(state, Action("attack", "c1", {"weapon": "longsword", "targets": ["c2"]}), Dice(1))
        log += events
        assert state.pending is not None
    before = state.to_dict()
    kind, params = action
    if actor == "current":
        actor = state.pending.combatant if state.pending else state.current().id if state.current() else None
    out = resolve(state, Action(kind, actor, params), Dice(2))
    assert state.to_dict() == before
    if not isinstance(out, Refusal):
        assert replay(log + out[0]).to_dict() == out[1].to_dict()
        json.dumps([e.to_dict() for e in out[0]])
