"""Action Block tactics: Speed and Strength Points spent on hits that land, blocks and dodges when they pay.

An attack is worth the damage it is expected to take past the target's PDR
times the chance that 2d6 plus the to-hit bonus meets the target's Passive
Evasion (``hit_worth``; the foe's figures as the side knows them, else an
even chance), less a little for each
point it costs: the points of a battle do not come back, so a cheap sure hit
beats a dear long shot. Only a foe still standing is aimed at (hitting one who
is down finishes it off, which wins nothing). A spell is cast when it will
have a target, then activated on the best one; healing goes to an ally under
half health. With nothing in reach it moves toward a foe (a gun keeps its
distance). As a reaction it dodges when its Active Evasion is the better one,
and blocks a hit with the stance that stops the most for its points while it
has points to spare, or whenever it is badly hurt.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from combat.engine.actions import Action, ActionOption
from combat.engine.rulesets.action_block import rules
from combat.engine.rulesets.base import definition
from combat.engine.tactics import Candidate, Choice, Sight, Tactics, expected, hit_worth

if TYPE_CHECKING:
    from combat.engine.state import Combatant, Decision

POINT_WORTH = 0.6  # hit points one Speed or Strength Point is worth


@functools.lru_cache(maxsize=64)
def chance_at_least(expr: str, need: int) -> float:
    """The chance that ``1d6`` or ``2d6`` rolls ``need`` or more."""
    faces = [a + b for a in range(1, 7) for b in range(1, 7)] if expr == "2d6" else list(range(1, 7))
    return sum(1 for f in faces if f >= need) / len(faces)


def price(state: Any, c: Combatant, cost: dict[str, int]) -> float:
    """What spending ``cost`` is worth in hit points: the damage those points would deal in the
    combatant's most frugal attack, dearer the fewer of their kind are left (they do not come back)."""
    per_point = POINT_WORTH
    for _, w in rules.weapons_of(state.extra, c.sheet):
        points = w["speed_cost"] + w["strength_cost"]
        if points:
            per_point = max(
                per_point, 0.6 * (expected(w["damage"]) + rules.damage_bonus(c.sheet, w)) / points
            )
    return sum(
        0.5 * n * per_point * (1.0 + 4.0 / (c.resources.get(k, 0) + 1))
        for k, n in cost.items()
        if k in ("speed", "strength")
    )


class BlockTactics(Tactics):
    """Greedy by hit points, net of the points spent (see the module doc)."""

    def scored(
        self, sight: Sight, c: Combatant, o: ActionOption, foes: list[Combatant]
    ) -> tuple[int, Iterable[Candidate]]:
        if o.kind == "attack":
            w = definition(sight.state, "weapons", o.params.get("weapon"))
            if w is None:
                return 0, ()
            return rules.squares(rules.weapon_range(w)), self._attack(sight, c, o, w, foes)
        if o.kind == "cast_spell":
            return 0, self._cast(sight, c, o, foes)
        if o.kind == "activate_spell":
            return 0, self._activate(sight, c, o, foes)
        return 0, ()

    def moving(
        self, sight: Sight, c: Combatant, moves: dict[str, ActionOption], reach: int, foes: list[Combatant]
    ) -> Iterable[Candidate]:
        if c.resources.get("offensive", 0) <= 0:
            return ()  # no attack left this turn to move for
        for _, w in rules.weapons_of(sight.state.extra, c.sheet):  # the weapons it can pay for count too
            if rules.cost_gate(c, rules.cost_of(w)) is None:
                reach = max(reach, rules.squares(rules.weapon_range(w)))
        return self.close_in(sight, c, moves.get("move"), reach, 2.0)

    def _hit_chance(
        self, sight: Sight, c: Combatant, t: Combatant, w: dict[str, Any], mods: list[dict[str, Any]]
    ) -> float:
        figures = sight.figures(t)
        if figures is None:
            return 0.5
        need = rules.passive_evasion(sight.state.extra, figures) - rules.to_hit_bonus(c.sheet, w, mods)
        return chance_at_least(rules.base_to_hit_expr(w), need)

    def _attack(
        self, sight: Sight, c: Combatant, o: ActionOption, w: dict[str, Any], foes: list[Combatant]
    ) -> Iterable[Candidate]:
        mods = [
            m
            for m in (definition(sight.state, "attack_modifiers", k) for k in o.params.get("modifiers", ()))
            if m
        ]
        paid = price(sight.state, c, o.cost)
        bonus = rules.damage_bonus(c.sheet, w, mods)
        in_reach = [t for t in foes if t.id in o.targets]
        extra = sum(m["extra_targets"] for m in mods)
        scored = []
        for t in in_reach:
            dmg = hit_worth(
                w["damage"], bonus, pdr := self._pdr_of(sight, t), self._hit_chance(sight, c, t, w, mods)
            )
            worth = self.harm_value(sight, t, dmg)
            if pdr and w.get("pdr_damage"):
                worth += 2.0 * w["pdr_damage"]  # the next hits on it bite deeper
            scored.append((worth, dmg, t))
        scored.sort(key=lambda s: (-s[0], s[2].id))
        if not scored:
            return
        chosen = scored[: 1 + extra]
        harm = sum(s[0] for s in chosen)
        worth = max(harm - paid, 0.1 * harm)  # the price orders the attacks; any hit beats none
        if extra and len(chosen) < 2:
            return  # a spread with one target is a dear single hit
        if worth <= 0:
            return
        first = chosen[0][2]
        why = self.why_target(sight, c, first, chosen[0][1], in_reach)
        label = w["name"] + (f" ({', '.join(m['name'] for m in mods)})" if mods else "")
        names = " and ".join(s[2].name for s in chosen)
        yield Candidate(
            worth,
            self.aim(c, o, [s[2].id for s in chosen]),
            f"{c.name} attacks {names} with {label}: {why}.",
        )

    def _spell_value(
        self, sight: Sight, c: Combatant, spell: dict[str, Any], mods: list[dict[str, Any]], t: Combatant
    ) -> float:
        amount = float(rules.spell_effect(c.sheet, spell, mods, 0)) + expected(spell["base"])
        if spell["effect"] == "heal":
            return self.heal_value(sight, t, amount) if t.side == c.side else 0.0
        if spell["effect"] == "damage" and t.side != c.side and t.able:
            return self.harm_value(sight, t, amount * 0.8)
        return 0.0

    def _cast(
        self, sight: Sight, c: Combatant, o: ActionOption, foes: list[Combatant]
    ) -> Iterable[Candidate]:
        spell = definition(sight.state, "spells", o.params.get("spell"))
        if spell is None or o.params.get("modifiers"):
            return
        feet = spell["max_range_ft"]
        pool = rules.spell_targets(sight.state, c, spell, feet)
        best = max(
            (
                (self._spell_value(sight, c, spell, [], sight.state.combatants[i]), i)
                for i in pool
                if sight.known(sight.state.combatants[i])
            ),
            default=(0.0, ""),
        )
        paid = price(sight.state, c, o.cost)
        if best[0] - paid > 0:
            t = sight.state.combatants[best[1]]
            yield Candidate(
                best[0] - paid,
                Action("cast_spell", c.id, dict(o.params)),
                f"{c.name} starts casting {spell['name']}: {t.name} is within its reach.",
            )

    def _activate(
        self, sight: Sight, c: Combatant, o: ActionOption, foes: list[Combatant]
    ) -> Iterable[Candidate]:
        reach = rules.spell_reach(sight.state, c)
        if reach is None:
            return
        spell, mods, _, _ = reach
        for tid in o.targets:
            t = sight.state.combatants[tid]
            if not sight.known(t):
                continue
            worth = self._spell_value(sight, c, spell, mods, t) + 1.0  # the cast is paid for
            yield Candidate(
                worth,
                Action("activate_spell", c.id, {"targets": [tid]}),
                f"{c.name} looses {spell['name']} on {t.name}: "
                + (f"{t.name} is badly hurt." if spell["effect"] == "heal" else f"{t.name} is in reach."),
            )

    def answer(self, sight: Sight, c: Combatant, decision: Decision) -> Choice:
        step = decision.resume.get("step")
        if step == "block":
            blocks = [o for o in decision.options if o["key"] != "none"]
            points = c.resources.get("speed", 0) + c.resources.get("strength", 0)
            if blocks and (sight.ratio(c) < 0.4 or decision.resume.get("crit")) and points >= 6:
                best = max(
                    blocks, key=lambda o: (self._pdr(o["label"]) / max(1, self._cost(o["label"])), o["key"])
                )
                return self.pick(c, decision, best["key"], "it blunts the blow for few points")
            return self.pick(c, decision, "none", "the points are worth more than the block")
        points = c.resources.get("speed", 0) + c.resources.get("strength", 0)
        if step == "dodge":
            dodge = [k for k in decision.choice_keys() if k != "none"]
            if dodge and decision.default != "none" and sight.ratio(c) < 0.3 and points >= 6:
                return self.pick(c, decision, dodge[0], "the hit is worth the Speed a dodge takes")
            return self.pick(c, decision, "none", "Speed is worth more for attacks")
        if "obstruct" in decision.choice_keys():
            if points >= 40:
                return self.pick(c, decision, "obstruct", "points to spare, and the foe is within reach")
            return self.pick(c, decision, "none", "the points are worth more for attacks")
        return super().answer(sight, c, decision)

    @staticmethod
    def _pdr_of(sight: Sight, t: Combatant) -> int:
        """The foe's PDR as the side knows it: as it stands, or the bestiary's for its kind, unworn."""
        if sight.knows_sheet(t):
            return t.resources.get("pdr", 0)
        figures = sight.figures(t)
        return rules.undamaged_pdr(sight.state.extra, figures) if figures is not None else 0

    @staticmethod
    def _pdr(label: str) -> int:
        head, _, _ = label.partition("(")
        digits = "".join(ch for ch in head.rpartition("+")[2] if ch.isdigit())
        return int(digits or 0)

    @staticmethod
    def _cost(label: str) -> int:
        inside = label.rpartition("(")[2]
        return sum(int(p.split()[0]) for p in inside.rstrip(")").split(",") if p.strip()[:1].isdigit())


TACTICS = BlockTactics()
