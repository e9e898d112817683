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

from combat.engine.rulesets import get_ruleset
from tests.e2e.conftest import FLOW_LINE, LAPTOP, PHONE, SHOTS, save_shot
from tests.e2e.seats import WAIT, phone_layout_problems, wait_live

PASSWORD = "a-long-pass-phrase-7"
RULESETS = ["luck", "mist", "paradigm", "action-block"]


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


def _rig_first(battle_id: int, side: str) -> None:
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


def _faster_monster(campaign_url: str, ruleset: str) -> None:
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


def _seq(page) -> int:
    return int(page.locator("#battle-seq").get_attribute("data-seq") or 0)


def _wait_past(page, before: int) -> None:
    page.wait_for_function(
        "n => parseInt(document.getElementById('battle-seq').dataset.seq, 10) > n", arg=before
    )


def _plan_on(page, counter: Counter, token, tap: bool, menu: str = "#plan-menu", shot: str = "") -> str:
    """Tap (or click) a token on the board and confirm the first plan of the menu by it (``menu``: the
    player's, or the plans at the top of the GM's menu of the token); the label of the plan played."""
    before = _seq(page)
    (counter.tap if tap else counter.click)(token)
    first = page.locator(f"{menu} .pm-opt").first
    expect(first).to_be_visible()
    expect(first).to_have_attribute("aria-checked", "true")
    label = first.locator(".pm-label").inner_text()
    if shot:
        snap(page, shot)
    counter.click(page.locator(f"{menu} [data-plan-confirm]"))
    _wait_past(page, before)
    expect(page.locator(menu)).to_have_count(0)
    return label


def _hero_in_sight(page) -> None:
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


@pytest.mark.parametrize("first", ["player", "monster"])
@pytest.mark.parametrize("ruleset", RULESETS)
def test_new_gm_to_first_roll(asgi_server, browser, ruleset, first, request):
    """Every click, tap and typed field from an empty site to the player's first attack: no direct URL
    but the site's address (the GM's) and the invite link the GM sends (the player's)."""
    base = asgi_server
    gm_ctx = browser.new_context(viewport=LAPTOP)
    gm_ctx.grant_permissions(["clipboard-read", "clipboard-write"], origin=base)
    gm_ctx.set_default_timeout(WAIT)
    gm = gm_ctx.new_page()
    pl_ctx = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    pl_ctx.set_default_timeout(WAIT)
    pl = pl_ctx.new_page()
    g, p = Counter(), Counter()
    rules = get_ruleset(ruleset)
    tag = f"{ruleset[:4]}_{first[0]}"

    # --- the GM opens the site, signs up and lands on the new campaign form
    gm.goto(base + "/")
    g.click(gm.locator("#main").get_by_role("link", name="Sign up"))
    g.fill(gm.get_by_label("Username"), f"gm_{tag}")
    g.fill(gm.get_by_label("Password", exact=True), PASSWORD)
    g.fill(gm.get_by_label("Password confirmation"), PASSWORD)
    g.click(gm.get_by_role("button", name="Create account"))
    gm.wait_for_url(re.compile(r".*/campaigns/new/$"))
    g.fill(gm.get_by_label("Name"), f"The {rules.name} table")
    g.select(gm.get_by_label("Ruleset"), ruleset)
    expect(gm.locator("#house-rules input[name=options_for]")).to_have_value(ruleset)
    snap_both(gm, f"{ruleset}-campaign-form")
    g.click(gm.get_by_role("button", name="Create campaign"))
    gm.wait_for_url(re.compile(r".*/campaigns/\d+/$"))
    campaign_url = gm.url

    # --- the invite link is ready: copy it
    expect(gm.locator(".next-step").get_by_role("button", name="Copy link")).to_be_visible()
    copy = gm.locator("[data-copy=first-invite]")  # the same button, found while it says "Copied!"
    g.click(copy)
    expect(copy).to_have_text("Copied!")
    link = gm.evaluate("navigator.clipboard.readText()")
    assert "/join/" in link
    snap_both(gm, f"{ruleset}-campaign-gm")

    # --- the player opens the link on a phone, signs up and joins in one submit
    pl.goto(link)
    expect(pl.locator("h1")).to_contain_text(f"gm_{tag} invites you to The {rules.name} table")
    snap_both(pl, f"{ruleset}-invite")
    signup = pl.locator(".join-signup")
    p.fill(signup.get_by_label("Username"), f"player_{tag}")
    p.fill(signup.get_by_label("Password", exact=True), PASSWORD)
    p.fill(signup.get_by_label("Password confirmation"), PASSWORD)
    p.click(signup.get_by_role("button", name="Sign up and join"))
    pl.wait_for_url(campaign_url)
    expect(pl.locator("main")).to_contain_text("Make your character next")
    # --- a character from the default template: a name, and it is ready to play
    p.click(pl.locator(".next-step").get_by_role("link", name="Make your character"))
    expect(pl.locator(".templates [aria-current=true]")).to_have_count(1)
    template = pl.locator(".templates [aria-current=true]").inner_text().strip()
    p.fill(pl.get_by_label("Name", exact=True), "Mira")
    snap_both(pl, f"{ruleset}-character-template")
    p.click(pl.get_by_role("button", name="Create character"))
    pl.wait_for_url(re.compile(r".*/campaigns/\d+/$"))
    no_sideways_scroll(pl)
    setup_taps = p.clicks

    # --- the GM: New battle (the party and a first monster are ready) -> create -> start
    if first == "monster" and ruleset == "action-block":
        _faster_monster(campaign_url, ruleset)
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
    _rig_first(int(battle_url.rstrip("/").rsplit("/", 1)[1]), "party" if first == "player" else "enemy")
    g.click(gm.get_by_role("button", name="Start the battle"))

    # --- the player's campaign page hears it live and joins
    notice = pl.locator("#battle-notice")
    expect(notice).to_contain_text("has started")
    snap_both(pl, f"{ruleset}-campaign-live")
    p.click(notice.get_by_role("link", name="Join the battle"))
    pl.wait_for_url(battle_url)
    wait_live(pl)
    hero = pl.locator("#board .token.side-party").first.get_attribute("data-cid") or ""

    # --- until the player's turn: the GM plays the monster from the board (a tap on the hero, Confirm,
    # End turn if the turn goes on); a question for the player (a reaction, Paradigm's job switch) is
    # one tap on its default answer
    played = False
    for _ in range(8):
        if pl.locator("#actions .your-turn").count():
            break
        before = _seq(pl)
        if pl.locator("#prompt").is_visible():
            snap(pl, f"{ruleset}-prompt-390")
            p.click(pl.locator("#prompt button.opt.default"))
        elif not played:
            token = gm.locator(f'#board .token[data-cid="{hero}"]')
            menu = ".token-menu:not([hidden]) .plan-menu"
            _plan_on(gm, g, token, tap=False, menu=menu, shot=f"{ruleset}-monster-plan-1280")
            snap(gm, f"{ruleset}-monster-played-1280")
            played = True
            continue
        else:
            g.click(gm.locator("#actions form.act-form:has(input[name=kind][value=end_turn]) button"))
        _wait_past(pl, before)
    expect(pl.locator("#actions .your-turn")).to_contain_text("Your turn")
    assert played == (first == "monster"), "the monster acted before the player only when it won initiative"
    if rules.board == "grid":
        _hero_in_sight(pl)
    snap(pl, f"{ruleset}-your-turn-390")
    assert phone_layout_problems(pl) == [], "the player's phone on their turn"
    gm_clicks = g.clicks

    # --- the first attack, from the board: a tap on the monster, Confirm
    taps_before = p.clicks
    monster = pl.locator("#board .token.side-enemy").first
    label = _plan_on(pl, p, monster, tap=True, shot=f"{ruleset}-player-plan-390")
    outcome = pl.locator("#battle-messages .msg.outcome")
    expect(outcome).to_be_visible()
    assert re.search(r"Hit!|Miss\.|Critical hit!|damage|Waiting|misses|hits", outcome.inner_text()), (
        outcome.inner_text()
    )
    snap(pl, f"{ruleset}-outcome-390")
    attack_taps = p.clicks - taps_before
    expect(gm.locator("#log .entry").first).to_be_visible()
    expect(gm.locator("#battle-messages")).not_to_contain_text("has begun")
    snap(gm, f"{ruleset}-battle-gm-1280")

    # Tap targets on the battle page: the campaign link and the tokens are at least 44 px.
    for locator in (pl.locator(".crumb-link"), pl.locator("#board .token").first):
        box = locator.bounding_box()
        assert box and box["width"] >= 44 and box["height"] >= 44, box

    fields = g.fields + p.fields
    line = f"table-flow ruleset={ruleset} GM clicks={gm_clicks} player taps={attack_taps} fields={fields}"
    request.node.user_properties.append((FLOW_LINE, line))
    request.node.user_properties.append(
        (
            FLOW_LINE,
            f"  ({first} first; the player's {template} plays {label}; {setup_taps} taps to sign up, join and "
            f"make a character; {p.clicks} taps in all)",
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
