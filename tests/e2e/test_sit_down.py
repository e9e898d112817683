"""Sit down and play (issue 37), in a real Chromium from an empty site.

- A GM signs up, makes a campaign and copies its invite link (laptop); the player opens the link on a
  390 x 844 touch phone, types a name, picks a hero, and joins the battle the GM starts: every tap and
  character is counted to the first attack, with the Keystroke-Level Model estimate, one summary line
  per ruleset: ``join ruleset=<key> player taps=<N> chars=<M> klm_s=<S>``.
- A visitor with no account clicks "Try a battle" on the home page and is playing; a second visitor's
  throwaway table does not exist for the first.
- Each newcomer's form has its submit in view at 390 x 844 and 1280 x 800; the demo's battle shows.

With ``VTT_SHOTS`` set, what each of these screens shows without scrolling is saved at 390 and 1280 px,
with its words (``<name>.txt``).
"""

from __future__ import annotations

import re

import pytest
from django.core.management import call_command
from playwright.sync_api import expect

from combat.engine.rulesets import RULESETS, get_ruleset
from tests.e2e.conftest import LAPTOP, OPEN_PAGES, PHONE
from tests.e2e.seats import WAIT, login, wait_live
from tests.e2e.sitdown import (
    Person,
    answer_until_my_turn,
    first_attack,
    rig_hero_first,
    save_words,
    screen_words,
    submit_in_view,
    viewport_shot,
)

PASSWORD = "a-long-pass-phrase-7"
# The template the player picks: a hero with a ranged attack, so the first attack needs no move.
HERO = {"luck": "Mage", "mist": "Mage", "paradigm": "Mage", "action-block": "Gunslinger"}
MAX_TAPS, MAX_CHARS, MAX_KLM = 8, 15, 30.0


def _context(browser, viewport, base: str | None = None):
    phone = viewport is PHONE
    context = browser.new_context(viewport=viewport, is_mobile=phone, has_touch=phone)
    if base:
        context.grant_permissions(["clipboard-read", "clipboard-write"], origin=base)
    context.set_default_timeout(WAIT)
    page = context.new_page()
    OPEN_PAGES.append((f"{viewport['width']}", page))
    return page


def _both_sizes(page, name: str) -> None:
    """The screen at 390 x 844 and 1280 x 800 (VTT_SHOTS), then back to the page's own size."""
    size = page.viewport_size
    for label, viewport in (("390", PHONE), ("1280", LAPTOP)):
        page.set_viewport_size(viewport)
        viewport_shot(page, f"{name}-{label}")
    save_words(name, screen_words(page))
    page.set_viewport_size(size)


def _in_view_at_both_sizes(page, button) -> None:
    size = page.viewport_size
    for viewport in (PHONE, LAPTOP):
        page.set_viewport_size(viewport)
        where = submit_in_view(page, button)
        assert where["ok"], f"{page.url} at {viewport['width']}: the submit is out of view {where}"
    page.set_viewport_size(size)


def _gm_makes_a_campaign(gm, base: str, ruleset: str, tag: str) -> str:
    """A new GM: home, Sign up, the campaign form (ruleset card), Copy link. Returns the invite link."""
    gm.goto(base + "/")
    gm.locator("#main").get_by_role("link", name="Sign up").click()
    gm.get_by_label("Username").fill(f"gm_{tag}")
    gm.get_by_label("Password", exact=True).fill(PASSWORD)
    gm.get_by_label("Password confirmation").fill(PASSWORD)
    gm.get_by_role("button", name="Create account").click()
    gm.wait_for_url(re.compile(r".*/campaigns/new/$"))
    gm.get_by_label("Name").fill(f"The {get_ruleset(ruleset).name} table")
    gm.locator(f"input[name=ruleset][value='{ruleset}']").check()
    expect(gm.locator("#house-rules input[name=options_for]")).to_have_value(ruleset)
    create = gm.get_by_role("button", name="Create campaign")
    _in_view_at_both_sizes(gm, create)
    create.click()
    gm.wait_for_url(re.compile(r".*/campaigns/\d+/$"))
    copy = gm.locator("[data-copy=first-invite]")
    copy.click()
    expect(copy).to_have_text("Copied!")
    link = gm.evaluate("navigator.clipboard.readText()")
    assert "/join/" in link
    return link


@pytest.mark.parametrize("ruleset", sorted(RULESETS))
def test_a_player_goes_from_the_invite_link_to_the_first_attack(
    asgi_server, browser, ruleset, record_property
):
    base = asgi_server
    gm = _context(browser, LAPTOP, base)
    link = _gm_makes_a_campaign(gm, base, ruleset, ruleset[:4])
    campaign_url = gm.url

    # --- the player, on a phone: the link, a name, Go
    player = Person(_context(browser, PHONE))
    pl = player.page
    pl.goto(link)
    player.saw()
    expect(pl.locator("h1")).to_contain_text(f"gm_{ruleset[:4]} invites you to")
    if ruleset == "luck":
        _both_sizes(pl, "invite")
    player.tap(pl.get_by_label("Your name"))
    player.type("Mira")
    player.press_go()
    pl.wait_for_url(re.compile(r".*/characters/new/$"))
    player.saw()
    # --- a character in two taps: the hero's template, then Create (the name comes with the template)
    player.tap(pl.locator(".templates").get_by_role("link", name=HERO[ruleset], exact=True))
    expect(pl.get_by_label("Name", exact=True)).to_have_value(HERO[ruleset])
    create = pl.get_by_role("button", name="Create character")
    _in_view_at_both_sizes(pl, create)
    if ruleset == "luck":
        _both_sizes(pl, "character-form")
    assert pl.locator("[name=kind], [name=owner]").count() == 0  # the GM's fields
    player.tap(create)
    pl.wait_for_url(campaign_url)
    player.saw()

    # --- the GM: New battle (the party and a monster are ready), create, start with the hero first
    gm.get_by_role("link", name="New battle").click()
    gm.get_by_role("button", name="Create the battle").click()
    gm.wait_for_url(re.compile(r".*/battles/\d+/$"))
    wait_live(gm)
    battle_id = int(gm.url.rstrip("/").rsplit("/", 1)[1])
    from vtt.guest_models import Guest  # noqa: PLC0415

    rig_hero_first(battle_id, str(Guest.objects.get().user_id))  # the one guest of this test: the player
    gm.get_by_role("button", name="Start the battle").click()

    # --- the player hears it live, joins, answers what the rules ask first, and attacks
    notice = pl.locator("#battle-notice")
    expect(notice).to_contain_text("has started")
    player.tap(notice.get_by_role("link", name="Join the battle"))
    pl.wait_for_url(re.compile(rf".*/battles/{battle_id}/$"))
    player.saw()
    wait_live(pl)
    answer_until_my_turn(player)
    text = first_attack(player)
    assert re.search(r"Hit|Miss|hit|miss|damage|Critical", text), text

    klm = player.klm()
    line = f"join ruleset={ruleset} player taps={player.taps} chars={player.chars} klm_s={klm:.1f}"
    record_property("sitdown", line + f" screens={player.screens}")
    assert player.taps <= MAX_TAPS and player.chars <= MAX_CHARS and klm <= MAX_KLM, line


def test_a_visitor_is_playing_in_two_clicks_and_sees_no_other_visitors_table(
    asgi_server, browser, record_property
):
    base = asgi_server
    first = Person(_context(browser, PHONE))
    page = first.page
    page.goto(base + "/")
    first.saw()
    _both_sizes(page, "home-try-a-battle")
    try_luck = page.get_by_role("button", name=re.compile(r"^Play D20 Luck"))
    assert submit_in_view(page, try_luck)["ok"], "the first ruleset's button is out of view on a phone"
    first.tap(try_luck)
    page.wait_for_url(re.compile(r".*/battles/\d+/$"))
    first.saw()
    wait_live(page)
    answer_until_my_turn(first, tries=2)  # playing: the hero's turn (a question first counts as a tap)
    mine = page.url
    _both_sizes(page, "try-battle")
    assert first.taps <= 2, first.taps
    record_property("sitdown", f"try ruleset=luck visitor clicks={first.taps} klm_s={first.klm():.1f}")

    second = _context(browser, LAPTOP)
    second.goto(base + "/")
    second.get_by_role("button", name=re.compile(r"^Play Mist & Rampart")).click()
    second.wait_for_url(re.compile(r".*/battles/\d+/$"))
    theirs = second.url
    assert theirs != mine
    wait_live(second)
    # Neither sees the other's table: a page that does not exist for them, and not in their campaigns.
    for page_a, url in ((page, theirs), (second, mine)):
        response = page_a.goto(url)
        assert response is not None and response.status == 404
    page.goto(base + "/campaigns/")
    expect(page.locator("main")).to_contain_text("Try D20 Luck")
    expect(page.locator("main")).not_to_contain_text("Try Mist & Rampart")
    # The first visitor's own table plays on: the attack works there.
    page.goto(mine)
    wait_live(page)
    answer_until_my_turn(first, tries=2)
    assert first_attack(first)


def test_the_demo_shows_a_battle_in_progress_at_once(asgi_server, browser):
    call_command("seed_demo", verbosity=0)
    for viewport, user in ((PHONE, "alice"), (LAPTOP, "gm")):
        page = _context(browser, viewport)
        page.goto(asgi_server + "/accounts/login/")
        page.get_by_label("Username").fill(user)
        page.get_by_label("Password").fill(f"{user}-demo-pass")
        page.get_by_role("button", name="Log in").click()
        page.wait_for_url(re.compile(r".*/campaigns/$"))
        page.get_by_role("link", name="Demo: D20 Luck").click()
        page.locator("#battle-list").get_by_role("link", name="Demo battle", exact=True).click()
        wait_live(page)
        expect(page.locator("#board .token")).to_have_count(4)
        expect(page.locator("#tracker .now")).to_be_visible()  # someone is acting: in progress
        viewport_shot(page, f"demo-battle-{viewport['width']}")
        if viewport is PHONE:
            save_words("demo-battle", screen_words(page))


def test_every_newcomers_form_has_its_submit_in_view(asgi_server, browser):
    from tests.table import make_campaign, make_user  # noqa: PLC0415
    from vtt.models import Invite  # noqa: PLC0415

    gm = make_user("greta", first_name="Greta")
    campaign = make_campaign(gm, "paradigm", "Rows night")
    invite = Invite.objects.create(campaign=campaign, created_by=gm, max_uses=3)
    page = _context(browser, PHONE)
    base = asgi_server
    pages = [
        (f"/join/{invite.token}/", "Join the campaign"),
        ("/accounts/signup/", "Create account"),
        ("/accounts/login/", "Log in"),
    ]
    for path, button in pages:
        page.goto(base + path)
        _in_view_at_both_sizes(page, page.locator("main").get_by_role("button", name=button, exact=True))
    page.goto(base + pages[0][0])
    page.get_by_label("Your name").fill("Mira")
    page.get_by_role("button", name="Join the campaign").click()
    page.wait_for_url(re.compile(r".*/characters/new/$"))
    _in_view_at_both_sizes(page, page.get_by_role("button", name="Create character"))
    page.goto(base + "/accounts/keep/")
    _in_view_at_both_sizes(page, page.get_by_role("button", name="Keep my account"))
    _both_sizes(page, "keep-account")
    gm_page = _context(browser, LAPTOP)
    login(gm_page, base, "greta")
    gm_page.goto(base + "/campaigns/new/")
    _in_view_at_both_sizes(gm_page, gm_page.get_by_role("button", name="Create campaign"))
    _both_sizes(gm_page, "campaign-form")
