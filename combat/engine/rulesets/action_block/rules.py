"""Action Block rules: arithmetic (battle maxima, evasion, to-hit, damage, turn order), then what the
state allows (costs and action slots, ranges and targets, blocks, moves, spells within reach).

Everything here is a function of a sheet, content definitions and the
state, no dice and no events, so each formula is tested on its own numbers.

>>> damage_dealt(base=7, bonus=2, reduction=3, crit=False), damage_dealt(7, 2, 3, crit=True)
(6, 12)
>>> damage_dealt(2, 0, 5, crit=True)
0
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from combat.engine.actions import Refusal
from combat.engine.board import Square, chebyshev, steps_within
from combat.engine.rulesets.action_block.content import STARTER
from combat.engine.rulesets.base import (
    blocked_by,
    definition,
    definition_in,
    definitions,
    obstacles,
    order_with_rolloffs,
)
from combat.engine.words import count

if TYPE_CHECKING:
    from combat.engine.state import BattleState, Combatant

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
    return definition_in(STARTER, extra.get("content"), "armors", sheet.get("armor"))


def weapons_of(extra: dict[str, Any], sheet: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    out = []
    for key in sheet.get("weapons", ()):
        d = definition_in(STARTER, extra.get("content"), "weapons", key)
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


BOOST_NAMES = {"melee_boost": "Melee Boost", "gun_boost": "Gun Boost", "grapple_boost": "Grapple Boost"}


def to_hit_parts(
    sheet: dict[str, Any], weapon: dict[str, Any] | None, mods: Sequence[dict[str, Any]] = ()
) -> list[tuple[int, str]]:
    """BLOCK-HIT-1: the weapon's To Hit Bonus + Melee Boost (melee) or Gun Boost (guns); grapples
    (``weapon`` None) use the Grapple Accuracy Boost. Attack modifiers add their change. Each with
    what it comes from, in words."""
    if weapon is None:
        return [(int(sheet.get("grapple_boost", 0)), BOOST_NAMES["grapple_boost"])]
    boost = "melee_boost" if weapon["kind"] in MELEE_KINDS else "gun_boost"
    return [
        (int(weapon["to_hit"]), str(weapon.get("name", "Weapon"))),
        (int(sheet.get(boost, 0)), BOOST_NAMES[boost]),
    ] + [(int(m["to_hit"]), m["name"]) for m in mods]


def to_hit_bonus(
    sheet: dict[str, Any], weapon: dict[str, Any] | None, mods: Sequence[dict[str, Any]] = ()
) -> int:
    """The sum of ``to_hit_parts``."""
    return sum(v for v, _ in to_hit_parts(sheet, weapon, mods))


def damage_parts(
    sheet: dict[str, Any], weapon: dict[str, Any], mods: Sequence[dict[str, Any]] = ()
) -> list[tuple[int, str]]:
    """Damage Dealt Bonus: the sheet's + the weapon's + Melee or Gun Boost + attack modifiers, each with
    what it comes from, in words."""
    boost = "melee_boost" if weapon["kind"] in MELEE_KINDS else "gun_boost"
    return [
        (int(sheet.get("damage_bonus", 0)), "Damage Dealt Bonus"),
        (int(weapon["damage_bonus"]), str(weapon.get("name", "Weapon"))),
        (int(sheet.get(boost, 0)), BOOST_NAMES[boost]),
    ] + [(int(m["damage_bonus"]), m["name"]) for m in mods]


def damage_bonus(sheet: dict[str, Any], weapon: dict[str, Any], mods: Sequence[dict[str, Any]] = ()) -> int:
    """The sum of ``damage_parts``."""
    return sum(v for v, _ in damage_parts(sheet, weapon, mods))


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


# --- what the state allows: costs, action slots, targets, defences, moves, spells -----------------

MOVE_COST = {"speed": 1, "strength": 0}  # a Movement action (the source gives no figure)

GRAPPLE_COST = {"speed": 2, "strength": 2}

BREAK_FREE_COST = {"speed": 1, "strength": 2}

BRACE_COST = {"speed": 0, "strength": 1}

BRACE_PDR = 1

SLOT_NAMES = {"offensive": "Offensive", "movement": "Movement", "verbal": "Verbal"}


def cost_of(*defs: dict[str, Any]) -> dict[str, int]:
    return {
        "speed": sum(d.get("speed_cost", 0) for d in defs),
        "strength": sum(d.get("strength_cost", 0) for d in defs),
    }


def cost_gate(c: Combatant, cost: dict[str, int]) -> str | None:
    """BLOCK-RES-4: no action may take Speed or Strength Points below 0."""
    if cost.get("speed", 0) > c.resources.get("speed", 0):
        return f"Needs {cost['speed']} Speed Points ({c.resources.get('speed', 0)} left)."
    if cost.get("strength", 0) > c.resources.get("strength", 0):
        return f"Needs {cost['strength']} Strength Points ({c.resources.get('strength', 0)} left)."
    return None


def slot_gate(state: BattleState, c: Combatant, slot: str | None, cost: dict[str, int]) -> str | None:
    """BLOCK-TURN-1: one Offensive, Movement and Verbal action per turn; statuses; costs."""
    if slot is not None:
        if c.resources.get(slot, 0) < 1:
            return f"{SLOT_NAMES[slot]} action already used this turn."
        name = blocked_by(state, c, slot)
        if name:
            return f"{name}: no {SLOT_NAMES[slot]} action."
    return cost_gate(c, cost)


def spend(slot: str | None, cost: dict[str, int]) -> dict[str, int]:
    out = {k: v for k, v in cost.items() if v}
    if slot:
        out[slot] = 1
    return out


def in_range(a: Combatant, b: Combatant, feet: int) -> bool:
    """BLOCK-RANGE-1: within ``feet`` (5 ft squares, a diagonal step counts 5 ft)."""
    return a.pos is not None and b.pos is not None and chebyshev(a.pos, b.pos) <= squares(feet)


def weapon_range(w: dict[str, Any]) -> int:
    return MELEE_RANGE_FT if w["kind"] in MELEE_KINDS else w["range_ft"]


def attack_targets(state: BattleState, c: Combatant, feet: int) -> list[str]:
    return [t.id for t in state.combatants.values() if t.side != c.side and t.alive and in_range(c, t, feet)]


def pick_targets(
    state: BattleState, c: Combatant, raw: Any, allowed: list[str], most: int
) -> list[str] | Refusal:
    if not isinstance(raw, list) or not raw or not all(isinstance(x, str) for x in raw):
        return Refusal("Choose a target.")
    if len(set(raw)) != len(raw):
        return Refusal("Each target once.")
    if len(raw) > most:
        return Refusal(f"At most {count(most, 'target')}.")
    for tid in raw:
        if tid not in allowed:
            t = state.combatants.get(tid)
            return Refusal(f"{t.name} is not a valid target in range." if t else "No such target.")
    return list(raw)


def mods_for(
    state: BattleState, c: Combatant, raw: Any, kind: str, field: str
) -> list[tuple[str, dict[str, Any]]] | Refusal:
    if raw is None:
        raw = []
    if not isinstance(raw, list) or not all(isinstance(x, str) for x in raw) or len(set(raw)) != len(raw):
        return Refusal("Modifiers are a list of different names.")
    out = []
    for key in raw:
        d = definition(state, kind, key) if key in c.sheet.get(field, ()) else None
        if d is None:
            return Refusal(f"{c.name} has no modifier {key!r}.")
        out.append((key, d))
    return out


def evasions(state: BattleState, t: Combatant) -> tuple[int, int]:
    return passive_evasion(state.extra, t.sheet), active_evasion(t.sheet)


def block_options(state: BattleState, t: Combatant) -> list[dict[str, str]]:
    """BLOCK-DEF-2: affordable Block stances, each alone or with Shield Block when the shield is free."""
    defs = definitions(state, "defenses")
    blocks = [(k, d) for k, d in defs.items() if d["kind"] == "block"]
    shield = shield_pdr(state, t)
    shields = [(k, d) for k, d in defs.items() if d["kind"] == "shield_block"] if shield is not None else []
    combos: list[list[tuple[str, dict[str, Any]]]] = [[b] for b in blocks] + [[s] for s in shields]
    combos += [[b, s] for b in blocks for s in shields]
    out = []
    for combo in combos:
        cost = cost_of(*[d for _, d in combo])
        if cost_gate(t, cost) is None:
            pdr = sum(d["pdr"] for _, d in combo) + (shield or 0) * sum(
                1 for _, d in combo if d["kind"] == "shield_block"
            )
            out.append(
                {
                    "key": "+".join(k for k, _ in combo),
                    "label": f"{' + '.join(d['name'] for _, d in combo)}: PDR +{pdr} "
                    f"({cost['speed']} Speed, {cost['strength']} Strength)",
                }
            )
    return out


def shield_pdr(state: BattleState, t: Combatant) -> int | None:
    """The shield's Shield Block bonus, or None without a shield or when it attacked this Action Block."""
    if t.extra.get("shield_used"):
        return None
    shields = [w for _, w in weapons_of(state.extra, t.sheet) if w["kind"] == "shield"]
    return max(w["shield_pdr"] for w in shields) if shields else None


def move_squares(c: Combatant) -> int:
    return int(c.sheet.get("movement", 6))


def move_steps_for(state: BattleState, c: Combatant) -> tuple[dict[Square, Square], list[Square]]:
    """Where ``c`` can move and how (``board.steps_within``: the board's preview)."""
    blocked, no_stop = obstacles(state, c)
    return steps_within(c.square, move_squares(c), state.width, state.height, blocked, no_stop)


def spell_reach(
    state: BattleState, c: Combatant
) -> tuple[dict[str, Any], list[dict[str, Any]], int, int] | None:
    casting = c.extra.get("casting")
    if not casting:
        return None
    spell = definition(state, "spells", casting["spell"])
    mods = [m for m in (definition(state, "spell_modifiers", k) for k in casting["mods"]) if m]
    if spell is None:
        return None
    feet = spell["max_range_ft"] + sum(m["range_bonus_ft"] for m in mods)
    return spell, mods, feet, 1 + sum(m["extra_targets"] for m in mods)


def spell_targets(state: BattleState, c: Combatant, spell: dict[str, Any], feet: int) -> list[str]:
    out = []
    for t in state.combatants.values():
        if not t.alive or t.pos is None or (t is not c and not in_range(c, t, feet)):
            continue
        if (spell["targets"] == "enemy") == (t.side != c.side):
            out.append(t.id)
    return out


SPELL_BOOSTS = {
    "offensive_spell_boost": "Offensive Spell Boost",
    "defensive_spell_boost": "Defensive Spell Boost",
    "general_spell_boost": "General Spell Boost",
}


def spell_parts(sheet: dict[str, Any], mods: Sequence[dict[str, Any]]) -> list[tuple[int, str]]:
    """BLOCK-SPELL-2: what the Base Effect gets added: every Spell Boost and modifier, each named."""
    return [(int(sheet.get(k, 0)), name) for k, name in SPELL_BOOSTS.items()] + [
        (int(m["effect_bonus"]), m["name"]) for m in mods
    ]


def spell_effect(sheet: dict[str, Any], spell: dict[str, Any], mods: list[dict[str, Any]], base: int) -> int:
    """BLOCK-SPELL-2: the Base Effect plus all of Offensive, Defensive and General Spell Boost (and modifiers)."""
    return base + sum(v for v, _ in spell_parts(sheet, mods))


def charisma_targets(state: BattleState, c: Combatant, skill: dict[str, Any]) -> list[str]:
    return [
        t.id
        for t in state.combatants.values()
        if t.side != c.side and t.able and in_range(c, t, skill["range_ft"])
    ]
