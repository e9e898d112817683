"""Words on screen are a player's words: scripted battles of all four rulesets, every page and push scanned.

Each ruleset's battle (two starter monsters a side, random legal actions with a fixed seed) is played
through the services; after every action the push that the sockets would receive (every visibility
class and every player's own regions: ``live.message_for``) is scanned, and at the end the battle
page (GM, player, observer), the older log, the summary and the campaign's pages. What a person
reads there (text, and the labels a screen reader says) must not hold internal words: "source",
rule IDs (LUCK-HIT-3), option keys and other snake_case, ``None``, raw dicts or lists.
"""

from __future__ import annotations

import html as html_lib
import random
import re
from typing import Any

import pytest
from django.urls import reverse

from combat import live, services
from combat.engine.autoplay import random_action
from combat.engine.rulesets import RULESETS
from combat.models import Battle
from combat.table import load_table
from tests.table import make_campaign
from vtt import homebrew

BANNED = {
    "the word source": re.compile(r"\bsource\b", re.I),
    "a rule ID": re.compile(r"\b[A-Z]{2,6}-[A-Z]{2,6}-\d"),
    "snake_case": re.compile(r"\b[a-z]+_[a-z_]+\b"),
    "None": re.compile(r"\bNone\b"),
    "a raw dict or list": re.compile(r"\{'|\{\"|\['|\[\{|\bTrue\b|\bFalse\b"),
}
SPOKEN_ATTRS = re.compile(r'\b(?:aria-label|title|placeholder|alt)="([^"]*)"')


def readable(page: str) -> str:
    """What a person reads of some HTML: its text and the labels a screen reader says."""
    page = re.sub(r"<(script|style|template)\b.*?</\1>", " ", page, flags=re.S | re.I)
    said = " ".join(SPOKEN_ATTRS.findall(page))
    text = re.sub(r"<[^>]+>", " ", page)
    return html_lib.unescape(text + " " + said)


def problems(where: str, page: str) -> list[str]:
    text = readable(page)
    out = []
    for what, pattern in BANNED.items():
        for match in pattern.finditer(text):
            around = text[max(0, match.start() - 50) : match.end() + 50].replace("\n", " ")
            out.append(f"{where}: {what}: …{around}…")
    return out


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list | tuple):
        return [s for v in value for s in _strings(v)]
    return []


@pytest.mark.parametrize("key", sorted(RULESETS))
def test_every_page_push_and_log_line_of_a_scripted_battle_speaks_a_players_words(
    key, as_user, gm, player, observer
):
    campaign = make_campaign(gm, ruleset=key, player=[player], observer=[observer])
    ruleset = campaign.ruleset_class
    bid = services.create_battle(campaign, gm, "Skirmish", 8, 8, ruleset=key, seed=5).battle_id
    monsters = list(homebrew.builtin(ruleset)[homebrew.MONSTERS].values())
    for i, side in enumerate(("party", "enemy", "party", "enemy")):
        d = monsters[i % len(monsters)]
        sheet = {k: v for k, v in d.items() if k != "name"}
        place = {"row": "front"} if ruleset.board == "rows" else {"pos": [0 if side == "party" else 3, i]}
        params = {"name": f"{d['name']} {'ABCD'[i]}", "side": side, "sheet": sheet}
        if i == 0:
            params["controller"] = str(player.pk)
            params["kind"] = "pc"
        assert services.add_combatant(bid, gm, params=params, **place).ok
    assert services.start_battle(bid, gm).ok
    found: list[str] = []
    rng = random.Random(5)
    for step in range(40):
        state = services.load_state(Battle.objects.get(pk=bid))
        action = random_action(state, rng)
        if action is None:
            break
        payload = {"kind": action.kind, "actor": action.actor, "params": action.params}
        assert services.submit_action(bid, gm, payload).ok
        table = load_table(bid)
        for text in _strings(live.message_for(table)):
            found += problems(f"push after step {step}", text)
    pages = {
        f"battle page ({who})": as_user(user).get(reverse("battle", args=[bid])).content.decode()
        for who, user in (("GM", gm), ("player", player), ("observer", observer))
    }
    pages["older log"] = as_user(gm).get(reverse("battle_log", args=[bid]) + "?before=999").content.decode()
    pages["campaign"] = as_user(gm).get(campaign.get_absolute_url()).content.decode()
    pages["campaign form"] = as_user(gm).get(reverse("campaign_edit", args=[campaign.pk])).content.decode()
    if Battle.objects.get(pk=bid).status != Battle.Status.ENDED:
        assert services.gm_override(bid, gm, {"kind": "gm.end_battle", "params": {"winner": "party"}}).ok
    pages["summary"] = as_user(gm).get(reverse("battle_summary", args=[bid])).content.decode()
    for where, page in pages.items():
        found += problems(where, page)
    assert not found, "\n".join(sorted(set(found))[:40])
