"""Property tests: random D20 Luck battles keep the engine's invariants.

Random sequences of legal actions (and GM overrides) never break HP bounds,
only the current actor or the addressee of a pending decision may act, the
log's sequence is contiguous, and replaying the log rebuilds exactly the
incrementally applied state (also for every shorter prefix: undo).
"""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from combat.engine.actions import Action, Refusal
from combat.engine.core import new_battle_event, replay, resolve
from combat.engine.dice import Dice
from combat.engine.rulesets.luck.content import HEROES, MONSTERS, STARTER
from tests.engine.properties import (
    accepted_or_refused_cleanly,
    build_battle,
    gm_action,
    junk_actions,
    others_are_refused,
    play_random,
    random_battles,
    random_roster,
)

SHEETS = [*HEROES.values(), *MONSTERS.values()]

stat_tweaks = st.fixed_dictionaries(
    {
        "hp": st.integers(1, 40),
        "armor": st.integers(0, 4),
        "resist": st.integers(0, 4),
        "initiative": st.integers(-2, 5),
        "movement": st.integers(0, 7),
        "luck_bonus": st.integers(-2, 2),
        "crit_damage": st.integers(2, 4),
    }
)
fighter = st.tuples(st.sampled_from(SHEETS), stat_tweaks, st.booleans()).map(
    lambda t: ({**t[0], **t[1]}, t[2])
)


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
    """Someone other than the one allowed to act is refused (the current combatant waits on a question)."""
    others_are_refused(state, action, rng, current_waits=True)


def _gm_action(state, rng):
    return gm_action(
        state,
        rng,
        STARTER["statuses"],
        lambda r: {"to": [r.randrange(8), r.randrange(6)]},
        power=lambda r: r.randint(0, 12),
    )


@random_battles(
    fighter,
    {
        "interrupt_window": st.sampled_from(["own_turn_cycle", "round"]),
        "status_power": st.sampled_from(["difference", "roll"]),
        "recover_rule": st.sampled_from(["d20_vs_power", "automatic"]),
        "grid_metric": st.sampled_from(["chebyshev", "manhattan"]),
        "npc_reactions": st.sampled_from(["auto", "ask"]),
    },
    max_steps=120,
    max_examples=40,
)
def test_random_luck_battles_keep_invariants_and_replay(party, enemies, seed, options, steps):
    # RULE: ENG-1
    # RULE: ENG-8
    rng = random.Random(seed)
    roster = random_roster(party, enemies, lambda i: [0, i], lambda i: [7, 5 - i])
    log, state = build_battle("luck", options, seed, 8, 6, roster, [[4, 2]])
    play_random(
        state,
        log,
        rng,
        seed,
        steps,
        check=_check_invariants,
        gm=_gm_action,
        gm_rate=0.08,
        refused=_others_are_refused,
    )


TEMPLATES = {
    "move": {"to": [0, 3]},
    "ability": {"ability": "recover", "status": "stun"},
    "end_turn": {},
    "answer": {"choice": "pass"},
    "setup.add_combatant": {"name": "X", "side": "enemy", "sheet": {"hp": 3}, "pos": [4, 4]},
    "setup.place": {"combatant": "c1", "pos": [3, 3]},
    "setup.remove_combatant": {"combatant": "c2"},
    "setup.start": {},
    "gm.set_hp": {"combatant": "c1", "hp": 3},
    "gm.set_resource": {"combatant": "c1", "resource": "actions", "value": 1},
    "gm.add_status": {"combatant": "c1", "status": "stun", "power": 2, "duration": 1},
    "gm.remove_status": {"combatant": "c1", "status": "stun"},
    "gm.move": {"combatant": "c1", "to": [2, 2]},
    "gm.skip_turn": {},
    "gm.add_combatant": {"name": "Y", "side": "party", "sheet": {}, "pos": [5, 5]},
    "gm.remove_combatant": {"combatant": "c2"},
    "gm.end_battle": {"reason": "done"},
    "nonsense": {},
    "ability:sword": {"weapon": "sword", "targets": ["c2"], "to": [0, 1]},
    "ability:burst": {"ability": "flame_burst", "square": [1, 0]},
}
actions = junk_actions(
    TEMPLATES,
    [
        "c1",
        "c2",
        "stun",
        "recover",
        "sword",
        "claws",
        "parry",
        "fire_bolt",
        "flame_burst",
        "healing_potion",
        "pass",
        "party",
        "enemy",
    ],
    {"path", "targets", "decision", "row"},
)


@settings(max_examples=300, deadline=None)
@given(
    action=actions,
    actor=st.sampled_from(["current", "current", None, "c1", "c2", "c9"]),
    started=st.booleans(),
    pending=st.booleans(),
)
def test_any_input_is_accepted_or_refused_cleanly(action, actor, started, pending):
    # RULE: ENG-4
    from tests.engine.luck_duel import ASH, ORC

    log = [new_battle_event("luck", {"npc_reactions": "ask"}, 1, 6, 6)]
    state = replay(log)
    for name, side, sheet, pos in (("Ash", "party", ASH, [0, 0]), ("Orc", "enemy", ORC, [1, 0])):
        events, state = resolve(
            state,
            Action("setup.add_combatant", None, {"name": name, "side": side, "sheet": sheet, "pos": pos}),
            Dice(1),
        )
        log += events
    if started:
        events, state = resolve(state, Action("setup.start"), Dice(1, 5))
        log += events
        if pending and state.current().id == "c1":
            events, state = resolve(state, Action("end_turn", "c1"), Dice(1))
            log += events
        if pending:  # the orc attacks Ash with claws until a hit opens Ash's parry window, or gives up
            for salt in range(20):
                out = resolve(
                    state, Action("ability", "c2", {"weapon": "claws", "targets": ["c1"]}), Dice(salt)
                )
                if not isinstance(out, Refusal) and out[1].pending:
                    log += out[0]
                    state = out[1]
                    break
    kind, params = action
    accepted_or_refused_cleanly(state, log, kind, actor, params)
