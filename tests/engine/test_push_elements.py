"""Random battles of every ruleset, pushed as the elements each change touched: applying what a page
receives (htmx's out-of-band swaps, done here with lxml) to the page it had gives the page a fresh
render of the new state would give, for every visibility class (the GM, each player, an observer)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from lxml import html as lxml_html

from combat import live
from combat.engine.core import replay
from combat.engine.rulesets import RULESETS
from combat.models import Battle
from combat.presenters import changes, regions_for
from combat.table import LOG_WINDOW, Table, clear_caches
from tests.engine.properties import random_battle
from vtt.models import Role

OBSERVER = "observer-1"


# ---------------------------------------------------------------- a page, and htmx's swaps on it


def elements(frame: str) -> list[Any]:
    """The top-level elements of a frame, as htmx's websocket extension takes them (comments skipped).

    The browser parses a frame inside a <template>: table rows parse only in a frame of table rows, so
    a frame holds either only <tr> elements or none at top level."""
    parsed = (
        [e for e in lxml_html.fragments_fromstring(frame) if isinstance(e.tag, str)] if frame.strip() else []
    )
    rows = [e.tag == "tr" for e in parsed]
    assert all(rows) or not any(rows), "table rows share a frame with other elements"
    return parsed


def page_of(regions: str) -> Any:
    root = lxml_html.fromstring("<div id='page-root'></div>")
    for element in elements(regions):
        root.append(element)
    return root


def by_id(root: Any, ident: str) -> Any | None:
    found = root.xpath("//*[@id=$i]", i=ident)
    assert len(found) <= 1, f"two elements with id {ident}"
    return found[0] if found else None


def swap(root: Any, frame: str) -> None:
    """What htmx does with a frame: each top-level element swapped out of band (outerHTML by its id,
    ``afterbegin:<selector>`` its children into the target, ``innerHTML`` its content for the
    target's, ``delete`` the target)."""
    for element in elements(frame):
        how = element.attrib.pop("hx-swap-oob", "true")
        style, _, selector = how.partition(":")
        if how == "true":
            style, selector = "outerHTML", "#" + element.get("id")
        elif not selector:
            selector = "#" + element.get("id")
        if style == "delete":  # htmx deletes every element the selector names (ids, by commas)
            for one in selector.split(","):
                assert one.startswith("#")
                target = by_id(root, one[1:])
                assert target is not None, f"no element {one} on the page for {how}"
                target.getparent().remove(target)
            continue
        assert selector.startswith("#")
        target = by_id(root, selector[1:])
        assert target is not None, f"no element {selector} on the page for {how}"
        if style == "outerHTML":
            element.tail = target.tail
            target.getparent().replace(target, element)
        elif style == "afterbegin":
            for i, child in enumerate(list(element)):
                target.insert(i, child)
        elif style == "innerHTML":  # the element's content (text and children) in place of the target's
            for child in list(target):
                target.remove(child)
            target.text = element.text
            for child in list(element):
                target.append(child)
        elif style == "delete":
            target.getparent().remove(target)
        else:
            raise AssertionError(f"unknown swap {how}")


def canonical(node: Any) -> Any:
    """An element as text and attributes (client tokens left out: every render draws new ones)."""
    attrs = dict(node.attrib)
    attrs.pop("hx-swap-oob", None)
    if node.tag == "input" and attrs.get("name") == "client_token":
        attrs["value"] = ""
    text = " ".join((node.text or "").split())
    children = []
    for child in node:
        if isinstance(child.tag, str):
            children.append(canonical(child))
        tail = " ".join((child.tail or "").split())
        if tail:
            children.append(tail)
    return (node.tag, tuple(sorted(attrs.items())), text, tuple(children))


# ---------------------------------------------------------------- the battles


def changes_of(key: str, seed: int, steps: int) -> list[list]:
    """The log of a random battle cut into its changes (the events of one accepted action each)."""
    cuts: list[int] = []
    total = [0]

    def seen(state, action, out):
        if isinstance(out, tuple):
            total[0] += len(out[0])
            cuts.append(total[0])

    log = random_battle(key, seed=seed, steps=steps, seen=seen)
    start = len(log) - total[0]  # the battle's set-up and start come first, as one change
    out, prev = [log[:start]], start
    for cut in cuts:
        out.append(log[prev : start + cut])
        prev = start + cut
    return out


class Battleground:
    """The table after each change, as the push process holds it: the same event rows from one change
    to the next (their data objects too), the battle's version raised by each change."""

    def __init__(self, parts: list[list]) -> None:
        self.log = [e for part in parts for e in part]
        self.rows = [(seq, e.type, e.data) for seq, e in enumerate(self.log, start=1)]

    def table(self, n: int, version: int) -> Table:
        state = replay(self.log[:n])
        members = {"gm": (Role.GM, "Gemma"), OBSERVER: (Role.OBSERVER, "Olga")}
        for c in state.combatants.values():
            if c.controller is not None:
                members[c.controller] = (Role.PLAYER, f"Player {c.controller}")
        battle = Battle(pk=7, campaign_id=7, seq=state.seq, version=version)
        return Table(battle, state, self.rows[:n][::-1][:LOG_WINDOW], members, {})


def viewers(table: Table) -> list[tuple[str, str, str | None]]:
    """(name, role, user id) of every visibility class: the GM, each controlling player, an observer."""
    players = sorted(table.controllers())
    return [
        ("gm", Role.GM, None),
        *((f"player {u}", Role.PLAYER, u) for u in players),
        ("observer", Role.OBSERVER, OBSERVER),
    ]


def frames_for(message: dict[str, Any], role: str, uid: str | None) -> list[str]:
    """What a socket of this viewer sends for a group message (``BattleConsumer.battle_push``)."""
    if role == Role.GM:
        return [message["gm"]]
    users = message["users"]
    return [message["pl"] + (users[uid] if uid in users else message.get("watch", ""))]


def check(
    key: str, seed: int, steps: int, drop: Callable[[set[str]], set[str]] | None = None
) -> dict[str, int]:
    """Play the battle change by change; after each, every viewer's page (the one before with the
    change's frames applied) must equal a fresh render of that viewer. Returns how the changes went."""
    parts = changes_of(key, seed, steps)
    ground = Battleground(parts)
    clear_caches()
    n = len(parts[0])
    first = ground.table(n, 1)
    live.message_for(first)  # the set-up's push: whole, and remembered
    pages = {name: page_of(regions_for(first, role, uid)) for name, role, uid in viewers(first)}
    counts = {"delta": 0, "whole": 0}
    for version, part in enumerate(parts[1:], start=2):
        n += len(part)
        table = ground.table(n, version)
        message = live.message_for(table, part)
        counts["delta" if "base" in message else "whole"] += 1
        fresh = ground.table(n, version)  # a memo of its own: nothing shared with the push's render
        for name, role, uid in viewers(fresh):
            page = pages.get(name)
            if page is None:  # a player whose first combatant just joined: their page loads now
                pages[name] = page_of(regions_for(fresh, role, uid))
                continue
            for frame in frames_for(message, role, uid):
                swap(page, frame)
            want = page_of(regions_for(fresh, role, uid))
            assert canonical(page) == canonical(want), f"{key} seed {seed}: {name} after change {version}"
    return counts


@pytest.mark.parametrize("key", sorted(RULESETS))
@pytest.mark.parametrize("seed", [11, 29])
def test_applying_the_pushed_elements_gives_the_page_a_fresh_render_gives(key, seed):
    counts = check(key, seed, steps=70)
    # Most changes went as elements: the property is about them, not about whole tables.
    assert counts["delta"] > counts["whole"], counts


@pytest.mark.parametrize("key", sorted(RULESETS))
def test_the_check_fails_when_a_touched_element_is_left_out(key, monkeypatch):
    """The property has teeth: leave one combatant the events name out of the push, and some viewer's
    page no longer matches a fresh render."""
    real = changes.touched

    def one_short(events, combatants):
        named = real(events, combatants)
        return set(sorted(named)[1:])

    monkeypatch.setattr(changes, "touched", one_short)
    with pytest.raises(AssertionError, match="after change"):
        check(key, 11, steps=70)


def pushes(key: str, seed: int, steps: int) -> Iterator[tuple[Table, dict[str, Any]]]:
    """(table, message) of each change of a random battle after its first, from empty caches."""
    parts = changes_of(key, seed, steps)
    ground = Battleground(parts)
    clear_caches()
    n = len(parts[0])
    live.message_for(ground.table(n, 1))
    for version, part in enumerate(parts[1:], start=2):
        n += len(part)
        table = ground.table(n, version)
        yield table, live.message_for(table, part)


def test_no_change_pushes_a_token_menu():
    """The GM's token menus are fetched when one opens (``battle_menu``): no change, of any class,
    carries one, while the changes still carry the tokens they touched."""
    deltas = 0
    for _, message in pushes("luck", 11, 40):
        pushed = message["gm"] + message["pl"] + "".join(message["users"].values())
        assert 'id="tm-' not in pushed and "token-menu" not in pushed
        if "base" in message:
            deltas += 1
            assert (
                'id="tok-' in message["gm"] or 'id="trk-' in message["gm"] or "log-entries" in message["gm"]
            )
    assert deltas


def test_the_acting_panel_sends_only_the_option_forms_that_changed():
    """While the actor and its options stay the same, a change carries the option forms whose render
    changed (a move's squares, an attack now in range), not the panel; no pushed form holds a seq or a
    client token (the page adds them when it sends one), so an option that did not change is not sent."""
    piecewise = 0
    for table, message in pushes("luck", 11, 70):
        if "base" not in message:
            continue
        gm = message["gm"]
        assert 'name="expected_seq"' not in gm and 'name="client_token"' not in gm
        forms = re.findall(r'<form id="opt-(\d+)"', gm)
        if forms and 'id="actions"' not in gm:
            piecewise += 1
            options = len(re.findall(r'id="opt-', regions_for(table, Role.GM, None)))
            assert len(forms) < options  # some option went unchanged, and unsent
    assert piecewise


def test_the_gm_is_never_told_your_turn_by_a_push():
    """The GM acts for everyone: the page says "Acting for Grik" and no "Your turn" banner (a banner
    would set off the players' "Your turn!" alert on the GM's screen), and a push says the same."""
    acting_for = 0
    for _, message in pushes("luck", 11, 40):
        gm = message["gm"]
        assert "Your turn" not in gm and "data-your-turn" not in gm
        acting_for += "Acting for " in gm
    assert acting_for
