"""Fog drawn where the GM wants it, on a bare map, from a laptop (mouse) and from a phone (touch).

The battle starts with no fog at all. The GM hides a rectangle around Grik, then reveals it again;
then paints over Grik's square with the brush and paints it clear again; "Cover the whole map" and
"Lift the fog" still work. Alice watches from a laptop: while Grik stands in fog her board, her page
and every frame her socket receives are without him. Screenshots (with VTT_SHOTS): the brush in the
middle of a stroke and the fog it left, at 390 and 1280 px.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from combat.models import Battle
from combat.services import load_state
from tests.e2e.conftest import LAPTOP, OPEN_PAGES, PHONE, save_shot
from tests.e2e.seats import WAIT, battle_on_a_map, login, make_table, wait_live

GRIK = (4, 3)  # Grik's square on the crypt (battle_on_a_map); Alia stands at (3, 3), Boro at (2, 5)

# True once the board's box has held still for 300 ms (a resize re-fits the board after a pause).
BOARD_STILL = """() => {
  const r = document.getElementById("board").getBoundingClientRect();
  const key = [r.x, r.y, r.width, r.height].join(), now = performance.now();
  if (window.__boardKey !== key) { window.__boardKey = key; window.__boardSince = now; return false; }
  return now - window.__boardSince > 300;
}"""


def seat(browser, base: str, user, viewport) -> Page:
    phone = viewport is PHONE
    context = browser.new_context(viewport=viewport, is_mobile=phone, has_touch=phone)
    context.set_default_timeout(WAIT)
    page = context.new_page()
    OPEN_PAGES.append((f"{user.username}-{viewport['width']}", page))
    login(page, base, user.username)
    return page


class Pointer:
    """A finger (CDP touch events: the page sees pointerType "touch") or the mouse, on board squares."""

    def __init__(self, page: Page, touch: bool) -> None:
        self.page, self.touch = page, touch
        self.cdp = page.context.new_cdp_session(page) if touch else None

    def at(self, x: int, y: int) -> tuple[float, float]:
        box = self.page.locator("#board").bounding_box()
        assert box is not None
        size = box["width"] / int(self.page.locator("#board").get_attribute("data-width") or 1)
        px, py = box["x"] + (x + 0.5) * size, box["y"] + (y + 0.5) * size
        view = self.page.viewport_size
        assert view is not None and 0 < px < view["width"] and 0 < py < view["height"], "square off screen"
        return px, py

    def down(self, square: tuple[int, int]) -> None:
        self.page.wait_for_function(BOARD_STILL, polling=50)
        x, y = self.at(*square)
        if self.cdp:
            self.cdp.send(
                "Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x, "y": y}]}
            )
        else:
            self.page.mouse.move(x, y)
            self.page.mouse.down()

    def move(self, square: tuple[int, int], steps: int = 6) -> None:
        x, y = self.at(*square)
        if self.cdp:
            for i in range(1, steps + 1):  # the finger slides: every square between is crossed
                self.cdp.send(
                    "Input.dispatchTouchEvent",
                    {
                        "type": "touchMove",
                        "touchPoints": [
                            {
                                "x": self._x + (x - self._x) * i / steps,
                                "y": self._y + (y - self._y) * i / steps,
                            }
                        ],
                    },
                )
        else:
            self.page.mouse.move(x, y, steps=steps)
        self._x, self._y = x, y

    def up(self) -> None:
        if self.cdp:
            self.cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
        else:
            self.page.mouse.up()

    def stroke(self, *squares: tuple[int, int], shot: str = "") -> None:
        self.down(squares[0])
        self._x, self._y = self.at(*squares[0])
        for square in squares[1:]:
            self.move(square)
        if shot:
            expect(self.page.locator("#board .fog-pick").first).to_be_visible()
            save_shot(self.page, shot, full_page=False)
        self.up()


def fog_menu(gm: Page, *, tool: str = "", brush: bool | None = None, mode: str = "") -> None:
    """Open the fog menu, set the brush, and pick a tool ("Hide area", "Reveal area") or a whole-map change."""
    gm.locator("[data-fog-menu] > summary").click()
    if brush is not None:
        box = gm.locator("[data-fog-brush]")
        if box.is_checked() != brush:
            box.click()
    gm.get_by_role("button", name=tool or mode).click()


@pytest.mark.parametrize("device", ["phone", "laptop"])
@pytest.mark.django_db(transaction=True)
def test_the_gm_draws_fog_on_a_bare_map_and_lifts_it_again(asgi_server, browser, device):
    t = make_table("luck")
    battle_id = battle_on_a_map(t)
    assert "fog" not in load_state(Battle.objects.get(pk=battle_id)).extra  # a bare map
    viewport = PHONE if device == "phone" else LAPTOP
    gm = seat(browser, asgi_server, t["users"]["gm"], viewport)
    alice = seat(browser, asgi_server, t["users"]["alice"], LAPTOP)
    frames: list[str] = []
    alice.on("websocket", lambda ws: ws.on("framereceived", lambda f: frames.append(str(f))))
    for page in (gm, alice):
        page.goto(f"{asgi_server}/battles/{battle_id}/")
        wait_live(page)
    grik = t["chars"]["monster"].name
    on_alice = alice.locator(f'#board .token[title="{grik}"]')
    expect(on_alice).to_have_count(1)
    hand = Pointer(gm, touch=device == "phone")
    if device == "phone":
        gm.locator("[data-fit]").click()  # the whole crypt on the phone's screen
    width = viewport["width"]

    def hidden_from_alice(since: int) -> None:
        expect(alice.locator("#board .fog")).not_to_have_count(0)
        expect(on_alice).to_have_count(0)
        assert grik not in alice.content()
        assert not [f for f in frames[since:] if grik in f], "a frame named a combatant in fog"

    # A rectangle hidden on the bare map: only the squares dragged over, Grik's among them.
    fog_menu(gm, tool="Hide area", brush=False)
    seen = len(frames)
    hand.stroke((GRIK[0], GRIK[1] - 1), (GRIK[0] + 3, GRIK[1] + 2))
    hidden_from_alice(seen)
    fog = load_state(Battle.objects.get(pk=battle_id)).extra["fog"]
    assert fog[3] == "....####........" and fog[0] == "." * 16 and fog[8] == "." * 16
    expect(alice.locator(f'#board .token[title="{t["chars"]["alice"].name}"]')).to_have_count(1)
    expect(gm.locator("#board .fog-gm")).to_have_count(1)
    expect(gm.locator(f'#board .token[title="{grik}"]')).to_have_count(1)  # the GM sees through it
    gm.keyboard.press("Escape") if device == "laptop" else None
    # Revealed again: the same rectangle.
    fog_menu(gm, tool="Reveal area", brush=False)
    before_reveal = len(frames)
    hidden_from_alice(seen)  # nothing slipped through while Grik was in the dark
    hand.stroke((GRIK[0], GRIK[1] - 1), (GRIK[0] + 3, GRIK[1] + 2))
    expect(on_alice).to_have_count(1)
    assert any(grik in f for f in frames[before_reveal:])

    # The brush: a stroke down through Grik's square and along, then painted clear again.
    fog_menu(gm, tool="Hide area", brush=True)
    seen = len(frames)
    stroke = ((GRIK[0], GRIK[1] - 2), (GRIK[0], GRIK[1] + 2), (GRIK[0] + 3, GRIK[1] + 2))
    hand.stroke(*stroke, shot=f"fog-brush-{width}")
    hidden_from_alice(seen)
    fog = load_state(Battle.objects.get(pk=battle_id)).extra["fog"]
    assert [row[GRIK[0]] for row in fog[1:6]] == ["#"] * 5 and fog[5][4:8] == "####" and fog[3][5] == "."
    save_shot(gm, f"fog-brushed-gm-{width}", full_page=False)
    save_shot(alice, "fog-brushed-player-1280", full_page=False)
    fog_menu(gm, tool="Reveal area", brush=True)
    before_reveal = len(frames)
    hidden_from_alice(seen)
    hand.stroke(*stroke)
    expect(on_alice).to_have_count(1)
    assert any(grik in f for f in frames[before_reveal:])
    assert set("".join(load_state(Battle.objects.get(pk=battle_id)).extra["fog"])) == {"."}

    # Cover all and lift all are still there.
    fog_menu(gm, mode="Cover the whole map")
    expect(on_alice).to_have_count(0)
    fog_menu(gm, mode="Lift the fog")
    expect(alice.locator("#board .fog")).to_have_count(0)
    expect(on_alice).to_have_count(1)
