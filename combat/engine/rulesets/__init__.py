"""Registry of rulesets by key: one line per ruleset (each is a package here, see README.md).

>>> get_ruleset("luck").name
'D20 Luck'
"""

from __future__ import annotations

from combat.engine.rulesets import action_block, luck, mist, paradigm
from combat.engine.rulesets.base import Ruleset

RULESETS: dict[str, type[Ruleset]] = {
    r.key: r
    for r in (
        mist.Mist,
        paradigm.Paradigm,
        luck.Luck,
        action_block.ActionBlock,
    )
}


class UnknownRuleset(KeyError):
    pass


def get_ruleset(key: str) -> type[Ruleset]:
    try:
        return RULESETS[key]
    except KeyError:
        raise UnknownRuleset(f"Unknown ruleset {key!r}") from None


def ruleset_choices() -> list[tuple[str, str]]:
    return [(key, r.name) for key, r in RULESETS.items()]
