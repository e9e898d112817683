"""The whole way to the first roll, counted in a real Chromium.

A new GM (1280 px) signs up, makes a campaign, invites a player and copies the
link; the player (a 390 x 844 touch phone) signs up through the link and makes a
character from the default template (whatever it is: no ranged shortcut); the GM
makes a battle with the party and a monster and starts it, with the sides where the
set-up puts them; when the monster acts first the GM plays its turn from the board
(a tap on the hero, Confirm); the player joins from the live notice and attacks from
the board: a tap on the monster, Confirm. Each click or tap and each typed field is
counted; the counts are reported at the end of the run (``pytest_terminal_summary``
in tests/e2e/conftest.py), one line per ruleset and who acts first:

    table-flow ruleset=<key> GM clicks=<N> player taps=<M> fields=<K>

With ``VTT_SHOTS`` set, screenshots of each new screen at 390 and 1280 px are saved
(tests/e2e/conftest.py, ``save_shot``).
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from combat.engine.rulesets import RULESETS as REGISTRY
from combat.engine.rulesets import get_ruleset
from tests.e2e.conftest import FLOW_LINE, LAPTOP, PHONE
from tests.e2e.flow import (
    Flow,
    first_attack_from_the_board,
    gm_makes_a_campaign_and_copies_the_invite,
    gm_starts_a_battle_and_the_player_joins,
    hero_in_sight,
    player_joins_and_makes_a_character,
    snap,
    until_the_players_turn,
)
from tests.e2e.seats import WAIT, phone_layout_problems, wait_live

RULESETS = sorted(REGISTRY)


@pytest.mark.parametrize("first", ["player", "monster"])
@pytest.mark.parametrize("ruleset", RULESETS)
def test_new_gm_to_first_roll(asgi_server, browser, ruleset, first, request):
    """Every click, tap and typed field from an empty site to the player's first attack: no direct URL
    but the site's address (the GM's) and the invite link the GM sends (the player's)."""
    gm_ctx = browser.new_context(viewport=LAPTOP)
    gm_ctx.grant_permissions(["clipboard-read", "clipboard-write"], origin=asgi_server)
    gm_ctx.set_default_timeout(WAIT)
    pl_ctx = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    pl_ctx.set_default_timeout(WAIT)
    f = Flow(ruleset, first, gm_ctx.new_page(), pl_ctx.new_page())
    campaign_url, link = gm_makes_a_campaign_and_copies_the_invite(f, asgi_server)
    template = player_joins_and_makes_a_character(f, link, campaign_url)
    setup_taps = f.p.clicks
    hero = gm_starts_a_battle_and_the_player_joins(f, campaign_url)
    played = until_the_players_turn(f, hero)
    assert played == (first == "monster"), "the monster acted before the player only when it won initiative"
    if f.rules.board == "grid":
        hero_in_sight(f.pl)
    snap(f.pl, f"{ruleset}-your-turn-390")
    assert phone_layout_problems(f.pl) == [], "the player's phone on their turn"
    gm_clicks, taps_before = f.g.clicks, f.p.clicks
    label = first_attack_from_the_board(f)
    attack_taps = f.p.clicks - taps_before
    # Tap targets on the battle page: the campaign link and the tokens are at least 44 px.
    for locator in (f.pl.locator(".crumb-link"), f.pl.locator("#board .token").first):
        box = locator.bounding_box()
        assert box and box["width"] >= 44 and box["height"] >= 44, box
    fields = f.g.fields + f.p.fields
    line = f"table-flow ruleset={ruleset} GM clicks={gm_clicks} player taps={attack_taps} fields={fields}"
    request.node.user_properties.append((FLOW_LINE, line))
    request.node.user_properties.append(
        (
            FLOW_LINE,
            f"  ({first} first; the player's {template} plays {label}; {setup_taps} taps to sign up, join and "
            f"make a character; {f.p.clicks} taps in all)",
        )
    )
    assert attack_taps <= 3, line
    assert gm_clicks <= (10 if first == "player" else 12), line
    gm_ctx.close()
    pl_ctx.close()


def _small_table(gm_viewport, ruleset: str = "luck"):
    """A campaign with a GM, a player's template hero and two template monsters, in setup (through the services)."""
    from combat import setup  # noqa: PLC0415
    from tests.table import make_user  # noqa: PLC0415
    from vtt.content import character_templates  # noqa: PLC0415
    from vtt.models import Campaign, Character, CharacterKind, Membership  # noqa: PLC0415

    gm = make_user(f"gm-{ruleset}-{gm_viewport['width']}")
    player = make_user(f"pl-{ruleset}-{gm_viewport['width']}")
    rules = get_ruleset(ruleset)
    campaign = Campaign.objects.create(
        name="Placing", ruleset=ruleset, owner=gm, options=rules.default_options()
    )
    Membership.objects.create(user=gm, campaign=campaign, role="gm")
    Membership.objects.create(user=player, campaign=campaign, role="player")
    hero_name, hero = next(iter(character_templates(campaign, "pc").items()))
    foe_name, foe = next(iter(character_templates(campaign, "monster").items()))
    pc = Character.objects.create(campaign=campaign, name=hero_name, owner=player, sheet=hero)
    monster = Character.objects.create(
        campaign=campaign, name=foe_name, kind=CharacterKind.MONSTER, sheet=foe
    )
    made = setup.setup_battle(campaign, gm, "Placing", 12, 10, [setup.Recruit(pc), setup.Recruit(monster, 2)])
    assert made.ok, made.reason
    return gm, player, made.battle_id


def _open(browser, base, user, viewport):
    from tests.e2e.seats import login  # noqa: PLC0415

    phone = viewport is PHONE
    context = browser.new_context(viewport=viewport, is_mobile=phone, has_touch=phone)
    context.set_default_timeout(WAIT)
    page = context.new_page()
    login(page, base, user.username)
    return context, page


def _token_at(page, cid: str):
    token = page.locator(f'#board .token[data-cid="{cid}"]')
    return token.get_attribute("data-x"), token.get_attribute("data-y")


def test_point_3_the_gm_drags_a_token_on_a_laptop(asgi_server, browser):
    from tests.e2e.seats import combatant_ids  # noqa: PLC0415

    gm_user, _, battle_id = _small_table(LAPTOP)
    context, gm = _open(browser, asgi_server, gm_user, LAPTOP)
    gm.goto(f"{asgi_server}/battles/{battle_id}/")
    wait_live(gm)
    ids = combatant_ids(gm)
    goblin = next(cid for name, cid in ids.items() if name.endswith("1"))
    token = gm.locator(f'#board .token[data-cid="{goblin}"]')
    box = token.bounding_box()
    board = gm.locator("#board").bounding_box()
    size = board["width"] / 12
    # Drag from its square to column 4, row 3 (0-based 3, 2).
    gm.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    gm.mouse.down()
    gm.mouse.move(board["x"] + 3.5 * size, board["y"] + 2.5 * size, steps=8)
    gm.mouse.up()
    expect(token).to_have_attribute("data-x", "3")
    expect(token).to_have_attribute("data-y", "2")
    snap(gm, "placement-drag-1280")
    context.close()


def test_point_3_the_gm_taps_a_token_then_a_square_on_a_phone(asgi_server, browser):
    from tests.e2e.seats import combatant_ids, tap_square  # noqa: PLC0415

    gm_user, _, battle_id = _small_table(PHONE)
    context, gm = _open(browser, asgi_server, gm_user, PHONE)
    gm.goto(f"{asgi_server}/battles/{battle_id}/")
    wait_live(gm)
    ids = combatant_ids(gm)
    goblin = next(cid for name, cid in ids.items() if name.endswith("2"))
    token = gm.locator(f'#board .token[data-cid="{goblin}"]')
    # Every token starts inside what the phone shows of the board, without scrolling it.
    view = gm.locator(".board-scroll").bounding_box()
    for t in gm.locator("#board .token").all():
        box = t.bounding_box()
        assert box["x"] + box["width"] <= view["x"] + view["width"] + 1, (
            "a token starts off the phone's screen"
        )
        assert box["y"] + box["height"] <= view["y"] + view["height"] + 1
    token.tap()  # its menu, then "Move…"
    gm.locator(f"#tm-{goblin}").get_by_role("menuitem", name="Move…").tap()
    expect(gm.locator("#board-hint")).to_contain_text("Tap a square for")
    tap_square(gm, 4, 4)
    expect(token).to_have_attribute("data-x", "4")
    expect(token).to_have_attribute("data-y", "4")
    snap(gm, "placement-tap-390")
    # Point 8: Start is in the bar at the bottom; its message gives way to the next action's.
    gm.get_by_role("button", name="Start the battle").click()
    messages = gm.locator("#battle-messages")
    expect(messages).to_contain_text("has begun")
    gm.get_by_role("button", name="Skip this turn").click()
    expect(messages).not_to_contain_text("has begun")
    context.close()


def test_point_10_tap_targets_on_the_battle_page_are_at_least_44px(asgi_server, browser):
    _, player, battle_id = _small_table(PHONE, "mist")
    context, page = _open(browser, asgi_server, player, PHONE)
    page.goto(f"{asgi_server}/battles/{battle_id}/")
    wait_live(page)
    small = page.evaluate(
        """() => [...document.querySelectorAll('#battle-root a, #battle-root button, #board .token')]
              .filter(el => el.offsetParent !== null)
              .map(el => [el.textContent.trim() || el.getAttribute('aria-label'), el.getBoundingClientRect()])
              .filter(([, r]) => r.width < 44 || r.height < 44)
              .map(([name, r]) => `${name} ${Math.round(r.width)}x${Math.round(r.height)}`)"""
    )
    assert small == [], small
    context.close()


def test_point_2_a_player_is_told_on_the_phone_when_their_character_is_hit(asgi_server, browser):
    from combat import services  # noqa: PLC0415
    from tests.table import PASSWORD as TABLE_PASSWORD  # noqa: PLC0415
    from tests.table import table  # noqa: PLC0415

    users, _, battle = table()
    state = services.load_state(battle)
    ayla = state.current()
    r = services.submit_action(battle.pk, users["player"], {"kind": "end_turn", "actor": ayla.id}, battle.seq)
    goblin = r.state.current()
    assert goblin.name == "Goblin"
    bram = next(c for c in r.state.combatants.values() if c.name == "Bram")
    assert services.gm_override(
        battle.pk, users["gm"], {"kind": "gm.move", "params": {"combatant": goblin.id, "to": [1, 2]}}, r.seq
    ).ok

    def seat(user, viewport):
        phone = viewport is PHONE
        context = browser.new_context(viewport=viewport, is_mobile=phone, has_touch=phone)
        context.set_default_timeout(WAIT)
        page = context.new_page()
        page.goto(asgi_server + "/accounts/login/")
        page.get_by_label("Username").fill(user.username)
        page.get_by_label("Password").fill(TABLE_PASSWORD)
        page.get_by_role("button", name="Log in").click()
        page.wait_for_url(re.compile(r".*/campaigns/.*"))
        page.goto(f"{asgi_server}/battles/{battle.pk}/")
        wait_live(page)
        return context, page

    gm_ctx, gm = seat(users["gm"], LAPTOP)
    pl_ctx, pl = seat(users["other_player"], PHONE)
    spear = gm.locator('#actions form.act-form:has(input[name=params][value*=\'"weapon":"spear"\'])')
    spear.locator("button[data-pick]").click()
    gm.locator(f'#board .token[data-cid="{bram.id}"]').click()
    gm.locator("#confirm button[data-confirm=yes]").click()
    # Bram may parry: his phone asks; he takes the hit.
    prompt = pl.locator("#prompt")
    expect(prompt).to_be_visible()
    prompt.get_by_role("button", name="Take the hit").click()
    notice = pl.locator("#sheet .hit-notice")
    expect(notice).to_contain_text("Bram is hit by Goblin")
    expect(pl.locator("#flow-toast")).to_contain_text("Bram is hit by Goblin")
    snap(pl, "notice-hit-390")
    gm_ctx.close()
    pl_ctx.close()
