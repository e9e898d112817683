"""What the log says when the rules answer or act for a monster: one line each, with its reason, in a
player's words (no option keys, no figures of a monster whose numbers are hidden)."""

from __future__ import annotations

from combat.engine.context import rules_for
from combat.engine.events import Event
from combat.engine.log import describe
from combat.engine.testing import Battle
from combat.engine.view import Viewer, event_for, hidden_ids
from combat.import_check import _extra_problem
from tests.engine.luck_duel import ORC, duel

GM = Viewer("gm")
PLAYER = Viewer("player", "7")


def lines(b: Battle, events: list[Event], viewer: Viewer) -> list[str]:
    """The log's lines of ``events`` as ``viewer`` reads them (empty sentences stay out of the log)."""
    names = {cid: c.name for cid, c in b.state.combatants.items()}
    hidden = hidden_ids(b.state, viewer)
    out = []
    for e in events:
        shown = event_for(e, b.state, viewer)
        if shown is not None:
            text = describe(0, e.type, shown["data"], names, hidden)["text"]
            if text:
                out.append(text)
    return out


def test_a_monster_answering_at_once_says_why_and_hides_its_figures():
    # RULE: ENG-6
    b, a, o, _ = duel(orc=dict(ORC, abilities=["recover", "parry"]))
    events = b.act("ability", a, dice=[12, 6, 3], weapon="sword", targets=[o])
    answered = next(e for e in events if e.type == "decision.answered")
    assert (answered.data["by"], answered.data["reason"]) == ("policy", "it softens the blow")
    gm = [t for t in lines(b, events, GM) if "chooses" in t]
    player = [t for t in lines(b, events, PLAYER) if "chooses" in t]
    assert gm == ["Orc chooses Parry (1d6+1): it softens the blow."], gm
    assert player == ["Orc chooses Parry: it softens the blow."], player  # the Orc's HP is hidden


def test_the_tactics_ending_a_monsters_turn_make_one_line():
    # RULE: ENG-7
    b, a, o, _ = duel(orc=dict(ORC, movement=0), orc_pos=(6, 0))
    b.act("end_turn", a)
    assert b.state.current().id == o
    events = b.act("gm.tactics")
    said = [t for t in lines(b, events, PLAYER) if "ends the turn" in t]
    assert said == ["Orc ends the turn: nothing useful within reach."], said
    ended = next(e for e in events if e.type == "turn.ended")
    assert ended.data["explained"] is True and b.state.current().id == a
    b.act("end_turn", a)
    plain = b.act("end_turn", o)  # the GM ends it: the log says so on its own line
    assert "Orc ends the turn." in lines(b, plain, PLAYER)


def test_a_tactics_turn_ends_in_one_line_when_its_end_opens_a_reaction_window(monkeypatch):
    # RULE: ENG-7
    # A ruleset whose end of a turn asks a player something (a window the turn flow waits on): Ash
    # decides whether to watch the Orc go, and the turn ends once she has answered.
    luck = type(rules_for(duel()[0].state))
    own_end, own_resume = luck.on_turn_end, luck.resume

    def on_turn_end(self, ctx, c):
        own_end(self, ctx, c)
        if c.name == "Orc":
            ctx.open_decision(
                "c1",
                "Watch the Orc go?",
                [{"key": "watch", "label": "Watch"}],
                "watch",
                resume={"step": "watch"},
                about="whether to watch the Orc go",
            )

    def resume(self, ctx, decision, choice):
        return None if decision.resume.get("step") == "watch" else own_resume(self, ctx, decision, choice)

    monkeypatch.setattr(luck, "on_turn_end", on_turn_end)
    monkeypatch.setattr(luck, "resume", resume)
    b, a, o, _ = duel(orc=dict(ORC, movement=0), orc_pos=(6, 0))
    b.act("end_turn", a)
    played = b.act("gm.tactics")
    assert b.state.pending is not None and b.state.current().id == o  # the end of the turn waits on Ash
    answered = b.act("answer", a, decision=b.state.pending.id, choice="watch")
    assert b.state.current().id == a
    said = [t for t in lines(b, played + answered, PLAYER) if "ends the turn" in t]
    assert said == ["Orc ends the turn: nothing useful within reach."], said
    flow = next(e for e in played if e.type == "battle.extra" and (e.data["set"].get("flow") or {}).get("at"))
    assert flow.data["set"]["flow"] == {"at": "turn_end", "index": 1, "explained": True}
    assert _extra_problem({"flow": flow.data["set"]["flow"]}) is None  # an export of it imports again
