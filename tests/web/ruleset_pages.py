"""The web suite every registered ruleset goes through, as a function of its key.

``a_battle_through_the_pages``: a campaign of the ruleset with a hero of its starter sheets, a new
battle from the page's form (the party and a monster), its start, the battle page for the GM and the
player, then turns played through the page's action form (``/act``, as the buttons post it), each
option taken with the first target or square it offers, every answer a page (never a server error)
and the log replaying to the stored state. ``tests/web/test_every_ruleset_page.py`` runs it over the
registry and on the grid ruleset of docs/RULESET_GUIDE.md.
"""

from __future__ import annotations

import json
import re
from typing import Any

from django.test import Client
from django.urls import reverse

from combat import services
from combat.engine.core import legal_actions
from combat.models import Battle
from tests.table import make_campaign
from vtt.content import character_templates
from vtt.models import Character, CharacterKind

HX = {"HTTP_HX_REQUEST": "true"}


def _post_for(option: Any, actor: str, seq: int) -> dict[str, Any]:
    """The action form as the page posts it for ``option`` (its first target or square)."""
    data: dict[str, Any] = {"kind": option.kind, "actor": actor, "params": json.dumps(option.params)}
    if option.targets:
        data["target"] = option.targets[0]
    if option.squares:
        data["square"] = ",".join(str(n) for n in option.squares[0])
    data["expected_seq"] = str(seq)
    return data


def _answer(client: Client, battle_id: int, pending: Any) -> bool:
    seq = Battle.objects.get(pk=battle_id).seq
    data = {
        "kind": "answer",
        "actor": pending.combatant or "",
        "decision": pending.id,
        "choice": pending.default,
        "expected_seq": str(seq),
    }
    answer = client.post(reverse("battle_act", args=[battle_id]), data, **HX)
    assert answer.status_code == 200, answer.content[:300]
    return Battle.objects.get(pk=battle_id).seq > seq


def a_battle_through_the_pages(client: Client, gm: Any, player: Any, key: str, turns: int = 6) -> int:
    """Plays ``turns`` turns of a new battle of ``key`` through the pages; returns the actions accepted."""
    campaign = make_campaign(gm, ruleset=key, player=[player])
    hero, sheet = next(iter(character_templates(campaign, "pc").items()))
    Character.objects.create(campaign=campaign, name=hero, kind=CharacterKind.PC, owner=player, sheet=sheet)
    client.force_login(gm)
    new = reverse("battle_new", args=[campaign.pk])
    field = next(iter(re.findall(r'name="(tpl_[a-z0-9-]+)"', client.get(new).content.decode())))
    made = client.post(new, {"name": "Shared", "width": "10", "height": "8", "party": "on", field: "1"})
    battle = Battle.objects.get(campaign=campaign)
    assert made.status_code == 302 and services.start_battle(battle.pk, gm).ok
    for user in (gm, player):
        client.force_login(user)
        page = client.get(reverse("battle", args=[battle.pk]))
        assert page.status_code == 200 and 'id="board"' in page.content.decode(), user
    accepted = 0
    client.force_login(gm)  # the GM may act for every combatant
    for _ in range(turns):
        state = services.load_state(Battle.objects.get(pk=battle.pk))
        if state.pending is not None:  # a question of the rules: the GM answers it on the page
            accepted += _answer(client, battle.pk, state.pending)
            continue
        if state.phase != "active" or state.current() is None:
            break
        actor = state.current().id
        for option in [o for o in legal_actions(state, actor) if o.available][:2]:
            seq = Battle.objects.get(pk=battle.pk).seq
            answer = client.post(reverse("battle_act", args=[battle.pk]), _post_for(option, actor, seq), **HX)
            assert answer.status_code in (200, 422), (option.kind, answer.status_code)
            accepted += Battle.objects.get(pk=battle.pk).seq > seq
            if services.load_state(Battle.objects.get(pk=battle.pk)).pending is not None:
                break
        state = services.load_state(Battle.objects.get(pk=battle.pk))
        if state.phase == "active" and state.pending is None and state.current() is not None:
            done = services.submit_action(battle.pk, gm, {"kind": "end_turn", "actor": state.current().id})
            assert done.ok or state.current().id != actor, done.reason
    stored = Battle.objects.get(pk=battle.pk)
    assert services.rebuild(battle.pk).to_dict() == stored.snapshot
    return accepted
