"""What the table says, seen in Chromium at 390 and 1280 px: a parried hit, a player's own damage roll,
a Paradigm job-switch prompt, and the campaign form's house rules (issue 23).

The player acts from the page (the Sword, then Grul's token); the GM's part (skipping Grul's turns)
goes through the services. Each screen's words are checked; with ``VTT_SHOTS`` set the screens are
shot too (tests/e2e/conftest.py, ``save_shot``).
"""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from combat import services
from combat.models import Battle
from tests.e2e.conftest import LAPTOP, OPEN_PAGES, PHONE, SHOTS, save_shot
from tests.e2e.seats import WAIT, do_on_token, login, off_loop, wait_live
from tests.table import make_campaign, make_user
from vtt.content import character_templates
from vtt.models import Character, CharacterKind


def _save(page: Page, name: str) -> None:
    save_shot(page, name, full_page=False)


def _seat(browser, base: str, username: str, viewport: dict[str, int], name: str) -> Page:
    phone = viewport is PHONE
    context = browser.new_context(viewport=viewport, is_mobile=phone, has_touch=phone)
    context.set_default_timeout(WAIT)
    page = context.new_page()
    OPEN_PAGES.append((name, page))
    login(page, base, username)
    return page


def _duel(gm, player, key: str, **enemy) -> tuple[int, str, str]:
    hero = {"luck": "Fighter", "paradigm": "Knight"}[key]
    monster = {"luck": "Goblin Skirmisher", "paradigm": "Goblin"}[key]
    campaign = make_campaign(gm, ruleset=key, player=[player], name=f"The {key.title()} Table")
    mira = Character.objects.create(
        campaign=campaign, name="Mira", owner=player, sheet=character_templates(campaign, "pc")[hero]
    )
    grul = Character.objects.create(
        campaign=campaign,
        name="Grul",
        kind=CharacterKind.MONSTER,
        sheet=character_templates(campaign, "monster")[monster] | {"hp": 500} | enemy,
    )
    bid = services.create_battle(campaign, gm, "The Ford", 6, 4, ruleset=key, seed=2).battle_id
    rows = key == "paradigm"
    assert services.add_combatant(bid, gm, mira, **({"row": "front"} if rows else {"pos": [1, 1]})).ok
    assert services.add_combatant(bid, gm, grul, **({"row": "front"} if rows else {"pos": [2, 1]})).ok
    assert services.start_battle(bid, gm).ok
    state = services.load_state(Battle.objects.get(pk=bid))
    ids = {c.name: cid for cid, c in state.combatants.items()}
    return bid, ids["Mira"], ids["Grul"]


def _to_miras_turn(bid: int, gm, mira: str) -> None:
    def run() -> bool:
        for _ in range(12):
            state = services.load_state(Battle.objects.get(pk=bid))
            if (
                state.pending is None
                and state.current().id == mira
                and state.current().resources["actions"] > 0
            ):
                return True
            if state.pending is not None:
                kind = {
                    "kind": "answer",
                    "params": {"decision": state.pending.id, "choice": state.pending.default},
                }
                assert services.submit_action(bid, gm, {**kind, "actor": state.pending.combatant}).ok
            else:
                assert services.gm_override(bid, gm, {"kind": "gm.skip_turn", "params": {}}).ok
        return False

    assert off_loop(run)


def _hit_until(page: Page, bid: int, gm, mira: str, grul: str, wanted: re.Pattern[str]) -> str:
    """Mira strikes Grul from ``page`` until her outcome line matches ``wanted``; that line."""
    for _ in range(40):
        _to_miras_turn(bid, gm, mira)
        page.reload()  # the GM's part was written by this process: the page reads it anew
        expect(page.locator("#actions .your-turn")).to_be_visible()
        do_on_token(page, "Sword", grul)
        line = page.locator("#battle-messages .outcome").last
        expect(line).to_be_visible()
        text = line.inner_text()
        if wanted.search(text):
            return text
    raise AssertionError(f"no outcome matched {wanted.pattern}")


def test_the_screens_say_what_happened_at_390_and_1280(asgi_server, browser):
    gm, player = make_user("gm"), make_user("mira_player")
    bid, mira, grul = _duel(gm, player, "luck", abilities=["parry"], armor=2)
    said: list[str] = []
    for width, viewport in (("390", PHONE), ("1280", LAPTOP)):
        page = _seat(browser, asgi_server, player.username, viewport, f"player {width}")
        page.goto(f"{asgi_server}/battles/{bid}/")
        wait_live(page)
        # A parried hit: Grul's Parry takes the Sword's damage down to 0.
        line = _hit_until(page, bid, gm, mira, grul, re.compile(r"Grul takes no damage"))
        assert "is hurt" not in line and "Parry" in line
        _save(page, f"parried-hit-{width}")
        said.append(f"parried hit {width}: {line}")
        # Her own damage roll: the whole expression and its total, as the GM sees it.
        line = _hit_until(page, bid, gm, mira, grul, re.compile(r"Grul is hurt"))
        entry = page.locator("#log li.entry", has_text="Sword").filter(has=page.locator(".roll")).first
        roll = page.locator("#log .roll", has_text="damage:").first.inner_text()
        assert re.fullmatch(r"damage: 1d8 \[\d\] \+ 1 \(Sword\) = \d+", roll), roll
        entry.scroll_into_view_if_needed()
        _save(page, f"own-damage-roll-{width}")
        said.append(f"own damage roll {width}: outcome {line!r}; log {roll!r}")
        page.context.close()

    pbid, pmira, _ = _duel(gm, player, "paradigm")

    def asked() -> bool:
        for _ in range(20):
            state = services.load_state(Battle.objects.get(pk=pbid))
            if state.pending is not None and state.pending.combatant == pmira:
                return True
            if state.pending is not None:
                answer = {"decision": state.pending.id, "choice": state.pending.default}
                assert services.submit_action(
                    pbid, gm, {"kind": "answer", "actor": state.pending.combatant, "params": answer}
                ).ok
            else:
                assert services.gm_override(pbid, gm, {"kind": "gm.skip_turn", "params": {}}).ok
        return False

    assert off_loop(asked)
    for width, viewport in (("390", PHONE), ("1280", LAPTOP)):
        page = _seat(browser, asgi_server, player.username, viewport, f"paradigm {width}")
        page.goto(f"{asgi_server}/battles/{pbid}/")
        prompt = page.locator("#prompt")
        expect(prompt.locator("h2")).to_have_text("Switch job before your turn?")
        expect(page.locator("#actions")).to_contain_text("Choose your answer above first.")
        assert "may react" not in page.content()
        prompt.scroll_into_view_if_needed()
        _save(page, f"job-switch-prompt-{width}")
        said.append(f"job switch prompt {width}: {prompt.inner_text()!r}")
        page.context.close()

    campaign_id = Battle.objects.get(pk=pbid).campaign_id
    for width, viewport in (("390", PHONE), ("1280", LAPTOP)):
        page = _seat(browser, asgi_server, gm.username, viewport, f"gm {width}")
        page.goto(f"{asgi_server}/campaigns/{campaign_id}/edit/")
        rules = page.get_by_text("Anima after a battle").first
        rules.scroll_into_view_if_needed()
        text = page.locator("main").inner_text()
        assert "source" not in text.lower()
        _save(page, f"house-rules-{width}")
        said.append(f"house rules {width}: {page.locator('fieldset').last.inner_text()!r}")
        page.context.close()
    # Items by number on a sheet: how many potions Mira carries.
    luck_campaign = Battle.objects.get(pk=bid).campaign_id
    page = _seat(browser, asgi_server, player.username, PHONE, "sheet 390")
    page.goto(f"{asgi_server}/campaigns/{luck_campaign}/characters/new/")
    page.locator("details.sheet-details").first.evaluate("d => d.open = true")
    count = page.get_by_label("How many: Healing Potion")
    count.scroll_into_view_if_needed()
    expect(count).to_be_visible()
    _save(page, "item-counts-390")
    said.append(f"item counts 390: {page.locator('.picker.quantities').first.inner_text()!r}")
    page.context.close()
    if SHOTS is not None:
        SHOTS.mkdir(parents=True, exist_ok=True)
        (SHOTS / "what-the-screens-say.txt").write_text("\n\n".join(said) + "\n")
