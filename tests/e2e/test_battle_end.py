"""The end of a battle in the browser: the GM takes the monster down from its menu, the rules end the
battle, and the GM opens the summary from the tracker: who won and in how many rounds, every
combatant's HP, and one write-back card per player's character (none for the monster).

With ``VTT_SHOTS=<folder>`` it keeps the summary at 1280 and 390 px (``battle-summary-1280.png``,
``battle-summary-390.png``), each after checking what it shows.
"""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from tests.e2e.conftest import LAPTOP, shots_folder
from tests.e2e.seats import (
    combatant_ids,
    gm_set_hp,
    make_table,
    off_loop,
    seat_page,
    started_battle,
)


def _shot(page: Page, name: str) -> None:
    folder = shots_folder()
    if folder is None:
        return
    folder.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(folder / f"{name}.png"), full_page=True)


def _checked(page: Page) -> None:
    """What the summary shows: the verdict, every combatant, the cards of the players' characters only."""
    expect(page.locator("#outcome-title")).to_have_text(re.compile(r"^The party won in \d+ rounds?\.$"))
    fought = page.locator("ul.fought li")
    expect(fought).to_have_count(3)
    expect(page.locator("ul.fought")).to_contain_text("Grik")
    expect(page.locator("ul.fought")).to_contain_text("down")
    cards = page.locator("section.card h2[id^=sum-]")
    expect(cards).to_have_count(2)
    assert sorted(cards.all_inner_texts()) == ["Alia", "Boro"]
    assert page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth")


def test_the_gm_ends_a_battle_and_reads_who_won_and_what_goes_back_to_the_sheets(browser, asgi_server):
    t = off_loop(lambda: make_table("luck"))
    battle = off_loop(lambda: started_battle(t))
    url = f"{asgi_server}/battles/{battle.pk}/"
    gm = seat_page(browser, asgi_server, t["users"]["gm"].username, url, "gm", LAPTOP)
    gm_set_hp(gm, combatant_ids(gm)["Grik"], 0)
    expect(gm.locator("#tracker .result")).to_contain_text("party")
    gm.get_by_role("link", name="Battle summary").click()
    _checked(gm)
    _shot(gm, "battle-summary-1280")
    phone = seat_page(browser, asgi_server, t["users"]["gm"].username, url, "gm-phone")
    phone.get_by_role("link", name="Battle summary").click()
    _checked(phone)
    _shot(phone, "battle-summary-390")
