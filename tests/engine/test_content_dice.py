"""Issue 22, point 3: dice that parse but cannot be rolled never break a battle, in every ruleset.

``1d0`` (no faces), ``1001d6`` (too many dice) and ``1d1e1`` (explodes on every
face) are refused wherever content enters (tests/security/test_content_dice.py).
Here they are planted straight into a running battle's state, as a forged or
old record could carry them: every content definition's dice and every sheet's
dice fields. An action that would roll them is refused with a message saying
which dice and why; nothing raises; ending a turn, the GM's skip and the end of
the battle always work, and a phase of the rules that would roll them (a
Paradigm Effect Phase) is logged as having had no effect while the round goes on.
"""

from __future__ import annotations

import random

import pytest

from combat.engine.actions import Action, Refusal
from combat.engine.autoplay import random_action
from combat.engine.core import resolve
from combat.engine.dice import Dice, DiceError
from combat.engine.rulesets import RULESETS
from tests.content import UNROLLABLE, answered, every_option, is_dice, poisoned, started

BAD = UNROLLABLE


@pytest.mark.parametrize("expr", BAD)
@pytest.mark.parametrize("key", sorted(RULESETS))
def test_point_3_planted_dice_give_a_refusal_while_turns_and_gm_overrides_go_on(key, expr):
    state = poisoned(started(key), expr)
    refused_for_dice = []
    # Every turn of two rounds: each option is resolved or refused (never raises), then the turn ends.
    for _ in range(4 * len(state.order) + 4):
        if state.phase != "active":
            break
        if state.pending is not None:  # a question of the rules (Paradigm's phases): its default answer
            state = answered(state)
            continue
        for action in every_option(state):
            out = resolve(state, action, Dice(state.seed, state.seq))
            if isinstance(out, Refusal) and "cannot be rolled" in out.reason:
                assert f"“{expr}”" in out.reason and "Nothing changed" in out.reason
                refused_for_dice.append(action.kind)
        out = resolve(state, Action("end_turn", state.current().id), Dice(state.seed, state.seq))
        assert not isinstance(out, Refusal), out
        _, state = out
    assert refused_for_dice, f"{key}: no action rolled the planted dice"
    # The GM's skip and the end of the battle work too.
    if state.phase == "active" and state.pending is None:
        out = resolve(state, Action("gm.skip_turn"), Dice(state.seed, state.seq))
        assert not isinstance(out, Refusal), out
        _, state = out
    out = resolve(state, Action("gm.end_battle", None, {"reason": "Stopped"}), Dice(state.seed, state.seq))
    assert not isinstance(out, Refusal) and out[1].phase == "ended"


@pytest.mark.parametrize("expr", BAD)
@pytest.mark.parametrize("key", sorted(RULESETS))
def test_point_3_random_play_on_planted_dice_never_raises_and_turns_always_end(key, expr):
    state = poisoned(started(key, seed=11), expr)
    rng = random.Random(f"{key}{expr}")
    first_round = state.round
    for _ in range(150):
        if state.phase != "active":
            break
        action = random_action(state, rng, end_turn_weight=0.3)
        assert action is not None
        try:
            out = resolve(state, action, Dice(state.seed, state.seq))
        except DiceError as exc:  # pragma: no cover - the failure this test exists for
            raise AssertionError(f"the engine raised on {action}: {exc}") from exc
        if isinstance(out, Refusal):
            assert action.kind not in ("end_turn", "answer"), (action, out)
            assert "cannot be rolled" in out.reason, (action, out)
            out = resolve(state, Action("end_turn", action.actor), Dice(state.seed, state.seq))
            assert not isinstance(out, Refusal), out
        _, state = out
    assert state.round > first_round or state.phase == "ended"


@pytest.mark.parametrize("expr", BAD)
def test_point_3_a_paradigm_effect_queued_with_bad_dice_is_logged_and_the_round_ends(expr):
    state = started("paradigm")
    actor = state.current()
    target = next(c for c in state.combatants.values() if c.side != actor.side)
    ability = next(
        key
        for key, d in RULESETS["paradigm"].content["abilities"].items()
        if is_dice(d.get("dice")) and d.get("type") in ("physical", "magical")
    )
    state = poisoned(state, expr)
    state.extra["queued"] = [{"ability": ability, "actor": actor.id, "targets": [target.id]}]
    round_before, events = state.round, []
    while state.pending is not None:  # round 1 opens with the Paradigm Phase's questions
        state = answered(state)
    for _ in range(len(state.order) + 1):  # end every turn of the round: the Effect Phase comes
        if state.round > round_before or state.pending is not None:
            break
        out = resolve(state, Action("end_turn", state.current().id), Dice(state.seed, state.seq))
        assert not isinstance(out, Refusal), out
        step, state = out
        events += step
    failed = [e for e in events if e.type == "rules.failed"]
    assert failed and f"“{expr}”" in failed[0].data["reason"]
    assert any(e.type == "phase.started" for e in events) and state.extra.get("queued") == []
    assert state.round > round_before or state.pending is not None  # the round went on
