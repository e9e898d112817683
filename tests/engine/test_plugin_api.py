"""A toy ruleset written only against rulesets/base.py: the core runs it unchanged.

It has rows instead of a grid, a per-turn AP pool that ends the turn when spent,
a reaction window opened by a round-end hook (like a phase where players choose),
and a defensive reaction declared before the attack roll (like a dodge).
"""

from __future__ import annotations

import pytest

from combat.engine.actions import ActionOption, Refusal
from combat.engine.rulesets import RULESETS
from combat.engine.rulesets.base import Ruleset
from combat.engine.schema import Field, SheetSchema
from tests.engine.helpers import Battle


class Toy(Ruleset):
    key = "toy"
    name = "Toy rows"
    board = "rows"
    sheet_schema = SheetSchema((Field("hp", "HP", default=10, min=1), Field("ap", "AP", default=2, min=1)))
    actions = {"hit": "act_hit", "shift": "act_shift", "brood": "act_brood"}

    def act_brood(self, ctx, c, action):
        r = ctx.roll("1d20", "insanity")
        return ctx.open_decision(c.id, f"{c.name} rolled {r.total} on an insanity roll: what happens?",
                                 [{"key": "calm", "label": "Nothing"}, {"key": "panic", "label": "Panic"}], "calm",
                                 resume={"brood": True}, gm_only=True)

    def init_combatant(self, sheet):
        return {"hp": sheet["hp"], "max_hp": sheet["hp"], "resources": {"ap": sheet["ap"]}, "extra": {}}

    def on_turn_start(self, ctx, c):
        ctx.emit("resources.set", combatant=c.id, resources={"ap": c.sheet["ap"]})

    def on_round_end(self, ctx):
        first = next(c for c in ctx.state.combatants.values() if c.side == "party")
        ctx.open_decision(first.id, "Advance to the front row?", [{"key": "yes", "label": "Advance"},
                                                                  {"key": "no", "label": "Stay"}], "no")

    def act_shift(self, ctx, c, action):
        if c.resources["ap"] < 1:
            return Refusal("No AP left.")
        ctx.emit("row.changed", combatant=c.id, row="back" if c.row == "front" else "front", actor=c.id,
                 spend={"ap": 1})
        if ctx.state.combatants[c.id].resources["ap"] == 0:
            ctx.end_turn()
        return None

    def act_hit(self, ctx, c, action):
        target = ctx.state.combatants.get(action.params.get("target"))
        if target is None or target.side == c.side:
            return Refusal("Choose an enemy.")
        ctx.emit("attack.declared", actor=c.id, target=target.id, spend={"ap": 1})
        return ctx.open_decision(target.id, "Dodge?", [{"key": "dodge", "label": "Dodge"},
                                                        {"key": "take", "label": "Take it"}], "dodge",
                                 resume={"actor": c.id, "target": target.id})

    def resume(self, ctx, decision, choice):
        if decision.resume.get("brood"):
            return None
        if "target" not in decision.resume:  # the round-end question
            if choice == "yes":
                ctx.emit("row.changed", combatant=decision.combatant, row="front")
            return None
        t = ctx.state.combatants[decision.resume["target"]]
        evasion = 8 if choice == "dodge" else 4
        roll = ctx.roll("2d6", "to hit")
        if roll.total >= evasion:
            hp = max(0, t.hp - 3)
            ctx.emit("damage.dealt", target=t.id, amount=3, hp=hp, ko=hp <= 0)
        else:
            ctx.emit("attack.missed", target=t.id)
        if ctx.state.current() and ctx.state.current().resources["ap"] == 0 and ctx.state.pending is None:
            ctx.end_turn()
        return None

    def legal_actions(self, state, c):
        return [ActionOption("shift", "Change row", {"ap": 1}, available=c.resources["ap"] > 0,
                             reason="" if c.resources["ap"] > 0 else "No AP left.")]

    def on_battle_start(self, ctx):
        ids = list(ctx.state.combatants)
        ctx.emit("order.set", order=ids[::-1])


@pytest.fixture
def toy(monkeypatch):
    monkeypatch.setitem(RULESETS, "toy", Toy)
    b = Battle("toy")
    p = b.add("Pia", "party", controller="3", row="back")
    q = b.add("Quo", "enemy", row="front", kind="monster")
    b.act("setup.start")
    return b, p, q


def test_a_new_ruleset_plugs_in_without_touching_the_core(toy):
    # RULE: ENG-6
    b, p, q = toy
    assert b.state.order == [q, p] and b.c(p).row == "back"
    b.act("shift", q)
    ev = b.act("shift", q)  # AP spent: the ruleset ends the turn itself
    assert "turn.ended" in b.types(ev) and b.state.current().id == p
    ev = b.act("hit", p, dice=[5, 4], target=q)  # the monster dodges by policy: 9 >= 8 still hits
    assert b.types(ev)[:3] == ["attack.declared", "decision.opened", "decision.answered"]
    assert b.c(q).hp == 7


def test_a_hook_may_pause_the_round_flow_for_a_decision(toy):
    # RULE: ENG-6
    b, p, q = toy
    b.act("end_turn", q)
    ev = b.act("end_turn", p)  # end of round: the hook asks Pia (a player) whether to advance
    assert b.types(ev)[-2:] == ["decision.opened", "battle.extra"]
    assert b.state.pending.prompt == "Advance to the front row?" and b.state.round == 1
    assert b.try_act("end_turn", p).reason.startswith("Waiting for Pia to answer")
    ev = b.act("answer", p, choice="yes")
    assert b.types(ev) == ["decision.answered", "row.changed", "battle.extra", "round.ended", "round.started",
                           "turn.started", "resources.set"]
    assert b.c(p).row == "front"
    assert (b.state.round, b.state.current().id, b.state.extra["flow"]) == (2, q, None)
    assert b.rebuilt().to_dict() == b.state.to_dict()


def test_a_player_reaction_before_the_roll(toy):
    # RULE: ENG-6
    b, p, q = toy
    b.act("end_turn", q)
    b.act("hit", p, dice=[2, 2], target=q)  # monster dodged: 4 < 8 misses
    assert b.c(q).hp == 10
    b.act("end_turn", p)
    b.act("answer", p, choice="no")
    b.act("hit", q, target=p)
    assert b.state.pending.controller == "3"
    b.act("answer", p, dice=[2, 2], choice="take")  # 4 >= 4 hits
    assert b.c(p).hp == 7


def test_a_gm_only_prompt_is_answered_by_the_gm_alone(toy):
    # RULE: ENG-6
    from combat.engine.core import legal_actions, view_for
    from combat.engine.view import Viewer

    b, p, q = toy
    b.act("end_turn", q)
    b.act("brood", p, dice=[17])
    assert b.state.pending.gm_only and b.state.pending.controller is None
    assert legal_actions(b.state, p) == []
    assert view_for(b.state, Viewer("player", "3"))["pending"]["options"] == []
    assert b.try_act("answer", p, choice="panic") == Refusal("Only the GM answers this.")
    ev = b.act("answer", None, choice="panic")
    assert ev[0].data["by"] == "gm" and b.state.pending is None
