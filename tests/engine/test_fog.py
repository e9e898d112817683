"""Fog of war (``combat.engine.fog``): the GM's fog events, and what a player may see of a combatant in fog.

A GM change to the fog is an event in the log (ENG-7), undone like the others (ENG-8) and rebuilt
by replay (ENG-1). A player or observer sees the revealed squares only, and nothing of a combatant
standing in fog that is not on their side: decided in the engine's view, like hidden HP.
"""

from __future__ import annotations

import json
import random

import pytest

from combat.engine import fog
from combat.engine.core import legal_actions, replay, undo_cut
from combat.engine.rulesets import RULESETS
from combat.engine.testing import Battle
from combat.engine.view import Viewer, event_for, unseen_ids, view_for
from tests.engine.luck_duel import ASH, ORC
from tests.engine.properties import random_battle

PLAYER, OBSERVER, GM = Viewer("player", "7"), Viewer("observer"), Viewer("gm")


def scene():
    """Ash (party, user 7) at (0,0); an Orc at (5,0) and a Goblin at (7,5), both enemies, started."""
    b = Battle("luck", width=10, height=8)
    ash = b.add("Ash", "party", (0, 0), controller="7", **ASH)
    orc = b.add("Orc", "enemy", (5, 0), **ORC)
    gob = b.add("Gobbo Skulk", "enemy", (7, 5), **ORC)
    b.act("setup.start", dice=[15, 1, 2])
    return b, ash, orc, gob


def test_the_gm_covers_reveals_hides_and_lifts_the_fog():  # RULE: ENG-7
    b, ash, orc, gob = scene()
    b.act("gm.fog", mode="on")
    assert b.state.extra["fog"] == ["#" * 10] * 8
    b.act("gm.fog", mode="reveal", rects=[[0, 0, 5, 1]])
    assert b.state.extra["fog"][0] == "......####" and b.state.extra["fog"][2] == "#" * 10
    b.act("gm.fog", mode="hide", rects=[[5, 1, 4, 0]])  # corners in any order
    assert b.state.extra["fog"][:2] == ["....######", "....######"]
    b.act("gm.fog", mode="off")
    assert "fog" not in b.state.extra
    assert b.rebuilt() == b.state  # RULE: ENG-1


def test_the_gm_hides_an_area_of_a_bare_map_and_reveals_it_again():  # RULE: ENG-7
    b, ash, orc, gob = scene()
    assert "fog" not in b.state.extra
    b.act("gm.fog", mode="hide", rects=[[6, 4, 8, 6]])  # a rectangle around Gobbo (7, 5), nothing else
    assert b.state.extra["fog"][5] == "......###." and b.state.extra["fog"][0] == "." * 10
    assert sorted(fog.unseen(b.state, None)) == [gob]
    # A brush stroke: runs of squares along rows.
    b.act("gm.fog", mode="hide", rects=[[0, 0, 2, 0], [1, 1, 3, 1]])
    assert b.state.extra["fog"][:2] == ["###.......", ".###......"]
    b.act("gm.fog", mode="reveal", rects=[[7, 5, 7, 5]])
    assert fog.unseen(b.state, None) == frozenset()
    assert (
        b.try_act("gm.fog", mode="reveal", rects=[[7, 5, 7, 5]]).reason
        == "Those squares are already revealed."
    )
    assert b.rebuilt() == b.state  # RULE: ENG-1


@pytest.mark.parametrize(
    ("params", "why"),
    [
        (
            {"mode": "reveal", "rects": [[0, 0, 1, 1]]},
            "Nothing is in fog: the players see the whole map. Hide an area first.",
        ),
        ({"mode": "off"}, "There is no fog to lift."),
        ({"mode": "fill"}, "Cover, lift, reveal or hide the fog."),
    ],
)
def test_fog_changes_that_cannot_be_made_say_why(params, why):  # RULE: ENG-4
    b, *_ = scene()
    assert b.try_act("gm.fog", **params).reason == why


@pytest.mark.parametrize(
    ("rects", "why"),
    [
        ([], "Choose 1 to 400 areas of the map."),
        ([[0, 0, 10, 0]], "That area is not on the board."),
        ([[0, 0, 1]], "That area is not on the board."),
        ([[0, 0, "1", 1]], "That area is not on the board."),
        ([[0, 0, 0, 0]] * 401, "Choose 1 to 400 areas of the map."),
        ("0,0,1,1", "Choose 1 to 400 areas of the map."),
    ],
)
def test_bad_fog_areas_are_refused_and_change_nothing(rects, why):  # RULE: ENG-4
    b, *_ = scene()
    b.act("gm.fog", mode="on")
    before = json.dumps(b.state.to_dict())
    assert b.try_act("gm.fog", mode="reveal", rects=rects).reason == why
    assert json.dumps(b.state.to_dict()) == before
    assert b.try_act("gm.fog", mode="on").reason == "The whole map is already in fog."
    assert (
        b.try_act("gm.fog", mode="hide", rects=[[1, 1, 2, 2]]).reason == "Those squares are already in fog."
    )


def test_fog_is_for_grid_boards():
    b = Battle("paradigm")
    assert b.try_act("gm.fog", mode="on").reason == "Fog of war needs a board of squares."


def test_a_fog_change_is_undone_like_any_gm_action():  # RULE: ENG-8
    b, *_ = scene()
    b.act("gm.fog", mode="on")
    covered = b.state.to_dict()
    b.act("gm.fog", mode="reveal", rects=[[0, 0, 3, 3]])
    cut = undo_cut(b.log)
    assert replay(b.log[:cut]).to_dict() == covered


def test_a_combatant_in_fog_is_not_in_a_players_view_at_all():
    b, ash, orc, gob = scene()
    b.act("gm.fog", mode="on")
    b.act("gm.fog", mode="reveal", rects=[[0, 0, 5, 1]])  # Ash and the Orc in the light, the Goblin not
    for viewer in (PLAYER, OBSERVER):
        seen = view_for(b.state, viewer)
        assert set(seen["combatants"]) == {ash, orc}
        assert gob not in seen["order"] and gob not in json.dumps(seen)
        assert "Gobbo" not in json.dumps(seen) and "[7, 5]" not in json.dumps(seen)
        assert seen["fog"][5][7] == "#"
    assert set(view_for(b.state, GM)["combatants"]) == {ash, orc, gob}
    # Ash, on the player's side, is seen even in fog; the Goblin appears once its square is revealed.
    b.act("gm.fog", mode="hide", rects=[[0, 0, 0, 0]])
    assert ash in view_for(b.state, PLAYER)["combatants"] and ash in view_for(b.state, OBSERVER)["combatants"]
    b.act("gm.fog", mode="reveal", rects=[[7, 5, 7, 5]])
    seen = view_for(b.state, PLAYER)
    assert gob in seen["combatants"] and seen["combatants"][gob]["pos"] == [7, 5] and gob in seen["order"]


def test_whose_turn_a_reaction_and_blocked_squares_in_fog():
    b = Battle("luck", width=10, height=8, blocked=[(9, 7), (1, 1)])
    ash = b.add("Ash", "party", (0, 0), controller="7", **ASH)
    orc = b.add("Orc", "enemy", (5, 0), **ORC)
    b.act("setup.start", dice=[1, 15])  # the Orc acts first
    b.act("gm.fog", mode="on")
    b.act("gm.fog", mode="reveal", rects=[[0, 0, 2, 2]])
    seen = view_for(b.state, PLAYER)
    assert seen["current"] is None and seen["order"] == [ash]
    assert seen["blocked"] == [[1, 1]] and view_for(b.state, GM)["blocked"] == [[9, 7], [1, 1]]
    assert unseen_ids(b.state, PLAYER) == {orc} and unseen_ids(b.state, GM) == frozenset()


def test_the_log_drops_what_happens_in_the_fog_and_a_reveal_does_not_replay_it():
    b, ash, orc, gob = scene()
    b.act("gm.fog", mode="on")
    b.act("gm.fog", mode="reveal", rects=[[0, 0, 5, 1]])
    events = b.act("gm.set_hp", combatant=gob, hp=3) + b.act("gm.set_hp", combatant=orc, hp=5)
    hurt = len(b.log) - 1  # the seq of the Goblin's HP change
    assert event_for(events[0], b.state, PLAYER, hurt) is None
    assert event_for(events[1], b.state, PLAYER, hurt + 1)["data"]["combatant"] == orc
    assert event_for(events[0], b.state, GM, hurt)["data"]["combatant"] == gob
    # The order of turns, told before the fog came, named every one; told now it drops the one in fog.
    at = [e.type for e in b.log].index("order.set")
    order = b.log[at]
    assert event_for(order, b.state, PLAYER, at + 1)["data"]["order"] == order.data["order"]
    assert event_for(order, b.state, PLAYER)["data"]["order"] == [x for x in order.data["order"] if x != gob]
    # Revealed: the Goblin is seen from then on; what it went through in the fog stays untold.
    reveal = b.act("gm.fog", mode="reveal", rects=[[7, 5, 7, 5]])
    assert event_for(events[0], b.state, PLAYER, hurt) is None
    assert event_for(reveal[0], b.state, PLAYER, len(b.log)) is not None
    assert event_for(events[0], b.state, PLAYER)["data"]["combatant"] == gob  # as if told now


def test_scrub_drops_an_event_naming_one_and_trims_lists():
    ids = frozenset({"c3"})
    assert fog.scrub({"actor": "c3", "rolls": []}, ids) is None
    assert fog.scrub({"actor": "c1", "targets": ["c2", "c3"]}, ids) == {"actor": "c1", "targets": ["c2"]}
    assert fog.scrub({"combatant": {"id": "c3", "name": "Orc"}}, ids) is None
    assert fog.scrub({"results": {"c3": 4, "c1": 2}}, ids) == {"results": {"c1": 2}}
    assert fog.unnamed("Gobbo Skulk strikes Ash: parry Gobbo?", ["Gobbo Skulk", "Gobbo"]) == (
        "someone unseen strikes Ash: parry someone unseen?"
    )


def test_a_players_options_name_nobody_in_the_fog():  # RULE: ENG-5
    b, ash, orc, gob = scene()
    b.act("gm.fog", mode="on")
    b.act("gm.fog", mode="reveal", rects=[[0, 0, 6, 1]])
    b.act("gm.move", combatant=orc, to=[2, 3])  # into the fog, within Fire Bolt's range
    real = legal_actions(b.state, ash)
    assert any(orc in o.targets for o in real)
    offered = legal_actions(fog.without(b.state, unseen_ids(b.state, PLAYER)), ash)
    assert offered and not any(orc in o.targets or gob in o.targets for o in offered)
    # Nor where it stands: the square is offered for a move as if empty (the engine refuses it when tried).
    move = next(o for o in offered if o.kind == "move")
    assert (2, 3) in {tuple(sq) for sq in move.squares}
    assert (2, 3) not in {tuple(sq) for o in real if o.kind == "move" for sq in o.squares}


@pytest.mark.parametrize("ruleset", sorted(k for k, r in RULESETS.items() if r.board == "grid"))
def test_random_battles_with_random_fog_never_show_the_unseen(ruleset):  # RULE: ENG-5
    rng = random.Random(26)
    checked = 0

    def seen(state, action, out):
        nonlocal checked
        current = state.current()
        if current is None or rng.random() > 0.3:
            return
        fogged = state.clone()
        fog.apply_fog(fogged, {"mode": "on"})
        for _ in range(3):
            x, y = rng.randrange(fogged.width), rng.randrange(fogged.height)
            rect = [x, y, min(fogged.width - 1, x + 3), min(fogged.height - 1, y + 2)]
            fog.apply_fog(fogged, {"mode": "reveal", "rects": [rect]})
        viewer = Viewer("player", "7")
        hidden = unseen_ids(fogged, viewer)
        shown = json.dumps(view_for(fogged, viewer))
        offered = json.dumps([o.to_dict() for o in legal_actions(fog.without(fogged, hidden), current.id)])
        for gone in hidden:
            assert f'"{gone}"' not in shown and f'"{gone}"' not in offered
            assert json.dumps(fogged.combatants[gone].name) not in shown
        checked += 1

    random_battle(ruleset, rng.randrange(2**31), seen, steps=60)
    assert checked > 5
