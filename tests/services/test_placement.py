"""Set-up that starts a fight: a new battle places the two sides facing each other one move apart,
so every combatant can reach a foe and strike on its first turn, in every grid ruleset."""

from __future__ import annotations

import pytest

from combat import services, setup
from combat.engine.actions import Action
from combat.engine.board import distance
from combat.engine.core import legal_actions, resolve
from combat.engine.dice import Dice
from combat.engine.rulesets import RULESETS, get_ruleset
from tests.table import make_user
from vtt.content import character_templates
from vtt.models import Campaign, Character, CharacterKind, Membership

pytestmark = pytest.mark.django_db
GRID = sorted(key for key, r in RULESETS.items() if r.board == "grid" and key != "toy")


def _battle(ruleset: str, monsters: int = 2):
    """A campaign's template heroes (one of each) against ``monsters`` copies of each template monster."""
    gm, player = make_user(f"gm-{ruleset}"), make_user(f"pl-{ruleset}")
    rules = get_ruleset(ruleset)
    campaign = Campaign.objects.create(
        name="Set-up", ruleset=ruleset, owner=gm, options=rules.default_options()
    )
    Membership.objects.create(user=gm, campaign=campaign, role="gm")
    Membership.objects.create(user=player, campaign=campaign, role="player")
    recruits = []
    for name, sheet in character_templates(campaign, "pc").items():
        pc = Character.objects.create(campaign=campaign, name=name, owner=player, sheet=sheet)
        recruits.append(setup.Recruit(pc))
    for name, sheet in list(character_templates(campaign, "monster").items())[:2]:
        foe = Character.objects.create(campaign=campaign, name=name, kind=CharacterKind.MONSTER, sheet=sheet)
        recruits.append(setup.Recruit(foe, monsters))
    made = setup.setup_battle(campaign, gm, "Set-up", 14, 10, recruits)
    assert made.ok, made.reason
    return gm, made


def _strike_after_one_move(state, cid: str) -> tuple[str, str] | None:
    """(the move's square, a foe) such that after one move to a square next to the foe, ``cid`` has an
    available action on it (a melee attack: it stands next to the foe)."""
    me = state.combatants[cid]
    metric = get_ruleset(state.ruleset).metric(state)
    foes = [c for c in state.combatants.values() if c.side != me.side and c.alive]
    move = next((o for o in legal_actions(state, cid) if o.kind == "move" and o.available), None)
    assert move is not None, f"{me.name} cannot move on its first turn"
    for sq in sorted(move.squares, key=lambda s: min(distance(s, f.pos, metric) for f in foes)):
        for foe in foes:
            if distance(sq, foe.pos, metric) != 1:
                continue
            moved = resolve(state, Action("move", cid, {"to": sq}), Dice(1, 0))
            if isinstance(moved, tuple):
                after = moved[1]
                if after.pending is None and any(
                    o.available and foe.id in o.targets and o.kind not in ("move", "answer")
                    for o in legal_actions(after, cid)
                ):
                    return (f"{sq}", foe.name)
    return None


@pytest.mark.parametrize("ruleset", GRID)
def test_the_sides_start_facing_each_other_one_move_apart(ruleset):
    _, made = _battle(ruleset)
    state = made.state
    rules = get_ruleset(ruleset)
    metric = rules.metric(state)
    party = [c for c in state.combatants.values() if c.side == "party"]
    enemy = [c for c in state.combatants.values() if c.side == "enemy"]
    assert party and enemy
    reach = min(rules.move_squares(c.sheet) for c in state.combatants.values())
    for c in state.combatants.values():
        foes = enemy if c.side == "party" else party
        nearest = min(distance(c.pos, f.pos, metric) for f in foes)
        assert 1 < nearest <= reach + 1, (c.name, c.pos, nearest, reach)
    # Facing across the middle: the party on the left half, the enemies on the right half.
    assert max(c.pos[0] for c in party) < min(c.pos[0] for c in enemy)
    assert min(c.pos[0] for c in party) > 0 and max(c.pos[0] for c in enemy) < state.width - 1


@pytest.mark.parametrize("ruleset", GRID)
def test_a_melee_attack_is_available_on_turn_one_for_everyone(ruleset):
    gm, made = _battle(ruleset, monsters=1)
    started = services.start_battle(made.battle_id, gm, None, None)
    assert started.ok, started.reason
    state = started.state
    seen = set()
    for _ in range(len(state.combatants) * 4):
        if state.phase != "active" or state.round > 1:
            break
        current = state.current()
        if state.pending is None and current is not None and current.id not in seen:
            seen.add(current.id)
            assert _strike_after_one_move(state, current.id), f"{current.name} cannot reach a foe on turn 1"
        if state.pending is not None:
            decision = state.pending
            r = services.submit_action(
                made.battle_id,
                gm,
                {
                    "kind": "answer",
                    "actor": None,
                    "params": {"decision": decision.id, "choice": decision.default},
                },
                None,
            )
        else:
            r = services.gm_override(made.battle_id, gm, {"kind": "gm.skip_turn", "params": {}}, None)
        assert r.ok, r.reason
        state = r.state
    assert seen == set(made.state.combatants)  # everyone's first turn was looked at
