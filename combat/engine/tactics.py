"""Tactics: how a combatant left to the rules chooses its next action, and why, in a player's words.

One interface for every ruleset: ``Tactics.choose(state, sees)`` returns a
``Choice`` (a legal action and a one-line reason such as "Grul attacks Mira
with Claws: in reach, and the most wounded.") or None when nobody may act.
The turn frame lives here, the judgement in each ruleset's ``tactics.py``:

1. a reaction window is answered (``answer``; the window's default unless
   the ruleset knows better; a GM-only ruling keeps the default);
2. otherwise the acting combatant's options of ENG-5 (``legal_actions``) are
   scored by the ruleset (``candidates``: each a ``Candidate`` with a score in
   hit points gained for the side, an action and its reason): every option but
   the moves by ``scored``, the same options again with a step of their own
   toward a foe just out of reach (``stepping``), then the moves by ``moving``,
   with the shared parts here (``hits``, ``heals``, ``best_square``,
   ``close_in``); a hit is scored by ``hit_worth`` (``combat.engine.worth``);
3. the best one is taken, ending the turn scores 0 (nothing worth doing),
   and a turn that has already taken ``MAX_STEPS`` actions ends.

What the tactics may know is a ``Sight``: everything, for the GM's monsters
(``sees="all"``), or only what the players of the acting side see
(``sees="side"``): no combatant standing in fog, and when the GM hides enemy
HP, an enemy's health only as the coarse bar of ``view`` and its figures as
the bestiary gives them for its kind (``combat.engine.sight``). Ties are broken by
a generator seeded from the battle's seed and ``seq``: the same battle gives
the same choice.

>>> from combat.engine.core import new_battle_event, replay
>>> tactics_for(replay([new_battle_event("luck", {}, 1, 5, 5)])).choose(
...     replay([new_battle_event("luck", {}, 1, 5, 5)])) is None
True
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from combat.engine.actions import Action, ActionOption, Refusal, chosen_params
from combat.engine.sight import Sight
from combat.engine.state import BattleState, Combatant, Decision
from combat.engine.words import plain_label
from combat.engine.worth import expected, expected_past, hit_worth

if TYPE_CHECKING:
    from combat.engine.context import Ctx

# The core, the view and the ruleset registry are imported where they are used: every ruleset's
# package imports this module while the registry is still being built.

__all__ = [
    "Candidate",
    "Choice",
    "Sight",
    "Tactics",
    "expected",
    "expected_past",
    "hit_worth",
    "tactics_for",
]

SEES = ("all", "side")
MAX_STEPS = 12  # actions one turn may take before the tactics end it
KILL_BONUS = 0.6  # a foe taken out is worth this share of its full HP on top of the damage


@dataclass(frozen=True)
class Choice:
    """What the tactics do now: a legal ``action`` and its ``reason`` in one line of player words."""

    action: Action
    reason: str

    def to_dict(self) -> dict[str, Any]:
        return {"action": self.action.to_dict(), "reason": self.reason}


@dataclass(frozen=True)
class Candidate:
    """One way to act, scored in hit points gained for the acting side (0: ending the turn)."""

    score: float
    action: Action
    reason: str


class Tactics:
    """The shared turn frame; a ruleset's tactics override ``candidates`` (and ``answer``).

    The score of an option is what it gains the side in hit points: damage dealt
    (more for a foe it takes out), healing that an ally needs, the worth of a
    status. Helpers for the usual parts: ``harm_value``, ``heal_value``,
    ``approach`` (a move on a grid toward the foe worth reaching).
    """

    def choose(self, state: BattleState, sees: str = "all", steps: int = 0) -> Choice | None:
        """The next action of whoever must act now (a reaction window first), or None.

        ``sees``: ``"all"`` (the GM's monsters) or ``"side"`` (the acting side's players'
        knowledge); ``steps``: actions this turn has already taken (the turn ends at ``MAX_STEPS``).
        """
        from combat.engine.core import legal_actions

        if state.phase != "active":
            return None
        pending = state.pending
        if pending is not None:
            who = state.combatants.get(pending.combatant)
            if pending.gm_only or who is None:
                return self._gm_ruling(state, pending)
            return self.answer(Sight(state, who.side, sees == "all"), who, pending)
        c = state.current()
        if c is None:
            return None
        rest = Choice(Action("end_turn", c.id), f"{c.name} ends the turn: nothing more worth doing.")
        if steps >= MAX_STEPS:
            return rest
        sight = Sight(state, c.side, sees == "all")
        options = [
            o for o in legal_actions(sight.options_state, c.id) if o.available and o.kind != "end_turn"
        ]
        found = [cand for cand in self.candidates(sight, c, options) if cand.score > 0]
        if not found:
            spent = steps > 0 and not options  # it has acted, and nothing is left open to it
            why = (
                f"{c.name} ends the turn: nothing left to act with." if spent else self.idle_reason(sight, c)
            )
            return Choice(Action("end_turn", c.id), why)
        top = max(round(cand.score, 3) for cand in found)
        ties = [i for i, cand in enumerate(found) if round(cand.score, 3) == top]
        if len(ties) > 1:  # one draw per candidate, in order: the same battle breaks the tie the same way
            rng = random.Random(f"{state.seed}:{state.seq}:tactics")
            draws = [rng.random() for _ in found]
            ties = [max(ties, key=lambda i: (draws[i], -i))]
        best = found[ties[0]]
        return Choice(best.action, best.reason)

    # --- what a ruleset overrides -------------------------------------------------------------

    #: The option kinds that move the combatant: scored last (``moving``), once the reach is known.
    moves: tuple[str, ...] = ("move",)

    def candidates(self, sight: Sight, c: Combatant, options: list[ActionOption]) -> Iterable[Candidate]:
        """Every option worth taking, scored: each option but the moves by ``scored``, which also says
        how far its hit reaches; then the moves (``moving``), toward a foe within the longest reach."""
        foes = sight.enemies(c)
        moves, others = self.split_moves(options, *self.moves)
        reach = 1
        for o in others:
            far, found = self.scored(sight, c, o, foes)
            reach = max(reach, far)
            yield from found
        yield from self.stepping(sight, c, reach, foes)
        yield from self.moving(sight, c, moves, reach, foes)

    def stepping(self, sight: Sight, c: Combatant, reach: int, foes: list[Combatant]) -> Iterable[Candidate]:
        """ODDS-MOVE-1: the options that bring a step of their own (``Ruleset.plan_steps``, D20 Luck's
        free step; unavailable here for want of a target), taken toward a foe just out of every hit's
        ``reach``: scored as ``scored`` scores them from the square they step to, the step added."""
        from combat.engine.context import rules_for
        from combat.engine.core import legal_actions

        if c.pos is None or not foes or min(sight.distance(c.pos, f.pos) for f in foes) != reach + 1:
            return
        rules = rules_for(sight.state)
        standing: dict[tuple[int, int], list[ActionOption]] = {}
        for o in legal_actions(sight.options_state, c.id):
            for extra, walk in rules.plan_steps(sight.state, c, o) if o.kind not in self.moves else ():
                end = walk[-1]
                if min(sight.distance(end, f.pos) for f in foes) > reach:
                    continue
                if end not in standing:
                    moved = sight.options_state.clone()
                    moved.combatants[c.id].pos = [end[0], end[1]]
                    standing[end] = legal_actions(moved, c.id)
                there = next((t for t in standing[end] if t.kind == o.kind and t.params == o.params), None)
                if there is None or not there.available:
                    continue
                for cand in self.scored(sight, c, there, foes)[1]:
                    action = Action(cand.action.kind, c.id, {**cand.action.params, **extra})
                    head, _, why = cand.reason.partition(": ")
                    yield Candidate(cand.score, action, f"{head} with a step in: {why}")

    def scored(
        self, sight: Sight, c: Combatant, o: ActionOption, foes: list[Combatant]
    ) -> tuple[int, Iterable[Candidate]]:
        """How far option ``o`` hits (0: it is no hit) and its candidates (the default: a hit on the
        weakest foe it can reach)."""
        foes = [t for t in foes if t.id in o.targets]
        if not foes:
            return 0, ()
        t = min(foes, key=lambda t: (sight.ratio(t), t.id))
        return 1, [
            Candidate(
                1.0, self.aim(c, o, [t.id]), f"{c.name} uses {o.label} on {t.name}: the weakest foe in reach."
            )
        ]

    def moving(
        self, sight: Sight, c: Combatant, moves: dict[str, ActionOption], reach: int, foes: list[Combatant]
    ) -> Iterable[Candidate]:
        """The moves worth making, by kind in ``moves``, for a combatant whose hits reach ``reach``
        (the default: none; ``close_in`` makes one toward a foe)."""
        return ()

    def answer(self, sight: Sight, c: Combatant, decision: Decision) -> Choice:
        """The answer of ``c`` to a reaction window (the default: the window's own default)."""
        return self.pick(c, decision, decision.default, "the usual answer")

    def idle_reason(self, sight: Sight, c: Combatant) -> str:
        if not sight.enemies(c):
            return f"{c.name} ends the turn: no foe in sight."
        return f"{c.name} ends the turn: nothing useful within reach."

    # --- helpers --------------------------------------------------------------------------------

    @staticmethod
    def pick(c: Combatant | None, decision: Decision, key: str, why: str) -> Choice:
        """Answer ``decision`` with the option ``key`` (its default when ``key`` is not one)."""
        keys = decision.choice_keys()
        if key not in keys:
            key = decision.default if decision.default in keys else keys[0]
        # The label without its figures: the reason is read by every seat, a hidden monster's too.
        label = plain_label(next((o["label"] for o in decision.options if o["key"] == key), key))
        actor = None if decision.gm_only or c is None else c.id
        who = c.name if c is not None and not decision.gm_only else "The GM"
        return Choice(
            Action("answer", actor, {"decision": decision.id, "choice": key}),
            f"{who} answers {label}: {why}.",
        )

    def _gm_ruling(self, state: BattleState, decision: Decision) -> Choice:
        return self.pick(None, decision, decision.default, "the rules' usual ruling")

    @staticmethod
    def aim(c: Combatant, o: ActionOption, targets: list[str] | None = None, square: Any = None) -> Action:
        """The action of option ``o`` by ``c`` at ``targets`` or ``square`` (its own parameters kept)."""
        return Action(o.kind, c.id, chosen_params(o.kind, o.params, targets, square))

    @staticmethod
    def split_moves(
        options: list[ActionOption], *kinds: str
    ) -> tuple[dict[str, ActionOption], list[ActionOption]]:
        """The options of the movement ``kinds`` (by kind) and the others: a turn scores the others
        first, learning its reach, then moves toward a foe with ``close_in``."""
        moves = {o.kind: o for o in options if o.kind in kinds}
        return moves, [o for o in options if o.kind not in kinds]

    def close_in(
        self, sight: Sight, c: Combatant, move: ActionOption | None, reach: int, worth: float
    ) -> Iterable[Candidate]:
        """A move toward the foe worth reaching, to within ``reach`` (a ranged fighter, ``reach`` over 1,
        keeps out of melee); nothing when there is no move or no square helps."""
        if move is not None:
            cand = self.approach(sight, c, move, reach, worth, keep_off=reach > 1)
            if cand is not None:
                yield cand

    def hits(
        self,
        sight: Sight,
        c: Combatant,
        o: ActionOption,
        foes: list[Combatant],
        damage: Callable[[Combatant], float],
        says: Callable[[Combatant, str], str],
        per: float = 1.0,
        price: float = 0.0,
        bonus: Callable[[Combatant], float] | None = None,
    ) -> Iterable[Candidate]:
        """A hit with option ``o`` on each foe it reaches: the harm of ``damage(t)`` (``harm_value``)
        per ``per`` less ``price``, plus ``bonus(t)``; ``says(t, why)`` is its reason."""
        in_reach = [t for t in foes if t.id in o.targets]
        for t in in_reach:
            dmg = damage(t)
            worth = self.harm_value(sight, t, dmg) / per - price + (bonus(t) if bonus else 0.0)
            if worth > 0:
                yield Candidate(
                    worth, self.aim(c, o, [t.id]), says(t, self.why_target(sight, c, t, dmg, in_reach))
                )

    def heals(
        self,
        sight: Sight,
        c: Combatant,
        o: ActionOption,
        amount: float,
        what: str,
        per: float = 1.0,
        price: float = 0.0,
    ) -> Iterable[Candidate]:
        """Healing ``amount`` with ``what`` (option ``o``) on each ally it reaches who needs it
        (``heal_value``), divided by what the option takes of the turn (``per``) less its ``price``."""
        for t in sight.allies(c):
            if t.id in o.targets:
                worth = self.heal_value(sight, t, amount) / per - price
                if worth > 0:
                    yield Candidate(
                        worth,
                        self.aim(c, o, [t.id]),
                        f"{c.name} heals {t.name} with {what}: {t.name} is badly hurt.",
                    )

    def best_square(
        self,
        sight: Sight,
        c: Combatant,
        o: ActionOption,
        damage: Callable[[Combatant], float],
        spares_friends: bool,
    ) -> tuple[float, list[int], int] | None:
        """The square of area option ``o`` worth the most: the harm ``damage(t)`` does to each foe it
        catches, less twice that to each friend (none when the area ``spares_friends``). Returns
        ``(worth, square, foes caught)``, or None when no square catches a foe."""
        best: tuple[float, list[int], int] | None = None
        for sq in o.squares:
            caught = {tuple(s) for s in o.areas.get(f"{sq[0]},{sq[1]}", [])}
            worth, n = 0.0, 0
            for t in sight.state.combatants.values():
                if not (t.able and t.pos is not None and tuple(t.pos) in caught and sight.known(t)):
                    continue
                if t.side != c.side:
                    worth += self.harm_value(sight, t, damage(t))
                    n += 1
                elif not spares_friends:
                    worth -= 2 * self.harm_value(sight, t, damage(t))
            if n and (best is None or worth > best[0]):
                best = (worth, sq, n)
        return best

    @staticmethod
    def harm_value(sight: Sight, t: Combatant, damage: float) -> float:
        """What ``damage`` to ``t`` is worth: the HP it takes (no more than are left), more when it drops."""
        left = sight.hp(t)
        worth = min(damage, left)
        if damage >= left:
            worth += KILL_BONUS * sight.max_hp(t)
        else:  # a wounded foe is closer to dropping: a little more
            worth *= 1.0 + 0.3 * (1.0 - sight.ratio(t))
        return worth

    @staticmethod
    def heal_value(sight: Sight, t: Combatant, amount: float) -> float:
        """What healing ``amount`` is worth to ``t``: only an ally under half health gains from it."""
        ratio = sight.ratio(t)
        if ratio >= 0.5 or t.hp >= t.max_hp:
            return 0.0
        missing = max(0, t.max_hp - t.hp)
        return min(amount, missing) * (1.2 if ratio < 0.25 else 0.9)

    @staticmethod
    def why_target(sight: Sight, c: Combatant, t: Combatant, damage: float, foes: list[Combatant]) -> str:
        """A short reason for aiming at ``t``: it drops, it is the most wounded, the nearest..."""
        if damage >= sight.hp(t):
            return f"{t.name} is likely to drop"
        if foes and min(foes, key=lambda f: (sight.ratio(f), f.id)) is t and sight.ratio(t) < 1:
            return f"{t.name} is the most wounded"
        if foes and sight.board == "grid" and sight.nearest(c, foes) is t:
            return f"{t.name} is the nearest"
        return f"{t.name} is in reach"

    def approach(
        self,
        sight: Sight,
        c: Combatant,
        move: ActionOption,
        reach: int,
        worth: float,
        keep_off: bool = False,
    ) -> Candidate | None:
        """A grid move toward the foe worth reaching (the most wounded of the nearest), to get
        within ``reach``; ``keep_off`` (a ranged fighter) stays out of a foe's melee where it can.
        Never a move that ends next to three foes when badly hurt. None when no square helps.
        """
        foes = sight.enemies(c)
        if not foes or c.pos is None or not move.squares:
            return None
        here = min(sight.distance(c.pos, f.pos) for f in foes)
        if here <= reach and not (keep_off and here <= 1):
            return None
        goal = min(foes, key=lambda f: (sight.distance(c.pos, f.pos) + 3 * sight.ratio(f), f.id))
        hurt = sight.ratio(c) < 0.3
        dist = sight._dist
        spots = [(f.pos[0], f.pos[1]) for f in foes if f.pos is not None]
        target = (goal.pos[0], goal.pos[1]) if goal.pos is not None else spots[0]

        def cost(sq: list[int]) -> tuple[float, int, int]:
            near = min(dist(sq, f) for f in spots)
            penalty = 0.0
            if keep_off and near <= 1:
                penalty += 5
            if hurt and sum(1 for f in spots if dist(sq, f) <= 1) >= 3:
                penalty += 50
            gap = max(0, dist(sq, target) - reach)
            return (gap + penalty + (0.2 * -near if keep_off else 0.0), sq[0], sq[1])

        best = min(move.squares, key=cost)
        if cost(best)[0] >= max(0, sight.distance(c.pos, goal.pos) - reach):
            return None  # no square brings it closer
        square = list(best)
        in_reach = sight.distance(square, goal.pos) <= reach
        why = f"to bring {goal.name} into reach" if in_reach else f"{goal.name} is the foe to reach"
        return Candidate(
            worth,
            Action(move.kind, c.id, chosen_params(move.kind, move.params, None, square)),
            f"{c.name} moves toward {goal.name}: {why}.",
        )


DEFAULT = Tactics()


def tactics_for(state: BattleState) -> Tactics:
    """The battle's ruleset's tactics (the shared frame alone for a ruleset without its own)."""
    from combat.engine.context import rules_for

    own = getattr(rules_for(state), "tactics", None)
    return own if isinstance(own, Tactics) else DEFAULT


def _perform(ctx: Ctx, action: Action) -> Refusal | None:
    """Run one chosen action inside ``ctx`` as ``resolve`` would (its turn and decision checks passed)."""
    from combat.engine.context import end_turn

    state = ctx.state
    if action.kind == "answer":
        pending = state.pending
        if pending is None:
            return Refusal("There is nothing to answer.")
        return ctx.answer(
            pending.id, action.params.get("choice", pending.default), by="tactics", guarded=True
        )
    if action.kind == "end_turn":
        end_turn(ctx, explained=True)  # the tactics' line just before says why
        return None
    method = ctx.rules.actions.get(action.kind)
    actor = state.combatants.get(action.actor or "")
    if method is None or actor is None:
        return Refusal("Unknown action.")
    return method(ctx, actor, action)


def gm_may_leave(c: Combatant) -> bool:
    """A combatant the GM may leave to the tactics: not a player's character."""
    return c.controller is None and c.kind != "pc"


def play_turn(ctx: Ctx, action: Action) -> Refusal | None:
    """``gm.tactics``: the tactics play the current turn of a monster or NPC to its end (ENG-7).

    Each step is a ``tactics.chose`` event (the reason, in the log) and the events of the action
    chosen; the whole turn is one action of the log, undone at once. It stops where a player must
    answer or the GM must rule. A step the engine refuses refuses the whole turn (nothing changes).
    """
    from combat.engine.context import finish

    state = ctx.state
    c = state.current()
    if state.phase != "active" or c is None:
        return Refusal("It is nobody's turn.")
    if state.pending is not None:
        return Refusal("A question waits for an answer first.")
    if not gm_may_leave(c):
        return Refusal(f"{c.name} is a player's character: its player acts.")
    tactics = tactics_for(state)
    turn, steps = (state.round, state.turn), 0
    for _ in range(4 * MAX_STEPS):
        s = ctx.state
        if s.phase != "active" or (s.round, s.turn) != turn:
            break
        pending = s.pending
        if pending is not None:
            who = s.combatants.get(pending.combatant)
            if pending.gm_only or who is None or not gm_may_leave(who):
                break  # a player answers, or the GM rules: the turn goes on from their answer
        choice = tactics.choose(s, "all", steps)
        if choice is None:
            break
        ctx.emit(
            "tactics.chose",
            actor=choice.action.actor or c.id,
            reason=choice.reason,
            action=choice.action.kind,
        )
        result = _perform(ctx, choice.action)
        if isinstance(result, Refusal):
            return Refusal(f"The tactics could not play {c.name}'s turn: {result.reason}")
        finish(ctx)
        if pending is None:
            steps += 1
    return None
