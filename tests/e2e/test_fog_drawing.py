"""Fog drawn where the GM wants it, on a bare map, from a laptop (mouse) and from a phone (touch).

The battle starts with no fog at all. The GM hides a rectangle around Grik, then reveals it again;
then paints over Grik's square with the brush and paints it clear again; "Cover the whole map" and
"Lift the fog" still work. Alice watches from a laptop: while Grik stands in fog her board, her page
and every frame her socket receives are without him. Screenshots (with VTT_SHOTS): the brush in the
middle of a stroke and the fog it left, at 390 and 1280 px.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from combat.models import Battle
from combat.services import load_state
from tests.e2e.conftest import LAPTOP, OPEN_PAGES, PHONE, save_shot
from tests.e2e.seats import BOARD_STILL, WAIT, battle_on_a_map, login, make_table, wait_live

GRIK = (4, 3)  # Grik's square on the crypt (battle_on_a_map); Alia stands at (3, 3), Boro at (2, 5)


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


LOG_LINE = re.compile(r'<li class="entry[^"]*" data-seq="(\d+)".*?</li>', re.S)


def told_since(html: str, seq: int) -> str:
    """``html`` without the log's lines told before ``seq``."""
    return LOG_LINE.sub(lambda m: "" if int(m.group(1)) < seq else m.group(0), html)


class Watched:
    """Alice's page and every frame her socket received, against the battle as stored."""

    def __init__(self, alice: Page, battle_id: int, grik: str) -> None:
        self.alice, self.battle_id, self.grik = alice, battle_id, grik
        self.frames: list[str] = []
        alice.on("websocket", lambda ws: ws.on("framereceived", lambda f: self.frames.append(str(f))))
        self.grik_on_board = alice.locator(f'#board .token[title="{grik}"]')

    def fog(self) -> list[str]:
        return list(load_state(Battle.objects.get(pk=self.battle_id)).extra.get("fog") or [])

    def hidden_since(self, since: int) -> None:
        """Grik in fog: not on Alice's board, nor in her page, nor in any frame since ``since``, but for the
        log's lines told while she saw him (they stay told: the page and a whole log pushed again keep them)."""
        expect(self.alice.locator("#board .fog")).not_to_have_count(0)
        expect(self.grik_on_board).to_have_count(0)
        fogged_at = Battle.objects.get(pk=self.battle_id).seq
        assert self.grik not in told_since(self.alice.content(), fogged_at)
        frames = [told_since(f, fogged_at) for f in self.frames[since:]]
        assert not [f for f in frames if self.grik in f], "a frame named a combatant in fog"


def hide_then_reveal(
    gm: Page, hand: Pointer, seen: Watched, squares, brush: bool, check, shot: str = ""
) -> None:
    """Hide the squares of a drag (a rectangle, or a brush stroke), check the fog, reveal them again."""
    fog_menu(gm, tool="Hide area", brush=brush)
    since = len(seen.frames)
    hand.stroke(*squares, shot=shot)
    seen.hidden_since(since)
    check(seen.fog())
    expect(gm.locator(f'#board .token[title="{seen.grik}"]')).to_have_count(1)  # the GM sees through it
    expect(gm.locator("#board .fog-gm")).not_to_have_count(0)
    if shot:
        save_shot(gm, shot.replace("brush", "brushed-gm"), full_page=False)
        save_shot(seen.alice, "fog-brushed-player-1280", full_page=False)
    fog_menu(gm, tool="Reveal area", brush=brush)
    revealed = len(seen.frames)
    seen.hidden_since(since)  # nothing slipped through while Grik was in the dark
    hand.stroke(*squares)
    expect(seen.grik_on_board).to_have_count(1)
    assert any(seen.grik in f for f in seen.frames[revealed:])
    assert set("".join(seen.fog())) == {"."}


def rectangle(fog: list[str]) -> None:
    assert fog[3] == "....####........" and fog[1] == "." * 16 and fog[6] == "." * 16


def brushed(fog: list[str]) -> None:
    x = GRIK[0]
    assert [row[x] for row in fog[1:6]] == ["#"] * 5 and fog[5][4:8] == "####" and fog[3][x + 1] == "."


@pytest.mark.parametrize("device", ["phone", "laptop"])
@pytest.mark.django_db(transaction=True)
def test_the_gm_draws_fog_on_a_bare_map_and_lifts_it_again(asgi_server, browser, device):
    t = make_table("luck")
    battle_id = battle_on_a_map(t)
    viewport = PHONE if device == "phone" else LAPTOP
    gm = seat(browser, asgi_server, t["users"]["gm"], viewport)
    alice = seat(browser, asgi_server, t["users"]["alice"], LAPTOP)
    seen = Watched(alice, battle_id, t["chars"]["monster"].name)
    assert seen.fog() == []  # a bare map
    for page in (gm, alice):
        page.goto(f"{asgi_server}/battles/{battle_id}/")
        wait_live(page)
    expect(seen.grik_on_board).to_have_count(1)
    hand = Pointer(gm, touch=device == "phone")
    if device == "phone":
        gm.locator("[data-fit]").click()  # the whole crypt on the phone's screen
    x, y = GRIK
    # A rectangle over Grik's corner of the bare map (Alia, next to him, stays in the light).
    hide_then_reveal(gm, hand, seen, ((x, y - 1), (x + 3, y + 2)), False, rectangle)
    # A brush stroke down through Grik's square and along.
    stroke = ((x, y - 2), (x, y + 2), (x + 3, y + 2))
    hide_then_reveal(gm, hand, seen, stroke, True, brushed, shot=f"fog-brush-{viewport['width']}")
    # Cover all and lift all are still there.
    fog_menu(gm, mode="Cover the whole map")
    expect(seen.grik_on_board).to_have_count(0)
    fog_menu(gm, mode="Lift the fog")
    expect(alice.locator("#board .fog")).to_have_count(0)
    expect(seen.grik_on_board).to_have_count(1)
