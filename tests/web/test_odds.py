"""The GM's odds of a set-up: a job outside the request, kept per set-up, failed (with a retry) when its
runner dies, cancellable; players never see any of it."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.utils import timezone

from combat import odds, services
from combat.engine.rulesets.luck import HEROES, MONSTERS
from combat.models import Battle, OddsJob
from tests.table import make_users, table_campaign
from vtt.models import Character

pytestmark = pytest.mark.django_db
HX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture(autouse=True)
def few_fights(monkeypatch):
    monkeypatch.setattr(odds, "FIGHTS", 12)


@pytest.fixture
def setup_battle():
    users = make_users("gm", "player", "other_player", "observer", "outsider")
    campaign = table_campaign(users)
    gm = users["gm"]
    result = services.create_battle(
        campaign, gm, "Ford", 8, 6, ruleset="luck", options=campaign.house_rules(), seed=5
    )
    bid = result.battle_id
    sheets = (
        ("Ayla", HEROES["Fighter"], users["player"], [0, 0]),
        ("Bram", HEROES["Mage"], users["other_player"], [0, 2]),
    )
    for name, sheet, owner, pos in sheets:
        ch = Character.objects.create(campaign=campaign, owner=owner, name=name, sheet=sheet)
        assert services.add_combatant(bid, gm, ch, pos=pos).ok
    goblin = Character.objects.create(
        campaign=campaign, kind="monster", name="Goblin", sheet=MONSTERS["Goblin Skirmisher"]
    )
    assert services.add_combatant(bid, gm, goblin, pos=[6, 0]).ok
    return users, Battle.objects.get(pk=bid)


def check(client, user, battle, captured):
    client.force_login(user)
    with captured(execute=False) as callbacks:
        response = client.post(f"/battles/{battle.pk}/odds", **HX)
    return response, callbacks


def test_the_gm_checks_the_odds_and_the_request_only_queues_the_job(
    client, setup_battle, django_capture_on_commit_callbacks
):
    users, battle = setup_battle
    response, callbacks = check(client, users["gm"], battle, django_capture_on_commit_callbacks)
    job = OddsJob.objects.get()
    assert response.status_code == 200 and job.status == "queued" and job.done == 0
    assert len(callbacks) == 1  # handed to a runner after the commit, never played in the request
    assert (
        'id="odds-panel"' in response.content.decode() and "Waiting for a worker" in response.content.decode()
    )
    odds.run_job(job.pk, job.attempt)  # what the runner does
    job.refresh_from_db()
    assert job.status == "done" and job.done == 12 and 0.0 <= job.result["win"] <= 1.0
    page = client.get(f"/battles/{battle.pk}/odds").content.decode()
    assert "the party wins" in page and "Ayla" in page and "Bram" in page and "Goes down" in page
    assert "HP left" in page and "Check the odds" not in page
    # What the fight spends (Ayla's potion), never what every turn gives back (actions, interrupt).
    assert "Resources left" in page and re.search(r"Healing Potion [01](\.\d)?\sof\s1", page), page
    assert "Actions" not in page and "Interrupt" not in page


def test_the_same_set_up_gives_the_same_figures_without_playing_again(
    client, setup_battle, django_capture_on_commit_callbacks
):
    users, battle = setup_battle
    check(client, users["gm"], battle, django_capture_on_commit_callbacks)
    job = OddsJob.objects.get()
    odds.run_job(job.pk, job.attempt)
    job.refresh_from_db()
    first = job.result
    _, callbacks = check(client, users["gm"], battle, django_capture_on_commit_callbacks)
    assert callbacks == [] and OddsJob.objects.count() == 1  # kept: nothing to play
    moved = services.submit_action(
        battle.pk, users["gm"], {"kind": "setup.place", "params": {"combatant": "c3", "pos": [5, 1]}}
    )
    assert moved.ok, moved.reason
    _, callbacks = check(client, users["gm"], battle, django_capture_on_commit_callbacks)
    assert len(callbacks) == 1 and OddsJob.objects.count() == 2  # a moved goblin is another set-up
    again = OddsJob.objects.exclude(pk=job.pk).get()
    assert again.key != job.key
    odds.run_job(again.pk, again.attempt)
    rerun = OddsJob.objects.get(pk=job.pk)
    assert rerun.result == first


def test_a_job_whose_worker_died_reads_failed_with_a_retry(
    client, setup_battle, django_capture_on_commit_callbacks
):
    users, battle = setup_battle
    check(client, users["gm"], battle, django_capture_on_commit_callbacks)
    job = OddsJob.objects.get()
    OddsJob.objects.filter(pk=job.pk).update(
        status="running", done=5, beat=timezone.now() - timedelta(minutes=2)
    )
    page = client.get(f"/battles/{battle.pk}/odds").content.decode()
    assert "its worker went away" in page and ">Retry</button>" in page and "every 3s" not in page
    _, callbacks = check(client, users["gm"], battle, django_capture_on_commit_callbacks)
    job.refresh_from_db()
    assert (job.status, job.done, job.attempt, len(callbacks)) == ("queued", 0, 2, 1)
    odds.run_job(job.pk, 1)  # the old runner, had it woken: it plays nothing
    job.refresh_from_db()
    assert job.status == "queued"


def test_a_running_job_polls_and_cancels(client, setup_battle, django_capture_on_commit_callbacks):
    users, battle = setup_battle
    response, _ = check(client, users["gm"], battle, django_capture_on_commit_callbacks)
    assert (
        'hx-trigger="every 3s"' in response.content.decode()
        and ">Cancel</button>" in response.content.decode()
    )
    response = client.post(f"/battles/{battle.pk}/odds/cancel", **HX)
    job = OddsJob.objects.get()
    assert response.status_code == 200 and job.status == "cancelled"
    odds.run_job(job.pk, job.attempt)
    job.refresh_from_db()
    assert job.status == "cancelled" and job.result is None


def test_players_never_see_the_odds(client, setup_battle, django_capture_on_commit_callbacks):
    users, battle = setup_battle
    check(client, users["gm"], battle, django_capture_on_commit_callbacks)
    job = OddsJob.objects.get()
    odds.run_job(job.pk, job.attempt)
    gm_page = client.get(f"/battles/{battle.pk}/").content
    assert b'id="odds-panel"' in gm_page and b"the party wins" in gm_page
    for who in ("player", "observer"):
        client.force_login(users[who])
        assert client.get(f"/battles/{battle.pk}/odds").status_code == 403
        assert client.post(f"/battles/{battle.pk}/odds", **HX).status_code == 403
        assert client.post(f"/battles/{battle.pk}/odds/cancel", **HX).status_code == 403
        page = client.get(f"/battles/{battle.pk}/").content
        assert b"odds" not in page.lower() and b"the party wins" not in page
    client.force_login(users["outsider"])
    assert client.get(f"/battles/{battle.pk}/odds").status_code == 404


def test_odds_are_for_a_set_up_with_both_sides_before_the_start(
    client, setup_battle, django_capture_on_commit_callbacks
):
    users, battle = setup_battle
    assert services.start_battle(battle.pk, users["gm"]).ok
    response, callbacks = check(client, users["gm"], battle, django_capture_on_commit_callbacks)
    assert response.status_code == 400 and "before the battle starts" in response.content.decode()
    assert callbacks == [] and not OddsJob.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_the_embedded_runner_plays_the_job_over_the_process_pool_beside_the_server(setup_battle, client):
    import time

    users, battle = setup_battle
    client.force_login(users["gm"])
    assert client.post(f"/battles/{battle.pk}/odds", **HX).status_code == 200  # commits: the runner starts
    job = OddsJob.objects.get()
    deadline = time.monotonic() + 60
    while job.status in ("queued", "running") and time.monotonic() < deadline:
        time.sleep(0.1)  # the runner is another thread and other processes: wait for its row
        job.refresh_from_db()
    assert job.status == "done" and job.done == job.total == 12
    assert [m["name"] for m in job.result["members"]] == ["Ayla", "Bram"]
