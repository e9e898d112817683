"""Random battles of every ruleset through the push's shortcuts: cached own regions and shared option forms render what a fresh render of each viewer would."""

from __future__ import annotations

import re

import pytest

from combat import presenters
from combat.engine.core import replay
from combat.engine.rulesets import RULESETS
from combat.models import Battle
from combat.presenters import log as log_presenter
from combat.presenters.actions import share_options
from combat.presenters.render import render_regions
from combat.table import LOG_WINDOW, Table, clear_caches
from tests.engine.properties import random_battle
from vtt.models import Role

TOKEN = re.compile(r'name="client_token" value="([^"]*)"')


def same(html: str) -> str:
    """A render without its random client tokens, and without whitespace between tags."""
    return re.sub(r">\s+<", "><", TOKEN.sub("", html)).strip()


def table_at(log: list, n: int) -> Table:
    """The table after the first ``n`` events of ``log``, as the push would hold it (no database)."""
    state = replay(log[:n])
    rows = [(seq, e.type, e.data) for seq, e in enumerate(log[:n], start=1)][::-1][:LOG_WINDOW]
    members = {"gm": ("gm", "Gemma")}
    for c in state.combatants.values():
        if c.controller is not None:
            members[c.controller] = ("player", f"Player {c.controller}")
    battle = Battle(pk=7, campaign_id=7, seq=state.seq)
    return Table(battle, state, rows, members, {})


@pytest.mark.parametrize("key", sorted(RULESETS))
def test_own_regions_from_the_cache_and_shared_option_forms_match_a_fresh_render(key):
    log = random_battle(key, seed=11, steps=80)
    clear_caches()
    cuts = sorted({*range(2, len(log) + 1, max(1, len(log) // 40)), len(log)})
    acted = cached_waiting = 0
    for n in cuts:
        fast = presenters.class_regions(table_at(log, n))  # caches warm from the cuts before
        fresh = table_at(log, n)  # its own memo: nothing shared with the render above
        gm = render_regions(presenters.GM_REGIONS, presenters.context_for(fresh, Role.GM, None))
        assert same(fast["gm"]) == same(gm), f"GM view after event {n}"
        pl = presenters.shared_context(fresh, "pl")
        for uid, html in fast["users"].items():
            ctx = {**pl, **presenters.user_context(fresh, uid, False)}
            share_options(fresh, ctx)  # the forms, rendered anew (``fresh`` has its own memo)
            assert same(html) == same(render_regions(presenters.USER_REGIONS, ctx)), f"{uid} after event {n}"
            if ctx["acting"] is not None and ctx["options"]:
                acted += 1
                # The pushed forms hold no client token (the page gives each form its own when
                # sent), so the GM's copy and the player's are the same cached pieces.
                assert 'id="opt-1"' in html and not TOKEN.findall(html)
            elif ctx["phase"] == "active":
                cached_waiting += 1
    assert acted and cached_waiting  # both shortcuts were taken


@pytest.mark.parametrize("key", sorted(RULESETS))
def test_a_change_describes_only_its_new_events_and_the_log_matches_a_fresh_description(key, monkeypatch):
    from combat.engine.core import Viewer
    from combat.engine.told import Teller

    described = []
    real_describe = log_presenter.describe
    monkeypatch.setattr(log_presenter, "describe", lambda *a: described.append(a[0]) or real_describe(*a))
    clear_caches()
    first, other = random_battle(key, seed=5, steps=80), random_battle(key, seed=6, steps=80)
    hits = 0
    # ``other`` stands for the window read anew after an undo: other events at the same seqs.
    for log in (first, other):
        seen: dict[str, tuple] = {}
        for n in range(2, len(log) + 1):
            table = table_at(log, n)
            for vclass, role in (("gm", Role.GM), ("pl", Role.PLAYER)):
                teller = Teller(table.state, Viewer(role=role))
                described.clear()
                fast = presenters.shared_context(table, vclass)["log_html"]
                work = len(described)
                fresh = log_presenter.log_entries(table.events, teller)
                assert fast == "".join(e["html"] for e in fresh), f"{vclass} log after event {n}"
                if n == 2 and log is other:
                    assert work == 2, "another window's events are described anew"
                elif seen.get(vclass) == teller.key:
                    assert work == 1, "only the new event is described"
                    hits += 1
                seen[vclass] = teller.key
    assert hits > len(first)  # most changes keep the names and the hidden combatants


@pytest.mark.parametrize("key", sorted(RULESETS))
def test_every_cached_piece_is_rendered_from_all_its_template_reads(key, monkeypatch):
    """A piece is cached by the whole context it receives (``render.fragment``): each context holds
    every value its template reads (rendered with Jinja2's StrictUndefined, a missing one raises)."""
    import jinja2
    from django.template import engines

    from combat.presenters import gm as gm_menu
    from combat.presenters import render

    strict = engines["jinja2"].env.overlay(undefined=jinja2.StrictUndefined)
    pieces: list[tuple[str, dict]] = []
    real_render_one = render.render_one

    def recording(name: str, ctx: dict) -> str:
        if name in render.PIECES:
            pieces.append((name, ctx))
        return real_render_one(name, ctx)

    monkeypatch.setattr(render, "render_one", recording)
    clear_caches()
    log = random_battle(key, seed=3, steps=60)
    seen: set[str] = set()
    for n in range(2, len(log) + 1, max(1, len(log) // 15)):
        table = table_at(log, n)
        presenters.class_regions(table)
        for cid in table.state.combatants:  # a token's menu renders when the GM opens it
            gm_menu.menu_html(table, cid)
        for name, ctx in pieces:
            assert same(strict.get_template(name).render(ctx)) == same(real_render_one(name, ctx)), name
            seen.add(name)
        pieces.clear()
    assert seen == render.PIECES  # every piece was rendered (and checked) at least once


def test_the_pushed_seq_mark_is_the_pages_seq_mark():
    """The push writes the seq mark out instead of rendering the ``seqmark`` partial: the same bytes."""
    from combat.presenters.changes import seqmark
    from combat.presenters.render import render_one

    for seq, version in ((0, 0), (7, 9), (1234, 1240)):
        assert seqmark(seq, version) == render_one("seqmark", {"seq": seq, "version": version})


def test_cached_pieces_are_kept_as_plain_strings_the_collector_does_not_track():
    """``FRAGMENTS`` holds str, not SafeString: 20,000 tracked objects slowed every full collection."""
    import gc

    from combat.caches import FRAGMENTS
    from combat.presenters.render import TOKEN, fragment

    clear_caches()
    ctx = {"t": {"id": "c1", "name": "Ayla"}, "oob": False}
    html = fragment(TOKEN, ctx)
    assert "Ayla" in html and hasattr(html, "__html__")  # safe to insert in a template
    stored = list(FRAGMENTS.values())
    assert len(stored) == 1 and type(stored[0]) is str and not gc.is_tracked(stored[0])
    assert fragment(TOKEN, ctx) == html  # the second one from the cache
