"""Action Block arithmetic: battle maxima, evasion, to-hit, damage, turn order (pure functions).

Everything here is a function of a sheet and content definitions, no dice
and no state changes, so each formula is tested on its own numbers.

>>> damage_dealt(base=7, bonus=2, reduction=3, crit=False), damage_dealt(7, 2, 3, crit=True)
(6, 12)
>>> damage_dealt(2, 0, 5, crit=True)
0
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from combat.engine.rulesets.action_block.content import definition
from combat.engine.rulesets.base import order_with_rolloffs

UNARMORED_EVASION = 7  # BLOCK-EVA-1
ACTIVE_EVASION = 7  # BLOCK-EVA-2
FEET_PER_SQUARE = 5
MELEE_RANGE_FT = 5  # BLOCK-RANGE-1
GUN_KINDS = ("gun", "shotgun", "tesla")
MELEE_KINDS = ("melee", "shield")


def squares(feet: int) -> int:
    """Feet to squares of 5 ft, rounded down (a 5 ft reach is the neighbouring square)."""
    return max(0, int(feet)) // FEET_PER_SQUARE


def armor_of(extra: dict[str, Any], sheet: dict[str, Any]) -> dict[str, Any] | None:
    key = sheet.get("armor") or ""
    return definition(extra, "armors", key) if key else None


def weapons_of(extra: dict[str, Any], sheet: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    out = []
    for key in sheet.get("weapons", ()):
        d = definition(extra, "weapons", key)
        if d is not None:
            out.append((key, d))
    return out


def total_weight(extra: dict[str, Any], sheet: dict[str, Any]) -> int:
    """Total Equipment Weight: the sheet's other equipment plus every weapon, shield and armor carried."""
    armor = armor_of(extra, sheet)
    total: int = (
        int(sheet.get("equipment_weight", 0))
        + sum(w["weight"] for _, w in weapons_of(extra, sheet))
        + (armor["weight"] if armor else 0)
    )
    return total


def speed_reduction(extra: dict[str, Any], sheet: dict[str, Any]) -> int:
    """The armor's Speed Point Reduction (a sheet without named armor gives its own figure)."""
    armor = armor_of(extra, sheet)
    return armor["speed_reduction"] if armor else int(sheet.get("armor_speed_reduction", 0))


def battle_strength(extra: dict[str, Any], sheet: dict[str, Any]) -> int:
    """BLOCK-RES-1: Maximum Battle Strength = Maximum Strength - Total Equipment Weight (at least 0)."""
    return max(0, int(sheet.get("max_strength", 0)) - total_weight(extra, sheet))


def battle_speed(extra: dict[str, Any], sheet: dict[str, Any]) -> int:
    """BLOCK-RES-2: Maximum Battle Speed = Maximum Speed - the armor's Speed Point Reduction (at least 0)."""
    return max(0, int(sheet.get("max_speed", 0)) - speed_reduction(extra, sheet))


def undamaged_pdr(extra: dict[str, Any], sheet: dict[str, Any]) -> int:
    """Physical Damage Reduction before any Drill: the sheet's plus the armor's."""
    armor = armor_of(extra, sheet)
    return int(sheet.get("pdr", 0)) + (armor["pdr"] if armor else 0)


def passive_evasion(extra: dict[str, Any], sheet: dict[str, Any], bonus: int = 0) -> int:
    """BLOCK-EVA-1: the armor's Passive Evasion (unarmored: the sheet's, 7 by default) plus bonuses."""
    armor = armor_of(extra, sheet)
    base = armor["passive_evasion"] if armor else int(sheet.get("passive_evasion", UNARMORED_EVASION))
    return base + int(sheet.get("evasion_bonus", 0)) + bonus


def active_evasion(sheet: dict[str, Any], bonus: int = 0) -> int:
    """BLOCK-EVA-2: 7 + Dodge Boost + bonuses."""
    return ACTIVE_EVASION + int(sheet.get("dodge_boost", 0)) + int(sheet.get("evasion_bonus", 0)) + bonus


def base_to_hit_expr(weapon: dict[str, Any] | None) -> str:
    """BLOCK-HIT-1: 2d6, or 1d6 for a shotgun."""
    return "1d6" if weapon is not None and weapon["kind"] == "shotgun" else "2d6"


def to_hit_bonus(
    sheet: dict[str, Any], weapon: dict[str, Any] | None, mods: Sequence[dict[str, Any]] = ()
) -> int:
    """BLOCK-HIT-1: the weapon's To Hit Bonus + Melee Boost (melee) or Gun Boost (guns); grapples
    (``weapon`` None) use the Grapple Accuracy Boost. Attack modifiers add their change."""
    if weapon is None:
        return int(sheet.get("grapple_boost", 0))
    boost = "melee_boost" if weapon["kind"] in MELEE_KINDS else "gun_boost"
    total: int = weapon["to_hit"] + int(sheet.get(boost, 0)) + sum(m["to_hit"] for m in mods)
    return total


def damage_bonus(sheet: dict[str, Any], weapon: dict[str, Any], mods: Sequence[dict[str, Any]] = ()) -> int:
    """Damage Dealt Bonus: the sheet's + the weapon's + Melee or Gun Boost + attack modifiers."""
    boost = "melee_boost" if weapon["kind"] in MELEE_KINDS else "gun_boost"
    total: int = (
        int(sheet.get("damage_bonus", 0))
        + weapon["damage_bonus"]
        + int(sheet.get(boost, 0))
        + sum(m["damage_bonus"] for m in mods)
    )
    return total


def damage_dealt(base: int, bonus: int, reduction: int, crit: bool) -> int:
    """BLOCK-DMG-1 and BLOCK-CRIT-1: base + bonus - reduction (each doubled on a crit), at least 0."""
    k = 2 if crit else 1
    return max(0, k * base + k * bonus - k * reduction)


def is_hit(total: int, evasion: int) -> bool:
    """BLOCK-HIT-2: a to-hit roll meeting or exceeding Evasion hits."""
    return total >= evasion


def is_crit(base_faces_total: int, hit: bool) -> bool:
    """BLOCK-CRIT-1: a Base To Hit Roll of 12 that hits."""
    return hit and base_faces_total == 12


def turn_order(
    max_speed: dict[str, int], roll_off: Callable[[list[str]], dict[str, int]], max_rounds: int = 20
) -> list[str]:
    """BLOCK-ORDER-1/2: descending Maximum Speed Points; tied groups roll off (3d6) until clear.

    ``roll_off(ids)`` returns a fresh roll per id. Ties left after ``max_rounds``
    keep the order the combatants were added in (bounded loop).
    """
    ids = list(max_speed)
    return order_with_rolloffs(ids, {cid: [-max_speed[cid]] for cid in ids}, roll_off, max_rounds)


def reduction_for(
    weapon_kind: str, pdr_now: int, sheet: dict[str, Any], stance_pdr: int = 0
) -> tuple[str, int]:
    """BLOCK-DMG-2: SDR + its boost against a Tesla; otherwise current PDR + its boost + stance."""
    if weapon_kind == "tesla":
        return "sdr", int(sheet.get("sdr", 0)) + int(sheet.get("sdr_boost", 0))
    return "pdr", pdr_now + int(sheet.get("pdr_boost", 0)) + stance_pdr
