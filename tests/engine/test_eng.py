"""Shared engine rules (ENG-*) exercised through D20 Luck battles, with worked numbers."""

from __future__ import annotations

import pytest

from combat.engine.actions import Action, ActionOption, Refusal
from combat.engine.board import area, chebyshev, find_path, manhattan, reachable, within
from combat.engine.core import decide, legal_actions, new_battle_event
from combat.engine.dice import Dice, DiceError, DiceExhausted, Roll, ScriptedDice
from combat.engine.rulesets.luck import MONSTERS, Luck
from combat.engine.rulesets.luck.content import HEROES, STARTER, validate_luck_content
from combat.engine.testing import Battle
from tests.engine.luck_duel import ASH, ORC, duel

# --- dice --------------------------------------------------------------------------------------


def test_every_die_rolled_is_recorded_in_the_event_that_used_it():
    # RULE: ENG-2
    b, a, o, _ = duel()
    dice = Dice(42, b.state.seq)
    events = decide(b.state, Action("ability", a, {"weapon": "sword", "targets": [o]}), dice)
    recorded = [r for e in events for r in e.rolls]
    assert recorded == [r.to_dict() for r in dice.history]
    assert [r["purpose"] for r in recorded][0] == "luck roll"
    scripted = ScriptedDice([20, 3, 5])
    events = decide(b.state, Action("ability", a, {"weapon": "sword", "targets": [o]}), scripted)
    damage = next(e for e in events if e.type == "damage.rolled")
    sword = {"adds": [{"value": 1, "from": "Sword"}]}  # the whole roll: the dice and the Sword's +1
    assert damage.rolls == [
        {"expr": "1d8", "faces": [3], "total": 3, "purpose": "damage", **sword, "result": 4},
        {"expr": "1d8", "faces": [5], "total": 5, "purpose": "damage", **sword, "result": 6},
    ]
    luck = next(e for e in events if e.type == "luck.rolled")
    assert luck.rolls == [{"expr": "1d20", "faces": [20], "total": 20, "purpose": "luck roll"}]


def test_roll_records_expression_faces_total_purpose():
    # RULE: ENG-2
    r = ScriptedDice([6, 2, 5, 1]).roll("4d6kh3+1", "stat")
    assert r == Roll("4d6kh3+1", [6, 2, 5, 1], 14, "stat")
    assert Roll.from_dict(r.to_dict()) == r


def test_seeded_dice_are_deterministic_and_scripted_dice_strict():
    # RULE: ENG-3
    first = [Dice(7, 3).roll("3d6", "x").faces for _ in range(3)]
    assert first[0] == first[1] == first[2]
    a, b = Dice(7, 3), Dice(7, 3)
    assert [a.roll("1d20", "").total for _ in range(20)] == [b.roll("1d20", "").total for _ in range(20)]
    by_salt = [Dice(7, salt).roll("10d20", "").faces for salt in range(3)]
    assert len({tuple(f) for f in by_salt}) == 3  # each action's dice differ
    assert ScriptedDice([4, 6]).roll("2d6+1", "damage").total == 11
    with pytest.raises(DiceExhausted):
        ScriptedDice([3]).roll("2d6", "x")
    with pytest.raises(DiceError):
        ScriptedDice([7]).roll("1d6", "x")
    with pytest.raises(DiceError):
        Dice(1).roll("2d", "x")


def test_battles_with_the_same_seed_and_actions_are_identical():
    # RULE: ENG-3
    # RULE: ENG-1
    def play(seed):
        b, a, o, _ = duel()
        for salt in range(3):
            events = decide(
                b.state,
                Action(
                    "ability",
                    a if salt < 2 else o,
                    {
                        "weapon": "sword" if salt < 2 else "claws",
                        "targets": [o if salt < 2 else a],
                    },
                ),
                Dice(seed, b.state.seq),
            )
            if salt == 1:
                events += decide(b.state, Action("end_turn", a), Dice(seed, 0))
            b.log.extend(events)
            b.state = b.rebuilt()
        return [e.to_dict() for e in b.log]

    assert play(5) == play(5)
    assert play(5) != play(6)


# --- refusals ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kind", "actor", "params", "reason"),
    [
        (
            "ability",
            "c1",
            {"weapon": "bow", "targets": ["c9"]},
            "Not a valid target for that ability.",
        ),
        (
            "ability",
            "c1",
            {"weapon": "sword", "targets": ["c1"]},
            "Not a valid target for that ability.",
        ),
        ("ability", "c1", {"ability": "mend", "targets": ["c2"]}, "Not a valid target for that ability."),
        ("ability", "c1", {"ability": "fireball", "targets": ["c2"]}, "Ash has no such ability."),
        ("ability", "c1", {"ability": "parry"}, "Parry is only used as a reaction to another's action."),
        (
            "ability",
            "c1",
            {"weapon": "sword", "targets": "c2,c2"},
            "Not a valid target for that ability.",
        ),
        ("ability", "c1", {"weapon": "sword", "targets": ["c2", "c2"]}, "Choose one target."),
        ("ability", "c1", {"ability": "flame_burst", "square": [9, 7]}, "That square is out of range."),
        (
            "ability",
            "c1",
            {"ability": "flame_burst", "square": "here"},
            "Choose a square on the board for the area.",
        ),
        (
            "ability",
            "c1",
            {"ability": "recover", "status": "stun"},
            "Choose one of your statuses to recover from.",
        ),
        (
            "ability",
            "c1",
            {"weapon": "sword", "targets": ["c2"], "to": [1, 0]},
            "The free step must go to a free neighbouring square.",
        ),
        ("move", "c1", {"to": [1, 0]}, "No path of at most 5 squares to there."),
        ("move", "c1", {"to": "far"}, "That square is not on the board."),
        ("move", "c1", {"path": [[0, 1], [5, 5]]}, "Each step must go to a neighbouring square."),
        ("move", "c1", {"to": [0, 0]}, "Choose a square to move to."),
        ("end_turn", "c2", {}, "It is not Orc's turn (it is Ash's)."),
        ("answer", "c1", {"choice": "parry"}, "There is nothing to answer."),
        ("setup.start", None, {}, "The battle has already started."),
        ("gm.set_hp", None, {"combatant": "c1", "hp": "lots"}, "HP must be a whole number from 0 to 20."),
        (
            "gm.add_status",
            None,
            {"combatant": "c1", "status": "on_fire"},
            "Unknown status. Known: blind, disarm, silence, sleep, slow, stun.",
        ),
        ("gm.move", None, {"combatant": "c1", "to": [1, 0]}, "Orc already stands there."),
        ("gm.remove_status", None, {"combatant": "c1", "status": "stun"}, "Ash does not have that status."),
        (
            "gm.set_resource",
            None,
            {"combatant": "c9", "resource": "actions", "value": 1},
            "No such combatant.",
        ),
    ],
)
def test_illegal_actions_are_refused_with_a_reason_and_change_nothing(kind, actor, params, reason):
    # RULE: ENG-4
    b, a, o, _ = duel(orc_pos=(1, 0))
    before = b.state.to_dict()
    n = len(b.log)
    assert b.try_act(kind, actor, **params) == Refusal(reason)
    assert b.state.to_dict() == before and len(b.log) == n


def test_out_of_range_unaffordable_and_setup_errors_are_refused():
    # RULE: ENG-4
    b, a, o, _ = duel(orc_pos=(8, 7))
    assert b.try_act("ability", a, weapon="sword", targets=[o]) == Refusal("Orc is out of range.")
    b.act("ability", a, dice=[1], weapon="bow", targets=[o])
    b.act("ability", a, dice=[1], weapon="bow", targets=[o])
    assert b.try_act("ability", a, weapon="bow", targets=[o]) == Refusal("No actions left.")
    s = Battle("luck")
    assert s.try_act("setup.add_combatant", name="", sheet={}) == Refusal(
        "Give the combatant a name (at most 80 characters)."
    )
    assert s.try_act("setup.add_combatant", name="X", sheet={"hp": 0}) == Refusal(
        "Invalid sheet: hp: Must be at least 1."
    )
    assert s.try_act("setup.add_combatant", name="X", sheet={"abilities": ["nope"]}) == Refusal(
        "Unknown abilities: nope."
    )
    assert s.try_act("setup.add_combatant", name="X", side="middle") == Refusal(
        "Side must be party or enemy."
    )
    assert s.try_act("setup.add_combatant", name="X", pos=[99, 0]) == Refusal(
        "That square is not on the board."
    )
    assert s.try_act("setup.start") == Refusal("A battle needs combatants on both sides.")
    s.add("A", pos=(0, 0))
    s.add("B", "enemy")
    assert s.try_act("setup.start") == Refusal("Place every combatant on the board before starting.")
    assert s.try_act("end_turn", "c1") == Refusal("The battle has not started yet.")
    assert isinstance(Action.from_dict({"kind": "move", "params": {"x": object()}}), Refusal)
    assert Action.from_dict("nonsense") == Refusal("Malformed action.")


# --- legal actions ------------------------------------------------------------------------------------


def test_legal_actions_list_cost_targets_squares_and_greyed_reasons():
    # RULE: ENG-5
    b, a, o, _ = duel(orc_pos=(3, 0))
    opts = {o_.label: o_ for o_ in legal_actions(b.state, a)}
    assert (
        opts["Move"].cost == {"actions": 1}
        and [5, 5] in opts["Move"].squares
        and [3, 0] not in opts["Move"].squares
    )
    assert opts["Bow"].targets == [o] and opts["Bow"].params == {"weapon": "bow"}
    assert (opts["Sword"].available, opts["Sword"].reason) == (False, "No target in range.")
    assert (opts["Recover"].available, opts["Recover"].reason) == (False, "No status to recover from.")
    # a heal at full HP would do nothing: offered greyed, with why
    assert (opts["Mend"].available, opts["Mend"].reason, opts["Mend"].targets) == (
        False,
        "Everyone in reach is at full HP.",
        [],
    )
    assert [2, 0] in opts["Flame Burst"].squares and opts["Flame Burst"].cost == {"actions": 2}
    assert "Parry" not in opts and opts["End turn"].available
    assert isinstance(opts["Bow"], ActionOption) and opts["Bow"].to_dict()["targets"] == [o]
    b.act("gm.add_status", combatant=a, status="silence", power=1, duration=1)
    opts = {o_.label: o_ for o_ in legal_actions(b.state, a)}
    assert (opts["Fire Bolt"].available, opts["Fire Bolt"].reason) == (False, "Silence: cannot cast spells.")
    b.act("ability", a, dice=[2, 2], item="healing_potion", targets=[a])
    opts = {o_.label: o_ for o_ in legal_actions(b.state, a)}
    assert opts["Healing Potion (x0)"].reason == "No Healing Potion left."
    assert legal_actions(b.state, o) == []


def test_every_legal_option_is_accepted():
    # RULE: ENG-5
    b, a, o, _ = duel(orc_pos=(2, 1))
    for opt in legal_actions(b.state, a):
        if not opt.available:
            continue
        params = dict(opt.params)
        if opt.kind == "move":
            params["to"] = opt.squares[0]
        elif opt.targets and "status" not in params:
            params["targets"] = [opt.targets[0]]
        elif opt.squares:
            params["square"] = opt.squares[0]
        out = decide(b.state, Action(opt.kind, a, params), Dice(3, 1))
        assert not isinstance(out, Refusal), (opt, out)


# --- reaction windows -------------------------------------------------------------------------------------


def test_gm_can_answer_a_players_reaction_window():
    # RULE: ENG-6
    b, a, o, _ = duel()
    b.act("end_turn", a)
    b.act("ability", o, dice=[10, 2, 2], weapon="claws", targets=[a])  # 2+2+1 = 5 raw
    assert b.state.pending.controller == "7"
    ev = b.act("answer", None, choice="pass")
    answered = ev[0].data
    assert (answered["choice"], answered["by"]) == ("pass", "gm")
    assert b.c(a).hp == 20 - (5 - 1)
    assert b.state.pending is None and b.rebuilt().to_dict() == b.state.to_dict()
    assert b.try_act("answer", a, choice="pass") == Refusal("There is nothing to answer.")


def test_stale_or_invalid_answers_are_refused():
    # RULE: ENG-6
    b, a, o, _ = duel()
    b.act("end_turn", a)
    b.act("ability", o, dice=[10, 2, 2], weapon="claws", targets=[a])
    assert b.try_act("answer", a, decision="d1", choice="pass") == Refusal(
        "That question has already been answered."
    )
    assert b.try_act("answer", a, choice="dodge") == Refusal("Choose one of: parry, pass.")
    assert b.try_act("gm.skip_turn") == Refusal("Answer the pending reaction first.")


# --- content as data ------------------------------------------------------------------------------------


def test_content_definitions_are_validated_with_clear_errors():
    # RULE: ENG-10
    clean, errors = validate_luck_content(
        {
            "abilities": {
                "zap": {"name": "Zap", "type": "magical", "dice": "2d6", "range": 99},
                "hex": {"name": "Hex", "type": "status", "status": "curse", "dice": "1d6"},
                "oops": {
                    "name": "Oops",
                    "type": "heal",
                    "target": "enemy",
                    "dice": "1d4",
                    "miss_max": 12,
                    "crit_min": 10,
                },
                "Bad": {"name": "Bad", "type": "teleport"},
            },
            "weapons": {"club": {"name": "Club", "dice": "d"}},
            "statuses": {"burn": {"name": "Burn", "blocks": ["breathing"]}},
            "spells": {},
        }
    )
    assert clean == {}
    assert errors == {
        "__all__": ["Unknown definition kinds: spells."],
        "abilities.zap.range": ["Must be at most 50."],
        "abilities.hex.status": ["Name a defined status."],
        "abilities.oops.crit_min": ["The crit range must start above the miss range."],
        "abilities.oops.target": ["Healing targets allies or self."],
        "abilities.Bad": ["Keys are lower-case letters, digits and _ (at most 40)."],
        "abilities.Bad.type": ["Choose one of: physical, magical, heal, status, recover, interrupt."],
        "weapons.club.dice": ["The roller does not understand “d”. Say how many faces, like 2d6."],
        "statuses.burn.blocks": ["Unknown: breathing."],
    }


def test_starter_pack_heroes_and_monsters_are_valid_data():
    # RULE: ENG-10
    assert validate_luck_content(STARTER) == (STARTER, {})
    assert {"stun", "blind", "sleep", "slow", "silence", "disarm"} <= set(STARTER["statuses"])
    for sheet in [*MONSTERS.values(), *HEROES.values()]:
        assert Luck.validate_sheet(sheet)[1] == {}
    assert len(MONSTERS) >= 2


def test_a_gm_defined_ability_is_used_by_the_rules():
    # RULE: ENG-10
    content = {
        "statuses": {"burn": {"name": "Burn", "blocks": ["spells"]}},
        "abilities": {
            "ember": {
                "name": "Ember",
                "type": "status",
                "status": "burn",
                "range": 3,
                "dice": "1d6",
                "bonus": 1,
                "defense": "resist",
                "spell": True,
            }
        },
    }
    b, a, o, _ = duel(ash=dict(ASH, abilities=["ember"]), orc=dict(ORC, abilities=["ember"]), content=content)
    b.act("ability", a, dice=[10, 4], ability="ember", targets=[o])  # 4+1 - resist 2 = power 3
    assert b.c(o).statuses["burn"]["power"] == 3
    b.act("end_turn", a)
    assert b.try_act("ability", o, ability="ember", targets=[a]) == Refusal("Burn: cannot cast spells.")
    with pytest.raises(ValueError, match="abilities.x.type"):
        new_battle_event("luck", {}, 1, 5, 5, content={"abilities": {"x": {"name": "X", "type": "nope"}}})


# --- board geometry -----------------------------------------------------------------------------------------


def test_board_distances_shapes_and_paths():
    assert (chebyshev((1, 1), (4, 3)), manhattan((1, 1), (4, 3))) == (3, 5)
    assert sorted(within((1, 1), 1, 5, 5, "manhattan")) == [(0, 1), (1, 0), (1, 1), (1, 2), (2, 1)]
    assert len(within((0, 0), 1, 5, 5)) == 4
    assert area("line", (0, 0), 3, 9, 9, toward=(6, 0)) == [(1, 0), (2, 0), (3, 0)]
    wall = {(1, 0), (1, 1)}
    assert find_path((0, 0), (2, 0), 3, 3, wall) == [(0, 0), (0, 1), (1, 2), (2, 1), (2, 0)]
    assert find_path((0, 0), (2, 0), 3, 3, wall, max_steps=3) is None
    assert find_path((0, 0), (2, 0), 3, 2, wall) is None
    assert (2, 2) not in reachable((0, 0), 2, 3, 3, frozenset(), no_stop={(2, 2)})


# RULE: ENG-3
def test_dice_in_parallel_threads_stay_reproducible():
    import threading

    from combat.engine.dice import Dice as _Dice

    expected = [_Dice(11, n).roll("4d6+2", "t").faces for n in range(40)]
    got: dict[int, list[int]] = {}

    def work(n: int) -> None:
        for _ in range(50):
            got[n] = _Dice(11, n).roll("4d6+2", "t").faces

    threads = [threading.Thread(target=work, args=(n,)) for n in range(40)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert [got[n] for n in range(40)] == expected
