"""What a viewer may be told, at each seq (``combat.engine.told`` over ``combat.engine.veil``).

The state keeps who was out of the players' sight when, and which house rules held: a battle played
at random with the GM's fog, hiding, moves and house-rule changes tells, at every seq, exactly who a
replay of the log up to that seq says was unseen (ENG-1), and whose HP was hidden then.
"""

from __future__ import annotations

import random

import pytest

from combat.engine import fog, veil
from combat.engine.actions import Action, Refusal
from combat.engine.autoplay import random_action
from combat.engine.core import apply_all, replay, resolve
from combat.engine.dice import Dice
from combat.engine.rulesets import RULESETS, get_ruleset
from combat.engine.testing import Battle
from combat.engine.told import Teller, Told, told
from combat.engine.view import Viewer, hidden_ids

PLAYER = Viewer("player", "1")


def _battle(key: str, rng: random.Random) -> tuple[Battle, list[str]]:
    rules = get_ruleset(key)
    b = Battle(key, width=8, height=6, seed=rng.randrange(1000))
    grid = rules.board == "grid"
    for i, (name, sheet) in enumerate(list(rules.heroes.items())[:2]):
        b.add(f"{name} {i + 1}", "party", (0, 2 * i) if grid else None, controller=str(i + 1), **sheet)
    foes = [
        b.add(f"{name} {i + 1}", "enemy", (5, 2 * i) if grid else None, kind="monster", **sheet)
        for i, (name, sheet) in enumerate(list(rules.monsters.items())[:2])
    ]
    if grid:
        b.act("gm.fog", mode="on")
        b.act("gm.fog", mode="reveal", rects=[[0, 0, 3, 5]])
    b.act("gm.hide", combatant=foes[-1], hidden=True)
    _do(b, Action("setup.start"))
    return b, foes


def _do(b: Battle, action: Action) -> bool:
    """Act with the battle's own dice; whether the engine accepted it."""
    out = resolve(b.state, action, Dice(b.state.seed, b.state.seq))
    if isinstance(out, Refusal):
        return False
    events, b.state = out
    b.log.extend(events)
    return True


def _gm_step(b: Battle, foes: list[str], rng: random.Random) -> None:
    """One change of what the players may see or know: fog, hiding, a move, a house rule."""
    grid = b.state.width and get_ruleset(b.state.ruleset).board == "grid"
    roll = rng.random()
    foe = rng.choice(foes)
    if roll < 0.3 and grid:
        x, y = rng.randrange(8), rng.randrange(6)
        _do(
            b,
            Action("gm.fog", None, {"mode": rng.choice(["reveal", "hide"]), "rects": [[x, y, x + 1, y + 1]]}),
        )
    elif roll < 0.55:
        _do(b, Action("gm.hide", None, {"combatant": foe, "hidden": rng.random() < 0.5}))
    elif roll < 0.8 and grid:
        _do(b, Action("gm.move", None, {"combatant": foe, "to": [rng.randrange(8), rng.randrange(6)]}))
    else:
        hide = not b.state.options.get("hide_enemy_hp", True)
        _do(b, Action("gm.house_rule", None, {"option": "hide_enemy_hp", "value": hide}))


@pytest.mark.parametrize("key", sorted(RULESETS))
def test_the_state_knows_at_every_seq_who_was_out_of_sight_and_which_rules_held(key):  # RULE: ENG-1
    rng = random.Random(36)
    b, foes = _battle(key, rng)
    for _ in range(70):
        if rng.random() < 0.35:
            _gm_step(b, foes, rng)
            continue
        action = random_action(b.state, rng)
        if action is None:
            break
        assert _do(b, action), action
    final = b.state
    assert b.rebuilt().to_dict() == final.to_dict()
    state = replay(b.log[:1])
    changed = 0
    for seq in range(1, len(b.log) + 1):
        if seq > 1:
            state = apply_all(state, [b.log[seq - 1]])
        then = told(final, PLAYER, seq)
        assert then.unseen == fog.unseen(state, "1"), seq
        assert veil.out_of_sight(final, seq, {"party"}) == fog.unseen(state, None), seq
        assert veil.options_at(final, seq) == state.options, seq
        assert then.hidden & set(state.combatants) == hidden_ids(state, PLAYER), seq  # of those there then
        changed += then.unseen != told(final, PLAYER, max(1, seq - 1)).unseen
    assert changed >= 3  # the sight of the players changed several times over the battle


def test_a_house_rule_changed_in_play_is_logged_undone_and_refused_when_it_changes_nothing():  # RULE: ENG-7
    b = Battle("luck")
    events = b.act("gm.house_rule", option="monsters_act", value="on")
    assert b.state.options["monsters_act"] is True and events[0].data["before"] is False
    assert b.try_act("gm.house_rule", option="monsters_act", value=True).reason == (
        "Monsters act on their own is already on."
    )
    assert b.try_act("gm.house_rule", option="nope", value=True).reason == (
        "That is not a house rule of this ruleset."
    )
    assert "choose one of" in b.try_act("gm.house_rule", option="npc_reactions", value="x").reason.lower()
    assert b.rebuilt().to_dict() == b.state.to_dict()  # RULE: ENG-1
    assert replay(b.log[:1]).options["monsters_act"] is False  # RULE: ENG-8


def test_a_sentence_keeps_a_longer_seen_name_that_holds_an_unseen_one():
    t = Told(False, frozenset(), frozenset({"c1"}), {"c1": "Goblin 1", "c12": "Goblin 12", "c2": "Ash"})
    assert t.sentence("Goblin 12 attacks Ash.") == "Goblin 12 attacks Ash."
    assert t.sentence("Goblin 12 moves toward Ash: Goblin 1 is near.") == "Goblin 12 moves toward Ash."
    assert t.question("Goblin 1 attacks Ash: parry?") == "someone unseen attacks Ash: parry?"
    gm = Told(True, frozenset(), frozenset(), {"c1": "Goblin 1"})
    assert gm.sentence("Goblin 1 holds the front.") == "Goblin 1 holds the front."


def test_a_teller_tells_each_seq_as_it_stood_and_the_gm_everything():
    b = Battle("luck", width=6, height=4)
    ash = b.add("Ash", "party", (0, 0), controller="1", hp=10)
    orc = b.add("Orc", "enemy", (3, 0), kind="monster", hp=10)
    b.act("setup.start", dice=[10, 5])
    b.act("gm.hide", combatant=orc, hidden=True)
    hidden_at = len(b.log)
    b.act("gm.hide", combatant=orc, hidden=False)
    teller = Teller(b.state, PLAYER)
    assert orc in teller.at(hidden_at).unseen and orc not in teller.at(len(b.log)).unseen
    assert orc in teller.at(3).unseen  # set-up: no spoiler (the Orc joins at seq 3)
    assert ash not in teller.at(3).unseen  # a player's own side is always seen
    assert not Teller(b.state, Viewer("gm")).at(hidden_at).unseen


def test_a_battle_with_house_rules_changed_in_play_imports_and_so_does_one_exported_before_the_veil():
    """The import checks take what the table writes: house rules changed in play, combatants hidden and
    revealed; and a file whose final state was written before states kept their past."""
    import json

    from combat.import_check import check_battle_file

    rng = random.Random(5)
    b, foes = _battle("luck", rng)
    _do(b, Action("gm.house_rule", None, {"option": "monsters_act", "value": True}))
    _do(b, Action("gm.hide", None, {"combatant": foes[-1], "hidden": False}))
    _do(b, Action("gm.end_battle", None, {}))
    data = {
        "format": "vtt-battle",
        "version": 1,
        "name": "Ford",
        "ruleset": "luck",
        "seed": b.state.seed,
        "events": [e.to_dict() for e in b.log],
        "final": b.state.to_dict(),
    }
    checked = check_battle_file("luck", json.dumps(data))
    assert not isinstance(checked, str), checked
    assert checked.state.options["monsters_act"] is True
    old = {
        **data,
        "final": {**data["final"], "extra": {k: v for k, v in data["final"]["extra"].items() if k != "veil"}},
    }
    assert not isinstance(check_battle_file("luck", json.dumps(old)), str)
    edited = {
        **data,
        "final": {**data["final"], "options": {**data["final"]["options"], "monsters_act": False}},
    }
    assert "was edited" in check_battle_file("luck", json.dumps(edited))
