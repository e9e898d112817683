"""Paradigm Rows tactics: AP spent on the best hit per AP, rows kept, jobs switched in the Paradigm Phase.

A hit is worth the damage it is expected to take past DEF or MDEF (``hit_worth``;
the foe's figures as the side knows them), per AP it costs; an area counts every foe it hits.
Healing and cleansing go to the allies who need them, and the party's shared
items are spent only there. An eidolon is summoned once Anima allows. A badly
hurt fighter steps back to the back row, out of melee reach, while a friend
holds the front. In the Paradigm Phase a character switches to a job that
heals when an ally is under half health, and back to one that hits when all
are well; the sides advance when their front row is empty.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from combat.engine.actions import Action, ActionOption
from combat.engine.rulesets.base import definition
from combat.engine.rulesets.paradigm.effects import harmful
from combat.engine.rulesets.paradigm.rules import (
    area_targets,
    current_job,
    row_of,
    stat,
    weapon_dice,
)
from combat.engine.tactics import Candidate, Choice, Sight, Tactics, expected, hit_worth
from combat.engine.words import count

if TYPE_CHECKING:
    from combat.engine.state import Combatant, Decision

SUMMON_WORTH = 0.8  # share of the eidolon's HP a summon is worth


class ParadigmTactics(Tactics):
    """Greedy by hit points per AP (see the module doc)."""

    moves = ()  # rows, not squares: a step back is scored with the rest

    def scored(
        self, sight: Sight, c: Combatant, o: ActionOption, foes: list[Combatant]
    ) -> tuple[int, Iterable[Candidate]]:
        return 0, self._option(sight, c, o, foes)

    def _option(
        self, sight: Sight, c: Combatant, o: ActionOption, foes: list[Combatant]
    ) -> Iterable[Candidate]:
        if o.kind == "attack":
            eff = {"type": "physical", "target": "enemy", "cost": 1, "dice": weapon_dice(sight.state, c)}
            yield from self._effect(sight, c, o, eff, foes, "attacks", "")
        elif o.kind == "ability":
            a = definition(sight.state, "abilities", o.params.get("ability"))
            if a is not None:
                yield from self._effect(sight, c, o, a, foes, "uses", a["name"])
        elif o.kind == "item":
            d = definition(sight.state, "items", o.params.get("item"))
            if d is not None and d["type"] in ("heal", "cleanse", "physical", "magical"):
                yield from self._effect(sight, c, o, {**d, "cost": 1}, foes, "uses", d["name"], spare=True)
        elif o.kind == "summon":
            eid = definition(sight.state, "eidolons", c.sheet.get("eidolon"))
            if eid and foes:
                yield Candidate(
                    SUMMON_WORTH * eid["hp"],
                    Action("summon", c.id),
                    f"{c.name} summons {eid['name']}: the Anima is there, and it shields the side.",
                )
        elif o.kind == "change_row" and row_of(c) == "front" and foes:
            yield from self._step_back(sight, c)

    def _step_back(self, sight: Sight, c: Combatant) -> Iterable[Candidate]:
        holding = [
            a for a in sight.allies(c) if a.id != c.id and row_of(a) == "front" and sight.ratio(a) > 0.4
        ]
        if sight.ratio(c) < 0.3 and holding:
            yield Candidate(
                0.3 * c.max_hp,
                Action("change_row", c.id),
                f"{c.name} steps back to the back row: badly hurt, and {holding[0].name} holds the front.",
            )

    def _amount(self, sight: Sight, c: Combatant, t: Combatant | None, eff: dict[str, Any]) -> float:
        """Healing as rolled, or a hit's worth: the damage expected past DEF or MDEF (ODDS-HIT-1; the
        foe's figures as the side knows them); every hit lands (PARA-ACT-ATTACK)."""
        kind = eff["type"]
        bonus = float(eff.get("bonus", 0))
        if kind == "physical":
            bonus += stat(sight.state, c, "attack")
        elif kind == "magical":
            bonus += stat(sight.state, c, "magic")
        defence = 0.0
        if t is not None and t.side != c.side and kind in ("physical", "magical"):
            key = "magic_defense" if kind == "magical" else "defense"
            figures = sight.figures(t) or {}
            defence = stat(sight.state, t, key) if sight.knows_sheet(t) else float(figures.get(key, 0) or 0)
        return hit_worth(eff.get("dice", ""), bonus, defence)

    def _effect(
        self,
        sight: Sight,
        c: Combatant,
        o: ActionOption,
        eff: dict[str, Any],
        foes: list[Combatant],
        verb: str,
        what: str,
        spare: bool = False,
    ) -> Iterable[Candidate]:
        kind, mode = eff["type"], eff["target"]
        per = float(max(1, eff.get("cost", 1)))
        using = f" with {what}" if what and verb == "attacks" else (f" {what}" if what else "")
        state = sight.state
        if mode in ("all_enemies", "all_allies"):
            yield from self._area(sight, c, o, eff, foes, what)
            return
        for tid in o.targets:
            t = state.combatants.get(tid)
            if t is None or not sight.known(t):
                continue
            if kind in ("physical", "magical") and t.side != c.side:
                dmg = self._amount(sight, c, t, eff)
                worth = self.harm_value(sight, t, dmg)
                if spare:
                    worth *= 0.5
                why = self.why_target(sight, c, t, dmg, foes)
                reason = (
                    f"{c.name} attacks {t.name}{using}"
                    if verb == "attacks"
                    else f"{c.name} uses{using} on {t.name}"
                )
            elif kind == "heal" and t.side == c.side:
                worth = self.heal_value(sight, t, self._amount(sight, c, t, eff))
                why = f"{t.name} is badly hurt"
                reason = f"{c.name} uses{using} on {t.name}"
            elif kind == "cleanse" and t.side == c.side:
                bad = [k for k in t.statuses if (d := definition(state, "statuses", k)) and harmful(d)]
                worth = 3.0 * len(bad)
                why = f"it ends what ails {t.name}"
                reason = f"{c.name} uses{using} on {t.name}"
            elif kind == "status":
                worth = self._status_worth(sight, c, [t], eff, foes)
                why = f"{t.name} is still fresh" if t.side != c.side else f"{t.name} is in the thick of it"
                reason = f"{c.name} uses{using} on {t.name}"
            else:
                continue
            if spare and kind != "heal":
                worth -= 1.0
            if worth > 0:
                yield Candidate(
                    worth / per,
                    self.aim(c, o, [t.id]),
                    f"{reason}: {why}.",
                )

    def _area(
        self,
        sight: Sight,
        c: Combatant,
        o: ActionOption,
        eff: dict[str, Any],
        foes: list[Combatant],
        what: str,
    ) -> Iterable[Candidate]:
        """An effect on a whole side: every foe it hits, every ally it heals or helps."""
        kind, mode, state = eff["type"], eff["target"], sight.state
        per = float(max(1, eff.get("cost", 1)))
        hit = [state.combatants[i] for i in area_targets(state, c, mode, kind, bool(eff.get("melee")))]
        hit = [t for t in hit if sight.known(t)]
        if kind in ("physical", "magical"):
            worth = sum(self.harm_value(sight, t, self._amount(sight, c, t, eff)) for t in hit)
            why = f"it hits all {count(len(hit), 'foe')}"
        elif kind == "heal":
            worth = sum(self.heal_value(sight, t, self._amount(sight, c, t, eff)) for t in hit)
            why = "the side is hurt"
        elif kind == "status":
            worth = self._status_worth(sight, c, hit, eff, foes)
            why = "the whole side gains from it"
        else:
            worth = 0.0
            why = ""
        if worth > 0:
            yield Candidate(
                worth / per, Action(o.kind, c.id, dict(o.params)), f"{c.name} uses {what}: {why}."
            )

    def _status_worth(
        self, sight: Sight, c: Combatant, hit: list[Combatant], eff: dict[str, Any], foes: list[Combatant]
    ) -> float:
        d = definition(sight.state, "statuses", eff.get("status"))
        if d is None:
            return 0.0
        bad = harmful(d)
        worth = 0.0
        for t in hit:
            if eff["status"] in t.statuses or (t.side == c.side) == bad:
                continue
            if bad:
                stops = "actions" in d["blocks"]
                per_turn = expected(d.get("damage", "")) + (0.25 * sight.max_hp(t) if stops else 1.0)
                worth += per_turn * eff.get("duration", 2) * sight.ratio(t) * 0.5
            elif foes:
                worth += (
                    d.get("defense", 0) + d.get("magic_defense", 0) + expected(d.get("healing", ""))
                ) * (eff.get("duration", 2) * 0.5)
        return worth

    def answer(self, sight: Sight, c: Combatant, decision: Decision) -> Choice:
        if decision.resume.get("phase") != "job":
            return super().answer(sight, c, decision)
        hurt = [a for a in sight.allies(c) if sight.ratio(a) < 0.5]
        now = current_job(sight.state, c)
        heals_now = now is not None and self._heals(sight, now)
        jobs = {
            k: definition(sight.state, "jobs", k[4:]) for k in decision.choice_keys() if k.startswith("job:")
        }
        if hurt and not heals_now:
            for key, job in jobs.items():
                if job and self._heals(sight, job):
                    return self.pick(c, decision, key, f"{hurt[0].name} needs healing")
        if not hurt and heals_now:
            for key, job in jobs.items():
                if job and not self._heals(sight, job):
                    return self.pick(c, decision, key, "no one needs healing, so hit harder")
        return self.pick(c, decision, "keep", "the job fits the fight")

    @staticmethod
    def _heals(sight: Sight, job: dict[str, Any]) -> bool:
        return any(
            (a := definition(sight.state, "abilities", k)) and a["type"] == "heal" for k in job["abilities"]
        )


TACTICS = ParadigmTactics()
