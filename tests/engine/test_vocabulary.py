"""One vocabulary: every event the four rulesets emit in random battles fits its typed description.

The generic events are the core's (``events.GENERIC_EVENTS``); every other event type is described
(fields and sentence) by the one ruleset that owns it, in its package's ``events.py``.
"""

from __future__ import annotations

from collections import Counter

import pytest

from combat.engine.events import GENERIC_EVENTS, event_problems
from combat.engine.log import describe
from combat.engine.rulesets import RULESETS, event_type
from tests.engine.properties import random_battle


@pytest.mark.parametrize("key", sorted(RULESETS))
def test_every_event_of_random_battles_fits_the_vocabulary(key):
    # RULE: ENG-2
    seen: set[str] = set()
    for seed in range(6):
        for event in random_battle(key, seed):
            assert event_problems(event, RULESETS[key].events) == [], (event.type, event.data)
            seen.add(event.type)
            if event.rolls:  # ENG-2: every roll event says what was rolled, in one line too
                rolled = event.data["rolled"]
                assert rolled["total"] == sum(r["total"] for r in event.rolls)
                assert rolled["faces"] == [f for r in event.rolls for f in r["faces"]]
    assert len(seen) >= 15  # the battles went far enough to say something


def test_each_event_type_has_one_description_and_its_owner_says_it():
    owners = Counter(etype for r in RULESETS.values() for etype in set(r.events) - set(GENERIC_EVENTS))
    assert owners and max(owners.values()) == 1, owners  # a ruleset's own type is no other ruleset's
    for ruleset in RULESETS.values():
        for etype, spec in ruleset.events.items():
            if etype in GENERIC_EVENTS:  # an extension: more fields, the generic sentence and reading
                generic = GENERIC_EVENTS[etype]
                assert spec.fields is not generic.fields, etype
                assert (spec.words, spec.changes, spec.verdict, spec.hurts) == (
                    generic.words,
                    generic.changes,
                    generic.verdict,
                    generic.hurts,
                ), etype
            else:
                assert event_type(etype) is spec, etype


@pytest.mark.parametrize("key", sorted(RULESETS))
def test_the_log_says_every_event_in_the_words_of_its_description(key):
    names = {f"c{i}": f"Name{i}" for i in range(1, 20)}
    for event in random_battle(key, seed=1):
        spec = event_type(event.type)
        assert spec is not None, event.type  # never the generic sentence of an unknown type
        assert describe(0, event.type, event.data, names, set())["text"] == spec.words(
            event.data, names, set()
        )
