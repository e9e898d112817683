"""House rules per battle, in the browsers: the GM switches "Monsters act on their own" on in the middle
of a battle from the battle page; a player reads the change in the log at once; Undo turns it back; on
again, the monster's next turn plays itself as soon as it comes.

With ``VTT_SHOTS=<folder>`` it keeps the GM's house rules control at 1280 and 390 px
(``house-rules-1280.png``, ``house-rules-390.png``), each after checking what it shows.
"""

from __future__ import annotations

from playwright.sync_api import Page, expect

from combat import services
from combat.engine.actions import Action
from combat.engine.core import resolve
from combat.engine.dice import Dice
from combat.models import Battle
from tests.e2e.conftest import shots_folder
from tests.e2e.seats import do, ford_battle, make_table, off_loop, open_seats, seat_page, wait_live

SAID = "The GM turns on the house rule “Monsters act on their own”."
RULE = "Monsters act on their own"


def _battle(t) -> int:
    """A running Luck battle whose turns go Alia (Alice's), Grik (the monster), then Boro (Bob's)."""
    battle = ford_battle(t, {"alice": [0, 0], "bob": [0, 2], "monster": [6, 1]})
    state = services.load_state(battle)
    for seed in range(500):
        out = resolve(state, Action("setup.start"), Dice(seed, battle.seq))
        if [out[1].combatants[c].name for c in out[1].order] == ["Alia", "Grik", "Boro"]:
            Battle.objects.filter(pk=battle.pk).update(seed=seed)
            assert services.start_battle(battle.pk, t["users"]["gm"]).ok
            return battle.pk
    raise AssertionError("no seed gives the turns Alia, Grik, Boro")


def _rules(page: Page):
    """The GM's house rules of the battle, opened."""
    card = page.locator("details.gm-rules-card")
    if card.get_attribute("open") is None:
        card.locator("> summary").click()
    expect(card.locator("#gm-rules")).to_be_visible()
    return card


def _row(page: Page):
    return _rules(page).locator("form.rule-row", has_text=RULE)


def _shot(page: Page, name: str) -> None:
    folder = shots_folder()
    if folder is None:
        return
    folder.mkdir(parents=True, exist_ok=True)
    _row(page).evaluate("e => e.closest('details').scrollIntoView({block: 'start'})")
    page.screenshot(path=str(folder / f"{name}.png"))


def test_the_gm_switches_monsters_act_on_in_play_and_undo_turns_it_back(browser, asgi_server):
    t = off_loop(lambda: make_table("luck"))
    battle_id = off_loop(lambda: _battle(t))
    url = f"{asgi_server}/battles/{battle_id}/"
    seats = open_seats(browser, asgi_server, t["users"])
    for seat in seats.values():
        seat.page.goto(url)
        wait_live(seat.page)
    gm, alice, bob = (seats[name].page for name in ("gm", "alice", "bob"))
    expect(alice.locator("#actions-title")).to_contain_text("Your turn")
    row = _row(gm)
    expect(row).to_contain_text(f"{RULE}: off")
    row.get_by_role("button", name="Turn on").click()
    # The player reads the change in words; the GM's control says it is on.
    expect(alice.locator("#log-entries")).to_contain_text(SAID)
    expect(bob.locator("#log-entries")).to_contain_text(SAID)
    expect(_row(gm)).to_contain_text(f"{RULE}: on")
    expect(_row(gm).get_by_role("button", name="Turn off")).to_be_visible()
    assert "Grik" not in alice.locator("#log-entries .tactics-reason").all_inner_texts()  # nothing played yet
    _shot(gm, "house-rules-1280")
    # Undo turns it back: off again, and the line gone from the player's log.
    gm.locator("#gm-panel").get_by_role("button", name="Undo last action").click()
    expect(_row(gm)).to_contain_text(f"{RULE}: off")
    expect(alice.locator("#log-entries")).not_to_contain_text(SAID)
    # On again; Alia ends her turn, and Grik's turn plays itself: its reason in the log, then Boro's turn.
    _row(gm).get_by_role("button", name="Turn on").click()
    expect(alice.locator("#log-entries")).to_contain_text(SAID)
    do(alice, "End turn")
    expect(alice.locator("#log-entries .tactics-reason").first).to_contain_text("Grik")
    expect(bob.locator("#actions-title")).to_contain_text("Your turn")
    expect(gm.locator("#tracker .now strong")).to_have_text("Boro")
    # The same control on a phone: the GM's page at 390 px.
    phone = seat_page(browser, asgi_server, t["users"]["gm"].username, url, "gm-phone")
    expect(_row(phone)).to_contain_text(f"{RULE}: on")
    width = phone.evaluate("() => [document.documentElement.scrollWidth, window.innerWidth]")
    assert width[0] <= width[1], width  # nothing scrolls sideways
    _shot(phone, "house-rules-390")
