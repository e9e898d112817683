"""What happened stays in view: after every action of a scripted battle, in every ruleset, the one who
acted reads their outcome line and the GM reads the GM's, both inside the window and uncovered.

The player acts from a 390 x 844 touch phone (an attack on the monster, then "End turn"; an answer when
asked), the GM from a 1280 x 800 laptop (the tactics play the monster's turn, once from its token menu,
which then closes with the turn). Where the tactics stop for the hero's answer (the battle's dice are
picked for it, ENG-2), the GM's panel then says the turn goes on, "End turn" first, and the GM ends it
from there. Screenshots (with ``VTT_SHOTS``): the outcome of the hero's attack on the GM's screen and
the phone, the monster's attack on the phone, the GM's panel after the tactics stopped.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from combat import services
from combat.engine.actions import Action, Refusal
from combat.engine.core import resolve
from combat.engine.dice import Dice
from combat.engine.rulesets import RULESETS, get_ruleset
from combat.models import Battle
from tests.e2e.conftest import LAPTOP, OPEN_PAGES, PHONE, SHOTS, save_shot
from tests.e2e.seats import CAST, WAIT, content, login, wait_live
from tests.table import make_campaign, make_user
from vtt.models import Character, CharacterKind

ACTIONS = 7  # per ruleset: attacks, ends of turn, answers, the monster's turns

# Where an element stands for a person: inside the window, and what is on top at its middle is itself.
IN_VIEW = """(el) => {
  const r = el.getBoundingClientRect();
  if (r.width < 2 || r.height < 2) return 'not shown';
  if (r.top < 0 || r.left < 0 || r.bottom > innerHeight || r.right > innerWidth) {
    return `outside the window: ${Math.round(r.top)} to ${Math.round(r.bottom)} of ${innerHeight}`;
  }
  const hit = document.elementFromPoint(r.left + Math.min(r.width / 2, 24), r.top + r.height / 2);
  return hit && el.contains(hit) ? '' : `covered by ${hit ? hit.id || hit.className || hit.tagName : 'nothing'}`;
}"""


def _battle(ruleset: str) -> tuple[Any, Any, int, str, str]:
    """A started battle: Mira (the player's hero) beside a monster with HP to spare."""
    gm, player = make_user(f"gm-view-{ruleset}"), make_user(f"pl-view-{ruleset}")
    rules = get_ruleset(ruleset)
    campaign = make_campaign(gm, ruleset, "In view", player=[player])
    heroes, monsters = content(ruleset)
    hero = Character.objects.create(
        campaign=campaign, name="Mira", owner=player, sheet=_tough(rules, heroes[CAST[ruleset]["alice"]])
    )
    foe = Character.objects.create(
        campaign=campaign,
        name="Grul",
        kind=CharacterKind.MONSTER,
        sheet=_tough(rules, monsters[CAST[ruleset]["monster"]]),
    )
    bid = services.create_battle(campaign, gm, "The Ford", 6, 4, ruleset=ruleset, seed=5).battle_id
    rows = rules.board == "rows"
    assert services.add_combatant(bid, gm, hero, **({"row": "front"} if rows else {"pos": [1, 1]})).ok
    assert services.add_combatant(bid, gm, foe, **({"row": "front"} if rows else {"pos": [2, 1]})).ok
    assert services.start_battle(bid, gm).ok
    ids = {c.name: cid for cid, c in _state(bid).combatants.items()}
    return gm, player, bid, ids["Mira"], ids["Grul"]


def _tough(rules: Any, sheet: dict[str, Any]) -> dict[str, Any]:
    """``sheet`` with HP enough for the whole script, where the sheet takes that many."""
    for hp in (400, 99):
        if not rules.validate_sheet(rules.sheet_schema.defaults() | sheet | {"hp": hp})[1]:
            return sheet | {"hp": hp}
    return sheet


def _state(bid: int) -> Any:
    return services.load_state(Battle.objects.get(pk=bid))


def _rig_a_question(bid: int, mira: str) -> bool:
    """Pick the battle's dice (its seed, ENG-2) so that the tactics' turn stops to ask Mira; False when
    no seed does (the monster's turn is then played whole)."""
    battle = Battle.objects.get(pk=bid)
    state = services.load_state(battle)
    for seed in range(400):
        out = resolve(state, Action("gm.tactics"), Dice(seed, battle.seq))
        if isinstance(out, Refusal):
            return False
        after = out[1]
        now, then = after.current(), state.current()
        if (
            after.pending is not None
            and after.pending.combatant == mira
            and now
            and then
            and now.id == then.id
        ):
            Battle.objects.filter(pk=bid).update(seed=seed)
            return True
    return False


def _seat(browser, base: str, user, viewport: dict[str, int], name: str) -> Page:
    phone = viewport is PHONE
    context = browser.new_context(viewport=viewport, is_mobile=phone, has_touch=phone)
    context.set_default_timeout(WAIT)
    page = context.new_page()
    OPEN_PAGES.append((name, page))
    login(page, base, user.username)
    return page


def _seq(page: Page) -> int:
    return int(page.locator("#battle-seq").get_attribute("data-seq") or 0)


def _caught_up(pages: tuple[Page, ...], bid: int, before: int) -> int:
    """Every page shows the battle after the action (its seq past ``before``, then the battle's own)."""
    for page in pages:
        page.wait_for_function(
            "n => parseInt(document.getElementById('battle-seq').dataset.seq, 10) > n", arg=before
        )
    now = Battle.objects.get(pk=bid).seq
    for page in pages:
        page.wait_for_function(
            "n => parseInt(document.getElementById('battle-seq').dataset.seq, 10) >= n", arg=now
        )
    return now


def _line(page: Page, acted: bool):
    """The outcome line this seat reads: its own reply's when it acted, else the pushed one by the board."""
    return page.locator("#battle-messages .msg.outcome").last if acted else page.locator("#outcome")


def _check(page: Page, acted: bool, seat: str, step: str) -> str:
    line = _line(page, acted)
    expect(line).to_be_visible()
    problem = line.evaluate(IN_VIEW)
    assert not problem, f"{seat} after {step}: the outcome line is {problem}"
    if not acted:
        expect(line).to_have_attribute("data-seq", str(_seq(page)))
    text = line.inner_text()
    assert text.strip() and text != "Done.", (seat, step, text)
    return text


def _toast_clear_of_the_title(page: Page, step: str) -> None:
    """A toast ("Mira is hit by Grul: ...") never covers the battle's title."""
    toast = page.locator("#flow-toast.show")
    if toast.count() and toast.is_visible():
        t, h = toast.bounding_box(), page.locator(".battle-head h1").bounding_box()
        assert t["y"] >= h["y"] + h["height"] or t["y"] + t["height"] <= h["y"], (step, t, h)


def _player_acts(pl: Page, mira_attacked: bool, grul: str) -> str:
    """Mira's turn on the phone: an attack on Grul, three taps (option, Grul, Confirm), or End turn."""
    forms = pl.locator("#actions form.act-form.needs-pick")
    attack = None
    for n in range(forms.count()):
        form = forms.nth(n)
        if grul in (form.get_attribute("data-option") or "") and not mira_attacked:
            attack = form
            break
    if attack is None:
        pl.locator("#actions form.act-form button.opt", has_text="End turn").first.tap()
        return "end turn"
    label = attack.get_attribute("data-label") or ""
    attack.locator("button.opt").tap()
    pl.locator(f'#board .token[data-cid="{grul}"]').tap()
    pl.locator("#confirm button[data-confirm=yes]").tap()
    return f"attack ({label})"


@pytest.mark.parametrize("ruleset", sorted(RULESETS))
def test_after_every_action_the_actor_and_the_gm_read_what_happened(asgi_server, browser, ruleset):
    gm_user, pl_user, bid, mira, grul = _battle(ruleset)
    gm = _seat(browser, asgi_server, gm_user, LAPTOP, f"gm {ruleset}")
    pl = _seat(browser, asgi_server, pl_user, PHONE, f"player {ruleset}")
    for page in (gm, pl):
        page.goto(f"{asgi_server}/battles/{bid}/")
        wait_live(page)
    attacked, by_menu, stopped, shots = False, False, False, set()
    said: list[str] = []
    for _ in range(ACTIONS):
        state = _state(bid)
        before = state_seq = Battle.objects.get(pk=bid).seq
        turn_left = gm.locator("#actions .turn-left")
        if state.pending is not None and state.pending.combatant == mira and not state.pending.gm_only:
            actor = "player"
            pl.locator("#prompt button.opt").first.tap()
            step = "an answer"
        elif state.pending is not None:
            actor = "gm"
            gm.locator("#prompt button.opt").first.click()
            step = "the GM's answer"
        elif state.current() is not None and state.current().id == mira:
            actor = "player"
            step = _player_acts(pl, attacked, grul)
            attacked = attacked or step.startswith("attack")
        elif turn_left.count():
            # The tactics stopped for Mira's answer: the GM's panel says the turn goes on, End turn first.
            actor, step, stopped = "gm", "End turn after the tactics stopped", True
            expect(turn_left).to_contain_text("turn goes on")
            first = gm.locator("#actions form.act-form button.opt").first
            expect(first).to_have_text(re.compile(r"^\s*End turn"))
            save_shot(gm, f"gm-panel-after-tactics-{ruleset}-1280", full_page=False)
            if SHOTS is not None:  # the same panel on a phone-sized window, for the eye
                gm.set_viewport_size(PHONE)
                expect(gm.locator("#chat-drawer")).to_be_hidden()  # slid away for the narrow window
                save_shot(gm, f"gm-panel-after-tactics-{ruleset}-390", full_page=False)
                gm.set_viewport_size(LAPTOP)
            first.click()
        else:
            actor = "gm"
            attacked = False  # the hero's next turn attacks again
            asks = _rig_a_question(bid, mira) if not stopped else False
            if not by_menu:  # once from the monster's token menu, which closes with the turn
                by_menu = True
                gm.locator(f'#board .token[data-cid="{grul}"]').click()
                menu = gm.locator(f"#tm-{grul}")
                expect(menu).to_be_visible()
                box, dock = menu.bounding_box(), gm.locator("#dock").bounding_box()
                assert box["x"] + box["width"] <= dock["x"] or box["y"] >= dock["y"] + dock["height"], (
                    box,
                    dock,
                )
                menu.get_by_role("menuitem", name=re.compile(r"^Let the tactics act")).click()
                step = "the tactics, from the token menu"
            else:
                gm.locator("#gm-tactics button").click()
                step = "the tactics"
            if asks:
                step += ", stopping for Mira's answer"
        now = _caught_up((gm, pl), bid, state_seq)
        assert now > before
        gm_line = _check(gm, actor == "gm", "the GM", step)
        mine = _check(pl, actor == "player", "the player", step)
        _toast_clear_of_the_title(pl, step)
        said.append(f"{ruleset} {step}: GM reads {gm_line!r}; player reads {mine!r}")
        if actor == "player":  # the GM reads what the player's action did
            assert gm_line.startswith("Mira") if step != "an answer" else "Mira" in gm_line, gm_line
        if step.startswith("the tactics"):
            expect(gm.locator(".token-menu.open")).to_have_count(0)  # the menu went with the turn
        if step.startswith("attack") and "attack" not in shots:
            shots.add("attack")
            save_shot(gm, f"outcome-of-an-attack-gm-{ruleset}-1280", full_page=False)
            save_shot(pl, f"outcome-of-an-attack-phone-{ruleset}-390", full_page=False)
        if step.startswith("the tactics") and "monster" not in shots:
            shots.add("monster")
            save_shot(pl, f"outcome-of-the-monster-phone-{ruleset}-390", full_page=False)
    assert attacked or "attack" in shots, said
    assert by_menu, said
    if ruleset == "luck":  # the Fighter's Parry: the tactics stop for it
        assert stopped, said
    if SHOTS is not None:
        SHOTS.mkdir(parents=True, exist_ok=True)
        (SHOTS / f"outcome-lines-{ruleset}.txt").write_text("\n".join(said) + "\n")
