"""Pick a legal action at random: drives benchmarks, property tests and simple NPC turns.

It only uses ``legal_actions`` (ENG-5), so it works for every ruleset that
fills ``targets``/``squares`` of its options.

>>> import random
>>> from combat.engine.core import new_battle_event, replay
>>> random_action(replay([new_battle_event("luck", {}, 1, 5, 5)]), random.Random(1)) is None
True
"""

from __future__ import annotations

import random

from combat.engine.actions import Action, chosen_params
from combat.engine.core import legal_actions
from combat.engine.state import BattleState


def random_action(state: BattleState, rng: random.Random, end_turn_weight: float = 0.15) -> Action | None:
    """A random action the engine should accept now, or None when nobody can act."""
    if state.phase != "active":
        return None
    if state.pending is not None:
        p = state.pending
        who = None if p.gm_only else p.combatant  # a gm_only prompt is answered by the GM (actor None)
        return Action("answer", who, {"decision": p.id, "choice": rng.choice(p.choice_keys())})
    current = state.current()
    if current is None:
        return None
    options = [o for o in legal_actions(state, current.id) if o.available]
    non_end = [o for o in options if o.kind != "end_turn"]
    if not non_end or rng.random() < end_turn_weight:
        return Action("end_turn", current.id)
    opt = rng.choice(non_end)
    targets = [rng.choice(opt.targets)] if opt.targets and "status" not in opt.params else None
    square = list(rng.choice(opt.squares)) if opt.squares else None
    return Action(opt.kind, current.id, chosen_params(opt.kind, opt.params, targets, square))
