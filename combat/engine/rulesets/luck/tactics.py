"""D20 Luck tactics: two standard actions a turn, spent on hits in reach, healing, statuses and moves.

A hit is worth the damage it is expected to take past the target's Armor or
Resist (as the side knows them) times the chance that the luck roll lands
(``hit_worth``); an ability out of reach by one square takes the free step it
allows (LUCK-ACT-3) to strike at once; a burst counts
every foe it catches; healing goes to an ally under half health; a status that
stops a foe acting is worth its turns; Recover ends a status that holds the
combatant back. With nothing in reach it moves toward the foe worth reaching
(keeping a bow's distance), and an interrupt answers every hit it can.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from combat.engine.actions import Action, ActionOption
from combat.engine.rulesets.base import definition
from combat.engine.rulesets.luck.rules import ability_for, ref_of
from combat.engine.tactics import Candidate, Choice, Sight, Tactics, expected, hit_worth
from combat.engine.words import count
from combat.engine.worth import distribution

if TYPE_CHECKING:
    from combat.engine.state import Combatant, Decision

LANDS = 0.75  # a luck roll misses on 1-5 of the d20


class LuckTactics(Tactics):
    """Greedy by hit points: the best hit, heal or status now; else a move toward a foe."""

    def scored(
        self, sight: Sight, c: Combatant, o: ActionOption, foes: list[Combatant]
    ) -> tuple[int, Iterable[Candidate]]:
        a = ability_for(sight.state, c, ref_of(o.params) or "")
        if a is None:
            return 0, ()
        hits = a["type"] in ("physical", "magical") and a["target"] != "ally"
        return (a["range"] + (1 if a["area"] else 0) if hits else 0), self._ability(sight, c, o, a, foes)

    def moving(
        self, sight: Sight, c: Combatant, moves: dict[str, ActionOption], reach: int, foes: list[Combatant]
    ) -> Iterable[Candidate]:
        after = c.resources.get("actions", 0) > 1  # a move now still leaves an action to hit with
        return self.close_in(sight, c, moves.get("move"), reach, 2.0 if after else 1.0)

    def _ability(
        self, sight: Sight, c: Combatant, o: ActionOption, a: dict[str, Any], foes: list[Combatant]
    ) -> Iterable[Candidate]:
        kind = a["type"]
        amount = expected(a["dice"]) + a["bonus"]
        if kind == "recover":
            status = o.params.get("status")
            d = definition(sight.state, "statuses", status) if status else None
            if d and (d["blocks"] or d["move_percent"] < 100):
                yield Candidate(
                    4.0 if d["blocks"] else 1.5,
                    Action("ability", c.id, dict(o.params)),
                    f"{c.name} shakes off {d['name']}: it holds {c.name} back.",
                )
            return
        if kind == "heal":
            yield from self.heals(sight, c, o, amount, a["name"])
            return
        if kind == "status":
            yield from self._status(sight, c, o, a, foes)
            return
        defense = "armor" if kind == "physical" else "resist"

        def damage(t: Combatant) -> float:
            return hit_worth(a["dice"], a["bonus"], self._defense(sight, t, defense), LANDS)

        if o.squares:  # a burst: the square that catches most foes (and no friend)
            best = self.best_square(sight, c, o, damage, spares_friends=a["target"] != "any")
            if best is not None and (best[2] > 1 or a["cost"] <= 1):
                yield Candidate(
                    best[0] / a["cost"] * (1.0 if a["cost"] <= c.resources.get("actions", 0) else 0.0),
                    self.aim(c, o, None, best[1]),
                    f"{c.name} casts {a['name']}: it catches {count(best[2], 'foe')}.",
                )
            return
        yield from self.hits(
            sight,
            c,
            o,
            foes,
            damage,
            lambda t, why: f"{c.name} attacks {t.name} with {a['name']}: {why}.",
            per=max(1, a["cost"]),
        )

    def _status(
        self, sight: Sight, c: Combatant, o: ActionOption, a: dict[str, Any], foes: list[Combatant]
    ) -> Iterable[Candidate]:
        """A status on a foe: worth its turns, more when it stops the foe acting, times the chance that
        the luck roll lands and the roll passes the foe's defence (LUCK-STAT-1); half that against a
        foe who can Recover (LUCK-STAT-3: it loses one action, not its turn)."""
        d = definition(sight.state, "statuses", a["status"])
        if d is None:
            return
        for t in foes:
            if t.id not in o.targets or a["status"] in t.statuses:
                continue
            figures = sight.figures(t) or {}
            stops = "actions" in d["blocks"]
            worth = (0.25 if stops else 0.07) * sight.max_hp(t) * a["duration"] * sight.ratio(t) * 0.6
            worth *= LANDS * self._applies(a, float(figures.get(a["defense"], 0) or 0))
            if any(
                (r := definition(sight.state, "abilities", k)) and r["type"] == "recover"
                for k in figures.get("abilities", ())
            ):
                worth *= 0.5
            if "melee" in d["blocks"] and not any(
                (w := definition(sight.state, "weapons", k)) and w["melee"]
                for k in figures.get("weapons", ())
            ):
                worth = 0.0
            if worth > 0.5:
                yield Candidate(
                    worth,
                    self.aim(c, o, [t.id]),
                    f"{c.name} uses {a['name']} on {t.name}: {d['name'].lower()} keeps "
                    f"{t.name} out of the fight while the others strike.",
                )

    @staticmethod
    def _applies(a: dict[str, Any], defence: float) -> float:
        """The chance that the status roll beats ``defence`` by 1 or more (LUCK-STAT-1)."""
        return sum(p for total, p in distribution(a["dice"] or "0") if total + a["bonus"] - defence >= 1)

    @staticmethod
    def _defense(sight: Sight, t: Combatant, name: str) -> float:
        """Armor or Resist as the side knows the foe (its sheet, or the bestiary's for its kind)."""
        return float((sight.figures(t) or {}).get(name, 0) or 0)

    def answer(self, sight: Sight, c: Combatant, decision: Decision) -> Choice:
        keys = [k for k in decision.choice_keys() if k != "pass"]
        if keys:
            return self.pick(c, decision, keys[0], "it softens the blow")
        return self.pick(c, decision, decision.default, "nothing to answer with")


TACTICS = LuckTactics()
