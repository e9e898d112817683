"""The examples in the engine's public docs run: the scenario builder, actions and refusals, events and the
log's words, the ruleset registry, content lookup, the fog, what a viewer may be told, house rules in play."""

from __future__ import annotations

import doctest

import pytest

from combat.engine import actions, events, fog, house, log, rulesets, testing, told, veil, words
from combat.engine.rulesets import base


@pytest.mark.parametrize(
    "module",
    [testing, actions, events, words, log, rulesets, base, fog, veil, told, house],
    ids=lambda m: m.__name__,
)
def test_the_documented_examples_run(module):
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0
