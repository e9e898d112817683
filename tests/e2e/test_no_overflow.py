"""Nothing on the battle page runs off its panel or the window, sideways, in any ruleset.

The hero carries every ability, weapon and item of its ruleset's starter pack, so the action panel
shows the longest option labels there are; two monsters with long names give the target lists their
longest names (a second "Goblin Skirmisher"). With every option's target row open (the rows a tap
opens one at a time) on the player's page, and the GM's menu of a monster open on the GM's, each page
is checked at 390, 768 and 1280 px, light and dark (``OVERFLOW``): no element leaves the window or the
panel it sits in (the board itself scrolls), no select shows its words cut short, the page never
scrolls sideways. One browser, one page per seat, resized between the checks.
"""

from __future__ import annotations

import importlib

import pytest
from playwright.sync_api import Page, expect

from combat import services, setup
from combat.engine.rulesets import RULESETS, get_ruleset
from combat.models import Battle
from tests.e2e.conftest import LAPTOP, OPEN_PAGES, PHONE, save_shot
from tests.e2e.seats import WAIT, login, off_loop, wait_live
from tests.table import make_campaign, make_user
from vtt.content import character_templates
from vtt.models import Character, CharacterKind

WIDTHS = (390, 768, 1280)
SCHEMES = ("light", "dark")

# Every problem a person would see, as readable text: what runs out of what, and by how much.
OVERFLOW = """() => {
  const vw = document.documentElement.clientWidth;
  const out = [];
  const name = (el) => {
    let s = el.tagName.toLowerCase() + (el.id ? '#' + el.id : el.classList.length ? '.' + [...el.classList].join('.') : '');
    const words = (el.innerText || '').trim().replace(/\\s+/g, ' ').slice(0, 48);
    return words ? `${s} "${words}"` : s;
  };
  const shown = (el) => {
    const r = el.getBoundingClientRect(), cs = getComputedStyle(el);
    return r.width >= 2 && r.height >= 2 && cs.visibility === 'visible' &&
      !el.closest('.visually-hidden, .skip-link, details:not([open]) > :not(summary)');
  };
  if (document.documentElement.scrollWidth > vw + 1) {
    out.push(`the page scrolls sideways: ${document.documentElement.scrollWidth} > ${vw}`);
  }
  const PANELS = '.card, .dock, .battle-head, .board-tools, .token-menu, .prompt, .tool-pop, .outcome-line, .msg';
  for (const el of document.querySelectorAll('body *')) {
    if ((el.parentElement && el.parentElement.closest('.board-scroll')) || !shown(el)) continue;
    const r = el.getBoundingClientRect();
    if (r.left < -1 || r.right > vw + 1) {
      out.push(`${name(el)} runs off the window: ${Math.round(r.left)} to ${Math.round(r.right)} of ${vw}`);
    }
    const panel = el.parentElement && el.parentElement.closest(PANELS);
    if (panel) {
      const p = panel.getBoundingClientRect();
      if (r.left < p.left - 1 || r.right > p.right + 1) {
        out.push(`${name(el)} runs out of ${name(panel).slice(0, 40)}: ${Math.round(r.right - p.right)} px`);
      }
    }
  }
  // A select shows its chosen words whole (the widest of its options), beside its arrow.
  const pen = document.createElement('canvas').getContext('2d');
  for (const s of document.querySelectorAll('select')) {
    if (!shown(s)) continue;
    const cs = getComputedStyle(s);
    pen.font = `${cs.fontWeight} ${cs.fontSize} ${cs.fontFamily}`;
    const room = s.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight) - 20;
    for (const o of s.options) {
      const wide = pen.measureText(o.text).width;
      if (wide > room + 1) out.push(`${name(s)} cuts "${o.text}" short: ${Math.round(wide)} > ${Math.round(room)} px`);
    }
  }
  return out;
}"""


def _every_option(ruleset: str, sheet: dict) -> dict:
    """``sheet`` with every ability, weapon and item its ruleset's starter pack has, where the sheet takes them."""
    rules = get_ruleset(ruleset)()
    starter = importlib.import_module(type(rules).__module__ + ".content").STARTER
    base = rules.sheet_schema.defaults() | sheet
    for f in rules.sheet_schema:
        if f.kind == "list" and f.content:
            trial = base | {f.key: [key for kind in f.content for key in starter.get(kind, {})]}
            if not rules.validate_sheet(trial)[1]:
                base = trial
    return base


def _table(ruleset: str) -> tuple:
    """A started battle of ``ruleset``: the player's hero with every option, two monsters (numbered
    names), and the hero's turn come (the other turns skipped, the questions given their default)."""
    gm, player = make_user(f"gm-wide-{ruleset}"), make_user(f"pl-wide-{ruleset}")
    campaign = make_campaign(gm, ruleset, "The Long Names", player=[player])
    name, sheet = next(iter(character_templates(campaign, "pc").items()))
    hero = Character.objects.create(
        campaign=campaign, name="Mira", owner=player, sheet=_every_option(ruleset, sheet)
    )
    monster, msheet = max(character_templates(campaign, "monster").items(), key=lambda kv: len(kv[0]))
    foe = Character.objects.create(campaign=campaign, name=monster, kind=CharacterKind.MONSTER, sheet=msheet)
    made = setup.setup_battle(
        campaign, gm, "Long names", 12, 10, [setup.Recruit(hero), setup.Recruit(foe, 2)]
    )
    assert made.ok, made.reason
    bid = made.battle_id
    assert services.start_battle(bid, gm).ok

    def to_the_hero() -> str:
        for _ in range(12):
            state = services.load_state(Battle.objects.get(pk=bid))
            mira = next(c.id for c in state.combatants.values() if c.name == "Mira")
            pending = state.pending
            if pending is not None:
                answer = {"kind": "answer", "params": {"decision": pending.id, "choice": pending.default}}
                assert services.submit_action(bid, gm, {**answer, "actor": pending.combatant}).ok
            elif state.current() is not None and state.current().id == mira:
                return next(c.id for c in state.combatants.values() if c.side == "enemy")
            else:
                assert services.gm_override(bid, gm, {"kind": "gm.skip_turn", "params": {}}).ok
        raise AssertionError("the hero's turn never came")

    return gm, player, bid, off_loop(to_the_hero)


def _seat(browser, base: str, user, viewport: dict[str, int], name: str) -> Page:
    context = browser.new_context(viewport=viewport, has_touch=viewport is PHONE)
    context.set_default_timeout(WAIT)
    page = context.new_page()
    OPEN_PAGES.append((name, page))
    login(page, base, user.username)
    return page


def _problems(page: Page, who: str) -> list[str]:
    return [f"{who}: {p}" for p in page.evaluate(OVERFLOW)]


@pytest.mark.parametrize("ruleset", sorted(RULESETS))
def test_nothing_runs_off_its_panel_or_the_window(asgi_server, browser, ruleset):
    gm_user, pl_user, bid, foe = _table(ruleset)
    gm = _seat(browser, asgi_server, gm_user, LAPTOP, f"gm {ruleset}")
    pl = _seat(browser, asgi_server, pl_user, PHONE, f"player {ruleset}")
    for page in (gm, pl):
        page.goto(f"{asgi_server}/battles/{bid}/")
        wait_live(page)
    expect(pl.locator("#actions .your-turn")).to_be_visible()
    options = pl.locator("#actions form.act-form")
    assert options.count() >= 5, options.count()
    # Every option's target row open at once: the longest names in every select the panel holds.
    pl.evaluate(
        "() => document.querySelectorAll('#actions form.act-form').forEach(f => f.classList.add('picking'))"
    )
    token = gm.locator(f'#board .token[data-cid="{foe}"]')
    menu = gm.locator(f"#tm-{foe}")
    problems: list[str] = []
    for width in WIDTHS:
        for scheme in SCHEMES:
            size = {"width": width, "height": PHONE["height"] if width < 1000 else LAPTOP["height"]}
            for page in (gm, pl):
                page.set_viewport_size(size)
                page.emulate_media(color_scheme=scheme)
            problems += _problems(pl, f"{ruleset} player {width} {scheme}")
            if menu.is_visible():
                gm.keyboard.press("Escape")
                expect(menu).to_be_hidden()
            token.scroll_into_view_if_needed()
            token.click()
            expect(menu).to_be_visible()
            problems += _problems(gm, f"{ruleset} GM {width} {scheme}")
            fog = gm.locator("[data-fog-menu] > summary")
            if fog.count():  # the GM's fog menu open too (a grid board)
                gm.keyboard.press("Escape")
                fog.click()
                problems += _problems(gm, f"{ruleset} GM {width} {scheme}, fog menu open")
                fog.click()
            save_shot(pl, f"wide-{ruleset}-player-{width}-{scheme}", full_page=False)
            save_shot(gm, f"wide-{ruleset}-gm-{width}-{scheme}", full_page=False)
    assert not problems, "\n".join(dict.fromkeys(problems))
