"""Faults in the middle of a battle: the server process restarts; Redis restarts.

Server restart: the pages notice the socket closed ("Offline"), the htmx ws
extension reconnects by itself to the new process on the same port, the page
sends the seq it last saw and gets every region fresh, so a change made while
the server was down shows up; the next action through the page works.

Redis restart (needs the redis-server program; make test installs it): a private redis-server
on another 127.0.0.1 port carries the channel layer of a server process, so
the shared Redis is never disturbed. It is stopped mid-battle: actions still
commit (the push is lost, the page says so, nothing else breaks); once Redis
is back, pushes flow again and the database holds every event.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
from typing import Any

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from playwright.sync_api import expect

from combat import services
from combat.models import Battle, BattleEvent
from tests.conftest import need_service
from tests.e2e.conftest import Server
from tests.e2e.seats import (
    WAIT,
    do,
    make_table,
    now_acting,
    off_loop,
    open_seats,
    seq,
    started_battle,
    wait_live,
    wait_seq,
)

# One worker runs the whole module (make test's --dist loadgroup): its tests stop and start servers.
pytestmark = pytest.mark.xdist_group("faults")
# The pages retry a lost socket with a growing, random delay (htmx's ws extension): the longer the
# server was away (a slow start on a busy machine), the longer until the next try.
RECONNECT = 60_000


def _whole_log(battle_id: int) -> int:
    battle = Battle.objects.get(pk=battle_id)
    seqs = list(BattleEvent.objects.filter(battle_id=battle_id).order_by("seq").values_list("seq", flat=True))
    assert seqs == list(range(1, battle.seq + 1))
    assert services.rebuild(battle_id).to_dict() == battle.snapshot
    return battle.seq


def _skip_turn_via_services(battle_id: int, gm: Any) -> int:
    """The GM skips a turn from elsewhere (another server process would do the same)."""

    def skip() -> Any:
        seq_now = Battle.objects.get(pk=battle_id).seq
        return services.gm_override(battle_id, gm, {"kind": "gm.skip_turn", "params": {}}, seq_now)

    result = off_loop(skip)
    assert result.ok, result.reason
    return result.seq


def _open(browser: Any, base: str, t: dict[str, Any], battle: Battle):
    seats = open_seats(browser, base, t["users"])
    for seat in seats.values():
        seat.page.goto(f"{base}/battles/{battle.pk}/")
        wait_live(seat.page)
    return seats


def _act_for_whoever_is_current(seats: dict[str, Any]) -> None:
    """The current combatant's seat ends its turn through the page."""
    gm = seats["gm"].page
    acting = now_acting(gm)
    owner = {"Alia": "alice", "Boro": "bob"}.get(acting, "gm")
    before = seq(gm)
    do(seats[owner].page, "End turn")
    wait_seq(seats, before + 1)
    for seat in seats.values():
        expect(seat.page.locator("#tracker .now strong")).not_to_have_text(acting)


@pytest.mark.django_db(transaction=True)
def test_the_pages_reconnect_after_a_server_restart(live_server_process, browser, shot, tally):
    t = make_table("luck")
    battle = off_loop(lambda: started_battle(t))
    seats = _open(browser, live_server_process.url, t, battle)
    _act_for_whoever_is_current(seats)

    live_server_process.stop()
    for seat in seats.values():
        expect(seat.page.locator("#conn")).to_contain_text("Offline", timeout=WAIT)
    shot(seats["bob"].page, "fault-server-down-bob")
    # While the server is away the battle moves on (another server process would do this).
    moved_to = _skip_turn_via_services(battle.pk, t["users"]["gm"])
    live_server_process.start()

    for seat in seats.values():
        wait_live(seat.page, RECONNECT)
    wait_seq(seats, moved_to)
    acting = now_acting(seats["gm"].page)
    for seat in seats.values():
        expect(seat.page.locator("#tracker .now strong")).to_have_text(acting)
    shot(seats["bob"].page, "fault-server-back-bob")
    _act_for_whoever_is_current(seats)
    _whole_log(battle.pk)
    tally["server restart"] += 1
    for seat in seats.values():
        seat.page.context.close()


def _open_reaction(battle_id: int, gm: Any) -> None:
    """Grik steps next to Alia and, on his turn, hits her with his spear: Alia is asked about Parry.

    The battle's dice seed is chosen so that the attack hits (scripted dice, ENG-2).
    """
    from combat.engine.actions import Action, Refusal
    from combat.engine.core import legal_actions, resolve
    from combat.engine.dice import Dice

    def ids() -> tuple[Any, dict[str, str]]:
        battle = Battle.objects.get(pk=battle_id)
        state = services.load_state(battle)
        return state, {c.name: cid for cid, c in state.combatants.items()}

    state, by_name = ids()
    grik, alia = by_name["Grik"], by_name["Alia"]
    assert services.gm_override(
        battle_id, gm, {"kind": "gm.move", "params": {"combatant": grik, "to": [1, 0]}}
    ).ok
    for _ in range(6):
        state, _ = ids()
        if state.current().id == grik:
            break
        assert services.gm_override(battle_id, gm, {"kind": "gm.skip_turn", "params": {}}).ok
    state, _ = ids()
    seq_now = Battle.objects.get(pk=battle_id).seq
    for option in legal_actions(state, grik):
        if option.available and alia in option.targets:
            action = Action(option.kind, grik, {**option.params, "targets": [alia]})
            for seed in range(3000):
                outcome = resolve(state, action, Dice(seed, seq_now))
                if not isinstance(outcome, Refusal) and outcome[1].pending is not None:
                    Battle.objects.filter(pk=battle_id).update(seed=seed)
                    payload = {"kind": action.kind, "actor": grik, "params": action.params}
                    assert services.submit_action(battle_id, gm, payload).ok
                    return
    raise AssertionError("no attack on Alia opens a reaction")


@pytest.mark.django_db(transaction=True)
def test_a_prompt_opened_while_the_server_was_down_is_answered_after_it_returns(
    live_server_process, browser, tally
):
    t = make_table("luck")
    battle = off_loop(lambda: started_battle(t))
    seats = _open(browser, live_server_process.url, t, battle)
    live_server_process.stop()
    for seat in seats.values():
        expect(seat.page.locator("#conn")).to_contain_text("Offline", timeout=WAIT)
    off_loop(lambda: _open_reaction(battle.pk, t["users"]["gm"]))
    pending_at = Battle.objects.get(pk=battle.pk).seq
    live_server_process.start()

    for seat in seats.values():
        wait_live(seat.page, RECONNECT)
    wait_seq(seats, pending_at)
    prompt = seats["alice"].page.locator("#prompt")
    expect(prompt).to_be_visible()
    expect(seats["bob"].page.locator("#prompt")).to_be_hidden()
    prompt.get_by_role("button", name="Take the hit").click()
    wait_seq(seats, pending_at + 1)
    for name in ("gm", "bob"):
        expect(seats[name].page.locator("#tracker .pending")).to_have_count(0)
    _whole_log(battle.pk)
    tally["server restart with a pending prompt"] += 1
    for seat in seats.values():
        seat.page.context.close()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _redis_server(port: int) -> subprocess.Popen:
    proc = subprocess.Popen(
        ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    import redis

    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            redis.Redis(host="127.0.0.1", port=port, socket_connect_timeout=0.2).ping()
            return proc
        except redis.ConnectionError:
            time.sleep(0.05)
    proc.kill()
    raise AssertionError("private redis-server did not start")


def _stop(proc: subprocess.Popen) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:  # pragma: no cover
        proc.kill()
        proc.wait(timeout=5)


@pytest.mark.django_db(transaction=True)
def test_live_updates_resume_after_redis_restarts(transactional_db, browser, shot, tally):
    # The test runs a private redis-server of its own (the shared one, if any, is left alone).
    if not shutil.which("redis-server"):
        need_service("redis-server is not installed")
    port = _free_port()
    redis_proc = _redis_server(port)
    server = Server(env={"REDIS_URL": f"redis://127.0.0.1:{port}/0", "CHANNEL_PREFIX": f"fault{port}"})
    try:
        t = make_table("luck")
        battle = off_loop(lambda: started_battle(t))
        seats = _open(browser, server.url, t, battle)
        _act_for_whoever_is_current(seats)  # live over the private Redis

        _stop(redis_proc)
        # Redis is gone: the GM's action still commits through the page; its push is lost.
        gm = seats["gm"].page
        before = Battle.objects.get(pk=battle.pk).seq
        with gm.expect_response(lambda r: r.url.endswith("/act")) as answer:
            gm.get_by_role("button", name="Skip this turn").click()
        assert answer.value.status == 200
        assert Battle.objects.get(pk=battle.pk).seq > before
        shot(seats["alice"].page, "fault-redis-down-alice")
        redis_proc = _redis_server(port)

        # Redis is back: the GM acts again (a stale page is refused and refreshed first); the
        # push reaches every page, which then shows the battle as the database has it. The server's
        # subscriptions come back within a second or two: until then a push is lost, and the GM acts
        # again after 3 s.
        deadline = time.monotonic() + 30
        while True:
            with gm.expect_response(lambda r: r.url.endswith("/act")):
                gm.get_by_role("button", name="Skip this turn").click()
            target = Battle.objects.get(pk=battle.pk).seq
            try:
                wait_seq({k: v for k, v in seats.items() if k != "gm"}, target, timeout=3_000)
                break
            except (AssertionError, PlaywrightTimeout):
                assert time.monotonic() < deadline, "live updates did not resume after Redis returned"
        _act_for_whoever_is_current(seats)
        shot(seats["alice"].page, "fault-redis-back-alice")
        final = _whole_log(battle.pk)
        for seat in seats.values():
            expect(seat.page.locator("#battle-seq")).to_have_attribute("data-seq", str(final))
        tally["redis restart"] += 1
        for seat in seats.values():
            seat.page.context.close()
    finally:
        server.stop()
        _stop(redis_proc)
