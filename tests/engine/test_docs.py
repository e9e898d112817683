"""The examples in the engine's public docs run: the scenario builder, actions and refusals, events and the
log's words, the ruleset registry, content lookup."""

from __future__ import annotations

import doctest

import pytest

from combat.engine import actions, events, log, rulesets, testing, words
from combat.engine.rulesets import base


@pytest.mark.parametrize(
    "module", [testing, actions, events, words, log, rulesets, base], ids=lambda m: m.__name__
)
def test_the_documented_examples_run(module):
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0
