"""What the tactics playing one side may know of a battle (ODDS-KNOW-1).

The GM's monsters know everything (``full``). The party's tactics know only what its players see:
no combatant standing in fog, and, when the GM hides enemy HP, a foe's health as the coarse bar of
``view`` and its figures (full HP, defences, evasion) as the bestiary gives them for its kind: the
ruleset's monsters and sample heroes, found by the foe's name ("Goblin 2" is a Goblin). A foe of no
known kind is taken for the bestiary's average. The party's own sheets never enter the guess: a
tougher hero does not believe the foes tougher.

>>> from combat.engine.testing import Battle
>>> from combat.engine.rulesets.mist import HEROES, MONSTERS
>>> b = Battle("mist", width=8, height=4)
>>> _ = b.add("Kay", "party", pos=(0, 0), **HEROES["Knight"])
>>> gob = b.add("Goblin 2", "enemy", pos=(5, 0), kind="monster", **{**MONSTERS["Goblin"], "hp": 500})
>>> Sight(b.state, "party", full=False).max_hp(b.c(gob))  # the bestiary's Goblin, not this one
140.0
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence
from typing import Any

from combat.engine import fog
from combat.engine.board import METRICS
from combat.engine.state import BattleState, Combatant

__all__ = ["Sight", "bestiary"]


@functools.lru_cache(maxsize=16)
def bestiary(ruleset: str) -> tuple[dict[str, tuple[dict[str, Any], float]], float]:
    """The figures a side may know of each kind of the ruleset (its monsters, then its sample heroes),
    by lower-case name: ``(sheet, full HP)``; and the average full HP of them all (10 when none)."""
    from combat.engine.rulesets import get_ruleset

    r = get_ruleset(ruleset)
    rules = r()
    kinds: dict[str, tuple[dict[str, Any], float]] = {}
    for name, values in {**(r.heroes or {}), **(r.monsters or {})}.items():
        sheet, errors = r.validate_sheet(r.sheet_schema.defaults() | dict(values))
        if not errors:
            kinds[name.lower()] = (sheet, float(rules.init_combatant(sheet).get("max_hp") or 1))
    hps = [hp for _, hp in kinds.values()]
    return kinds, (sum(hps) / len(hps) if hps else 10.0)


@functools.lru_cache(maxsize=1024)
def kind_of(ruleset: str, name: str) -> tuple[dict[str, Any], float] | None:
    """The bestiary's figures for a combatant called ``name`` (the longest kind its name starts with)."""
    kinds, _ = bestiary(ruleset)
    low = name.lower().strip()
    found = [k for k in kinds if low == k or low.startswith(k + " ")]
    return kinds[max(found, key=len)] if found else None


class Sight:
    """What the tactics playing ``side`` may know of the battle (``full``: everything)."""

    def __init__(self, state: BattleState, side: str, full: bool) -> None:
        from combat.engine.context import rules_for

        self.state = state
        self.side = side
        self.full = full
        others = [c for c in state.combatants.values() if c.side != side]
        if full:
            self.unseen: frozenset[str] = frozenset()
            self.hidden: frozenset[str] = frozenset()
        else:
            self.unseen = frozenset(c.id for c in others if c.pos is not None and fog.fogged(state, c.pos))
            hide = bool(state.options.get("hide_enemy_hp", True))
            self.hidden = frozenset(c.id for c in others) if hide else frozenset()
        rules = rules_for(state)
        self.metric = rules.metric(state)
        self._dist = METRICS[self.metric]
        self.board = rules.board

    @property
    def options_state(self) -> BattleState:
        """The battle the acting side's options are worked out on (without what it may not know of)."""
        return fog.without(self.state, self.unseen) if self.unseen else self.state

    def known(self, c: Combatant) -> bool:
        return c.id not in self.unseen

    def knows_sheet(self, c: Combatant) -> bool:
        """The side may read ``c``'s own sheet and state (the GM's view, or one of its own)."""
        return self.full or c.side == self.side

    def figures(self, c: Combatant) -> dict[str, Any] | None:
        """The sheet the side may reckon ``c`` by: its own (``knows_sheet``), else the bestiary's for
        its kind, else None (nothing known: no defence is counted)."""
        if self.knows_sheet(c):
            return c.sheet
        kind = kind_of(self.state.ruleset, c.name)
        return kind[0] if kind else None

    def ratio(self, c: Combatant) -> float:
        """Health left, 0 to 1: exact, or the coarse bar a player sees."""
        if c.id in self.hidden:
            from combat.engine.view import COARSE_BAR, coarse_state

            return COARSE_BAR[coarse_state(c.hp, c.max_hp)]
        return max(0.0, c.hp / c.max_hp) if c.max_hp > 0 else 0.0

    def hp(self, c: Combatant) -> float:
        """Hit points left: exact, or the bar times the full HP of its kind (``max_hp``)."""
        if c.id in self.hidden:
            return self.ratio(c) * self.max_hp(c)
        return float(max(0, c.hp))

    def max_hp(self, c: Combatant) -> float:
        """Full HP: exact, or the bestiary's for its kind when hidden (the bestiary's average for none)."""
        if c.id not in self.hidden:
            return float(max(1, c.max_hp))
        kind = kind_of(self.state.ruleset, c.name)
        return kind[1] if kind else bestiary(self.state.ruleset)[1]

    def enemies(self, c: Combatant) -> list[Combatant]:
        return [t for t in self.state.combatants.values() if t.side != c.side and t.able and self.known(t)]

    def allies(self, c: Combatant) -> list[Combatant]:
        """Able allies, ``c`` included."""
        return [t for t in self.state.combatants.values() if t.side == c.side and t.able]

    def distance(self, a: Sequence[int] | None, b: Sequence[int] | None) -> int:
        if a is None or b is None:
            return 0
        return self._dist(a, b)

    def nearest(self, c: Combatant, among: Iterable[Combatant]) -> Combatant | None:
        return min(among, key=lambda t: (self.distance(c.pos, t.pos), t.id), default=None)
