"""The GM's house rules of a battle: each rule with its value and a form that changes it in play.

A battle starts with its campaign's house rules (the defaults for new battles) and keeps its own from
then on; the GM changes one here (``gm.house_rule``: an event in the log that everyone reads, undone
like any GM action). A region of the GM's page only (``combat/house_rules.html``), pushed with the
whole table: a change of a rule, an undo.
"""

from __future__ import annotations

from typing import Any

from combat.engine.house import said
from combat.engine.rulesets import get_ruleset
from combat.snapshot import Table

REGION = "combat/house_rules.html"


def context(table: Table) -> dict[str, Any]:
    """Every house rule of the battle's ruleset as the battle holds it, and whether it may still change."""
    state = table.state
    rows = []
    for spec in get_ruleset(state.ruleset).option_schema():
        value = state.options.get(spec.key, spec.default)
        rows.append(
            {
                "key": spec.key,
                "label": spec.label,
                "kind": spec.kind,
                "value": value,
                "said": said(spec, value),
                "help": spec.help,
                "choices": [(c, spec.choice_label(c)) for c in spec.choices],
                "min": spec.min,
                "max": spec.max,
            }
        )
    return {"house_rules": rows, "house_rules_open": state.phase != "ended"}
