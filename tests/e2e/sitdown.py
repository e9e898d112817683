"""Helpers of the sit-down tests (issue 37): counting what a person does, the Keystroke-Level Model
estimate of it, the first attack, and checks of what a screen shows without scrolling.

``Person`` counts taps, characters typed and new screens; ``klm_seconds`` is the Keystroke-Level Model
estimate with the issue's figures (1.1 s to point, 0.2 s to press, 0.5 s a character on a phone, 1.35 s
to think at each new screen). ``first_attack`` is the one place that knows how a player attacks today
(the option, the target, Confirm): when target-first acting lands, only it changes.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from playwright.sync_api import Locator, Page, expect

from tests.e2e.conftest import SHOTS

POINT, PRESS, CHAR_PHONE, THINK = 1.1, 0.2, 0.5, 1.35
SUMMARY_KEY = "sitdown"  # the user property whose lines the browser suite's summary prints


def klm_seconds(taps: int, chars: int, screens: int) -> float:
    """Each tap is pointing then pressing; each character typed is a keystroke; each new screen a thought."""
    return taps * (POINT + PRESS) + chars * CHAR_PHONE + screens * THINK


@dataclass
class Person:
    """A person at a page: what they tap and type, and the screens they meet (a new path is a new screen)."""

    page: Page
    taps: int = 0
    chars: int = 0
    paths: list[str] = field(default_factory=list)

    def saw(self) -> None:
        path = re.sub(r"\?.*$", "", self.page.url.split("//", 1)[-1].split("/", 1)[-1])
        if not self.paths or self.paths[-1] != path:
            self.paths.append(path)

    def tap(self, locator: Locator) -> None:
        locator.tap()
        self.taps += 1

    def type(self, text: str) -> None:
        self.page.keyboard.type(text)
        self.chars += len(text)

    def press_go(self) -> None:
        """The phone keyboard's Go key (Enter): one keystroke."""
        self.page.keyboard.press("Enter")
        self.chars += 1

    @property
    def screens(self) -> int:
        return len(self.paths)

    def klm(self) -> float:
        return klm_seconds(self.taps, self.chars, self.screens)


def seq(page: Page) -> int:
    return int(page.locator("#battle-seq").get_attribute("data-seq") or 0)


def wait_past(page: Page, before: int) -> None:
    page.wait_for_function(
        "n => parseInt(document.getElementById('battle-seq').dataset.seq, 10) > n", arg=before
    )


def attack_option(page: Page, target: str) -> Locator | None:
    """The acting hero's first available option that picks ``target`` (not a move), or None."""
    for form in page.locator("#actions form.act-form.needs-pick").all():
        if form.locator("button[disabled]").count() or form.locator("input[name=kind][value=move]").count():
            continue
        if target in json.loads(form.get_attribute("data-option") or "{}").get("targets", []):
            return form
    return None


def first_attack(person: Person) -> str:
    """The player's first attack on the first enemy, as today's page asks: the option, the target on the
    board, Confirm (three taps). Returns the outcome line shown."""
    page = person.page
    foe = page.locator("#board .token.side-enemy").first.get_attribute("data-cid") or ""
    option = attack_option(page, foe)
    assert option is not None, "no attack of the hero reaches the monster"
    before = seq(page)
    person.tap(option.locator("button[data-pick]"))
    person.tap(page.locator(f'#board .token[data-cid="{foe}"]'))
    person.tap(page.locator("#confirm button[data-confirm=yes]"))
    wait_past(page, before)
    outcome = page.locator("#battle-messages .msg.outcome")
    expect(outcome).to_be_visible()
    return outcome.inner_text()


def answer_until_my_turn(person: Person, tries: int = 4) -> None:
    """A question for the player before their turn (a reaction, Paradigm's job switch): one tap on its default."""
    page = person.page
    for _ in range(tries):
        if page.locator("#actions .your-turn").count():
            return
        if page.locator("#prompt button.opt.default").is_visible():
            before = seq(page)
            person.tap(page.locator("#prompt button.opt.default"))
            wait_past(page, before)
        else:
            page.wait_for_selector("#actions .your-turn, #prompt button.opt.default")
    expect(page.locator("#actions .your-turn")).to_contain_text("Your turn")


def submit_in_view(page: Page, button: Locator) -> dict[str, Any]:
    """Where the form's submit lies in the viewport, without any scrolling: {"ok", "top", "bottom", "height"}."""
    page.evaluate("window.scrollTo(0, 0)")
    return button.evaluate(
        """b => { const r = b.getBoundingClientRect();
                  return {ok: r.top >= 0 && r.bottom <= window.innerHeight && r.width > 0,
                          top: Math.round(r.top), bottom: Math.round(r.bottom), height: window.innerHeight}; }"""
    )


def viewport_shot(page: Page, name: str) -> None:
    """What the screen shows without scrolling, saved as <name>.png in the VTT_SHOTS folder (when set)."""
    if SHOTS is None:
        return
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.evaluate("window.scrollTo(0, 0)")
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=False)


def screen_words(page: Page) -> str:
    """The words of the main region as a person reads them (for the report; VTT_SHOTS only)."""
    return page.locator("main").inner_text()


def save_words(name: str, words: str) -> None:
    if SHOTS is None:
        return
    SHOTS.mkdir(parents=True, exist_ok=True)
    (SHOTS / f"{name}.txt").write_text(words.strip() + "\n")


def rig_hero_first(battle_id: int, controller: str) -> None:
    """Choose the battle's dice seed (before its start) so that the player's hero has the first turn, once
    any question at the start is answered with its default (the engine's dice are seeded per battle,
    ENG-2: picking the seed is how a browser test scripts them through a real server)."""
    from combat import services  # noqa: PLC0415
    from combat.engine.actions import Action, Refusal  # noqa: PLC0415
    from combat.engine.core import resolve  # noqa: PLC0415
    from combat.engine.dice import Dice  # noqa: PLC0415
    from combat.models import Battle  # noqa: PLC0415

    battle = Battle.objects.get(pk=battle_id)
    before = services.load_state(battle)
    for seed in range(500):
        action, state, at = Action("setup.start", None, {}), before, battle.seq
        for _ in range(6):
            out = resolve(state, action, Dice(seed, at))
            if isinstance(out, Refusal):
                break
            state, at = out[1], at + len(out[0])
            pending = state.pending
            if pending is None:
                current = state.current()
                if current is not None and current.controller == controller:
                    Battle.objects.filter(pk=battle_id).update(seed=seed)
                    return
                break
            who = None if pending.gm_only or pending.controller is None else pending.combatant
            action = Action("answer", who, {"decision": pending.id, "choice": pending.default})
    raise AssertionError("no seed gives the hero the first turn")
