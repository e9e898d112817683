"""Property: what every viewer is shown of random battles is what the events say, and nothing else.

Seeded random battles of all four rulesets (the whole starter cast, random legal actions and GM
overrides: ``tests/engine/properties.random_battle``). For every viewer class (the GM, the acting
player, another player, an observer), the log region's entries, the actor's outcome line and the
tracker's and board's numbers are rendered as the page renders them (the presenters, without HTTP)
and checked against the events:

- every log entry maps to exactly one event (its seq), and no entry appears twice;
- every number in an entry's words is one of that event's values as the viewer may read them
  (``event_data_for``: a hidden combatant's numbers are not there, so they cannot be shown);
- every roll shown is that event's roll: its dice, its faces and its total (the total the rules went
  on with), for everyone who may see it;
- every outcome line says only what its action's events say: "N damage to X" is a damage event of N
  to X, "X takes no damage" one of 0, "X is hurt" one above 0, and the dice beside them are the
  action's own rolls with their totals;
- the tracker's and board's HP (``HP 7 of 12`` in a token's label) is the combatant's HP after the
  last event, shown only to those who may see it, and the coarse state (unhurt, wounded...) otherwise.

Kept fast (CI has 2 cores): the battles are short and the regions are rendered directly.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from combat.engine.core import Viewer, replay
from combat.engine.rulesets import RULESETS, event_type
from combat.engine.told import Teller
from combat.engine.view import coarse_state, event_data_for, hidden_ids, unseen_ids
from combat.engine.words import square
from combat.outcome import last_action, outcome_text
from combat.presenters.log import log_entries
from combat.presenters.tokens import tokens_of
from combat.table import Table
from tests.engine.properties import random_battle
from vtt.models import Role

BATTLES = 200
STEPS = 28
ROLL = re.compile(r'<span class="roll">([^:<]*): ([^<]*) = <b>(-?\d+)</b></span>')
NUMBER = re.compile(r"(?<![\w])-?\d+")
SQUARE = re.compile(r"\b[A-Z]{1,2}\d+\b")


def _ints(value: Any) -> set[int]:
    if isinstance(value, bool):
        return set()
    if isinstance(value, int):
        return {value}
    if isinstance(value, str):  # a recorded label ("Passive Evasion 7") says its own numbers
        return {int(n) for n in NUMBER.findall(value)}
    if isinstance(value, dict):
        return set().union(*(_ints(v) for v in value.values())) if value else set()
    if isinstance(value, list | tuple):
        return set().union(*(_ints(v) for v in value)) if value else set()
    return set()


def _squares(value: Any) -> set[str]:
    out: set[str] = set()
    if isinstance(value, list | tuple) and len(value) == 2 and all(type(v) is int for v in value):
        out.add(square(value))
    if isinstance(value, dict):
        for v in value.values():
            out |= _squares(v)
    elif isinstance(value, list | tuple):
        for v in value:
            out |= _squares(v)
    return out


def _numbers_in(text: str, names: dict[str, str]) -> tuple[list[int], list[str]]:
    """The numbers a sentence says (names and square labels taken out first), and its square labels."""
    for name in sorted(names.values(), key=len, reverse=True):
        text = text.replace(name, "")
    labels = SQUARE.findall(text)
    text = SQUARE.sub("", text)
    return [int(n) for n in NUMBER.findall(text)], labels


def _viewers(state) -> dict[str, Viewer]:
    controllers = sorted({c.controller for c in state.combatants.values() if c.controller})
    acting = state.current().controller if state.current() and state.current().controller else None
    acting = acting or (controllers[0] if controllers else "1")
    other = next((u for u in controllers if u != acting), "999")
    return {
        "GM": Viewer(role=Role.GM),
        "acting player": Viewer(role=Role.PLAYER, user_id=acting),
        "another player": Viewer(role=Role.PLAYER, user_id=other),
        "observer": Viewer(role=Role.OBSERVER),
    }


def _check_log(events, state, viewer: Viewer, who: str) -> None:
    names = {cid: c.name for cid, c in state.combatants.items()}
    hidden, unseen = hidden_ids(state, viewer), unseen_ids(state, viewer)
    gm = viewer.role == Role.GM
    rows = [(i + 1, e.type, e.data) for i, e in enumerate(events)][::-1]
    entries = log_entries(rows + rows[:5], Teller(state, viewer))  # rows handed twice: told once
    seqs = [e["seq"] for e in entries]
    assert len(seqs) == len(set(seqs)), (who, "an entry twice")
    for entry in entries:
        event = events[entry["seq"] - 1]
        shown = event_data_for(event.type, event.data, hidden, unseen, gm)
        assert shown is not None, (who, entry)
        said, labels = _numbers_in(entry["text"], names)
        values = _ints(shown)
        assert set(said) <= values, (who, event.type, entry["text"], shown)
        assert set(labels) <= _squares(shown), (who, event.type, entry["text"], shown)
        rolls = [r for r in shown.get("rolls") or [] if isinstance(r, dict)]
        on_page = ROLL.findall(entry["html"])
        assert len(on_page) == len(rolls), (who, entry["html"], rolls)
        for (purpose, text, total), roll in zip(on_page, rolls, strict=True):
            assert int(total) == roll.get("result", roll["total"]), (who, entry["html"], roll)
            dice = f"{roll['expr']} [{', '.join(str(f) for f in roll['faces'])}]"
            assert text.lstrip("(").startswith(dice), (who, text)
            for add in roll.get("adds") or []:  # each flat amount with what it comes from
                assert f"{abs(add['value'])} ({add['from']})" in text, (who, text, roll)
            assert purpose == (roll["purpose"] or "roll")


def _hurts(etype: str) -> bool:
    spec = event_type(etype)
    return spec is not None and spec.hurts


def _check_outcome(action_events, state, viewer: Viewer, who: str) -> None:
    names = {cid: c.name for cid, c in state.combatants.items()}
    hidden, unseen = hidden_ids(state, viewer), unseen_ids(state, viewer)
    gm = viewer.role == Role.GM
    shown = [(t, event_data_for(t, d, hidden, unseen, gm)) for _, t, d in action_events]
    shown = [(t, d) for t, d in shown if d is not None]
    line = outcome_text(shown, names, set(hidden))
    hurts = [(t, d) for t, d in shown if _hurts(t)]
    for amount, name in re.findall(r"(\d+) damage to ([^—;.]+?)(?: —|;|\.|$)", line):
        assert any(d.get("amount") == int(amount) and names.get(d.get("target")) == name for _, d in hurts), (
            who,
            line,
            shown,
        )
    for name in re.findall(r"([^;!.]+?) takes no damage", line):
        name = name.strip()
        assert any(
            names.get(d.get("target")) == name and (d.get("amount") == 0 or d.get("zero") is True)
            for _, d in hurts
        ), (who, line, shown)
    for name in re.findall(r"([^;!.]+?) is hurt", line):
        name = name.strip()
        assert any(
            names.get(d.get("target")) == name and (d.get("amount", 1) > 0 and d.get("zero") is not True)
            for _, d in hurts
        ), (who, line, shown)
    totals = {
        r.get("result", r["total"]) for _, d in shown for r in d.get("rolls") or [] if isinstance(r, dict)
    }
    for total in re.findall(r"\] [^;]*?= (-?\d+)", line):
        assert int(total) in totals, (who, line, shown)


def _check_tokens(state, events) -> None:
    rows = [(i + 1, e.type, e.data) for i, e in enumerate(events)][::-1]
    table = Table(battle=None, state=state, events=rows, members={})  # type: ignore[arg-type]
    for vclass in ("gm", "pl"):
        hidden = hidden_ids(state, Viewer(role=Role.GM if vclass == "gm" else Role.PLAYER))
        for t in tokens_of(table, vclass):
            c = state.combatants[t["id"]]
            label = t["on_board"]["label"]
            hp = re.search(r"HP (-?\d+) of (\d+)", label)
            if c.id in hidden:
                assert hp is None, (vclass, label)
                assert t["on_board"]["health"] == coarse_state(c.hp, c.max_hp), (vclass, label)
            else:
                assert hp and (int(hp.group(1)), int(hp.group(2))) == (c.hp, c.max_hp), (vclass, label, c.hp)


def _battles():
    keys = sorted(RULESETS)
    for i in range(BATTLES):
        yield keys[i % len(keys)], 1000 + i


@pytest.mark.parametrize("key", sorted(RULESETS))
def test_every_viewer_is_shown_exactly_what_the_events_say(key):
    seeds = [seed for k, seed in _battles() if k == key]
    assert len(seeds) >= BATTLES // len(RULESETS)
    for seed in seeds:
        actions: list[list] = []

        def seen(state, action, out, actions=actions):
            if not isinstance(out, tuple):
                return
            actions.append(out[0])

        events = random_battle(key, seed, seen, steps=STEPS)
        state = replay(events)
        viewers = _viewers(state)
        for who, viewer in viewers.items():
            _check_log(events, state, viewer, f"{key} seed {seed}, {who}")
        for action_events in actions[-6:]:
            rows = [(0, e.type, e.data) for e in action_events][::-1]
            mine = last_action(rows) or rows[::-1]
            for who in ("GM", "acting player"):
                _check_outcome(mine, state, viewers[who], f"{key} seed {seed}, {who}")
        _check_tokens(state, events)
