"""The GM's token menu in a real Chromium: opened by a mouse click, a long press on a touch screen, or
Enter on the focused token; each entry one tap away; Escape closes it and the focus goes back."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.e2e.conftest import LAPTOP, PHONE
from tests.e2e.seats import WAIT, combatant_ids, login, wait_live


def _active_table(tag: str, ruleset: str = "luck"):
    """A started battle: the player's template hero against two template monsters (through the services)."""
    from combat import services, setup
    from tests.table import make_user
    from vtt.content import character_templates
    from vtt.models import Campaign, Character, CharacterKind, Membership

    gm, player = make_user(f"gm-menu-{tag}"), make_user(f"pl-menu-{tag}")
    from combat.engine.rulesets import get_ruleset

    campaign = Campaign.objects.create(
        name="Menus", ruleset=ruleset, owner=gm, options=get_ruleset(ruleset).default_options()
    )
    Membership.objects.create(user=gm, campaign=campaign, role="gm")
    Membership.objects.create(user=player, campaign=campaign, role="player")
    hero_name, hero = next(iter(character_templates(campaign, "pc").items()))
    foe_name, foe = next(iter(character_templates(campaign, "monster").items()))
    pc = Character.objects.create(campaign=campaign, name=hero_name, owner=player, sheet=hero)
    monster = Character.objects.create(
        campaign=campaign, name=foe_name, kind=CharacterKind.MONSTER, sheet=foe
    )
    made = setup.setup_battle(campaign, gm, "Menus", 12, 10, [setup.Recruit(pc), setup.Recruit(monster, 2)])
    assert made.ok, made.reason
    started = services.start_battle(made.battle_id, gm, None, None)
    assert started.ok, started.reason
    return gm, player, made.battle_id


def _seat(browser, base, user, viewport):
    phone = viewport is PHONE
    context = browser.new_context(viewport=viewport, is_mobile=phone, has_touch=phone)
    context.set_default_timeout(WAIT)
    page = context.new_page()
    login(page, base, user.username)
    return context, page


def _foe(page) -> tuple[str, str]:
    name, cid = next((n, c) for n, c in combatant_ids(page).items() if n.endswith(" 1"))
    return name, cid


def test_the_gm_clicks_a_token_and_uses_its_menu(asgi_server, browser, shot):
    gm_user, player_user, battle_id = _active_table("mouse")
    context, gm = _seat(browser, asgi_server, gm_user, LAPTOP)
    pl_context, pl = _seat(browser, asgi_server, player_user, PHONE)
    for page in (gm, pl):
        page.goto(f"{asgi_server}/battles/{battle_id}/")
        wait_live(page)
    # The old stack of override forms is gone; "End battle" sits in the battle's header.
    expect(gm.locator("details.gm-override")).to_have_count(0)
    expect(gm.locator(".battle-head").get_by_role("button", name="End battle")).to_be_visible()
    name, cid = _foe(gm)
    token = gm.locator(f'#board .token[data-cid="{cid}"]')
    token.click()
    menu = gm.get_by_role("dialog", name=name)
    expect(menu).to_be_visible()
    expect(token).to_have_attribute("aria-expanded", "true")
    expect(menu.get_by_role("menu")).to_be_visible()
    shot(gm, "token-menu-1280")
    hp = int(re.search(r"HP (\d+)/", menu.locator(".tm-hp").inner_text()).group(1))
    # HP down by 2: one field, one tap.
    menu.get_by_label("HP by").fill("2")
    menu.get_by_role("button", name="HP down by the amount").click()
    expect(token).to_have_attribute("aria-label", re.compile(rf"HP {hp - 2} of"))
    expect(menu).to_be_visible()  # the menu stays open through the push for the next entry
    # A status, added and removed.
    menu.get_by_role("button", name="Add", exact=True).click()
    status = menu.get_by_role("menuitem", name=re.compile(r"^Remove (?!from)"))
    expect(status).to_have_count(1)
    status.click()
    expect(menu.get_by_role("menuitem", name=re.compile(r"^Remove (?!from)"))).to_have_count(0)
    # Hidden: the player's board loses the token; revealed: it comes back.
    menu.get_by_role("menuitem", name="Hide from players").click()
    expect(pl.locator(f'#board .token[data-cid="{cid}"]')).to_have_count(0)
    expect(token).to_have_class(re.compile("veiled"))
    menu.get_by_role("menuitem", name="Reveal to players").click()
    expect(pl.locator(f'#board .token[data-cid="{cid}"]')).to_have_count(1)
    # Remove asks first.
    menu.get_by_role("menuitem", name="Remove from the battle").click()
    expect(gm.locator("#confirm")).to_contain_text(f"Remove {name} from the battle?")
    gm.locator("#confirm button[data-confirm=yes]").click()
    expect(token).to_have_count(0)
    expect(pl.locator(f'#board .token[data-cid="{cid}"]')).to_have_count(0)
    # End battle: from the header, with a confirm.
    gm.locator(".battle-head").get_by_role("button", name="End battle").click()
    expect(gm.locator("#confirm")).to_contain_text("End the battle now?")
    add = gm.get_by_role("heading", name="Add combatants")
    expect(add).to_be_visible()
    gm.locator("#confirm button[data-confirm=yes]").click()
    expect(gm.locator("#tracker-title")).to_have_text("Battle over")
    # Nobody joins a battle that is over: "Add combatants" goes with the push, and comes back with an undo.
    expect(add).to_be_hidden()
    gm.locator("#gm-panel").get_by_role("button", name="Undo last action").click()
    expect(gm.locator("#tracker-title")).to_have_text(re.compile(r"^Round \d+$"))
    expect(add).to_be_visible()
    expect(gm.locator(".battle-head").get_by_role("button", name="End battle")).to_be_visible()
    context.close()
    pl_context.close()


def test_the_gm_long_presses_a_token_on_a_phone(asgi_server, browser, shot):
    gm_user, _, battle_id = _active_table("touch")
    context, gm = _seat(browser, asgi_server, gm_user, PHONE)
    gm.goto(f"{asgi_server}/battles/{battle_id}/")
    wait_live(gm)
    name, cid = _foe(gm)
    token = gm.locator(f'#board .token[data-cid="{cid}"]')
    token.scroll_into_view_if_needed()
    box = token.bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    cdp = context.new_cdp_session(gm)
    point = [{"x": x, "y": y}]
    cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": point})
    menu = gm.get_by_role("dialog", name=name)
    expect(menu).to_be_visible()  # opened while the finger is still down: a long press
    # A slow lift: the finger stays down well after the menu opened (the time is the point here).
    gm.wait_for_timeout(900)
    cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    expect(menu).to_be_visible()  # lifting the finger does not close it
    expect(menu).to_have_class(re.compile("sheet"))
    shot(gm, "token-menu-390")
    menu.get_by_role("button", name="HP up by the amount").tap()
    expect(gm.locator("#battle-messages")).to_contain_text(re.compile(r"HP|Done|hp", re.I))
    menu.get_by_role("button", name=f"Close the menu of {name}").tap()
    expect(menu).to_be_hidden()
    # A plain tap opens it too.
    token.tap()
    expect(menu).to_be_visible()
    context.close()


def test_the_gm_opens_a_token_menu_from_the_keyboard(asgi_server, browser):
    gm_user, _, battle_id = _active_table("keys")
    context, gm = _seat(browser, asgi_server, gm_user, LAPTOP)
    gm.goto(f"{asgi_server}/battles/{battle_id}/")
    wait_live(gm)
    name, cid = _foe(gm)
    token = gm.locator(f'#board .token[data-cid="{cid}"]')
    token.focus()
    gm.keyboard.press("Enter")
    menu = gm.get_by_role("dialog", name=name)
    expect(menu).to_be_visible()
    items = menu.get_by_role("menuitem")
    expect(items.first).to_be_focused()
    gm.keyboard.press("ArrowDown")
    expect(items.nth(1)).to_be_focused()
    gm.keyboard.press("ArrowUp")
    expect(items.first).to_be_focused()
    gm.keyboard.press("Escape")
    expect(menu).to_be_hidden()
    expect(token).to_be_focused()
    # Move from the keyboard: the entry, then a square picked with the arrows and Enter.
    gm.keyboard.press("Enter")
    menu.get_by_role("menuitem", name="Move…").press("Enter")
    expect(menu).to_be_hidden()
    expect(gm.locator("#board-hint")).to_contain_text(f"Tap a square for {name}")
    context.close()


@pytest.mark.parametrize("size", ["390", "1280"])
def test_the_gms_board_toolbar_is_one_row(asgi_server, browser, shot, size):
    gm_user, _, battle_id = _active_table(f"bar{size}")
    context, gm = _seat(browser, asgi_server, gm_user, PHONE if size == "390" else LAPTOP)
    gm.goto(f"{asgi_server}/battles/{battle_id}/")
    wait_live(gm)
    bar = gm.get_by_role("toolbar", name="Board view")
    # On a phone the tools show icons; their names stay the words (for screen readers, and these tests).
    for role, name in (
        ("button", "Fit board"),
        ("button", "Centre on acting"),
        ("link", "Map"),
        ("button", "Ruler"),
    ):
        expect(bar.get_by_role(role, name=name, exact=True)).to_be_visible()
    expect(bar.locator("summary", has_text="Fog")).to_be_visible()
    shot(gm, f"gm-toolbar-{size}", full_page=False)
    # One row: every tool at the same height (at 390 px, the GM's seven tools were two rows).
    tops = bar.locator(":scope > :visible").evaluate_all(
        "els => els.map(e => Math.round(e.getBoundingClientRect().top))"
    )
    assert len(tops) == 7 and len(set(tops)) == 1, tops
    if size == "390":
        # Above the board two rows, not three: "End battle" and "Chat" beside the campaign's link,
        # the title and the connection under them.
        boxes = gm.evaluate(
            """() => Object.fromEntries(
              [".battle-head .crumb-link", "#end-battle button", ".chat-toggle", ".battle-head h1"].map(
                (s) => { const r = document.querySelector(s).getBoundingClientRect(); return [s, [r.top, r.bottom]]; }))"""
        )
        link_top, link_bottom = boxes[".battle-head .crumb-link"]
        middle = (link_top + link_bottom) / 2
        for button in ("#end-battle button", ".chat-toggle"):
            top, bottom = boxes[button]
            assert top <= middle <= bottom, (button, boxes)
        assert (
            boxes[".battle-head h1"][0]
            >= max(boxes[b][1] for b in ("#end-battle button", ".chat-toggle")) - 1
        )
        assert gm.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    context.close()


def test_a_second_tap_while_the_first_is_on_its_way_sends_nothing(asgi_server, browser):
    """htmx queues a form's second submission while its first is on its way and sends it once the
    first is answered, with the seq the push brought (and a new token): a turn skipped twice. The
    options' box and the GM's quick actions drop it instead."""
    gm_user, _, battle_id = _active_table("twice")
    context, gm = _seat(browser, asgi_server, gm_user, LAPTOP)
    # The table's pushes are held back while the first post is answered: its push would replace the
    # quick actions first, and htmx sends nothing queued on an element gone from the page, so the
    # test would depend on which of the two came first.
    held_frames: list = []
    holding = [False]

    def through(ws):
        server = ws.connect_to_server()
        ws.on_message(server.send)
        server.on_message(
            lambda message: held_frames.append((ws, message)) if holding[0] else ws.send(message)
        )

    gm.route_web_socket("**/ws/battles/**", through)
    gm.goto(f"{asgi_server}/battles/{battle_id}/")
    wait_live(gm)
    # The action posts the page sends, counted once the first is answered and whatever htmx queued
    # behind it has gone (htmx sends a queued request as it handles the answer). Counted on the
    # requests themselves, not on htmx's events: the first action's push may replace the quick
    # actions before its answer arrives, and an element's events no longer reach the page then.
    gm.evaluate(
        """() => {
          window.vttPosts = 0; window.vttSettled = null;
          const open = XMLHttpRequest.prototype.open, send = XMLHttpRequest.prototype.send;
          XMLHttpRequest.prototype.open = function (method, url) {
            this.vttAction = String(method).toUpperCase() === "POST" && /[/]act$/.test(String(url));
            return open.apply(this, arguments);
          };
          XMLHttpRequest.prototype.send = function () {
            if (this.vttAction) {
              window.vttPosts += 1;
              if (window.vttPosts === 1) {
                this.addEventListener("loadend", () => setTimeout(() => { window.vttSettled = window.vttPosts; }, 0));
              }
            }
            return send.apply(this, arguments);
          };
        }"""
    )
    held = []
    gm.route("**/act", lambda route: held.append(route))  # the first post waits here until the second tap
    skip = gm.locator("#gm-quick").get_by_role("button", name="Skip this turn")
    before = gm.locator("#battle-seq").get_attribute("data-seq") or ""
    holding[0] = True
    with gm.expect_request("**/act"):
        skip.click()
    skip.click()
    assert len(held) == 1
    held[0].continue_()
    gm.wait_for_function("() => window.vttSettled !== null")
    assert gm.evaluate("() => window.vttSettled") == 1
    holding[0] = False
    for ws, message in held_frames:  # the push of the one action, and the page takes it
        ws.send(message)
    expect(gm.locator("#battle-seq")).not_to_have_attribute("data-seq", before)
    context.close()


def test_the_chat_drawer_is_off_screen_on_a_phone_from_the_first_paint(asgi_server, browser):
    gm_user, _, battle_id = _active_table("drawer")
    context, gm = _seat(browser, asgi_server, gm_user, PHONE)
    # Once the page is parsed, before the deferred scripts run: its script-only styles already apply
    # (they hide the drawer), so the first paint never shows the drawer sliding away.
    gm.add_init_script(
        """document.addEventListener("readystatechange", () => {
          if (document.readyState === "interactive") {
            window.vttJsAtParse = document.documentElement.classList.contains("js");
          }
        });"""
    )
    gm.goto(f"{asgi_server}/battles/{battle_id}/")
    wait_live(gm)
    assert gm.evaluate("() => window.vttJsAtParse") is True
    expect(gm.locator("#chat-drawer")).to_be_hidden()
    gm.get_by_role("button", name="Chat").click()
    expect(gm.locator("#chat-drawer")).to_be_visible()
    context.close()
