"""One vocabulary: every event the four rulesets emit in random battles fits its typed description."""

from __future__ import annotations

import importlib
import random

import pytest

from combat.engine.actions import Refusal
from combat.engine.autoplay import random_action
from combat.engine.core import resolve
from combat.engine.dice import Dice
from combat.engine.events import EVENT_FIELDS, event_problems
from combat.engine.rulesets import RULESETS
from tests.engine.properties import build_battle, gm_action, starter_roster


def _random_options(ruleset, rng: random.Random) -> dict:
    options = {}
    for f in ruleset.options:
        if f.kind == "bool":
            options[f.key] = rng.random() < 0.5
        elif f.kind == "choice":
            options[f.key] = rng.choice(list(f.choices))
    return options


def random_battle(key: str, seed: int, seen=None, steps: int = 120) -> list:
    """The log of a random battle of the whole starter cast (random legal actions, GM overrides now and then).

    ``seen(state, action, out)`` is called with every action submitted, before it, and its outcome.
    """
    ruleset = RULESETS[key]
    content = importlib.import_module(ruleset.__module__ + ".content")
    rng = random.Random(seed)
    rows = ruleset.board == "rows"
    roster = starter_roster(content.HEROES, content.MONSTERS, 9)
    for entry in roster:
        if rows:
            entry.pop("pos")
            entry["row"] = rng.choice(["front", "back"])
    log, state = build_battle(key, _random_options(ruleset, rng), seed, 10, 2 * len(roster) + 1, roster)
    statuses = sorted(ruleset.status_keys(state) or ["stun"])
    for _ in range(steps):
        if rng.random() < 0.1:
            action = gm_action(
                state,
                rng,
                statuses,
                (lambda g: {"row": g.choice(["front", "back"])})
                if rows
                else (lambda g: {"to": [g.randrange(10), g.randrange(3)]}),
            )
        else:
            action = random_action(state, rng)
        if action is None:
            break
        out = resolve(state, action, Dice(seed, state.seq))
        if seen is not None:
            seen(state, action, out)
        if not isinstance(out, Refusal):
            events, state = out
            log += events
    return log


@pytest.mark.parametrize("key", sorted(RULESETS))
def test_every_event_of_random_battles_fits_the_vocabulary(key):
    # RULE: ENG-2
    seen: set[str] = set()
    for seed in range(6):
        for event in random_battle(key, seed):
            assert event_problems(event) == [], (event.type, event.data)
            seen.add(event.type)
            if event.rolls:  # ENG-2: every roll event says what was rolled, in one line too
                rolled = event.data["rolled"]
                assert rolled["total"] == sum(r["total"] for r in event.rolls)
                assert rolled["faces"] == [f for r in event.rolls for f in r["faces"]]
    assert len(seen) >= 15  # the battles went far enough to say something


def test_the_log_words_only_event_types_of_the_reference():
    from combat.templatetags.battle_words import WORDS

    assert set(WORDS) <= set(EVENT_FIELDS), set(WORDS) - set(EVENT_FIELDS)
