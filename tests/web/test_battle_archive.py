"""Every battle kept: the campaign lists it, an ended battle replays step by step, and a battle exported
as JSON imports into another campaign rebuilding the same final state (checked by the engine's replay)."""

from __future__ import annotations

import contextlib
import html
import json

import pytest

from combat import archive, services
from combat.engine.rulesets import RULESETS
from combat.models import Battle, BattleEvent
from tests.table import make_campaign, make_user, play_battle

pytestmark = pytest.mark.django_db


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
    start = next(i for i, e in enumerate(events, 1) if e.type == "battle.started")
    for step in (1, start, start + 2, len(events)):
        page = client.get(f"/battles/{battle.pk}/replay?step={step}").content.decode()
        assert f"Step {step} of {len(events)}" in page
        assert f'data-seq="{step}"' in page or step == 1  # the newest log entry shown is this step's
        assert f'data-seq="{step + 1}"' not in page  # nothing after it
    # The steps of the set-up show the players what they saw then: their party, no enemy yet.
    enemy = next(c["name"] for c in battle.snapshot["combatants"].values() if c["side"] == "enemy")
    assert enemy not in client.get(f"/battles/{battle.pk}/replay?step={start - 1}").content.decode()
    assert enemy in client.get(f"/battles/{battle.pk}/replay?step={start}").content.decode()
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


# ---------------------------------------------------------------- issue 22, point 2: a forged record is refused


def _forged(battle: Battle, change) -> bytes:
    """The battle's export edited by ``change(data)``, its final state recomputed by the engine's own replay:
    what a forger who read the source would upload (the old check, log replays to the final, passes)."""
    from combat.engine.core import replay

    data = json.loads(json.dumps(archive.export_battle(battle)))
    change(data)
    with contextlib.suppress(Exception):  # a change the replay itself refuses: the file keeps its old final
        data["final"] = replay(data["events"]).to_dict()
    return json.dumps(data).encode()


def _import(client, campaign, body: bytes):
    before = (Battle.objects.count(), BattleEvent.objects.count())
    response = client.post(f"/campaigns/{campaign.pk}/battles/import/", {"file": _file(body)})
    return response, html.unescape(response.content.decode()), before


def _added(data: dict) -> dict:
    return next(e for e in data["events"] if e["type"] == "combatant.added")["data"]["combatant"]


def _first_roll(data: dict) -> dict:
    return next(e for e in data["events"] if e["data"].get("rolls"))["data"]


def _fake_face(data: dict) -> None:
    event = _first_roll(data)
    roll = event["rolls"][0]
    roll["faces"] = [1 if f != 1 else 2 for f in roll["faces"]]
    roll["total"] += sum(roll["faces"]) - sum(event["rolled"]["faces"][: len(roll["faces"])])
    event["rolled"] = {
        "expression": " + ".join(r["expr"] for r in event["rolls"]),
        "faces": [f for r in event["rolls"] for f in r["faces"]],
        "total": sum(r["total"] for r in event["rolls"]),
    }


FORGERIES = {
    "a board 1,000,000 squares wide": (
        lambda d: d["events"][0]["data"].update({"width": 1_000_000}),
        "Board size must be 1 to 100",
    ),
    "a width written as text": (
        lambda d: d["events"][0]["data"].update({"width": "8"}),
        "width: '8' is not a whole number",
    ),
    "a max HP written as text": (lambda d: _added(d).update({"max_hp": "12"}), "HP must be whole numbers"),
    "an HP in the sheet written as text": (
        lambda d: _added(d)["sheet"].update({"hp": str(_added(d)["sheet"]["hp"])}),
        "not written as the table writes them",
    ),
    "a house rule that fails its schema": (
        lambda d: d["events"][0]["data"]["options"].update({"npc_reactions": "sometimes"}),
        "Invalid options: npc_reactions",
    ),
    "content dice that cannot be rolled": (
        lambda d: d["events"][0]["data"].update(
            {"content": {"abilities": {"doom": {**_ability(), "name": "Doom", "dice": "1001d6"}}}}
        ),
        "At most 100 dice",
    ),
    "a forged die": (_fake_face, "forged rolls"),
    "a NUL in a name": (lambda d: _added(d).update({"name": "Gob\u0000lin"}), "NUL"),
    "61 combatants": (lambda d: _many_combatants(d, 61), "at most 60 combatants"),
    "a combatant off the board": (lambda d: _added(d).update({"pos": [50, 50]}), "off the board"),
    "a turn order naming no one": (
        lambda d: next(e for e in d["events"] if e["type"] == "order.set")["data"].update({"order": ["c99"]}),
        "turn order",
    ),
    "a value the rules do not keep": (
        lambda d: d["events"].insert(2, {"type": "battle.extra", "data": {"set": {"content": "junk"}}}),
        "not a value the rules keep",
    ),
}


def _ability() -> dict:
    return next(iter(RULESETS["luck"].content["abilities"].values()))


def _many_combatants(data: dict, count: int) -> None:
    model = _added(data)
    at = next(i for i, e in enumerate(data["events"]) if e["type"] == "combatant.added")
    for n in range(count):
        extra = {**model, "id": f"c{100 + n}", "name": f"Extra {n}", "pos": None}
        data["events"].insert(at, {"type": "combatant.added", "data": {"combatant": extra}})


@pytest.mark.parametrize("forgery", sorted(FORGERIES))
def test_point_2_a_forged_battle_file_is_refused_with_a_message_and_nothing_written(client, ended, forgery):
    gm, _, _, campaign, battle = ended
    change, message = FORGERIES[forgery]
    client.force_login(gm)
    response, text, before = _import(client, campaign, _forged(battle, change))
    assert response.status_code == 400 and message in text, text[-600:]
    assert (Battle.objects.count(), BattleEvent.objects.count()) == before


def test_the_unforged_file_still_imports(client, ended):
    gm, _, _, campaign, battle = ended
    client.force_login(gm)
    response, _, before = _import(client, campaign, _forged(battle, lambda d: None))
    assert response.status_code == 302 and Battle.objects.count() == before[0] + 1


def test_point_2_only_the_campaigns_gm_imports(client, ended):
    gm, player, _, campaign, battle = ended
    body = json.dumps(archive.export_battle(battle)).encode()
    before = Battle.objects.count()
    client.force_login(player)
    assert client.post(f"/campaigns/{campaign.pk}/battles/import/", {"file": _file(body)}).status_code == 403
    done = archive.import_battle(campaign, body, player)  # the write itself checks the role too
    assert not done.ok and "GM" in done.reason
    assert Battle.objects.count() == before
