"""Paradigm Rows action resolution: the turn actions of PARA-ACT-* and their effects.

Each ``act_*`` validates everything first and emits nothing when it
refuses (ENG-4). Every action spending AP ends the turn when the AP is gone
(PARA-AP-2). Effects (damage, healing, statuses, cleansing, Anima) are
shared by abilities, items, battlefield objects and the Effect Phase.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from combat.engine.actions import Refusal
from combat.engine.rulesets.base import defined, definition, definitions
from combat.engine.rulesets.paradigm.rules import (
    SUMMON_ANIMA,
    ability_keys,
    ap_per_turn,
    area_targets,
    blocked_by,
    eidolon_of,
    inventory,
    row_of,
    side_eidolon,
    stat,
    target_problem,
    weapon_dice,
)
from combat.engine.state import Combatant

if TYPE_CHECKING:
    from combat.engine.actions import Action
    from combat.engine.context import Ctx
    from combat.engine.state import BattleState

EQUIP_SLOTS = {"weapon": "weapons", "accessory": "accessories"}


# --- effects ------------------------------------------------------------------------------------


def harmful(d: dict[str, Any]) -> bool:
    """A status cleansing removes: it blocks something, deals damage or lowers a statistic."""
    return bool(d.get("blocks") or d.get("damage")) or any(
        d.get(k, 0) < 0 for k in ("attack", "magic", "defense", "magic_defense")
    )


def deal(
    ctx: Ctx, actor: str | None, t: Combatant, raw: int, defense: int, kind: str, used: dict[str, str]
) -> None:
    """Damage ``raw`` minus ``defense`` (at least 0); an eidolon at 0 HP disappears (PARA-EID-4).

    ``used`` names what dealt it like the action parameters: ``{"ability": "fire"}``, ``{"item": key}``,
    ``{"object": key}``, ``{"weapon": key}``, or a status's ``{"status": key}``."""
    amount = max(0, raw - defense)
    hp = max(0, t.hp - amount)
    ctx.emit(
        "damage.dealt",
        actor=actor,
        target=t.id,
        **used,
        kind=kind,
        raw=raw,
        defense=defense,
        amount=amount,
        hp=hp,
        ko=hp <= 0,
    )
    if hp <= 0 and t.extra.get("eidolon_of"):
        dismiss(ctx, t, "defeated")


def heal(ctx: Ctx, actor: str | None, t: Combatant, rolled: int, used: dict[str, str]) -> None:
    hp = min(t.max_hp, t.hp + max(0, rolled))
    ctx.emit("healed", actor=actor, target=t.id, **used, raw=rolled, amount=hp - t.hp, hp=hp, ko=hp <= 0)


def dismiss(ctx: Ctx, eidolon: Combatant, reason: str) -> None:
    """The eidolon leaves the field; its side acts and can be targeted again (PARA-EID-3/4)."""
    ctx.emit(
        "eidolon.dismissed", combatant=eidolon.id, summoner=eidolon.extra.get("eidolon_of"), reason=reason
    )
    ctx.emit("combatant.removed", combatant=eidolon.id, reason=reason)


def apply_effect(
    ctx: Ctx,
    actor: Combatant | None,
    t: Combatant,
    eff: dict[str, Any],
    used: dict[str, str],
    kind: str | None = None,
) -> None:
    """One effect of an ability, item or object on one target. ``kind`` limits it to one Effect Phase step.

    ``used`` names it like the action parameters (``{"ability": key}``, ``{"item": key}``, ``{"object": key}``);
    the events carry that field."""
    state = ctx.state
    etype = eff["type"]
    aid = actor.id if actor else None
    if etype in ("physical", "magical"):
        if kind not in (None, "damage"):
            return
        r = ctx.roll(eff["dice"], "damage")
        own = stat(state, actor, "attack" if etype == "physical" else "magic") if actor else 0
        defense = stat(state, t, "defense" if etype == "physical" else "magic_defense")
        deal(ctx, aid, t, r.total + eff.get("bonus", 0) + own, defense, etype, used)
    elif etype == "heal":
        if kind not in (None, "healing"):
            return
        r = ctx.roll(eff["dice"], "healing")
        heal(ctx, aid, t, r.total + eff.get("bonus", 0), used)
    elif etype == "anima":
        if kind not in (None, "other"):
            return
        ctx.emit(
            "resources.set",
            combatant=t.id,
            resources={"anima": t.resources.get("anima", 0) + eff["bonus"]},
            **used,
            gain=eff["bonus"],
        )
    elif etype == "status":
        if kind not in (None, "statuses"):
            return
        by = {"by": aid} if aid is not None else {}
        ctx.emit(
            "status.applied",
            combatant=t.id,
            status=eff["status"],
            power=0,
            duration=eff["duration"],
            **used,
            **by,
        )
    elif etype == "cleanse":
        if kind not in (None, "statuses"):
            return
        for skey in list(t.statuses):
            d = definition(state, "statuses", skey)
            if d is None or harmful(d):
                ctx.emit("status.removed", combatant=t.id, status=skey, reason="cleansed", **used)


def pick_targets(
    state: BattleState, c: Combatant, eff: dict[str, Any], params: dict[str, Any], melee: bool = False
) -> list[str] | Refusal:
    """The targets of an effect: chosen (one) or everyone its area reaches."""
    mode, kind = eff["target"], eff["type"]
    if mode in ("all_enemies", "all_allies"):
        hit = area_targets(state, c, mode, kind, melee)
        return hit or Refusal("No one to target.")
    raw = params.get("targets")
    if mode == "self" and not raw:
        raw = [c.id]
    if not isinstance(raw, list) or len(raw) != 1 or not isinstance(raw[0], str):
        return Refusal("Choose one target.")
    t = state.combatants.get(raw[0])
    if t is None:
        return Refusal("No such combatant.")
    why = target_problem(state, c, t, mode, kind, melee)
    return Refusal(why) if why else [t.id]


# --- gates and the end of AP --------------------------------------------------------------------


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


def after_action(ctx: Ctx, c: Combatant) -> None:
    """PARA-AP-2: the turn ends when the AP runs out."""
    state = ctx.state
    cur = state.current()
    if (
        state.phase == "active"
        and state.pending is None
        and cur is not None
        and cur.id == c.id
        and cur.resources.get("ap", 0) <= 0
    ):
        ctx.end_turn()


def _not_eidolon(c: Combatant) -> Refusal | None:
    if c.extra.get("eidolon_of"):
        return Refusal("An eidolon may only use its listed abilities.")
    return None


# --- actions ---------------------------------------------------------------------------------------


def act_attack(ctx: Ctx, c: Combatant, action: Action) -> Refusal | None:
    """PARA-ACT-ATTACK: 1 AP, colorless physical melee; weapon dice + attack - DEF, at least 0."""
    state = ctx.state
    bad = _not_eidolon(c)
    if bad is not None:
        return bad
    why = gate(state, c, 1, "melee")
    if why:
        return Refusal(why)
    targets = pick_targets(state, c, {"target": "enemy", "type": "physical"}, action.params, melee=True)
    if isinstance(targets, Refusal):
        return targets
    t = state.combatants[targets[0]]
    ctx.emit("attack.declared", actor=c.id, targets=[t.id], spend={"ap": 1})
    r = ctx.roll(weapon_dice(state, c), "damage")
    deal(
        ctx,
        c.id,
        t,
        r.total + stat(state, c, "attack"),
        stat(state, t, "defense"),
        "physical",
        {"weapon": c.extra["weapon"]} if isinstance(c.extra.get("weapon"), str) else {},
    )
    after_action(ctx, c)
    return None


def act_ability(ctx: Ctx, c: Combatant, action: Action) -> Refusal | None:
    """PARA-ACT-ABILITY: an archetype or job ability (an eidolon: its listed ones), its AP cost."""
    state = ctx.state
    key = action.params.get("ability")
    if not isinstance(key, str) or key not in ability_keys(state, c):
        return Refusal(f"{c.name} has no such ability now.")
    a = definition(state, "abilities", key)
    if a is None:
        return Refusal(f"{c.name} has no such ability now.")
    why = gate(state, c, a["cost"], "abilities") or (a["melee"] and gate(state, c, 0, "melee"))
    if why:
        return Refusal(why)
    targets = pick_targets(state, c, a, action.params, a["melee"])
    if isinstance(targets, Refusal):
        return targets
    ctx.emit(
        "ability.used",
        actor=c.id,
        ability=key,
        name=a["name"],
        targets=targets,
        spend={"ap": a["cost"]} if a["cost"] else {},
    )
    if a["timing"] == "effect":  # PARA-EFF-1: resolved in the coming Effect Phase
        ctx.emit("effect.queued", actor=c.id, ability=key, name=a["name"], targets=targets)
    else:
        for tid in targets:
            t = ctx.state.combatants.get(tid)
            if t is not None:
                apply_effect(ctx, ctx.state.combatants.get(c.id), t, a, {"ability": key})
    after_action(ctx, c)
    return None


def act_item(ctx: Ctx, c: Combatant, action: Action) -> Refusal | None:
    """PARA-ACT-ITEM: 1 AP, an item of the party inventory, removed from it once used."""
    state = ctx.state
    bad = _not_eidolon(c)
    if bad is not None:
        return bad
    key = action.params.get("item")
    if (
        not isinstance(key, str)
        or (item := definition(state, "items", key)) is None
        or inventory(state, c.side).get(key, 0) < 1
    ):
        return Refusal("The party inventory has no such item.")
    why = gate(state, c, 1)
    if why:
        return Refusal(why)
    targets = pick_targets(state, c, item, action.params)
    if isinstance(targets, Refusal):
        return targets
    ctx.emit(
        "item.used", actor=c.id, item=key, name=item["name"], side=c.side, targets=targets, spend={"ap": 1}
    )
    for tid in targets:
        t = ctx.state.combatants.get(tid)
        if t is not None:
            apply_effect(ctx, c, t, item, {"item": key})
    after_action(ctx, c)
    return None


def act_change_row(ctx: Ctx, c: Combatant, action: Action) -> Refusal | None:
    """PARA-ACT-MOVE: 1 AP, from the front row to the back row of one's side, or back."""
    bad = _not_eidolon(c)
    if bad is not None:
        return bad
    why = gate(ctx.state, c, 1)
    if why:
        return Refusal(why)
    to = "back" if row_of(c) == "front" else "front"
    ctx.emit("row.changed", combatant=c.id, row=to, actor=c.id, spend={"ap": 1})
    after_action(ctx, c)
    return None


def act_hold(ctx: Ctx, c: Combatant, action: Action) -> Refusal | None:
    """PARA-ACT-HOLD: 1 AP, once per round; a held turn with 1 AP after a character acting later."""
    state = ctx.state
    bad = _not_eidolon(c)
    if bad is not None:
        return bad
    why = gate(state, c, 1)
    if why:
        return Refusal(why)
    if c.extra.get("held_round") == state.round:
        return Refusal("AP can be held only once per round.")
    raw = action.params.get("targets")
    tid = raw[0] if isinstance(raw, list) and len(raw) == 1 else None
    later = hold_targets(state, c)
    if not isinstance(tid, str) or tid not in later:
        return Refusal("Choose a character acting after you this round.")
    order = list(state.order)
    at = next(i for i in range(state.turn + 1, len(order)) if order[i] == tid)
    order.insert(at + 1, c.id)
    ctx.emit("ap.held", actor=c.id, after=tid, round=state.round, spend={"ap": 1})
    ctx.emit("order.set", order=order, turn=state.turn)
    after_action(ctx, c)
    return None


def hold_targets(state: BattleState, c: Combatant) -> list[str]:
    out: list[str] = []
    for cid in state.order[state.turn + 1 :]:
        t = state.combatants.get(cid)
        if cid != c.id and t is not None and t.alive and not t.extra.get("fled") and cid not in out:
            out.append(cid)
    return out


def act_interact(ctx: Ctx, c: Combatant, action: Action) -> Refusal | None:
    """PARA-ACT-INTERACT: a battlefield object of the battle's pack; simple (its AP) or whole turns."""
    state = ctx.state
    bad = _not_eidolon(c)
    if bad is not None:
        return bad
    key = action.params.get("object")
    if not isinstance(key, str) or (obj := definition(state, "objects", key)) is None:
        return Refusal("There is no such object here.")
    why = object_problem(state, c, key, obj)
    if why:
        return Refusal(why)
    progress = state.extra.get("objects", {}).get(key, {"progress": 0, "done": 0})
    whole = obj["whole_turns"]
    cost = c.resources.get("ap", 0) if whole else obj["ap"]
    step = progress["progress"] + 1 if whole else 0
    done = step >= whole
    ctx.emit(
        "object.used",
        actor=c.id,
        object=key,
        name=obj["name"],
        progress=0 if done else step,
        needed=whole,
        done=done,
        spend={"ap": cost},
    )
    if done and obj["ability"]:
        a = definition(state, "abilities", obj["ability"])
        if a is not None:
            mode = a["target"]
            targets = [c.id] if mode == "self" else area_targets(ctx.state, c, mode, a["type"], False)
            for tid in targets:
                apply_effect(
                    ctx, ctx.state.combatants.get(c.id), ctx.state.combatants[tid], a, {"object": key}
                )
    after_action(ctx, c)
    return None


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


def act_swap(ctx: Ctx, c: Combatant, action: Action) -> Refusal | None:
    """PARA-ACT-SWAP: 1 AP, equip or put away a weapon or accessory from one's own inventory; never armor."""
    state = ctx.state
    bad = _not_eidolon(c)
    if bad is not None:
        return bad
    slot, key = action.params.get("slot"), action.params.get("equip", "")
    if slot == "armor":
        return Refusal("Armor cannot be put on or taken off during battle.")
    if slot not in EQUIP_SLOTS or not isinstance(key, str):
        return Refusal("Choose a weapon or an accessory.")
    current = c.extra.get(slot) or ""
    if key:
        if key not in c.extra.get("gear", ()) or definition(state, EQUIP_SLOTS[slot], key) is None:
            return Refusal(f"{c.name} carries no such {slot}.")
    elif not current:
        return Refusal(f"No {slot} to put away.")
    why = gate(state, c, 1)
    if why:
        return Refusal(why)
    ctx.emit("equipment.swapped", actor=c.id, slot=slot, equip=key, stow=current, spend={"ap": 1})
    after_action(ctx, c)
    return None


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


def act_flee(ctx: Ctx, c: Combatant, action: Action) -> Refusal | None:
    """PARA-ACT-FLEE: back row, AP left; the turn ends; the character leaves at the end of the Effect Phase."""
    why = flee_problem(ctx.state, c)
    if why:
        return Refusal(why)
    ctx.emit("flee.declared", actor=c.id)
    ctx.end_turn()
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


def act_summon(ctx: Ctx, c: Combatant, action: Action) -> Refusal | None:
    """PARA-EID-1/2: 3 Anima; the eidolon acts right away with the summoner's remaining AP."""
    state = ctx.state
    why = summon_problem(state, c)
    if why:
        return Refusal(why)
    d = defined(state, "eidolons", c.sheet["eidolon"])
    eid = f"c{state.extra.get('next_id', 1)}"
    sheet = {
        "tier": c.sheet.get("tier", 1),
        "hp": d["hp"],
        "initiative": 0,
        "attack_bonus": d["attack"],
        "magic_bonus": d["magic"],
        "weapon_damage": "1d4",
        "defense": d["defense"],
        "magic_defense": d["magic_defense"],
        "anima": 0,
        "job": "",
        "jobs": [],
        "abilities": d["abilities"],
        "row": "front",
        "weapon": "",
        "accessory": "",
        "gear": [],
        "items": [],
        "eidolon": "",
    }
    extra = {
        "eidolon_of": c.id,
        "carry_ap": c.resources.get("ap", 0),
        "job": "",
        "weapon": "",
        "accessory": "",
        "gear": [],
    }
    made = Combatant(
        eid,
        d["name"],
        c.side,
        "npc",
        c.controller,
        None,
        sheet,
        d["hp"],
        d["hp"],
        {"ap": 0, "anima": 0},
        {},
        None,
        "front",
        True,
        False,
        extra,
    )
    ctx.emit(
        "eidolon.summoned",
        actor=c.id,
        eidolon=c.sheet["eidolon"],
        name=d["name"],
        spend={"anima": SUMMON_ANIMA},
    )
    ctx.emit("combatant.added", combatant=made.to_dict())
    order = [x for x in ctx.state.order if x != eid]
    order.insert(state.turn + 1, eid)
    ctx.emit("order.set", order=order, turn=state.turn)
    ctx.end_turn()
    return None


ACTIONS = {
    "attack": act_attack,
    "ability": act_ability,
    "item": act_item,
    "change_row": act_change_row,
    "hold": act_hold,
    "interact": act_interact,
    "swap": act_swap,
    "flee": act_flee,
    "summon": act_summon,
}


def objects(state: BattleState) -> dict[str, dict[str, Any]]:
    return definitions(state, "objects")
