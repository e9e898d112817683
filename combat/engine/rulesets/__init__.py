"""Registry of rulesets by key.

>>> get_ruleset("luck").name
'D20 Luck'
"""

from __future__ import annotations

from combat.engine.rulesets.action_block import ActionBlock
from combat.engine.rulesets.base import Ruleset
from combat.engine.rulesets.luck import Luck
from combat.engine.rulesets.mist import Mist
from combat.engine.rulesets.paradigm import Paradigm

RULESETS: dict[str, type[Ruleset]] = {r.key: r for r in (Mist, Paradigm, Luck, ActionBlock)}


class UnknownRuleset(KeyError):
    pass


def get_ruleset(key: str) -> type[Ruleset]:
    try:
        return RULESETS[key]
    except KeyError:
        raise UnknownRuleset(f"Unknown ruleset {key!r}") from None


def ruleset_choices() -> list[tuple[str, str]]:
    return [(key, r.name) for key, r in RULESETS.items()]
