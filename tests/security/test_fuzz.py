"""Random and malformed input against the action endpoint, the service layer and the websocket.

Every input either works or fails cleanly: no server error (the test client
re-raises any exception a view lets through, a 5xx fails the test), no
engine crash hidden behind the service layer's safety net (its log record
fails the test), and every refusal leaves the battle's seq, snapshot and log
exactly as they were. When a random action is accepted, the stored snapshot
still equals a replay of the log (ENG-1).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from combat import services
from combat.engine.core import legal_actions
from combat.models import Battle, BattleEvent
from tests.security.conftest import client_for, fingerprint, make_world
from tests.sockets import communicator, frames

EXAMPLES = 150
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
    derandomize=True,
)


#: Hypothesis runs fewer examples than max_examples only when it runs out of distinct inputs: a test that
#: ran fewer than half of them tried too little to say anything.
def _ran_enough(tally: Any, examples: int) -> None:
    assert tally["examples"] >= examples // 2, f"only {tally['examples']} of {examples} examples ran"


KINDS = [
    "end_turn",
    "move",
    "ability",
    "answer",
    "gm.set_hp",
    "gm.set_resource",
    "gm.add_status",
    "gm.remove_status",
    "gm.move",
    "gm.skip_turn",
    "gm.add_combatant",
    "gm.remove_combatant",
    "gm.end_battle",
    "setup.add_combatant",
    "setup.place",
    "setup.start",
    "setup.remove_combatant",
]
IDS = ["c1", "c2", "c3", "c0", "c99", "", " ", "c1\x00", "../c1", "<script>"]
json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=False)
    | st.text(max_size=30),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=4),
    max_leaves=12,
)
params_objects = st.fixed_dictionaries(
    {},
    optional={
        "ability": st.sampled_from(["fire_bolt", "flash", "slash", "recover", "nope"]) | st.text(max_size=20),
        "targets": st.lists(st.sampled_from(IDS) | st.text(max_size=8), max_size=4) | json_values,
        "to": st.lists(st.integers(-3, 12), min_size=0, max_size=3) | json_values,
        "path": st.lists(st.lists(st.integers(-2, 11), max_size=3), max_size=5) | json_values,
        "square": st.lists(st.integers(-2, 11), max_size=3) | json_values,
        "combatant": st.sampled_from(IDS) | json_values,
        "hp": st.integers(-(2**40), 2**40) | json_values,
        "decision": st.text(max_size=8) | json_values,
        "choice": st.text(max_size=8) | json_values,
    },
)
# Digits that str.isdigit() or int() accept but a number field must not: superscripts, Arabic-Indic, fullwidth.
UNICODE_DIGITS = ["²", "1²", "١٢", "٣", "１", "1,²", "²,1", "³,４", "-²", "¹⁰"]
# Nesting far beyond any real action (and beyond Python's recursion limit), still under the size limits.
DEEP = [
    "[" * 1999 + "]" * 1999,
    '{"a":' * 600 + "1" + "}" * 600,
    '{"ability": "x", "p": ' + "[" * 1900 + "]" * 1900 + "}",
    "[" * 3000,
    '{"targets": [[[[[[[[[["c1"]]]]]]]]]]}',
]
unicode_digits = st.sampled_from(UNICODE_DIGITS) | st.text(
    st.characters(categories=["Nd", "No"]), min_size=1, max_size=4
)
text_field = (
    st.none()
    | st.text(max_size=30)
    | unicode_digits
    | st.sampled_from(["", "1", "-1", "0", "1e9", "x" * 200, "3,4", "a,b"])
)
form_posts = st.fixed_dictionaries(
    {"kind": st.sampled_from(KINDS) | st.text(max_size=80)},
    optional={
        "actor": st.sampled_from(IDS) | st.text(max_size=24),
        "params": st.sampled_from(["{not json", "[]", "null", "1", '"x"', "{}"])
        | params_objects.map(json.dumps)
        | st.sampled_from(DEEP)
        | st.text(max_size=300),
        "expected_seq": st.sampled_from(["now", "now", "", "abc", "-1", "99999999999999999999"])
        | unicode_digits,
        "client_token": st.text(max_size=70),
        "target": st.lists(st.sampled_from(IDS) | st.text(max_size=20), max_size=3),
        "square": text_field,
        "col": text_field,
        "line": text_field,
        "combatant": st.sampled_from(IDS) | text_field,
        "hp": text_field,
        "value": text_field,
        "resource": text_field,
        "status": text_field,
        "power": text_field,
        "duration": text_field,
        "row": text_field,
        "reason": text_field,
        "decision": text_field,
        "choice": text_field,
    },
)


@pytest.fixture
def engine_errors(caplog):
    caplog.set_level(logging.ERROR, logger="combat.services")
    return caplog


def _no_engine_crash(caplog, what: Any) -> None:
    crashes = [r for r in caplog.records if r.name == "combat.services" and r.levelno >= logging.ERROR]
    assert not crashes, f"the engine raised on {what!r}: {crashes[0].getMessage()}"


def _check_after(bid: int, before: Any, accepted: bool, what: Any, tally: Any) -> None:
    after = fingerprint(bid)
    if not accepted:
        assert after == before, f"a refusal changed the battle: {what!r}"
        return
    tally["accepted"] += 1
    assert after[0] > before[0] or after[2] != before[2]
    assert services.rebuild(bid).to_dict() == Battle.objects.get(pk=bid).snapshot, (
        f"snapshot != log after {what!r}"
    )


def _legal_post(picks: list[int], world: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """A legal action of the current turn, as the page would post it, by its controller or the GM.

    ``picks`` are drawn up front (state-independent, so hypothesis can replay and shrink).
    """
    battle = Battle.objects.get(pk=world["battle"].pk)
    state = services.load_state(battle)
    by_user = {str(u.pk): name for name, u in world["users"].items()}

    def pick(items: list[Any], i: int) -> Any:
        return items[picks[i] % len(items)]

    if state.pending is not None:
        pending = state.pending
        choice = pick([o["key"] for o in pending.options] or ["none"], 0)
        role = by_user.get(pending.controller or "", "gm")
        return role, {"kind": "answer", "actor": pending.combatant, "decision": pending.id, "choice": choice}
    current = state.current()
    if current is None:
        return "gm", {"kind": "gm.skip_turn"}
    option = pick([o for o in legal_actions(state, current.id) if o.available] or [None], 0)
    role = pick([by_user.get(current.controller or "", "gm"), "gm"], 1)
    if option is None:
        return role, {"kind": "end_turn", "actor": current.id}
    post: dict[str, Any] = {"kind": option.kind, "actor": current.id, "params": json.dumps(option.params)}
    if option.targets:
        post["target"] = [pick(option.targets, 2)]
    if option.squares:
        x, y = pick(option.squares, 3)
        post["square"] = f"{x},{y}"
    return role, post


def test_random_action_posts_never_error_and_refusals_change_nothing(world, engine_errors, tally):
    bid = world["battle"].pk
    clients = {role: client_for(world, role) for role in ("player", "other_player", "gm", "observer")}
    url = f"/battles/{bid}/act"

    @FUZZ
    @given(
        role=st.sampled_from(list(clients)),
        post=form_posts,
        mode=st.sampled_from(["random", "legal", "mutated"]),
        picks=st.lists(st.integers(0, 10**6), min_size=5, max_size=5),
    )
    def run(role: str, post: dict[str, Any], mode: str, picks: list[int]) -> None:
        tally["examples"] += 1
        before = fingerprint(bid)
        if mode != "random":
            role, legal = _legal_post(picks, world)
            legal["expected_seq"] = "now"
            if mode == "mutated":
                key = sorted(post)[picks[4] % len(post)]
                legal[key] = post[key]
            post = legal
        data = {k: v for k, v in post.items() if v is not None}
        if data.get("expected_seq") == "now":
            data["expected_seq"] = str(before[0])
        data = {k: (v.replace("\x00", "") if isinstance(v, str) else v) for k, v in data.items()}
        # A client token this user already used replays the first answer and changes nothing.
        token = data.get("client_token")
        replay = (
            bool(token)
            and BattleEvent.objects.filter(
                battle_id=bid, client_token=token, actor_id=world["users"][role].pk
            ).exists()
        )
        response = clients[role].post(url, data, HTTP_HX_REQUEST="true")
        assert response.status_code < 500
        _no_engine_crash(engine_errors, data)
        _check_after(bid, before, response.status_code == 200 and not replay, data, tally)

    run()
    _ran_enough(tally, EXAMPLES)
    assert tally["accepted"], "no random post was accepted: the accepted path went untried"


def test_random_payloads_to_the_services_never_crash(world, engine_errors, tally):
    bid = world["battle"].pk
    users = world["users"]
    payloads = st.one_of(
        json_values,
        st.fixed_dictionaries(
            {"kind": st.sampled_from(KINDS) | json_values},
            optional={"actor": st.sampled_from(IDS) | json_values, "params": params_objects | json_values},
        ),
    )

    @FUZZ
    @given(
        role=st.sampled_from(["player", "gm", "other_player"]),
        payload=payloads,
        seq=st.none() | st.just("now") | json_values,
        token=st.none() | json_values,
    )
    def run(role: str, payload: Any, seq: Any, token: Any) -> None:
        tally["examples"] += 1
        before = fingerprint(bid)
        expected = before[0] if seq == "now" else seq
        submit = (
            services.gm_override
            if role == "gm" and isinstance(payload, dict) and str(payload.get("kind", "")).startswith("gm.")
            else services.submit_action
        )
        result = submit(bid, users[role], payload, expected, token)
        _no_engine_crash(engine_errors, payload)
        _check_after(bid, before, result.ok and not result.duplicate, payload, tally)

    run()
    _ran_enough(tally, EXAMPLES)
    assert tally["accepted"], "no random payload was accepted: the accepted path went untried"


any_field = (
    st.none()
    | st.text(max_size=40)
    | st.integers(-(2**63), 2**64).map(str)
    | unicode_digits
    | st.sampled_from(["", "0", "1", "2", "20", "21", "-1", "party", "enemy", "x" * 300])
)
other_posts = st.fixed_dictionaries(
    {},
    optional=dict.fromkeys(
        ("character", "count", "side", "client_token", "expected_seq", "name", "width", "height"), any_field
    ),
)


def test_random_posts_to_the_other_battle_writes_never_error(world, engine_errors, tally):
    """Add, start, undo and new-battle forms with random fields, by the GM (who may use them all)."""
    gm = client_for(world, "gm")
    setup, battle = world["setup"].pk, world["battle"].pk
    urls = [
        f"/battles/{setup}/add",
        f"/battles/{setup}/start",
        f"/battles/{battle}/undo",
        f"/campaigns/{world['campaign'].pk}/battles/new/",
    ]

    @FUZZ
    @given(url=st.sampled_from(urls), post=other_posts, htmx=st.booleans())
    def run(url: str, post: dict[str, Any], htmx: bool) -> None:
        tally["examples"] += 1
        watched = (setup, battle)
        before = [fingerprint(b) for b in watched]
        data = {k: v for k, v in post.items() if v is not None}
        headers = {"HTTP_HX_REQUEST": "true"} if htmx else {}
        response = gm.post(url, data, **headers)
        assert response.status_code < 500
        _no_engine_crash(engine_errors, (url, data))
        refused = response.status_code >= 400 or (url.endswith("/new/") and response.status_code == 200)
        if refused:
            assert [fingerprint(b) for b in watched] == before, (url, data)
        for b in watched:
            assert services.rebuild(b).to_dict() == Battle.objects.get(pk=b).snapshot

    run()
    _ran_enough(tally, EXAMPLES)


socket_messages = st.one_of(
    st.text(max_size=300),
    st.sampled_from(DEEP),
    st.sampled_from(
        [
            '{"type": "sync", "seq": ' + "[" * 1000 + "]" * 1000 + "}",
            '{"type": "sync", "seq": "²"}',
            '{"type": "sync", "seq": 1, "pad": "' + "x" * 70_000 + '"}',
            "[" * 100_000,
        ]
    ),
    json_values.map(json.dumps),
    st.fixed_dictionaries(
        {"type": st.sampled_from(["sync", "Sync", "act", "battle.push", "presence.hello"]) | json_values},
        optional={"seq": json_values, "reconnect": json_values, "html": st.text(max_size=40)},
    ).map(json.dumps),
    st.binary(max_size=200),
)


@pytest.mark.django_db(transaction=True)
def test_random_websocket_messages_never_break_the_socket(engine_errors, tally):
    world = make_world()
    from django.test import Client

    client = Client()
    client.force_login(world["users"]["player"])
    cookie = client.cookies["sessionid"].value
    bid = world["battle"].pk
    before = fingerprint(bid)

    async def exchange(messages: list[Any]) -> None:
        comm = communicator(bid, cookie)
        connected, _ = await comm.connect()
        assert connected
        try:
            for message in messages:
                if isinstance(message, bytes):
                    await comm.send_to(bytes_data=message or b"\x00")
                else:
                    await comm.send_to(text_data=message or " ")
            await frames(comm, 0.05)
            # Still alive and answering: a sync behind the battle brings the regions.
            await comm.send_to(text_data=json.dumps({"type": "sync", "seq": -1}))
            got = "".join(await frames(comm, 2.0, until='id="battle-seq"'))
            assert 'id="board"' in got
            assert not comm.future.done(), "the consumer stopped"
        finally:
            await comm.disconnect()

    @settings(max_examples=40, deadline=None, derandomize=True)
    @given(messages=st.lists(socket_messages, min_size=1, max_size=6))
    def run(messages: list[Any]) -> None:
        tally["examples"] += 1
        tally["messages"] += len(messages)
        asyncio.run(exchange(messages))

    run()
    _ran_enough(tally, 40)
    assert fingerprint(bid) == before, "socket messages changed the battle"


# ------------------------------------------------------------------ issue 22: content dice and imports

DICE_ALPHABET = "0123456789d%+-*/()ekhlpraomi<>,. "
dice_expressions = st.one_of(
    st.text(DICE_ALPHABET, max_size=30),
    st.builds(
        lambda n, size, op, sel, tail: f"{n}d{size}{op}{sel}{tail}",
        st.integers(0, 1500),
        st.integers(0, 1500).map(str) | st.just("%"),
        st.sampled_from(["", "e", "rr", "ro", "ra", "k", "p", "mi", "ma", "kh", "eh", "ee"]),
        st.sampled_from(["", "1", "2", "6", "h1", "l2", ">3", "<2", ">0", "<999"]),
        st.sampled_from(["", "+2", "*3", "/0", "/2", "%4", "+1d1e1", "+(1d0)", " [fire]", "+" + "1d6+" * 20]),
    ),
    st.sampled_from(
        ["1d0", "1001d6", "1d1e1", "1d6e>0", "1d2rr<3", "101d1", "1d6/(1d2-1)", "(" * 9 + "1" + ")" * 9]
    ),
)


def test_point_3_random_dice_expressions_are_refused_with_a_reason_or_roll(tally):
    from combat.engine.dice import MAX_DICE, Dice, DiceError, check_expr

    @FUZZ
    @given(expr=dice_expressions, seed=st.integers(0, 2**32))
    def run(expr: str, seed: int) -> None:
        tally["examples"] += 1
        problem = check_expr(expr)
        dice = Dice(seed, 1)
        if problem is None:
            roll = dice.roll(expr, "damage")  # accepted: it rolls, and ends
            assert len(roll.faces) <= 10 * MAX_DICE
        else:
            assert isinstance(problem, str) and problem
            with pytest.raises(DiceError, match="cannot be rolled"):
                dice.roll(expr, "damage")
            assert dice._rng is None  # refused before a single die was drawn

    run()
    _ran_enough(tally, EXAMPLES)


def test_point_3_random_dice_planted_in_a_battle_never_break_it(tally):
    from combat.engine.actions import Action, Refusal
    from combat.engine.core import resolve
    from combat.engine.dice import Dice
    from combat.engine.rulesets import RULESETS
    from tests.content import every_option, poisoned, started

    battles = {key: started(key) for key in sorted(RULESETS)}

    @settings(max_examples=60, deadline=None, derandomize=True)
    @given(key=st.sampled_from(sorted(battles)), expr=dice_expressions)
    def run(key: str, expr: str) -> None:
        tally["examples"] += 1
        state = battles[key]
        while state.pending is not None:  # a question of the rules first (Paradigm's phases)
            p = state.pending
            who = None if p.gm_only else p.combatant
            state = resolve(
                state, Action("answer", who, {"decision": p.id, "choice": p.default}), Dice(1, 1)
            )[1]
        state = poisoned(state, expr)
        for action in every_option(state):
            out = resolve(
                state, action, Dice(state.seed, state.seq)
            )  # events or a refusal, never an exception
            assert isinstance(out, Refusal) or out[0]
        for turn in (Action("end_turn", state.current().id), Action("gm.skip_turn")):
            assert not isinstance(resolve(state, turn, Dice(state.seed, state.seq)), Refusal), (
                key,
                expr,
                turn,
            )

    run()
    _ran_enough(tally, 60)


def test_point_3_random_dice_through_the_homebrew_form_never_error(db, tally):
    from tests.content import CASES, form_data
    from tests.table import make_campaign, make_user
    from vtt.models import ContentEntry

    gm = make_user("gm")
    campaigns = {key: make_campaign(gm, key) for key in sorted(CASES)}
    client = Client()
    client.force_login(gm)

    @settings(max_examples=60, deadline=None, derandomize=True)
    @given(key=st.sampled_from(sorted(CASES)), expr=dice_expressions)
    def run(key: str, expr: str) -> None:
        from combat.engine.dice import Dice

        tally["examples"] += 1
        kind, values, field = CASES[key]["invalid"]
        ContentEntry.objects.all().delete()
        response = client.post(
            f"/campaigns/{campaigns[key].pk}/content/{kind}/new/", form_data({**values, field: expr})
        )
        assert response.status_code in (200, 302, 400)
        for entry in ContentEntry.objects.all():  # whatever was saved rolls, and stops
            Dice(7, 1).roll(entry.data[field], "damage")

    run()
    _ran_enough(tally, 60)


forged_values = json_values | st.sampled_from(
    ["12", "c99", 10**7, -1, [5, 5], {"x": 1}, None, True, "1001d6"]
)


@pytest.mark.parametrize("ruleset", ["luck", "paradigm"])
def test_point_2_random_forged_battle_files_never_error(db, caplog, ruleset, tally):
    """Random edits of a real export (any field of any event, an event dropped, repeated or retyped, the
    final state recomputed by the engine or not): each is refused with a reason or imports; an import
    that passes renders its replay (first, middle and last step), its page and its campaign."""
    from combat import archive
    from tests.table import make_campaign, make_user, play_battle

    caplog.set_level(logging.INFO, logger="combat.import_check")
    gm = make_user("gm")
    campaign = make_campaign(gm, ruleset)
    exported = archive.export_battle(play_battle(campaign, gm, seed=3, steps=30))
    client = Client()
    client.force_login(gm)
    url = f"/campaigns/{campaign.pk}/battles/import/"

    @settings(max_examples=60, deadline=None, derandomize=True)
    @given(
        edits=st.lists(
            st.tuples(
                st.integers(0, 10**6),
                st.integers(0, 10**6),
                st.sampled_from(["set", "set", "nested", "drop-key", "retype", "drop-event", "repeat"]),
                forged_values,
            ),
            min_size=1,
            max_size=3,
        ),
        recompute=st.booleans(),
    )
    def run(edits: list, recompute: bool) -> None:
        from combat.engine.core import replay
        from combat.engine.events import GENERIC_EVENTS
        from combat.engine.rulesets import RULESETS

        tally["examples"] += 1
        data = json.loads(json.dumps(exported))
        events = data["events"]
        for at, pick, how, value in edits:
            event = events[at % len(events)]
            keys = sorted(event["data"]) or ["x"]
            key = keys[pick % len(keys)]
            if how == "set":
                event["data"][key] = value
            elif how == "nested" and isinstance(event["data"].get(key), dict) and event["data"][key]:
                inner = sorted(event["data"][key])
                event["data"][key][inner[pick % len(inner)]] = value
            elif how == "drop-key":
                event["data"].pop(key, None)
            elif how == "retype":
                names = sorted({*GENERIC_EVENTS, *RULESETS[ruleset].events})
                event["type"] = names[pick % len(names)]
            elif how == "drop-event" and len(events) > 1:
                events.remove(event)
            elif how == "repeat":
                events.insert(at % len(events), json.loads(json.dumps(event)))
        if recompute:
            with contextlib.suppress(Exception):  # the engine cannot replay it: the file keeps its final
                data["final"] = replay(events).to_dict()
        before = Battle.objects.count()
        upload = SimpleUploadedFile("battle.json", json.dumps(data).encode(), content_type="application/json")
        response = client.post(url, {"file": upload})
        assert response.status_code in (302, 400)
        if response.status_code == 400:
            assert Battle.objects.count() == before
            return
        tally["forged-accepted"] += 1
        battle = Battle.objects.latest("pk")
        for page in (
            *(f"/battles/{battle.pk}/replay?step={s}" for s in (1, battle.seq // 2, battle.seq)),
            f"/battles/{battle.pk}/",
            f"/campaigns/{campaign.pk}/",
        ):
            assert client.get(page).status_code == 200, page

    run()
    _ran_enough(tally, 60)
    assert tally["forged-accepted"], "no forged file imported: its replay and pages went unchecked"
    fallbacks = [r for r in caplog.records if r.name == "combat.import_check"]
    tally["forged-fallback"] += len(fallbacks)
