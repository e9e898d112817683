"""Plans (combat/engine/plans.py): what reaches a tapped combatant or square this turn, the way there
using what each ruleset grants, and every plan offered accepted by the engine step by step. Each
test names the rules the plan relies on."""

from __future__ import annotations

from combat.engine.actions import Action, Refusal
from combat.engine.core import legal_actions, resolve
from combat.engine.dice import Dice
from combat.engine.plans import Plan, option_key, plans_on, plans_to, reach_hints
from combat.engine.rulesets.action_block.content import HEROES as BLOCK_HEROES
from combat.engine.rulesets.action_block.content import MONSTERS as BLOCK_MONSTERS
from combat.engine.rulesets.luck.content import HEROES as LUCK_HEROES
from combat.engine.rulesets.luck.content import MONSTERS as LUCK_MONSTERS
from combat.engine.rulesets.mist.content import HEROES as MIST_HEROES
from combat.engine.rulesets.mist.content import MONSTERS as MIST_MONSTERS
from combat.engine.rulesets.paradigm.content import HEROES as PARA_HEROES
from combat.engine.rulesets.paradigm.content import MONSTERS as PARA_MONSTERS
from combat.engine.testing import Battle

FIGHTER = LUCK_HEROES["Fighter"]  # movement 5, a sword (range 1), two actions a turn
GOBLIN = LUCK_MONSTERS["Goblin Skirmisher"]


def first_to_act(b: Battle, cid: str) -> None:
    """Start the battle with dice seeded so that ``cid`` acts first (no reaction window pending)."""
    for seed in range(200):
        out = resolve(b.state, Action("setup.start"), Dice(seed, 1))
        if isinstance(out, Refusal):
            continue
        events, state = out
        if state.current() is not None and state.current().id == cid and state.pending is None:
            b.log.extend(events)
            b.state = state
            return
    raise AssertionError("no seed lets it act first")


def play(b: Battle, plan: Plan) -> list[str]:
    """Post the plan's steps one after another, as the page does; the event types of each step."""
    out = []
    for i, step in enumerate(plan.steps):
        done = resolve(b.state, step, Dice(7, i))
        assert not isinstance(done, Refusal), (step, done.reason)
        events, b.state = done
        b.log.extend(events)
        out.append(",".join(e.type for e in events))
    return out


def luck(hero_at=(0, 2), goblin_at=(6, 2), hero=None, width=12) -> tuple[Battle, str, str]:
    b = Battle("luck", width=width, height=5)
    h = b.add("Mira", "party", hero_at, controller="7", **(hero or FIGHTER))
    g = b.add("Grik", "enemy", goblin_at, kind="monster", **GOBLIN)
    first_to_act(b, h)
    return b, h, g


def kinds(plan: Plan) -> list[str]:
    return [a.kind for a in plan.steps]


# --- D20 Luck ---------------------------------------------------------------------------------


def test_luck_a_sword_out_of_reach_moves_next_to_the_enemy_then_strikes():
    # RULE: LUCK-ACT-1 LUCK-ACT-2
    b, mira, grik = luck(goblin_at=(6, 2))  # 6 squares: a move of 5, then the sword at 1
    plans = plans_on(b.state, mira, grik)
    sword = next(p for p in plans if p.label == "Sword")
    assert sword.available and kinds(sword) == ["move", "ability"]
    assert sword.path[0] == (0, 2) and len(sword.path) == 6 and sword.path[-1] == (5, 2)
    assert sword.how == "Move 5 squares to F3 first."
    assert sword.steps[1].params == {"weapon": "sword", "targets": [grik]}
    played = play(b, sword)
    assert played[0].startswith("moved") and "luck.rolled" in played[1]
    assert b.state.combatants[mira].resources["actions"] == 0
    # Each step is an action of its own in the log: undo takes the attack back first.
    assert sum("act" in e.data for e in b.log) >= 3


def test_luck_the_free_step_of_an_ability_reaches_one_square_further_in_one_action():
    # RULE: LUCK-ACT-3
    b, mira, grik = luck(goblin_at=(2, 2))  # 2 squares: the sword's step closes it
    sword = next(p for p in plans_on(b.state, mira, grik) if p.label == "Sword")
    assert kinds(sword) == ["ability"] and sword.steps[0].params["to"] in ([1, 1], [1, 2], [1, 3])
    assert sword.how.startswith("Step to B") and sword.how.endswith("as part of it.")
    play(b, sword)
    assert b.state.combatants[mira].resources["actions"] == 1  # the step cost nothing more
    assert b.state.combatants[mira].pos[0] == 1


def test_luck_a_move_then_the_free_step_reaches_seven_squares():
    # RULE: LUCK-ACT-2 LUCK-ACT-3
    b, mira, grik = luck(goblin_at=(7, 2))
    sword = next(p for p in plans_on(b.state, mira, grik) if p.label == "Sword")
    assert kinds(sword) == ["move", "ability"] and "to" in sword.steps[1].params
    assert sword.how == "Move 5 squares to F3, then step to G3 as part of it."
    play(b, sword)


def test_luck_with_one_action_left_a_far_enemy_is_out_of_reach_this_turn():
    # RULE: LUCK-ACT-1 LUCK-ACT-2
    b, mira, grik = luck(goblin_at=(6, 2))
    b.state = resolve(b.state, Action("move", mira, {"to": [0, 3]}), Dice(1, 1))[1]  # one action spent
    plans = plans_on(b.state, mira, grik)
    assert plans and not any(p.available for p in plans)
    sword = next(p for p in plans if p.label == "Sword")
    assert sword.reason == "Grik is 6 squares away: too far this turn."
    hints = reach_hints(b.state, mira, legal_actions(b.state, mira))
    assert hints[option_key("ability", {"weapon": "sword"})] == "Grik is 6 squares away: too far this turn."


def test_luck_the_option_list_says_how_to_bring_a_greyed_attack_within_reach():
    # RULE: LUCK-ACT-2
    b, mira, grik = luck(goblin_at=(6, 2))
    options = legal_actions(b.state, mira)
    sword = next(o for o in options if o.label == "Sword")
    assert not sword.available and sword.reason == "No target in range."
    hints = reach_hints(b.state, mira, options)
    assert (
        hints[option_key("ability", {"weapon": "sword"})]
        == "Grik is 6 squares away: tap it to approach and strike."
    )
    # Recover (greyed for another reason) keeps its own.
    assert option_key("ability", {"ability": "recover"}) not in hints


def test_luck_an_empty_square_is_a_move_with_its_path_and_two_moves_reach_further():
    # RULE: LUCK-ACT-1 LUCK-ACT-2
    b, mira, _ = luck(goblin_at=(11, 4))
    near = plans_to(b.state, mira, (3, 2))
    assert [p.label for p in near] == ["Move"] and kinds(near[0]) == ["move"]
    assert near[0].path == ((0, 2), (1, 2), (2, 2), (3, 2)) and near[0].how == "Move 3 squares to D3."
    far = plans_to(b.state, mira, (8, 2))  # 8 squares: two moves of one action each
    assert kinds(far[0]) == ["move", "move"] and far[0].path[-1] == (8, 2)
    play(b, far[0])
    assert b.state.combatants[mira].pos == [8, 2]
    b2, mira2, _ = luck(goblin_at=(11, 4), width=14)
    beyond = plans_to(b2.state, mira2, (13, 0))
    assert [(p.available, p.reason) for p in beyond] == [
        (False, "N1 is 13 squares away: too far to move there this turn.")
    ]


def test_luck_an_ally_tapped_shows_the_potion_that_reaches_them():
    # RULE: LUCK-ACT-2 LUCK-HEAL-1
    b = Battle("luck", width=12, height=5)
    mira = b.add("Mira", "party", (0, 2), controller="7", **FIGHTER)
    bram = b.add("Bram", "party", (4, 2), controller="8", **FIGHTER)
    b.add("Grik", "enemy", (11, 4), kind="monster", **GOBLIN)
    first_to_act(b, mira)
    b.state = resolve(b.state, Action("gm.set_hp", None, {"combatant": bram, "hp": 5}), Dice(1, 1))[1]
    plans = plans_on(b.state, mira, bram)
    potion = next(p for p in plans if p.label.startswith("Healing Potion"))
    assert potion.available and kinds(potion) in (["move", "ability"], ["ability"])
    assert not any(p.label == "Sword" for p in plans), "nothing that strikes is offered on an ally"
    play(b, potion)
    assert b.state.combatants[bram].hp > 5


def test_no_plan_for_a_combatant_who_does_not_act_or_a_target_that_is_not_there():
    # RULE: ENG-5
    b, mira, grik = luck()
    assert plans_on(b.state, grik, mira) == []  # not Grik's turn
    assert plans_on(b.state, mira, "c99") == []
    assert plans_to(b.state, grik, (1, 1)) == []
    assert plans_to(b.state, mira, (40, 1)) == []


# --- Mist & Rampart ---------------------------------------------------------------------------

KNIGHT = MIST_HEROES["Knight"]


def mist(goblin_at=(6, 2)) -> tuple[Battle, str, str]:
    b = Battle("mist", width=12, height=6)
    k = b.add("Kara", "party", (1, 2), controller="7", **KNIGHT)
    g = b.add("Grik", "enemy", goblin_at, kind="monster", **MIST_MONSTERS["Goblin"])
    first_to_act(b, k)
    return b, k, g


def test_mist_the_free_move_walks_cardinal_steps_next_to_the_enemy_then_strikes():
    # RULE: MIST-MOVE-1 MIST-TYPE-1 MIST-RANGE-1
    b, kara, grik = mist(goblin_at=(5, 3))
    strike = next(p for p in plans_on(b.state, kara, grik) if p.available)
    assert kinds(strike) == ["move", "ability"]
    walked = zip(strike.path, strike.path[1:], strict=False)
    assert all(abs(a[0] - z[0]) + abs(a[1] - z[1]) == 1 for a, z in walked), "cardinal steps only"
    slots = b.state.combatants[kara].resources["slots"]
    play(b, strike)
    assert b.state.combatants[kara].resources["slots"] < slots  # the strike's slot, not the move's


def test_mist_a_square_beyond_the_move_is_reached_by_a_double_move():
    # RULE: MIST-MOVE-2
    b, kara, _ = mist(goblin_at=(11, 5))
    move = next(o for o in legal_actions(b.state, kara) if o.kind == "move")
    far = (1 + move_reach(b, kara) + 2, 2)
    plans = plans_to(b.state, kara, far)
    double = next(p for p in plans if p.available)
    assert kinds(double) == ["double_move", "move"] and double.path[-1] == far
    assert double.how.startswith("Double move (all slots), then move")
    play(b, double)
    assert b.state.combatants[kara].pos == list(far)
    assert move.available


def move_reach(b: Battle, cid: str) -> int:
    return b.state.combatants[cid].resources["move"]


def test_mist_a_path_never_ends_on_an_ally():
    # RULE: MIST-MOVE-3
    b = Battle("mist", width=12, height=6)
    kara = b.add("Kara", "party", (1, 2), controller="7", **KNIGHT)
    b.add("Ally", "party", (2, 2), controller="8", **KNIGHT)
    b.add("Grik", "enemy", (11, 5), kind="monster", **MIST_MONSTERS["Goblin"])
    first_to_act(b, kara)
    assert not any(p.available for p in plans_to(b.state, kara, (2, 2)))
    through = plans_to(b.state, kara, (3, 2))[0]
    assert through.available and through.path[-1] == (3, 2)


# --- Paradigm Rows ----------------------------------------------------------------------------


def paradigm() -> tuple[Battle, str, str, str]:
    b = Battle("paradigm")
    knight = {k: v for k, v in PARA_HEROES["Knight"].items() if k != "row"}
    goblin = {k: v for k, v in PARA_MONSTERS["Goblin"].items() if k != "row"}
    k = b.add("Kara", "party", row="front", controller="7", **knight)
    front = b.add("Grik", "enemy", row="front", kind="monster", **goblin)
    back = b.add("Zed", "enemy", row="back", kind="monster", **goblin)
    for seed in range(300):
        out = resolve(b.state, Action("setup.start"), Dice(seed, 1))
        if isinstance(out, Refusal):
            continue
        events, state = out
        b.log.extend(events)
        b.state = state
        break
    for _ in range(20):  # the job switch of the first Paradigm Phase, then turns until Kara's
        s = b.state
        if s.pending is not None:
            b.state = resolve(s, Action("answer", None, {"choice": s.pending.default}), Dice(1, s.seq))[1]
        elif s.current() is not None and s.current().id != k:
            b.state = resolve(s, Action("end_turn", s.current().id), Dice(1, s.seq))[1]
        else:
            break
    assert b.state.current().id == k
    return b, k, front, back


def test_paradigm_a_front_row_enemy_is_struck_where_it_stands_and_the_back_row_is_out_of_melee():
    # RULE: PARA-ACT-ATTACK PARA-MELEE-1 PARA-ACT-MOVE
    b, kara, front, back = paradigm()
    attack = next(p for p in plans_on(b.state, kara, front) if p.label == "Basic Attack")
    assert attack.available and kinds(attack) == ["attack"] and attack.path == ()
    greyed = next(p for p in plans_on(b.state, kara, back) if p.label == "Basic Attack")
    assert not greyed.available
    assert greyed.reason == "Zed is in the back row: melee reaches only the front row."
    play(b, attack)


# --- Action Block -----------------------------------------------------------------------------


def test_block_one_movement_and_one_offensive_action_approach_and_strike():
    # RULE: BLOCK-TURN-1 BLOCK-RANGE-1 BLOCK-RES-4
    b = Battle("action-block", width=12, height=6)
    d = b.add("Dara", "party", (1, 2), controller="7", **BLOCK_HEROES["Duelist"])
    g = b.add("Ghoul", "enemy", (7, 2), kind="monster", **BLOCK_MONSTERS["Ghoul"])
    first_to_act(b, d)
    plans = plans_on(b.state, d, g)
    longsword = next(p for p in plans if p.label == "Attack: Longsword")
    assert kinds(longsword) == ["move", "attack"] and longsword.path[-1] == (6, 2)
    speed = b.state.combatants[d].resources["speed"]
    play(b, longsword)
    assert b.state.combatants[d].resources["speed"] < speed
    # Beyond a move and the sword's 5 ft: the attacks come greyed with the distance.
    b2 = Battle("action-block", width=16, height=6)
    d2 = b2.add("Dara", "party", (0, 2), controller="7", **BLOCK_HEROES["Duelist"])
    g2 = b2.add("Ghoul", "enemy", (15, 2), kind="monster", **BLOCK_MONSTERS["Ghoul"])
    first_to_act(b2, d2)
    far = next(p for p in plans_on(b2.state, d2, g2) if p.label == "Attack: Longsword")
    assert (far.available, far.reason) == (False, "Ghoul is 15 squares away: too far this turn.")
