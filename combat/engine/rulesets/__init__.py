"""Registry of rulesets by key: one line per ruleset (each is a package here, see README.md).

>>> get_ruleset("luck").name
'D20 Luck'
>>> event_type("luck.rolled") is get_ruleset("luck").events["luck.rolled"]
True
"""

from __future__ import annotations

from combat.engine.events import GENERIC_EVENTS, EventType
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


def event_type(etype: str) -> EventType | None:
    """The description of an event type: the generic one, else the one of the registered ruleset that owns it.

    A ruleset owns the types it registers beyond the generic ones (a test holds every type to one
    owner); where it extends a generic type, the generic sentence and reading stay.
    """
    spec = GENERIC_EVENTS.get(etype)
    if spec is None:
        for ruleset in RULESETS.values():
            spec = ruleset.events.get(etype)
            if spec is not None:
                break
    return spec
