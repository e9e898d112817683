"""Hidden HP is decided once, in the engine's view and event filter (``combat.engine.view``).

With ``hide_enemy_hp`` a player or observer gets, about an enemy: a coarse
state and that state's fixed bar, the attacker's own attack dice, and no
number that measures the enemy (HP, damage taken, damage and healing dice,
defence, evasion, override amounts, status power and duration, dice the
hidden side rolls on itself). The GM gets everything; with the option off,
players do too.
"""

from __future__ import annotations

from combat.engine.testing import Battle
from combat.engine.view import (
    COARSE_BAR,
    Viewer,
    coarse_state,
    event_for,
    filter_event,
    hidden_ids,
    view_for,
)
from tests.engine.luck_duel import duel

PLAYER = Viewer("player", "7")


def _numbers(value, path=""):
    """Every (path, number) inside an event's data (bools are words, not numbers)."""
    if isinstance(value, bool):
        return []
    if isinstance(value, int | float):
        return [(path, value)]
    if isinstance(value, dict):
        return [n for k, v in value.items() for n in _numbers(v, f"{path}.{k}")]
    if isinstance(value, list):
        return [n for i, v in enumerate(value) for n in _numbers(v, f"{path}[{i}]")]
    return []


def test_coarse_states_and_their_fixed_bars():
    assert [coarse_state(hp, 30) for hp in (30, 29, 15, 14, 1, 0, -3)] == [
        "unhurt",
        "wounded",
        "wounded",
        "bloodied",
        "bloodied",
        "down",
        "down",
    ]
    b, a, o, _ = duel()
    for hp in (20, 17, 9, 1):
        b.act("gm.set_hp", combatant=o, hp=hp)
        seen = view_for(b.state, PLAYER)["combatants"][o]
        assert seen["hp"] is None and seen["max_hp"] is None
        assert seen["hp_ratio"] == COARSE_BAR[seen["hp_bucket"]]
        assert view_for(b.state, Viewer("gm"))["combatants"][o]["hp"] == hp


def test_whose_numbers_are_hidden():
    b, a, o, _ = duel()
    assert hidden_ids(b.state, PLAYER) == {o}
    assert hidden_ids(b.state, Viewer("observer")) == {o}
    assert hidden_ids(b.state, Viewer("gm")) == frozenset()
    shown, a2, o2, _ = duel({"hide_enemy_hp": False})
    assert hidden_ids(shown.state, PLAYER) == frozenset()


def test_a_whole_duel_leaks_no_number_about_the_enemy_to_a_player():
    b, a, o, _ = duel()
    events = []
    events += b.act("ability", a, dice=[15, 6], weapon="sword", targets=[o])
    events += b.act("gm.set_hp", combatant=o, hp=11)
    events += b.act("gm.add_status", combatant=o, status="slow", power=4, duration=3)
    events += b.act("gm.set_resource", combatant=o, resource="actions", value=2)
    b.act("end_turn", a)
    events += b.act("end_turn", o)
    events += b.act("ability", a, dice=[12, 5], weapon="sword", targets=[o])
    about_enemy = 0
    rolled: list[int] = []  # the totals of the damage rolls the player sees, in order
    for event in events:
        mine = event_for(event, b.state, PLAYER)["data"]
        full = event_for(event, b.state, Viewer("gm"))["data"]
        assert full == event.data
        subject = event.data.get("target") or event.data.get("combatant")
        if subject != o:
            continue
        about_enemy += 1
        for path, _ in _numbers(mine):
            # Only the attacker's own dice stay: the luck roll and its faces, the damage they rolled.
            assert path in (".total", ".roll", ".raw") or path.startswith(".rolls["), (event.type, path, mine)
        rolled += [r.get("result", r["total"]) for r in mine.get("rolls", []) if r["purpose"] == "damage"]
        if "raw" in mine:  # "Ayla rolls 7 damage.": the total of her own roll, shown beside it
            assert mine["actor"] == a and rolled[-1:] == [mine["raw"]], (event.type, mine, rolled)
        for roll in mine.get("rolls", []):  # dice the hidden side rolled on itself are not shown
            assert roll["purpose"] not in ("damage", "healing") or mine.get("actor") == a, (event.type, roll)
    assert about_enemy >= 5


def test_the_filter_speaks_every_rulesets_field_names():
    hidden = {"e1"}
    mist_attack = {"source": "p1", "target": "e1", "roll": 41, "accuracy": 70, "evasion": 12, "hit": True}
    assert filter_event("attack.rolled", mist_attack, hidden) == {
        "source": "p1",
        "target": "e1",
        "roll": 41,
        "hit": True,
    }
    dealt = {
        "actor": "p1",
        "target": "e1",
        "kind": "magical",
        "raw": 9,
        "defense": 2,
        "amount": 7,
        "hp": 13,
        "ko": False,
        "rolls": [
            {"expr": "2d6", "faces": [4, 5], "total": 9, "purpose": "damage"},
            {"expr": "1d20", "faces": [15], "total": 15, "purpose": "luck roll"},
        ],
    }
    out = filter_event("damage.dealt", dealt, hidden)
    # What the hero rolled before the enemy's defences stays beside those dice: their total, nothing more.
    assert _numbers({k: v for k, v in out.items() if k != "rolls"}) == [(".raw", 9)]
    assert "raw" not in filter_event("damage.dealt", {**dealt, "actor": "e2"}, {"e1", "e2"})
    assert [r["purpose"] for r in out["rolls"]] == ["damage", "luck roll"]  # the hero's own dice (ENG-2)
    self_heal = {
        "actor": "e1",
        "target": "e1",
        "amount": 5,
        "hp": 12,
        "rolled": 5,
        "rolls": [{"expr": "1d8", "faces": [5], "total": 5, "purpose": "healing"}],
    }
    # Only whether it changed anything is left (the coarse state tells as much).
    assert filter_event("healed", self_heal, hidden) == {
        "actor": "e1",
        "target": "e1",
        "rolls": [],
        "zero": False,
    }
    status = {"combatant": "e1", "status": "slow", "power": 4, "duration": 3, "value": 9, "defense": 2}
    assert filter_event("status.applied", status, hidden) == {"combatant": "e1", "status": "slow"}
    assert filter_event("hp.set", {"combatant": "e1", "hp": 57, "by": "gm"}, hidden) == {
        "combatant": "e1",
        "by": "gm",
    }
    added = {"combatant": {"id": "e1", "name": "Orc", "side": "enemy", "hp": 30, "max_hp": 30, "sheet": {}}}
    assert filter_event("combatant.added", added, hidden) == {
        "combatant": {"id": "e1", "name": "Orc", "side": "enemy"}
    }
    act = {"combatant": "e1", "hp": 3, "act": {"kind": "gm.set_hp", "params": {"combatant": "e1", "hp": 3}}}
    assert filter_event("hp.set", act, hidden) == {"combatant": "e1", "act": {"kind": "gm.set_hp"}}
    # Untouched: the GM, a visible target, the input itself.
    assert filter_event("damage.dealt", dealt, hidden, gm=True) is dealt
    assert filter_event("damage.dealt", {**dealt, "target": "p2"}, hidden)["amount"] == 7
    assert dealt["amount"] == 7 and len(dealt["rolls"]) == 2


def test_a_status_shows_its_appliers_own_dice_by_today_s_name_and_the_old_ones():
    """``by`` names who applied a status; logs stored before named them ``source``, ``by_id`` or
    ``by_combatant``. The hero's status dice stay visible, the hidden Orc's never; numbers about it go."""
    hidden = {"e1"}
    dice = [{"expr": "1d20", "faces": [9], "total": 9, "purpose": "status"}]
    base = {"combatant": "e1", "status": "slow", "power": 4, "duration": 3, "rolls": dice}
    for name in ("by", "source", "by_id", "by_combatant"):
        seen = filter_event("status.applied", {**base, name: "p1"}, hidden)
        assert seen == {"combatant": "e1", "status": "slow", "rolls": dice, name: "p1"}, name
        unseen = filter_event("status.applied", {**base, name: "e2"}, hidden | {"e2"})
        assert unseen["rolls"] == [], name
    by_gm = filter_event("status.applied", {**base, "by": "gm"}, hidden)
    assert by_gm == {"combatant": "e1", "status": "slow", "rolls": [], "by": "gm"}


def test_a_players_view_of_a_duel_with_the_option_off_shows_numbers():
    b = Battle("luck", {"hide_enemy_hp": False})
    b.add("Ash", "party", (0, 0), controller="7", hp=12, initiative=3)
    o = b.add("Orc", "enemy", (3, 0), hp=10, initiative=1)
    b.act("setup.start", dice=[10, 10])
    b.act("gm.set_hp", combatant=o, hp=4)
    assert view_for(b.state, PLAYER)["combatants"][o]["hp"] == 4
    assert view_for(b.state, PLAYER)["combatants"][o]["hp_ratio"] == 0.4
