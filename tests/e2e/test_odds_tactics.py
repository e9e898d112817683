"""The GM checks the odds of a set-up, watches the bar move, starts the battle and lets the tactics play the
monster's turn; the players see the monster's action and its reason, and never a byte of the odds.

Screenshots of the odds panel and of a tactics turn in the log, at 1280 and 390 px wide, go to
/work/wt/shots/tactics/ (and tests/e2e/artifacts/).
"""

from __future__ import annotations

import pathlib
import re

from playwright.sync_api import expect

from combat import services
from combat.engine.actions import Action
from combat.engine.core import resolve
from combat.engine.dice import Dice
from combat.models import Battle, BattleEvent
from tests.e2e.conftest import PHONE
from tests.e2e.seats import WAIT, make_table, off_loop, open_seats, wait_live

SHOTS = pathlib.Path("/work/wt/shots/tactics")


def _setup_battle(t) -> int:
    """A Luck battle in set-up (made through the services: the test's business), its seed chosen so
    that the monster acts first once it starts."""
    gm = t["users"]["gm"]
    result = services.create_battle(
        t["campaign"], gm, "Ford", 8, 6, ruleset="luck", options=t["campaign"].house_rules(), seed=7
    )
    assert result.ok, result.reason
    for key, pos in (("alice", [0, 0]), ("bob", [0, 2]), ("monster", [6, 1])):
        assert services.add_combatant(result.battle_id, gm, t["chars"][key], pos=pos).ok
    battle = Battle.objects.get(pk=result.battle_id)
    state = services.load_state(battle)
    for seed in range(500):
        out = resolve(state, Action("setup.start"), Dice(seed, battle.seq))
        if out[1].current().name == "Grik":
            Battle.objects.filter(pk=battle.pk).update(seed=seed)
            return battle.pk
    raise AssertionError("no seed lets the monster act first")


def _save(page, name: str, width: int) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.set_viewport_size({"width": width, "height": 900 if width > 400 else PHONE["height"]})
    page.screenshot(path=str(SHOTS / f"{name}-{width}.png"), full_page=True)


def test_the_gm_checks_the_odds_then_lets_the_tactics_play_the_monster(browser, asgi_server):
    t = off_loop(lambda: make_table("luck"))
    battle_id = off_loop(lambda: _setup_battle(t))
    seats = open_seats(browser, asgi_server, t["users"])
    frames: dict[str, list[str]] = {"alice": [], "bob": []}
    for name in frames:
        page = seats[name].page
        page.on(
            "websocket", lambda ws, name=name: ws.on("framereceived", lambda f: frames[name].append(str(f)))
        )
    for seat in seats.values():
        seat.page.goto(f"{asgi_server}/battles/{battle_id}/")
        wait_live(seat.page)
    gm = seats["gm"].page
    panel = gm.locator("#odds-panel")
    expect(panel.get_by_role("heading", name="The odds")).to_be_visible()
    panel.get_by_role("button", name="Check the odds").click()
    # The bar moves: the runner's progress arrives over the battle's socket before the result.
    expect(panel.locator("progress")).to_be_visible(timeout=WAIT)
    gm.wait_for_function(
        "() => { const p = document.querySelector('#odds-panel progress'); return p && p.value > 0; }",
        timeout=WAIT * 3,
    )
    expect(panel.locator(".odds-win")).to_contain_text("the party wins", timeout=WAIT * 6)
    win = panel.locator(".odds-win strong").inner_text()
    assert re.fullmatch(r"\d{1,3}%", win), win
    expect(panel.locator(".odds-table")).to_contain_text("Alia")
    expect(panel.locator(".odds-table")).to_contain_text("Boro")
    _save(gm, "odds-panel", 1280)
    _save(gm, "odds-panel", 390)
    gm.set_viewport_size({"width": 1280, "height": 800})

    gm.get_by_role("button", name="Start the battle").click()
    button = gm.get_by_role("button", name="Let the tactics act for Grik")
    expect(button).to_be_visible()
    button.click()
    expect(button).to_have_count(0, timeout=WAIT)  # the turn was played: the next one has begun
    reason = off_loop(
        lambda: BattleEvent.objects.filter(battle_id=battle_id, type="tactics.chose").order_by("seq").first()
    )
    assert reason is not None
    words = reason.data["reason"]
    assert words.startswith("Grik ")
    for seat in seats.values():
        expect(seat.page.locator("#log")).to_contain_text(words)
    _save(seats["alice"].page, "tactics-turn-log", 1280)
    _save(seats["bob"].page, "tactics-turn-log", 390)
    _save(gm, "tactics-turn-log-gm", 1280)
    for name in ("alice", "bob"):
        page_bytes = seats[name].page.content()
        assert "odds" not in page_bytes.lower() and "the party wins" not in page_bytes
        assert frames[name], "the player's socket received the table's pushes"
        assert not any("odds" in f.lower() or "party wins" in f for f in frames[name])
