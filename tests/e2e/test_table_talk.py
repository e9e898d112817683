"""The whole session at the table, in Chromium: a GM and Alice on laptops, Bob on a phone.

The GM covers the map with fog and reveals the party's side; Alice greets the table, whispers to
Bob and tries a stored script in a message (it shows as text everywhere); Bob rolls inside a line
and with /r;
Alice pings a square (the others see it within a second); the GM measures a distance with the ruler,
shown to the table (the number is the engine's); the GM reveals the monster's corner (it appears on
the players' boards at once). Screenshots at 390 and 1280 px go to tests/e2e/artifacts/talk-*.png.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from combat.engine.board import distance
from combat.engine.rulesets import get_ruleset
from combat.models import Battle
from combat.services import load_state
from tests.e2e.conftest import LAPTOP, PHONE, save_shot
from tests.e2e.seats import BOARD_STILL, WAIT, battle_on_a_map, make_table, open_seats, seq, wait_live

XSS = '<img src=x onerror="window.__xss=1"><script>window.__xss=2</script>'


def square_at(page: Page, x: int, y: int) -> tuple[float, float]:
    """The page coordinates of a square's centre."""
    board = page.locator("#board")
    board.scroll_into_view_if_needed()
    box = board.bounding_box()
    assert box is not None
    size = box["width"] / int(board.get_attribute("data-width") or 1)
    return box["x"] + (x + 0.5) * size, box["y"] + (y + 0.5) * size


def drag(page: Page, start: tuple[int, int], end: tuple[int, int]) -> None:
    page.locator("#board").scroll_into_view_if_needed()
    page.wait_for_function(BOARD_STILL, polling=50)
    page.mouse.move(*square_at(page, *start))
    page.mouse.down()
    page.mouse.move(*square_at(page, *end), steps=8)
    page.mouse.up()


def fog_tool(gm: Page, name: str) -> None:
    gm.locator("[data-fog-menu] > summary").click()
    gm.get_by_role("button", name=name).click()


def say(page: Page, text: str) -> None:
    box = page.locator("#chat-text")
    box.fill(text)
    box.press("Enter")
    expect(box).to_have_value("")


def line(page: Page, words: str):
    return page.locator("#chat-log li.chat-line", has_text=words)


def _since(html: str, upto: int) -> str:
    """A page without the log lines told up to seq ``upto`` (each line is told as of its own seq)."""
    return re.sub(
        r'<li class="entry[^"]*" data-seq="(\d+)".*?</li>',
        lambda m: "" if int(m.group(1)) <= upto else m.group(0),
        html,
        flags=re.S,
    )


def shoot(page: Page, name: str) -> None:
    save_shot(page, name, full_page=False)


@pytest.mark.django_db(transaction=True)
def test_chat_whispers_rolls_pings_the_ruler_and_fog_at_a_table_of_three(asgi_server, browser):
    t = make_table("luck")
    battle_id = battle_on_a_map(t)
    names = {k: u.username for k, u in t["users"].items()}
    seats = open_seats(browser, asgi_server, t["users"])
    gm, alice, bob = (seats[k].page for k in ("gm", "alice", "bob"))
    for page in (gm, alice, bob):
        page.goto(f"{asgi_server}/battles/{battle_id}/")
        wait_live(page)
    grik = t["chars"]["monster"].name
    told_before_fog = seq(gm)  # the log's lines up to here were told while Grik was seen: they stay

    # Fog: the GM covers the map, then reveals the party's side; Grik (at E4) stays in the dark.
    fog_tool(gm, "Cover the whole map")
    for page in (alice, bob):
        expect(page.locator("#board .fog")).to_have_count(1)
        expect(page.locator(f'#board .token[title="{grik}"]')).to_have_count(0)
    fog_tool(gm, "Reveal area")
    drag(gm, (0, 0), (3, 11))
    for page in (alice, bob):
        expect(page.locator("#board .fog")).to_have_count(1)
        expect(page.locator("#board .fog")).to_have_attribute("style", re.compile(r"grid-column:5 / span 12"))
        expect(page.locator(f'#board .token[title="{grik}"]')).to_have_count(0)
        assert grik not in _since(page.content(), told_before_fog)
    expect(gm.locator(f'#board .token[title="{grik}"]')).to_have_count(1)
    expect(gm.locator("#board .fog-gm")).to_have_count(1)
    gm.keyboard.press("Escape")

    # Chat: a line for everyone, a whisper, a stored script, an inline roll.
    say(alice, "Hello table, the crypt smells of wet stone")
    expect(line(gm, "smells of wet stone")).to_be_visible()
    say(alice, f"/w {names['bob']} the altar is hollow")
    say(alice, XSS)
    bob.locator("[data-chat-toggle]").click()
    expect(bob.locator("#chat-drawer")).to_have_class(re.compile(r"\bopen\b"))
    for page in (gm, bob):
        expect(line(page, "smells of wet stone")).to_be_visible()
    expect(line(bob, "the altar is hollow")).to_contain_text(f"whispers to {names['bob']}")
    say(bob, "I strike [[1d20+5]] at the shadows")
    for page in (gm, alice, bob):
        roll = line(page, "at the shadows").locator(".roll-inline")
        expect(roll).to_be_visible()
        faces = [int(f) for f in roll.locator(".die").all_inner_texts()]
        assert len(faces) == 1 and int(roll.locator(".roll-total").inner_text()) == faces[0] + 5
        # The script is text on every page, never run.
        expect(line(page, "onerror")).to_contain_text(XSS)
        assert page.evaluate("window.__xss") is None
    say(bob, "/r 2d6+3 Warhammer")
    card = line(gm, "Warhammer").locator(".roll")
    expect(card).to_be_visible()
    faces = [int(f) for f in card.locator(".die").all_inner_texts()]
    assert len(faces) == 2 and int(card.locator(".roll-total").inner_text()) == sum(faces) + 3
    # The whisper reached its two ends only.
    expect(line(alice, "the altar is hollow")).to_be_visible()
    assert "the altar is hollow" not in gm.content()
    shoot(bob, "talk-chat-whisper-roll-390")
    shoot(alice, "talk-chat-beside-the-board-1280")

    # A ping: Alice Alt-clicks a square; the others see it pulse within a second, with her character's name.
    bob.locator("[data-chat-close]").click()
    alice.mouse.move(*square_at(alice, 2, 2))
    alice.keyboard.down("Alt")
    alice.mouse.down()
    alice.mouse.up()
    alice.keyboard.up("Alt")
    for page in (gm, bob):
        ping = page.locator("#board .ping")
        expect(ping).to_have_count(1, timeout=1000)
        expect(ping).to_contain_text(t["chars"]["alice"].name, timeout=1000)
        expect(ping).to_have_attribute("data-square", "2,2", timeout=1000)
    shoot(bob, "talk-ping-390")

    # The ruler: the GM drags from Alia's square to another, shown to the table: the engine's distance.
    gm.locator("[data-ruler]").click()
    expect(gm.locator("[data-ruler-share]")).to_be_checked()
    drag(gm, (3, 3), (7, 9))
    state = load_state(Battle.objects.get(pk=battle_id))
    engine = distance((3, 3), (7, 9), get_ruleset(state.ruleset).metric(state))
    mine = gm.locator("#board .ruler-label.mine")
    expect(mine).to_have_attribute("data-distance", str(engine))
    expect(mine).to_have_text(f"{engine} squares")
    shared = alice.locator("#board .ruler-label:not(.mine)")
    expect(shared).to_have_text(f"{names['gm']}: {engine} squares")
    shoot(alice, "talk-ruler-1280")
    gm.keyboard.press("Escape")

    # Fog revealed live: Grik's corner comes out of the dark on the players' boards.
    shoot(gm, "talk-fog-gm-1280")
    shoot(alice, "talk-fog-player-1280")
    shoot(bob, "talk-fog-player-390")
    gm.set_viewport_size(PHONE)
    expect(gm.locator("#chat-drawer")).to_be_hidden()  # on a phone the chat waits behind its button
    shoot(gm, "talk-fog-gm-390")
    gm.set_viewport_size(LAPTOP)
    fog_tool(gm, "Reveal area")
    drag(gm, (4, 2), (6, 4))
    for page in (alice, bob):
        expect(page.locator(f'#board .token[title="{grik}"]')).to_have_count(1, timeout=WAIT)
