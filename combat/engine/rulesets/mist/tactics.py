"""Mist & Rampart tactics: action slots spent on chains first and a finisher last, ramparts up, MP kept.

A hit is worth its average damage past DEF or MDF (when the side may know the
foe's sheet) times the accuracy check's chance; its score is per slot it
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

from combat.engine.actions import Action, ActionOption, chosen_params
from combat.engine.rulesets.base import definition, definitions
from combat.engine.rulesets.mist.rules import rampart_range, stat
from combat.engine.tactics import Candidate, Choice, Sight, Tactics, expected

if TYPE_CHECKING:
    from combat.engine.state import Combatant, Decision

MP_WORTH = 2.0  # hit points one MP is worth: a spell must earn its price


class MistTactics(Tactics):
    """Greedy by hit points per action slot (see the module doc)."""

    def candidates(self, sight: Sight, c: Combatant, options: list[ActionOption]) -> Iterable[Candidate]:
        foes = sight.enemies(c)
        defs = definitions(sight.state, "abilities")
        reach = 1
        move = double = None
        for o in options:
            if o.kind == "move":
                move = o
            elif o.kind == "double_move":
                double = o
            elif o.kind == "rampart":
                if o.params.get("on") and foes:
                    yield Candidate(
                        3.0,
                        Action("rampart", c.id, {"on": True}),
                        f"{c.name} raises Rampart {rampart_range(c)}: foes who walk past get struck.",
                    )
            elif o.kind == "ability":
                a = defs.get(o.params.get("ability", ""))
                if a is None:
                    continue
                if a["damage"] and a["target"] in ("enemy", "any", "square"):
                    reach = max(reach, a["range"] + a["area"])
                yield from self._ability(sight, c, o, a, foes)
        if move is not None or double is not None:
            near = min((sight.distance(c.pos, f.pos) for f in foes), default=0)
            left = c.resources.get("move", 0)
            if double is not None and foes and near - reach > left and c.resources.get("slots", 0) > 0:
                yield Candidate(
                    1.5,
                    Action("double_move", c.id),
                    f"{c.name} doubles the move: every foe is beyond one move.",
                )
            if move is not None:
                cand = self.approach(sight, c, move, reach, 2.0, keep_off=reach > 1)
                if cand is not None:
                    yield cand

    def _hit_chance(self, sight: Sight, c: Combatant, t: Combatant, a: dict[str, Any]) -> float:
        if not a["accuracy_check"]:
            return 1.0
        if not (sight.full or t.side == sight.side):
            return 0.75
        margin = stat(sight.state, c, "accuracy") + a["accuracy_bonus"] - stat(sight.state, t, "evasion")
        if not sight.state.options.get("accuracy_adds_d100", True):
            return 1.0 if margin >= 0 else 0.0
        return float(min(1.0, max(0.05, (100 + margin) / 100)))

    def _damage(self, sight: Sight, c: Combatant, t: Combatant, a: dict[str, Any]) -> float:
        raw = expected(a["damage"])
        if not (sight.full or t.side == sight.side) or a["irreducible"]:
            return raw
        key = "magic_defense" if a["damage_type"] == "magical" else "defense"
        return max(0.0, raw - stat(sight.state, t, key)) * self._hit_chance(sight, c, t, a)

    def _ability(
        self, sight: Sight, c: Combatant, o: ActionOption, a: dict[str, Any], foes: list[Combatant]
    ) -> Iterable[Candidate]:
        slots = c.resources.get("slots", 0)
        cost = o.cost.get("slots", 0)
        per = float(max(1, slots if a["type"] == "finisher" else cost))
        price = a["mp"] * MP_WORTH
        finisher = " as the finishing blow" if a["type"] == "finisher" else ""
        if a["heal"]:
            for t in sight.allies(c):
                if t.id in o.targets:
                    worth = self.heal_value(sight, t, expected(a["heal"])) / per - price
                    if worth > 0:
                        yield Candidate(
                            worth,
                            Action("ability", c.id, chosen_params("ability", o.params, [t.id])),
                            f"{c.name} casts {a['name']} on {t.name}: {t.name} is badly hurt.",
                        )
            return
        if a["target"] == "square":
            if not a["damage"] or not a["area"]:
                return  # a leap: moving is left to the move
            best: tuple[float, list[int], int] | None = None
            for sq in o.squares:
                caught = {tuple(s) for s in o.areas.get(f"{sq[0]},{sq[1]}", [])}
                worth, n = 0.0, 0
                for t in sight.state.combatants.values():
                    if not (t.able and t.pos is not None and tuple(t.pos) in caught and sight.known(t)):
                        continue
                    dmg = self._damage(sight, c, t, a)
                    if t.side != c.side:
                        worth += self.harm_value(sight, t, dmg)
                        n += 1
                    elif a["affects"] != "enemies":
                        worth -= 2 * self.harm_value(sight, t, dmg)
                if n and (best is None or worth > best[0]):
                    best = (worth, sq, n)
            if best is not None:
                yield Candidate(
                    best[0] / per - price,
                    Action("ability", c.id, chosen_params("ability", o.params, None, best[1])),
                    f"{c.name} casts {a['name']}: it catches {best[2]} foe{'s' if best[2] > 1 else ''} "
                    f"and no friend.",
                )
            return
        if a["status"] and not a["damage"]:
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
                        0.06
                        * sight.max_hp(t)
                        * a["duration"]
                        * sight.ratio(t)
                        * self._hit_chance(sight, c, t, a)
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
                        Action("ability", c.id, chosen_params("ability", o.params, [t.id])),
                        f"{c.name} uses {a['name']} on {t.name}: {why}.",
                    )
            return
        if not a["damage"]:
            return
        in_reach = [t for t in foes if t.id in o.targets]
        for t in in_reach:
            dmg = self._damage(sight, c, t, a)
            worth = self.harm_value(sight, t, dmg) / per - price
            if a["status"] and a["status"] not in t.statuses:
                worth += 0.02 * sight.max_hp(t)
            if worth > 0:
                why = self.why_target(sight, c, t, dmg, in_reach)
                yield Candidate(
                    worth,
                    Action("ability", c.id, chosen_params("ability", o.params, [t.id])),
                    f"{c.name} uses {a['name']} on {t.name}{finisher}: {why}.",
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
