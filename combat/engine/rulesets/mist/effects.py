"""What a Mist & Rampart ability does to a target (accuracy, damage, healing, the status and its save),
and damage with its KO and LP rules (MIST-KO-1..3)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from combat.engine.rulesets.mist.rules import accuracy_hits, damage_against, save_avoids, stat

if TYPE_CHECKING:
    from combat.engine.context import Ctx
    from combat.engine.state import Combatant


def effects(ctx: Ctx, src: Combatant, t: Combatant, a: dict[str, Any]) -> None:
    """Accuracy (against enemies), damage, healing, then the status with its saving throw."""
    state = ctx.state
    if a["accuracy_check"] and t.side != src.side and (a["damage"] or a["status"]):
        roll = ctx.roll("1d100", "accuracy").total if state.options.get("accuracy_adds_d100", True) else None
        acc, eva = stat(state, src, "accuracy") + a["accuracy_bonus"], stat(state, t, "evasion")
        hit = accuracy_hits(roll, acc, eva)
        ctx.emit("attack.rolled", actor=src.id, target=t.id, roll=roll, accuracy=acc, evasion=eva, hit=hit)
        if not hit:
            return
    if a["damage"]:
        own = "magic" if a["damage_type"] == "magical" else "attack"
        bonus = int(src.sheet.get(own, 0) or 0)
        raw = ctx.roll(a["damage"], "damage", adds=[(bonus, own.title())]).result
        defences = {
            "defense": stat(state, t, "defense"),
            "magic_defense": stat(state, t, "magic_defense"),
            "resistances": t.sheet.get("resistances", ""),
            "weaknesses": t.sheet.get("weaknesses", ""),
        }
        dealt = damage_against(
            defences,
            raw,
            a["damage_type"],
            a["element"],
            irreducible=a["irreducible"],
            weakness_multiplier=int(state.options.get("weakness_multiplier", 2)),
        )
        deal(ctx, src, t, dealt, raw, a)
    if a["heal"] and t.alive:
        magic = int(src.sheet.get("magic", 0) or 0)
        amount = max(0, ctx.roll(a["heal"], "healing", adds=[(magic, "Magic")]).result)
        hp = min(t.max_hp, t.hp + amount)
        ctx.emit("healed", actor=src.id, target=t.id, amount=hp - t.hp, hp=hp, ko=hp <= 0)
    if a["status"] and t.alive:
        _status(ctx, src, t, a)


def _status(ctx: Ctx, src: Combatant, t: Combatant, a: dict[str, Any]) -> None:
    """The ability's status on ``t``, unless its saving throw avoids it."""
    state = ctx.state
    if a["save"] != "none":
        roll = ctx.roll("1d100", "saving throw").total
        mine, theirs = stat(state, t, a["save"]), stat(state, src, a["save_against"])
        avoided = save_avoids(roll, mine, theirs)
        ctx.emit(
            "save.rolled",
            combatant=t.id,
            status=a["status"],
            roll=roll,
            stat=a["save"],
            value=mine,
            against=a["save_against"],
            target_number=theirs,
            avoided=avoided,
        )
        if avoided:
            return
    ctx.emit(
        "status.applied",
        combatant=t.id,
        status=a["status"],
        power=0,
        duration=a["duration"],
        by=src.id,
    )


def deal(ctx: Ctx, src: Combatant | None, t: Combatant, dealt: int, raw: int, a: dict[str, Any]) -> None:
    """MIST-KO-1..3: HP damage; at 0 HP KO; while KO each instance costs exactly 1 LP; 0 LP is death."""
    actor = src.id if src is not None else None
    extra = {"raw": raw, "damage_type": a["damage_type"], "element": a["element"]}
    if not t.alive:
        return
    if t.ko and dealt > 0:
        lp = t.resources.get("lp", 0) - 1
        ctx.emit("lp.lost", actor=actor, target=t.id, amount=dealt, lp=max(0, lp), alive=lp > 0, **extra)
        return
    hp = t.hp - dealt if not t.ko else t.hp
    ctx.emit(
        "damage.dealt", actor=actor, target=t.id, amount=dealt, hp=max(0, hp), ko=t.ko or hp <= 0, **extra
    )
