"""Forged rolls in an imported battle: a flat bonus added to a roll (its totals raised to match), a luck
or initiative total raised. Every roll is made again from the battle's seed and the rules
(combat/import_rolls.py): each such record is refused, naming the field, and nothing is written.

The forger here read the source: the dice faces and dice totals stay as the seed gives them, the final
state is recomputed from the forged log, so only the bonuses and totals the rules derive are wrong.
"""

from __future__ import annotations

import contextlib
import json
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from combat import archive
from combat.engine.core import replay
from combat.engine.dice import Roll
from combat.engine.events import Event
from combat.import_check import check_battle_file
from combat.models import Battle
from tests.table import make_campaign, make_user, play_battle

pytestmark = pytest.mark.django_db
RULESETS = ["luck", "mist", "paradigm", "action-block"]
REFUSED = "seed and the rules give"


def exported(ruleset: str) -> tuple[Any, Any, dict[str, Any]]:
    gm = make_user("gm")
    campaign = make_campaign(gm, ruleset)
    return gm, campaign, archive.export_battle(play_battle(campaign, gm, seed=3, steps=40))


def rolled(data: dict[str, Any]) -> list[int]:
    return [i for i, e in enumerate(data["events"]) if e["data"].get("rolls")]


def add_bonus(event: dict[str, Any], which: int, value: int) -> None:
    """A flat bonus added to a roll's list, the roll's result and the event's total raised to match."""
    rolls = event["data"]["rolls"]
    roll = rolls[which % len(rolls)]
    roll.setdefault("adds", []).append({"value": value, "from": "Forged blessing"})
    roll["result"] = Roll.from_dict(roll).result
    for key in ("total", "amount", "raw"):
        if type(event["data"].get(key)) is int:
            event["data"][key] += value
            break


def raise_total(event: dict[str, Any], by: int = 15) -> None:
    """A luck or initiative roll's total raised (its dice untouched)."""
    for key in ("total", "initiative", "roll", "amount", "raw"):
        if type(event["data"].get(key)) is int:
            event["data"][key] += by
            return
    add_bonus(event, 0, by)


def resealed(data: dict[str, Any]) -> str:
    """The forged file with its final state recomputed (what an old check compared)."""
    with contextlib.suppress(Exception):  # the engine cannot replay it: the file keeps its final
        data["final"] = replay([Event.from_dict(e) for e in data["events"]]).to_dict()
    return json.dumps(data)


@pytest.mark.parametrize("ruleset", RULESETS)
def test_forged_bonuses_and_totals_random_forged_rolls_are_all_refused(ruleset):
    _, _, original = exported(ruleset)
    assert not isinstance(check_battle_file(ruleset, json.dumps(original)), str)  # the real one imports
    places = rolled(original)
    assert places

    @settings(max_examples=40, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
    @given(
        at=st.integers(0, 10**6),
        which=st.integers(0, 10),
        how=st.sampled_from(["bonus", "total"]),
        value=st.sampled_from([1, 2, 15, 40, -3]),
    )
    def run(at: int, which: int, how: str, value: int) -> None:
        data = json.loads(json.dumps(original))
        event = data["events"][places[at % len(places)]]
        if how == "bonus":
            add_bonus(event, which, value)
        else:
            raise_total(event, value)
        refused = check_battle_file(ruleset, resealed(data))
        assert isinstance(refused, str), (how, event)

    run()


def first_event(data: dict[str, Any], types: tuple[str, ...]) -> dict[str, Any]:
    return next(e for e in data["events"] if e["type"] in types and e["data"].get("rolls"))


@pytest.mark.parametrize(
    ("ruleset", "types", "forge", "field"),
    [
        ("luck", ("luck.rolled",), lambda e: add_bonus(e, 0, 40), "rolls[0].adds"),
        ("luck", ("luck.rolled",), raise_total, "total"),
        ("luck", ("initiative.rolled",), raise_total, "total"),
        ("mist", ("initiative.rolled",), raise_total, "total"),
        ("paradigm", ("damage.dealt", "healed"), lambda e: add_bonus(e, 0, 40), "amount"),
    ],
)
def test_forged_bonuses_and_totals_are_refused_naming_the_field(client, ruleset, types, forge, field):
    gm, campaign, original = exported(ruleset)
    data = json.loads(json.dumps(original))
    event = first_event(data, types)
    forge(event)
    before = Battle.objects.count()
    client.force_login(gm)
    upload = SimpleUploadedFile("battle.json", resealed(data).encode(), content_type="application/json")
    response = client.post(f"/campaigns/{campaign.pk}/battles/import/", {"file": upload})
    text = response.content.decode()
    assert response.status_code == 400 and Battle.objects.count() == before
    assert f"({event['type']}): {field} is not what the" in text and REFUSED in text, text[-3000:]
