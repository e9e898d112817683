"""The battle page's forms post the parameters that ``ACTION_PARAMS`` (or the ruleset's ``params``) names,
whatever the action."""

from __future__ import annotations

import json

import pytest
from django.http import QueryDict

from combat.engine.actions import param_problems
from combat.engine.rulesets import get_ruleset
from combat.forms import BadInput, action_from_post
from combat.presenters.gm import GM_QUICK

FIELDS = {
    "combatant": "c2",
    "hp": "4",
    "resource": "actions",
    "value": "1",
    "status": "stun",
    "power": "2",
    "duration": "1",
    "square": "3,4",
    "reason": "They fled.",
    "hidden": "1",
}
# What the token menu and the battle's header post (combat/token_menu.html, combat/battle.html).
MENU_KINDS = [
    "gm.set_hp",
    "gm.add_status",
    "gm.remove_status",
    "gm.move",
    "gm.remove_combatant",
    "gm.hide",
    "gm.end_battle",
]


def _post(**fields) -> QueryDict:
    post = QueryDict(mutable=True)
    for name, value in fields.items():
        for v in value if isinstance(value, list) else [value]:
            post.appendlist(name, v)
    return post


@pytest.mark.parametrize("kind", MENU_KINDS + [kind for kind, _ in GM_QUICK])
def test_every_gm_form_posts_the_reference_names(kind):
    payload = action_from_post(_post(kind=kind, **FIELDS)).payload
    assert payload["kind"] == kind
    assert param_problems(kind, payload["params"]) == [], payload


@pytest.mark.parametrize(("sign", "delta"), [("-1", -5), ("1", 5)])
def test_the_token_menu_posts_hp_down_or_up_by_an_amount(sign, delta):
    payload = action_from_post(_post(kind="gm.set_hp", combatant="c2", amount="5", sign=sign)).payload
    assert payload["params"] == {"combatant": "c2", "delta": delta}
    assert param_problems("gm.set_hp", payload["params"]) == []


@pytest.mark.parametrize("amount", ["0", "-3", "10000", "x"])
def test_an_hp_amount_out_of_bounds_is_refused_with_a_reason(amount):
    from combat.forms import BadInput  # noqa: PLC0415

    with pytest.raises(BadInput):
        action_from_post(_post(kind="gm.set_hp", combatant="c2", amount=amount, sign="-1"))


def test_a_token_moved_by_the_gm_goes_to_the_square_and_one_placed_in_setup_stands_there():
    assert action_from_post(_post(kind="gm.move", combatant="c2", square="3,4")).payload["params"] == {
        "combatant": "c2",
        "to": [3, 4],
    }
    placed = action_from_post(_post(kind="setup.place", combatant="c2", col="4", line="5")).payload["params"]
    assert placed == {"combatant": "c2", "pos": [3, 4]}
    assert param_problems("setup.place", placed) == []


@pytest.mark.parametrize(
    ("ruleset", "kind", "fixed", "picked", "params"),
    [
        ("luck", "move", {}, {"square": "2,1"}, {"to": [2, 1]}),
        ("luck", "ability", {"weapon": "sword"}, {"target": "c2"}, {"weapon": "sword", "targets": ["c2"]}),
        (
            "luck",
            "ability",
            {"item": "healing_potion"},
            {"target": "c1"},
            {"item": "healing_potion", "targets": ["c1"]},
        ),
        (
            "luck",
            "ability",
            {"ability": "flame_burst"},
            {"col": "2", "line": "3"},
            {"ability": "flame_burst", "square": [1, 2]},
        ),
        (  # a square typed as the board labels it
            "luck",
            "ability",
            {"ability": "flame_burst"},
            {"at": "b3"},
            {"ability": "flame_burst", "square": [1, 2]},
        ),
        ("luck", "move", {}, {"at": "AA10"}, {"to": [26, 9]}),
        (
            "action-block",
            "attack",
            {"weapon": "pistol", "modifiers": ["aimed"]},
            {"target": ["c3", "c4"]},
            None,
        ),
        ("paradigm", "swap", {"slot": "weapon", "equip": ""}, {}, {"slot": "weapon", "equip": ""}),
        ("mist", "rampart", {"on": True}, {}, {"on": True}),
    ],
)
def test_an_option_posts_its_params_and_the_target_or_square_picked(ruleset, kind, fixed, picked, params):
    post = _post(kind=kind, actor="c1", params=json.dumps(fixed), **picked)
    sent = action_from_post(post).payload["params"]
    if params is not None:
        assert sent == params
    assert param_problems(kind, sent, get_ruleset(ruleset).params) == [], sent


def test_an_answer_posts_the_question_and_the_choice():
    sent = action_from_post(_post(kind="answer", actor="c1", decision="d9", choice="parry")).payload["params"]
    assert sent == {"decision": "d9", "choice": "parry"}
    assert param_problems("answer", sent) == []


def test_a_square_typed_unlike_the_boards_labels_is_refused_clearly():
    with pytest.raises(BadInput, match="like C1"):
        action_from_post(_post(kind="move", actor="c1", params="{}", at="3,1"))
