"""Property tests: random D20 Luck battles keep the engine's invariants.

Random sequences of legal actions (and GM overrides) never break HP bounds,
only the current actor or the addressee of a pending decision may act, the
log's sequence is contiguous, and replaying the log rebuilds exactly the
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
from combat.engine.rulesets.luck_content import HEROES, MONSTERS, STARTER

SHEETS = [*HEROES.values(), *MONSTERS.values()]

stat_tweaks = st.fixed_dictionaries({
    "hp": st.integers(1, 40), "armor": st.integers(0, 4), "resist": st.integers(0, 4),
    "initiative": st.integers(-2, 5), "movement": st.integers(0, 7), "luck_bonus": st.integers(-2, 2),
    "crit_damage": st.integers(2, 4),
})
fighter = st.tuples(st.sampled_from(SHEETS), stat_tweaks, st.booleans()).map(
    lambda t: ({**t[0], **t[1]}, t[2]))


def _check_invariants(state, log):
    assert state.seq == len(log)  # contiguous: one seq per event, none skipped
    for c in state.combatants.values():
        assert 0 <= c.hp <= c.max_hp, (c.name, c.hp, c.max_hp)
        assert c.ko == (c.hp <= 0)
        assert 0 <= c.resources["actions"] <= 2 and 0 <= c.resources["interrupt"] <= 1
        for st_ in c.statuses.values():
            assert st_["power"] >= 0 and st_["duration"] >= 1
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
        assert out == Refusal("This question is not addressed to that combatant.")
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
    if roll < 0.8:
        return Action("gm.add_status", None, {"combatant": c.id, "status": rng.choice(sorted(STARTER["statuses"])),
                                              "power": rng.randint(0, 12), "duration": rng.randint(1, 3)})
    if roll < 0.9 and state.pending is None:
        return Action("gm.skip_turn", None, {})
    return Action("gm.move", None, {"combatant": c.id, "pos": [rng.randrange(8), rng.randrange(6)]})


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    party=st.lists(fighter, min_size=1, max_size=3),
    enemies=st.lists(fighter, min_size=1, max_size=3),
    seed=st.integers(0, 2**31),
    options=st.fixed_dictionaries({
        "interrupt_window": st.sampled_from(["own_turn_cycle", "round"]),
        "status_power": st.sampled_from(["difference", "roll"]),
        "recover_rule": st.sampled_from(["d20_vs_power", "automatic"]),
        "grid_metric": st.sampled_from(["chebyshev", "manhattan"]),
        "npc_reactions": st.sampled_from(["auto", "ask"]),
    }),
    steps=st.integers(10, 120),
)
def test_random_luck_battles_keep_invariants_and_replay(party, enemies, seed, options, steps):
    # RULE: ENG-1
    # RULE: ENG-8
    rng = random.Random(seed)
    log = [new_battle_event("luck", options, seed, 8, 6, [[4, 2]])]
    state = replay(log)
    for i, (sheet, pc) in enumerate(party):
        params = {"name": f"P{i}", "side": "party", "kind": "pc" if pc else "npc", "sheet": sheet,
                  "controller": str(i) if pc else None, "pos": [0, i]}
        events, state = resolve(state, Action("setup.add_combatant", None, params), Dice(seed, state.seq))
        log += events
    for i, (sheet, _) in enumerate(enemies):
        params = {"name": f"E{i}", "side": "enemy", "sheet": sheet, "pos": [7, 5 - i]}
        events, state = resolve(state, Action("setup.add_combatant", None, params), Dice(seed, state.seq))
        log += events
    events, state = resolve(state, Action("setup.start"), Dice(seed, state.seq))
    log += events
    snapshots = {len(log): state.to_dict()}
    _check_invariants(state, log)
    for _ in range(steps):
        action = _gm_action(state, rng) if rng.random() < 0.08 else random_action(state, rng)
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
    cut = rng.choice(sorted(snapshots))  # undo back to any earlier action boundary
    assert replay(log[:cut]).to_dict() == snapshots[cut]


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 30) | st.text(max_size=8) | st.sampled_from(["c1", "c2", "stun", "recover", "weapon:sword", "weapon:claws", "parry", "fire_bolt",
                                      "flame_burst", "item:healing_potion", "pass", "party", "enemy"]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=8,
)
TEMPLATES = {
    "move": {"to": [0, 3]}, "ability": {"ability": "recover", "status": "stun"},
    "end_turn": {}, "answer": {"choice": "pass"},
    "setup.add_combatant": {"name": "X", "side": "enemy", "sheet": {"hp": 3}, "pos": [4, 4]},
    "setup.place": {"combatant": "c1", "pos": [3, 3]}, "setup.remove_combatant": {"combatant": "c2"},
    "setup.start": {}, "gm.set_hp": {"combatant": "c1", "hp": 3},
    "gm.set_resource": {"combatant": "c1", "resource": "actions", "value": 1},
    "gm.add_status": {"combatant": "c1", "status": "stun", "power": 2, "duration": 1},
    "gm.remove_status": {"combatant": "c1", "status": "stun"}, "gm.move": {"combatant": "c1", "pos": [2, 2]},
    "gm.skip_turn": {}, "gm.add_combatant": {"name": "Y", "side": "party", "sheet": {}, "pos": [5, 5]},
    "gm.remove_combatant": {"combatant": "c2"}, "gm.end_battle": {"reason": "done"}, "nonsense": {},
    "ability:sword": {"ability": "weapon:sword", "targets": ["c2"], "step": [0, 1]},
    "ability:burst": {"ability": "flame_burst", "square": [1, 0]},
}
PARAM_KEYS = sorted({k for t in TEMPLATES.values() for k in t} | {"path", "targets", "decision", "row"})
actions = st.sampled_from(sorted(TEMPLATES)).flatmap(lambda k: st.tuples(
    st.just(k.split(":")[0]),
    st.dictionaries(st.sampled_from(sorted(TEMPLATES[k])) if TEMPLATES[k] and k != "nonsense"
                    else st.sampled_from(PARAM_KEYS), json_values, max_size=2)
    .map(lambda junk: {**TEMPLATES[k], **junk}),
))


@settings(max_examples=300, deadline=None)
@given(action=actions, actor=st.sampled_from(["current", "current", None, "c1", "c2", "c9"]),
       started=st.booleans(), pending=st.booleans())
def test_any_input_is_accepted_or_refused_cleanly(action, actor, started, pending):
    # RULE: ENG-4
    from tests.engine.test_luck import ASH, ORC

    log = [new_battle_event("luck", {"npc_reactions": "ask"}, 1, 6, 6)]
    state = replay(log)
    for name, side, sheet, pos in (("Ash", "party", ASH, [0, 0]), ("Orc", "enemy", ORC, [1, 0])):
        events, state = resolve(state, Action("setup.add_combatant", None,
                                              {"name": name, "side": side, "sheet": sheet, "pos": pos}), Dice(1))
        log += events
    if started:
        events, state = resolve(state, Action("setup.start"), Dice(1, 5))
        log += events
        if pending and state.current().id == "c1":
            events, state = resolve(state, Action("end_turn", "c1"), Dice(1))
            log += events
        if pending:  # the orc attacks Ash with claws until a hit opens Ash's parry window, or gives up
            for salt in range(20):
                out = resolve(state, Action("ability", "c2", {"ability": "weapon:claws", "targets": ["c1"]}),
                              Dice(salt))
                if not isinstance(out, Refusal) and out[1].pending:
                    log += out[0]
                    state = out[1]
                    break
    before = state.to_dict()
    kind, params = action
    if actor == "current":
        actor = state.pending.combatant if state.pending else state.current().id if state.current() else None
    out = resolve(state, Action(kind, actor, params), Dice(2))
    assert state.to_dict() == before
    if not isinstance(out, Refusal):
        assert replay(log + out[0]).to_dict() == out[1].to_dict()
        json.dumps([e.to_dict() for e in out[0]])
