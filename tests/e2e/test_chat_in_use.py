"""The chat as a table uses it, in Chromium: a GM and Alice on laptops (1280 x 800), Bob on a phone
(390 x 844, touch).

Ten short lines all show in the laptop's chat at once; Alice rolls a burst of ten (Roll20's dice) and
none is refused; Bob picks Alice's character from the names offered as he types "/w Al" and whispers
to her; Alice picks Boro with the keyboard; Alice's ping reaches the others labelled "Alia" in her
colour; on the phone a roll card's pieces (the sheet value's note, the typed roll, the dice, the
total) never cover each other; on the battle page the GM's "Delete" is a readable link that asks
first. Screenshots (VTT_SHOTS): chat-burst-390/1280, chat-whisper-picker-390/1280,
chat-whisper-sent-390/1280, chat-ping-390.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from combat import marks
from tests.e2e.conftest import save_shot
from tests.e2e.seats import battle_on_a_map, make_table, open_seats, wait_live

BURST = [
    "/r 1d20+5 Attack",
    "/r 4d6k3 Strength",
    "/r 8d6>5 Shots",
    "/r 2d20kh1+3 Advantage",
    "/r 3d6! Fireball",
    "/r 2d10r1 Great weapon",
    "/r 1d20cs>19 Longsword",
    "I strike [[1d8+3]] twice [[1d8+3]]",
    "/r d% Wild magic",
    "/r 4d6d1 Charisma",
]


def say(page: Page, text: str) -> None:
    box = page.locator("#chat-text")
    box.fill(text)
    box.press("Enter")
    expect(box).to_have_value("")
    expect(page.locator("#chat-error")).to_be_hidden()


def lines(page: Page):
    return page.locator("#chat-log li.chat-line")


def boxes_overlap(a: dict, b: dict) -> bool:
    return not (
        a["x"] + a["width"] <= b["x"] + 0.5
        or b["x"] + b["width"] <= a["x"] + 0.5
        or a["y"] + a["height"] <= b["y"] + 0.5
        or b["y"] + b["height"] <= a["y"] + 0.5
    )


# True once the element's box has held still for 300 ms (the chat drawer slides up on a phone).
STILL = """el => {
  const r = el.getBoundingClientRect(), key = [r.x, r.y, r.width, r.height].join(), now = performance.now();
  if (el.__key !== key) { el.__key = key; el.__since = now; return false; }
  return now - el.__since > 300;
}"""


def shoot(page: Page, name: str) -> None:
    """A screenshot of what the person sees with the chat in view (the drawer at rest on a phone)."""
    chat = page.locator("#chat")
    if page.viewport_size["width"] > 900:
        chat.evaluate("el => el.scrollIntoView({block: 'center'})")
    page.wait_for_function(STILL, arg=chat.element_handle(), polling=50)
    save_shot(page, name, full_page=False)


def ten_lines_show_at_once(gm: Page, alice: Page) -> None:
    for i in range(10):
        say(gm, f"Line {i + 1} of the evening")
    expect(lines(alice)).to_have_count(10)
    scroller = alice.locator("[data-chat-scroll]").bounding_box()
    for i in range(10):
        box = lines(alice).nth(i).bounding_box()
        top, bottom = scroller["y"] - 1, scroller["y"] + scroller["height"] + 1
        assert top <= box["y"] and box["y"] + box["height"] <= bottom, i


def a_burst_of_rolls(gm: Page, alice: Page, bob: Page) -> None:
    """Ten rolls as players type them: none refused, each rolled whole."""
    for text in BURST:
        say(alice, text)
    expect(lines(gm)).to_have_count(20)
    expect(gm.locator("#chat-log .roll")).to_have_count(11)  # nine cards, and two rolls in one line
    strength = gm.locator("#chat-log li", has_text="Strength").locator(".roll")
    kept = [int(x) for x in strength.locator(".die:not(.drop)").all_inner_texts()]
    assert len(kept) == 3 and int(strength.locator(".roll-total").inner_text()) == sum(kept)
    shots = gm.locator("#chat-log li", has_text="Shots").locator(".roll-unit")
    expect(shots).to_have_text(re.compile(r"successe?s?"))
    shoot(alice, "chat-burst-1280")
    bob.locator("[data-chat-toggle]").click()
    expect(bob.locator("#chat-drawer")).to_have_class(re.compile(r"\bopen\b"))
    shoot(bob, "chat-burst-390")


def whispers_picked_by_name(t: dict, gm: Page, alice: Page, bob: Page, gm_frames: list[str]) -> None:
    """Bob taps Alice's character among the names offered; Alice picks Boro's with the keyboard."""
    alia, boro = t["chars"]["alice"].name, t["chars"]["bob"].name
    box = bob.locator("#chat-text")
    box.fill("/w Al")
    option = bob.locator("#chat-names [role=option]", has_text=alia)
    expect(option).to_be_visible()
    expect(option).to_contain_text(t["users"]["alice"].username)  # whom the name reaches
    expect(bob.locator("#chat-names [role=option]", has_text=boro)).to_have_count(0)  # his own
    shoot(bob, "chat-whisper-picker-390")
    option.tap()
    expect(box).to_have_value(f"/w {alia} ")
    box.press_sequentially("the altar is hollow")
    box.press("Enter")
    expect(box).to_have_value("")
    for page in (alice, bob):
        line = page.locator("#chat-log li", has_text="the altar is hollow")
        expect(line).to_contain_text(f"whispers to {alia}")
    shoot(bob, "chat-whisper-sent-390")
    box = alice.locator("#chat-text")
    box.press_sequentially("/w bo")
    expect(alice.locator("#chat-names [role=option]").first).to_contain_text(boro)
    expect(box).to_have_attribute("aria-activedescendant", "chat-name-0")
    shoot(alice, "chat-whisper-picker-1280")
    box.press("Enter")
    expect(box).to_have_value(f"/w {boro} ")
    box.press_sequentially("I saw it too")
    box.press("Enter")
    expect(bob.locator("#chat-log li", has_text="I saw it too")).to_contain_text(f"whispers to {boro}")
    shoot(alice, "chat-whisper-sent-1280")
    for words in ("the altar is hollow", "I saw it too"):
        assert words not in gm.content() and not [f for f in gm_frames if words in f]


def a_card_on_a_phone_covers_nothing(bob: Page, alia: str) -> None:
    """A roll with a sheet value: every piece of the card in a place of its own at 390 px."""
    say(bob, f"/r 1d20+@{alia.lower()}.initiative+2 Stealth check for the whole party")
    card = bob.locator("#chat-log li", has_text="Stealth check").locator(".roll")
    expect(card.locator(".roll-refs")).to_contain_text(f"{alia}: Initiative score")
    names = ("label", "typed", "refs", "dice", "total")
    pieces = {name: card.locator(f".roll-{name}").bounding_box() for name in names}
    for a in pieces:
        for b in pieces:
            if a < b:
                assert not boxes_overlap(pieces[a], pieces[b]), (a, b, pieces[a], pieces[b])
    assert bob.evaluate("document.documentElement.scrollWidth") <= 390
    card.scroll_into_view_if_needed()
    shoot(bob, "chat-sheet-roll-390")
    bob.locator("[data-chat-close]").click()


def a_ping_signed_in_colour(t: dict, gm: Page, alice: Page, bob: Page) -> None:
    """Alice's ping: labelled with her character's name, in her colour, on the others' boards."""
    board = alice.locator("#board")
    board.scroll_into_view_if_needed()
    bb = board.bounding_box()
    size = bb["width"] / 16
    alice.mouse.move(bb["x"] + 6.5 * size, bb["y"] + 6.5 * size)
    alice.keyboard.down("Alt")
    alice.mouse.down()
    alice.mouse.up()
    alice.keyboard.up("Alt")
    members = [str(u.pk) for u in t["users"].values()]
    colour = marks.colour(str(t["users"]["alice"].pk), members)
    rgb = "rgb({}, {}, {})".format(*(int(colour[i : i + 2], 16) for i in (1, 3, 5)))
    for page in (gm, bob):
        name = page.locator("#board .ping .ping-name")
        expect(name).to_have_text(t["chars"]["alice"].name, timeout=2000)
        assert page.evaluate("el => getComputedStyle(el).backgroundColor", name.element_handle()) == rgb
    assert t["users"]["alice"].username not in bob.locator("#board .ping").inner_text()
    shoot(bob, "chat-ping-390")


def delete_reads_and_asks(gm: Page, alice: Page) -> None:
    """The GM's Delete beside a line: a readable link (no solid pill), and it asks first."""
    line = gm.locator("#chat-log li", has_text="Line 3 of the evening")
    delete = line.get_by_role("button", name="Delete")
    style = gm.evaluate(
        "el => { const s = getComputedStyle(el); return [s.backgroundColor, s.color]; }",
        delete.element_handle(),
    )
    assert style[0] in ("rgba(0, 0, 0, 0)", "transparent") and style[1] != style[0], style
    gm.once("dialog", lambda d: d.dismiss())
    delete.click()
    expect(line).to_contain_text("Line 3 of the evening")
    gm.once("dialog", lambda d: d.accept())
    delete.click()
    expect(gm.locator("#chat-log li", has_text="Line 3 of the evening")).to_have_count(0)
    expect(alice.locator("#chat-log li.chat-deleted")).to_have_count(1)


@pytest.mark.django_db(transaction=True)
def test_a_burst_of_rolls_whispers_by_character_name_pings_and_delete(asgi_server, browser):
    t = make_table("luck")
    battle_id = battle_on_a_map(t)
    seats = open_seats(browser, asgi_server, t["users"])
    gm, alice, bob = (seats[k].page for k in ("gm", "alice", "bob"))
    gm_frames: list[str] = []
    gm.on("websocket", lambda ws: ws.on("framereceived", lambda f: gm_frames.append(str(f))))
    for page in (gm, alice, bob):
        page.goto(f"{asgi_server}/battles/{battle_id}/")
        wait_live(page)
    ten_lines_show_at_once(gm, alice)
    a_burst_of_rolls(gm, alice, bob)
    whispers_picked_by_name(t, gm, alice, bob, gm_frames)
    a_card_on_a_phone_covers_nothing(bob, t["chars"]["alice"].name)
    a_ping_signed_in_colour(t, gm, alice, bob)
    delete_reads_and_asks(gm, alice)
    # The same chat on the campaign page, with /help's list for the one who asked.
    gm.goto(f"{asgi_server}/campaigns/{t['campaign'].pk}/")
    gm.locator("#chat-text").fill("/help")
    gm.locator("#chat-text").press("Enter")
    expect(gm.locator("#chat-error.chat-note")).to_contain_text("4d6k3")
    expect(gm.locator("#chat-text")).to_have_value("")
    save_shot(gm, "chat-campaign-help-1280", full_page=False)
