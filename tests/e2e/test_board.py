"""The board people look at: maps and portraits uploaded through the pages, a phone that sees them,
one turn played with the keyboard alone, axe-core on every page, the battle page's weight on a
phone, and screenshots (390 and 1280 px, light and dark) of the campaign page, a sheet and a battle
on a map in tests/e2e/artifacts/board-*.png.
"""

from __future__ import annotations

import itertools
import os
import re
import subprocess
import sys

import pytest
from axe_playwright_python.sync_playwright import Axe
from django.conf import settings
from playwright.sync_api import Page, expect

from combat import services
from combat.engine.core import legal_actions
from combat.models import Battle
from tests.e2e import pictures
from tests.e2e.conftest import LAPTOP, OPEN_PAGES, PHONE, Server
from tests.e2e.seats import (
    COLS,
    ROWS,
    WAIT,
    battle_on_a_map,
    combatant_ids,
    gm_move,
    login,
    make_table,
    open_seats,
    wait_live,
)
from vtt.models import Invite


def image_loaded(locator) -> bool:
    """The picture arrived and decoded (waits for it while it is still loading)."""
    return locator.evaluate(
        """img => (img.complete && img.naturalWidth > 0) || new Promise(done => {
             img.addEventListener('load', () => done(img.naturalWidth > 0));
             img.addEventListener('error', () => done(false));
             if (img.complete) { done(img.naturalWidth > 0); }
           })"""
    )


def new_page(browser, viewport, scheme="light", motion="no-preference") -> Page:
    phone = viewport is PHONE
    context = browser.new_context(
        viewport=viewport, is_mobile=phone, has_touch=phone, color_scheme=scheme, reduced_motion=motion
    )
    context.set_default_timeout(WAIT)
    page = context.new_page()
    OPEN_PAGES.append((f"{viewport['width']}-{scheme}", page))
    return page


def upload_portrait(page: Page, base: str, campaign_id: int, char_id: int, data: bytes) -> None:
    page.goto(f"{base}/campaigns/{campaign_id}/characters/{char_id}/edit/")
    page.get_by_label("Portrait", exact=True).set_input_files(
        files=[{"name": "portrait.png", "mimeType": "image/png", "buffer": data}]
    )
    page.get_by_role("button", name="Save").click()
    expect(page.locator("img.portrait")).to_be_visible()
    assert image_loaded(page.locator("img.portrait"))


# ---------------------------------------------------------------- maps and portraits through the pages


@pytest.mark.django_db(transaction=True)
def test_a_gm_uploads_a_map_and_a_portrait_and_a_players_phone_sees_both(asgi_server, browser, shot):
    t = make_table("luck")
    seats = open_seats(browser, asgi_server, t["users"])
    gm, bob = seats["gm"].page, seats["bob"].page
    campaign = t["campaign"]
    upload_portrait(gm, asgi_server, campaign.pk, t["chars"]["monster"].pk, pictures.goblin())
    upload_portrait(gm, asgi_server, campaign.pk, t["chars"]["alice"].pk, pictures.portrait())

    gm.goto(f"{asgi_server}/campaigns/{campaign.pk}/")
    gm.get_by_role("link", name="New battle").click()
    gm.get_by_label("Name").fill("Sunken crypt")
    gm.get_by_label("Columns").fill(str(COLS))
    gm.get_by_label("Rows").fill(str(ROWS))
    gm.get_by_label("Add the party").uncheck()  # added one by one below
    for count in gm.locator("input.count").all():  # the first battle's ready monster too
        count.fill("0")
    gm.get_by_role("button", name="Create the battle").click()
    gm.wait_for_url(re.compile(r".*/battles/\d+/$"))
    battle_url = gm.url
    gm.get_by_role("link", name="Map", exact=True).click()
    gm.get_by_label("Upload a new map").set_input_files(
        files=[{"name": "crypt.jpg", "mimeType": "image/jpeg", "buffer": pictures.battle_map(COLS, ROWS)}]
    )
    gm.get_by_label("Stretch the image over the whole board").uncheck()
    gm.get_by_label("Squares across the image").fill(str(COLS))
    gm.get_by_role("button", name="Save the map").click()
    gm.wait_for_url(battle_url)
    expect(gm.locator(".message-success")).to_contain_text("The map is on the board.")
    wait_live(gm)
    expect(gm.locator("#board .board-map")).to_be_visible()
    for n, key in enumerate(("alice", "monster"), start=1):
        gm.locator("#add-character").select_option(str(t["chars"][key].pk))
        gm.locator("#gm-add").get_by_role("button", name="Add").click()
        expect(gm.locator("#board .token")).to_have_count(n)
    # The GM places the goblin on the map: its menu's "Move…", then a square.
    gm_move(gm, combatant_ids(gm)["Grik"], 9, 6)
    grik = gm.locator('#board .token[data-x="9"][data-y="6"]')
    expect(grik).to_have_attribute("title", "Grik")
    expect(grik).to_have_attribute("aria-label", re.compile(r"^Grik, enemy, .*at J7"))

    bob.goto(battle_url)
    wait_live(bob)
    board_map = bob.locator("#board .board-map")
    expect(board_map).to_be_visible()
    assert image_loaded(board_map)
    # The set-up is the GM's secret: Bob's phone shows Alia alone until the battle begins.
    expect(bob.locator("#board .token")).to_have_count(1)
    assert "Grik" not in bob.content()
    gm.get_by_role("button", name="Start the battle").click()
    goblin_on_phone = bob.locator('#board .token[data-x="9"][data-y="6"]')
    expect(goblin_on_phone).to_have_attribute("title", "Grik")
    face = goblin_on_phone.locator("img.face")
    assert image_loaded(face)
    src = face.get_attribute("src")
    assert src.startswith("/media/campaigns/") and src.endswith(
        "-token.webp"
    )  # the thumbnail, not the upload
    assert bob.locator("#board .token img.face").count() == 2  # Alia and Grik
    # The map fills the board: 16 squares of the board span the whole picture.
    box, map_box = bob.locator("#board").bounding_box(), board_map.bounding_box()
    assert abs(box["width"] - map_box["width"]) < 2 and abs(box["height"] - map_box["height"]) < 2
    assert bob.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    shot(gm, "board-upload-gm-1280")
    shot(bob, "board-upload-player-390")


# ---------------------------------------------------------------- zoom, pan, fit


@pytest.mark.django_db(transaction=True)
def test_the_board_fills_its_panel_fits_on_load_and_zooms_pans_and_centres(asgi_server, browser):
    t = make_table("luck")
    battle_id = battle_on_a_map(t)
    page = new_page(browser, LAPTOP)
    login(page, asgi_server, t["users"]["gm"].username)
    page.goto(f"{asgi_server}/battles/{battle_id}/")
    wait_live(page)
    scroller, board = page.locator("[data-board-view]"), page.locator("#board")
    view, box = scroller.bounding_box(), board.bounding_box()
    # Fitted: the whole board is in sight and fills the panel's width or height.
    assert box["width"] <= view["width"] and box["height"] <= view["height"]
    assert max(box["width"] / view["width"], box["height"] / view["height"]) > 0.9
    assert view["height"] > 0.7 * LAPTOP["height"] - 120
    page.get_by_role("button", name="Zoom in").click()
    page.get_by_role("button", name="Zoom in").click()
    bigger = board.bounding_box()
    assert bigger["width"] > box["width"] * 1.5
    # The wheel zooms out around the pointer; a drag pans.
    page.mouse.move(view["x"] + view["width"] / 2, view["y"] + view["height"] / 2)
    page.mouse.wheel(0, 200)
    assert board.bounding_box()["width"] < bigger["width"]
    page.get_by_role("button", name="Zoom in").click()
    page.get_by_role("button", name="Zoom in").click()
    before = scroller.evaluate("el => [el.scrollLeft, el.scrollTop]")
    page.mouse.move(view["x"] + 300, view["y"] + 300)
    page.mouse.down()
    page.mouse.move(view["x"] + 200, view["y"] + 220, steps=5)
    page.mouse.up()
    after = scroller.evaluate("el => [el.scrollLeft, el.scrollTop]")
    assert after[0] > before[0] and after[1] > before[1]
    assert page.locator("#confirm[open]").count() == 0  # a drag is not a tap
    scroller.evaluate("el => { el.scrollLeft = el.scrollWidth; el.scrollTop = el.scrollHeight; }")
    page.get_by_role("button", name="Centre on acting").click()
    acting, view = page.locator("#board .token.acting").bounding_box(), scroller.bounding_box()
    assert view["x"] <= acting["x"] and acting["x"] + acting["width"] <= view["x"] + view["width"]
    assert view["y"] <= acting["y"] and acting["y"] + acting["height"] <= view["y"] + view["height"]
    page.get_by_role("button", name="Fit board").click()
    assert board.bounding_box()["width"] <= scroller.bounding_box()["width"]


def _whole_board_in_view(page: Page) -> None:
    """Every square of the board lies inside the board's panel and inside the window."""
    board, view = page.locator("#board").bounding_box(), page.locator("[data-board-view]").bounding_box()
    window = page.viewport_size
    assert board is not None and view is not None and window is not None
    edges = (board["x"], board["y"], board["x"] + board["width"], board["y"] + board["height"])
    slack = 1  # subpixel rounding
    assert edges[0] >= view["x"] - slack and edges[2] <= view["x"] + view["width"] + slack, (board, view)
    assert edges[1] >= view["y"] - slack and edges[3] <= view["y"] + view["height"] + slack, (board, view)
    assert edges[0] >= -slack and edges[1] >= -slack, (board, window)
    assert edges[2] <= window["width"] + slack and edges[3] <= window["height"] + slack, (board, window)


def _long_hall(t: dict, cols: int = 8, rows: int = 30) -> int:
    """A started battle on a board of its own (8 x 30: far taller than wide, its height limits the fit)."""
    campaign, gm = t["campaign"], t["users"]["gm"]
    made = services.create_battle(
        campaign, gm, "Long hall", cols, rows, ruleset=campaign.ruleset, options=campaign.house_rules()
    )
    for key, pos in (("alice", [1, 1]), ("bob", [6, 2]), ("monster", [4, rows - 2])):
        assert services.add_combatant(made.battle_id, gm, t["chars"][key], pos=pos).ok
    assert services.start_battle(made.battle_id, gm).ok
    return made.battle_id


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("viewport", [LAPTOP, PHONE], ids=["1280x800", "390x844"])
def test_fit_board_shows_the_whole_board_in_view(asgi_server, browser, viewport):
    """As the page opens, and zoomed in, panned to a corner and the page scrolled: "Fit board" brings
    every square into sight, for the GM and a player, on a laptop and on a phone, for a wide board on
    a map, a tall one and the 12 x 10 board of a new battle."""
    t = make_table("luck")
    boards = (battle_on_a_map(t), _long_hall(t), _long_hall(t, 12, 10))
    for battle_id, who in itertools.product(boards, ("gm", "bob")):
        page = new_page(browser, viewport)
        login(page, asgi_server, t["users"][who].username)
        page.goto(f"{asgi_server}/battles/{battle_id}/")
        wait_live(page)
        page.get_by_role("button", name="Fit board").click()  # the page as it opened, at its top
        _whole_board_in_view(page)
        scroller = page.locator("[data-board-view]")
        for _ in range(3):
            page.get_by_role("button", name="Zoom in").click()
        scroller.evaluate("el => { el.scrollLeft = el.scrollWidth; el.scrollTop = el.scrollHeight; }")
        page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
        zoomed, view = page.locator("#board").bounding_box(), scroller.bounding_box()
        assert zoomed["width"] > view["width"] or zoomed["height"] > view["height"]  # no longer in sight
        fit = page.get_by_role("button", name="Fit board")
        fit.scroll_into_view_if_needed()  # where a person scrolls back up to reach it
        fit.click()
        _whole_board_in_view(page)
        assert page.locator("#board .token").count() == 3  # every token on it, none cut off
        for token in page.locator("#board .token").all():
            box = token.bounding_box()
            assert box is not None and box["y"] + box["height"] <= viewport["height"] + 1, who
        page.context.close()


@pytest.mark.django_db(transaction=True)
def test_a_pinch_zooms_the_board_on_a_phone(asgi_server, browser):
    t = make_table("luck")
    battle_id = battle_on_a_map(t)
    page = new_page(browser, PHONE)
    login(page, asgi_server, t["users"]["bob"].username)
    page.goto(f"{asgi_server}/battles/{battle_id}/")
    wait_live(page)
    width = page.locator("#board").bounding_box()["width"]
    view = page.locator("[data-board-view]").bounding_box()
    cx, cy = view["x"] + view["width"] / 2, view["y"] + view["height"] / 2
    cdp = page.context.new_cdp_session(page)

    def touch(kind, spread):
        points = (
            []
            if kind == "touchEnd"
            else [{"x": cx - spread, "y": cy, "id": 1}, {"x": cx + spread, "y": cy, "id": 2}]
        )
        cdp.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": points})

    touch("touchStart", 20)
    for spread in range(30, 130, 10):
        touch("touchMove", spread)
    touch("touchEnd", 0)
    assert page.locator("#board").bounding_box()["width"] > width * 2
    # The action sheet is still in reach below the board.
    dock = page.locator("#dock").bounding_box()
    assert (
        dock["y"] < PHONE["height"]
        and page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    )


@pytest.mark.django_db(transaction=True)
def test_a_phone_keeps_tap_sized_tokens_when_the_pointer_query_flickers(asgi_server, browser):
    # Chromium answers "(pointer: coarse)" with false for a moment during a full-page screenshot,
    # and a re-fit in that moment shrank a phone's squares to 30 px: a phone stays a touch screen.
    t = make_table("luck")
    battle_id = battle_on_a_map(t)
    page = new_page(browser, PHONE)
    login(page, asgi_server, t["users"]["bob"].username)
    page.goto(f"{asgi_server}/battles/{battle_id}/")
    wait_live(page)
    token = page.locator("#board .token").first
    assert token.bounding_box()["width"] >= 44
    cdp = page.context.new_cdp_session(page)
    page.set_viewport_size({"width": 600, "height": PHONE["height"]})
    page.wait_for_timeout(400)
    cdp.send("Emulation.setTouchEmulationEnabled", {"enabled": False})
    assert page.evaluate("matchMedia('(pointer: coarse)').matches") is False
    page.set_viewport_size(PHONE)
    page.wait_for_timeout(400)
    box = token.bounding_box()
    cdp.send("Emulation.setTouchEmulationEnabled", {"enabled": True, "maxTouchPoints": 1})
    assert box["width"] >= 44 and box["height"] >= 44, box


# ---------------------------------------------------------------- keyboard only


def _acting_is(battle_id: int, character_id: int, gm) -> str:
    """Skip turns (as the GM would) until the character acts; its combatant id."""
    for _ in range(6):
        battle = Battle.objects.get(pk=battle_id)
        state = services.load_state(battle)
        current = state.current()
        if current is not None and current.character_id == character_id:
            return current.id
        assert services.gm_override(battle_id, gm, {"kind": "gm.skip_turn"}, battle.seq).ok
    raise AssertionError("the character never got a turn")


@pytest.mark.django_db(transaction=True)
def test_one_turn_played_with_the_keyboard_alone(asgi_server, browser, shot):
    t = make_table("luck")
    battle_id = battle_on_a_map(t)
    alia = _acting_is(battle_id, t["chars"]["alice"].pk, t["users"]["gm"])
    state = services.load_state(Battle.objects.get(pk=battle_id))
    grik = next(c.id for c in state.combatants.values() if c.name == "Grik")
    label = next(o.label for o in legal_actions(state, alia) if o.available and grik in o.targets)
    seq_before = Battle.objects.get(pk=battle_id).seq

    page = new_page(browser, LAPTOP)
    login(page, asgi_server, t["users"]["alice"].username)
    page.goto(f"{asgi_server}/battles/{battle_id}/")
    wait_live(page)
    expect(page.locator("#alert")).to_contain_text("Your turn")
    # Tab to the action (no mouse from here on).
    for _ in range(120):
        page.keyboard.press("Tab")
        if page.evaluate(
            "label => document.activeElement.matches('#actions button.opt')"
            " && document.activeElement.textContent.trim().startsWith(label)",
            label,
        ):
            break
    else:
        raise AssertionError(f"Tab never reached the action {label!r}")
    page.keyboard.press("Enter")
    # The board takes the focus, on the first target; arrows move, Enter picks.
    expect(page.locator("#board")).to_be_focused()
    expect(page.locator("#announce")).to_contain_text("can be picked")
    page.keyboard.press("ArrowLeft")
    expect(page.locator("#announce")).to_contain_text("Alia, party")
    expect(page.locator("#announce")).to_contain_text("at D4")
    page.keyboard.press("ArrowRight")
    expect(page.locator("#announce")).to_contain_text("Grik, enemy")
    page.keyboard.press("Enter")
    dialog = page.locator("#confirm")
    expect(dialog).to_be_visible()
    expect(page.locator("#confirm-text")).to_contain_text("Grik")
    expect(dialog.locator("button[data-confirm=yes]")).to_be_focused()
    shot(page, "board-keyboard-confirm-1280")
    page.keyboard.press("Enter")
    page.wait_for_function(
        "n => parseInt(document.getElementById('battle-seq').dataset.seq, 10) > n", arg=seq_before
    )
    assert Battle.objects.get(pk=battle_id).seq > seq_before
    expect(page.locator(f'#log .entry[data-seq="{seq_before + 1}"]')).to_be_visible()


# ---------------------------------------------------------------- accessibility


def serious(page: Page) -> list[str]:
    results = Axe().run(page)
    out = []
    for v in results.response["violations"]:
        if v.get("impact") in ("serious", "critical"):
            nodes = "; ".join(
                n["target"][0] if isinstance(n["target"][0], str) else str(n["target"])
                for n in v["nodes"][:3]
            )
            out.append(f"{page.url} [{v['impact']}] {v['id']}: {v['help']} ({nodes})")
    return out


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("viewport", [PHONE, LAPTOP], ids=["390", "1280"])
@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_axe_finds_no_serious_problem_on_the_gm_tour_and_the_battle_page(
    asgi_server, browser, viewport, scheme
):
    t = make_table("luck")
    battle_id = battle_on_a_map(t)
    campaign = t["campaign"]
    alia = t["chars"]["alice"]
    invite = Invite.objects.create(campaign=campaign, created_by=t["users"]["gm"], max_uses=3)
    problems: list[str] = []

    # Reduced motion: axe judges the colours of a still page, not of a banner halfway through fading in.
    anonymous = new_page(browser, viewport, scheme, "reduce")
    for path in ("/", "/accounts/login/", "/accounts/signup/", f"/join/{invite.token}/"):
        anonymous.goto(asgi_server + path)
        problems += serious(anonymous)

    gm = new_page(browser, viewport, scheme, "reduce")
    login(gm, asgi_server, t["users"]["gm"].username)
    tour = [
        "/campaigns/",
        "/campaigns/new/",
        f"/campaigns/{campaign.pk}/",
        f"/campaigns/{campaign.pk}/edit/",
        f"/campaigns/{campaign.pk}/maps/",
        f"/campaigns/{campaign.pk}/characters/new/",
        f"/campaigns/{campaign.pk}/characters/new/?kind=monster",
        f"/campaigns/{campaign.pk}/characters/{alia.pk}/",
        f"/campaigns/{campaign.pk}/characters/{alia.pk}/edit/",
        f"/campaigns/{campaign.pk}/battles/new/",
        f"/battles/{battle_id}/map",
        f"/join/{invite.token}/",
    ]
    for path in tour:
        gm.goto(asgi_server + path)
        problems += serious(gm)
    # A form sent back with errors is a page too.
    gm.goto(f"{asgi_server}/campaigns/{campaign.pk}/maps/")
    gm.get_by_role("button", name="Upload the map").click()
    expect(gm.locator(".form-errors")).to_be_visible()
    problems += serious(gm)
    gm.goto(f"{asgi_server}/battles/{battle_id}/")
    wait_live(gm)
    problems += serious(gm)

    player = new_page(browser, viewport, scheme, "reduce")
    login(player, asgi_server, t["users"]["alice"].username)
    player.goto(f"{asgi_server}/battles/{battle_id}/")
    wait_live(player)
    problems += serious(player)
    player.locator("#board").focus()  # the keyboard's focus square and its announcement
    player.keyboard.press("ArrowRight")
    problems += serious(player)
    assert problems == []


@pytest.mark.django_db(transaction=True)
def test_colour_is_never_the_only_sign_of_a_side_or_of_health(asgi_server, browser):
    t = make_table("luck")
    battle_id = battle_on_a_map(t)
    page = new_page(browser, LAPTOP)
    login(page, asgi_server, t["users"]["alice"].username)
    page.goto(f"{asgi_server}/battles/{battle_id}/")
    wait_live(page)
    grik = page.locator("#board .token.side-enemy")
    assert grik.count() == 1
    # An enemy token has a shape of its own (the diamond mark and a double ring), and words for screen readers.
    assert grik.locator(".side-mark").evaluate("el => getComputedStyle(el).display") == "block"
    assert grik.evaluate("el => getComputedStyle(el).borderTopStyle") == "double"
    assert re.match(
        r"Grik, enemy, (unhurt|wounded|bloodied|badly hurt), at E4", grik.get_attribute("aria-label")
    )
    party = page.locator("#board .token.side-party").first
    assert party.locator(".side-mark").evaluate("el => getComputedStyle(el).display") == "none"


# ---------------------------------------------------------------- light pages


@pytest.fixture
def production_static(tmp_path, transactional_db):
    """A server whose static files are collected, hashed and compressed, served by whitenoise."""
    root = tmp_path / "static"
    # Production settings (hashed names only appear with DEBUG off), minus HTTPS, which a test server lacks.
    env = {
        "STATIC_ROOT": str(root),
        "DEBUG": "0",
        "SECRET_KEY": "e2e-weight-test-key-not-a-secret",
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
        "SECURE_SSL_REDIRECT": "0",
        "SECURE_HSTS_SECONDS": "0",
    }
    subprocess.run(
        [sys.executable, "manage.py", "collectstatic", "--noinput", "-v", "0"],
        check=True,
        cwd=settings.BASE_DIR,
        env={**os.environ, **env},
    )
    server = Server(env=env, static_handler=False)
    try:
        yield server
    finally:
        server.stop()


@pytest.mark.django_db(transaction=True)
def test_the_battle_page_weighs_at_most_100_kb_on_a_phone_without_images(production_static, browser):
    base = production_static.url
    t = make_table("luck")
    battle_id = battle_on_a_map(t)
    page = new_page(browser, PHONE)
    login(page, base, t["users"]["bob"].username)
    # A first load: nothing the login page fetched stays in the cache.
    page.context.new_cdp_session(page).send("Network.clearBrowserCache")
    page.goto(f"{base}/battles/{battle_id}/")
    wait_live(page)
    sizes = page.evaluate(
        """() => {
          const nav = performance.getEntriesByType('navigation')[0];
          const res = performance.getEntriesByType('resource');
          const out = {page: nav.transferSize, files: {}, images: 0};
          for (const r of res) {
            if (r.initiatorType === 'img' || /\\.(webp|png|jpe?g|gif|svg)(\\?|$)/.test(r.name)) { out.images += r.transferSize; continue; }
            out.files[r.name.replace(location.origin, '')] = r.transferSize;
          }
          return out;
        }"""
    )
    total = sizes["page"] + sum(sizes["files"].values())
    print(
        f"\nbattle page first load at 390 px: {total / 1024:.1f} KB without images "
        f"(page {sizes['page'] / 1024:.1f} KB; "
        + ", ".join(f"{k} {v / 1024:.1f} KB" for k, v in sizes["files"].items())
        + f"); images {sizes['images'] / 1024:.1f} KB"
    )
    assert sizes["files"], "no static files were measured"
    assert all(v > 0 for v in sizes["files"].values()), sizes  # measured over the wire, not from a cache
    assert total <= 100 * 1024, sizes
    # Static files have hashed names, are compressed, and may be cached for a long time.
    css = next(k for k in sizes["files"] if k.endswith(".css"))
    assert re.search(r"\.[0-9a-f]{12}\.css$", css), css
    response = page.request.get(base + css, headers={"Accept-Encoding": "gzip"})
    assert (
        "max-age=315360000" in response.headers["cache-control"]
        and "immutable" in response.headers["cache-control"]
    )
    # Token pictures on the board are the thumbnails, not the uploads.
    for src in page.locator("#board img.face").evaluate_all("els => els.map(e => e.getAttribute('src'))"):
        assert src.endswith("-token.webp")


# ---------------------------------------------------------------- screenshots


@pytest.mark.django_db(transaction=True)
def test_screenshots_of_the_campaign_a_sheet_and_a_battle_on_a_map(asgi_server, browser, shot):
    t = make_table("luck")
    battle_id = battle_on_a_map(t)
    campaign, alia = t["campaign"], t["chars"]["alice"]
    for scheme in ("light", "dark"):
        for viewport in (PHONE, LAPTOP):
            w = viewport["width"]
            gm = new_page(browser, viewport, scheme)
            login(gm, asgi_server, t["users"]["gm"].username)
            gm.goto(f"{asgi_server}/campaigns/{campaign.pk}/")
            shot(gm, f"board-campaign-{w}-{scheme}")
            player = new_page(browser, viewport, scheme)
            login(player, asgi_server, t["users"]["alice"].username)
            player.goto(f"{asgi_server}/campaigns/{campaign.pk}/characters/{alia.pk}/")
            shot(player, f"board-sheet-{w}-{scheme}")
            player.goto(f"{asgi_server}/battles/{battle_id}/")
            wait_live(player)
            expect(player.locator("#board .board-map")).to_be_visible()
            shot(player, f"board-battle-{w}-{scheme}", full_page=False)
            gm.goto(f"{asgi_server}/battles/{battle_id}/")
            wait_live(gm)
            shot(gm, f"board-battle-gm-{w}-{scheme}", full_page=False)
            for page in (gm, player):
                assert page.evaluate("document.documentElement.scrollWidth") <= w
            gm.context.close()
            player.context.close()


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("width", [320, 390, 768, 1280, 1920])
def test_no_page_scrolls_sideways_at_common_widths(asgi_server, browser, width):
    t = make_table("luck")
    battle_id = battle_on_a_map(t)
    campaign, alia = t["campaign"], t["chars"]["alice"]
    page = new_page(browser, {"width": width, "height": 800})
    login(page, asgi_server, t["users"]["gm"].username)
    for path in (
        f"/campaigns/{campaign.pk}/",
        f"/campaigns/{campaign.pk}/characters/{alia.pk}/",
        f"/campaigns/{campaign.pk}/characters/{alia.pk}/edit/",
        f"/campaigns/{campaign.pk}/maps/",
        f"/battles/{battle_id}/map",
        f"/battles/{battle_id}/",
    ):
        page.goto(asgi_server + path)
        assert page.evaluate("document.documentElement.scrollWidth") <= width, (path, width)
