"""D20 Luck (source: seeds/002). Grid board, 2 standard actions per turn.

Rules implemented (RULESETS.md, LUCK-*): initiative 1d20 + score with
tie-breaks; 2 standard actions; a move of up to Movement squares costs 1;
an ability may include a free 1-square step (``step``); a Luck Roll (1d20
+ luck bonus) against hostile targets, automatic hits on friendly ones;
miss 1-5 / hit / crit 20 (abilities may widen); crits multiply damage dice
and bonuses (Crit Damage); armor against physical, resist against magical;
healing unreduced; statuses roll against a defense, power = difference,
no self-stacking, durations, Recover; one interrupt per turn cycle, as a
reaction window (Parry). Content lives in ``luck_content`` as data.

Project readings where the source is silent (documented, not options):
a combatant at 0 HP is knocked out (cannot act, can be healed back up);
Recover is allowed even while a status forbids actions (it is how one
escapes Stun) and costs 1 standard action; a status ticks down at the end
of its bearer's turns; squares are counted with the ``grid_metric`` option.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from combat.engine.actions import Action, ActionOption, Refusal
from combat.engine.board import as_square, chosen_path, distance, reachable, within
from combat.engine.rulesets.base import Ruleset, count_down_statuses, roll_initiative
from combat.engine.rulesets.luck_content import HEROES, MONSTERS, STARTER, validate_luck_content
from combat.engine.schema import Field, SheetSchema

if TYPE_CHECKING:
    from combat.engine.context import Ctx
    from combat.engine.state import BattleState, Combatant, Decision

__all__ = ["HEROES", "MONSTERS", "Luck"]

ACTIONS_PER_TURN = 2


def definition(state: BattleState, kind: str, key: str) -> dict[str, Any] | None:
    """A content definition by kind and key: the battle's custom pack first, then the starter pack."""
    custom = state.extra.get("content")
    if custom:
        found = custom.get(kind, {}).get(key)
        if found is not None:
            return found
    return STARTER[kind].get(key)


def _weapon_ability(w: dict[str, Any]) -> dict[str, Any]:
    return {"name": w["name"], "type": w["damage"], "target": "enemy", "range": w["range"], "area": 0,
            "dice": w["dice"], "bonus": w["bonus"], "cost": 1, "melee": w["melee"], "spell": False,
            "miss_max": 5, "crit_min": 20, "status": "", "duration": 1, "defense": "armor"}


def _item_ability(i: dict[str, Any]) -> dict[str, Any]:
    return {"name": i["name"], "type": i["type"], "target": i["target"], "range": i["range"], "area": 0,
            "dice": i["dice"], "bonus": i["bonus"], "cost": 1, "melee": False, "spell": False, "miss_max": 5,
            "crit_min": 20, "status": i["status"], "duration": i["duration"], "defense": i["defense"]}


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


def ability_refs(c: Combatant) -> list[str]:
    refs = [f"weapon:{w}" for w in c.sheet.get("weapons", ())]
    refs += list(c.sheet.get("abilities", ()))
    refs += [f"item:{i}" for i in dict.fromkeys(c.sheet.get("items", ()))]
    return refs


def items_left(c: Combatant, key: str) -> int:
    return list(c.sheet.get("items", ())).count(key) - c.extra.get("items_used", {}).get(key, 0)


class Luck(Ruleset):
    key = "luck"
    name = "D20 Luck"
    board = "grid"
    source = "002_25917d096fedcdff.txt"
    options = (
        Field("interrupt_window", "Interrupt once per", "choice", default="own_turn_cycle",
              choices=("own_turn_cycle", "round"), help="LUCK-ACT-4: once between two of one's own turns."),
        Field("status_power", "Status power", "choice", default="difference", choices=("difference", "roll"),
              help="LUCK-STAT-1: power of an applied status."),
        Field("recover_rule", "Recover", "choice", default="d20_vs_power", choices=("d20_vs_power", "automatic"),
              help="LUCK-STAT-3: Recover rolls 1d20 and removes the status if it meets its power."),
        Field("grid_metric", "Counting squares", "choice", default="chebyshev", choices=("chebyshev", "manhattan"),
              help="The source is silent: by default a diagonal step counts as 1 square."),
    )
    sheet_schema = SheetSchema((
        Field("hp", "Max HP", "int", min=1, max=9999, default=20),
        Field("initiative", "Initiative score", "int", min=-20, max=50, default=0),
        Field("armor", "Armor", "int", min=0, max=999, default=0),
        Field("resist", "Resist", "int", min=0, max=999, default=0),
        Field("movement", "Movement (squares per move)", "int", min=0, max=50, default=5),
        Field("luck_bonus", "Luck roll bonus", "int", min=-10, max=10, default=0),
        Field("crit_damage", "Crit damage multiplier", "int", min=2, max=5, default=2),
        Field("abilities", "Abilities", "list", required=False, default=[]),
        Field("weapons", "Weapons", "list", required=False, default=[]),
        Field("items", "Items (one entry per use)", "list", required=False, default=[]),
    ))
    actions = {"move": "act_move", "ability": "act_ability"}
    appliers = {"ability.used": "apply_ability_used"}
    content = STARTER
    content_check = staticmethod(validate_luck_content)

    # --- content ---------------------------------------------------------------
    def check_sheet_content(self, state: BattleState, sheet: dict[str, Any]) -> str | None:
        """Every ability, weapon and item a sheet names must be defined."""
        for field, kind in (("abilities", "abilities"), ("weapons", "weapons"), ("items", "items")):
            unknown = [k for k in sheet.get(field, ()) if definition(state, kind, k) is None]
            if unknown:
                return f"Unknown {field}: {', '.join(unknown)}."
        return None

    def status_keys(self, state: BattleState) -> set[str]:
        return set(STARTER["statuses"]) | set(state.extra.get("content", {}).get("statuses", {}))

    # --- combatants and flow -------------------------------------------------------
    def init_combatant(self, sheet: dict[str, Any]) -> dict[str, Any]:
        hp = int(sheet.get("hp", 1))
        return {"hp": hp, "max_hp": hp, "resources": {"actions": ACTIONS_PER_TURN, "interrupt": 1}, "extra": {}}

    def on_battle_start(self, ctx: Ctx) -> None:
        """LUCK-INIT-1/2: 1d20 + initiative score, ties by the higher score, then roll-offs."""
        order = roll_initiative(ctx, list(ctx.state.combatants), lambda c: "1d20",
                                lambda c: int(c.sheet.get("initiative", 0)))
        ctx.emit("order.set", order=order)

    def on_round_start(self, ctx: Ctx) -> None:
        if ctx.state.options.get("interrupt_window") == "round":
            for c in ctx.state.combatants.values():
                if c.resources.get("interrupt", 0) < 1:
                    ctx.emit("resources.set", combatant=c.id, resources={"interrupt": 1})

    def on_turn_start(self, ctx: Ctx, c: Combatant) -> None:
        res = {"actions": ACTIONS_PER_TURN}
        if ctx.state.options.get("interrupt_window", "own_turn_cycle") == "own_turn_cycle":
            res["interrupt"] = 1
        ctx.emit("resources.set", combatant=c.id, resources=res)

    def on_turn_end(self, ctx: Ctx, c: Combatant) -> None:
        """LUCK-STAT-2: statuses tick down at the end of their bearer's turn and expire at 0."""
        count_down_statuses(ctx, c)

    def apply_ability_used(self, state: BattleState, data: dict[str, Any]) -> None:
        item = data.get("item")
        if item:
            used = state.combatants[data["actor"]].extra.setdefault("items_used", {})
            used[item] = used.get(item, 0) + 1

    # --- status effects on what one may do -------------------------------------------
    def blocked_by(self, state: BattleState, c: Combatant, what: str) -> str | None:
        """The name of a status of ``c`` that forbids ``what`` (actions, movement, spells, melee), if any."""
        for key in c.statuses:
            d = definition(state, "statuses", key)
            if d and what in d["blocks"]:
                return d["name"]
        return None

    def move_allowance(self, state: BattleState, c: Combatant) -> int:
        """LUCK-ACT-2 and LUCK-STAT-8: Movement squares, reduced by slowing statuses (rounded down)."""
        pct = 100
        for key in c.statuses:
            d = definition(state, "statuses", key)
            if d:
                pct = min(pct, d["move_percent"])
        return int(c.sheet.get("movement", 5)) * pct // 100

    def ability_gate(self, state: BattleState, c: Combatant, a: dict[str, Any]) -> str | None:
        """Why ``c`` cannot use ability ``a`` now (statuses, cost), or None."""
        if a["type"] != "recover":
            name = self.blocked_by(state, c, "actions")
            if name:
                return f"{name}: cannot act."
        if a["spell"]:
            name = self.blocked_by(state, c, "spells")
            if name:
                return f"{name}: cannot cast spells."
        if a["melee"]:
            name = self.blocked_by(state, c, "melee")
            if name:
                return f"{name}: cannot make melee attacks."
        if c.resources.get("actions", 0) < a["cost"]:
            return "No actions left."
        return None

    # --- geometry helpers --------------------------------------------------------------------
    def _obstacles(self, state: BattleState, mover: Combatant) -> tuple[set, set]:
        """(blocked, no_stop): walls and able enemies block; allies and the fallen can be crossed."""
        blocked = {tuple(b) for b in state.blocked}
        no_stop = set()
        for o in state.combatants.values():
            if o is mover or o.pos is None or not o.alive:
                continue
            if o.side != mover.side and not o.ko:
                blocked.add((o.pos[0], o.pos[1]))
            else:
                no_stop.add((o.pos[0], o.pos[1]))
        return blocked, no_stop

    def valid_target(self, state: BattleState, c: Combatant, t: Combatant, a: dict[str, Any]) -> bool:
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

    # --- actions ---------------------------------------------------------------------------
    def act_move(self, ctx: Ctx, c: Combatant, action: Action) -> Refusal | None:
        """LUCK-ACT-2: move up to Movement squares for 1 standard action (``to`` or a ``path``)."""
        state = ctx.state
        name = self.blocked_by(state, c, "movement")
        if name:
            return Refusal(f"{name}: cannot move.")
        if c.resources.get("actions", 0) < 1:
            return Refusal("No actions left.")
        allowance = self.move_allowance(state, c)
        blocked, no_stop = self._obstacles(state, c)
        diagonal = state.options.get("grid_metric", "chebyshev") == "chebyshev"
        path = chosen_path(action.params, (c.pos[0], c.pos[1]), state.width, state.height, blocked, no_stop,
                           allowance, diagonal)
        if isinstance(path, str):
            return Refusal(path)
        ctx.emit("moved", combatant=c.id, actor=c.id, path=[list(s) for s in path], to=list(path[-1]),
                 spend={"actions": 1})
        return None

    def act_ability(self, ctx: Ctx, c: Combatant, action: Action) -> Refusal | None:
        """Use an ability, weapon or item: checks, optional 1-square step (LUCK-ACT-3), then resolution."""
        state = ctx.state
        p = action.params
        ref = p.get("ability")
        a = ability_for(state, c, ref)
        if a is None:
            return Refusal(f"{c.name} has no such ability.")
        if a["type"] == "interrupt":
            return Refusal(f"{a['name']} is only used as a reaction to another's action.")
        item = ref[5:] if ref.startswith("item:") else None
        if item and items_left(c, item) < 1:
            return Refusal(f"No {a['name']} left.")
        why = self.ability_gate(state, c, a)
        if why:
            return Refusal(why)
        origin = (c.pos[0], c.pos[1])
        step = None
        if p.get("step") is not None:
            step = as_square(p.get("step"), state.width, state.height)
            if step is None:
                return Refusal("That square is not on the board.")
            name = self.blocked_by(state, c, "movement")
            if name:
                return Refusal(f"{name}: cannot move.")
            metric = state.options.get("grid_metric", "chebyshev")
            blocked, no_stop = self._obstacles(state, c)
            if distance(origin, step, metric) != 1 or step in blocked or step in no_stop:
                return Refusal("The free step must go to a free neighbouring square.")
            origin = step
        if a["type"] == "recover":
            status = p.get("status")
            if not isinstance(status, str) or status not in c.statuses:
                return Refusal("Choose one of your statuses to recover from.")
            targets = [c.id]
        else:
            targets = self._targets(state, c, a, p, origin)
            if isinstance(targets, Refusal):
                return targets
        if step is not None:
            ctx.emit("moved", combatant=c.id, path=[[c.pos[0], c.pos[1]], list(step)], to=list(step), free=True)
        ctx.emit("ability.used", actor=c.id, ability=ref, name=a["name"], targets=targets,
                 spend={"actions": a["cost"]} if a["cost"] else {}, **({"item": item} if item else {}))
        if a["type"] == "recover":
            return self._recover(ctx, c, p["status"])
        return self._resolve({"actor": c.id, "ability": ref, "targets": targets, "i": 0}, ctx)

    def _targets(self, state: BattleState, c: Combatant, a: dict[str, Any], p: dict[str, Any],
                 origin: tuple[int, int]) -> list[str] | Refusal:
        metric = state.options.get("grid_metric", "chebyshev")
        if a["area"] > 0:
            sq = as_square(p.get("square"), state.width, state.height)
            if sq is None:
                return Refusal("Choose a square on the board for the area.")
            if distance(origin, sq, metric) > a["range"]:
                return Refusal("That square is out of range.")
            area = set(within(sq, a["area"], state.width, state.height, metric))
            hit = [t.id for t in state.combatants.values()
                   if t.pos is not None and (t.pos[0], t.pos[1]) in area and self.valid_target(state, c, t, a)]
            if not hit:
                return Refusal("No valid target in that area.")
            return hit
        raw = p.get("targets")
        if a["target"] == "self" and not raw:
            raw = [c.id]
        if isinstance(raw, str):
            raw = [raw]
        if not isinstance(raw, list) or len(raw) != 1:
            return Refusal("Choose one target.")
        t = state.combatants.get(raw[0]) if isinstance(raw[0], str) else None
        if t is None or not self.valid_target(state, c, t, a):
            return Refusal("Not a valid target for that ability.")
        if distance(origin, t.pos, metric) > a["range"]:
            return Refusal(f"{t.name} is out of range.")
        return [t.id]

    # --- resolution (resumable across reaction windows) ----------------------------------------
    def _resolve(self, job: dict[str, Any], ctx: Ctx) -> None:
        state = ctx.state
        actor = state.combatants.get(job["actor"])
        while actor is not None and job["i"] < len(job["targets"]):
            t = state.combatants.get(job["targets"][job["i"]])
            job["i"] += 1
            if t is None or not t.alive:
                continue
            a = ability_for(state, actor, job["ability"])
            if a is None:
                return
            paused = self._resolve_target(ctx, actor, t, a, job)
            if paused:
                return

    def _luck(self, ctx: Ctx, actor: Combatant, t: Combatant, a: dict[str, Any]) -> str:
        """LUCK-HIT-1..3: the Luck Roll against a hostile target; friendly targets are hit automatically."""
        if t.side == actor.side:
            ctx.emit("luck.rolled", actor=actor.id, target=t.id, outcome="hit", auto=True)
            return "hit"
        r = ctx.roll("1d20", "luck roll")
        bonus = int(actor.sheet.get("luck_bonus", 0))
        total = r.total + bonus
        outcome = "miss" if total <= a["miss_max"] else "crit" if total >= a["crit_min"] else "hit"
        ctx.emit("luck.rolled", actor=actor.id, target=t.id, roll=r.total, bonus=bonus, total=total, outcome=outcome)
        return outcome

    def _resolve_target(self, ctx: Ctx, actor: Combatant, t: Combatant, a: dict[str, Any],
                        job: dict[str, Any]) -> bool:
        """Resolve the ability on one target; True when paused on a reaction window."""
        outcome = self._luck(ctx, actor, t, a)
        if outcome == "miss":
            ctx.emit("ability.missed", actor=actor.id, target=t.id, ability=job["ability"])
            return False
        kind = a["type"]
        if kind == "heal":
            r = ctx.roll(a["dice"], "healing")
            rolled = r.total + a["bonus"]
            hp = min(t.max_hp, t.hp + max(0, rolled))
            ctx.emit("healed", actor=actor.id, target=t.id, rolled=rolled, amount=hp - t.hp, hp=hp, ko=hp <= 0)
            return False
        if kind == "status":
            self._apply_status(ctx, actor, t, a)
            return False
        # physical or magical damage; LUCK-CRIT-1: a crit rolls the dice and adds the bonus N times.
        times = int(actor.sheet.get("crit_damage", 2)) if outcome == "crit" else 1
        raw = 0
        for _ in range(times):
            raw += ctx.roll(a["dice"], "damage").total + a["bonus"]
        ctx.emit("damage.rolled", actor=actor.id, target=t.id, raw=raw, crit=outcome == "crit", times=times)
        if t.side != actor.side:
            reactions = self._interrupts(ctx.state, t, kind)
            if reactions:
                options = [{"key": ref, "label": f"{d['name']} ({d['dice']}{d['bonus']:+d})"} for ref, d in reactions]
                options.append({"key": "pass", "label": "Take the hit"})
                resume = {**job, "target": t.id, "raw": raw, "kind": kind}
                ctx.open_decision(
                    t.id, f"{actor.name}'s {a['name']} is about to hit {t.name} for {raw} before defenses.",
                    options, default=reactions[0][0], trigger=f"{actor.name}: {a['name']}", resume=resume)
                return True
        self._deal(ctx, actor, t, raw, kind, reduced=0, ability=job["ability"])
        return False

    def _interrupts(self, state: BattleState, t: Combatant, kind: str) -> list[tuple[str, dict[str, Any]]]:
        """LUCK-ACT-4: interrupt abilities ``t`` may use now against an incoming ``kind`` hit."""
        if not t.able or t.resources.get("interrupt", 0) < 1:
            return []
        out = []
        for ref in t.sheet.get("abilities", ()):
            d = definition(state, "abilities", ref)
            if not d or d["type"] != "interrupt" or d["trigger"] not in (kind, "any"):
                continue
            gate = dict(d, cost=0)
            if self.ability_gate(state, t, gate) is None:
                out.append((ref, d))
        return out

    def resume(self, ctx: Ctx, decision: Decision, choice: str) -> Refusal | None:
        """Finish a hit paused for an interrupt (LUCK-ACT-4): apply the reaction, deal the damage, go on."""
        job = dict(decision.resume)
        state = ctx.state
        actor, t = state.combatants.get(job["actor"]), state.combatants.get(job["target"])
        if actor is None or t is None:
            return None
        reduced = 0
        if choice != "pass":
            d = definition(state, "abilities", choice)
            r = ctx.roll(d["dice"], "interrupt")
            reduced = max(0, r.total + d["bonus"])
            ctx.emit("interrupt.used", actor=t.id, ability=choice, name=d["name"], against=actor.id,
                     reduces=reduced, spend={"interrupt": 1})
        self._deal(ctx, actor, t, job["raw"], job["kind"], reduced, job["ability"])
        self._resolve(job, ctx)
        return None

    def _deal(self, ctx: Ctx, actor: Combatant, t: Combatant, raw: int, kind: str, reduced: int,
              ability: str) -> None:
        """LUCK-DMG-1/2: the roll minus Armor (physical) or Resist (magical); only a positive rest is dealt."""
        defense_name = "armor" if kind == "physical" else "resist"
        defense = int(t.sheet.get(defense_name, 0))
        amount = max(0, raw - reduced - defense)
        hp = max(0, t.hp - amount)
        ctx.emit("damage.dealt", actor=actor.id, target=t.id, ability=ability, kind=kind, raw=raw, reduced=reduced,
                 defense=defense, amount=amount, hp=hp, ko=hp <= 0)
        if amount > 0:
            for key in list(t.statuses):
                d = definition(ctx.state, "statuses", key)
                if d and d["ends_on_damage"]:  # LUCK-STAT-7: damage wakes a sleeper
                    ctx.emit("status.removed", combatant=t.id, status=key, reason="damaged")

    def _apply_status(self, ctx: Ctx, actor: Combatant, t: Combatant, a: dict[str, Any]) -> None:
        """LUCK-STAT-1 and LUCK-STAT-4: roll against the defense; the difference is the power; keep the higher."""
        r = ctx.roll(a["dice"], "status")
        value = r.total + a["bonus"]
        defense = int(t.sheet.get(a["defense"], 0))
        diff = value - defense
        status = a["status"]
        if diff < 1:
            ctx.emit("status.resisted", actor=actor.id, target=t.id, status=status, value=value, defense=defense)
            return
        power = diff if ctx.state.options.get("status_power", "difference") == "difference" else value
        old = t.statuses.get(status)
        if old is not None and old.get("power", 0) >= power:
            ctx.emit("status.kept", actor=actor.id, target=t.id, status=status, power=old["power"], offered=power)
            return
        ctx.emit("status.applied", combatant=t.id, status=status, power=power, duration=a["duration"],
                 source=actor.id, value=value, defense=defense)

    def _recover(self, ctx: Ctx, c: Combatant, status: str) -> None:
        """LUCK-STAT-3 and LUCK-STAT-5: end one chosen status; 1d20 must meet its power (or automatic)."""
        power = c.statuses[status].get("power", 0)
        if ctx.state.options.get("recover_rule", "d20_vs_power") == "automatic":
            ctx.emit("status.removed", combatant=c.id, status=status, reason="recovered")
            return
        r = ctx.roll("1d20", "recover")
        if r.total >= power:
            ctx.emit("status.removed", combatant=c.id, status=status, reason="recovered", roll=r.total, power=power)
        else:
            ctx.emit("recover.failed", combatant=c.id, status=status, roll=r.total, power=power)

    # --- ENG-5 ---------------------------------------------------------------------------------
    def legal_actions(self, state: BattleState, c: Combatant) -> list[ActionOption]:
        out: list[ActionOption] = []
        metric = state.options.get("grid_metric", "chebyshev")
        acts = c.resources.get("actions", 0)
        why = self.blocked_by(state, c, "movement")
        reason = f"{why}: cannot move." if why else ("No actions left." if acts < 1 else "")
        squares: list[list[int]] = []
        if not reason and c.pos is not None:
            blocked, no_stop = self._obstacles(state, c)
            reach = reachable((c.pos[0], c.pos[1]), self.move_allowance(state, c), state.width, state.height,
                              blocked, no_stop, metric == "chebyshev")
            squares = [list(sq) for sq in sorted(reach)]
            if not squares:
                reason = "Nowhere to move."
        out.append(ActionOption("move", "Move", {"actions": 1}, [], squares, not reason, reason))
        for ref in ability_refs(c):
            a = ability_for(state, c, ref)
            if a is None or a["type"] == "interrupt":
                continue
            cost = {"actions": a["cost"]}
            if a["type"] == "recover":
                if not c.statuses:
                    out.append(ActionOption("ability", a["name"], cost, [], [], False, "No status to recover from.",
                                            {"ability": ref}))
                for key, st in c.statuses.items():
                    gate = self.ability_gate(state, c, a)
                    label = f"{a['name']}: {self.status_label(key)} (power {st.get('power', 0)})"
                    out.append(ActionOption("ability", label, cost, [c.id], [], gate is None, gate or "",
                                            {"ability": ref, "status": key}))
                continue
            gate = self.ability_gate(state, c, a)
            if ref.startswith("item:") and items_left(c, ref[5:]) < 1:
                gate = f"No {a['name']} left."
            targets: list[str] = []
            squares = []
            if a["area"] > 0:
                # squares in range whose burst catches at least one valid target
                found: set[tuple[int, int]] = set()
                for t in state.combatants.values():
                    if self.valid_target(state, c, t, a):
                        found.update(sq for sq in within(t.pos, a["area"], state.width, state.height, metric)
                                     if distance(c.pos, sq, metric) <= a["range"])
                squares = [list(sq) for sq in sorted(found)]
                if not squares and gate is None:
                    gate = "No target in range."
            else:
                targets = [t.id for t in state.combatants.values() if self.valid_target(state, c, t, a)
                           and distance(c.pos, t.pos, metric) <= a["range"]]
                if not targets and gate is None:
                    gate = "No target in range."
            out.append(ActionOption("ability", a["name"], cost, targets, squares, gate is None, gate or "",
                                    {"ability": ref}))
        return out
