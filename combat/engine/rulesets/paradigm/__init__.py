"""Paradigm Rows (source: seeds/001 and seeds/003). Front and back rows per side.

Rounds of three phases (PARA-ROUND-1): the Action Phase (turns in
initiative order, PARA-INIT-1), the Effect Phase (PARA-EFF-1, advancing
PARA-ADV-1/2, fleeing characters leave) and the Paradigm Phase (job
switches, antagonists first: PARA-JOB-1/2); round 1 starts with an extra
Paradigm Phase. Turns spend AP by tier (PARA-AP-1/2) on the actions of
PARA-ACT-*; eidolons follow PARA-EID-1..5. Rules reading the state are in
``rules``, actions in ``actions``, phases in ``phases``, content
(ENG-10) in ``content``, options and sheet in ``sheet``.

Action kinds: ``attack {targets}``, ``ability {ability, targets?}``,
``item {item, targets?}``, ``change_row {}``, ``hold {targets}``,
``interact {object}``, ``swap {slot, equip}``, ``flee {}``, ``summon {}``,
``end_turn {}``.

Readings where the source is silent are the house-rule options and the
``readings`` sentences the GM sees with the house rules.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from combat.engine.actions import ActionOption
from combat.engine.dice import check_expr
from combat.engine.rulesets.base import (
    HP_RESTORED,
    STATUSES_END,
    CarryOver,
    Ruleset,
    definition,
    definitions,
    roll_initiative,
)
from combat.engine.rulesets.paradigm import actions as paradigm_play
from combat.engine.rulesets.paradigm import phases as paradigm_phases
from combat.engine.rulesets.paradigm.actions import (
    flee_problem,
    gate,
    hold_targets,
    object_problem,
    summon_problem,
)
from combat.engine.rulesets.paradigm.content import (
    DEMO_PARTY,
    HEROES,
    KINDS,
    MONSTERS,
    STARTER,
    validate_paradigm_content,
)
from combat.engine.rulesets.paradigm.rules import (
    ability_keys,
    able,
    ap_per_turn,
    area_targets,
    inventory,
    job_key,
    row_of,
    shielded,
    single_targets,
)
from combat.engine.rulesets.paradigm.sheet import OPTIONS, SHEET

if TYPE_CHECKING:
    from combat.engine.context import Ctx
    from combat.engine.state import BattleState, Combatant

__all__ = ["DEMO_PARTY", "HEROES", "MONSTERS", "STARTER", "Paradigm"]


# --- appliers (event -> state, no dice) --------------------------------------------------------
def apply_turn_prepared(state: BattleState, d: dict[str, Any]) -> None:
    c = state.combatants[d["combatant"]]
    c.resources["ap"] = d["ap"]
    c.extra["turn_round"] = d["round"]
    c.extra["held_turn"] = d["held"]
    c.extra.pop("carry_ap", None)


def apply_item_used(state: BattleState, d: dict[str, Any]) -> None:
    used = state.extra.setdefault("items_used", {}).setdefault(d["side"], {})
    used[d["item"]] = used.get(d["item"], 0) + 1


def apply_effect_queued(state: BattleState, d: dict[str, Any]) -> None:
    q = state.extra.setdefault("queued", [])
    q.append({"actor": d["actor"], "ability": d["ability"], "targets": list(d["targets"])})


def apply_ap_held(state: BattleState, d: dict[str, Any]) -> None:
    c = state.combatants[d["actor"]]
    c.extra["held_round"] = d["round"]
    c.extra["hold_after"] = d["after"]


def apply_swapped(state: BattleState, d: dict[str, Any]) -> None:
    c = state.combatants[d["actor"]]
    gear = [g for g in c.extra.get("gear", []) if g != d["equip"]] if d["equip"] else list(c.extra["gear"])
    if d["stow"]:
        gear.append(d["stow"])
    c.extra["gear"] = gear
    c.extra[d["slot"]] = d["equip"]


def apply_flee_declared(state: BattleState, d: dict[str, Any]) -> None:
    state.combatants[d["actor"]].extra["fleeing"] = True


def apply_fled(state: BattleState, d: dict[str, Any]) -> None:
    state.combatants[d["combatant"]].extra["fled"] = True


def apply_job_switched(state: BattleState, d: dict[str, Any]) -> None:
    state.combatants[d["combatant"]].extra["job"] = d["job"]


def apply_object_used(state: BattleState, d: dict[str, Any]) -> None:
    objs = state.extra.setdefault("objects", {})
    o = objs.setdefault(d["object"], {"progress": 0, "done": 0})
    o["progress"] = d["progress"]
    if d["done"]:
        o["done"] += 1


APPLIERS = {
    "turn.prepared": apply_turn_prepared,
    "item.used": apply_item_used,
    "effect.queued": apply_effect_queued,
    "ap.held": apply_ap_held,
    "equipment.swapped": apply_swapped,
    "flee.declared": apply_flee_declared,
    "combatant.fled": apply_fled,
    "job.switched": apply_job_switched,
    "object.used": apply_object_used,
}


class Paradigm(Ruleset):
    """The Paradigm Rows rules as an engine plugin."""

    key = "paradigm"
    name = "Paradigm Rows"
    board = "rows"
    source = "001_0762b94f804b6465.txt"
    options = OPTIONS
    sheet_schema = SHEET
    actions = paradigm_play.ACTIONS
    appliers = APPLIERS
    resume = staticmethod(paradigm_phases.resume)
    content = STARTER
    heroes, monsters = HEROES, MONSTERS
    content_check = staticmethod(validate_paradigm_content)
    content_kinds = KINDS
    readings = (
        "A character at 0 HP is down: no turns, and healing brings them back up.",
        "A status lasts its duration in Effect Phases; Stun leaves only End Turn.",
        "Ability damage adds the user's attack bonus (physical) or magic bonus, and is reduced by DEF or MDEF.",
        "A status ability always lands.",
        "The party inventory is every item the side's characters brought.",
        "An eidolon takes a turn right after its summoner's; the summoner's own turn, and every ally's, is "
        "skipped while it is out.",
        "The eidolon's upkeep is paid automatically when the summoner has the Anima.",
        "A complex interaction needs a full turn's AP each time.",
        "A held turn is an extra place in the order, removed once used.",
    )
    carry_over = (
        CarryOver(
            "Anima",
            True,
            "House rule (the source does not say whether spent Anima comes back): what is "
            'left carries to the next battle, unless the house rule "Anima after a battle" restores it.',
            "anima",
        ),
        HP_RESTORED,
        STATUSES_END,
    )

    # --- between battles -----------------------------------------------------------------
    def after_battle(self, state: BattleState, c: Combatant) -> list[tuple[CarryOver, Any]]:
        """Anima carries or is restored by the ``anima_after_battle`` house rule."""
        carry = state.options.get("anima_after_battle", "carry") == "carry"
        anima = CarryOver("Anima", carry, self.carry_over[0].why, "anima")
        value = int(c.resources.get("anima", 0)) if carry else int(c.sheet.get("anima", 0))
        return [(anima, value), *((rule, None) for rule in self.carry_over[1:])]

    # --- sheets and content (ENG-10) -------------------------------------------------------
    @classmethod
    def validate_sheet(cls, data: Any) -> tuple[dict[str, Any], dict[str, list[str]]]:
        clean, errors = cls.sheet_schema.validate(data)
        if "weapon_damage" in clean:
            msg = check_expr(clean["weapon_damage"])
            if msg:
                errors.setdefault("weapon_damage", []).append(msg)
        return clean, errors

    def check_sheet_content(self, state: BattleState, sheet: dict[str, Any]) -> str | None:
        """Every ability, job, item, weapon, accessory and eidolon a sheet names must be defined."""
        checks = [
            ("abilities", sheet.get("abilities", ()), ("abilities",)),
            ("jobs", [job_key(j) for j in [*sheet.get("jobs", ()), sheet.get("job")] if j], ("jobs",)),
            ("items", sheet.get("items", ()), ("items",)),
            ("weapon", [sheet.get("weapon")] if sheet.get("weapon") else [], ("weapons",)),
            ("accessory", [sheet.get("accessory")] if sheet.get("accessory") else [], ("accessories",)),
            ("gear", sheet.get("gear", ()), ("weapons", "accessories")),
            ("eidolon", [sheet.get("eidolon")] if sheet.get("eidolon") else [], ("eidolons",)),
        ]
        for label, keys, kinds in checks:
            unknown = [k for k in keys if not any(k in definitions(state, kind) for kind in kinds)]
            if unknown:
                return f"Unknown {label}: {', '.join(unknown)}."
        return None

    # --- combatants and flow -----------------------------------------------------------------
    def init_combatant(self, sheet: dict[str, Any]) -> dict[str, Any]:
        hp = int(sheet.get("hp", 1))
        return {
            "hp": hp,
            "max_hp": hp,
            "resources": {"ap": 0, "anima": int(sheet.get("anima", 0))},
            "extra": {
                "job": job_key(sheet.get("job")),
                "weapon": sheet.get("weapon", ""),
                "accessory": sheet.get("accessory", ""),
                "gear": list(sheet.get("gear", ())),
            },
        }

    def can_take_turn(self, state: BattleState, c: Combatant) -> bool:
        """Able, not fleeing, and not waiting behind an ally's eidolon (PARA-EID-1)."""
        return able(c) and not c.extra.get("fleeing") and not shielded(state, c)

    def check_victory(self, state: BattleState) -> dict[str, Any] | None:
        """ENG-9; PARA-ACT-FLEE: when every player character has fled, the battle ends without XP."""
        pcs = [c for c in state.combatants.values() if c.side == "party" and c.kind == "pc"]
        if pcs and all(c.extra.get("fled") for c in pcs):
            return {
                "winner": None,
                "reason": "Every player character fled: no XP or items.",
                "by": "rules",
                "fled": True,
                "xp": False,
            }
        able_sides = {c.side for c in state.combatants.values() if able(c)}
        if len(able_sides) > 1:
            return None
        winner = next(iter(able_sides), None)
        reason = f"Only the {winner} side can still act." if winner else "No one can act."
        return {"winner": winner, "reason": reason, "by": "rules"}

    def on_battle_start(self, ctx: Ctx) -> None:
        """PARA-INIT-1: initiative die + bonus, ties by the higher bonus, then roll-offs."""
        die = ctx.state.options.get("initiative_die", "1d20")
        order = roll_initiative(
            ctx, list(ctx.state.combatants), lambda c: die, lambda c: int(c.sheet.get("initiative", 0))
        )
        ctx.emit("order.set", order=order)

    def on_round_start(self, ctx: Ctx) -> None:
        paradigm_phases.round_start(ctx)

    def on_round_end(self, ctx: Ctx) -> None:
        paradigm_phases.round_end(ctx)

    def on_turn_start(self, ctx: Ctx, c: Combatant) -> None:
        """PARA-AP-1 (AP by tier), a held turn's 1 AP (PARA-ACT-HOLD), an eidolon's first AP (PARA-EID-2)."""
        state = ctx.state
        held = c.extra.get("turn_round") == state.round
        carry = c.extra.get("carry_ap")
        ap = 1 if held else carry if carry is not None else ap_per_turn(c.sheet)
        ctx.emit("turn.prepared", combatant=c.id, ap=ap, held=held, round=state.round)
        if ap <= 0:
            ctx.end_turn()

    def on_turn_end(self, ctx: Ctx, c: Combatant) -> None:
        """PARA-ACT-END: remaining AP is lost; a used held-turn slot leaves the order."""
        state = ctx.state
        if c.resources.get("ap", 0) > 0:
            ctx.emit("resources.set", combatant=c.id, resources={"ap": 0}, reason="turn ended")
        i = state.turn
        if c.extra.get("held_turn") and 0 < i < len(state.order) and c.id in state.order[:i]:
            order = state.order[:i] + state.order[i + 1 :]
            ctx.emit("order.set", order=order, turn=i - 1)

    # --- ENG-5 ---------------------------------------------------------------------------------------
    def legal_actions(self, state: BattleState, c: Combatant) -> list[ActionOption]:
        if c.extra.get("eidolon_of"):
            return self._ability_options(state, c)
        opts: list[ActionOption] = []
        why = gate(state, c, 1, "melee")
        targets = [] if why else single_targets(state, c, "enemy", "physical", True)
        opts.append(
            _opt("attack", "Basic Attack", 1, targets, why or ("" if targets else "No enemy in reach."))
        )
        opts += self._ability_options(state, c)
        for key, n in inventory(state, c.side).items():
            item = definition(state, "items", key)
            if item is None:
                continue
            why = gate(state, c, 1)
            targets = [] if why else _targets_for(state, c, item)
            opts.append(
                _opt(
                    "item",
                    f"{item['name']} (x{n})",
                    1,
                    targets if item["target"] in ("enemy", "ally") else [],
                    why or ("" if targets else "No one to target."),
                    item=key,
                )
            )
        to = "back" if row_of(c) == "front" else "front"
        opts.append(_opt("change_row", f"Move to the {to} row", 1, [], gate(state, c, 1)))
        why = gate(state, c, 1) or (
            "Already held AP this round." if c.extra.get("held_round") == state.round else ""
        )
        later = [] if why else hold_targets(state, c)
        opts.append(_opt("hold", "Hold AP", 1, later, why or ("" if later else "No one acts after you.")))
        for key, obj in paradigm_play.objects(state).items():
            why = object_problem(state, c, key, obj)
            cost = ap_per_turn(c.sheet) if obj["whole_turns"] else obj["ap"]
            opts.append(_opt("interact", f"Interact: {obj['name']}", cost, [], why, object=key))
        opts += self._swap_options(state, c)
        opts.append(_opt("flee", "Flee", 0, [], flee_problem(state, c)))
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

    def _ability_options(self, state: BattleState, c: Combatant) -> list[ActionOption]:
        opts = []
        for key in ability_keys(state, c):
            a = definition(state, "abilities", key)
            if a is None:
                continue
            why = gate(state, c, a["cost"], "abilities") or (
                gate(state, c, 0, "melee") if a["melee"] else None
            )
            targets = [] if why else _targets_for(state, c, a)
            area = a["target"] in ("all_enemies", "all_allies")
            if not why and not targets:
                why = "No one to target."
            opts.append(_opt("ability", a["name"], a["cost"], [] if area else targets, why, ability=key))
        return opts

    def _swap_options(self, state: BattleState, c: Combatant) -> list[ActionOption]:
        why = gate(state, c, 1)
        opts = []
        for slot, kind in paradigm_play.EQUIP_SLOTS.items():
            current = definition(state, kind, c.extra.get(slot))
            if current:
                opts.append(_opt("swap", f"Put away {current['name']}", 1, [], why, slot=slot, equip=""))
            for key in dict.fromkeys(c.extra.get("gear", ())):
                d = definition(state, kind, key)
                if d:
                    opts.append(_opt("swap", f"Equip {d['name']}", 1, [], why, slot=slot, equip=key))
        return opts


def _targets_for(state: BattleState, c: Combatant, eff: dict[str, Any]) -> list[str]:
    mode = eff["target"]
    if mode in ("all_enemies", "all_allies"):
        return area_targets(state, c, mode, eff["type"], eff.get("melee", False))
    return single_targets(state, c, mode, eff["type"], eff.get("melee", False))


def _opt(
    kind: str, label: str, cost: int, targets: list[str], why: str | None, **params: Any
) -> ActionOption:
    return ActionOption(
        kind, label, {"ap": cost} if cost else {}, list(targets), [], not why, why or "", params
    )
