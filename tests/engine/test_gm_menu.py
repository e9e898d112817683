"""What the GM's token menu asks of the engine: HP by an amount, hiding a combatant from the players."""

from __future__ import annotations

from combat.engine.actions import Refusal
from combat.engine.core import view_for
from combat.engine.log import describe
from combat.engine.testing import Battle
from combat.engine.view import Viewer, event_for, unseen_ids


def _duel():
    b = Battle("luck")
    a = b.add("Ash", "party", (0, 0), controller="7", hp=12, initiative=3)
    o = b.add("Orc", "enemy", (3, 0), hp=10, initiative=1)
    b.act("setup.start", dice=[10, 10])
    return b, a, o


def test_hp_goes_down_or_up_by_an_amount_and_stays_within_zero_and_the_maximum():
    # RULE: ENG-7
    b, a, o = _duel()
    b.act("gm.set_hp", combatant=o, delta=-3)
    assert b.c(o).hp == 7
    b.act("gm.set_hp", combatant=o, delta=50)
    assert b.c(o).hp == 10
    ev = b.act("gm.set_hp", combatant=o, delta=-99)
    assert (ev[0].type, ev[0].data["hp"], ev[0].data["by"]) == ("hp.set", 0, "gm")
    assert isinstance(b.try_act("gm.set_hp", combatant=a, delta="5"), Refusal)


def test_a_hidden_combatant_is_unknown_to_players_until_the_gm_reveals_it():
    # RULE: ENG-7
    b, a, o = _duel()
    player = Viewer(role="player", user_id="7")
    ev = b.act("gm.hide", combatant=o, hidden=True)
    assert ev[0].type == "combatant.hidden"
    assert unseen_ids(b.state, player) == frozenset({o})
    assert o not in view_for(b.state, player)["combatants"]
    assert o in view_for(b.state, Viewer(role="gm"))["combatants"]
    assert event_for(ev[0], b.state, player) is None  # the hiding itself names it: not shown
    assert b.try_act("gm.hide", combatant=o, hidden=True) == Refusal("Orc is already hidden.")
    shown = b.act("gm.hide", combatant=o, hidden=False)
    assert unseen_ids(b.state, player) == frozenset()
    assert event_for(shown[0], b.state, player) is not None
    assert describe(0, shown[0].type, shown[0].data, {o: "Orc"}, set())["text"] == "The GM reveals Orc."
    assert b.rebuilt().to_dict() == b.state.to_dict()


def test_hiding_needs_a_yes_or_no_and_a_combatant():
    # RULE: ENG-4
    b, a, o = _duel()
    before = b.state.to_dict()
    assert isinstance(b.try_act("gm.hide", combatant=o, hidden="yes"), Refusal)
    assert isinstance(b.try_act("gm.hide", combatant="c99", hidden=True), Refusal)
    assert b.state.to_dict() == before


def test_players_know_nothing_of_the_other_side_before_the_battle_begins():
    b = Battle("luck")
    a = b.add("Ash", "party", (0, 0), controller="7", hp=12, initiative=3)
    o = b.add("Orc", "enemy", (3, 0), hp=10, initiative=1)
    player, watcher = Viewer(role="player", user_id="7"), Viewer(role="observer")
    for viewer in (player, watcher):
        assert unseen_ids(b.state, viewer) == frozenset({o})
        assert list(view_for(b.state, viewer)["combatants"]) == [a]
    assert set(view_for(b.state, Viewer(role="gm"))["combatants"]) == {a, o}
    b.act("setup.start", dice=[10, 10])
    assert unseen_ids(b.state, player) == frozenset() and o in view_for(b.state, player)["combatants"]
    # A battle the GM ends before its start never showed its enemies.
    unstarted = Battle("luck")
    unstarted.add("Ash", "party", (0, 0), controller="7", hp=12)
    orc = unstarted.add("Orc", "enemy", (3, 0), hp=10)
    unstarted.act("gm.end_battle")
    assert unseen_ids(unstarted.state, player) == frozenset({orc})


def test_the_gm_may_not_hide_a_players_character_from_the_players():
    # RULE: ENG-4
    b = Battle("luck")
    a = b.add("Ash", "party", (0, 0), controller="7", hp=12, initiative=3)
    pc = b.add("Bram", "party", (0, 2), kind="pc", hp=12)  # a PC the GM runs while its player is away
    guide = b.add("Guide", "party", (0, 4), kind="npc", hp=12)
    o = b.add("Orc", "enemy", (3, 0), hp=10, initiative=1)
    before = b.state.to_dict()
    for cid in (a, pc):
        refusal = b.try_act("gm.hide", combatant=cid, hidden=True)
        assert isinstance(refusal, Refusal), refusal
        assert (
            refusal.reason
            == f"{b.c(cid).name} is a player's character: it cannot be hidden from the players."
        )
    assert b.state.to_dict() == before
    # An NPC ally and a monster may be hidden.
    assert b.act("gm.hide", combatant=guide, hidden=True)[0].type == "combatant.hidden"
    assert b.act("gm.hide", combatant=o, hidden=True)[0].type == "combatant.hidden"
