"""A campaign that lives, in the browser: the GM makes a homebrew monster, fights it, applies the battle's
summary to the sheets, and steps through the replay of the stored log."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from combat import services
from combat.engine.rulesets import get_ruleset
from combat.models import Battle
from tests.e2e.conftest import LAPTOP, PHONE
from tests.e2e.seats import (
    WAIT,
    action_button,
    combatant_ids,
    end_battle,
    gm_move,
    login,
    now_acting,
    seq,
    wait_live,
)
from tests.table import make_user
from vtt.models import Campaign, Character, ContentEntry, Membership

pytestmark = pytest.mark.django_db(transaction=True)


def _table():
    gm = make_user("gm-life")
    alice = make_user("alice-life")
    ruleset = get_ruleset("luck")
    campaign = Campaign.objects.create(
        name="Long campaign", ruleset="luck", owner=gm, options=ruleset.default_options()
    )
    Membership.objects.create(campaign=campaign, user=gm, role="gm")
    Membership.objects.create(campaign=campaign, user=alice, role="player")
    sheet = ruleset.sheet_schema.defaults() | dict(ruleset.heroes["Fighter"])
    sheet["abilities"] = [a for a in sheet["abilities"] if a != "parry"]  # no reaction prompt to wait on
    hero = Character.objects.create(campaign=campaign, owner=alice, name="Alia", sheet=sheet)
    return gm, campaign, hero


def _log_newest(page) -> int:
    """The newest log entry's seq on the page (0 when the log is empty)."""
    return page.evaluate(
        "() => Math.max(0, ...[...document.querySelectorAll('#log .entries li')]"
        ".map(li => parseInt(li.dataset.seq, 10)))"
    )


def test_gm_makes_a_homebrew_monster_fights_it_applies_the_summary_and_replays(browser, asgi_server, shot):
    gm, campaign, hero = _table()
    context = browser.new_context(viewport=LAPTOP)
    context.set_default_timeout(WAIT)
    page = context.new_page()
    login(page, asgi_server, gm.username)

    # The homebrew monster, through the form generated from the sheet schema.
    page.goto(f"{asgi_server}/campaigns/{campaign.pk}/")
    page.get_by_role("link", name="Content", exact=True).click()
    page.get_by_role("link", name="New: monsters").click()
    page.get_by_label("Name", exact=True).fill("Frost Wight")
    page.get_by_label("Max HP").fill("0")
    page.get_by_role("button", name="Add to this campaign").click()
    expect(page.locator("#id_def_hp_error")).to_contain_text("at least 1")  # refused on its field
    page.get_by_label("Max HP").fill("9")
    page.get_by_label("Weapons").fill("Claws")
    page.get_by_role("button", name="Add to this campaign").click()
    expect(page.locator(".messages")).to_contain_text("Frost Wight added")
    assert ContentEntry.objects.get(campaign=campaign).data["hp"] == 9
    shot(page, "life-content-1280")

    # A battle with the party and one Frost Wight.
    page.goto(f"{asgi_server}/campaigns/{campaign.pk}/battles/new/")
    page.get_by_label("Frost Wight", exact=True).fill("1")
    page.get_by_role("button", name="Create the battle").click()
    page.wait_for_url(re.compile(r".*/battles/\d+/$"))
    wait_live(page)
    battle = Battle.objects.get(campaign=campaign)
    if battle.status == Battle.Status.SETUP:
        page.get_by_role("button", name="Start the battle").click()
    expect(page.locator("#tracker")).to_contain_text("Now acting")
    ids = combatant_ids(page)
    wight = next(cid for name, cid in ids.items() if name.startswith("Frost Wight"))
    alia = next(cid for name, cid in ids.items() if name.startswith("Alia"))

    # The GM plays the Wight: its claws on Alia (Alia's turn passes first if she leads).
    for _ in range(4):
        if now_acting(page).startswith("Frost Wight"):
            break
        before = seq(page)
        action_button(page, "End turn").click()
        page.wait_for_function(
            "n => parseInt(document.getElementById('battle-seq').dataset.seq, 10) > n", arg=before
        )
    assert now_acting(page).startswith("Frost Wight")
    state = services.load_state(Battle.objects.get(pk=battle.pk))
    x, y = state.combatants[alia].pos
    target = [x + 1 if x + 1 < state.width else x - 1, y]
    gm_move(page, wight, target[0], y)
    expect(page.locator(f'#board .token[data-cid="{wight}"]')).to_have_attribute("data-x", str(target[0]))
    expect(page.locator(f'#board .token[data-cid="{wight}"]')).to_be_visible()
    page.wait_for_function("() => !document.querySelector('#actions button.opt[disabled]') || true")
    expect(action_button(page, "Claws")).to_be_enabled()
    action_button(page, "Claws").click()
    page.locator(f'#board .token[data-cid="{alia}"]').click()
    page.locator("#confirm button[data-confirm=yes]").click()
    expect(page.locator("#log")).to_contain_text("Frost Wight")

    # End the battle, then the summary: nothing is written until the GM applies it.
    end_battle(page)
    expect(page.locator("#tracker")).to_contain_text("Battle over")
    expect(page.locator("#tracker")).to_contain_text("Battle over")
    before = Character.objects.get(pk=hero.pk).sheet
    page.get_by_role("link", name="Battle summary").click()
    expect(page.locator("h1")).to_contain_text("After the battle")
    shot(page, "life-summary-1280")
    assert (
        Character.objects.get(pk=hero.pk).sheet == before and Battle.objects.get(pk=battle.pk).applied is None
    )
    page.get_by_role("button", name="Apply to the sheets").click()
    expect(page.locator(".messages")).to_contain_text("Applied to")
    assert Battle.objects.get(pk=battle.pk).applied is not None

    # The campaign keeps it: replay step by step, the log in sync with the board.
    page.goto(f"{asgi_server}/battles/{battle.pk}/replay")
    total = Battle.objects.get(pk=battle.pk).seq
    expect(page.locator("#replay-position")).to_have_text(f"Step 1 of {total}")
    page.get_by_role("link", name="Forward").click()
    expect(page.locator("#replay-position")).to_have_text(f"Step 2 of {total}")
    assert _log_newest(page) <= 2  # the log shows nothing after the step on the board
    assert page.locator(f'#board .token[data-cid="{wight}"]').count() in (0, 1)
    page.get_by_role("link", name="Last", exact=True).click()
    expect(page.locator("#replay-position")).to_have_text(f"Step {total} of {total}")
    assert total - 5 < _log_newest(page) <= total
    page.get_by_role("link", name="Back").click()
    expect(page.locator("#replay-position")).to_have_text(f"Step {total - 1} of {total}")
    assert _log_newest(page) <= total - 1
    shot(page, "life-replay-1280")
    page.set_viewport_size(PHONE)
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")
    shot(page, "life-replay-390")
    context.close()
