"""The table's screens at 390 and 1280 px, light and dark: the token menu, the set-up after the
auto-placement, the Paradigm scene mid-fight and the phone with its action sheet folded. Each shot
is taken after checking what it shows, with ``VTT_SHOTS`` set (tests/e2e/conftest.py, ``save_shot``)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.e2e.conftest import LAPTOP, PHONE, save_shot
from tests.e2e.seats import WAIT, combatant_ids, login, wait_live

SIZES = {"390": PHONE, "1280": LAPTOP}


def _save(page, name: str) -> None:
    # Nothing but the board scrolls sideways: the page is no wider than the window.
    assert page.evaluate("document.documentElement.scrollWidth") <= page.viewport_size["width"], name
    save_shot(page, name, full_page=False)


def _table(ruleset: str, tag: str, started: bool):
    from combat import services, setup
    from combat.engine.rulesets import get_ruleset
    from tests.table import make_user
    from vtt.content import character_templates
    from vtt.models import Campaign, Character, CharacterKind, Membership

    gm, player = make_user(f"gm-shot-{tag}"), make_user(f"pl-shot-{tag}")
    campaign = Campaign.objects.create(
        name="The Keep", ruleset=ruleset, owner=gm, options=get_ruleset(ruleset).default_options()
    )
    Membership.objects.create(user=gm, campaign=campaign, role="gm")
    Membership.objects.create(user=player, campaign=campaign, role="player")
    recruits = []
    for name, sheet in list(character_templates(campaign, "pc").items())[:3]:
        recruits.append(
            setup.Recruit(Character.objects.create(campaign=campaign, name=name, owner=player, sheet=sheet))
        )
    for name, sheet in list(character_templates(campaign, "monster").items())[:2]:
        foe = Character.objects.create(campaign=campaign, name=name, kind=CharacterKind.MONSTER, sheet=sheet)
        recruits.append(setup.Recruit(foe, 2))
    made = setup.setup_battle(campaign, gm, "At the ford", 12, 10, recruits)
    assert made.ok, made.reason
    if started:
        r = services.start_battle(made.battle_id, gm)
        assert r.ok, r.reason
        # A little of the fight: a few turns pass, someone is hurt.
        state = r.state
        foe = next(c for c in state.combatants.values() if c.side == "enemy")
        services.gm_override(
            made.battle_id, gm, {"kind": "gm.set_hp", "params": {"combatant": foe.id, "delta": -6}}, None
        )
    return gm, player, made.battle_id


def _page(browser, base, user, size: str, scheme: str):
    phone = size == "390"
    context = browser.new_context(
        viewport=SIZES[size], is_mobile=phone, has_touch=phone, color_scheme=scheme, reduced_motion="reduce"
    )
    context.set_default_timeout(WAIT)
    page = context.new_page()
    login(page, base, user.username)
    return context, page


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("size", ["390", "1280"])
def test_shots_of_the_table(asgi_server, browser, size, scheme):
    tag = f"{size}{scheme[0]}"
    # The set-up after the auto-placement, and the token menu (grid).
    gm, player, battle_id = _table("luck", tag, started=False)
    context, page = _page(browser, asgi_server, gm, size, scheme)
    page.goto(f"{asgi_server}/battles/{battle_id}/")
    wait_live(page)
    expect(page.locator("#board .token")).to_have_count(7)
    _save(page, f"setup-{size}-{scheme}")
    name, cid = next((n, c) for n, c in combatant_ids(page).items() if n.endswith(" 1"))
    page.locator(f'#board .token[data-cid="{cid}"]').click()
    expect(page.get_by_role("dialog", name=name)).to_be_visible()
    _save(page, f"token-menu-{size}-{scheme}")
    context.close()

    # The Paradigm scene mid-fight, as the player sees it (and the GM).
    gm, player, battle_id = _table("paradigm", f"p{tag}", started=True)
    for who, user in (("player", player), ("gm", gm)):
        context, page = _page(browser, asgi_server, user, size, scheme)
        page.goto(f"{asgi_server}/battles/{battle_id}/")
        wait_live(page)
        expect(page.locator("#board.board-rows .token")).to_have_count(7)
        page.locator("#board").scroll_into_view_if_needed()
        _save(page, f"paradigm-scene-{who}-{size}-{scheme}")
        if size == "390" and who == "player":
            # The action sheet folded to a bar: the board shows above it.
            dock = page.locator("#dock")
            before = dock.bounding_box()["height"]
            page.get_by_role("button", name="Hide actions").tap()
            expect(page.get_by_role("button", name="Show actions")).to_have_attribute(
                "aria-expanded", "false"
            )
            assert dock.bounding_box()["height"] < before or before < 120
            _save(page, f"phone-sheet-folded-{scheme}")
        context.close()
