"""A battle's house rules, changed by the GM in play (ENG-7): ``gm.house_rule``, one ``house_rule.changed``
event each, in the log and undone like any GM action (ENG-8).

A battle starts with its campaign's house rules (the defaults for new battles); from then on they are
the battle's own. The event keeps the value it replaced, so the rules in force at any seq are known
(``veil.options_at``), and says the rule in words for everyone at the table: its label and the new value
as a person reads it.

>>> from combat.engine.testing import Battle
>>> b = Battle("luck")
>>> [e.data["said"] for e in b.act("gm.house_rule", option="monsters_act", value=True)]
['on']
>>> b.state.options["monsters_act"], b.state.extra["rules_past"]
(True, [[2, 'monsters_act', False]])
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from combat.engine.actions import Action, Refusal, RefusalCode
from combat.engine.schema import Field
from combat.engine.state import BattleState
from combat.engine.veil import RULES

if TYPE_CHECKING:
    from combat.engine.context import Ctx


def said(spec: Field, value: Any) -> str:
    """A house rule's value as a person reads it: on or off, a choice's label, the number."""
    if spec.kind == "bool":
        return "on" if value else "off"
    if spec.kind == "choice":
        return spec.choice_label(value)
    if isinstance(value, list):
        return ", ".join(str(v) for v in value) or "none"
    return str(value)


def gm_house_rule(ctx: Ctx, action: Action) -> Refusal | None:
    """``gm.house_rule``: set the battle's ``option`` to ``value`` (checked by the ruleset's schema)."""
    key = action.params.get("option")
    spec = ctx.rules.option_schema().get(key) if isinstance(key, str) else None
    if spec is None or not isinstance(key, str):
        return Refusal("That is not a house rule of this ruleset.", RefusalCode.BAD_INPUT)
    try:
        value = spec.clean(action.params.get("value"))
    except ValueError as exc:
        return Refusal(f"{spec.label}: {exc}", RefusalCode.BAD_INPUT)
    before = ctx.state.options.get(key, spec.default)
    if value == before:
        return Refusal(f"{spec.label} is already {said(spec, value)}.")
    ctx.emit(
        "house_rule.changed",
        option=key,
        value=value,
        before=before,
        label=spec.label,
        said=said(spec, value),
        by="gm",
    )
    return None


def apply_house_rule(state: BattleState, d: dict[str, Any]) -> None:
    """Fold a ``house_rule.changed`` event: the battle's options (a new dict: clones share it) and the past."""
    key = d["option"]
    state.options = {**state.options, key: d["value"]}
    state.extra[RULES] = [*state.extra.get(RULES, []), [state.seq + 1, key, d.get("before")]]
