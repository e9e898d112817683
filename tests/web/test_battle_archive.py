"""Every battle kept: the campaign lists it, an ended battle replays step by step, and a battle exported
as JSON imports into another campaign rebuilding the same final state (checked by the engine's replay)."""

from __future__ import annotations

import html
import json
import random

import pytest

from combat import archive, services
from combat.engine.autoplay import random_action
from combat.engine.rulesets import RULESETS
from combat.models import Battle, BattleEvent
from tests.table import make_campaign, make_user
from vtt import homebrew

pytestmark = pytest.mark.django_db


def play_battle(campaign, gm, seed: int = 7, steps: int = 60) -> Battle:
    """A battle of two starter monsters a side, played with random legal actions, then ended by the GM."""
    ruleset = campaign.ruleset_class
    result = services.create_battle(campaign, gm, "Skirmish", 8, 8, ruleset=ruleset.key, seed=seed)
    assert result.ok, result.reason
    bid = result.battle_id
    monsters = list(homebrew.builtin(ruleset)[homebrew.MONSTERS].values())
    for i, side in enumerate(("party", "enemy", "party", "enemy")):
        d = monsters[i % len(monsters)]
        sheet = {k: v for k, v in d.items() if k != "name"}
        place = {"row": "front"} if ruleset.board == "rows" else {"pos": [0 if side == "party" else 3, i]}
        r = services.add_combatant(
            bid, gm, params={"name": f"{d['name']} {i}", "side": side, "sheet": sheet}, **place
        )
        assert r.ok, r.reason
    assert services.start_battle(bid, gm).ok
    rng = random.Random(seed)
    for _ in range(steps):
        state = services.load_state(Battle.objects.get(pk=bid))
        action = random_action(state, rng)
        if action is None:
            break
        r = services.submit_action(
            bid,
            gm,
            action.to_dict()
            if hasattr(action, "to_dict")
            else {"kind": action.kind, "actor": action.actor, "params": action.params},
        )
        assert r.ok, (action, r.reason)
    battle = Battle.objects.get(pk=bid)
    if battle.status != Battle.Status.ENDED:
        assert services.gm_override(bid, gm, {"kind": "gm.end_battle", "params": {"winner": "party"}}).ok
    return Battle.objects.get(pk=bid)


@pytest.mark.parametrize("ruleset", list(RULESETS))
def test_a_battle_exported_and_imported_replays_to_the_same_final_state(client, ruleset):
    gm = make_user("gm")
    home = make_campaign(gm, ruleset, name="Home")
    away = make_campaign(gm, ruleset, name="Away")
    battle = play_battle(home, gm)
    assert battle.seq > 10
    client.force_login(gm)
    exported = client.get(f"/battles/{battle.pk}/export")
    assert exported.status_code == 200 and "attachment" in exported["Content-Disposition"]
    data = json.loads(exported.content)
    assert data["final"] == battle.snapshot and len(data["events"]) == battle.seq
    assert any(e["data"].get("rolls") for e in data["events"])  # every event with its dice
    upload = _file(exported.content)
    response = client.post(f"/campaigns/{away.pk}/battles/import/", {"file": upload})
    assert response.status_code == 302
    copy = Battle.objects.get(campaign=away)
    assert copy.imported and copy.status == Battle.Status.ENDED
    assert copy.snapshot == battle.snapshot
    assert services.rebuild(copy.pk).to_dict() == battle.snapshot
    assert list(BattleEvent.objects.filter(battle=copy).values_list("type", "data")) == [
        (e["type"], e["data"]) for e in data["events"]
    ]
    # kept as it was: nothing more can be written to an imported battle
    assert services.undo(copy.pk, gm).reason == services.ARCHIVED


def _file(content: bytes, name: str = "battle.json"):
    from django.core.files.uploadedfile import SimpleUploadedFile

    return SimpleUploadedFile(name, content, content_type="application/json")


@pytest.fixture
def ended(db):
    gm = make_user("gm")
    player = make_user("player")
    outsider = make_user("outsider")
    campaign = make_campaign(gm, "luck", player=[player])
    battle = play_battle(campaign, gm, seed=3, steps=30)
    return gm, player, outsider, campaign, battle


def test_the_campaign_lists_battles_with_date_participants_and_outcome(client, ended):
    gm, player, _, campaign, battle = ended
    client.force_login(player)
    page = client.get(f"/campaigns/{campaign.pk}/").content.decode()
    assert battle.name in page and battle.created.strftime("%Y") in page
    for c in battle.snapshot["combatants"].values():
        assert c["name"] in page
    assert archive.outcome(battle.snapshot, battle.status) in page
    assert f"/battles/{battle.pk}/replay" in page
    assert f"/battles/{battle.pk}/export" not in page  # the GM's


def test_replay_steps_through_the_stored_log_with_the_log_in_sync(client, ended):
    gm, player, _, campaign, battle = ended
    client.force_login(player)
    events = archive.events_of(battle)
    for step in (1, 5, len(events)):
        page = client.get(f"/battles/{battle.pk}/replay?step={step}").content.decode()
        assert f"Step {step} of {len(events)}" in page
        assert f'data-seq="{step}"' in page or step == 1  # the newest log entry shown is this step's
        assert f'data-seq="{step + 1}"' not in page  # nothing after it
    state = archive.state_at(events, 5)
    assert state.seq == 5
    hx = client.get(f"/battles/{battle.pk}/replay?step=2", HTTP_HX_REQUEST="true").content.decode()
    assert hx.lstrip().startswith('<div id="replay"') and "Step 2 of" in hx
    last = client.get(f"/battles/{battle.pk}/replay?step=99999").content.decode()
    assert f"Step {len(events)} of {len(events)}" in last


def test_a_running_battle_has_no_replay_yet(client, db):
    gm = make_user("gm")
    campaign = make_campaign(gm, "luck")
    result = services.create_battle(campaign, gm, "Now", 5, 5, ruleset="luck")
    client.force_login(gm)
    assert client.get(f"/battles/{result.battle_id}/replay").status_code == 302


def test_players_and_strangers_cannot_export_or_import(client, ended):
    gm, player, outsider, campaign, battle = ended
    client.force_login(player)
    assert client.get(f"/battles/{battle.pk}/export").status_code == 403
    assert client.get(f"/campaigns/{campaign.pk}/battles/import/").status_code == 403
    client.force_login(outsider)
    assert client.get(f"/battles/{battle.pk}/export").status_code == 404
    assert client.get(f"/battles/{battle.pk}/replay").status_code == 404
    assert client.get(f"/campaigns/{campaign.pk}/battles/import/").status_code == 404


def _edited(data: dict, change) -> bytes:
    data = json.loads(json.dumps(data))
    change(data)
    return json.dumps(data).encode()


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        (lambda d: d["events"][1]["data"]["combatant"].update({"name": "Mallory"}), "was edited"),
        (lambda d: d["events"][1].update({"type": "no.such"}), "was edited"),
        (lambda d: d["events"][0]["data"].update({"width": "wide"}), "was edited"),
        (lambda d: d["final"].update({"round": 99}), "final state"),
        (lambda d: d.update({"ruleset": "mist"}), "another ruleset"),
        (lambda d: d.update({"extra": 1}), "unknown parts"),
        (lambda d: d.update({"events": []}), "no event log"),
        (lambda d: d.update({"format": "x"}), "not a battle file"),
    ],
)
def test_an_edited_or_foreign_battle_file_is_refused_and_nothing_is_written(client, ended, change, reason):
    gm, _, _, campaign, battle = ended
    client.force_login(gm)
    before = Battle.objects.count()
    body = _edited(archive.export_battle(battle), change)
    response = client.post(f"/campaigns/{campaign.pk}/battles/import/", {"file": _file(body)})
    assert response.status_code == 400 and reason in html.unescape(response.content.decode())
    assert Battle.objects.count() == before


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        (b"not json", "not valid JSON"),
        (b"[" * 5000 + b"]" * 5000, "nested too deeply"),
        (b'{"format": "vtt-battle", "format": "vtt-battle"}', "twice"),
        (b" " * (2 * 1024 * 1024 + 1), "too large"),
    ],
)
def test_bad_battle_files_are_refused_with_the_reason(client, ended, body, reason):
    gm, _, _, campaign, _ = ended
    client.force_login(gm)
    before = Battle.objects.count()
    response = client.post(f"/campaigns/{campaign.pk}/battles/import/", {"file": _file(body)})
    assert response.status_code == 400 and reason in html.unescape(response.content.decode())
    assert Battle.objects.count() == before
