"""One vocabulary: every event the four rulesets emit in random battles fits its typed description."""

from __future__ import annotations

import pytest

from combat.engine.events import EVENT_FIELDS, event_problems
from combat.engine.rulesets import RULESETS
from tests.engine.properties import random_battle


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
