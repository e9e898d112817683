"""D20 Luck: what content means for a combatant (abilities it can use, what statuses forbid, targets)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from combat.engine.board import neighbours
from combat.engine.rulesets.base import blocked_by, definition, grid_metric_of, obstacles

if TYPE_CHECKING:
    from combat.engine.actions import ActionOption
    from combat.engine.state import BattleState, Combatant


ACTIONS_PER_TURN = 2


def _weapon_ability(w: dict[str, Any]) -> dict[str, Any]:
    return {
        "name": w["name"],
        "type": w["damage"],
        "target": "enemy",
        "range": w["range"],
        "area": 0,
        "dice": w["dice"],
        "bonus": w["bonus"],
        "cost": 1,
        "melee": w["melee"],
        "spell": False,
        "miss_max": 5,
        "crit_min": 20,
        "status": "",
        "duration": 1,
        "defense": "armor",
    }


def _item_ability(i: dict[str, Any]) -> dict[str, Any]:
    return {
        "name": i["name"],
        "type": i["type"],
        "target": i["target"],
        "range": i["range"],
        "area": 0,
        "dice": i["dice"],
        "bonus": i["bonus"],
        "cost": 1,
        "melee": False,
        "spell": False,
        "miss_max": 5,
        "crit_min": 20,
        "status": i["status"],
        "duration": i["duration"],
        "defense": i["defense"],
    }


def ability_for(state: BattleState, c: Combatant, ref: str) -> dict[str, Any] | None:
    """The ability ``ref`` names for ``c`` (``"fire_bolt"``, ``"weapon:sword"``, ``"item:healing_potion"``)."""
    if not isinstance(ref, str):
        return None
    if ref.startswith("weapon:"):
        key = ref[7:]
        w = definition(state, "weapons", key) if key in c.sheet.get("weapons", ()) else None
        return _weapon_ability(w) if w else None
    if ref.startswith("item:"):
        key = ref[5:]
        i = definition(state, "items", key) if key in c.sheet.get("items", ()) else None
        return _item_ability(i) if i else None
    return definition(state, "abilities", ref) if ref in c.sheet.get("abilities", ()) else None


#: The parameters that name what an ability action uses, and the prefix of their reference.
USED = {"ability": "", "weapon": "weapon:", "item": "item:"}


def ref_of(params: dict[str, Any]) -> str | None:
    """The reference an action's parameters name: ``{"weapon": "sword"}`` -> ``"weapon:sword"``.

    None unless exactly one of ``ability``, ``weapon``, ``item`` names a key.
    """
    named = [(name, params[name]) for name in USED if name in params]
    if len(named) != 1:
        return None
    name, key = named[0]
    if not isinstance(key, str) or ":" in key:
        return None
    return USED[name] + key


def params_of(ref: str) -> dict[str, str]:
    """The action parameters naming ``ref``: ``"item:healing_potion"`` -> ``{"item": "healing_potion"}``."""
    prefix, _, key = ref.partition(":")
    return {prefix: key} if key else {"ability": ref}


def ref_in(data: dict[str, Any]) -> str | None:
    """The reference an event or a paused hit's resume data names, in either form.

    Today they carry the action's parameters (``{"weapon": "sword"}``); logs stored before carry
    ``{"ability": "weapon:sword"}`` (and an item's ``{"ability": "item:x", "item": "x"}``).
    """
    old = data.get("ability")
    if isinstance(old, str) and ":" in old:
        return old
    return ref_of({name: data[name] for name in USED if name in data})


def used_in(data: dict[str, Any]) -> dict[str, str]:
    """The ``ability``/``weapon``/``item`` field an event carries for what ``data`` names (either form)."""
    ref = ref_in(data)
    return params_of(ref) if ref is not None else {}


def ability_refs(c: Combatant) -> list[str]:
    refs = [f"weapon:{w}" for w in c.sheet.get("weapons", ())]
    refs += list(c.sheet.get("abilities", ()))
    refs += [f"item:{i}" for i in dict.fromkeys(c.sheet.get("items", ()))]
    return refs


def items_left(c: Combatant, key: str) -> int:
    used: int = c.extra.get("items_used", {}).get(key, 0)
    return list(c.sheet.get("items", ())).count(key) - used


# --- status effects on what one may do -------------------------------------------
def move_allowance(state: BattleState, c: Combatant) -> int:
    """LUCK-ACT-2 and LUCK-STAT-8: Movement squares, reduced by slowing statuses (rounded by ``slow_rounding``)."""
    pct = 100
    for key in c.statuses:
        d = definition(state, "statuses", key)
        if d:
            pct = min(pct, d["move_percent"])
    squares = int(c.sheet.get("movement", 5)) * pct
    if state.options.get("slow_rounding") == "up":
        return -(-squares // 100)
    return squares // 100


def ability_gate(state: BattleState, c: Combatant, a: dict[str, Any]) -> str | None:
    """Why ``c`` cannot use ability ``a`` now (statuses, cost), or None."""
    if a["type"] != "recover":
        name = blocked_by(state, c, "actions")
        if name:
            return f"{name}: cannot act."
    if a["spell"]:
        name = blocked_by(state, c, "spells")
        if name:
            return f"{name}: cannot cast spells."
    if a["melee"]:
        name = blocked_by(state, c, "melee")
        if name:
            return f"{name}: cannot make melee attacks."
    if c.resources.get("actions", 0) < a["cost"]:
        return "No actions left."
    return None


def valid_target(state: BattleState, c: Combatant, t: Combatant, a: dict[str, Any]) -> bool:
    kind = a["target"]
    if not t.alive or t.pos is None:
        return False
    if kind == "self":
        return t is c
    if kind == "enemy":
        return t.side != c.side and not t.ko
    if kind == "ally":
        return t.side == c.side and (not t.ko or a["type"] == "heal")
    return not t.ko or a["type"] == "heal"


def free_steps(
    state: BattleState, c: Combatant, option: ActionOption
) -> list[tuple[dict[str, Any], list[tuple[int, int]]]]:
    """LUCK-ACT-3: an ability may move 1 square as part of it, to a free neighbouring square (as
    ``act_ability`` checks it): each such step, with the squares walked. A plan's way to reach one
    square further (``combat.engine.plans``); a Recover stays where it is."""
    if (
        option.kind != "ability"
        or c.pos is None
        or "status" in option.params
        or blocked_by(state, c, "movement")
    ):
        return []
    blocked, no_stop = obstacles(state, c)
    diagonal = grid_metric_of(state) == "chebyshev"
    return [
        ({"to": list(sq)}, [c.square, sq])
        for sq in neighbours(c.square, state.width, state.height, diagonal)
        if sq not in blocked and sq not in no_stop
    ]
