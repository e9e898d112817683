"""Content and forms for tests: what the site's generated forms post, homebrew per ruleset, dice planted in battles.

``sheet_post`` and ``form_data`` are the form data of a character sheet and of a
homebrew definition as the pages post them. ``CASES`` gives, for the rulesets it
lists, a homebrew ability (and item) that is played in a battle and an invalid
entry; a ruleset needs no entry here to be covered by the homebrew forms
(tests/web/test_every_ruleset_homebrew.py runs over the registry). ``UNROLLABLE`` are dice that
parse but cannot be rolled; ``started`` builds a started battle of a ruleset's
starter cast (each hero next to a monster) and ``poisoned`` plants dice in
every content definition and sheet of a state, as a forged or old record
could carry them.
"""

from __future__ import annotations

import importlib
import re
from typing import Any

from combat.engine.actions import Action, Refusal
from combat.engine.core import legal_actions, new_battle_event, replay, resolve
from combat.engine.dice import Dice, check_expr
from combat.engine.rulesets import RULESETS
from combat.engine.state import BattleState

UNROLLABLE = ["1d0", "1001d6", "1d1e1"]  # no faces; too many dice; explodes on every face
_DICE = re.compile(r"[0-9]*d[0-9%]")


def sheet_post(schema, sheet: dict, **model_fields) -> dict:
    """Form data for a character form: model fields plus ``sheet_<key>`` per stat."""
    data = dict(model_fields)
    for spec in schema:
        value = sheet.get(spec.key, spec.default)
        if spec.kind == "bool":
            if value:
                data[f"sheet_{spec.key}"] = "on"
        elif spec.kind == "list":
            data[f"sheet_{spec.key}"] = ", ".join(value or [])
        else:
            data[f"sheet_{spec.key}"] = "" if value is None else str(value)
    return data


def form_data(values: dict) -> dict:
    """A definition as the generated form posts it."""
    out = {}
    for key, value in values.items():
        if value is True:
            out[f"def_{key}"] = "on"
        elif value is False or value is None:
            continue
        elif isinstance(value, list):
            out[f"def_{key}"] = ", ".join(value)
        else:
            out[f"def_{key}"] = str(value)
    return out


# Per ruleset: a homebrew ability or spell (kind, values, the cost its menu entry shows, the dice it rolls),
# an item when the ruleset has items, the sheet field listing abilities (and items), and an invalid entry.
CASES = {
    "luck": {
        "ability": (
            "abilities",
            {
                "name": "Ice Lance",
                "type": "magical",
                "range": 8,
                "dice": "3d3",
                "bonus": 1,
                "spell": True,
                "cost": 2,
                "miss_max": 0,
            },
            {"actions": 2},
            "3d3",
        ),
        "item": ("items", {"name": "Tonic", "type": "heal", "target": "ally", "range": 1, "dice": "1d2"}),
        "fields": ("abilities", "items"),
        "invalid": ("abilities", {"name": "Zap", "type": "magical", "dice": "2d"}, "dice"),
    },
    "mist": {
        "ability": (
            "abilities",
            {
                "name": "Ice Lance",
                "type": "chain",
                "cost": 1,
                "target": "enemy",
                "range": 8,
                "accuracy_check": False,
                "damage": "3d3+30",
                "damage_type": "magical",
            },
            {"slots": 1},
            "3d3+30",
        ),
        "item": None,
        "fields": ("abilities", None),
        "invalid": ("abilities", {"name": "Zap", "type": "simple", "cost": 1, "damage": "lots"}, "damage"),
    },
    "paradigm": {
        "ability": (
            "abilities",
            {"name": "Ice Lance", "type": "magical", "target": "enemy", "cost": 1, "dice": "3d3", "bonus": 1},
            {"ap": 1},
            "3d3",
        ),
        "item": ("items", {"name": "Tonic", "type": "heal", "target": "ally", "dice": "1d2"}),
        "fields": ("abilities", "items"),
        "invalid": ("abilities", {"name": "Zap", "type": "magical", "dice": "2d"}, "dice"),
    },
    "action-block": {
        "ability": (
            "spells",
            {
                "name": "Ice Lance",
                "effect": "damage",
                "base": "3d3",
                "max_range_ft": 60,
                "targets": "enemy",
                "speed_cost": 1,
                "strength_cost": 1,
            },
            {"speed": 1, "strength": 1},
            "3d3",
        ),
        "item": ("weapons", {"name": "Frost Pick", "kind": "melee", "damage": "1d3", "range_ft": 5}),
        "fields": ("abilities", "weapons"),
        "invalid": ("spells", {"name": "Zap", "effect": "damage", "base": "2d"}, "base"),
        "then": "activate_spell",  # Cast Spell enters the casting stance; Activate Spell resolves it
    },
}


def is_dice(value: Any) -> bool:
    """A text that is a dice expression the table rolls (``"1d8+1"``; not ``"sword"`` nor ``"3"``)."""
    return isinstance(value, str) and _DICE.search(value) is not None and check_expr(value) is None


def started(key: str, seed: int = 3) -> BattleState:
    """A started battle of the ruleset's starter cast, each hero next to a monster."""
    ruleset = RULESETS[key]
    content = importlib.import_module(ruleset.__module__ + ".content")
    pairs = list(zip(content.HEROES.items(), content.MONSTERS.items(), strict=False))
    state = replay([new_battle_event(key, {}, seed, 6, 2 * len(pairs) + 1)])
    for i, ((hero, hero_sheet), (monster, monster_sheet)) in enumerate(pairs):
        for name, side, sheet, x in ((hero, "party", hero_sheet, 0), (monster, "enemy", monster_sheet, 1)):
            params: dict[str, Any] = {"name": name, "side": side, "sheet": sheet}
            params["controller"] = str(i) if side == "party" else None
            params.update({"row": "front"} if ruleset.board == "rows" else {"pos": [x, 2 * i]})
            state = _done(state, Action("setup.add_combatant", None, params))
    return _done(state, Action("setup.start"))


def _done(state: BattleState, action: Action) -> BattleState:
    out = resolve(state, action, Dice(state.seed, state.seq))
    assert not isinstance(out, Refusal), (action, out)
    return out[1]


def poisoned(state: BattleState, expr: str) -> BattleState:
    """``state`` with ``expr`` in place of every dice expression of its content and of its sheets."""
    ruleset = RULESETS[state.ruleset]
    pack: dict[str, dict[str, Any]] = {}
    for kind, defs in (ruleset.content or {}).items():
        for key, definition in defs.items():
            bad = {field: expr for field, value in definition.items() if is_dice(value)}
            if bad:
                pack.setdefault(kind, {})[key] = {**definition, **bad}
    assert pack, f"{state.ruleset}: no content dice to plant"
    out = state.clone()
    out.extra = {**out.extra, "content": pack}
    for c in out.combatants.values():
        c.sheet = {k: (expr if is_dice(v) else v) for k, v in c.sheet.items()}
    return out


def answered(state: BattleState) -> BattleState:
    """The state after the pending question's default answer (by the GM when only the GM answers it)."""
    p = state.pending
    assert p is not None
    return _done(
        state, Action("answer", None if p.gm_only else p.combatant, {"decision": p.id, "choice": p.default})
    )


def every_option(state: BattleState) -> list[Action]:
    """Each option the current combatant has now (its first target and square), but ending the turn."""
    current = state.current()
    assert current is not None
    actions = []
    for option in legal_actions(state, current.id):
        if not option.available or option.kind == "end_turn":
            continue
        params = dict(option.params)
        if option.targets:
            params["targets"] = [option.targets[0]]
        if option.squares:
            params["to" if option.kind == "move" else "square"] = list(option.squares[0])
        actions.append(Action(option.kind, current.id, params))
    return actions
