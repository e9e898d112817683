"""Paradigm Rows action resolution: the turn actions of PARA-ACT-*, the answers to the phases' questions
and the options of ENG-5.

Each ``act_*`` validates everything first and emits nothing when it
refuses (ENG-4). Every action spending AP ends the turn when the AP is gone
(PARA-AP-2). What an effect does (damage, healing, statuses, cleansing,
Anima) is in ``effects``, shared with the Effect Phase of ``phases``;
``resume`` takes the answer to a phase's question (advance? switch job?).
``ACTIONS`` is the dispatch table and ``PARAMS`` the parameters of Paradigm's
own action kinds.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypedDict

from combat.engine.actions import ActionOption, NoParams, Refusal, TargetsParams
from combat.engine.rulesets.base import defined, definition
from combat.engine.rulesets.paradigm.effects import apply_effect, deal
from combat.engine.rulesets.paradigm.options import (
    EQUIP_SLOTS,
    ability_options,
    opt,
    swap_options,
    targets_for,
    worth_it,
)
from combat.engine.rulesets.paradigm.phases import advanced, run
from combat.engine.rulesets.paradigm.rules import (
    SUMMON_ANIMA,
    ability_keys,
    ap_per_turn,
    area_targets,
    flee_problem,
    gate,
    hold_targets,
    inventory,
    object_problem,
    objects,
    row_of,
    single_targets,
    stat,
    summon_problem,
    target_problem,
    weapon_dice,
)
from combat.engine.state import Combatant

if TYPE_CHECKING:
    from combat.engine.actions import Action
    from combat.engine.context import Ctx
    from combat.engine.state import BattleState, Decision


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
    r = ctx.roll(weapon_dice(state, c), "damage", adds=[(stat(state, c, "attack"), "Attack")])
    deal(
        ctx,
        c.id,
        t,
        r.result,
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


def act_flee(ctx: Ctx, c: Combatant, action: Action) -> Refusal | None:
    """PARA-ACT-FLEE: back row, AP left; the turn ends; the character leaves at the end of the Effect Phase."""
    why = flee_problem(ctx.state, c)
    if why:
        return Refusal(why)
    ctx.emit("flee.declared", actor=c.id)
    ctx.end_turn()
    return None


def act_summon(ctx: Ctx, c: Combatant, action: Action) -> Refusal | None:
    """PARA-EID-1/2: 3 Anima; the eidolon acts right away with the summoner's remaining AP."""
    state = ctx.state
    why = summon_problem(state, c)
    if why:
        return Refusal(why)
    d = defined(state, "eidolons", c.sheet["eidolon"])
    eid = f"c{state.extra.get('next_id', 1)}"
    made = _eidolon(c, eid, d)
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


def _eidolon(c: Combatant, eid: str, d: dict[str, Any]) -> Combatant:
    """The eidolon ``d`` of ``c`` as a combatant ``eid`` of its side, under its controller (PARA-EID-1)."""
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
    return made


def resume(ctx: Ctx, decision: Decision, choice: str) -> Refusal | None:
    """Apply a phase answer, then run the rest of the agenda."""
    data = decision.resume
    if data.get("phase") == "advance" and choice == "advance":
        advanced(ctx, data["side"], data["onto"])
    elif data.get("phase") == "job" and choice.startswith("job:"):
        c = ctx.state.combatants.get(decision.combatant)
        if c is not None:
            ctx.emit("job.switched", combatant=c.id, job=choice[4:], previous=c.extra.get("job") or "")
    run(ctx, [dict(s) for s in data.get("agenda", [])])
    return None


# --- ENG-5 ------------------------------------------------------------------------------------


def legal_actions(state: BattleState, c: Combatant) -> list[ActionOption]:
    """ENG-5: the options of PARA-ACT-* (an eidolon: its listed abilities only)."""
    if c.extra.get("eidolon_of"):
        return ability_options(state, c)
    opts: list[ActionOption] = []
    why = gate(state, c, 1, "melee")
    targets = [] if why else single_targets(state, c, "enemy", "physical", True)
    opts.append(opt("attack", "Basic Attack", 1, targets, why or ("" if targets else "No enemy in reach.")))
    opts += ability_options(state, c)
    for key, n in inventory(state, c.side).items():
        item = definition(state, "items", key)
        if item is None:
            continue
        why = gate(state, c, 1)
        targets = [] if why else targets_for(state, c, item)
        targets, why = worth_it(state, item, targets, why)
        opts.append(
            opt(
                "item",
                f"{item['name']} (x{n})",
                1,
                targets if item["target"] in ("enemy", "ally") else [],
                why or ("" if targets else "No one to target."),
                item=key,
            )
        )
    to = "back" if row_of(c) == "front" else "front"
    opts.append(opt("change_row", f"Move to the {to} row", 1, [], gate(state, c, 1)))
    why = gate(state, c, 1) or (
        "Already held AP this round." if c.extra.get("held_round") == state.round else ""
    )
    later = [] if why else hold_targets(state, c)
    opts.append(opt("hold", "Hold AP", 1, later, why or ("" if later else "No one acts after you.")))
    for key, obj in objects(state).items():
        why = object_problem(state, c, key, obj)
        cost = ap_per_turn(c.sheet) if obj["whole_turns"] else obj["ap"]
        opts.append(opt("interact", f"Interact: {obj['name']}", cost, [], why, object=key))
    opts += swap_options(state, c)
    opts.append(opt("flee", "Flee", 0, [], flee_problem(state, c)))
    if c.sheet.get("eidolon"):
        d = definition(state, "eidolons", c.sheet["eidolon"])
        opts.append(
            ActionOption(
                "summon",
                f"Summon {d['name'] if d else 'eidolon'}",
                {"anima": 3},
                available=not summon_problem(state, c),
                reason=summon_problem(state, c) or "",
            )
        )
    return opts


# The required keys sit in a total base class: with postponed annotations, ``Required[...]`` is not seen.
class _Item(TypedDict):
    item: str


class ItemParams(_Item, total=False):
    """``item``: an item of the inventory on its ``targets``."""

    targets: list[str]


class _Slot(TypedDict):
    slot: str


class SwapParams(_Slot, total=False):
    """``swap``: put the weapon or accessory ``equip`` in ``slot`` (``""``: put away what is there)."""

    equip: str


class InteractParams(TypedDict):
    """``interact``: the battlefield ``object`` used."""

    object: str


PARAMS: dict[str, type] = {
    "item": ItemParams,
    "change_row": NoParams,
    "hold": TargetsParams,
    "interact": InteractParams,
    "swap": SwapParams,
    "flee": NoParams,
    "summon": NoParams,
}

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
