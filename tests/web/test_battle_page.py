"""The battle page: first render for each role, hidden information, setup."""

from __future__ import annotations

import json
import re
from html import unescape

import pytest

from tests.table import SECRET_HP, goblin_attacks_bram, make_users, table

pytestmark = pytest.mark.django_db


def test_the_gm_sees_every_region_and_exact_monster_hp(client):
    users, _, battle = table()
    client.force_login(users["gm"])
    response = client.get(f"/battles/{battle.pk}/")
    assert response.status_code == 200
    html = response.content.decode()
    for region in ('id="board"', 'id="tracker"', 'id="log"', 'id="gm-panel"', 'id="actions"', 'id="prompt"'):
        assert region in html
    assert str(SECRET_HP) in html
    assert 'ws-connect="/ws/battles/' in html


def test_the_acting_player_gets_targets_squares_and_area_shapes_to_pick_from(client):
    users, _, battle = table()
    client.force_login(users["player"])
    html = client.get(f"/battles/{battle.pk}/").content.decode()
    assert "Your turn: Ayla" in html
    # Fire Bolt names its valid target; Flame Burst its squares in range and its area (radius 1).
    assert 'data-label="Fire Bolt"' in html and '"targets":["c3"]' in unescape(html)
    # The page's option forms post without scripts too: each carries the CSRF field and a token.
    fire_bolt = html[
        html.index('data-label="Fire Bolt"') : html.index("</form>", html.index('data-label="Fire Bolt"'))
    ]
    assert 'name="csrfmiddlewaretoken" value="' in fire_bolt
    assert re.search(r'name="client_token" value="[A-Za-z0-9_-]{16}"', fire_bolt)
    tag = html[
        html.rindex("<form", 0, html.index('data-label="Flame Burst"')) : html.index(
            'data-label="Flame Burst"'
        )
    ]
    pick = json.loads(unescape(tag.split("data-option='", 1)[1].split("'", 1)[0]))
    assert pick["areas"] and all(len(cells) <= 9 for cells in pick["areas"].values())  # radius 1 around each
    assert sorted(pick["areas"]) == sorted(f"{x},{y}" for x, y in pick["squares"])
    # Recover has nothing to recover from: greyed with the reason.
    assert "No status to recover from." in html
    client.force_login(users["other_player"])
    waiting = client.get(f"/battles/{battle.pk}/").content.decode()
    title = waiting[
        waiting.index('id="actions-title"') : waiting.index("</h2>", waiting.index('id="actions-title"'))
    ]
    assert re.sub(r"<[^>]+>", "", title.split(">", 1)[1]) == "Waiting for Ayla&#x27;s turn."
    assert '<span id="waiting-for">Ayla</span>' in title  # the name a change of turn fills in


@pytest.mark.parametrize(
    "ruleset", sorted(__import__("combat.engine.rulesets", fromlist=["RULESETS"]).RULESETS)
)
def test_the_page_renders_for_every_ruleset_in_setup_and_in_play(client, ruleset):
    from combat import services
    from combat.engine.rulesets import get_ruleset
    from vtt.models import Campaign, Character, Membership

    users = make_users("gm", "player", "other_player", "observer", "outsider")
    rules = get_ruleset(ruleset)
    campaign = Campaign.objects.create(
        name="C", ruleset=ruleset, owner=users["gm"], options=rules.default_options()
    )
    Membership.objects.create(campaign=campaign, user=users["gm"], role="gm")
    Membership.objects.create(campaign=campaign, user=users["player"], role="player")
    sheet = rules.sheet_schema.defaults()
    hero = Character.objects.create(campaign=campaign, owner=users["player"], name="Hero", sheet=sheet)
    foe = Character.objects.create(campaign=campaign, kind="monster", name="Foe", sheet=sheet)
    made = services.create_battle(
        campaign, users["gm"], "Any", 8, 6, ruleset=ruleset, options=campaign.house_rules()
    )
    assert made.ok, made.reason
    rows = rules.board == "rows"
    for character, place in ((hero, [0, 0]), (foe, [7, 5])):
        added = services.add_combatant(
            made.battle_id, users["gm"], character, **({"row": "front"} if rows else {"pos": place})
        )
        assert added.ok, added.reason
    for phase in ("setup", "active"):
        if phase == "active":
            started = services.start_battle(made.battle_id, users["gm"])
            assert started.ok, started.reason
        for who in ("gm", "player"):
            client.force_login(users[who])
            response = client.get(f"/battles/{made.battle_id}/")
            assert response.status_code == 200, (ruleset, phase, who)
            html = response.content.decode()
            assert 'id="board"' in html and "Hero" in html
            assert ("Foe" in html) == (who == "gm" or phase == "active")  # no spoiler of the set-up
            assert ("board-rows" in html) == rows


def test_costs_and_resources_read_as_words():
    from combat.templatetags.battle_tags import cost_text, resource_name

    assert cost_text({"actions": 1, "mp": 5}) == "1 action, 5 MP"
    assert cost_text({"slots": 2}) == "2 slots"
    assert cost_text({}) == "free"
    assert cost_text({"slots": 0}) == "free"
    assert resource_name("lp") == "LP"
    assert resource_name("interrupt") == "Interrupt"


def test_the_board_script_does_no_geometry_of_its_own():
    """Paths and area shapes come with the engine's options; the script only draws them."""
    import pathlib

    from django.conf import settings

    script = (pathlib.Path(settings.BASE_DIR) / "static" / "combat" / "battle.js").read_text()
    assert "option.via" in script and "option.areas" in script
    for sign in ("queue.push", "Math.abs", "dataset.diagonal", "previewPath"):
        assert sign not in script


def test_pushed_regions_render_numbers_as_the_localised_page_would(monkeypatch):
    """Pushes render with localisation off (faster); en-us without thousand separators reads the same."""
    from combat import presenters
    from combat.presenters import render
    from combat.table import clear_caches, load_table

    users, _, battle = table()
    goblin_attacks_bram(battle, users)
    fast = presenters.class_regions(load_table(battle.pk))

    def localised(name, ctx):
        return render._template(name).render(ctx)

    clear_caches()
    monkeypatch.setattr(render, "render_one", localised)
    slow = presenters.class_regions(load_table(battle.pk))
    token = re.compile(r'name="client_token" value="[^"]*"')  # a fresh random token per render

    def same(html):
        return token.sub("", html)

    assert same(fast["gm"]) == same(slow["gm"]) and same(fast["pl"]) == same(slow["pl"])
    assert {k: same(v) for k, v in fast["users"].items()} == {k: same(v) for k, v in slow["users"].items()}
    assert "4321" in fast["gm"]  # the Goblin's HP, a number rendered in the GM's view


def _swapped(page: str, pushed: str) -> str:
    """``page`` after htmx swapped the pushed message's top-level elements in by their ids."""
    from lxml import html as lxml_html  # noqa: PLC0415

    root = lxml_html.document_fromstring(page)
    for element in lxml_html.fragments_fromstring(pushed):
        if not isinstance(element.tag, str) or not element.get("id"):
            continue
        found = root.xpath("//*[@id=$i]", i=element.get("id"))
        if found:
            element.tail = found[0].tail
            found[0].getparent().replace(found[0], element)
    return lxml_html.tostring(root, encoding="unicode")


@pytest.mark.django_db(transaction=True)
def test_end_battle_leaves_the_header_once_the_battle_is_over(client, monkeypatch):
    from combat import live, services

    users, _, battle = table()
    sent: list[dict] = []
    monkeypatch.setattr(live, "publish", lambda group, message: sent.append(message))
    client.force_login(users["gm"])
    page = client.get(f"/battles/{battle.pk}/").content.decode()
    assert page.count(">End battle</button>") == 1
    ended = services.gm_override(battle.pk, users["gm"], {"kind": "gm.end_battle", "params": {}}, battle.seq)
    assert ended.ok, ended.reason
    # The GM's open page, after the push: no End battle (a second press would be refused).
    assert ">End battle</button>" not in _swapped(page, sent[-1]["gm"])
    assert "Battle over" in _swapped(page, sent[-1]["gm"])
    assert ">End battle</button>" not in client.get(f"/battles/{battle.pk}/").content.decode()
    # Undone, the battle runs again, and the button is back.
    undone = services.undo(battle.pk, users["gm"], ended.seq)
    assert undone.ok, undone.reason
    assert _swapped(page, sent[-1]["gm"]).count(">End battle</button>") == 1


@pytest.mark.django_db(transaction=True)
def test_end_battle_arrives_with_the_start_and_add_combatants_stays_for_the_set_up(client, monkeypatch):
    from combat import live, services

    users, _, battle = table(start=False)
    sent: list[dict] = []
    monkeypatch.setattr(live, "publish", lambda group, message: sent.append(message))
    client.force_login(users["gm"])
    page = client.get(f"/battles/{battle.pk}/").content.decode()
    # A battle that has not begun cannot end; it is when the GM adds combatants.
    assert ">End battle</button>" not in page and 'id="gm-add"' in page
    assert services.start_battle(battle.pk, users["gm"]).ok
    started = _swapped(page, sent[-1]["gm"])
    assert started.count(">End battle</button>") == 1 and started.count('id="gm-add"') == 1
    assert 'data-phase="active"' in started


@pytest.mark.django_db(transaction=True)
def test_add_combatants_goes_with_the_end_of_the_battle_and_comes_back_with_its_undo(client, monkeypatch):
    """The form stays on the GM's page (a push never resets what the GM is choosing in it); the
    stylesheet hides it while the pushed board says the battle is over (a browser test sees it go)."""
    from combat import live, services

    users, _, battle = table()
    sent: list[dict] = []
    monkeypatch.setattr(live, "publish", lambda group, message: sent.append(message))
    client.force_login(users["gm"])
    page = client.get(f"/battles/{battle.pk}/").content.decode()
    ended = services.gm_override(battle.pk, users["gm"], {"kind": "gm.end_battle", "params": {}}, battle.seq)
    assert ended.ok, ended.reason
    assert 'data-phase="ended"' in _swapped(page, sent[-1]["gm"])
    css = client.get("/static/combat/battle.css")
    rule = '.battle:has(#board[data-phase="ended"]) .gm-add { display: none; }'
    assert rule in b"".join(css.streaming_content if css.streaming else [css.content]).decode()
    # Loaded after the end, the page holds it too (hidden), so an undo's push brings it back.
    over = client.get(f"/battles/{battle.pk}/").content.decode()
    assert 'id="gm-add"' in over and 'data-phase="ended"' in over
    assert services.undo(battle.pk, users["gm"], ended.seq).ok
    assert 'data-phase="active"' in _swapped(over, sent[-1]["gm"])
    client.force_login(users["player"])
    assert 'id="gm-add"' not in client.get(f"/battles/{battle.pk}/").content.decode()


def test_the_token_menu_offers_hiding_for_monsters_only_and_the_service_refuses_a_party_member(client):
    from lxml import html as lxml_html

    from combat import services

    users, _, battle = table()
    client.force_login(users["gm"])
    state = services.load_state(battle)
    for c in state.combatants.values():  # each menu as the GM's page fetches it when it opens
        page = lxml_html.fromstring(client.get(f"/battles/{battle.pk}/menu/{c.id}").content)
        menu = page.get_element_by_id(f"tm-{c.id}").text_content()
        assert ("Hide from players" in menu) == (c.side == "enemy"), c.name
    ayla = next(c for c in state.combatants.values() if c.name == "Ayla")
    response = client.post(
        f"/battles/{battle.pk}/act",
        {"kind": "gm.hide", "combatant": ayla.id, "hidden": "1", "expected_seq": str(battle.seq)},
        HTTP_HX_REQUEST="true",
    )
    assert response.status_code == 422
    assert (
        "Ayla is a player&#x27;s character: it cannot be hidden from the players."
        in response.content.decode()
    )
    battle.refresh_from_db()
    assert not services.load_state(battle).combatants[ayla.id].extra.get("hidden")


def test_a_token_menu_is_fetched_by_the_gm_alone(client):
    """The GM's menu of a token comes when it opens (battle.js), not with the page: the GM gets it with
    the token's exact HP; a player, an observer and an outsider do not; an unknown token is a 404."""
    users, _, battle = table()
    goblin = next(cid for cid, c in battle.snapshot["combatants"].items() if c["name"] == "Goblin")
    url = f"/battles/{battle.pk}/menu/{goblin}"
    client.force_login(users["gm"])
    page = client.get(f"/battles/{battle.pk}/").content.decode()
    assert 'id="tm-' not in page and f'data-menu-url="/battles/{battle.pk}/menu/"' in page
    response = client.get(url)
    assert response.status_code == 200
    menu = response.content.decode()
    assert f'id="tm-{goblin}"' in menu and f"HP {SECRET_HP}/" in menu and "hx-swap-oob" not in menu
    missing = client.get(f"/battles/{battle.pk}/menu/c999")
    assert missing.status_code == 404 and "no longer in the battle" in missing.content.decode()
    for persona, status in (("player", 403), ("observer", 403), ("outsider", 404)):
        client.force_login(users[persona])
        response = client.get(url)
        assert response.status_code == status, persona
        assert str(SECRET_HP) not in response.content.decode()
    assert client.post(url).status_code == 405


@pytest.mark.parametrize("start", [False, True])
def test_no_template_comment_reaches_the_gms_page(client, start):
    """Django's ``{# #}`` ends at the line's end: a longer one would show on the page as text."""
    users, _, battle = table(start=start)
    client.force_login(users["gm"])
    html = client.get(f"/battles/{battle.pk}/").content.decode()
    assert "{#" not in html and "#}" not in html
