"""Paradigm Rows: reading the state (no events here).

Definitions (the battle's pack over the starter pack), effective statistics
(sheet + job + weapon + accessory + statuses), AP by tier, who is present,
rows as they count (an eidolon always counts as front row), who may be
targeted, the party inventory, and eidolons.

>>> ap_per_turn({"tier": 5}), ap_per_turn({"tier": 6})
(2, 3)
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any

from combat.engine.rulesets.base import blocked_by, definition, definitions

if TYPE_CHECKING:
    from combat.engine.state import BattleState, Combatant

SUMMON_ANIMA = 3
UPKEEP_ANIMA = 1


def job_key(value: Any) -> str:
    """A job named on a sheet: its key, or its name written loosely ("Black Mage" -> black_mage)."""
    return str(value or "").strip().lower().replace(" ", "_").replace("-", "_")


def ap_per_turn(sheet: dict[str, Any]) -> int:
    """PARA-AP-1: tier 1-5 has 2 AP per turn, tier 6-10 has 3."""
    return 3 if int(sheet.get("tier", 1) or 1) >= 6 else 2


# --- presence and rows ----------------------------------------------------------------------


def present(c: Combatant) -> bool:
    """On the battlefield: alive and not fled (PARA-ACT-FLEE)."""
    return c.alive and not c.extra.get("fled")


def able(c: Combatant) -> bool:
    return present(c) and not c.ko


def row_of(c: Combatant) -> str:
    """The row ``c`` counts as in: an eidolon always counts as front row (PARA-EID-5)."""
    return "front" if c.extra.get("eidolon_of") else (c.row or "front")


def front_empty(state: BattleState, side: str) -> bool:
    """True when no able character of ``side`` stands in its front row (PARA-ADV-1)."""
    return not any(c.side == side and able(c) and row_of(c) == "front" for c in state.combatants.values())


def side_able(state: BattleState, side: str) -> list[Combatant]:
    return [c for c in state.combatants.values() if c.side == side and able(c)]


# --- eidolons ---------------------------------------------------------------------------------


def eidolon_of(state: BattleState, summoner_id: str) -> Combatant | None:
    for c in state.combatants.values():
        if c.extra.get("eidolon_of") == summoner_id:
            return c
    return None


def side_eidolon(state: BattleState, side: str) -> Combatant | None:
    """The able eidolon on the field for ``side`` (PARA-EID-1 shields the rest of that side)."""
    for c in state.combatants.values():
        if c.side == side and c.extra.get("eidolon_of") and able(c):
            return c
    return None


def shielded(state: BattleState, c: Combatant) -> bool:
    """PARA-EID-1: while an ally's eidolon is out, ``c`` can neither act nor be targeted by enemies."""
    if c.extra.get("eidolon_of"):
        return False
    return side_eidolon(state, c.side) is not None


# --- statistics -----------------------------------------------------------------------------


def current_job(state: BattleState, c: Combatant) -> dict[str, Any] | None:
    return definition(state, "jobs", c.extra.get("job"))


def stat(state: BattleState, c: Combatant, key: str) -> int:
    """An effective statistic: ``attack``, ``magic``, ``defense`` or ``magic_defense``.

    Sheet value + current job bonus + equipped weapon (attack) and accessory +
    statuses. DEF and MDEF never go below 0.
    """
    sheet_key = {"attack": "attack_bonus", "magic": "magic_bonus"}.get(key, key)
    value = int(c.sheet.get(sheet_key, 0) or 0)
    job = current_job(state, c)
    if job:
        value += job.get(key, 0)
    acc = definition(state, "accessories", c.extra.get("accessory"))
    if acc:
        value += acc.get(key, 0)
    if key == "attack":
        weapon = definition(state, "weapons", c.extra.get("weapon"))
        if weapon:
            value += weapon.get("attack", 0)
    for skey in c.statuses:
        d = definition(state, "statuses", skey)
        if d:
            value += d.get(key, 0)
    return max(0, value) if key in ("defense", "magic_defense") else value


def weapon_dice(state: BattleState, c: Combatant) -> str:
    """PARA-ACT-ATTACK: the equipped weapon's dice, else the sheet's weapon damage dice."""
    weapon = definition(state, "weapons", c.extra.get("weapon"))
    return weapon["dice"] if weapon else str(c.sheet.get("weapon_damage") or "1d4")


def ability_keys(state: BattleState, c: Combatant) -> list[str]:
    """PARA-ACT-ABILITY / PARA-JOB-1: archetype abilities plus the current job's (an eidolon: its list)."""
    keys = list(c.sheet.get("abilities", ()))
    job = current_job(state, c)
    if job:
        keys += [k for k in job["abilities"] if k not in keys]
    return keys


def job_choices(state: BattleState, c: Combatant) -> list[str]:
    """Jobs ``c`` may switch to in a Paradigm Phase (PARA-JOB-1), the current one excluded."""
    jobs = [job_key(j) for j in c.sheet.get("jobs", ())]
    current = c.extra.get("job")
    return [j for j in dict.fromkeys(jobs) if j != current and definition(state, "jobs", j)]


# --- the party inventory (PARA-ACT-ITEM) -----------------------------------------------------


def inventory(state: BattleState, side: str) -> dict[str, int]:
    """Items left to a side: every item its characters brought, minus those used (ordered by key)."""
    brought: Counter[str] = Counter()
    for c in state.combatants.values():
        if c.side == side:
            brought.update(c.sheet.get("items", ()))
    used = state.extra.get("items_used", {}).get(side, {})
    return {k: n - used.get(k, 0) for k, n in sorted(brought.items()) if n - used.get(k, 0) > 0}


# --- targets ----------------------------------------------------------------------------------


def target_problem(
    state: BattleState, c: Combatant, t: Combatant, mode: str, kind: str, melee: bool
) -> str | None:
    """Why ``t`` is not a valid single target for ``c`` (None when it is)."""
    if not present(t):
        return f"{t.name} is not on the battlefield."
    if mode == "self":
        return None if t.id == c.id else "This only targets its user."
    if mode == "enemy":
        if t.side == c.side:
            return "Choose an enemy."
        if t.ko:
            return f"{t.name} is down."
        if shielded(state, t):
            return f"{t.name} cannot be targeted while an eidolon is out."
        if melee and state.options.get("melee_front_only", True) and row_of(t) != "front":
            return f"{t.name} is in the back row: melee reaches only the front row."
        return None
    if t.side != c.side:
        return "Choose an ally."
    if t.ko and kind not in ("heal", "anima"):
        return f"{t.name} is down."
    return None


def area_targets(state: BattleState, c: Combatant, mode: str, kind: str, melee: bool) -> list[str]:
    """Everyone an area effect (``all_enemies``/``all_allies``) hits."""
    single = "enemy" if mode == "all_enemies" else "ally"
    return [
        t.id
        for t in state.combatants.values()
        if target_problem(state, c, t, single, kind, melee) is None
        and not (single == "ally" and t.ko and kind != "heal")
    ]


def single_targets(state: BattleState, c: Combatant, mode: str, kind: str, melee: bool) -> list[str]:
    return [t.id for t in state.combatants.values() if target_problem(state, c, t, mode, kind, melee) is None]


def gate(state: BattleState, c: Combatant, cost: int, what: str = "") -> str | None:
    """Why ``c`` cannot take an action costing ``cost`` AP now (a status, AP), or None."""
    name = blocked_by(state, c, "actions")
    if name:
        return f"{name}: can only end the turn."
    if what:
        name = blocked_by(state, c, what)
        if name:
            return f"{name}: no {what} now."
    ap = c.resources.get("ap", 0)
    if ap < cost:
        return f"Not enough AP ({ap} left, {cost} needed)."
    return None


def hold_targets(state: BattleState, c: Combatant) -> list[str]:
    out: list[str] = []
    for cid in state.order[state.turn + 1 :]:
        t = state.combatants.get(cid)
        if cid != c.id and t is not None and t.alive and not t.extra.get("fled") and cid not in out:
            out.append(cid)
    return out


def object_problem(state: BattleState, c: Combatant, key: str, obj: dict[str, Any]) -> str | None:
    progress = state.extra.get("objects", {}).get(key, {"progress": 0, "done": 0})
    if progress["done"] >= obj["uses"]:
        return f"{obj['name']} has been used up."
    if obj["whole_turns"]:
        full = ap_per_turn(c.sheet)
        if c.extra.get("held_turn") or c.resources.get("ap", 0) < full:
            return f"{obj['name']} takes a whole turn: start it with all your AP."
        return gate(state, c, full)
    return gate(state, c, obj["ap"])


def flee_problem(state: BattleState, c: Combatant) -> str | None:
    if not state.options.get("allow_flee", True):
        return "The GM does not allow fleeing in this battle."
    if c.extra.get("eidolon_of"):
        return "An eidolon may only use its listed abilities."
    if row_of(c) != "back":
        return "Only from the back row."
    if c.resources.get("ap", 0) < 1:
        return "No AP left."
    return None


def summon_problem(state: BattleState, c: Combatant) -> str | None:
    if c.extra.get("eidolon_of"):
        return "An eidolon cannot summon."
    d = definition(state, "eidolons", c.sheet.get("eidolon"))
    if d is None:
        return f"{c.name} has no eidolon."
    if side_eidolon(state, c.side) is not None or eidolon_of(state, c.id) is not None:
        return "An eidolon is already on the field."
    if c.resources.get("anima", 0) < SUMMON_ANIMA:
        return f"Needs {SUMMON_ANIMA} Anima."
    return gate(state, c, 0)


def objects(state: BattleState) -> dict[str, dict[str, Any]]:
    return definitions(state, "objects")
