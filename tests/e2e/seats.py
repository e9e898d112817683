"""A table of three browsers: the GM on a laptop, Alice on a laptop, Bob on a phone.

Accounts (made as tests/table.py makes the personas, with its ``PASSWORD``), the
campaign and its characters are made in the database (the test's business); everything in the battle happens through the pages: log
in, create the battle, add and place combatants, start, act, answer, override,
undo, end. Helpers wait on what a person would see (``expect``), never sleep.
"""

from __future__ import annotations

import functools
import re
import threading
from dataclasses import dataclass, field
from typing import Any

from django.db import connections
from playwright.sync_api import Page, expect

from combat import services
from combat.engine.rulesets import get_ruleset
from combat.models import Battle
from tests.e2e import pictures
from tests.e2e.conftest import LAPTOP, OPEN_PAGES, PHONE
from tests.table import PASSWORD, make_user
from vtt.images import MapPicture, Portrait, map_from, portrait_from
from vtt.models import Campaign, Character, MapImage, Membership

WAIT = 10_000  # ms: a live update must arrive well within this
expect.set_options(timeout=WAIT)

# True once the board's box has held still for 300 ms: a window resized a moment ago re-fits the board
# after a 150 ms pause, and a drag measured before that lands on other squares.
BOARD_STILL = """() => {
  const r = document.getElementById("board").getBoundingClientRect();
  const key = [r.x, r.y, r.width, r.height].join(), now = performance.now();
  if (window.__boardKey !== key) { window.__boardKey = key; window.__boardSince = now; return false; }
  return now - window.__boardSince > 300;
}"""

# Per ruleset: Alice's hero (she answers the reaction prompt), Bob's hero, the monster, and what opens
# Alice's prompt: the monster's attack on her ("attack"), the monster leaving her rampart ("rampart"),
# or the phase at the start of a round that asks each hero ("phase").
CAST = {
    "luck": {"alice": "Fighter", "bob": "Mage", "monster": "Goblin Skirmisher", "reaction": "attack"},
    "mist": {"alice": "Knight", "bob": "Mage", "monster": "Goblin", "reaction": "rampart"},
    "action-block": {"alice": "Duelist", "bob": "Gunslinger", "monster": "Ghoul", "reaction": "attack"},
    "paradigm": {"alice": "Knight", "bob": "Mage", "monster": "Goblin", "reaction": "phase"},
}


def content(ruleset: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The ruleset's sample HEROES and MONSTERS (the ``content`` module of its package)."""
    import importlib

    module = importlib.import_module(get_ruleset(ruleset).__module__ + ".content")
    return module.HEROES, module.MONSTERS


def make_table(ruleset: str) -> dict[str, Any]:
    """Users gm/alice/bob, a campaign that hides enemy HP, and the three characters."""
    users = {name: make_user(f"{name}-{ruleset}") for name in ("gm", "alice", "bob")}
    options = dict(get_ruleset(ruleset).default_options())
    if "hide_enemy_hp" in options:
        options["hide_enemy_hp"] = True
    campaign = Campaign.objects.create(
        name=f"{ruleset} night", ruleset=ruleset, owner=users["gm"], options=options
    )
    for name, role in (("gm", "gm"), ("alice", "player"), ("bob", "player")):
        Membership.objects.create(campaign=campaign, user=users[name], role=role)
    heroes, monsters = content(ruleset)
    cast = CAST[ruleset]
    chars = {
        "alice": Character.objects.create(
            campaign=campaign, owner=users["alice"], name="Alia", sheet=dict(heroes[cast["alice"]])
        ),
        "bob": Character.objects.create(
            campaign=campaign, owner=users["bob"], name="Boro", sheet=dict(heroes[cast["bob"]])
        ),
        "monster": Character.objects.create(
            campaign=campaign, kind="monster", name="Grik", sheet=dict(monsters[cast["monster"]])
        ),
    }
    return {"users": users, "campaign": campaign, "chars": chars}


@dataclass
class Seat:
    name: str
    page: Page
    shots: list[str] = field(default_factory=list)


def open_seats(browser: Any, base: str, users: dict[str, Any]) -> dict[str, Seat]:
    seats = {}
    for name, viewport in (("gm", LAPTOP), ("alice", LAPTOP), ("bob", PHONE)):
        context = browser.new_context(
            viewport=viewport, is_mobile=viewport is PHONE, has_touch=viewport is PHONE
        )
        context.set_default_timeout(WAIT)
        page = context.new_page()
        OPEN_PAGES.append((name, page))
        login(page, base, users[name].username)
        seats[name] = Seat(name, page)
    return seats


def seat_page(
    browser: Any, base: str, username: str, url: str, name: str = "phone", viewport: Any = PHONE
) -> Page:
    """One more seat, a 390 px touch phone unless ``viewport`` says otherwise: ``username`` logged in,
    at ``url``, live."""
    phone = viewport is PHONE
    context = browser.new_context(viewport=viewport, is_mobile=phone, has_touch=phone)
    context.set_default_timeout(WAIT)
    page = context.new_page()
    OPEN_PAGES.append((name, page))
    login(page, base, username)
    page.goto(url)
    wait_live(page)
    return page


def login(page: Page, base: str, username: str) -> None:
    page.goto(base + "/accounts/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(re.compile(r".*/campaigns/.*"))


def wait_live(page: Page, timeout: float = WAIT * 2) -> None:
    expect(page.locator("#conn")).to_have_text("Live", timeout=timeout)


def seq(page: Page) -> int:
    return int(page.locator("#battle-seq").get_attribute("data-seq") or 0)


def wait_seq(seats: dict[str, Seat], at_least: int, timeout: float = WAIT) -> None:
    """Every seat's page has caught up with the battle's seq (the push arrived) within ``timeout`` ms."""
    for seat in seats.values():
        expect(seat.page.locator("#battle-seq")).to_have_attribute(
            "data-seq", re.compile(r"\d+"), timeout=timeout
        )
        seat.page.wait_for_function(
            "n => parseInt(document.getElementById('battle-seq').dataset.seq, 10) >= n",
            arg=at_least,
            timeout=timeout,
        )


def now_acting(page: Page) -> str:
    now = page.locator("#tracker .now strong")
    return now.inner_text() if now.count() else ""


def action_button(page: Page, label: str):
    return page.locator("#actions form.act-form button.opt", has_text=label).first


def do(page: Page, label: str) -> None:
    """Press an action that needs no target."""
    action_button(page, label).click()


def do_on_token(page: Page, label: str, cid: str) -> None:
    """Choose an action, tap the target token on the board, confirm."""
    action_button(page, label).click()
    page.locator(f'#board .token[data-cid="{cid}"]').click()
    page.locator("#confirm button[data-confirm=yes]").click()


def tap_square(page: Page, x: int, y: int) -> None:
    board = page.locator("#board")
    box = board.bounding_box()
    assert box is not None
    cols = int(board.get_attribute("data-width") or 1)
    size = box["width"] / cols
    board.click(position={"x": (x + 0.5) * size, "y": (y + 0.5) * size})


def token_menu(page: Page, cid: str):
    """The GM's menu of a token (opened by a click on it), as a locator."""
    menu = page.locator(f"#tm-{cid}")
    if not menu.is_visible():
        page.locator(f'#board .token[data-cid="{cid}"]').click()
    expect(menu).to_be_visible()
    return menu


def gm_set_hp(page: Page, cid: str, hp: int) -> None:
    """The GM takes a token's HP to ``hp`` with its menu: down or up by the difference."""
    menu = token_menu(page, cid)
    now = int(re.search(r"HP (\d+)/", menu.locator(".tm-hp").inner_text()).group(1))  # type: ignore[union-attr]
    if now == hp:
        return
    menu.get_by_label("HP by").fill(str(abs(now - hp)))
    menu.get_by_role("button", name="HP down by the amount" if hp < now else "HP up by the amount").click()


def gm_move(page: Page, cid: str, x: int, y: int) -> None:
    """The GM moves a token with its menu: "Move…", the square, and (in a running battle) Confirm."""
    token_menu(page, cid).get_by_role("menuitem", name="Move…").click()
    tap_square(page, x, y)
    confirm = page.locator("#confirm")
    if page.locator("#board").get_attribute("data-phase") != "setup":
        expect(confirm).to_be_visible()
        confirm.locator("button[data-confirm=yes]").click()


def end_battle(page: Page) -> None:
    """The GM ends the battle from its header, and confirms."""
    page.locator(".battle-head").get_by_role("button", name="End battle").click()
    page.locator("#confirm button[data-confirm=yes]").click()


def combatant_ids(page: Page) -> dict[str, str]:
    """Names to ids, as the board shows them."""
    out = {}
    for token in page.locator("#board .token").all():
        out[token.get_attribute("title") or ""] = token.get_attribute("data-cid") or ""
    return out


def phone_layout_problems(page: Page) -> list[str]:
    """What a person on a 390 x 844 phone would trip over on the battle page, as readable text."""
    return page.evaluate(
        """() => {
          const out = [];
          const vw = window.innerWidth, vh = window.innerHeight;
          if (document.documentElement.scrollWidth > vw + 1) {
            out.push(`the page scrolls sideways: ${document.documentElement.scrollWidth} > ${vw}`);
          }
          const buttons = [...document.querySelectorAll('#actions button, #prompt button')]
            .filter(b => b.offsetParent !== null);
          for (const b of buttons) {
            const r = b.getBoundingClientRect();
            if (r.height < 44 || r.width < 44) {
              out.push(`tap target "${b.textContent.trim()}" is ${Math.round(r.width)}x${Math.round(r.height)}`);
            }
          }
          const first = buttons[0];
          if (first) {
            const r = first.getBoundingClientRect();
            if (r.top < 0 || r.bottom > vh) out.push(`the action panel is off screen (top ${Math.round(r.top)})`);
          }
          return out;
        }"""
    )


def ford_battle(t: dict[str, Any], places: dict[str, list[int]]) -> Battle:
    """A Luck battle at the ford (8 x 6) in set-up, made through the services, with the table's
    characters of ``places`` (``{"alice": [0, 0], ...}``) on their squares."""
    gm = t["users"]["gm"]
    result = services.create_battle(
        t["campaign"], gm, "Ford", 8, 6, ruleset="luck", options=t["campaign"].house_rules(), seed=7
    )
    assert result.ok, result.reason
    for key, pos in places.items():
        assert services.add_combatant(result.battle_id, gm, t["chars"][key], pos=pos).ok
    return Battle.objects.get(pk=result.battle_id)


def started_battle(t: dict[str, Any]) -> Battle:
    """A started Luck battle made through the services (the fault is the point here)."""
    battle = ford_battle(t, {"alice": [0, 0], "bob": [0, 1], "monster": [5, 0]})
    assert services.start_battle(battle.pk, t["users"]["gm"]).ok
    return Battle.objects.get(pk=battle.pk)


def off_loop(fn: Any) -> Any:
    """Call the services on a thread without an event loop (sync Playwright runs one on this one)."""
    out: list[Any] = []

    def run() -> None:
        try:
            out.append(fn())
        finally:
            connections.close_all()

    worker = threading.Thread(target=run)
    worker.start()
    worker.join(timeout=30)
    assert out, "the service call failed"
    return out[0]


COLS, ROWS = 16, 12


@functools.cache
def _pictures() -> tuple[Portrait, Portrait, Portrait, MapPicture]:
    """Alia's, Grik's and Boro's portraits and the crypt's map, checked as uploads are: drawn and
    encoded once per run (the same bytes every time), stored anew by each battle."""
    return (
        portrait_from(_bytes(pictures.portrait())),
        portrait_from(_bytes(pictures.goblin())),
        portrait_from(_bytes(pictures.portrait(skin=(150, 110, 80), hair=(20, 20, 20), cloth=(130, 40, 40)))),
        map_from(_bytes(pictures.battle_map(COLS, ROWS))),
    )


def battle_on_a_map(t: dict, started: bool = True) -> int:
    """A 16 x 12 battle on a drawn map with portraits, made through the storage and the services."""
    campaign, gm = t["campaign"], t["users"]["gm"]
    alia, boro, grik = t["chars"]["alice"], t["chars"]["bob"], t["chars"]["monster"]
    alia_face, grik_face, boro_face, crypt = _pictures()
    for character, face in ((alia, alia_face), (grik, grik_face), (boro, boro_face)):
        character.set_portrait(face)
        character.save()
    item = MapImage.create_from(campaign, "Sunken crypt", crypt)
    battle_id = services.create_battle(
        campaign, gm, "Sunken crypt", COLS, ROWS, ruleset=campaign.ruleset, options=campaign.house_rules()
    ).battle_id
    Battle.objects.filter(pk=battle_id).update(map=item, grid_cols=COLS)
    for character, pos in ((alia, [3, 3]), (boro, [2, 5]), (grik, [4, 3])):
        assert services.add_combatant(battle_id, gm, character, pos=pos).ok
    if started:
        assert services.start_battle(battle_id, gm).ok
    return battle_id


def _bytes(data: bytes):
    import io

    return io.BytesIO(data)
