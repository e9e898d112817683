"""Taps land where the finger is, and the board follows the turn.

A player on their turn taps 20 squares of a 16 x 12 battle on a map, chosen at random (seeded) among
those in sight, each after random pans, zooms, a ruler drag and a change of focus: every tap opens the
plan menu of the square under the finger. The check does not repeat the page's arithmetic: the page
marks the square it took (``.plan-sq.tapped``, laid out by the board's own grid), and that mark must
be under the finger and carry the square's own label, which the menu names too. Once on a touch phone
(390 x 844, pans, pinches and the ruler dragged with real touch events), once with a mouse (1280 x 800).

Then: the board after a move holds the mover and the foe in sight, above the action sheet, and a
combatant out of sight has a marker with its name at the edge of the view that brings it back.
"""

from __future__ import annotations

import random

import pytest
from playwright.sync_api import Page, expect

from combat import services
from combat.models import Battle
from tests.e2e.conftest import FLOW_LINE, LAPTOP, OPEN_PAGES, PHONE, save_shot
from tests.e2e.seats import WAIT, battle_on_a_map, login, make_table, wait_live

TAPS = 20


def _page(browser, viewport) -> Page:
    phone = viewport is PHONE
    context = browser.new_context(viewport=viewport, is_mobile=phone, has_touch=phone)
    context.set_default_timeout(WAIT)
    page = context.new_page()
    OPEN_PAGES.append((str(viewport["width"]), page))
    return page


def _turn_of(battle_id: int, character_id: int, gm) -> str:
    """Skip turns (as the GM would) until the character acts; its combatant id."""
    for _ in range(6):
        battle = Battle.objects.get(pk=battle_id)
        current = services.load_state(battle).current()
        if current is not None and current.character_id == character_id:
            return current.id
        assert services.gm_override(battle_id, gm, {"kind": "gm.skip_turn"}, battle.seq).ok
    raise AssertionError("the character never got a turn")


class Hand:
    """A finger (real touch events through the DevTools protocol) or a mouse on the page."""

    def __init__(self, page: Page, touch: bool) -> None:
        self.page = page
        self.touch = touch
        self.cdp = page.context.new_cdp_session(page) if touch else None

    def _touches(self, kind: str, points: list[tuple[float, float]]) -> None:
        assert self.cdp is not None
        touch_points = [{"x": x, "y": y, "id": i + 1} for i, (x, y) in enumerate(points)]
        self.cdp.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": touch_points})

    def _settle(self, points: list[tuple[float, float]]) -> None:
        """The fingers rest before they lift, as a person's do at the end of a pan: a finger lifted on
        the move flings the view, and the next tap only stops the fling (a phone's rule, no click)."""
        self.page.wait_for_timeout(120)  # the rest itself is what is simulated, nothing is waited for
        self._touches("touchMove", points)
        self._touches("touchEnd", [])

    def tap(self, x: float, y: float) -> None:
        if self.touch:
            self.page.touchscreen.tap(x, y)
        else:
            self.page.mouse.click(x, y)

    def drag(self, x: float, y: float, dx: float, dy: float) -> None:
        steps = 8
        if self.touch:
            self._touches("touchStart", [(x, y)])
            for i in range(1, steps + 1):
                self._touches("touchMove", [(x + dx * i / steps, y + dy * i / steps)])
            self._settle([(x + dx, y + dy)])
        else:
            self.page.mouse.move(x, y)
            self.page.mouse.down()
            self.page.mouse.move(x + dx, y + dy, steps=steps)
            self.page.mouse.up()

    def zoom(self, x: float, y: float, closer: bool, room: float = 80) -> None:
        """Closer or farther at (x, y): a pinch of two fingers ``room`` px either side at most (a pinch
        with a finger off the board would zoom the whole page instead), or the wheel."""
        if self.touch:
            far = int(max(30, min(80, room)))
            spreads = range(10, far, 5) if closer else range(far, 10, -5)
            first = next(iter(spreads))
            self._touches("touchStart", [(x - first, y), (x + first, y)])
            for s in spreads:
                self._touches("touchMove", [(x - s, y), (x + s, y)])
            self._settle([(x - s, y), (x + s, y)])
        else:
            self.page.mouse.move(x, y)
            self.page.mouse.wheel(0, -240 if closer else 240)

    def press(self, locator) -> None:
        (locator.tap if self.touch else locator.click)()


def _sight(page: Page) -> dict[str, float]:
    """The part of the board in sight, in client pixels."""
    return page.evaluate("() => window.vttBoardView.visible()")


def _page_unzoomed(page: Page) -> None:
    """The page itself is at its own scale (a pinch on the board zooms the board, never the page)."""
    assert page.evaluate("window.visualViewport.scale") == 1


def _squares_in_sight(page: Page) -> list[tuple[int, int, float, float]]:
    """Every square whose middle is in sight and under nothing but the board: x, y and that middle."""
    return page.evaluate(
        """() => {
          const b = document.getElementById('board'), r = b.getBoundingClientRect();
          const cols = +b.dataset.width, rows = +b.dataset.height, size = r.width / cols;
          const v = window.vttBoardView.visible(), out = [];
          for (let y = 0; y < rows; y++) for (let x = 0; x < cols; x++) {
            const cx = r.left + (x + .5) * size, cy = r.top + (y + .5) * size;
            if (cx < v.left + 4 || cx > v.right - 4 || cy < v.top + 4 || cy > v.bottom - 4) continue;
            const hit = document.elementFromPoint(cx, cy);
            if (hit && b.contains(hit)) out.push([x, y, cx, cy]);
          }
          return out;
        }"""
    )


def _label(x: int, y: int) -> str:
    letters, n = "", x + 1
    while n:
        n, r = divmod(n - 1, 26)
        letters = chr(65 + r) + letters
    return f"{letters}{y + 1}"


def _shuffle_the_view(page: Page, hand: Hand, rng: random.Random, i: int) -> list[str]:
    """What a person does between two taps: pans, zooms, a ruler drag, a focus elsewhere (each at least
    every fourth tap, the rest at random). Returns what was done."""
    done = []
    kinds = ["pan", "zoom", "ruler", "focus"]
    todo = [kinds[i % 4]] + [k for k in kinds if rng.random() < 0.35]
    for kind in todo:
        v = _sight(page)
        x = rng.uniform(v["left"] + 30, v["right"] - 30)
        y = rng.uniform(v["top"] + 30, v["bottom"] - 30)
        if kind == "pan":
            hand.drag(x, y, rng.uniform(-140, 140), rng.uniform(-120, 120))
        elif kind == "zoom":
            hand.zoom(x, y, closer=rng.random() < 0.5, room=min(x - v["left"], v["right"] - x) - 4)
        elif kind == "ruler":
            ruler = page.locator("[data-ruler]")
            hand.press(ruler)
            expect(ruler).to_have_attribute("aria-pressed", "true")
            hand.drag(x, y, rng.uniform(-100, 100), rng.uniform(-80, 80))
            hand.press(ruler)
            expect(ruler).to_have_attribute("aria-pressed", "false")
        else:  # the focus goes elsewhere: the next tap on the board focuses it again
            page.locator("#actions button.opt:not([disabled])").first.focus()
        done.append(kind)
    return done


# Each mark of a tapped square as the page draws it, where it is laid out at that moment: the menu
# that follows may move the board to show the plan, which is not where the tap landed.
WATCH_MARKS = """() => {
  window.tappedMarks = [];
  new MutationObserver(changes => changes.forEach(c => c.addedNodes.forEach(n => {
    if (n.classList && n.classList.contains('tapped')) {
      const r = n.getBoundingClientRect();
      window.tappedMarks.push([n.dataset.label, r.left, r.top, r.right, r.bottom]);
    }
  }))).observe(document.querySelector('[data-board-view]'), {childList: true, subtree: true});
}"""


def _taps_land_under_the_finger(page: Page, hand: Hand, seed: int) -> list[str]:
    rng = random.Random(seed)
    log = []
    menu = page.locator("#plan-menu")
    page.evaluate(WATCH_MARKS)
    for i in range(TAPS):
        done = _shuffle_the_view(page, hand, rng, i)
        _page_unzoomed(page)
        x, y, cx, cy = rng.choice(_squares_in_sight(page))
        name = _label(x, y)
        page.evaluate("() => { window.tappedMarks.length = 0; }")
        hand.tap(cx, cy)
        expect(menu).to_be_visible()
        expect(menu).to_have_attribute("data-square-name", name)
        expect(menu.locator(".pm-head")).to_contain_text(name)
        # The first mark the tap drew, where it was laid out then (a mark takes no pointer events: it is
        # found by its box, not by a hit test).
        under = page.evaluate(
            """([x, y]) => window.tappedMarks.slice(0, 1)
                 .filter(([, l, t, r, b]) => l <= x && x < r && t <= y && y < b).map(([label]) => label)""",
            [cx, cy],
        )
        assert under == [name], f"tap {i + 1} at {name} after {done}: the square under the finger is {under}"
        log.append(f"{name} after {'+'.join(done)}")
        page.keyboard.press("Escape")
        expect(menu).to_have_count(0)
    return log


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    ("viewport", "touch"), [(PHONE, True), (LAPTOP, False)], ids=["touch-390", "mouse-1280"]
)
def test_twenty_taps_land_on_the_square_under_the_finger(asgi_server, browser, viewport, touch, request):
    t = make_table("luck")
    battle_id = battle_on_a_map(t)
    who = "bob" if touch else "alice"
    _turn_of(battle_id, t["chars"][who].pk, t["users"]["gm"])
    page = _page(browser, viewport)
    login(page, asgi_server, t["users"][who].username)
    page.goto(f"{asgi_server}/battles/{battle_id}/")
    wait_live(page)
    expect(page.locator("#actions .your-turn")).to_be_visible()
    log = _taps_land_under_the_finger(page, Hand(page, touch), seed=35 if touch else 53)
    request.node.user_properties.append(
        (
            FLOW_LINE,
            f"board-taps {'touch' if touch else 'mouse'}: {len(log)} of {TAPS} on the square under the finger",
        )
    )


def _grid_of(page: Page) -> dict[str, float]:
    return page.evaluate(
        """() => { const b = document.getElementById('board'), r = b.getBoundingClientRect();
                   return {left: r.left, top: r.top, size: r.width / +b.dataset.width}; }"""
    )


def _middle_of(page: Page, x: int, y: int) -> tuple[float, float]:
    g = _grid_of(page)
    return g["left"] + (x + 0.5) * g["size"], g["top"] + (y + 0.5) * g["size"]


IN_SIGHT = """([cid, whole]) => {
  const t = document.querySelector(`#board .token[data-cid="${cid}"]`);
  const v = window.vttBoardView.visible(), r = t.getBoundingClientRect();
  if (!whole) {
    const x = (r.left + r.right) / 2, y = (r.top + r.bottom) / 2;
    return x >= v.left && x <= v.right && y >= v.top && y <= v.bottom;
  }
  return r.left >= v.left - 1 && r.right <= v.right + 1 && r.top >= v.top - 1 && r.bottom <= v.bottom + 1;
}"""


def _token_in_sight(page: Page, cid: str, whole: bool = True) -> bool:
    """The token is in the part of the board in sight (inside the window, above the sheet): wholly, or
    (``whole`` false) its middle."""
    return page.evaluate(IN_SIGHT, [cid, whole])


def _seat_alia_on_her_turn(asgi_server: str, browser, viewport) -> tuple[Page, str, str]:
    """Alia (a Fighter with a sword) on her turn, 6 squares from Grik: her page, her id and Grik's."""
    t = make_table("luck")
    battle_id = battle_on_a_map(t)
    gm = t["users"]["gm"]
    battle = Battle.objects.get(pk=battle_id)
    grik = next(c for c in services.load_state(battle).combatants.values() if c.name == "Grik")
    assert services.gm_override(
        battle_id, gm, {"kind": "gm.move", "params": {"combatant": grik.id, "to": [9, 5]}}, battle.seq
    ).ok
    alia = _turn_of(battle_id, t["chars"]["alice"].pk, gm)
    page = _page(browser, viewport)
    login(page, asgi_server, t["users"]["alice"].username)
    page.goto(f"{asgi_server}/battles/{battle_id}/")
    wait_live(page)
    expect(page.locator("#actions .your-turn")).to_be_visible()
    return page, alia, grik.id


def _the_enemy_tapped_shows_the_plan(page: Page, hand: Hand, grik: str, size: int) -> None:
    """The sword reaches Grik after a move of 5 squares, drawn square by square."""
    hand.press(page.locator(f'#board .token[data-cid="{grik}"]'))
    menu = page.locator("#plan-menu")
    first = menu.locator(".pm-opt").first
    expect(first).to_have_attribute("aria-checked", "true")
    expect(first).to_contain_text("Sword")
    expect(first).to_contain_text("Move 5 squares to")
    expect(page.locator("#board .plan-sq.path")).to_have_count(5)
    expect(page.locator(f'#board .token.plan-target[data-cid="{grik}"]')).to_have_count(1)
    save_shot(page, f"t35-enemy-plan-{size}", full_page=False)
    hand.press(menu.locator("[data-plan-close]"))
    expect(menu).to_have_count(0)


def _a_move_keeps_the_turn_in_sight(page: Page, hand: Hand, alia: str, grik: str, size: int) -> None:
    """An empty square: Move there, Confirm; the board then holds Alia and Grik in sight."""
    menu = page.locator("#plan-menu")
    before = int(page.locator("#battle-seq").get_attribute("data-seq") or 0)
    hand.tap(*_middle_of(page, 6, 5))
    expect(menu).to_have_attribute("data-square-name", "G6")
    expect(menu.locator(".pm-opt").first).to_contain_text("Move")
    hand.press(menu.locator("[data-plan-confirm]"))
    page.wait_for_function("n => +document.getElementById('battle-seq').dataset.seq > n", arg=before)
    expect(page.locator(f'#board .token[data-cid="{alia}"]')).to_have_attribute("data-x", "6")
    page.wait_for_function("() => !document.getElementById('plan-menu')")
    assert _token_in_sight(page, alia) and _token_in_sight(page, grik), "the mover and the foe are in sight"
    save_shot(page, f"t35-after-move-{size}", full_page=False)


def _edges_name_who_is_out_of_sight(page: Page, hand: Hand, size: int) -> None:
    """Closer in: whoever leaves the view has a marker at its edge with its name; a tap brings it back."""
    for _ in range(4):
        hand.press(page.locator("[data-zoom='1']"))
    page.wait_for_function("() => document.querySelectorAll('.edge-mark').length > 0")
    ids = page.locator("#board .token").evaluate_all("ts => ts.map(t => t.dataset.cid)")
    out = [cid for cid in ids if not _token_in_sight(page, cid, whole=False)]
    assert out, "the zoom left someone out of sight"
    marks = page.locator(".edge-mark")
    assert sorted(marks.evaluate_all("ms => ms.map(m => m.dataset.edgeFor)")) == sorted(out)
    mark = page.locator(f'.edge-mark[data-edge-for="{out[0]}"]')
    expect(mark).to_contain_text(
        page.locator(f'#board .token[data-cid="{out[0]}"]').get_attribute("title") or ""
    )
    save_shot(page, f"t35-edge-marker-{size}", full_page=False)
    hand.press(mark)
    page.wait_for_function(IN_SIGHT, arg=[out[0], False])  # the marker's tap brings the token into sight
    expect(mark).to_have_count(0)


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(("viewport", "touch"), [(PHONE, True), (LAPTOP, False)], ids=["390", "1280"])
def test_an_enemy_tapped_shows_its_plan_a_move_keeps_the_turn_in_sight_and_edges_name_the_rest(
    asgi_server, browser, viewport, touch
):
    page, alia, grik = _seat_alia_on_her_turn(asgi_server, browser, viewport)
    hand = Hand(page, touch)
    _the_enemy_tapped_shows_the_plan(page, hand, grik, viewport["width"])
    _a_move_keeps_the_turn_in_sight(page, hand, alia, grik, viewport["width"])
    _edges_name_who_is_out_of_sight(page, hand, viewport["width"])


@pytest.mark.django_db(transaction=True)
def test_the_keyboard_acts_on_the_board_too(asgi_server, browser):
    page, alia, grik = _seat_alia_on_her_turn(asgi_server, browser, LAPTOP)
    before = int(page.locator("#battle-seq").get_attribute("data-seq") or 0)
    page.locator("#board").focus()
    expect(page.locator("#announce")).to_contain_text("Alia, party")
    for key in ["ArrowRight"] * 6 + ["ArrowDown"] * 2:
        page.keyboard.press(key)
    expect(page.locator("#announce")).to_contain_text("Grik, enemy")
    page.keyboard.press("Enter")
    first = page.locator("#plan-menu .pm-opt").first
    expect(first).to_be_focused()
    expect(first).to_contain_text("Sword")
    page.keyboard.press("ArrowDown")  # the next plan, drawn in its turn
    expect(page.locator("#plan-menu .pm-opt").nth(1)).to_have_attribute("aria-checked", "true")
    page.keyboard.press("ArrowUp")
    for _ in range(6):
        if page.evaluate("document.activeElement.matches('[data-plan-confirm]')"):
            break
        page.keyboard.press("Tab")
    expect(page.locator("#plan-menu [data-plan-confirm]")).to_be_focused()
    page.keyboard.press("Enter")
    # Two actions: the move, then the sword.
    page.wait_for_function("n => +document.getElementById('battle-seq').dataset.seq >= n + 2", arg=before)
    expect(page.locator("#log .entry", has_text="Alia uses Sword on Grik")).to_have_count(1)
