"""Odds jobs belong to their table: a job is its battle's and campaign's alone (a finished result may be
reused for an identical set-up), runners take jobs fairly, campaign after campaign, a GM queues at most
three at once, and a queued job waits as long as a runner beats."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta

import pytest
from django.utils import timezone

from combat import odds, odds_queue, services
from combat.engine.rulesets.luck import HEROES, MONSTERS
from combat.models import Battle, OddsJob, OddsRunner
from tests.table import make_campaign, make_user
from vtt.models import Campaign, Character

pytestmark = pytest.mark.django_db
HX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture(autouse=True)
def few_fights(monkeypatch):
    monkeypatch.setattr(odds, "FIGHTS", 12)


def table(gm, name: str = "The Keep", goblin: str = "Goblin", campaign: Campaign | None = None) -> Battle:
    """A D20 Luck battle in set-up in a campaign of ``gm``'s (a new one named ``name`` unless given):
    a fighter against a goblin (the same set-up in every campaign unless ``goblin`` is named otherwise)."""
    campaign = campaign or make_campaign(gm, "luck", name)
    result = services.create_battle(
        campaign, gm, "Ford", 8, 6, ruleset="luck", options=campaign.house_rules(), seed=5
    )
    bid = result.battle_id
    ayla = Character.objects.create(campaign=campaign, owner=gm, name="Ayla", sheet=HEROES["Fighter"])
    assert services.add_combatant(bid, gm, ayla, pos=[0, 0]).ok
    foe = Character.objects.create(
        campaign=campaign, kind="monster", name=goblin, sheet=MONSTERS["Goblin Skirmisher"]
    )
    assert services.add_combatant(bid, gm, foe, pos=[6, 0]).ok
    return Battle.objects.get(pk=bid)


def ask(battle: Battle, gm, captured) -> tuple[OddsJob | None, str, int]:
    with captured(execute=False) as callbacks:
        job, message = odds.check(battle.pk, gm)
    return job, message, len(callbacks)


def test_jobs_owned_by_their_battle_never_cross_campaigns(client, django_capture_on_commit_callbacks):
    gm_a, gm_b = make_user("gm"), make_user("other_gm")
    first, second = table(gm_a, "North"), table(gm_b, "South")
    job_a, _, _ = ask(first, gm_a, django_capture_on_commit_callbacks)
    job_b, message, dispatched = ask(second, gm_b, django_capture_on_commit_callbacks)
    assert job_a and job_b and message == "" and dispatched == 1  # B's own job, queued for B
    assert job_a.key == job_b.key and job_a.pk != job_b.pk
    assert (job_a.campaign_id, job_b.campaign_id) == (first.campaign_id, second.campaign_id)
    OddsJob.objects.filter(pk=job_a.pk).update(status="running", done=7, beat=timezone.now())
    # B sees only B's job: never A's progress.
    client.force_login(gm_b)
    page = client.get(f"/battles/{second.pk}/odds").content.decode()
    assert "Waiting for a worker" in page and "7 of" not in page
    # B cancels: B's job stops, A's keeps running.
    assert client.post(f"/battles/{second.pk}/odds/cancel", **HX).status_code == 200
    assert OddsJob.objects.get(pk=job_b.pk).status == "cancelled"
    assert OddsJob.objects.get(pk=job_a.pk).status == "running"
    # B never waits on A's job: retried, B's job is queued again on its own.
    job_b, message, dispatched = ask(second, gm_b, django_capture_on_commit_callbacks)
    assert job_b is not None and (job_b.status, message, dispatched) == ("queued", "", 1)
    # And A's GM, asking again, still sees A's own running job.
    client.force_login(gm_a)
    assert "Playing the fight: 7 of 12" in client.get(f"/battles/{first.pk}/odds").content.decode()


def test_jobs_owned_by_their_battle_reuse_a_finished_result_of_an_identical_set_up(
    django_capture_on_commit_callbacks,
):
    gm_a, gm_b = make_user("gm"), make_user("other_gm")
    first, second = table(gm_a, "North"), table(gm_b, "South")
    job_a, _, _ = ask(first, gm_a, django_capture_on_commit_callbacks)
    assert job_a is not None
    odds.run_job(job_a.pk, job_a.attempt)
    job_a.refresh_from_db()
    job_b, message, dispatched = ask(second, gm_b, django_capture_on_commit_callbacks)
    assert job_b is not None and (job_b.status, message, dispatched) == ("done", "", 0)  # nothing to play
    assert job_b.pk != job_a.pk and job_b.result == job_a.result and job_b.battle_id == second.pk


def test_fair_queue_refuses_a_fourth_waiting_job_of_one_gm(client, django_capture_on_commit_callbacks):
    gm = make_user("gm")
    keep = make_campaign(gm, "luck", "North")
    battles = [table(gm, goblin=f"Goblin {n}", campaign=keep) for n in range(5)]
    answers = [ask(b, gm, django_capture_on_commit_callbacks) for b in battles[:3]]
    assert [(j is not None and j.status, m, d) for j, m, d in answers] == [("queued", "", 1)] * 3
    job, message, dispatched = ask(battles[3], gm, django_capture_on_commit_callbacks)
    assert job is None and dispatched == 0 and "already have 3 odds checks waiting" in message
    client.force_login(gm)
    response = client.post(f"/battles/{battles[4].pk}/odds", **HX)
    assert (
        response.status_code == 400 and "wait for one to finish, or cancel one" in response.content.decode()
    )
    assert OddsJob.objects.filter(status="queued").count() == 3


def test_fair_queue_twenty_jobs_of_one_gm_never_starve_another_campaign(
    client, django_capture_on_commit_callbacks
):
    gm_a, gm_b = make_user("gm"), make_user("other_gm")
    keep = make_campaign(gm_a, "luck", "North")
    crowd = [table(gm_a, goblin=f"Goblin {n}", campaign=keep) for n in range(20)]
    asked = [ask(b, gm_a, django_capture_on_commit_callbacks) for b in crowd]
    assert sum(1 for job, message, _ in asked if message == "" and job is not None) == 3
    assert all("already have 3 odds checks waiting" in m for _, m, _ in asked[3:])
    lone = table(gm_b, "South")
    job_b, message, _ = ask(lone, gm_b, django_capture_on_commit_callbacks)
    assert job_b is not None and message == ""
    # B's job is next but one: after A's first job (queued before it), before A's others.
    assert odds_queue.position(job_b) == 2
    client.force_login(gm_b)
    assert "1 check ahead of this one" in client.get(f"/battles/{lone.pk}/odds").content.decode()
    played = []
    with ThreadPoolExecutor(max_workers=1) as pool:
        while odds.run_next(pool):
            played.append(OddsJob.objects.filter(status="done").latest("beat").campaign_id)
    a, b = crowd[0].campaign_id, lone.campaign_id
    # B finished after one job of A's plus its own, whatever A had queued.
    assert played[:2] == [a, b] and played == [a, b, a, a]


def test_fair_queue_round_robin_serves_the_campaign_served_longest_ago_first():
    gm_a, gm_b = make_user("gm"), make_user("other_gm")
    keep = make_campaign(gm_a, "luck", "North")
    a = [table(gm_a, goblin=f"Goblin {n}", campaign=keep) for n in range(2)]
    b = table(gm_b, "South")
    now = timezone.now()
    for n, battle in enumerate([*a, b]):
        OddsJob.objects.create(
            battle=battle,
            campaign_id=battle.campaign_id,
            key=f"k{n}",
            status="queued",
            queued=now + timedelta(seconds=n),
            requested_by=gm_a if battle in a else gm_b,
        )
    # A was served a minute ago, B never: B's job goes first, though queued last.
    OddsJob.objects.create(
        battle=None,
        campaign_id=a[0].campaign_id,
        key="old",
        status="done",
        started=now - timedelta(minutes=1),
    )
    assert [j.campaign_id for j in odds_queue.queue()] == [b.campaign_id, a[0].campaign_id, a[0].campaign_id]


def test_liveness_by_heartbeat_a_queued_job_waits_while_a_runner_beats(
    client, django_capture_on_commit_callbacks
):
    gm = make_user("gm")
    battle = table(gm)
    job, _, _ = ask(battle, gm, django_capture_on_commit_callbacks)
    assert job is not None
    long_ago = timezone.now() - timedelta(minutes=5)
    OddsJob.objects.filter(pk=job.pk).update(queued=long_ago, beat=long_ago)
    OddsRunner.objects.create(name="busy elsewhere", beat=timezone.now())
    client.force_login(gm)
    page = client.get(f"/battles/{battle.pk}/odds").content.decode()
    assert "Waiting for a worker" in page and "No worker" not in page  # behind others, not dead
    assert OddsJob.objects.get(pk=job.pk).status == "queued"
    OddsRunner.objects.update(beat=long_ago)  # every runner went quiet
    page = client.get(f"/battles/{battle.pk}/odds").content.decode()
    assert "No worker is running" in page and ">Retry</button>" in page
