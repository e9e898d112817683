"""Paradigm Rows effects: what an ability, item, object or status does to a combatant.

Damage, healing, statuses, cleansing and Anima, and an eidolon's dismissal,
shared by the resolvers of ``actions`` and the Effect Phase of ``phases``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from combat.engine.rulesets.base import definition
from combat.engine.rulesets.paradigm.rules import stat

if TYPE_CHECKING:
    from combat.engine.context import Ctx
    from combat.engine.state import Combatant


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
        damage_type=kind,
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


def _named(eff: dict[str, Any]) -> str:
    """What an effect's own bonus comes from, in words: the ability's or item's name."""
    return str(eff.get("name") or "bonus")


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
        mine = "attack" if etype == "physical" else "magic"
        own = stat(state, actor, mine) if actor else 0
        r = ctx.roll(eff["dice"], "damage", adds=[(eff.get("bonus", 0), _named(eff)), (own, mine.title())])
        defense = stat(state, t, "defense" if etype == "physical" else "magic_defense")
        deal(ctx, aid, t, r.result, defense, etype, used)
    elif etype == "heal":
        if kind not in (None, "healing"):
            return
        r = ctx.roll(eff["dice"], "healing", adds=[(eff.get("bonus", 0), _named(eff))])
        heal(ctx, aid, t, r.result, used)
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
