"""Mist & Rampart tactics: action slots spent on chains first and a finisher last, ramparts up, MP kept.

A hit is worth the damage it is expected to take past DEF or MDF times the
accuracy check's chance (``hit_worth``; the foe's figures as the side knows
them, ``Sight.figures``); its score is per slot it
takes, and a finisher, which ends the turn, is charged every slot left (so it
comes last, or when it fells the foe). Spells pay for their MP. A combatant
with a Rampart raises it (it costs nothing and punishes foes that walk past);
a rampart attack strikes with the hardest Chain 1 ability; healing goes to an
ally under half health; a status goes on a foe still fresh. With nothing in
reach it moves toward a foe (doubling its move first when the foe is farther
than one move), and a ranged fighter keeps its distance.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from combat.engine.actions import Action, ActionOption
from combat.engine.rulesets.base import definition, definitions
from combat.engine.rulesets.mist.rules import parse_resistances, parse_weaknesses, rampart_range, stat
from combat.engine.tactics import Candidate, Choice, Sight, Tactics, expected, hit_worth
from combat.engine.words import count

if TYPE_CHECKING:
    from combat.engine.state import Combatant, Decision

MP_WORTH = 2.0  # hit points one MP is worth: a spell must earn its price


class MistTactics(Tactics):
    """Greedy by hit points per action slot (see the module doc)."""

    moves = ("move", "double_move")

    def scored(
        self, sight: Sight, c: Combatant, o: ActionOption, foes: list[Combatant]
    ) -> tuple[int, Iterable[Candidate]]:
        if o.kind == "rampart":
            if not (o.params.get("on") and foes):
                return 0, ()
            return 0, [
                Candidate(
                    3.0,
                    Action("rampart", c.id, {"on": True}),
                    f"{c.name} raises Rampart {rampart_range(c)}: foes who walk past get struck.",
                )
            ]
        a = definition(sight.state, "abilities", o.params.get("ability")) if o.kind == "ability" else None
        if a is None:
            return 0, ()
        hits = a["damage"] and a["target"] in ("enemy", "any", "square")
        return (a["range"] + a["area"] if hits else 0), self._ability(sight, c, o, a, foes)

    def moving(
        self, sight: Sight, c: Combatant, moves: dict[str, ActionOption], reach: int, foes: list[Combatant]
    ) -> Iterable[Candidate]:
        near = min((sight.distance(c.pos, f.pos) for f in foes), default=0)
        beyond = near - reach > c.resources.get("move", 0)
        if "double_move" in moves and foes and beyond and c.resources.get("slots", 0) > 0:
            yield Candidate(
                1.5,
                Action("double_move", c.id),
                f"{c.name} doubles the move: every foe is beyond one move.",
            )
        yield from self.close_in(sight, c, moves.get("move"), reach, 2.0)

    def _hit_chance(self, sight: Sight, c: Combatant, t: Combatant, a: dict[str, Any]) -> float:
        """MIST-HIT-1: the chance that 1d100 + Accuracy meets the foe's Evasion (as the side knows it)."""
        if not a["accuracy_check"]:
            return 1.0
        figures = sight.figures(t)
        if figures is None:
            return 0.75
        evasion = stat(sight.state, t, "evasion") if sight.knows_sheet(t) else int(figures.get("evasion", 0))
        margin = stat(sight.state, c, "accuracy") + a["accuracy_bonus"] - evasion
        if not sight.state.options.get("accuracy_adds_d100", True):
            return 1.0 if margin >= 0 else 0.0
        return float(min(1.0, max(0.0, (101 + margin) / 100)))

    def _damage(self, sight: Sight, c: Combatant, t: Combatant, a: dict[str, Any]) -> float:
        """ODDS-HIT-1: the HP the hit is expected to take past DEF or MDF and the element's resistance
        (MIST-DMG-1; doubled by a weakness, MIST-DMG-2), times the chance that it hits."""
        bonus = int(c.sheet.get("magic" if a["damage_type"] == "magical" else "attack", 0) or 0)
        figures = sight.figures(t) or {}
        key = "magic_defense" if a["damage_type"] == "magical" else "defense"
        defence = stat(sight.state, t, key) if sight.knows_sheet(t) else int(figures.get(key, 0) or 0)
        element = (a.get("element") or "").lower()
        defence += parse_resistances(figures.get("resistances")).get(element, 0) if element else 0
        weak = bool(element) and element in parse_weaknesses(figures.get("weaknesses"))
        worth = hit_worth(
            a["damage"], bonus, 0 if a["irreducible"] else defence, self._hit_chance(sight, c, t, a)
        )
        return worth * (int(sight.state.options.get("weakness_multiplier", 2)) if weak else 1)

    def _ability(
        self, sight: Sight, c: Combatant, o: ActionOption, a: dict[str, Any], foes: list[Combatant]
    ) -> Iterable[Candidate]:
        slots = c.resources.get("slots", 0)
        cost = o.cost.get("slots", 0)
        per = float(max(1, slots if a["type"] == "finisher" else cost))
        price = a["mp"] * MP_WORTH
        finisher = " as the finishing blow" if a["type"] == "finisher" else ""
        if a["heal"]:
            yield from self.heals(sight, c, o, expected(a["heal"]), a["name"], per, price)
            return
        if a["target"] == "square":
            if not a["damage"] or not a["area"]:
                return  # a leap: moving is left to the move
            best = self.best_square(
                sight, c, o, lambda t: self._damage(sight, c, t, a), spares_friends=a["affects"] == "enemies"
            )
            if best is not None:
                yield Candidate(
                    best[0] / per - price,
                    self.aim(c, o, None, best[1]),
                    f"{c.name} casts {a['name']}: it catches {count(best[2], 'foe')} and no friend.",
                )
            return
        if a["status"] and not a["damage"]:
            yield from self._status(sight, c, o, a, foes, per, price)
            return
        if not a["damage"]:
            return
        yield from self.hits(
            sight,
            c,
            o,
            foes,
            lambda t: self._damage(sight, c, t, a),
            lambda t, why: f"{c.name} uses {a['name']} on {t.name}{finisher}: {why}.",
            per,
            price,
            # a status the hit leaves on the foe is worth a little more
            lambda t: 0.02 * sight.max_hp(t) if a["status"] and a["status"] not in t.statuses else 0.0,
        )

    def _status(
        self,
        sight: Sight,
        c: Combatant,
        o: ActionOption,
        a: dict[str, Any],
        foes: list[Combatant],
        per: float,
        price: float,
    ) -> Iterable[Candidate]:
        """A status alone: a harmful one on a foe still fresh (by the accuracy check's chance, halved
        when a save is allowed), a helpful one on an ally in the thick of it."""
        st = definition(sight.state, "statuses", a["status"])
        if st is None:
            return
        harmful = bool(st["blocks"]) or st["accuracy"] < 0 or st["evasion"] < 0 or st["defense"] < 0
        pool = foes if harmful else ([] if not foes else sight.allies(c))
        for t in pool:
            if t.id not in o.targets or a["status"] in t.statuses:
                continue
            if harmful:
                worth = (
                    0.06 * sight.max_hp(t) * a["duration"] * sight.ratio(t) * self._hit_chance(sight, c, t, a)
                )
                if a["save"]:
                    worth *= 0.5
                why = f"{st['name'].lower()} blunts {t.name} while {t.name} is still fresh"
            else:
                threatened = any(sight.distance(t.pos, f.pos) <= 2 for f in foes)
                worth = 0.04 * t.max_hp * a["duration"] if threatened else 0.0
                why = f"{t.name} is in the thick of it"
            worth = worth / per - price
            if worth > 0.5:
                yield Candidate(
                    worth,
                    self.aim(c, o, [t.id]),
                    f"{c.name} uses {a['name']} on {t.name}: {why}.",
                )

    def answer(self, sight: Sight, c: Combatant, decision: Decision) -> Choice:
        if decision.resume.get("type") == "rampart":
            defs = definitions(sight.state, "abilities")
            strikes = [k for k in decision.choice_keys() if k in defs]
            if strikes:
                best = max(strikes, key=lambda k: (expected(defs[k]["damage"]) - MP_WORTH * defs[k]["mp"], k))
                return self.pick(c, decision, best, "a foe walks out of the rampart")
        return super().answer(sight, c, decision)


TACTICS = MistTactics()
