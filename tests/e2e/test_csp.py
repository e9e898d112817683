"""The battle page works in Chromium under the strict Content-Security-Policy.

Three seats open a battle; the header is there, htmx and its websocket
extension connect ("Live"), an action through the page reaches every seat,
the GM's override form works, and the browser reports no CSP violation and
no script error on any page.
"""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from tests.e2e.seats import (
    do,
    make_table,
    now_acting,
    off_loop,
    open_seats,
    seq,
    started_battle,
    wait_live,
    wait_seq,
)


def _watch(page: Any, problems: list[str]) -> None:
    page.on(
        "console",
        lambda m: (
            problems.append(f"console {m.type}: {m.text}")
            if m.type == "error" or "Content Security Policy" in m.text
            else None
        ),
    )
    page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
    # The browser's own report of each violation, counted in the page.
    page.add_init_script(
        "window.__cspViolations = [];"
        "document.addEventListener('securitypolicyviolation', e => window.__cspViolations.push("
        "e.violatedDirective + ' ' + e.blockedURI));"
    )


@pytest.mark.django_db(transaction=True)
def test_the_battle_page_works_under_the_csp_without_violations(asgi_server, browser, shot):
    t = make_table("luck")
    battle = off_loop(lambda: started_battle(t))
    seats = open_seats(browser, asgi_server, t["users"])
    problems: list[str] = []
    for seat in seats.values():
        _watch(seat.page, problems)
        response = seat.page.goto(f"{asgi_server}/battles/{battle.pk}/")
        policy = response.headers["content-security-policy"]
        assert "script-src 'self'" in policy and "'unsafe-inline'" not in policy.split("style-src-attr")[0]
        wait_live(seat.page)
    gm = seats["gm"].page
    acting = now_acting(gm)
    owner = {"Alia": "alice", "Boro": "bob"}.get(acting, "gm")
    before = seq(gm)
    do(seats[owner].page, "End turn")  # an htmx post, answered and pushed over the socket
    wait_seq(seats, before + 1)
    for seat in seats.values():
        expect(seat.page.locator("#tracker .now strong")).not_to_have_text(acting)
    before = seq(gm)
    gm.get_by_role("button", name="Skip this turn").click()
    wait_seq(seats, before + 1)
    shot(seats["bob"].page, "csp-battle-bob")
    for seat in seats.values():
        problems += seat.page.evaluate("window.__cspViolations")
    assert problems == []
