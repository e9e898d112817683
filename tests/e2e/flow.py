"""The steps of tests/e2e/test_table_flow.py's flow from an empty site to the first roll, each click,
tap and typed field counted: the GM's laptop and the player's phone (``Flow``), and what each does."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from playwright.sync_api import expect

from combat.engine.rulesets import get_ruleset
from tests.e2e.conftest import LAPTOP, PHONE, SHOTS, save_shot
from tests.e2e.seats import wait_live

PASSWORD = "a-long-pass-phrase-7"


class Counter:
    def __init__(self) -> None:
        self.clicks = 0
        self.fields = 0

    def click(self, locator) -> None:
        locator.click()
        self.clicks += 1

    def tap(self, locator) -> None:
        locator.tap()
        self.clicks += 1

    def fill(self, locator, value: str) -> None:
        locator.fill(value)
        self.fields += 1

    def select(self, locator, value: str) -> None:
        locator.select_option(value)
        self.fields += 1


def snap(page, name: str) -> None:
    save_shot(page, f"flow-{name}")


def snap_both(page, name: str) -> None:
    """The same screen at laptop and phone width, then back to the page's own size (with VTT_SHOTS)."""
    if SHOTS is None:
        return
    size = page.viewport_size
    for label, viewport in (("1280", LAPTOP), ("390", PHONE)):
        page.set_viewport_size(viewport)
        snap(page, f"{name}-{label}")
    page.set_viewport_size(size)


def no_sideways_scroll(page) -> None:
    wide = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert wide <= 1, f"{page.url} scrolls sideways by {wide}px"


def rig_first(battle_id: int, side: str) -> None:
    """Choose the battle's dice seed so that ``side`` acts first once it starts (the engine's dice are
    seeded per battle, ENG-2: picking the seed is how a test scripts them through a real server)."""
    from combat import services  # noqa: PLC0415
    from combat.engine.actions import Action, Refusal  # noqa: PLC0415
    from combat.engine.core import resolve  # noqa: PLC0415
    from combat.engine.dice import Dice  # noqa: PLC0415
    from combat.models import Battle  # noqa: PLC0415

    battle = Battle.objects.get(pk=battle_id)
    state = services.load_state(battle)
    for seed in range(500):
        out = resolve(state, Action("setup.start", None, {}), Dice(seed, battle.seq))
        if isinstance(out, Refusal):
            continue
        first = out[1].current()
        if first is not None and first.side == side:
            Battle.objects.filter(pk=battle_id).update(seed=seed)
            return
    raise AssertionError(f"no seed lets the {side} act first")


def faster_monster(campaign_url: str, ruleset: str) -> None:
    """Action Block orders the turns by Speed, no dice (BLOCK-ORDER-1): its bestiary's monsters are all
    slower than its heroes, so a table where the monster acts first has a quicker one. The campaign
    gets it as a GM would make it (a copy of the first bestiary monster, 2 Speed above the fastest
    hero); the new battle form then offers it first."""
    from vtt.models import Campaign, Character, CharacterKind  # noqa: PLC0415

    rules = get_ruleset(ruleset)
    name, sheet = next(iter(rules.monsters.items()))
    fastest = max(int(h.get("max_speed", 0)) for h in rules.heroes.values())
    campaign = Campaign.objects.get(pk=int(campaign_url.rstrip("/").rsplit("/", 1)[1]))
    Character.objects.create(
        campaign=campaign,
        name=f"Swift {name}",
        kind=CharacterKind.MONSTER,
        sheet={**sheet, "max_speed": fastest + 2},
    )


def seq(page) -> int:
    return int(page.locator("#battle-seq").get_attribute("data-seq") or 0)


def wait_past(page, before: int) -> None:
    page.wait_for_function(
        "n => parseInt(document.getElementById('battle-seq').dataset.seq, 10) > n", arg=before
    )


def plan_on(page, counter: Counter, token, tap: bool, menu: str = "#plan-menu", shot: str = "") -> str:
    """Tap (or click) a token on the board and confirm the first plan of the menu by it (``menu``: the
    player's, or the plans at the top of the GM's menu of the token); the label of the plan played."""
    before = seq(page)
    (counter.tap if tap else counter.click)(token)
    first = page.locator(f"{menu} .pm-opt").first
    expect(first).to_be_visible()
    expect(first).to_have_attribute("aria-checked", "true")
    label = first.locator(".pm-label").inner_text()
    if shot:
        snap(page, shot)
    counter.click(page.locator(f"{menu} [data-plan-confirm]"))
    wait_past(page, before)
    expect(page.locator(menu)).to_have_count(0)
    return label


def hero_in_sight(page) -> None:
    """The player's acting token is wholly inside the part of the board in sight (not under the sheet)."""
    page.wait_for_function(
        """() => {
          const t = document.querySelector('#board .token.acting.mine');
          if (!t || !window.vttBoardView) return false;
          const v = window.vttBoardView.visible(), r = t.getBoundingClientRect();
          return r.left >= v.left && r.right <= v.right && r.top >= v.top && r.bottom <= v.bottom;
        }""",
        timeout=5000,
    )


@dataclass
class Flow:
    """The two seats of a flow: the GM's laptop and the player's phone, each with its counter."""

    ruleset: str
    first: str
    gm: Any
    pl: Any
    g: Counter = field(default_factory=Counter)
    p: Counter = field(default_factory=Counter)

    @property
    def tag(self) -> str:
        return f"{self.ruleset[:4]}_{self.first[0]}"

    @property
    def rules(self) -> Any:
        return get_ruleset(self.ruleset)


def gm_makes_a_campaign_and_copies_the_invite(f: Flow, base: str) -> tuple[str, str]:
    """The GM opens the site, signs up, makes a campaign and copies its invite link: (campaign, link)."""
    gm, g, ruleset = f.gm, f.g, f.ruleset
    gm.goto(base + "/")
    g.click(gm.locator("#main").get_by_role("link", name="Sign up"))
    g.fill(gm.get_by_label("Username"), f"gm_{f.tag}")
    g.fill(gm.get_by_label("Password", exact=True), PASSWORD)
    g.fill(gm.get_by_label("Password confirmation"), PASSWORD)
    g.click(gm.get_by_role("button", name="Create account"))
    gm.wait_for_url(re.compile(r".*/campaigns/new/$"))
    g.fill(gm.get_by_label("Name"), f"The {f.rules.name} table")
    gm.locator(f"input[name=ruleset][value='{ruleset}']").check()  # the ruleset's card: a choice, as a select
    g.fields += 1
    expect(gm.locator("#house-rules input[name=options_for]")).to_have_value(ruleset)
    snap_both(gm, f"{ruleset}-campaign-form")
    g.click(gm.get_by_role("button", name="Create campaign"))
    gm.wait_for_url(re.compile(r".*/campaigns/\d+/$"))
    expect(gm.locator(".next-step").get_by_role("button", name="Copy link")).to_be_visible()
    copy = gm.locator("[data-copy=first-invite]")  # the same button, found while it says "Copied!"
    g.click(copy)
    expect(copy).to_have_text("Copied!")
    link = gm.evaluate("navigator.clipboard.readText()")
    assert "/join/" in link
    snap_both(gm, f"{ruleset}-campaign-gm")
    return gm.url, link


def player_joins_and_makes_a_character(f: Flow, link: str, campaign_url: str) -> str:
    """The player opens the link on a phone, types a name and is in (a guest seat, on the character form),
    and makes a character from the default template (a name, and it is ready to play); the template's name."""
    pl, p, ruleset = f.pl, f.p, f.ruleset
    pl.goto(link)
    expect(pl.locator("h1")).to_contain_text(f"gm_{f.tag} invites you to The {f.rules.name} table")
    snap_both(pl, f"{ruleset}-invite")
    p.fill(pl.get_by_label("Your name"), f"Player {f.tag}")
    p.click(pl.get_by_role("button", name="Join the campaign"))
    pl.wait_for_url(re.compile(r".*/characters/new/$"))
    expect(pl.locator(".templates [aria-current=true]")).to_have_count(1)
    template = pl.locator(".templates [aria-current=true]").inner_text().strip()
    p.fill(pl.get_by_label("Name", exact=True), "Mira")
    snap_both(pl, f"{ruleset}-character-template")
    p.click(pl.get_by_role("button", name="Create character"))
    pl.wait_for_url(re.compile(r".*/campaigns/\d+/$"))
    no_sideways_scroll(pl)
    return template


def gm_starts_a_battle_and_the_player_joins(f: Flow, campaign_url: str) -> str:
    """New battle (the party and a first monster are ready), create, start; the player's campaign page
    hears it live and joins. The hero's combatant id."""
    gm, g, pl, p, ruleset = f.gm, f.g, f.pl, f.p, f.ruleset
    if f.first == "monster" and ruleset == "action-block":
        faster_monster(campaign_url, ruleset)
    g.click(gm.get_by_role("link", name="New battle"))
    expect(gm.get_by_label("Add the party")).to_be_checked()
    expect(gm.locator("input.count").first).to_have_value("1")
    snap_both(gm, f"{ruleset}-new-battle")
    g.click(gm.get_by_role("button", name="Create the battle"))
    gm.wait_for_url(re.compile(r".*/battles/\d+/$"))
    battle_url = gm.url
    wait_live(gm)
    expect(gm.locator("#board .token")).to_have_count(2)
    snap_both(gm, f"{ruleset}-setup")
    rig_first(int(battle_url.rstrip("/").rsplit("/", 1)[1]), "party" if f.first == "player" else "enemy")
    g.click(gm.get_by_role("button", name="Start the battle"))
    notice = pl.locator("#battle-notice")
    expect(notice).to_contain_text("has started")
    snap_both(pl, f"{ruleset}-campaign-live")
    p.click(notice.get_by_role("link", name="Join the battle"))
    pl.wait_for_url(battle_url)
    wait_live(pl)
    return pl.locator("#board .token.side-party").first.get_attribute("data-cid") or ""


def until_the_players_turn(f: Flow, hero: str) -> bool:
    """The GM plays the monster from the board (a click on the hero, Confirm in its menu's plans, End
    turn if the turn goes on); a question for the player (a reaction, Paradigm's job switch) is one
    tap on its default answer. Whether the monster played."""
    gm, g, pl, p, ruleset = f.gm, f.g, f.pl, f.p, f.ruleset
    played = False
    for _ in range(8):
        if pl.locator("#actions .your-turn").count():
            break
        before = seq(pl)
        if pl.locator("#prompt").is_visible():
            snap(pl, f"{ruleset}-prompt-390")
            p.click(pl.locator("#prompt button.opt.default"))
        elif not played:
            token = gm.locator(f'#board .token[data-cid="{hero}"]')
            menu = ".token-menu:not([hidden]) .plan-menu"
            plan_on(gm, g, token, tap=False, menu=menu, shot=f"{ruleset}-monster-plan-1280")
            snap(gm, f"{ruleset}-monster-played-1280")
            played = True
            continue
        else:
            g.click(gm.locator("#actions form.act-form:has(input[name=kind][value=end_turn]) button"))
        wait_past(pl, before)
    expect(pl.locator("#actions .your-turn")).to_contain_text("Your turn")
    return played


def first_attack_from_the_board(f: Flow) -> str:
    """A tap on the monster, Confirm: the outcome shows; the label of the plan played."""
    pl, ruleset = f.pl, f.ruleset
    label = plan_on(
        pl, f.p, pl.locator("#board .token.side-enemy").first, tap=True, shot=f"{ruleset}-player-plan-390"
    )
    outcome = pl.locator("#battle-messages .msg.outcome")
    expect(outcome).to_be_visible()
    words = outcome.inner_text()
    assert re.search(r"Hit!|Miss\.|Critical hit!|damage|Waiting|misses|hits", words), words
    snap(pl, f"{ruleset}-outcome-390")
    expect(f.gm.locator("#log .entry").first).to_be_visible()
    expect(f.gm.locator("#battle-messages")).not_to_contain_text("has begun")
    snap(f.gm, f"{ruleset}-battle-gm-1280")
    return label
