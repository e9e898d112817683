"""submit_action and friends: what is written, what is refused, and who may act."""

from __future__ import annotations

import pytest

from combat import services
from combat.models import Battle, BattleEvent
from tests.services.helpers import assert_snapshot_is_log, current_controller, end_turn, fresh, log_of, normal

pytestmark = pytest.mark.django_db


def test_create_battle_starts_the_log_with_battle_created(campaign, gm):
    result = services.create_battle(campaign, gm, "Bridge", 6, 4, [[1, 1]], seed=7)
    assert result.ok and result.seq == 1
    battle = fresh(result.battle_id)
    assert (battle.ruleset, battle.seed, battle.status, battle.seq) == ("luck", 7, "setup", 1)
    assert log_of(battle.pk) == [(1, "battle.created")]
    assert battle.snapshot["width"] == 6 and battle.snapshot["blocked"] == [[1, 1]]
    assert_snapshot_is_log(battle.pk)


@pytest.mark.parametrize("who", ["player", "observer", "outsider"])
def test_only_the_gm_creates_battles(campaign, users, who):
    result = services.create_battle(campaign, users[who], "Bridge", 6, 4)
    assert not result.ok and result.reason
    assert not Battle.objects.exists()


@pytest.mark.parametrize(
    ("kwargs", "reason"),
    [
        ({"name": ""}, "name"),
        ({"width": 0}, "board"),
        ({"height": 101}, "board"),
        ({"width": "8"}, "board"),
        ({"blocked": [[9, 9]]}, "outside"),
        ({"blocked": [3]}, "pairs"),
        ({"ruleset": "chess"}, "ruleset"),
        ({"options": {"status_power": "loud"}}, "status_power"),
    ],
)
def test_bad_battle_settings_are_refused_clearly(campaign, gm, kwargs, reason):
    args = {"name": "Bridge", "width": 6, "height": 4, **kwargs}
    result = services.create_battle(campaign, gm, **args)
    assert not result.ok and reason in result.reason
    assert not Battle.objects.exists()


def test_setup_adds_characters_controlled_by_their_owners(battle, player, other_player, characters):
    combatants = services.load_state(battle).combatants.values()
    owners = {c.name: (c.controller, c.character_id, c.side) for c in combatants}
    assert owners == {
        "Ayla": (str(player.pk), characters["ayla"].pk, "party"),
        "Bram": (str(other_player.pk), characters["bram"].pk, "party"),
        "Goblin": (None, None, "enemy"),
    }
    assert battle.status == "active"
    assert_snapshot_is_log(battle.pk)


def test_an_accepted_action_appends_contiguous_events_and_updates_the_snapshot(battle, users):
    before = battle.seq
    actor, user = current_controller(battle, users)
    result = services.submit_action(
        battle.pk, user, {"kind": "end_turn", "actor": actor, "params": {}}, before, "tok-1"
    )
    assert result.ok, result.reason
    assert result.events and result.seq == before + len(result.events)
    after = fresh(battle.pk)
    assert after.seq == result.seq
    new = list(BattleEvent.objects.filter(battle=after, seq__gt=before).order_by("seq"))
    assert [e.seq for e in new] == list(range(before + 1, result.seq + 1))
    assert [e.type for e in new] == [e.type for e in result.events]
    assert {(e.actor_id, e.client_token) for e in new} == {(user.pk, "tok-1")}
    assert normal(after.snapshot) == normal(result.state.to_dict())
    assert services.load_state(after).current().id != actor
    assert_snapshot_is_log(battle.pk)


def test_a_refusal_leaves_log_and_snapshot_unchanged(battle, gm):
    state = services.load_state(battle)
    waiting = next(c for c in state.order if c != state.current().id)
    log, snapshot = log_of(battle.pk), fresh(battle.pk).snapshot
    # The GM may act for anyone, but the engine refuses an action out of turn (ENG-4).
    result = services.submit_action(
        battle.pk, gm, {"kind": "end_turn", "actor": waiting}, battle.seq, "tok-2"
    )
    assert not result.ok and result.reason
    assert result.seq == battle.seq
    assert log_of(battle.pk) == log and fresh(battle.pk).snapshot == snapshot
    assert not BattleEvent.objects.filter(client_token="tok-2").exists()


def test_a_stale_expected_seq_is_refused(battle, users):
    actor, user = current_controller(battle, users)
    log = log_of(battle.pk)
    result = services.submit_action(battle.pk, user, {"kind": "end_turn", "actor": actor}, battle.seq - 1)
    assert not result.ok and result.reason == services.STALE
    assert result.seq == battle.seq
    assert log_of(battle.pk) == log


def test_a_player_cannot_act_for_another_players_combatant(battle, users, player, other_player, gm):
    state = services.load_state(battle)
    bram = next(c for c in state.combatants.values() if c.controller == str(other_player.pk))
    # Make it Bram's turn, so only ownership stands in the way.
    for _ in range(len(state.order)):
        if services.load_state(fresh(battle.pk)).current().id == bram.id:
            break
        assert services.gm_override(battle.pk, gm, {"kind": "gm.skip_turn"}, fresh(battle.pk).seq).ok
    battle = fresh(battle.pk)
    log = log_of(battle.pk)
    result = services.submit_action(battle.pk, player, {"kind": "end_turn", "actor": bram.id}, battle.seq)
    assert not result.ok and result.reason == services.NOT_YOURS
    assert log_of(battle.pk) == log
    accepted = services.submit_action(
        battle.pk, other_player, {"kind": "end_turn", "actor": bram.id}, battle.seq
    )
    assert accepted.ok, accepted.reason


@pytest.mark.parametrize("who", ["observer", "outsider"])
def test_observers_and_outsiders_cannot_act(battle, users, who):
    actor, _ = current_controller(battle, users)
    log = log_of(battle.pk)
    result = services.submit_action(battle.pk, users[who], {"kind": "end_turn", "actor": actor}, battle.seq)
    assert not result.ok and result.reason
    assert log_of(battle.pk) == log


def test_anonymous_users_cannot_act(battle, users):
    from django.contrib.auth.models import AnonymousUser

    actor, _ = current_controller(battle, users)
    result = services.submit_action(
        battle.pk, AnonymousUser(), {"kind": "end_turn", "actor": actor}, battle.seq
    )
    assert not result.ok and result.reason == services.NOT_MEMBER


@pytest.mark.parametrize(
    "payload",
    [
        {"kind": "gm.set_hp", "params": {"combatant": "c1", "hp": 1}},
        {"kind": "gm.end_battle", "params": {"reason": "bored"}},
        {"kind": "setup.add_combatant", "params": {"name": "Dragon", "side": "party", "kind": "monster"}},
    ],
)
def test_players_cannot_use_gm_or_setup_actions(battle, player, payload):
    log = log_of(battle.pk)
    assert services.submit_action(battle.pk, player, payload, battle.seq).reason == services.GM_ONLY
    assert services.gm_override(battle.pk, player, payload, battle.seq).reason == services.GM_ONLY
    assert log_of(battle.pk) == log


def test_players_cannot_undo_add_combatants_or_start(battle, player):
    log = log_of(battle.pk)
    assert services.undo(battle.pk, player).reason == services.GM_ONLY
    assert services.add_combatant(battle.pk, player, params={"name": "Extra"}).reason == services.GM_ONLY
    assert services.start_battle(battle.pk, player).reason == services.GM_ONLY
    assert log_of(battle.pk) == log


def test_gm_override_takes_only_gm_actions(battle, gm, users):
    actor, _ = current_controller(battle, users)
    result = services.gm_override(battle.pk, gm, {"kind": "end_turn", "actor": actor}, battle.seq)
    assert not result.ok and "GM override" in result.reason


def test_gm_override_sets_hp(battle, gm):
    goblin = next(c for c in services.load_state(battle).combatants.values() if c.name == "Goblin")
    result = services.gm_override(
        battle.pk, gm, {"kind": "gm.set_hp", "params": {"combatant": goblin.id, "hp": 3}}, battle.seq
    )
    assert result.ok, result.reason
    assert services.load_state(fresh(battle.pk)).combatants[goblin.id].hp == 3
    assert_snapshot_is_log(battle.pk)


def test_a_repeated_client_token_acts_once(battle, users):
    actor, user = current_controller(battle, users)
    action = {"kind": "end_turn", "actor": actor, "params": {}}
    first = services.submit_action(battle.pk, user, action, battle.seq, "same-token")
    again = services.submit_action(battle.pk, user, action, battle.seq, "same-token")
    assert first.ok and again.ok and again.duplicate and not first.duplicate
    assert again.seq == first.seq
    assert [e.type for e in again.events] == [e.type for e in first.events]
    assert fresh(battle.pk).seq == first.seq
    assert BattleEvent.objects.filter(client_token="same-token").count() == len(first.events)


@pytest.mark.parametrize(
    "payload",
    [
        None,
        "end_turn",
        [1, 2],
        {},
        {"kind": 3},
        {"kind": "end_turn", "actor": 5},
        {"kind": "end_turn", "actor": "c1", "params": [1]},
        {"kind": "end_turn", "actor": "c1", "params": {"x": "y" * 30_000}},
        {"kind": "fly", "actor": "c1"},
        {"kind": "move", "actor": "c1", "params": {"to": "north"}},
        {"kind": "gm.set_hp", "params": {"combatant": "c99", "hp": 3}},
        {"kind": "gm.set_hp", "params": {"combatant": "c1", "hp": "lots"}},
    ],
)
def test_garbage_payloads_are_refused_and_write_nothing(battle, gm, payload):
    log, snapshot = log_of(battle.pk), fresh(battle.pk).snapshot
    result = services.submit_action(battle.pk, gm, payload, battle.seq, "garbage")
    assert not result.ok and result.reason
    assert log_of(battle.pk) == log and fresh(battle.pk).snapshot == snapshot


@pytest.mark.parametrize("token", [7, "x" * 65])
def test_malformed_client_tokens_are_refused(battle, users, token):
    result = end_turn(battle, users, client_token=token)
    assert not result.ok and "token" in result.reason


def test_a_missing_battle_is_refused(gm):
    assert services.submit_action(999_999, gm, {"kind": "end_turn"}).reason == services.NO_BATTLE
    assert services.submit_action("nope", gm, {"kind": "end_turn"}).reason == services.NO_BATTLE


def test_add_combatant_refuses_a_character_of_another_campaign(battle, gm, other_player):
    from vtt.models import Campaign, Character

    elsewhere = Campaign.objects.create(name="Elsewhere", ruleset="luck", owner=gm)
    stray = Character.objects.create(campaign=elsewhere, owner=other_player, name="Stray", sheet={"hp": 5})
    result = services.add_combatant(battle.pk, gm, stray, pos=[3, 3])
    assert not result.ok and "another campaign" in result.reason


def test_a_client_token_is_a_repeat_only_for_the_same_user(battle, gm, player):
    state = services.load_state(battle)
    ayla = next(c for c in state.combatants.values() if c.name == "Ayla")
    while services.load_state(fresh(battle.pk)).current().id != ayla.id:
        assert services.gm_override(battle.pk, gm, {"kind": "gm.skip_turn"}).ok
    hp = {"kind": "gm.set_hp", "params": {"combatant": ayla.id, "hp": 9}}
    first = services.gm_override(battle.pk, gm, hp, fresh(battle.pk).seq, "shared")
    assert first.ok
    mine = services.submit_action(
        battle.pk, player, {"kind": "end_turn", "actor": ayla.id}, first.seq, "shared"
    )
    assert mine.ok and not mine.duplicate and mine.seq > first.seq
