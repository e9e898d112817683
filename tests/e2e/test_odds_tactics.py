"""The GM checks the odds of a set-up, watches the bar move, starts the battle and lets the tactics play the
monster's turn; the players see the monster's action and its reason, and never a byte of the odds.

With ``VTT_SHOTS=1`` (or a folder's path) it keeps screenshots of the odds panel and of the tactics'
turn in the log at 1280 and 390 px (``odds-panel-1280.png``, ``tactics-turn-log-390.png``...), in
tests/e2e/artifacts/ or that folder; each after checking what it shows.
"""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from combat import services
from combat.engine.actions import Action
from combat.engine.core import resolve
from combat.engine.dice import Dice
from combat.models import Battle, BattleEvent
from tests.e2e.conftest import OPEN_PAGES, PHONE, shots_folder
from tests.e2e.seats import WAIT, ford_battle, login, make_table, off_loop, open_seats, wait_live


def _setup_battle(t) -> int:
    """A Luck battle in set-up, its seed chosen so that the monster acts first once it starts."""
    battle = ford_battle(t, {"alice": [0, 0], "bob": [0, 2], "monster": [6, 1]})
    state = services.load_state(battle)
    for seed in range(500):
        out = resolve(state, Action("setup.start"), Dice(seed, battle.seq))
        if out[1].current().name == "Grik":
            Battle.objects.filter(pk=battle.pk).update(seed=seed)
            return battle.pk
    raise AssertionError("no seed lets the monster act first")


def _fits_the_width(page: Page, selector: str) -> None:
    """Nothing but the board scrolls sideways: not the page, not the element."""
    sizes = page.evaluate(
        """(sel) => { const e = document.querySelector(sel);
             return [document.documentElement.scrollWidth, window.innerWidth, e.scrollWidth, e.clientWidth]; }""",
        selector,
    )
    page_width, viewport, inner, outer = sizes
    assert page_width <= viewport and inner <= outer + 1, (selector, sizes)


def _shot(page: Page, selector: str, name: str) -> None:
    """With ``VTT_SHOTS``: the viewport with ``selector`` scrolled into view."""
    folder = shots_folder()
    if folder is None:
        return
    folder.mkdir(parents=True, exist_ok=True)
    # Its top at the top of the screen: on a phone the action sheet covers the bottom.
    page.locator(selector).evaluate("e => e.scrollIntoView({block: 'start'})")
    page.screenshot(path=str(folder / f"{name}.png"))


def _gm_phone(browser, base: str, username: str, url: str) -> Page:
    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    context.set_default_timeout(WAIT)
    page = context.new_page()
    OPEN_PAGES.append(("gm-phone", page))
    login(page, base, username)
    page.goto(url)
    wait_live(page)
    return page


def test_the_gm_checks_the_odds_then_lets_the_tactics_play_the_monster(browser, asgi_server):
    t = off_loop(lambda: make_table("luck"))
    battle_id = off_loop(lambda: _setup_battle(t))
    url = f"{asgi_server}/battles/{battle_id}/"
    seats = open_seats(browser, asgi_server, t["users"])
    frames: dict[str, list[str]] = {"alice": [], "bob": []}
    for name in frames:
        page = seats[name].page
        page.on(
            "websocket", lambda ws, name=name: ws.on("framereceived", lambda f: frames[name].append(str(f)))
        )
    for seat in seats.values():
        seat.page.goto(url)
        wait_live(seat.page)
    gm = seats["gm"].page
    panel = gm.locator("#odds-panel")
    expect(panel.get_by_role("heading", name="The odds")).to_be_visible()
    panel.get_by_role("button", name="Check the odds").click()
    # The bar moves: the runner's progress arrives over the battle's socket before the result.
    expect(panel.get_by_role("progressbar", name="Fights played")).to_be_visible(timeout=WAIT)
    gm.wait_for_function(
        "() => { const p = document.querySelector('#odds-panel progress'); return p && p.value > 0; }",
        timeout=WAIT * 3,
    )
    expect(panel.locator(".odds-win")).to_contain_text("the party wins", timeout=WAIT * 6)
    win = panel.locator(".odds-win strong").inner_text()
    assert re.fullmatch(r"\d{1,3}%", win), win
    table = panel.get_by_role("table", name="Each character over the fights")
    expect(table.get_by_role("rowheader", name="Alia")).to_be_visible()
    expect(table.get_by_role("rowheader", name="Boro")).to_be_visible()
    # What the fight spends (Alia's potion) in words; nothing of what every turn gives back.
    expect(table).to_contain_text(re.compile(r"Healing Potion [\d.]+\sof\s1"))
    expect(table).not_to_contain_text("Actions")
    expect(panel.get_by_role("img", name=re.compile(r"Party wins \d+% of the fights"))).to_be_visible()
    _fits_the_width(gm, "#odds-panel")
    _shot(gm, "#odds-panel", "odds-panel-1280")
    phone = _gm_phone(browser, asgi_server, t["users"]["gm"].username, url)
    phone_panel = phone.locator("#odds-panel")
    expect(phone_panel.locator(".odds-win")).to_contain_text("the party wins")  # kept: not played again
    expect(phone_panel).to_contain_text(re.compile(r"Healing Potion [\d.]+\sof\s1"))  # on a phone too
    _fits_the_width(phone, "#odds-panel")
    _shot(phone, "#odds-panel", "odds-panel-390")

    gm.get_by_role("button", name="Start the battle").click()
    button = gm.get_by_role("button", name="Let the tactics act for Grik")
    expect(button).to_be_visible()
    button.click()
    expect(button).to_have_count(0, timeout=WAIT)  # the turn was played: the next one has begun
    reasons = off_loop(
        lambda: list(
            BattleEvent.objects.filter(battle_id=battle_id, type="tactics.chose")
            .order_by("seq")
            .values_list("data__reason", flat=True)
        )
    )
    assert reasons and all(r.startswith("Grik ") for r in reasons), reasons
    phone.goto(url)
    wait_live(phone)
    for page in [seat.page for seat in seats.values()] + [phone]:
        log = page.locator("#log")
        for words in reasons:
            expect(log).to_contain_text(words)
        # One line for the end of the monster's turn: its reason, not a second plain "ends the turn."
        expect(log.get_by_text(re.compile(r"^Grik ends the turn"))).to_have_count(1)
    bob = seats["bob"].page
    _fits_the_width(bob, "#log")
    _shot(seats["alice"].page, "#log", "tactics-turn-log-1280")
    _shot(bob, "#log", "tactics-turn-log-390")
    _shot(gm, "#log", "tactics-turn-log-gm-1280")
    for name in ("alice", "bob"):
        page_bytes = seats[name].page.content()
        assert "odds" not in page_bytes.lower() and "the party wins" not in page_bytes
        assert frames[name], "the player's socket received the table's pushes"
        assert not any("odds" in f.lower() or "party wins" in f for f in frames[name])
