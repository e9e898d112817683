"""Turn pieces every ruleset shares: initiative with its ties and roll-offs, and statuses counting down.

``combat.engine.rulesets.base`` names them too (``roll_initiative``, ``order_with_rolloffs``,
``count_down_statuses``), beside the rest of the plugin API.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from combat.engine.context import Ctx
    from combat.engine.state import Combatant


def roll_initiative(
    ctx: Ctx,
    ids: list[str],
    expr_for: Callable[[Combatant], str | None],
    bonus_for: Callable[[Combatant], int],
    max_rolloffs: int = 20,
) -> list[str]:
    """Shared initiative helper: roll ``expr_for(c)`` + ``bonus_for(c)`` for each, highest first.

    Ties are broken by the higher bonus, then by roll-offs among the tied
    (LUCK-INIT-2, MIST-INIT-2, PARA-INIT-1, BLOCK-ORDER-2): ``expr_for`` may
    return None for a combatant that rolls nothing (bonus only). Emits one
    ``initiative.rolled`` event per roll (so each roll is recorded) and
    returns the order.
    """
    state = ctx.state
    scores: dict[str, tuple[int, int]] = {}
    for cid in ids:
        c = state.combatants[cid]
        bonus = bonus_for(c)
        expr = expr_for(c)
        total = bonus
        if expr:
            total = ctx.roll(expr, "initiative", adds=[(bonus, "initiative bonus")]).result
        ctx.emit("initiative.rolled", combatant=cid, bonus=bonus, total=total)
        scores[cid] = (total, bonus)

    def roll_off(group: list[str]) -> dict[str, int]:
        totals: dict[str, int] = {}
        for cid in group:
            r = ctx.roll("1d20", "initiative roll-off")
            ctx.emit("initiative.rolloff", combatant=cid, total=r.total)
            totals[cid] = r.total
        return totals

    return order_with_rolloffs(
        ids, {cid: [-scores[cid][0], -scores[cid][1]] for cid in ids}, roll_off, max_rolloffs
    )


def order_with_rolloffs(
    ids: list[str],
    keys: dict[str, list[int]],
    roll_off: Callable[[list[str]], dict[str, int]],
    max_rounds: int = 20,
) -> list[str]:
    """Sort ``ids`` by ``keys`` (lowest first), breaking ties by roll-offs among the tied.

    ``roll_off(group)`` returns a fresh roll per id of a tied group (higher goes
    first). Ties left after ``max_rounds`` keep the order of ``ids`` (bounded
    loop). ``keys`` is extended in place with the negated roll-offs.
    """
    for _ in range(max_rounds):
        groups: dict[tuple[int, ...], list[str]] = {}
        for cid in ids:
            groups.setdefault(tuple(keys[cid]), []).append(cid)
        tied = [g for g in groups.values() if len(g) > 1]
        if not tied:
            break
        for group in tied:
            rolls = roll_off(group)
            for cid in group:
                keys[cid].append(-rolls[cid])
    return sorted(ids, key=lambda cid: (keys[cid], ids.index(cid)))


def count_down_statuses(ctx: Ctx, c: Combatant, timed: Callable[[str], bool] | None = None) -> None:
    """Count each status of ``c`` down by one turn/phase: removed (``expired``) at 0, else its duration updated.

    ``timed(key)``: when given, statuses for which it is false do not count down.
    """
    for key, st in list(c.statuses.items()):
        if timed is not None and not timed(key):
            continue
        left = int(st.get("duration", 1)) - 1
        if left <= 0:
            ctx.emit("status.removed", combatant=c.id, status=key, reason="expired")
        else:
            ctx.emit("status.updated", combatant=c.id, status=key, fields={"duration": left})
