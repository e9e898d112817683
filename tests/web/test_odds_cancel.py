"""Cancel stops the work in both runners (a Channels worker and the process pool beside the server):
every chunk looks at its job's stop flag before each fight, so a cancelled job plays at most the fight
under way in each process (well within 2 s: the runner looks at the row every ``TICK``). And a job
spends at most a CPU budget scaled to its set-up, saying so when that cut it short."""

from __future__ import annotations

import itertools
import multiprocessing
import os
import threading
import time
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor

import pytest
from django.db import connection

from combat import odds, odds_chunks, odds_queue, services
from combat.engine.rulesets.luck import HEROES, MONSTERS
from combat.engine.simulate import lineup
from combat.models import Battle, OddsJob
from tests.table import make_campaign, make_user
from vtt.models import Character

HX = {"HTTP_HX_REQUEST": "true"}


def small_battle(gm) -> Battle:
    campaign = make_campaign(gm, "luck", "The Keep")
    bid = services.create_battle(
        campaign, gm, "Ford", 8, 6, ruleset="luck", options=campaign.house_rules(), seed=5
    ).battle_id
    for name, kind, sheet, pos in (
        ("Ayla", "pc", HEROES["Fighter"], [0, 0]),
        ("Goblin", "monster", MONSTERS["Goblin Skirmisher"], [6, 0]),
    ):
        ch = Character.objects.create(campaign=campaign, owner=gm, kind=kind, name=name, sheet=sheet)
        assert services.add_combatant(bid, gm, ch, pos=pos).ok
    return Battle.objects.get(pk=bid)


def queued_job(battle: Battle, gm, fights: int, monkeypatch) -> OddsJob:
    monkeypatch.setattr(odds, "FIGHTS", fights)
    monkeypatch.setattr(odds, "dispatch", lambda: None)  # the test is the runner
    job, message = odds.check(battle.pk, gm)
    assert job is not None and message == ""
    return job


def wait_for(test, what: str, seconds: float = 60.0) -> None:
    """Wait (not a timing claim: the deadline only ends a broken run) until ``test()`` holds."""
    deadline = time.monotonic() + seconds
    while not test():
        assert time.monotonic() < deadline, f"still waiting for {what}"
        time.sleep(0.02)


def run_then_close(job_id: int, attempt: int, pool) -> None:
    try:
        odds.run_job(job_id, attempt, pool)
    finally:
        connection.close()  # this thread's own connection (the test database is dropped after)


@pytest.mark.django_db(transaction=True)
def test_cancel_stops_the_channels_worker_before_its_next_fight(monkeypatch):
    gm = make_user("gm")
    job = queued_job(small_battle(gm), gm, 200, monkeypatch)
    played: list[int] = []
    real_play = odds_chunks.play
    flag = odds_chunks.flag_path(job.pk, job.attempt)

    def play(state, seed):
        played.append(seed)
        if len(played) == 3:  # the GM cancels during the third fight
            assert odds.cancel(job.battle_id, gm)[1] == ""
            connection.close()  # this thread's own connection (the test database is dropped after)
            wait_for(lambda: os.path.exists(flag), "the runner to raise the stop flag")
        return real_play(state, seed)

    monkeypatch.setattr(odds_chunks, "play", play)
    odds.OddsWorker().odds_run({"type": "odds.run"})  # what ``runworker odds`` does with a message
    job.refresh_from_db()
    assert len(played) == 3 and job.status == "cancelled" and job.result is None
    assert not os.path.exists(flag)  # lowered once the job stopped


def test_cancel_a_chunk_in_a_pool_process_stops_before_its_next_fight(tmp_path):
    setup = lineup("luck", [("Ayla", HEROES["Fighter"])], [("Goblin", MONSTERS["Goblin Skirmisher"])])
    flag = str(tmp_path / "stop")
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("forkserver")) as pool:
        assert pool.submit(odds_chunks.play_chunk, setup.to_dict(), [1, 2], flag).result().stopped is False
        chunk = pool.submit(odds_chunks.play_chunk, setup.to_dict(), range(1_000_000), flag)
        odds_chunks.raise_flag(flag)
        out = chunk.result(timeout=120)
    assert out.stopped and len(out.outcomes) < 1_000_000


@pytest.mark.django_db(transaction=True)
def test_cancel_stops_the_embedded_process_pool(client, monkeypatch):
    gm = make_user("gm")
    battle = small_battle(gm)
    job = queued_job(battle, gm, 100_000, monkeypatch)  # hours of fights, were they all played
    with ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("forkserver")) as pool:
        runner = threading.Thread(target=run_then_close, args=(job.pk, job.attempt, pool))
        runner.start()
        wait_for(lambda: OddsJob.objects.get(pk=job.pk).done > 0, "the first fights")
        client.force_login(gm)
        assert client.post(f"/battles/{battle.pk}/odds/cancel", **HX).status_code == 200
        runner.join(timeout=120)  # returns once every chunk under way stopped at the flag
        assert not runner.is_alive()
        assert pool.submit(os.getpid).result(timeout=120) > 0  # the pool is free again
    job.refresh_from_db()
    assert job.status == "cancelled" and job.done < job.total and job.result is None
    page = client.get(f"/battles/{battle.pk}/odds").content.decode()
    assert "Cancelled after" in page


@pytest.mark.django_db
def test_cpu_budget_cuts_a_set_up_too_big_to_play_in_full(client, monkeypatch):
    gm = make_user("gm")
    battle = small_battle(gm)
    job = queued_job(battle, gm, 500, monkeypatch)
    ticks = itertools.count()
    monkeypatch.setattr(odds_chunks, "cpu_clock", lambda: float(next(ticks)))  # one CPU second a fight
    budget = odds_queue.cpu_budget(odds_chunks.BattleState.from_dict(job.setup))
    with ThreadPoolExecutor(1) as pool:
        odds.run_job(job.pk, job.attempt, pool)
    job.refresh_from_db()
    assert job.status == "done" and job.result["cut"] is True
    assert budget <= job.done < 500 and job.result["fights"] == job.done
    client.force_login(gm)
    page = client.get(f"/battles/{battle.pk}/odds").content.decode()
    assert "too big to play 500 times in full" in page and f"first {job.done} fights" in page


def test_cpu_budget_is_scaled_to_the_set_up_up_to_a_cap():
    one = lineup("luck", [("Ayla", HEROES["Fighter"])], [("Goblin", MONSTERS["Goblin Skirmisher"])])
    many = lineup(
        "luck",
        [(f"Hero {n}", HEROES["Fighter"]) for n in range(4)],
        [(f"Goblin {n}", MONSTERS["Goblin Skirmisher"]) for n in range(4)],
    )
    huge = lineup(
        "luck",
        [(f"Hero {n}", HEROES["Fighter"]) for n in range(6)],
        [(f"Goblin {n}", MONSTERS["Goblin Skirmisher"]) for n in range(10)],
        width=20,
        height=20,
    )
    assert odds_queue.cpu_budget(one) < odds_queue.cpu_budget(many) <= odds_queue.BUDGET_CAP
    assert odds_queue.cpu_budget(huge) == odds_queue.BUDGET_CAP
