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
